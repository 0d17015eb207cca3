#!/usr/bin/env python3
"""wirestream beside Elasticsearch's own Java (JMH) on the same inputs, in one run.

    python3 bench/es_java_report.py                   # 3 rounds, writes RESULTS.md and README
    python3 bench/es_java_report.py --rounds 5
    python3 bench/es_java_report.py --smoke           # one short round, prints only (CI)

What runs, alternately, round after round (so that a noisy stretch of a shared machine falls
on both sides):

  ours  //bench:serialization_bench (-c opt; --smoke: the last build) filtered to
        BM_WriteVInt_Wirestream_<Case> and BM_StringTerms{Serialize,Deserialize,Reduce}_
        Wirestream[_Realistic]/1000, Google Benchmark, 3 repetitions a round;
  ES    bench/jmh (Maven: org.elasticsearch:elasticsearch at the first pin of
        interop/es-versions.txt, the JDK that pin names, JMH 1.37): EsWriteVInt and
        EsStringTerms, with the forks, warm-up and measurement iterations their annotations
        set (2 forks, 5 + 5 iterations), as JMH users run it.

Both read the same inputs: //bench:es_java_inputs writes the varint values and the tree's bytes
(bench/inputs.h builds them), and ES's setup fails unless it writes that tree back to exactly
those bytes. Times are wall-clock per operation (Google Benchmark's real time, JMH's average
time): the JVM's collector and JIT threads run beside its benchmark thread, ours has none.
Each figure is the median of every repetition (ours) or measurement iteration (JMH, every fork)
of every round, with the min-max; the ratio is ES's median over ours, from the same run.

Prints one line per case,
    es-java <Operation>/<Case>: wirestream <time>, elasticsearch <time>, <ratio>x
and, unless --smoke, writes the table to bench/RESULTS.md and README.md between
es_java_report.py's markers. Exits 1 if a case is missing on either side.
Standard library only.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chart import real_ns  # noqa: E402  (one reader of Google Benchmark times)
from run import cpu_kind, fmt, replace_between  # noqa: E402  (one formatter of times)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VINT_CASES = ["OneByte", "Mixed", "FiveByte", "Geometric"]
SHAPES = [("Es", "1000", ""), ("Realistic", "Realistic/1000", "_Realistic")]
TREE_OPS = [("StringTermsSerialize", "serialize"), ("StringTermsDeserialize", "deserialize"),
            ("StringTermsReduce", "reduce")]


def cases():
    """(operation, case, our benchmark name, (JMH benchmark, its params)) in report order."""
    out = []
    for c in VINT_CASES:
        out.append(("WriteVInt", c, "BM_WriteVInt_Wirestream_" + c,
                    ("org.wirestream.bench.EsWriteVInt.writeVInt", (("distribution", c),))))
    for op, method in TREE_OPS:
        for shape, case, suffix in SHAPES:
            out.append((op, case, "BM_%s_Wirestream%s/1000" % (op, suffix),
                        ("org.wirestream.bench.EsStringTerms." + method, (("shape", shape),))))
    return out


def es_pin():
    """(release, JAVA_HOME) of the first line of interop/es-versions.txt."""
    with open(os.path.join(ROOT, "interop/es-versions.txt")) as f:
        for line in f:
            fields = line.split("#", 1)[0].split()
            if fields:
                return fields[0], "/usr/lib/jvm/" + fields[1]
    sys.exit("es_java_report: no version pinned in interop/es-versions.txt")


def bazel_build(smoke):
    cmd = ["bazel", "build"] + ([] if smoke else ["-c", "opt"]) + [
        "//bench:es_java_inputs", "//bench:serialization_bench"]
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=sys.stderr)
    return (os.path.join(ROOT, "bazel-bin/bench/es_java_inputs"),
            os.path.join(ROOT, "bazel-bin/bench/serialization_bench"))


def maven_build(version, java_home, target):
    """Compiles bench/jmh against ES `version`; returns its classpath."""
    build = os.path.join(target, version)
    cp_file = os.path.join(build, "classpath.txt")
    env = dict(os.environ, JAVA_HOME=java_home)
    subprocess.run(["mvn", "-B", "-q", "-f", os.path.join(ROOT, "bench/jmh/pom.xml"),
                    "-Des.version=" + version, "-Djmh.target=" + target, "test-compile",
                    "dependency:build-classpath", "-Dmdep.includeScope=test",
                    "-Dmdep.outputFile=" + cp_file], check=True, env=env, stdout=sys.stderr)
    with open(cp_file) as f:
        return os.path.join(build, "test-classes") + ":" + f.read().strip()


def run_ours(binary, smoke, out_json):
    names = [c[2] for c in cases()]
    regex = "^(" + "|".join(names) + ")$"
    cmd = [binary, "--benchmark_filter=" + regex, "--benchmark_out=" + out_json,
           "--benchmark_out_format=json"]
    cmd += (["--benchmark_repetitions=1", "--benchmark_min_time=0.01"] if smoke else
            ["--benchmark_repetitions=3", "--benchmark_enable_random_interleaving=true"])
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(out_json) as f:
        data = json.load(f)
    times = {}
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        if b.get("error_occurred"):
            sys.exit("es_java_report: %s failed: %s" % (b["run_name"], b.get("error_message")))
        times.setdefault(b["run_name"], []).append(real_ns(b))
    return times


def run_es(java_home, classpath, inputs, smoke, out_json):
    cmd = [os.path.join(java_home, "bin/java"), "-cp", classpath, "org.openjdk.jmh.Main",
           "-p", "inputs=" + inputs, "-rf", "json", "-rff", out_json]
    if smoke:
        cmd += ["-f", "1", "-wi", "0", "-i", "1", "-r", "100ms"]
    cmd += ["org.wirestream.bench.EsWriteVInt", "org.wirestream.bench.EsStringTerms"]
    subprocess.run(cmd, check=True, stdout=sys.stderr)
    with open(out_json) as f:
        data = json.load(f)
    scale = {"ns/op": 1, "us/op": 1e3, "ms/op": 1e6, "s/op": 1e9}
    times = {}
    for b in data:
        params = tuple(sorted((k, v) for k, v in b.get("params", {}).items() if k != "inputs"))
        metric = b["primaryMetric"]
        unit = scale[metric["scoreUnit"]]
        raw = [x * unit for fork in metric["rawData"] for x in fork]
        times.setdefault((b["benchmark"], params), []).extend(raw)
    return times, data[0]["jvm"] if data else "", data[0].get("vmVersion", "") if data else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--smoke", action="store_true",
                    help="one short round on the last build; prints, writes nothing")
    args = ap.parse_args()
    if not args.smoke and args.rounds < 3:
        sys.exit("es_java_report: publish medians of at least 3 rounds")
    rounds = 1 if args.smoke else args.rounds

    version, java_home = es_pin()
    if not os.path.exists(os.path.join(java_home, "bin/java")):
        sys.exit("es_java_report: ES %s's pin names %s, which is not installed" % (version,
                                                                                  java_home))
    if shutil.which("mvn") is None:
        sys.exit("es_java_report: mvn not found (the java-maven machine has Maven 3.8)")
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load_before = os.getloadavg()[0]
    inputs_bin, ours_bin = bazel_build(args.smoke)
    work = tempfile.mkdtemp(prefix="es_java_report.")
    try:
        subprocess.run([inputs_bin, work], check=True, stdout=sys.stderr)
        classpath = maven_build(version, java_home,
                                os.environ.get("JMH_TARGET", os.path.join(ROOT, "bench/jmh/target")))
        ours, es = {}, {}
        jvm = ""
        for r in range(rounds):
            print("es_java_report: round %d of %d" % (r + 1, rounds), file=sys.stderr)
            for k, v in run_ours(ours_bin, args.smoke, os.path.join(work, "ours.json")).items():
                ours.setdefault(k, []).extend(v)
            got, jvm_path, vm_version = run_es(java_home, classpath, work, args.smoke,
                                               os.path.join(work, "es.json"))
            jvm = "%s (%s)" % (vm_version, jvm_path)
            for k, v in got.items():
                es.setdefault(k, []).extend(v)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load_after = os.getloadavg()[0]

    rows, missing = [], 0
    for op, case, our_name, (jmh_name, params) in cases():
        a, b = ours.get(our_name), es.get((jmh_name, tuple(sorted(params))))
        if not a or not b:
            print("es-java %s/%s: missing on %s" % (op, case, "wirestream's side" if not a
                                                     else "elasticsearch's side"))
            missing += 1
            continue
        ratio = statistics.median(b) / statistics.median(a)
        print("es-java %s/%s: wirestream %s, elasticsearch %s, %.2fx" % (
            op, case, fmt(statistics.median(a)), fmt(statistics.median(b)), ratio))
        rows.append("| %s | %s | %s (%s–%s) | %s (%s–%s) | **%.2fx** |" % (
            op, case, fmt(statistics.median(a)), fmt(min(a)), fmt(max(a)),
            fmt(statistics.median(b)), fmt(min(b)), fmt(max(b)), ratio))
    if missing:
        sys.exit(1)
    if args.smoke:
        return

    kind = cpu_kind()
    header = (
        "Run %s by `bench/es_java_report.py` on %s, %d CPUs, load average %.1f before and %.1f "
        "after: %d rounds, each `//bench:serialization_bench -c opt` (3 repetitions) then JMH "
        "1.37 (2 forks, 5 warm-up and 5 measured iterations) on Elasticsearch %s's own "
        "`StreamOutput.writeVInt`, `InternalAggregations.writeTo` / `readFrom` (the real "
        "`NamedWriteableRegistry`) and `topLevelReduce` (final, two shards), JVM %s. Same "
        "inputs on both sides (`//bench:es_java_inputs`); wall-clock time per operation, "
        "median (min–max) over every repetition and measured iteration; ratio = ES / ours "
        "(> 1: wirestream faster)." % (started, kind, os.cpu_count(), load_before, load_after,
                                       rounds, version, jvm))
    table = "\n".join(["| operation | case | wirestream | Elasticsearch (Java) | ratio |",
                       "|---|---|---:|---:|---:|"] + rows)
    body = header + "\n\n" + table
    for path, begin, end in (
            ("bench/RESULTS.md", "<!-- es_java_report.py: begin -->",
             "<!-- es_java_report.py: end -->"),
            ("README.md", "<!-- es_java_report.py: readme begin -->",
             "<!-- es_java_report.py: readme end -->")):
        full = os.path.join(ROOT, path)
        with open(full) as f:
            text = f.read()
        if begin not in text:
            sys.exit("es_java_report: %s has no %s marker" % (path, begin))
        with open(full, "w") as f:
            f.write(replace_between(text, begin, end, body))
    print(body)


if __name__ == "__main__":
    main()
