package org.wirestream.interop;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.elasticsearch.TransportVersion;
import org.elasticsearch.action.OriginalIndices;
import org.elasticsearch.action.bulk.BulkRequestBuilder;
import org.elasticsearch.action.search.SearchRequest;
import org.elasticsearch.action.support.WriteRequest;
import org.elasticsearch.client.internal.Client;
import org.elasticsearch.cluster.ClusterState;
import org.elasticsearch.common.io.stream.BytesStreamOutput;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.index.shard.ShardId;
import org.elasticsearch.node.HarnessNode;
import org.elasticsearch.node.Node;
import org.elasticsearch.search.SearchModule;
import org.elasticsearch.search.builder.SearchSourceBuilder;
import org.elasticsearch.search.internal.AliasFilter;
import org.elasticsearch.search.internal.ShardSearchRequest;
import org.elasticsearch.transport.netty4.Netty4Plugin;
import org.elasticsearch.xcontent.NamedXContentRegistry;
import org.elasticsearch.xcontent.XContentParserConfiguration;
import org.elasticsearch.xcontent.XContentType;
import org.wirestream.interop.compat.Es;

/**
 * The coordinator check on the API of ES 8.19 and 9.x (see CoordinatorCheckBase), shared by
 * both lines (src/test/compat-es819plus); where they differ it asks the line's compat.Es (the
 * index metadata, 9.x's default project's; the response's JSON). Nodes are
 * HarnessNode (8.19's and 9.x's Node is built through NodeConstruction;
 * HarnessPluginsService loads the classpath plugins), master-node timeouts are explicit, and a
 * search response is reference-counted.
 */
final class CoordinatorCheck extends CoordinatorCheckBase {
  static {
    // A node's plugin scanners log through ES's LogManager, whose provider must be set first.
    org.elasticsearch.common.logging.LogConfigurator.configureESLogging();
  }

  private static final TimeValue MINUTE = TimeValue.timeValueSeconds(60);

  private final NamedXContentRegistry registry =
      new NamedXContentRegistry(new SearchModule(Settings.EMPTY, List.of()).getNamedXContents());
  private Client client;

  /**
   * 9.x's coordinator runs the batched query phase by default: each remote node reduces its
   * shards and the coordinator sums the nodes' partial results in the order their answers
   * arrive, so a double's last digit is not reproducible run to run, by ES itself either.
   * The check turns it off (search.batched_query_phase, a node setting) and has es_coordinator
   * reduce the same way (--batched-query-phase false): shard results in shard order, exact.
   * 8.19 keeps its default (the feature flag is off in releases).
   */
  static final boolean UNBATCHED = Es.release().startsWith("9.");

  @Override
  protected void nodeSettings(Settings.Builder b) {
    if (UNBATCHED) b.put("search.batched_query_phase", false);
  }

  @Override
  protected List<String> coordinatorFlags() {
    return UNBATCHED ? List.of("--batched-query-phase", "false") : List.of();
  }

  @Override
  protected Closeable startNode(Settings settings) throws Exception {
    HarnessNode n = new HarnessNode(settings, List.of(Netty4Plugin.class));
    n.start();
    return n;
  }

  @Override
  protected void useClient(Closeable node) {
    client = ((Node) node).client();
  }

  @Override
  protected void waitForNodes(int n) {
    client.admin().cluster().prepareHealth(MINUTE).setWaitForNodes(String.valueOf(n))
        .setTimeout(MINUTE).get();
  }

  @Override
  protected void createIndex(String index, Settings settings, String mapping) {
    client.admin().indices().prepareCreate(index).setSettings(settings).setMapping(mapping).get();
    client.admin().cluster().prepareHealth(MINUTE, index).setWaitForGreenStatus()
        .setTimeout(MINUTE).get();
  }

  @Override
  protected void bulkIndex(String index, List<String> docs) {
    BulkRequestBuilder bulk = client.prepareBulk();
    for (String d : docs) bulk.add(client.prepareIndex(index).setSource(d, XContentType.JSON));
    bulk.setRefreshPolicy(WriteRequest.RefreshPolicy.IMMEDIATE);
    var resp = bulk.get();
    if (resp.hasFailures()) throw new IllegalStateException(resp.buildFailureMessage());
  }

  private ClusterState state() {
    return client.admin().cluster().prepareState(MINUTE).get().getState();
  }

  @Override
  protected List<NodeInfo> nodeInfos() {
    List<NodeInfo> out = new ArrayList<>();
    state().nodes().forEach(n -> out.add(new NodeInfo(n.getId(), n.getName(),
        n.getAddress().getAddress() + ":" + n.getAddress().getPort())));
    return out;
  }

  @Override
  protected String indexUuid(String index) {
    return Es.indexUuid(state(), index);
  }

  @Override
  protected String primaryNodeId(String index, int shard) {
    return state().routingTable().index(index).shard(shard).primaryShard().currentNodeId();
  }

  private SearchSourceBuilder parse(String json) throws IOException {
    try (var p = XContentType.JSON.xContent().createParser(
             XContentParserConfiguration.EMPTY.withRegistry(registry), json)) {
      return new SearchSourceBuilder().parseXContent(p, true, feature -> true);
    }
  }

  @Override
  protected String shardRequestHex(String query, String uuid, int shard, long now)
      throws IOException {
    SearchRequest sr = new SearchRequest(INDEX).source(parse(query)).allowPartialSearchResults(true);
    var request = new ShardSearchRequest(new OriginalIndices(sr.indices(), sr.indicesOptions()),
        sr, new ShardId(INDEX, uuid, shard), shard, SHARDS, AliasFilter.EMPTY, 1.0f, now, null);
    BytesStreamOutput out = new BytesStreamOutput();
    out.setTransportVersion(TransportVersion.current());
    request.writeTo(out);
    return HexFormat.of().formatHex(out.bytes().toBytesRef().bytes, 0, out.size());
  }

  @Override
  protected String search(String query, boolean allowPartialResults) throws Exception {
    var resp = client.search(new SearchRequest(INDEX).source(parse(query))
        .allowPartialSearchResults(allowPartialResults)).get(60, TimeUnit.SECONDS);
    try {
      return Es.searchResponseJson(resp);
    } finally {
      resp.decRef();
    }
  }

  @Override
  protected org.elasticsearch.search.aggregations.AggregatorFactories.Builder aggregationBuilders(
      String query) throws IOException {
    return parse(query).aggregations();
  }

  @Override
  protected void updatePersistentSettings(Settings.Builder settings) {
    client.admin().cluster().prepareUpdateSettings(MINUTE, MINUTE).setPersistentSettings(settings)
        .get();
  }
}
