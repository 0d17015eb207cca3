package org.wirestream.interop;

/** TODO (owned by its helper). */
final class AggVectors {
  private AggVectors() {}

  static void run(Context ctx, Result r) throws Exception {
    r.fail("AggVectors: not written yet");
  }
}
