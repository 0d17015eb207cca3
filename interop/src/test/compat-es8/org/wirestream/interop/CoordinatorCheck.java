package org.wirestream.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.elasticsearch.action.OriginalIndices;
import org.elasticsearch.action.bulk.BulkRequestBuilder;
import org.elasticsearch.action.search.SearchRequest;
import org.elasticsearch.action.search.SearchResponse;
import org.elasticsearch.action.support.WriteRequest;
import org.elasticsearch.client.internal.Client;
import org.elasticsearch.cluster.ClusterState;
import org.elasticsearch.cluster.routing.ShardRouting;
import org.elasticsearch.common.Strings;
import org.elasticsearch.common.io.stream.BytesStreamOutput;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.index.shard.ShardId;
import org.elasticsearch.node.InternalSettingsPreparer;
import org.elasticsearch.node.Node;
import org.elasticsearch.plugins.HarnessPluginsService;
import org.elasticsearch.search.SearchModule;
import org.elasticsearch.search.builder.SearchSourceBuilder;
import org.elasticsearch.search.internal.AliasFilter;
import org.elasticsearch.search.internal.ShardSearchRequest;
import org.elasticsearch.transport.netty4.Netty4Plugin;
import org.elasticsearch.xcontent.NamedXContentRegistry;
import org.elasticsearch.xcontent.ToXContent;
import org.elasticsearch.xcontent.XContentParserConfiguration;
import org.elasticsearch.xcontent.XContentType;
import org.wirestream.interop.compat.Es;

/**
 * The coordinator check (ES 8.7 line; issue 25): three ES nodes in this JVM on loopback with
 * the Netty4 transport, an index of 6 primary shards spread over them, N documents from the
 * seed. For each randomized size-0 search, ES's own ShardSearchRequest bytes for every shard
 * are compared with what //examples:es_coordinator writes (--request-hex); then the search
 * runs through ES's coordinator and through es_coordinator (--cluster FILE --query JSON),
 * and their `aggregations` JSON must be identical.
 */
final class CoordinatorCheck implements Check {
  static final String INDEX = "wirestream-coord";
  static final int SHARDS = 6;
  static final int NODES = 3;
  static final int SEARCHES = 60;
  static final long DAY = 86_400_000L;
  /** The documents' first day (UTC); they span 60 days with gaps. */
  static final long START = Instant.parse("2024-03-01T00:00:00Z").toEpochMilli();

  static {
    // A node's plugin scanners log through ES's LogManager, whose provider must be set first.
    org.elasticsearch.common.logging.LogConfigurator.configureESLogging();
  }

  static final class HarnessNode extends Node {
    HarnessNode(Settings settings) {
      this(InternalSettingsPreparer.prepareEnvironment(settings, java.util.Map.of(), null,
          () -> settings.get("node.name")));
    }

