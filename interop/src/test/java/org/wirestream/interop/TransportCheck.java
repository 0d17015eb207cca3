package org.wirestream.interop;

/** TODO: the transport check (owned by its helper). */
final class TransportCheck implements Check {
  @Override
  public String name() {
    return "transport";
  }

  @Override
  public Result run(Context ctx) throws Exception {
    Result r = new Result();
    r.fail("not written yet");
    return r;
  }
}
