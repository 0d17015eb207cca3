package org.wirestream.interop;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.wirestream.interop.compat.Es;

/**
 * The harness for one ES version (tools/interop.sh runs it once per pinned version):
 *
 *   java -cp ... org.wirestream.interop.Main --seed S --runner R --peer P --work DIR
 *        [--coordinator C] [--checks vectors,reduce,transport,coordinator]
 *
 * prints `interop ES <v> <check>: N of M match|pass` per check (and, for each failure, a line
 * saying why) and exits 1 if any check failed. The ES version is the one on the classpath.
 */
public final class Main {
  private Main() {}

  static Map<String, Check> allChecks() {
    Map<String, Check> checks = new LinkedHashMap<>();
    for (Check c : List.of(new VectorsCheck(), new ReduceCheck(), transportCheck(),
        lineCheck("CoordinatorCheck", "coordinator"))) {
      checks.put(c.name(), c);
    }
    return checks;
  }

  /**
   * TransportCheck, loaded by name: a line whose build leaves it out (a profile of
   * interop/pom.xml excluding it; none does today) gets a transport check that fails saying
   * so, never a skip.
   */
  static Check transportCheck() {
    try {
      var k = Class.forName("org.wirestream.interop.TransportCheck");
      var ctor = k.getDeclaredConstructor();
      ctor.setAccessible(true);
      return (Check) ctor.newInstance();
    } catch (ClassNotFoundException e) {
      return new Check() {
        @Override
        public String name() {
          return "transport";
        }

        @Override
        public Result run(Context ctx) {
          Result r = new Result();
          r.fail("TransportCheck is not built against ES " + ctx.esVersion
              + " (interop/pom.xml leaves it out of this compat line)");
          return r;
        }
      };
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("TransportCheck: " + e, e);
    }
  }

  /**
   * A check only some compat lines build (its class in src/test/compat-<line>; today
   * CoordinatorCheck, in es7 and es8): elsewhere a check of that name that fails saying so,
   * never a skip (tools/interop.sh leaves it out of those pins by their checks column).
   */
  static Check lineCheck(String className, String checkName) {
    try {
      var k = Class.forName("org.wirestream.interop." + className);
      var ctor = k.getDeclaredConstructor();
      ctor.setAccessible(true);
      return (Check) ctor.newInstance();
    } catch (ClassNotFoundException e) {
      return new Check() {
        @Override
        public String name() {
          return checkName;
        }

        @Override
        public Result run(Context ctx) {
          Result r = new Result();
          r.fail(className + " is not built against ES " + ctx.esVersion
              + " (only the compat lines whose folder has it)");
          return r;
        }
      };
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(className + ": " + e, e);
    }
  }

  public static void main(String[] args) throws Exception {
    long seed = 0;
    Path runner = null, peer = null, work = null, coordinator = null;
    String checks = String.join(",", allChecks().keySet());
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--runner" -> runner = Path.of(args[++i]);
        case "--peer" -> peer = Path.of(args[++i]);
        case "--work" -> work = Path.of(args[++i]);
        case "--coordinator" -> coordinator = Path.of(args[++i]);
        case "--checks" -> checks = args[++i];
        default -> {
          System.err.println("interop: unknown argument '" + args[i] + "'");
          System.exit(2);
        }
      }
    }
    if (runner == null || peer == null || work == null) {
      System.err.println("interop: --runner, --peer and --work are required");
      System.exit(2);
    }
    Files.createDirectories(work);
    String v = Es.release();
    if (coordinator == null) {  // beside the runner in bazel-bin
      coordinator = runner.toAbsolutePath().getParent().getParent().resolve("examples/es_coordinator");
    }
    Context ctx = new Context(v, seed, runner, peer, work, coordinator);
    System.out.println("interop ES " + v + " (transport version " + Es.transportVersionId()
        + "), seed " + seed);
    boolean ok = true;
    Map<String, Check> all = allChecks();
    List<String> unknown = new ArrayList<>();
    for (String name : checks.split(",")) {
      Check c = all.get(name);
      if (c == null) {
        unknown.add(name);
        continue;
      }
      Result r;
      long start = System.nanoTime();
      try {
        r = c.run(ctx);
      } catch (Exception e) {
        r = new Result();
        r.fail(name + " did not run: " + e);
        e.printStackTrace();
      }
      System.out.printf("  %s took %.1f s%n", name, (System.nanoTime() - start) / 1e9);
      report(v, c, r);
      ok &= r.ok();
    }
    if (!unknown.isEmpty()) {
      System.err.println("interop: unknown checks " + unknown + "; known: " + all.keySet());
      System.exit(2);
    }
    System.exit(ok ? 0 : 1);
  }

  static void report(String v, Check c, Result r) {
    String verb = c.name().equals("transport") ? "pass" : "match";
    if (c.name().equals("coordinator")) verb = "searches identical";
    for (int i = 0; i < Math.min(r.failures.size(), Result.MAX_PRINTED); i++) {
      System.out.println("  FAIL " + c.name() + ": " + r.failures.get(i));
    }
    if (r.failures.size() > Result.MAX_PRINTED) {
      System.out.println("  ... and " + (r.failures.size() - Result.MAX_PRINTED) + " more");
    }
    r.known.forEach(
        (reason, n) -> System.out.println("  known difference (" + n + "x): " + reason));
    System.out.println(
        "interop ES " + v + " " + c.name() + ": " + r.matched + " of " + r.total + " " + verb);
  }
}
