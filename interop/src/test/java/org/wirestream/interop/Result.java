package org.wirestream.interop;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one check found: cases that matched, cases that did not (each with a line saying why),
 * and known differences (a documented strictness of wirestream's, counted apart, by reason).
 */
final class Result {
  /** Failures printed in full; the rest are counted. */
  static final int MAX_PRINTED = 20;

  int matched;
  int total;
  final List<String> failures = new ArrayList<>();
  final Map<String, Integer> known = new LinkedHashMap<>();

  void pass() {
    matched++;
    total++;
  }

  void fail(String what) {
    total++;
    failures.add(what);
  }

  /** A case where wirestream deliberately differs from ES; `reason` names the documented rule. */
  void known(String reason) {
    known.merge(reason, 1, Integer::sum);
  }

  boolean ok() {
    return failures.isEmpty() && total > 0;
  }
}
