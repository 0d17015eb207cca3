package org.wirestream.interop;

/**
 * Vectors from ES's real classes at the version's own wire version, both ways: wirestream
 * writes ES's bytes, reads them to the same value and writes them back identically, and ES
 * reads wirestream's bytes to a value that equals the original. Two families share the
 * count: primitives, strings and generic values (ValueVectors) and aggregation results
 * (AggVectors).
 */
final class VectorsCheck implements Check {
  @Override
  public String name() {
    return "vectors";
  }

  @Override
  public Result run(Context ctx) throws Exception {
    Result r = new Result();
    ValueVectors.run(ctx, r);
    AggVectors.run(ctx, r);
    return r;
  }
}
