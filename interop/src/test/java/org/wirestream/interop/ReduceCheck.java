package org.wirestream.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.io.BufferedWriter;
import java.nio.file.Files;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.elasticsearch.common.Strings;
import org.elasticsearch.common.bytes.BytesArray;
import org.elasticsearch.common.bytes.BytesReference;
import org.elasticsearch.common.io.stream.BytesStreamOutput;
import org.elasticsearch.common.io.stream.NamedWriteableAwareStreamInput;
import org.elasticsearch.common.io.stream.NamedWriteableRegistry;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.search.aggregations.InternalAggregations;
import org.elasticsearch.search.aggregations.MultiBucketConsumerService;
import org.wirestream.interop.compat.Es;

/**
 * The coordinator's final reduce against ES's own: each case is 2-5 shard results of one search
 * (ReduceShards) written with ES's StreamOutput at the version's wire version. ES reads them back
 * and reduces them with its top-level final reduce and a max_buckets bucket consumer; the runner
 * (runner/reduce.cc) reduces the same bytes with the same max_buckets. A case matches when the
 * reduced results are the same bytes and the same search-response JSON, or when both refuse it
 * for too many buckets (ES's TooManyBucketsException, wirestream's TooManyBucketsError).
 */
final class ReduceCheck implements Check {
  static final int CASES = 320;
  static final int DEFAULT_MAX_BUCKETS = 65536;
  static final JsonNodeFactory J = JsonNodeFactory.instance;

  /** What ES made of one case: the reduced bytes and JSON, or the exception it threw. */
  record Expected(String hex, JsonNode json, Exception error) {}

  @Override
  public String name() {
    return "reduce";
  }

  @Override
  public Result run(Context ctx) throws Exception {
    Result r = new Result();
    Random rnd = ctx.random("reduce");
    ReduceShards gen = new ReduceShards(rnd);
    if (ReduceShards.ES_7X) r.known(NAN_ORDER_7X);
    int version = Es.transportVersionId();
    NamedWriteableRegistry registry = new NamedWriteableRegistry(Es.searchWriteables());
    List<ReduceShards.Case> cases = new ArrayList<>();
    List<Expected> expected = new ArrayList<>();
    List<ObjectNode> requests = new ArrayList<>();
    for (int id = 0; id < CASES; id++) {
      ReduceShards.Case c = gen.randomCase();
      // Some searches with a small search.max_buckets: some fit, some must fail.
      int maxBuckets = rnd.nextInt(8) == 0 ? 1 + rnd.nextInt(40) : DEFAULT_MAX_BUCKETS;
      ArrayNode shards = J.arrayNode();
      List<InternalAggregations> read = new ArrayList<>();
      for (InternalAggregations shard : c.build()) {
        BytesStreamOutput out = new BytesStreamOutput();
        Es.setVersion(out, version);
        shard.writeTo(out);
        byte[] bytes = BytesReference.toBytes(out.bytes());
        shards.add(HexFormat.of().formatHex(bytes));
        // The coordinator reduces what it read off the wire, not the shard's objects.
        StreamInput in = new NamedWriteableAwareStreamInput(new BytesArray(bytes).streamInput(),
            registry);
        Es.setVersion(in, version);
        read.add(InternalAggregations.readFrom(in));
      }
      expected.add(esReduce(read, maxBuckets, c, version));
      ObjectNode req = J.objectNode();
      req.put("id", id);
      req.put("kind", "reduce");
      req.put("version", version);
      req.put("max_buckets", maxBuckets);
      req.set("shards", shards);
      cases.add(c);
      requests.add(req);
    }
    List<JsonNode> answers = RunnerProcess.run(ctx, "reduce", requests);
    // ES's side beside the runner's batch, one line a case, to replay a failure.
    try (BufferedWriter w = Files.newBufferedWriter(ctx.work.resolve("reduce.expected.jsonl"))) {
      for (Expected e : expected) {
        ObjectNode line = J.objectNode();
        line.put("reduced_hex", e.hex);
        line.set("response_json", e.json);
        line.put("error", e.error == null ? null : e.error.toString());
        w.write(RunnerProcess.JSON.writeValueAsString(line));
        w.write('\n');
      }
    }
    // ES reduced, wirestream ran out of buckets: the same shards again without the limit, to
    // tell the known accounting difference (DELAYED_SUBS) from a wrong result.
    List<Integer> retried = new ArrayList<>();
    List<ObjectNode> retries = new ArrayList<>();
    for (int i = 0; i < cases.size(); i++) {
      if (expected.get(i).error == null
          && answers.get(i).path("too_many_buckets").asBoolean(false)) {
        ObjectNode again = requests.get(i).deepCopy();
        again.put("max_buckets", Integer.MAX_VALUE);
        retried.add(i);
        retries.add(again);
      }
    }
    List<JsonNode> unlimited = retries.isEmpty() ? List.of()
        : RunnerProcess.run(ctx, "reduce-unlimited", retries);
    for (int i = 0; i < cases.size(); i++) {
      String what = "reduce #" + i + " (max_buckets " + requests.get(i).get("max_buckets") + ", "
          + cases.get(i).describe() + ")";
      int k = retried.indexOf(i);
      if (k < 0) {
        check(what, cases.get(i), expected.get(i), answers.get(i), r);
        continue;
      }
      // Known only if, without the limit, wirestream's result is ES's (or a known difference).
      Result alone = new Result();
      check(what + " without the bucket limit", cases.get(i), expected.get(i), unlimited.get(k),
          alone);
      if (alone.failures.isEmpty()) {
        r.known(DELAYED_SUBS);
      } else {
        r.fail(what + ": ES reduced it, wirestream ran out of buckets; and "
            + alone.failures.get(0));
      }
    }
    return r;
  }

