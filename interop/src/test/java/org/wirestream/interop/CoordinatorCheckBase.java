package org.wirestream.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.elasticsearch.common.bytes.BytesArray;
import org.elasticsearch.common.io.stream.NamedWriteableAwareStreamInput;
import org.elasticsearch.common.io.stream.NamedWriteableRegistry;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.search.aggregations.AggregatorFactories;
import org.elasticsearch.search.aggregations.InternalAggregations;
import org.elasticsearch.threadpool.ThreadPool;
import org.wirestream.interop.compat.Es;

/**
 * The coordinator check (issue 25): three ES nodes in this JVM on loopback with the Netty4
 * transport, an index of 6 primary shards spread over them, N documents from the seed. For each
 * randomized size-0 search, ES's own ShardSearchRequest bytes for every shard are compared with
 * what //examples:es_coordinator writes (--request-hex); then the search runs through ES's
 * coordinator and through es_coordinator (--cluster FILE --query JSON), and their `aggregations`
 * JSON must be identical. Then the faults (runFaults).
 *
 * <p>What differs between ES lines (how a node starts, the client's type, how a search source
 * is parsed and a shard request written) is a line's subclass, CoordinatorCheck in
 * src/test/compat-<line>; a line without one runs no coordinator check (Main.lineCheck).
 */
abstract class CoordinatorCheckBase implements Check {
  static {
    // Three nodes built at once race in Netty4Utils.setAvailableProcessors (7.17 and 8.7 alike:
    // one sees Netty's count unset and reads it, which sets it; the other's set then throws
    // "availableProcessors is already set"). ES's own test framework turns that call off so.
    System.setProperty("es.set.netty.runtime.available.processors", "false");
  }

  static final String INDEX = "wirestream-coord";
  static final int SHARDS = 6;
  static final int NODES = 3;
  static final int SEARCHES = 60;
  static final long DAY = 86_400_000L;
  /** The documents' first day (UTC); they span 60 days with gaps. */
  static final long START = Instant.parse("2024-03-01T00:00:00Z").toEpochMilli();
  static final String MAPPING = "{\"properties\":{\"tag\":{\"type\":\"keyword\"},"
      + "\"price\":{\"type\":\"long\"},\"score\":{\"type\":\"double\"},"
      + "\"@timestamp\":{\"type\":\"date\"},\"ip\":{\"type\":\"ip\"}}}";

  // ---- what a line's subclass does with its ES's API ----

  /** Builds and starts a node (called from a thread per node); closing it stops it. */
  protected abstract Closeable startNode(Settings settings) throws Exception;

  /** From here on, the client calls below go through this node. */
  protected abstract void useClient(Closeable node);

  /** Waits until the cluster has n nodes (60 s at most). */
  protected abstract void waitForNodes(int n);

  /** Creates the index (mapping: JSON of its properties) and waits for green. */
  protected abstract void createIndex(String index, Settings settings, String mapping);

  /** Indexes the JSON documents in one bulk request with refresh=immediate. */
  protected abstract void bulkIndex(String index, List<String> docs);

  /** The cluster's nodes: id, name, transport address (host:port). */
  protected abstract List<NodeInfo> nodeInfos();

  protected abstract String indexUuid(String index);

  /** The id of the node holding the shard's primary. */
  protected abstract String primaryNodeId(String index, int shard);

  /** ES's ShardSearchRequest for the search JSON and shard, at its current version, in hex. */
  protected abstract String shardRequestHex(String query, String uuid, int shard, long now)
      throws IOException;

  /** ES's coordinator's response to the search JSON (throws what ES's search throws). */
  protected abstract String search(String query, boolean allowPartialResults) throws Exception;

  /** Settings of every node beyond the cluster's own (a line's coordinator settings). */
  protected void nodeSettings(Settings.Builder b) {}

  /** es_coordinator's flags that match nodeSettings (before each call's own). */
  protected List<String> coordinatorFlags() {
    return List.of();
  }

  /** The command line of an es_coordinator call: the binary, the line's flags, then args. */
  String[] wsCommand(String coordinator, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(coordinator);
    cmd.addAll(coordinatorFlags());
    cmd.addAll(List.of(args));
    return cmd.toArray(new String[0]);
  }

