package org.wirestream.interop.compat;

import org.elasticsearch.Version;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;

/**
 * What differs between ES release lines, behind one name (this file: 7.x, where the wire
 * version is the release Version). The other lines have their own Es in src/test/compat-*.
 */
public final class Es {
  private Es() {}

  /** The release on the classpath, e.g. "7.17.29". */
  public static String release() {
    return Version.CURRENT.toString();
  }

  /** That release's wire version id (Version.CURRENT.id), e.g. 7172999. */
  public static int transportVersionId() {
    return Version.CURRENT.id;
  }

  /** Writes at the given wire version id. */
  public static void setVersion(StreamOutput out, int id) {
    out.setVersion(Version.fromId(id));
  }

  /** Reads at the given wire version id. */
  public static void setVersion(StreamInput in, int id) {
    in.setVersion(Version.fromId(id));
  }

  /** The NamedWriteableRegistry entries of ES's SearchModule (aggregations, formats). */
  public static java.util.List<org.elasticsearch.common.io.stream.NamedWriteableRegistry.Entry>
      searchWriteables() {
    return new org.elasticsearch.search.SearchModule(
            org.elasticsearch.common.settings.Settings.EMPTY, false, java.util.List.of())
        .getNamedWriteables();
  }

  /** max, min and sum: InternalMax, InternalMin and InternalSum in 7.x. */
  public static org.elasticsearch.search.aggregations.InternalAggregation max(
      String name, double v, org.elasticsearch.search.DocValueFormat f,
      java.util.Map<String, Object> m) {
    return new org.elasticsearch.search.aggregations.metrics.InternalMax(name, v, f, m);
  }

  public static org.elasticsearch.search.aggregations.InternalAggregation min(
      String name, double v, org.elasticsearch.search.DocValueFormat f,
      java.util.Map<String, Object> m) {
    return new org.elasticsearch.search.aggregations.metrics.InternalMin(name, v, f, m);
  }

  public static org.elasticsearch.search.aggregations.InternalAggregation sum(
      String name, double v, org.elasticsearch.search.DocValueFormat f,
      java.util.Map<String, Object> m) {
    return new org.elasticsearch.search.aggregations.metrics.InternalSum(name, v, f, m);
  }

  /** The time-series id format (8.x), or null where the line has none. */
  public static org.elasticsearch.search.DocValueFormat tsidFormat() {
    return null;
  }

  /**
   * ES's final (coordinator) reduce of shard results, counting buckets against maxBuckets as
   * search.max_buckets does. 7.x: InternalAggregation.ReduceContext.forFinalReduction, which
   * needs no builders (the argument is there for 8.x).
   */
  public static org.elasticsearch.search.aggregations.InternalAggregations finalReduce(
      java.util.List<org.elasticsearch.search.aggregations.InternalAggregations> shards,
      int maxBuckets, org.elasticsearch.search.aggregations.AggregatorFactories.Builder builders) {
    var consumer =
        new org.elasticsearch.search.aggregations.MultiBucketConsumerService.MultiBucketConsumer(
            maxBuckets, new org.elasticsearch.common.breaker.NoopCircuitBreaker("request"));
    return org.elasticsearch.search.aggregations.InternalAggregations.topLevelReduce(
        shards,
        org.elasticsearch.search.aggregations.InternalAggregation.ReduceContext.forFinalReduction(
            org.elasticsearch.common.util.BigArrays.NON_RECYCLING_INSTANCE, null, consumer,
            org.elasticsearch.search.aggregations.pipeline.PipelineAggregator.PipelineTree.EMPTY,
            () -> false));
  }

  /** ES's Netty4 TCP transport at this release's version (the transport-netty4 module). */
  public static org.elasticsearch.transport.Transport netty4Transport(
      org.elasticsearch.common.settings.Settings settings,
      org.elasticsearch.threadpool.ThreadPool threadPool,
      org.elasticsearch.common.io.stream.NamedWriteableRegistry registry) {
    return new org.elasticsearch.transport.netty4.Netty4Transport(settings, Version.CURRENT,
        threadPool, new org.elasticsearch.common.network.NetworkService(java.util.List.of()),
        new org.elasticsearch.common.util.PageCacheRecycler(settings), registry,
        new org.elasticsearch.indices.breaker.NoneCircuitBreakerService(),
        new org.elasticsearch.transport.SharedGroupFactory(settings));
  }

  /**
   * A wire version this release's handshake refuses: 9.0.0, whose minimum compatible version
   * (the last 8.x) is past 7.17.
   */
  public static int refusedVersionId() {
    return 9000099;
  }

  /** A generic value of tag 11 (Text): org.elasticsearch.common.text in this line. */
  public static Object text(String s) {
    return new org.elasticsearch.common.text.Text(s);
  }

