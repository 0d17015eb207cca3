package org.wirestream.interop.compat;

import org.elasticsearch.TransportVersion;
import org.elasticsearch.Version;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;

/**
 * What differs between ES release lines, behind one name (this file: 9.x; as 8.19, and the
 * final reduce context also takes the search hits). The other lines have their own Es
 * in src/test/compat-*.
 */
public final class Es {
  private Es() {}

  static {
    // From 8.8 ES's classes log through LogManager, whose provider must be set first.
    org.elasticsearch.common.logging.LogConfigurator.configureESLogging();
  }

  /** The release on the classpath, e.g. "8.7.1". */
  public static String release() {
    return Version.CURRENT.toString();
  }

  /** That release's wire version id (TransportVersion.current()), e.g. 9458007. */
  public static int transportVersionId() {
    return TransportVersion.current().id();
  }

  /** Writes at the given wire version id. */
  public static void setVersion(StreamOutput out, int id) {
    out.setTransportVersion(TransportVersion.fromId(id));
  }

  /** Reads at the given wire version id. */
  public static void setVersion(StreamInput in, int id) {
    in.setTransportVersion(TransportVersion.fromId(id));
  }

  /** The NamedWriteableRegistry entries of ES's SearchModule (aggregations, formats). */
  public static java.util.List<org.elasticsearch.common.io.stream.NamedWriteableRegistry.Entry>
      searchWriteables() {
    return new org.elasticsearch.search.SearchModule(
            org.elasticsearch.common.settings.Settings.EMPTY, java.util.List.of())
        .getNamedWriteables();
  }

  /** max, min and sum: Max, Min and Sum. */
  public static org.elasticsearch.search.aggregations.InternalAggregation max(
      String name, double v, org.elasticsearch.search.DocValueFormat f,
      java.util.Map<String, Object> m) {
    return new org.elasticsearch.search.aggregations.metrics.Max(name, v, f, m);
  }

  public static org.elasticsearch.search.aggregations.InternalAggregation min(
      String name, double v, org.elasticsearch.search.DocValueFormat f,
      java.util.Map<String, Object> m) {
    return new org.elasticsearch.search.aggregations.metrics.Min(name, v, f, m);
  }

  public static org.elasticsearch.search.aggregations.InternalAggregation sum(
      String name, double v, org.elasticsearch.search.DocValueFormat f,
      java.util.Map<String, Object> m) {
    return new org.elasticsearch.search.aggregations.metrics.Sum(name, v, f, m);
  }

  /** The time-series id format, or null where the line has none. */
  public static org.elasticsearch.search.DocValueFormat tsidFormat() {
    return org.elasticsearch.search.DocValueFormat.TIME_SERIES_ID;
  }

  /**
   * ES's final (coordinator) reduce of shard results, counting buckets against maxBuckets as
   * search.max_buckets does. AggregationReduceContext.ForFinal, which looks up each
   * aggregation's builder by name in `builders` (so it must name the whole tree); 9.x's also
   * takes the search hits (none here).
   */
  public static org.elasticsearch.search.aggregations.InternalAggregations finalReduce(
      java.util.List<org.elasticsearch.search.aggregations.InternalAggregations> shards,
      int maxBuckets, org.elasticsearch.search.aggregations.AggregatorFactories.Builder builders) {
    var consumer =
        new org.elasticsearch.search.aggregations.MultiBucketConsumerService.MultiBucketConsumer(
            maxBuckets, new org.elasticsearch.common.breaker.NoopCircuitBreaker("request"));
    return org.elasticsearch.search.aggregations.InternalAggregations.topLevelReduce(
        shards,
        new org.elasticsearch.search.aggregations.AggregationReduceContext.ForFinal(
            org.elasticsearch.common.util.BigArrays.NON_RECYCLING_INSTANCE, null, () -> false,
            builders, consumer, java.util.List.of()));
  }

  /** ES's Netty4 TCP transport at this release's version (the transport-netty4 plugin). */
  public static org.elasticsearch.transport.Transport netty4Transport(
      org.elasticsearch.common.settings.Settings settings,
      org.elasticsearch.threadpool.ThreadPool threadPool,
      org.elasticsearch.common.io.stream.NamedWriteableRegistry registry) {
    return new org.elasticsearch.transport.netty4.Netty4Transport(settings, TransportVersion.current(),
        threadPool, new org.elasticsearch.common.network.NetworkService(java.util.List.of()),
        new org.elasticsearch.common.util.PageCacheRecycler(settings), registry,
        new org.elasticsearch.indices.breaker.NoneCircuitBreakerService(),
        new org.elasticsearch.transport.netty4.SharedGroupFactory(settings));
  }