    private HarnessNode(Environment env) {
      super(env, s -> new HarnessPluginsService(s, List.of(Netty4Plugin.class)), true);
    }
  }

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
    List<Node> nodes = new ArrayList<>();
    long t0 = System.nanoTime();
    try {
      StringBuilder seeds = new StringBuilder();
      for (int p : ports) seeds.append(seeds.length() > 0 ? "," : "").append("127.0.0.1:" + p);
      List<Thread> starting = new ArrayList<>();
      List<Exception> failed = new ArrayList<>();
      for (int i = 0; i < NODES; i++) {
        Settings s = Settings.builder()
            .put("cluster.name", "wirestream-coord-" + ctx.seed)
            .put("node.name", "n" + i)
            .put("path.home", dir.resolve("n" + i).toString())
            .put("network.host", "127.0.0.1")
            .put("transport.port", ports[i])
            .put("http.port", 0)
            .put("discovery.seed_hosts", seeds.toString())
            .putList("cluster.initial_master_nodes", "n0", "n1", "n2")
            .put("cluster.routing.allocation.disk.threshold_enabled", false)
            .build();
        Node n = new HarnessNode(s);
        nodes.add(n);
        Thread t = new Thread(() -> {
          try {
            n.start();
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
      if (!failed.isEmpty()) throw failed.get(0);
      Client client = nodes.get(0).client();
      client.admin().cluster().prepareHealth().setWaitForNodes("3").setTimeout(
          org.elasticsearch.core.TimeValue.timeValueSeconds(60)).get();
      int docs = 2000 + random.nextInt(2000);
      createIndex(client);
      indexDocuments(client, random, docs);
      System.out.printf("  coordinator: 3 nodes, %d documents in %d shards ready in %.1f s%n",
          docs, SHARDS, (System.nanoTime() - t0) / 1e9);
      Path clusterFile = dir.resolve("cluster.json");
      ObjectNode cluster = clusterFile(client);
      Files.writeString(clusterFile, cluster.toString());
      // -Dinterop.coordinator.hold=S keeps the cluster up S seconds first, to run
      // es_coordinator against it by hand (its cluster file is printed).
      int hold = Integer.getInteger("interop.coordinator.hold", 0);
      if (hold > 0) {
        System.out.println("  coordinator: holding the cluster " + hold + " s: " + clusterFile);
        Thread.sleep(hold * 1000L);
      }
      runSearches(ctx, r, random, client, cluster, clusterFile);
      runFaults(ctx, r, client, nodes, clusterFile);
    } finally {
      for (Node n : nodes) {
        try {
          if (!n.isClosed()) n.close();
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

  static void createIndex(Client client) {
    client.admin().indices().prepareCreate(INDEX)
        .setSettings(Settings.builder().put("index.number_of_shards", SHARDS)
            .put("index.number_of_replicas", 0).build())
        .setMapping("{\"properties\":{\"tag\":{\"type\":\"keyword\"},\"price\":{\"type\":\"long\"},"
            + "\"score\":{\"type\":\"double\"},\"@timestamp\":{\"type\":\"date\"},"
            + "\"ip\":{\"type\":\"ip\"}}}")
        .get();
    client.admin().cluster().prepareHealth(INDEX).setWaitForGreenStatus()
        .setTimeout(org.elasticsearch.core.TimeValue.timeValueSeconds(60)).get();
  }

  /** Zipf-distributed tags, prices, scores, timestamps over 60 days with gap days, IPs. */
  static void indexDocuments(Client client, Random random, int docs) {
    int tags = 40;
    double[] cdf = new double[tags];
    double sum = 0;
    for (int i = 0; i < tags; i++) cdf[i] = sum += 1.0 / (i + 1);
    boolean[] gap = new boolean[60];
    for (int d = 0; d < 60; d++) gap[d] = random.nextInt(6) == 0;
    BulkRequestBuilder bulk = client.prepareBulk();
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
      bulk.add(client.prepareIndex(INDEX).setSource(b.toString(), XContentType.JSON));
    }
    bulk.setRefreshPolicy(WriteRequest.RefreshPolicy.IMMEDIATE);
    var resp = bulk.get();
    if (resp.hasFailures()) throw new IllegalStateException(resp.buildFailureMessage());
  }

  /** The cluster file es_coordinator reads: nodes, the index's name and UUID, shard to node. */
  static ObjectNode clusterFile(Client client) {
    ObjectMapper m = new ObjectMapper();
    ClusterState state = client.admin().cluster().prepareState().get().getState();
    ObjectNode root = m.createObjectNode();
    root.put("es_version", Es.release());
    ArrayNode nodes = root.putArray("nodes");
    state.nodes().forEach(n -> nodes.addObject().put("id", n.getId()).put("name", n.getName())
        .put("address", n.getAddress().getAddress() + ":" + n.getAddress().getPort()));
    var index = state.metadata().index(INDEX);
    root.putObject("index").put("name", INDEX).put("uuid", index.getIndexUUID());
    ArrayNode shards = root.putArray("shards");
    for (int s = 0; s < SHARDS; s++) {
      ShardRouting p = state.routingTable().index(INDEX).shard(s).primaryShard();
      shards.addObject().put("shard", s).put("node", p.currentNodeId());
    }
    return root;
  }

  void runSearches(Context ctx, Result r, Random random, Client client, ObjectNode cluster,
      Path clusterFile) throws Exception {
    Path coordinator = ctx.coordinator;
    if (!Files.isExecutable(coordinator)) {
      r.fail("es_coordinator not found at " + coordinator + " (bazel build //examples:es_coordinator)");
      return;
    }
    var registry = new NamedXContentRegistry(
        new SearchModule(Settings.EMPTY, List.of()).getNamedXContents());
    ObjectMapper mapper = new ObjectMapper();
    String uuid = cluster.get("index").get("uuid").asText();
    int requestsSame = 0;
    for (int i = 0; i < SEARCHES; i++) {
      String query = SearchGen.search(random);
      SearchSourceBuilder source;
      try (var p = XContentType.JSON.xContent().createParser(
               XContentParserConfiguration.EMPTY.withRegistry(registry), query)) {
        source = new SearchSourceBuilder().parseXContent(p, true);
      }
      // 1. The shard-level request: ES's bytes against es_coordinator's, every shard.
      long now = System.currentTimeMillis();
      String requestDiff = null;
      for (int s = 0; s < SHARDS && requestDiff == null; s++) {
        SearchRequest sr = new SearchRequest(INDEX).source(source).allowPartialSearchResults(true);
        var shard = new ShardSearchRequest(
            new OriginalIndices(sr.indices(), sr.indicesOptions()), sr,
            new ShardId(INDEX, uuid, s), s, SHARDS, AliasFilter.EMPTY, 1.0f, now, null);
        BytesStreamOutput out = new BytesStreamOutput();
        out.setTransportVersion(org.elasticsearch.TransportVersion.CURRENT);
        shard.writeTo(out);
        String es = HexFormat.of().formatHex(out.bytes().toBytesRef().bytes, 0, out.size());
        Proc ws = Proc.run(coordinator.toString(), "--request-hex", "--cluster",
            clusterFile.toString(), "--query", query, "--shard", String.valueOf(s), "--now",
            String.valueOf(now));
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
      SearchResponse resp = client.search(new SearchRequest(INDEX).source(source)).get(60,
          TimeUnit.SECONDS);
      JsonNode esJson = mapper.readTree(Strings.toString(resp)).get("aggregations");
      Proc ws = Proc.run(coordinator.toString(), "--cluster", clusterFile.toString(), "--query",
          query);
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
   * that type. 2. A data node stopped: ES's coordinator answers with the other shards and the
   * stopped node's as failed; es_coordinator (whose cluster file still names the node) must give
   * the same shard counts and identical aggregations. 3. The same without partial results: both
   * fail. Each is one case of the check.
   */
  void runFaults(Context ctx, Result r, Client client, List<Node> nodes, Path clusterFile)
      throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    String coordinator = ctx.coordinator.toString();
    var registry = new NamedXContentRegistry(
        new SearchModule(Settings.EMPTY, List.of()).getNamedXContents());
    java.util.function.Function<String, SearchSourceBuilder> parse = json -> {
      try (var p = XContentType.JSON.xContent().createParser(
               XContentParserConfiguration.EMPTY.withRegistry(registry), json)) {
        return new SearchSourceBuilder().parseXContent(p, true);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    };
    // 1. too many buckets
    String hourly = "{\"size\":0,\"aggs\":{\"h\":{\"date_histogram\":{\"field\":\"@timestamp\","
        + "\"fixed_interval\":\"1h\",\"min_doc_count\":0}}}}";
    client.admin().cluster().prepareUpdateSettings()
        .setPersistentSettings(Settings.builder().put("search.max_buckets", 100)).get();
    String esError = null;
    try {
      client.search(new SearchRequest(INDEX).source(parse.apply(hourly))).get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      esError = describe(e);
    } finally {
      client.admin().cluster().prepareUpdateSettings()
          .setPersistentSettings(Settings.builder().putNull("search.max_buckets")).get();
    }
    Proc ws = Proc.run(coordinator, "--cluster", clusterFile.toString(), "--query", hourly,
        "--max-buckets", "100");
    if (esError == null || !esError.contains("TooManyBuckets")) {
      r.fail("fault too_many_buckets: ES did not refuse the search: " + esError);
    } else if (ws.rc != 1 || !ws.err.contains("too_many_buckets_exception")) {
      r.fail("fault too_many_buckets: es_coordinator exited " + ws.rc + ": " + ws.err.strip());
    } else {
      r.pass();
    }
    // 2. a data node stopped: partial results
    Node stopped = nodes.get(NODES - 1);
    stopped.close();
    client.admin().cluster().prepareHealth().setWaitForNodes(String.valueOf(NODES - 1))
        .setTimeout(org.elasticsearch.core.TimeValue.timeValueSeconds(60)).get();
    String query = "{\"size\":0,\"aggs\":{\"t\":{\"terms\":{\"field\":\"tag\",\"size\":5},"
        + "\"aggs\":{\"m\":{\"avg\":{\"field\":\"price\"}}}},\"d\":{\"date_histogram\":{"
        + "\"field\":\"@timestamp\",\"calendar_interval\":\"week\"}}}}";
    SearchResponse resp = client.search(new SearchRequest(INDEX).source(parse.apply(query))
        .allowPartialSearchResults(true)).get(60, TimeUnit.SECONDS);
    JsonNode esJson = mapper.readTree(Strings.toString(resp));
    ws = Proc.run(coordinator, "--cluster", clusterFile.toString(), "--query", query,
        "--timeout-ms", "5000");
    if (ws.rc != 0) {
      r.fail("fault stopped node: es_coordinator failed: " + ws.err.strip());
    } else {
      JsonNode wsJson = mapper.readTree(ws.out);
      String d = JsonCompare.diffOrdered(esJson.get("aggregations"), wsJson.get("aggregations"));
      for (String f : List.of("total", "successful", "failed")) {
        if (d == null && !esJson.get("_shards").get(f).equals(wsJson.get("_shards").get(f))) {
          d = "_shards." + f + ": " + esJson.get("_shards") + " vs " + wsJson.get("_shards");
        }
      }
      if (d == null && esJson.get("_shards").get("failed").asInt() == 0) {
        d = "no shard failed with a node stopped: " + esJson.get("_shards");
      }
      if (d != null) {
        r.fail("fault stopped node: " + d);
      } else {
        r.pass();
      }
    }
    // 3. the same without partial results: both refuse
    String esRefused = null;
    try {
      client.search(new SearchRequest(INDEX).source(parse.apply(query))
          .allowPartialSearchResults(false)).get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      esRefused = describe(e);
    }
    ws = Proc.run(coordinator, "--cluster", clusterFile.toString(), "--query", query,
        "--timeout-ms", "5000", "--allow-partial-search-results", "false");
    if (esRefused == null) {
      r.fail("fault no partial results: ES answered with a node stopped");
    } else if (ws.rc != 1 || !ws.err.contains("SearchPhaseError")) {
      r.fail("fault no partial results: es_coordinator exited " + ws.rc + ": " + ws.err.strip());
    } else {
      r.pass();
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