  /** A histogram bucket. */
  public static org.elasticsearch.search.aggregations.bucket.histogram.InternalHistogram.Bucket
      histogramBucket(double key, long docCount, boolean keyed,
          org.elasticsearch.search.DocValueFormat format,
          org.elasticsearch.search.aggregations.InternalAggregations aggs) {
    return new org.elasticsearch.search.aggregations.bucket.histogram.InternalHistogram.Bucket(
        key, docCount, keyed, format, aggs);
  }

  /** A date_histogram bucket. */
  public static org.elasticsearch.search.aggregations.bucket.histogram.InternalDateHistogram.Bucket
      dateHistogramBucket(long key, long docCount, boolean keyed,
          org.elasticsearch.search.DocValueFormat format,
          org.elasticsearch.search.aggregations.InternalAggregations aggs) {
    return new org.elasticsearch.search.aggregations.bucket.histogram.InternalDateHistogram.Bucket(
        key, docCount, keyed, format, aggs);
  }

  /**
   * A date_histogram (its constructor is package-private in ES: by reflection). This line has
   * no downsampledResultsOffset: asking for one is an error.
   */
  public static org.elasticsearch.search.aggregations.InternalAggregation dateHistogram(
      String name, java.util.List<?> buckets,
      org.elasticsearch.search.aggregations.BucketOrder order, long minDocCount, long offset,
      Object emptyInfo, org.elasticsearch.search.DocValueFormat format, boolean keyed,
      boolean downsampledResultsOffset, java.util.Map<String, Object> meta) throws Exception {
    if (downsampledResultsOffset) {
      throw new IllegalArgumentException("ES " + release() + " has no downsampledResultsOffset");
    }
    Class<?> h = org.elasticsearch.search.aggregations.bucket.histogram.InternalDateHistogram.class;
    Class<?> info = Class.forName(h.getName() + "$EmptyBucketInfo");
    var k = h.getDeclaredConstructor(String.class, java.util.List.class,
        org.elasticsearch.search.aggregations.BucketOrder.class, long.class, long.class, info,
        org.elasticsearch.search.DocValueFormat.class, boolean.class, java.util.Map.class);
    k.setAccessible(true);
    return (org.elasticsearch.search.aggregations.InternalAggregation) k.newInstance(
        name, buckets, order, minDocCount, offset, emptyInfo, format, keyed, meta);
  }

  /** Whether this line's date_histogram has downsampledResultsOffset (8.13 and later). */
  public static boolean hasDownsampledResultsOffset() {
    return false;
  }

  // --- TransportCheck (the transport handshakes issue): ES's transport API of this line. ---

  /** What TransportCheck's request classes extend: ES's TransportRequest of this line. */
  public abstract static class TransportRequestBase
      extends org.elasticsearch.transport.TransportRequest {
    protected TransportRequestBase() {}

    protected TransportRequestBase(org.elasticsearch.common.io.stream.StreamInput in)
        throws java.io.IOException {
      super(in);
    }
  }

  /** A ThreadPool for a TransportService of this line. */
  public static org.elasticsearch.threadpool.ThreadPool threadPool(
      org.elasticsearch.common.settings.Settings settings) {
    return new org.elasticsearch.threadpool.ThreadPool(settings);
  }

  /** A node of this release known by its id and address only. */
  public static org.elasticsearch.cluster.node.DiscoveryNode discoveryNode(
      String id, org.elasticsearch.common.transport.TransportAddress address) {
    return new org.elasticsearch.cluster.node.DiscoveryNode(id, address, Version.CURRENT);
  }

  /** Registers a handler that runs on the transport thread. */
  public static <R extends org.elasticsearch.transport.TransportRequest> void registerHandler(
      org.elasticsearch.transport.TransportService service, String action,
      org.elasticsearch.common.io.stream.Writeable.Reader<R> reader,
      org.elasticsearch.transport.TransportRequestHandler<R> handler) {
    service.registerRequestHandler(action, org.elasticsearch.threadpool.ThreadPool.Names.SAME,
        reader, handler);
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
    };
  }

  /**
   * The locales a generated date_time format may have: ROOT only, as this line's wire has no locale.
   */
  public static java.util.Locale[] dateLocales() {
    return new java.util.Locale[] {java.util.Locale.ROOT};
  }

  /** Whether a zoned date-time (generic tag 23) carries nanoseconds: from 8.16. */
  public static boolean zonedDateTimeNanos() {
    return false;
  }

  /** Whether writeGenericValue writes java.time's Duration and Period (tags 28, 29): from 8.9. */
  public static boolean durationAndPeriod() {
    return false;
  }

  /** ES's GeoBoundingBox as generic tag 30: not before 8.11, so none here. */
  public static Object geoBoundingBox(double top, double left, double bottom, double right) {
    return null;
  }

  /** An input that reads generic tag 30: this line has no tag 30, so the input itself. */
  public static StreamInput genericNamedAware(StreamInput in) {
    return in;
  }

  /**
   * An exception of one of the newest ids of this line's ElasticsearchException registry, for
   * the transport check: VersionMismatchException (161, from 7.12).
   */
  public static RuntimeException registryException(String message) {
    return new org.elasticsearch.action.search.VersionMismatchException(message);
  }
}