  /**
   * A wire version this release's handshake refuses: 8824999, under every 9.x minimum
   * compatible id (9.0.x: 8825000; 9.1 and later: 8841000, 8.19.0's).
   */
  public static int refusedVersionId() {
    return 8824999;
  }

  /** A generic value of tag 11 (Text): org.elasticsearch.xcontent in this line. */
  public static Object text(String s) {
    return new org.elasticsearch.xcontent.Text(s);
  }

  /** A histogram bucket; buckets no longer carry `keyed` (as in 8.19) (only the aggregation does). */
  public static org.elasticsearch.search.aggregations.bucket.histogram.InternalHistogram.Bucket
      histogramBucket(double key, long docCount, boolean keyed,
          org.elasticsearch.search.DocValueFormat format,
          org.elasticsearch.search.aggregations.InternalAggregations aggs) {
    return new org.elasticsearch.search.aggregations.bucket.histogram.InternalHistogram.Bucket(
        key, docCount, format, aggs);
  }

  /** A date_histogram bucket; as histogramBucket, no `keyed`. */
  public static org.elasticsearch.search.aggregations.bucket.histogram.InternalDateHistogram.Bucket
      dateHistogramBucket(long key, long docCount, boolean keyed,
          org.elasticsearch.search.DocValueFormat format,
          org.elasticsearch.search.aggregations.InternalAggregations aggs) {
    return new org.elasticsearch.search.aggregations.bucket.histogram.InternalDateHistogram.Bucket(
        key, docCount, format, aggs);
  }

  /**
   * A date_histogram (its constructor is package-private in ES: by reflection). This line's
   * carries downsampledResultsOffset (8.13 and later).
   */
  public static org.elasticsearch.search.aggregations.InternalAggregation dateHistogram(
      String name, java.util.List<?> buckets,
      org.elasticsearch.search.aggregations.BucketOrder order, long minDocCount, long offset,
      Object emptyInfo, org.elasticsearch.search.DocValueFormat format, boolean keyed,
      boolean downsampledResultsOffset, java.util.Map<String, Object> meta) throws Exception {
    Class<?> h = org.elasticsearch.search.aggregations.bucket.histogram.InternalDateHistogram.class;
    Class<?> info = Class.forName(h.getName() + "$EmptyBucketInfo");
    var k = h.getDeclaredConstructor(String.class, java.util.List.class,
        org.elasticsearch.search.aggregations.BucketOrder.class, long.class, long.class, info,
        org.elasticsearch.search.DocValueFormat.class, boolean.class, boolean.class, java.util.Map.class);
    k.setAccessible(true);
    return (org.elasticsearch.search.aggregations.InternalAggregation) k.newInstance(
        name, buckets, order, minDocCount, offset, emptyInfo, format, keyed, downsampledResultsOffset, meta);
  }

  /** Whether this line's date_histogram has downsampledResultsOffset (8.13 and later). */
  public static boolean hasDownsampledResultsOffset() {
    return true;
  }

  // --- TransportCheck (the transport handshakes issue): ES's transport API of this line. ---

  /** What TransportCheck's request classes extend: ES's TransportRequest of this line. */
  public abstract static class TransportRequestBase
      extends org.elasticsearch.transport.AbstractTransportRequest {
    protected TransportRequestBase() {}

    protected TransportRequestBase(org.elasticsearch.common.io.stream.StreamInput in)
        throws java.io.IOException {
      super(in);
    }
  }

  /** A ThreadPool for a TransportService of this line. */
  public static org.elasticsearch.threadpool.ThreadPool threadPool(
      org.elasticsearch.common.settings.Settings settings) {
    return new org.elasticsearch.threadpool.ThreadPool(settings,
        org.elasticsearch.telemetry.metric.MeterRegistry.NOOP,
        new org.elasticsearch.threadpool.DefaultBuiltInExecutorBuilders());
  }

