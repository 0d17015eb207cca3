package org.wirestream.interop;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.elasticsearch.action.OriginalIndices;
import org.elasticsearch.action.bulk.BulkRequestBuilder;
import org.elasticsearch.action.search.SearchRequest;
import org.elasticsearch.action.support.WriteRequest;
import org.elasticsearch.client.Client;
import org.elasticsearch.cluster.ClusterState;
import org.elasticsearch.common.Strings;
import org.elasticsearch.common.io.stream.BytesStreamOutput;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.index.shard.ShardId;
import org.elasticsearch.node.InternalSettingsPreparer;
import org.elasticsearch.node.Node;
import org.elasticsearch.search.SearchModule;
import org.elasticsearch.search.builder.SearchSourceBuilder;
import org.elasticsearch.search.internal.AliasFilter;
import org.elasticsearch.search.internal.ShardSearchRequest;
import org.elasticsearch.transport.Netty4Plugin;
import org.elasticsearch.xcontent.NamedXContentRegistry;
import org.elasticsearch.xcontent.DeprecationHandler;
import org.elasticsearch.xcontent.XContentType;

/** The coordinator check on the ES 7.17 line's API (see CoordinatorCheckBase). */
final class CoordinatorCheck extends CoordinatorCheckBase {
  /** A node whose only plugin is the Netty4 transport, loaded from the classpath. */
  static final class HarnessNode extends Node {
    HarnessNode(Settings settings) {
      super(InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), null,
                () -> settings.get("node.name")),
          List.of(Netty4Plugin.class), true);
    }
  }

  private final NamedXContentRegistry registry =
      new NamedXContentRegistry(new SearchModule(Settings.EMPTY, false, List.of()).getNamedXContents());
  private Client client;

  @Override
  protected Closeable startNode(Settings settings) throws Exception {
    HarnessNode n = new HarnessNode(settings);
    n.start();
    return n;
  }

  @Override
  protected void useClient(Closeable node) {
    client = ((Node) node).client();
  }

  @Override
  protected void waitForNodes(int n) {
    client.admin().cluster().prepareHealth().setWaitForNodes(String.valueOf(n))
        .setTimeout(TimeValue.timeValueSeconds(60)).get();
  }

  @Override
  protected void createIndex(String index, Settings settings, String mapping) {
    client.admin().indices().prepareCreate(index).setSettings(settings)
        .addMapping("_doc", mapping, XContentType.JSON).get();
    client.admin().cluster().prepareHealth(index).setWaitForGreenStatus()
        .setTimeout(TimeValue.timeValueSeconds(60)).get();
  }

  @Override
  protected void bulkIndex(String index, List<String> docs) {
    BulkRequestBuilder bulk = client.prepareBulk();
    for (String d : docs) bulk.add(client.prepareIndex(index, "_doc").setSource(d, XContentType.JSON));
    bulk.setRefreshPolicy(WriteRequest.RefreshPolicy.IMMEDIATE);
    var resp = bulk.get();
    if (resp.hasFailures()) throw new IllegalStateException(resp.buildFailureMessage());
  }

  private ClusterState state() {
    return client.admin().cluster().prepareState().get().getState();
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
    return state().metadata().index(index).getIndexUUID();
  }

  @Override
  protected String primaryNodeId(String index, int shard) {
    return state().routingTable().index(index).shard(shard).primaryShard().currentNodeId();
  }

  private SearchSourceBuilder parse(String json) throws IOException {
    try (var p = XContentType.JSON.xContent().createParser(
             registry, DeprecationHandler.THROW_UNSUPPORTED_OPERATION, json)) {
      SearchSourceBuilder source = new SearchSourceBuilder();
      source.parseXContent(p, true);  // 7.x: parses into this builder, returns nothing
      return source;
    }
  }

  @Override
  protected String shardRequestHex(String query, String uuid, int shard, long now)
      throws IOException {
    SearchRequest sr = new SearchRequest(INDEX).source(parse(query)).allowPartialSearchResults(true);
    var request = new ShardSearchRequest(new OriginalIndices(sr.indices(), sr.indicesOptions()),
        sr, new ShardId(INDEX, uuid, shard), shard, SHARDS, AliasFilter.EMPTY, 1.0f, now, null);
    BytesStreamOutput out = new BytesStreamOutput();
    out.setVersion(org.elasticsearch.Version.CURRENT);
    request.writeTo(out);
    return HexFormat.of().formatHex(out.bytes().toBytesRef().bytes, 0, out.size());
  }

  @Override
  protected String search(String query, boolean allowPartialResults) throws Exception {
    var resp = client.search(new SearchRequest(INDEX).source(parse(query))
        .allowPartialSearchResults(allowPartialResults)).get(60, TimeUnit.SECONDS);
    return Strings.toString(resp);
  }

  @Override
  protected org.elasticsearch.search.aggregations.AggregatorFactories.Builder aggregationBuilders(
      String query) throws IOException {
    return parse(query).aggregations();
  }

  @Override
  protected void updatePersistentSettings(Settings.Builder settings) {
    client.admin().cluster().prepareUpdateSettings().setPersistentSettings(settings).get();
  }
}