  /** Sets the persistent search.max_buckets; null removes it. */
  void setMaxBuckets(Integer max) {
    var b = Settings.builder();
    if (max == null) {
      b.putNull("search.max_buckets");
    } else {
      b.put("search.max_buckets", max);
    }
    updatePersistentSettings(b);
  }

  /** Applies persistent cluster settings through the line's client. */
  protected abstract void updatePersistentSettings(Settings.Builder settings);

  /** The aggregation builders of the search JSON (ES's final reduce looks them up by name). */
  protected abstract AggregatorFactories.Builder aggregationBuilders(String query)
      throws IOException;

  record NodeInfo(String id, String name, String address) {}

  // ---- the check ----

  @Override
  public String name() {
    return "coordinator";
  }

  @Override
  public Result run(Context ctx) throws Exception {
    Result r = new Result();
    Random random = ctx.random(name());
    Path dir = ctx.work.resolve("coordinator");
    Files.createDirectories(dir);
    int[] ports = freePorts(NODES);
    List<Closeable> nodes = new ArrayList<>();
    long t0 = System.nanoTime();
    try {
      StringBuilder seeds = new StringBuilder();
      for (int p : ports) seeds.append(seeds.length() > 0 ? "," : "").append("127.0.0.1:" + p);
      List<Thread> starting = new ArrayList<>();
      List<Exception> failed = new ArrayList<>();
      Closeable[] started = new Closeable[NODES];
      for (int i = 0; i < NODES; i++) {
        Settings.Builder b = Settings.builder()
            .put("cluster.name", "wirestream-coord-" + ctx.seed)
            .put("node.name", "n" + i)
            .put("path.home", dir.resolve("n" + i).toString())
            .put("network.host", "127.0.0.1")
            .put("transport.port", ports[i])
            .put("http.port", 0)
            .put("discovery.seed_hosts", seeds.toString())
            .putList("cluster.initial_master_nodes", "n0", "n1", "n2")
            .put("cluster.routing.allocation.disk.threshold_enabled", false);
        nodeSettings(b);
        Settings s = b.build();
        int index = i;
        Thread t = new Thread(() -> {
          try {
            started[index] = startNode(s);
          } catch (Exception e) {
            synchronized (failed) {
              failed.add(e);
            }
          }
        });
        t.start();
        starting.add(t);
      }
      for (Thread t : starting) t.join();
      for (Closeable n : started) {
        if (n != null) nodes.add(n);
      }
      if (!failed.isEmpty()) throw failed.get(0);
      useClient(nodes.get(0));
      waitForNodes(NODES);
      int docs = 2000 + random.nextInt(2000);
      createIndex(INDEX, Settings.builder().put("index.number_of_shards", SHARDS)
          .put("index.number_of_replicas", 0).build(), MAPPING);
      bulkIndex(INDEX, documents(random, docs));
      System.out.printf("  coordinator: 3 nodes, %d documents in %d shards ready in %.1f s%n",
          docs, SHARDS, (System.nanoTime() - t0) / 1e9);
      Path clusterFile = dir.resolve("cluster.json");
      ObjectNode cluster = clusterFile();
      Files.writeString(clusterFile, cluster.toString());
      // -Dinterop.coordinator.hold=S keeps the cluster up S seconds first, to run
      // es_coordinator against it by hand (its cluster file is printed).
      int hold = Integer.getInteger("interop.coordinator.hold", 0);
      if (hold > 0) {
        System.out.println("  coordinator: holding the cluster " + hold + " s: " + clusterFile);
        Thread.sleep(hold * 1000L);
      }
      runSearches(ctx, r, random, cluster, clusterFile);
      // -Dinterop.coordinator.bench=N (INTEROP_COORDINATOR_BENCH): the numbers of issue 25,
      // N samples a side and round, before the faults stop a node.
      int bench = Integer.getInteger("interop.coordinator.bench", 0);
      if (bench > 0) runNumbers(ctx, r, clusterFile, dir, bench);
      runFaults(ctx, r, nodes, clusterFile);
    } finally {
      for (Closeable n : nodes) {
        try {
          n.close();  // a second close of the stopped node does nothing
        } catch (Exception e) {
          // closing the rest matters more
        }
      }
    }
    return r;
  }