  /** A node of this release known by its id and address only. */
  public static org.elasticsearch.cluster.node.DiscoveryNode discoveryNode(
      String id, org.elasticsearch.common.transport.TransportAddress address) {
    return new org.elasticsearch.cluster.node.DiscoveryNode("", id, address, java.util.Map.of(),
        java.util.Set.of(), org.elasticsearch.cluster.node.VersionInformation.CURRENT);
  }

  /** Registers a handler that runs on the transport thread. */
  public static <R extends org.elasticsearch.transport.TransportRequest> void registerHandler(
      org.elasticsearch.transport.TransportService service, String action,
      org.elasticsearch.common.io.stream.Writeable.Reader<R> reader,
      org.elasticsearch.transport.TransportRequestHandler<R> handler) {
    service.registerRequestHandler(action,
        org.elasticsearch.common.util.concurrent.EsExecutors.DIRECT_EXECUTOR_SERVICE, reader,
        handler);
  }

  /** A response handler that reads with `reader` and completes `done`. */
  public static <T extends org.elasticsearch.transport.TransportResponse>
      org.elasticsearch.transport.TransportResponseHandler<T> responseHandler(
          org.elasticsearch.common.io.stream.Writeable.Reader<T> reader,
          java.util.concurrent.CompletableFuture<T> done) {
    return new org.elasticsearch.transport.TransportResponseHandler<T>() {
      @Override
      public T read(org.elasticsearch.common.io.stream.StreamInput in) throws java.io.IOException {
        return reader.read(in);
      }

      @Override
      public void handleResponse(T response) {
        done.complete(response);
      }

      @Override
      public void handleException(org.elasticsearch.transport.TransportException e) {
        done.completeExceptionally(e);
      }

      @Override
      public java.util.concurrent.Executor executor() {
        return org.elasticsearch.transport.TransportResponseHandler.TRANSPORT_WORKER;
      }
    };
  }

  /**
   * The locales a generated date_time format may have: on the wire from 8.16 (with Latin digits, as wirestream renders every locale as ROOT).
   */
  public static java.util.Locale[] dateLocales() {
    return new java.util.Locale[] {java.util.Locale.ROOT, java.util.Locale.US, java.util.Locale.GERMANY,
        java.util.Locale.FRENCH, java.util.Locale.JAPAN};
  }

  /** Whether a zoned date-time (generic tag 23) carries nanoseconds: from 8.16. */
  public static boolean zonedDateTimeNanos() {
    return true;
  }

  /** Whether writeGenericValue writes java.time's Duration and Period (tags 28, 29): from 8.9. */
  public static boolean durationAndPeriod() {
    return true;
  }

  /** ES's GeoBoundingBox, the GenericNamedWriteable of generic tag 30 (from 8.11). */
  public static Object geoBoundingBox(double top, double left, double bottom, double right) {
    return new org.elasticsearch.common.geo.GeoBoundingBox(
        new org.elasticsearch.common.geo.GeoPoint(top, left),
        new org.elasticsearch.common.geo.GeoPoint(bottom, right));
  }

  /** An input that reads generic tag 30's GeoBoundingBox, as a node's registry does. */
  public static StreamInput genericNamedAware(StreamInput in) {
    return new org.elasticsearch.common.io.stream.NamedWriteableAwareStreamInput(in,
        new org.elasticsearch.common.io.stream.NamedWriteableRegistry(java.util.List.of(
            new org.elasticsearch.common.io.stream.NamedWriteableRegistry.Entry(
                org.elasticsearch.common.io.stream.GenericNamedWriteable.class, "GeoBoundingBox",
                org.elasticsearch.common.geo.GeoBoundingBox::new))));
  }

  /**
   * An exception of one of the newest ids of this line's ElasticsearchException registry, for
   * the transport check: IndexLimitExceededException (186, from 9272000).
   */
  public static RuntimeException registryException(String message) {
    return new org.elasticsearch.indices.IndexLimitExceededException(message);
  }

  /** The index's UUID in the cluster state's metadata (the default project's, 9.x). */
  public static String indexUuid(org.elasticsearch.cluster.ClusterState s, String index) {
    return s.metadata().getProject().index(index).getIndexUUID();
  }

  /** A search response as the JSON ES's REST layer writes, through ChunkedToXContent.wrapAsToXContent (9.x). */
  public static String searchResponseJson(org.elasticsearch.action.search.SearchResponse r) {
    return org.elasticsearch.common.Strings.toString(
        org.elasticsearch.common.xcontent.ChunkedToXContent.wrapAsToXContent(r));
  }
}
