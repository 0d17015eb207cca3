package org.wirestream.interop;

/** One line of the harness's report for one ES version: vectors, reduce, transport, .... */
interface Check {
  /** The word in the report line: "vectors", "reduce", "transport", "coordinator". */
  String name();

  /** Runs every case of this check; never throws for a case that fails (the case counts). */
  Result run(Context ctx) throws Exception;
}
