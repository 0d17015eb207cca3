package org.wirestream.bench;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.elasticsearch.common.io.stream.BytesStreamOutput;
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
 * ES's StreamOutput.writeVInt over the 64 Ki values of one varint case, into a reused
 * BytesStreamOutput: the peer of BM_WriteVInt_Wirestream_<Case>. The output is rewound with
 * seek(0), which keeps its pages (reset() would shrink it to one page and allocate again each
 * time): ES at its best.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 2, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class EsWriteVInt {
  @Param({"OneByte", "Mixed", "FiveByte", "Geometric"})
  public String distribution;

  @Param("")
  public String inputs;

  private int[] values;
  private BytesStreamOutput out;

  @Setup
  public void setup() throws IOException {
    values = Inputs.ints(inputs, "vint-" + distribution + ".bin");
    out = new BytesStreamOutput(values.length * 5);
    long expected = 0;
    for (int v : values) {
      expected += v >>> 7 == 0 ? 1 : v >>> 14 == 0 ? 2 : v >>> 21 == 0 ? 3 : v >>> 28 == 0 ? 4 : 5;
    }
    if (writeVInt() != expected) {
      throw new IllegalStateException("ES wrote " + out.size() + " bytes for " + distribution
          + ", where the values' widths add up to " + expected);
    }
  }

  @Benchmark
  public long writeVInt() throws IOException {
    out.seek(0);
    for (int v : values) {
      out.writeVInt(v);
    }
    return out.size();
  }
}
