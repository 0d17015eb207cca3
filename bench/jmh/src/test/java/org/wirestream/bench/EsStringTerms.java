package org.wirestream.bench;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.elasticsearch.common.breaker.NoopCircuitBreaker;
import org.elasticsearch.common.bytes.BytesArray;
import org.elasticsearch.common.bytes.BytesReference;
import org.elasticsearch.common.io.stream.BytesStreamOutput;
import org.elasticsearch.common.io.stream.NamedWriteableAwareStreamInput;
import org.elasticsearch.common.io.stream.NamedWriteableRegistry;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.util.BigArrays;
import org.elasticsearch.search.SearchModule;
import org.elasticsearch.search.aggregations.AggregationReduceContext;
import org.elasticsearch.search.aggregations.AggregatorFactories;
import org.elasticsearch.search.aggregations.InternalAggregations;
import org.elasticsearch.search.aggregations.MultiBucketConsumerService.MultiBucketConsumer;
import org.elasticsearch.search.aggregations.bucket.terms.StringTerms;
import org.elasticsearch.search.aggregations.bucket.terms.TermsAggregationBuilder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * ES's own serialize, deserialize and final reduce of the 1000 x 1000 StringTerms tree: the
 * peers of BM_StringTerms{Serialize,Deserialize,Reduce}_Wirestream[_Realistic]/1000. The tree is
 * the one wirestream measures: ES reads it from the bytes //bench:es_java_inputs wrote, and
 * setup fails unless ES writes it back to exactly those bytes.
 *
 * <ul>
 *   <li>serialize: InternalAggregations.writeTo into a reused BytesStreamOutput (seek(0) keeps
 *       its pages, as ours keeps its recycler's);
 *   <li>deserialize: InternalAggregations.readFrom through the real NamedWriteableRegistry of
 *       SearchModule, a fresh tree each time;
 *   <li>reduce: the coordinator's final reduce (topLevelReduce, AggregationReduceContext.ForFinal)
 *       of two shards' copies, search.max_buckets lifted as ours is.
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 2, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
public class EsStringTerms {
  @Param({"Es", "Realistic"})
  public String shape;

  @Param("")
  public String inputs;

  private NamedWriteableRegistry registry;
  private BytesReference bytes;
  private InternalAggregations tree;
  private BytesStreamOutput out;
  private AggregatorFactories.Builder builders;

  @Setup
  public void setup() throws IOException {
    registry = new NamedWriteableRegistry(
        new SearchModule(Settings.EMPTY, List.of()).getNamedWriteables());
    bytes = new BytesArray(Inputs.bytes(inputs, "terms-" + shape + "-1000.bin"));
    tree = deserialize();
    out = new BytesStreamOutput();
    tree.writeTo(out);
    if (!out.bytes().equals(bytes)) {
      throw new IllegalStateException("ES writes the " + shape + " tree to " + out.size()
          + " bytes that differ from wirestream's " + bytes.length());
    }
    // ForFinal looks each aggregation's builder up by name: the tree's two levels.
    builders = AggregatorFactories.builder().addAggregator(
        new TermsAggregationBuilder("test").subAggregation(new TermsAggregationBuilder("test")));
    StringTerms reduced = (StringTerms) reduce().get("test");
    if (reduced.getBuckets().size() != 1000) {
      throw new IllegalStateException("the reduced tree has " + reduced.getBuckets().size()
          + " outer buckets, not 1000");
    }
  }

  @Benchmark
  public long serialize() throws IOException {
    out.seek(0);
    tree.writeTo(out);
    return out.size();
  }

  @Benchmark
  public InternalAggregations deserialize() throws IOException {
    try (var in = new NamedWriteableAwareStreamInput(bytes.streamInput(), registry)) {
      return InternalAggregations.readFrom(in);
    }
  }

  @Benchmark
  public InternalAggregations reduce() {
    var consumer = new MultiBucketConsumer(Integer.MAX_VALUE, new NoopCircuitBreaker("request"));
    return InternalAggregations.topLevelReduce(List.of(tree, tree),
        new AggregationReduceContext.ForFinal(
            BigArrays.NON_RECYCLING_INSTANCE, null, () -> false, builders, consumer));
  }
}
