package org.wirestream.interop;

/** TODO: the reduce check (owned by its helper). */
final class ReduceCheck implements Check {
  @Override
  public String name() {
    return "reduce";
  }

  @Override
  public Result run(Context ctx) throws Exception {
    Result r = new Result();
    r.fail("not written yet");
    return r;
  }
}