  static final String DELAYED_SUBS = "search.max_buckets: ES (7.17 and later) reduces a terms "
      + "bucket's sub-aggregations only once the bucket is sure to be kept or must be compared by "
      + "one (DelayedBucket), wirestream as it merges, so near the limit ES completes a search "
      + "that wirestream refuses; without the limit the results are the same "
      + "(docs/aggregations.md, the bucket budget)";

  static final String NAN_ORDER_7X = "ES 7.x sorts a NaN metric (an empty avg) last both ways; "
      + "wirestream sorts as ES 8 does (NaN greatest: docs/aggregations.md, the terms reduce), so "
      + "against 7.x no search orders terms by an avg (counted once a run)";

  static final String ESTIMATOR = "cardinality: a dense HLL++ sketch's estimate uses Ertl's "
      + "estimator, not ES's bias tables (docs/aggregations.md, 'The estimates differ from ES'; "
      + "aggregations/hyperloglog_plus_plus.h)";

  /**
   * Takes the "value" of every cardinality, at any depth, out of both response trees (walked
   * along the case's plans) and returns why one may not differ: null when each pair is equal or
   * within 4 standard errors (1.04 / sqrt(2^p)) of ES's estimate, the documented bound.
   */
  static String takeCardinalities(JsonNode es, JsonNode ws, List<ReduceShards.Plan> plans,
      int[] differing) {
    if (!(es instanceof ObjectNode eo) || !(ws instanceof ObjectNode wo)) return null;
    for (ReduceShards.Plan p : plans) {
      JsonNode e = eo.get(p.name);
      JsonNode w = wo.get(p.name);
      if (!(e instanceof ObjectNode ea) || !(w instanceof ObjectNode wa)) continue;
      if (p instanceof ReduceShards.CardinalityPlan c) {
        JsonNode ev = ea.remove("value");
        JsonNode wv = wa.remove("value");
        if (ev == null || wv == null || ev.equals(wv)) continue;
        double bound = 4 * 1.04 / Math.sqrt(1 << c.precision) * Math.max(1, ev.asLong());
        if (Math.abs(ev.asLong() - wv.asLong()) > bound) {
          return p.name + ": cardinality " + wv + " is beyond 4 standard errors of ES's " + ev;
        }
        differing[0]++;
        continue;
      }
      JsonNode eb = ea.get("buckets");
      JsonNode wb = wa.get("buckets");
      if (eb == null || wb == null || eb.size() != wb.size()) continue;
      // Buckets by position, or by key when keyed.
      List<String> keys = new ArrayList<>();
      eb.fieldNames().forEachRemaining(keys::add);
      for (int i = 0; i < eb.size(); i++) {
        JsonNode x = eb.isArray() ? eb.get(i) : eb.get(keys.get(i));
        JsonNode y = eb.isArray() ? wb.get(i) : wb.get(keys.get(i));
        String why = takeCardinalities(x, y, p.subs, differing);
        if (why != null) return why;
      }
    }
    return null;
  }

  static Expected esReduce(List<InternalAggregations> shards, int maxBuckets,
      ReduceShards.Case c, int version) {
    try {
      InternalAggregations reduced = Es.finalReduce(shards, maxBuckets, c.builders());
      BytesStreamOutput out = new BytesStreamOutput();
      Es.setVersion(out, version);
      reduced.writeTo(out);
      String hex = HexFormat.of().formatHex(BytesReference.toBytes(out.bytes()));
      // Strings.toString wraps the fragment: {"aggregations": {...}} as in a search response.
      JsonNode json = RunnerProcess.JSON.readTree(Strings.toString(reduced)).get("aggregations");
      return new Expected(hex, json, null);
    } catch (Exception e) {
      return new Expected(null, null, e);
    }
  }

  static void check(String what, ReduceShards.Case c, Expected e, JsonNode a, Result r) {
    if (a.has("error")) {
      r.fail(what + ": runner: " + a.get("error").asText());
      return;
    }
    if (a.has("decode_error")) {
      r.fail(what + ": wirestream could not read a shard's bytes: " + a.get("decode_error").asText());
      return;
    }
    if (e.error != null) {
      boolean esTooMany = e.error instanceof MultiBucketConsumerService.TooManyBucketsException;
      if (esTooMany && a.path("too_many_buckets").asBoolean(false)) {
        r.pass();
      } else if (a.has("reduce_error")) {
        r.fail(what + ": ES threw " + e.error + ", wirestream " + a.get("reduce_error").asText());
      } else {
        r.fail(what + ": ES threw " + e.error + ", wirestream reduced it");
      }
      return;
    }
    if (a.has("reduce_error")) {
      r.fail(what + ": ES reduced it, wirestream threw " + a.get("reduce_error").asText());
      return;
    }
    String hex = a.get("reduced_hex").asText();
    if (!hex.equals(e.hex)) {
      r.fail(what + ": reduced bytes: " + JsonCompare.hexDiff(e.hex, hex));
      return;
    }
    JsonNode ws = a.get("response_json");
    String d = JsonCompare.diff(e.json, ws);
    if (d == null) {
      r.pass();
      return;
    }
    int[] differing = {0};
    String why = takeCardinalities(e.json, ws, c.plans(), differing);
    if (why != null) {
      r.fail(what + ": response JSON: " + why);
      return;
    }
    String rest = JsonCompare.diff(e.json, ws);
    if (rest != null || differing[0] == 0) {
      r.fail(what + ": response JSON: " + (rest != null ? rest : d));
      return;
    }
    r.known(ESTIMATOR);
  }
}