  static int[] freePorts(int n) throws IOException {
    int[] ports = new int[n];
    List<ServerSocket> held = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        ServerSocket s = new ServerSocket();
        s.bind(new InetSocketAddress("127.0.0.1", 0));
        held.add(s);
        ports[i] = s.getLocalPort();
      }
    } finally {
      for (ServerSocket s : held) s.close();
    }
    return ports;
  }

  /** Zipf-distributed tags, prices, scores, timestamps over 60 days with gap days, IPs. */
  static List<String> documents(Random random, int docs) {
    int tags = 40;
    double[] cdf = new double[tags];
    double sum = 0;
    for (int i = 0; i < tags; i++) cdf[i] = sum += 1.0 / (i + 1);
    boolean[] gap = new boolean[60];
    for (int d = 0; d < 60; d++) gap[d] = random.nextInt(6) == 0;
    List<String> out = new ArrayList<>(docs);
    for (int i = 0; i < docs; i++) {
      StringBuilder b = new StringBuilder("{");
      if (random.nextInt(20) != 0) {  // some documents have no tag (missing)
        double u = random.nextDouble() * sum;
        int t = 0;
        while (cdf[t] < u) t++;
        b.append("\"tag\":\"t").append(t).append("\",");
      }
      int day;
      do {
        day = random.nextInt(60);
      } while (gap[day]);
      long ts = START + day * DAY + (long) (random.nextDouble() * DAY);
      b.append("\"price\":").append(random.nextInt(5000) - 200)
          .append(",\"score\":").append(Double.toString(random.nextGaussian() * 10 + 50))
          .append(",\"@timestamp\":").append(ts)
          .append(",\"ip\":\"10.").append(random.nextInt(4)).append('.')
          .append(random.nextInt(256)).append('.').append(random.nextInt(256)).append("\"}");
      out.add(b.toString());
    }
    return out;
  }

  /** The cluster file es_coordinator reads: nodes, the index's name and UUID, shard to node. */
  ObjectNode clusterFile() {
    ObjectMapper m = new ObjectMapper();
    ObjectNode root = m.createObjectNode();
    root.put("es_version", Es.release());
    ArrayNode nodes = root.putArray("nodes");
    for (NodeInfo n : nodeInfos()) {
      nodes.addObject().put("id", n.id()).put("name", n.name()).put("address", n.address());
    }
    root.putObject("index").put("name", INDEX).put("uuid", indexUuid(INDEX));
    ArrayNode shards = root.putArray("shards");
    for (int s = 0; s < SHARDS; s++) {
      shards.addObject().put("shard", s).put("node", primaryNodeId(INDEX, s));
    }
    return root;
  }

  void runSearches(Context ctx, Result r, Random random, ObjectNode cluster, Path clusterFile)
      throws Exception {
    Path coordinator = ctx.coordinator;
    if (!Files.isExecutable(coordinator)) {
      r.fail("es_coordinator not found at " + coordinator
          + " (bazel build //examples:es_coordinator)");
      return;
    }
    ObjectMapper mapper = new ObjectMapper();
    String uuid = cluster.get("index").get("uuid").asText();
    int requestsSame = 0;
    for (int i = 0; i < SEARCHES; i++) {
      String query = SearchGen.search(random);
      // 1. The shard-level request: ES's bytes against es_coordinator's, every shard.
      long now = System.currentTimeMillis();
      String requestDiff = null;
      for (int s = 0; s < SHARDS && requestDiff == null; s++) {
        String es = shardRequestHex(query, uuid, s, now);
        Proc ws = Proc.run(wsCommand(coordinator.toString(), "--request-hex", "--cluster",
            clusterFile.toString(), "--query", query, "--shard", String.valueOf(s), "--now",
            String.valueOf(now)));
        if (ws.rc != 0) {
          requestDiff = "shard " + s + ": es_coordinator --request-hex failed: " + ws.err.strip();
        } else if (!es.equals(ws.out.strip())) {
          requestDiff = "shard " + s + " request bytes: " + JsonCompare.hexDiff(es, ws.out.strip());
        }
      }
      if (requestDiff != null) {
        r.fail("search " + i + " " + query + ": " + requestDiff);
        continue;
      }
      requestsSame++;
      // 2. The search: ES's coordinator against es_coordinator's.
      JsonNode esJson = mapper.readTree(search(query, true)).get("aggregations");
      Proc ws = Proc.run(wsCommand(coordinator.toString(), "--cluster", clusterFile.toString(),
          "--query", query));
      if (ws.rc != 0) {
        r.fail("search " + i + " " + query + ": es_coordinator failed: " + ws.err.strip());
        continue;
      }
      JsonNode wsJson = mapper.readTree(ws.out).get("aggregations");
      String d = JsonCompare.diffOrdered(esJson, wsJson);
      if (d != null) {
        r.fail("search " + i + " " + query + ": aggregations differ at " + d);
      } else {
        r.pass();
      }
    }
    System.out.println("  coordinator: shard requests byte-identical for " + requestsSame + " of "
        + SEARCHES + " searches (6 shards each)");
  }

  /** The searches the numbers are taken on: name, search JSON. */
  static final String[][] BENCH_SEARCHES = {
      {"terms", "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"tag\",\"size\":10},"
          + "\"aggs\":{\"m\":{\"avg\":{\"field\":\"price\"}}}}}}"},
      {"date_histogram", "{\"size\":0,\"aggs\":{\"d\":{\"date_histogram\":{\"field\":"
          + "\"@timestamp\",\"calendar_interval\":\"day\",\"min_doc_count\":0},\"aggs\":{\"s\":"
          + "{\"stats\":{\"field\":\"score\"}}}}}}"},
      {"histogram_cardinality", "{\"size\":0,\"query\":{\"range\":{\"@timestamp\":{\"gte\":"
          + "\"2024-03-10T00:00:00Z\"}}},\"aggs\":{\"h\":{\"histogram\":{\"field\":\"price\","
          + "\"interval\":100}},\"c\":{\"cardinality\":{\"field\":\"tag\"}}}}"},
  };
  static final int BENCH_ROUNDS = 3;

  /**
   * Issue 25's numbers: for each of BENCH_SEARCHES, end-to-end latency and reduce time of
   * es_coordinator and of ES's own coordinator, interleaved: a warm-up of each, then
   * BENCH_ROUNDS rounds of n ES searches and one `es_coordinator --repeat n+1` (its first
   * search opens the connections and is left out). ES's end to end is client.search on node
   * n0 (its coordinator, in this JVM) until the response; its reduce is
   * InternalAggregations.topLevelReduce (Es.finalReduce) of the very shard results
   * es_coordinator received (--dump-shards), read back with ES's registry and timed alone,
   * as es_coordinator times its own reduce. Prints medians with min-max; fails a case only
   * if a side fails or the two answers differ.
   */
  void runNumbers(Context ctx, Result r, Path clusterFile, Path dir, int n) throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    String coordinator = ctx.coordinator.toString();
    NamedWriteableRegistry registry = new NamedWriteableRegistry(Es.searchWriteables());
    for (String[] c : BENCH_SEARCHES) {
      String name = c[0];
      String query = c[1];
      Path dump = dir.resolve("bench-" + name);
      List<Double> wsTook = new ArrayList<>();
      List<Double> wsReduce = new ArrayList<>();
      List<Double> esTook = new ArrayList<>();
      List<Double> esReduce = new ArrayList<>();
      String failure = null;
      // Warm-up: ES's JIT and es_coordinator's page cache; the shards' results dumped.
      for (int i = 0; i < 5 * n; i++) search(query, true);
      Proc ws = Proc.run(wsCommand(coordinator, "--cluster", clusterFile.toString(), "--query",
          query, "--repeat", String.valueOf(n + 1), "--dump-shards", dump.toString()));
      if (ws.rc != 0) {
        r.fail("numbers " + name + ": es_coordinator failed: " + ws.err.strip());
        continue;
      }
      int version = Integer.parseInt(Files.readString(dump.resolve("version")).strip());
      List<byte[]> shardBytes = new ArrayList<>();
      for (int s = 0; s < SHARDS; s++) {
        Path f = dump.resolve("shard-" + s + ".bin");
        if (Files.exists(f)) shardBytes.add(Files.readAllBytes(f));
      }
      AggregatorFactories.Builder builders = aggregationBuilders(query);
      for (int i = 0; i < 5 * n; i++) esReduceMillis(shardBytes, version, registry, builders);
      for (int round = 0; round < BENCH_ROUNDS && failure == null; round++) {
        for (int i = 0; i < n; i++) {
          long t = System.nanoTime();
          search(query, true);
          esTook.add((System.nanoTime() - t) / 1e6);
          esReduce.add(esReduceMillis(shardBytes, version, registry, builders));
        }
        ws = Proc.run(wsCommand(coordinator, "--cluster", clusterFile.toString(), "--query", query,
            "--repeat", String.valueOf(n + 1)));
        String line = ws.err.lines().filter(l -> l.startsWith("es_coordinator: timings "))
            .findFirst().orElse(null);
        if (ws.rc != 0 || line == null) {
          failure = "es_coordinator --repeat failed: " + ws.err.strip();
          break;
        }
        JsonNode timings = mapper.readTree(line.substring("es_coordinator: timings ".length()));
        for (int i = 1; i <= n; i++) {  // the first search opened the connections
          wsTook.add(timings.get("took_ms").get(i).asDouble());
          wsReduce.add(timings.get("reduce_ms").get(i).asDouble());
        }
        // The answers must be the same, or the numbers compare different work.
        JsonNode esJson = mapper.readTree(search(query, true)).get("aggregations");
        String d = JsonCompare.diffOrdered(esJson, mapper.readTree(ws.out).get("aggregations"));
        if (d != null) failure = "aggregations differ at " + d;
      }
      if (failure != null) {
        r.fail("numbers " + name + ": " + failure);
        continue;
      }
      System.out.printf("  coordinator numbers %s (%d shards, median of %d, min-max): end to end "
              + "wirestream %s ms, elasticsearch %s ms, %.2fx; reduce wirestream %s ms, "
              + "elasticsearch %s ms, %.2fx%n",
          name, shardBytes.size(), wsTook.size(), stats(wsTook), stats(esTook),
          median(esTook) / median(wsTook), stats(wsReduce), stats(esReduce),
          median(esReduce) / median(wsReduce));
      r.pass();
    }
  }

  /** ES's final reduce of the shards' bytes, timed alone (reading them is not). */
  static double esReduceMillis(List<byte[]> shards, int version, NamedWriteableRegistry registry,
      AggregatorFactories.Builder builders) throws IOException {
    List<InternalAggregations> read = new ArrayList<>();
    for (byte[] b : shards) {
      StreamInput in = new NamedWriteableAwareStreamInput(new BytesArray(b).streamInput(),
          registry);
      Es.setVersion(in, version);
      read.add(InternalAggregations.readFrom(in));
    }
    long t = System.nanoTime();
    Es.finalReduce(read, 65536, builders);
    return (System.nanoTime() - t) / 1e6;
  }

  static double median(List<Double> xs) {
    List<Double> s = new ArrayList<>(xs);
    s.sort(null);
    int m = s.size() / 2;
    return s.size() % 2 == 1 ? s.get(m) : (s.get(m - 1) + s.get(m)) / 2;
  }

  static String stats(List<Double> xs) {
    return String.format("%.3f (%.3f-%.3f)", median(xs), java.util.Collections.min(xs),
        java.util.Collections.max(xs));
  }

  /** What an exception from ES's search says, its causes and shard failures included. */
  static String describe(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      b.append(t).append(" / ");
      if (t instanceof org.elasticsearch.action.search.SearchPhaseExecutionException p) {
        for (var f : p.shardFailures()) b.append(f.reason()).append(" / ");
      }
    }
    return b.toString();
  }

  /**
   * Faults as ES handles them. 1. search.max_buckets below what a search makes: ES refuses it
   * with too_many_buckets_exception, and es_coordinator with the same --max-buckets fails with
   * that type. 2. A data node stopped during the query phase (stopDuringQueryPhase): both
   * coordinators' requests wait on it when it stops. 3. A data node stopped before the search:
   * ES's coordinator answers with the other shards and the stopped node's as failed;
   * es_coordinator (whose cluster file still names the node) must give the same shard counts
   * and identical aggregations, in 2 as in 3. 4. The same without partial results: both fail.
   * Each is one case of the check.
   */
  void runFaults(Context ctx, Result r, List<Closeable> nodes, Path clusterFile)
      throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    String coordinator = ctx.coordinator.toString();
    // 1. too many buckets
    String hourly = "{\"size\":0,\"aggs\":{\"h\":{\"date_histogram\":{\"field\":\"@timestamp\","
        + "\"fixed_interval\":\"1h\",\"min_doc_count\":0}}}}";
    setMaxBuckets(100);
    String esError = null;
    try {
      search(hourly, true);
    } catch (Exception e) {
      esError = describe(e);
    } finally {
      setMaxBuckets(null);
    }
    Proc ws = Proc.run(wsCommand(coordinator, "--cluster", clusterFile.toString(), "--query",
        hourly, "--max-buckets", "100"));
    if (esError == null || !esError.contains("TooManyBuckets")) {
      r.fail("fault too_many_buckets: ES did not refuse the search: " + esError);
    } else if (ws.rc != 1 || !ws.err.contains("too_many_buckets_exception")) {
      r.fail("fault too_many_buckets: es_coordinator exited " + ws.rc + ": " + ws.err.strip());
    } else {
      r.pass();
    }
    String query = "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"tag\",\"size\":5},"
        + "\"aggs\":{\"m\":{\"avg\":{\"field\":\"price\"}}}},\"d\":{\"date_histogram\":{"
        + "\"field\":\"@timestamp\",\"calendar_interval\":\"week\"}}}}";
    // 2. a data node stopped during the query phase: partial results
    String d = stopDuringQueryPhase(nodes.get(NODES - 1), "n" + (NODES - 1), clusterFile,
        coordinator, query);
    if (d != null) {
      r.fail("fault node stopped during the query phase: " + d);
    } else {
      r.pass();
    }
    waitForNodes(NODES - 1);
    // 3. a data node stopped before the search: partial results
    JsonNode esJson = mapper.readTree(search(query, true));
    ws = Proc.run(wsCommand(coordinator, "--cluster", clusterFile.toString(), "--query", query,
        "--timeout-ms", "5000"));
    d = ws.rc != 0 ? "es_coordinator failed: " + ws.err.strip()
        : samePartialResults(esJson, mapper.readTree(ws.out));
    if (d != null) {
      r.fail("fault stopped node: " + d);
    } else {
      r.pass();
    }
    // 4. the same without partial results: both refuse
    String esRefused = null;
    try {
      search(query, false);
    } catch (Exception e) {
      esRefused = describe(e);
    }
    ws = Proc.run(wsCommand(coordinator, "--cluster", clusterFile.toString(), "--query", query,
        "--timeout-ms", "5000", "--allow-partial-search-results", "false"));
    if (esRefused == null) {
      r.fail("fault no partial results: ES answered with a node stopped");
    } else if (ws.rc != 1 || !ws.err.contains("SearchPhaseError")) {
      r.fail("fault no partial results: es_coordinator exited " + ws.rc + ": " + ws.err.strip());
    } else {
      r.pass();
    }
  }

  /** Null when both answers have the same _shards counts, a failed shard, same aggregations. */
  static String samePartialResults(JsonNode esJson, JsonNode wsJson) {
    String d = JsonCompare.diffOrdered(esJson.get("aggregations"), wsJson.get("aggregations"));
    for (String f : List.of("total", "successful", "failed")) {
      if (d == null && !esJson.get("_shards").get(f).equals(wsJson.get("_shards").get(f))) {
        d = "_shards." + f + ": " + esJson.get("_shards") + " vs " + wsJson.get("_shards");
      }
    }
    if (d == null && esJson.get("_shards").get("failed").asInt() == 0) {
      d = "no shard failed with a node stopped: " + esJson.get("_shards");
    }
    return d;
  }

  /**
   * Stops `node` while both coordinators' shard requests wait on it: a task holds each of its
   * search threads, the search runs through ES's coordinator (on n0) and es_coordinator at
   * once, and once both coordinators' requests for the node's shards are in its search queue
   * the node closes. Each coordinator then loses those shards to the closed connection and
   * must answer with the others (the same _shards counts, identical aggregations). The held
   * threads are let go once both have answered. Null when they agree, else what differs.
   */
  String stopDuringQueryPhase(Closeable node, String name, Path clusterFile, String coordinator,
      String query) throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    JsonNode cluster = mapper.readTree(clusterFile.toFile());
    String id = null;
    for (JsonNode n : cluster.get("nodes")) {
      if (n.get("name").asText().equals(name)) id = n.get("id").asText();
    }
    int shards = 0;
    for (JsonNode sh : cluster.get("shards")) {
      if (sh.get("node").asText().equals(id)) shards++;
    }
    if (shards == 0) return "no shard on " + name;
    ThreadPool pool = ((org.elasticsearch.node.Node) node).injector().getInstance(ThreadPool.class);
    ThreadPoolExecutor search = (ThreadPoolExecutor) pool.executor(ThreadPool.Names.SEARCH);
    int threads = search.getMaximumPoolSize();
    CountDownLatch held = new CountDownLatch(threads);
    CountDownLatch release = new CountDownLatch(1);
    for (int i = 0; i < threads; i++) {
      search.execute(() -> {
        held.countDown();
        try {
          release.await(120, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    // Threads of their own: the common pool has one thread on 2 cores, and each call blocks.
    ExecutorService calls = Executors.newFixedThreadPool(3);
    CompletableFuture<Void> closed = null;
    try {
      if (!held.await(30, TimeUnit.SECONDS)) return "the node's search threads were not held";
      int queued = search.getQueue().size();
      CompletableFuture<String> es = CompletableFuture.supplyAsync(() -> {
        try {
          return search(query, true);
        } catch (Exception e) {
          throw new CompletionException(e);
        }
      }, calls);
      CompletableFuture<Proc> ws = CompletableFuture.supplyAsync(() -> {
        try {
          return Proc.run(wsCommand(coordinator, "--cluster", clusterFile.toString(), "--query",
              query, "--timeout-ms", "30000"));
        } catch (Exception e) {
          throw new CompletionException(e);
        }
      }, calls);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (search.getQueue().size() < queued + 2 * shards) {
        if (System.nanoTime() > deadline) {
          return "the coordinators' requests did not reach the node: " + search.getQueue().size()
              + " queued, wanted " + (queued + 2 * shards);
        }
        Thread.sleep(10);
      }
      closed = CompletableFuture.runAsync(() -> {
        try {
          node.close();
        } catch (IOException e) {
          throw new CompletionException(e);
        }
      }, calls);
      JsonNode esJson = mapper.readTree(es.get(60, TimeUnit.SECONDS));
      Proc w = ws.get(60, TimeUnit.SECONDS);
      if (w.rc != 0) return "es_coordinator failed: " + w.err.strip();
      return samePartialResults(esJson, mapper.readTree(w.out));
    } finally {
      release.countDown();
      if (closed == null) node.close();
      else closed.get(60, TimeUnit.SECONDS);
      calls.shutdownNow();
    }
  }

  /** A child process's exit code, standard output and error. */
  static final class Proc {
    int rc;
    String out;
    String err;

    static Proc run(String... cmd) throws Exception {
      var pb = new ProcessBuilder(cmd);
      Path errFile = Files.createTempFile("es_coordinator", ".err");
      pb.redirectError(errFile.toFile());
      Process p = pb.start();
      Proc r = new Proc();
      r.out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("es_coordinator hung: " + String.join(" ", cmd));
      }
      r.rc = p.exitValue();
      r.err = Files.readString(errFile);
      Files.deleteIfExists(errFile);
      return r;
    }
  }
}
