package org.wirestream.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The inputs //bench:es_java_inputs wrote (bench/inputs.h builds them): the same values and the
 * same tree wirestream's benchmarks measure. The folder comes as the JMH parameter "inputs".
 */
final class Inputs {
  private Inputs() {}

  static Path file(String dir, String name) {
    if (dir == null || dir.isEmpty()) {
      throw new IllegalArgumentException(
          "no inputs folder: run with -p inputs=DIR (bench/es_java_report.py does)");
    }
    Path p = Path.of(dir, name);
    if (!Files.isRegularFile(p)) {
      throw new IllegalArgumentException(p + " does not exist (//bench:es_java_inputs writes it)");
    }
    return p;
  }

  /** vint-<Case>.bin: int32 little-endian values. */
  static int[] ints(String dir, String name) throws IOException {
    byte[] raw = Files.readAllBytes(file(dir, name));
    if (raw.length % 4 != 0) {
      throw new IllegalStateException(name + " holds " + raw.length + " bytes, not int32s");
    }
    int[] values = new int[raw.length / 4];
    ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(values);
    return values;
  }

  static byte[] bytes(String dir, String name) throws IOException {
    return Files.readAllBytes(file(dir, name));
  }
}
