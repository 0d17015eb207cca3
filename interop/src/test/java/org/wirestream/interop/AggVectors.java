package org.wirestream.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.elasticsearch.common.bytes.BytesArray;
import org.elasticsearch.common.bytes.BytesReference;
import org.elasticsearch.common.io.stream.BytesStreamOutput;
import org.elasticsearch.common.io.stream.NamedWriteableAwareStreamInput;
import org.elasticsearch.common.io.stream.NamedWriteableRegistry;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.search.aggregations.InternalAggregation;
import org.elasticsearch.search.aggregations.InternalAggregations;
import org.wirestream.interop.compat.Es;

/**
 * Aggregation results (AggGen: every type, format and optional field, sub-aggregations 3 deep)
 * as a shard writes them: ES's InternalAggregations.writeTo at the version's wire version
 * (runner/aggs.cc has the request's shape). A vector matches when wirestream reads ES's bytes
 * and writes them back identically, writes the same bytes again from its own wire JSON of
 * what it read (the `wirestream encode` path) and from the wire JSON AggJson reads off ES's
 * object (docs/cli.md's contract, checked against ES), and ES reads those bytes, through the
 * NamedWriteableRegistry of its SearchModule, to aggregations equal to what it reads from its
 * own bytes. Results ES cannot read back itself are not vectors (counted, bounded).
 */
final class AggVectors {
  static final int VECTORS = 1000;
  static final int MAX_BYTES = 1 << 20;
  static final JsonNodeFactory J = JsonNodeFactory.instance;

  private AggVectors() {}

  static void run(Context ctx, Result r) throws Exception {
    Random rnd = ctx.random("aggs");
    AggGen gen = new AggGen(rnd);
    AggJson toJson = new AggJson(gen.metadataJson::get);
    int version = Es.transportVersionId();
    NamedWriteableRegistry registry = new NamedWriteableRegistry(Es.searchWriteables());
    List<InternalAggregations> originals = new ArrayList<>();
    List<String> esHex = new ArrayList<>();
    List<ObjectNode> requests = new ArrayList<>();
    int unreadable = 0;
    int oversized = 0;
    for (int id = 0; id < VECTORS; id++) {
      InternalAggregations aggs = gen.randomList();
      BytesStreamOutput out = new BytesStreamOutput();
      Es.setVersion(out, version);
      aggs.writeTo(out);
      byte[] bytes = BytesReference.toBytes(out.bytes());
      if (bytes.length > MAX_BYTES) {
        // 40 buckets 3 deep, each with long metadata, reach megabytes: drawn again, so that a
        // batch stays small (the JSON of its answers too). Bounded like the unreadable ones.
        if (++oversized > VECTORS / 4) {
          throw new IllegalStateException(oversized + " results over " + MAX_BYTES + " bytes");
        }
        id--;
        continue;
      }
      InternalAggregations esBack = esRead(bytes, version, registry);
      if (esBack == null) {
        // ES cannot read its own bytes back (a key its format cannot render, such as a
        // geotile of zoom 56): not a vector. Bounded, so that the generator stays useful.
        if (++unreadable > VECTORS / 4) {
          throw new IllegalStateException(unreadable + " results ES cannot read back");
        }
        id--;
        continue;
      }
      String hex = HexFormat.of().formatHex(bytes);
      ObjectNode req = J.objectNode();
      req.put("id", id);
      req.put("kind", "aggs");
      req.put("version", version);
      req.put("es_hex", hex);
      req.set("spec", toJson.list(aggs));
      gen.metadataJson.clear();
      originals.add(esBack);
      esHex.add(hex);
      requests.add(req);
    }
    List<JsonNode> answers = RunnerProcess.run(ctx, "aggs", requests);
    for (int i = 0; i < originals.size(); i++) {
      check(originals.get(i), esHex.get(i), requests.get(i).get("spec"), answers.get(i), version,
          registry, r, i);
    }
  }

  static String describe(InternalAggregations aggs) {
    StringBuilder b = new StringBuilder("[");
    for (InternalAggregation a : aggs.copyResults()) {
      if (b.length() > 1) b.append(", ");
      b.append(a.getWriteableName()).append(' ').append(a.getName());
    }
    return b.append(']').toString();
  }

  static void check(InternalAggregations original, String es, JsonNode spec, JsonNode a,
      int version, NamedWriteableRegistry registry, Result r, int id) {
    String what = "aggs #" + id + " " + describe(original);
    if (a.has("error")) {
      r.fail(what + ": runner: " + a.get("error").asText());
      return;
    }
    if (a.has("decode_error")) {
      r.fail(what + ": wirestream could not read ES's bytes: " + a.get("decode_error").asText());
      return;
    }
    String rewrite = a.get("rewrite_hex").asText();
    if (!rewrite.equals(es)) {
      r.fail(what + ": what wirestream read, written again: " + JsonCompare.hexDiff(es, rewrite));
      return;
    }
    if (a.has("encode_error")) {
      r.fail(what + ": wirestream could not encode its own wire JSON: "
          + a.get("encode_error").asText());
      return;
    }
    String own = a.get("json_hex").asText();
    if (!own.equals(es)) {
      r.fail(what + ": encoded from its own wire JSON: " + JsonCompare.hexDiff(es, own));
      return;
    }
    if (a.has("spec_error")) {
      r.fail(what + ": wirestream could not encode the wire JSON of ES's object: "
          + a.get("spec_error").asText());
      return;
    }
    String ws = a.get("encode_hex").asText();
    if (!ws.equals(es)) {
      r.fail(what + ": encoded from the wire JSON of ES's object: " + JsonCompare.hexDiff(es, ws)
          + " spec " + spec);
      return;
    }
    InternalAggregations back;
    try {
      back = read(HexFormat.of().parseHex(ws), version, registry);
    } catch (Exception e) {
      r.fail(what + ": ES could not read wirestream's bytes: " + e);
      return;
    }
    // `original` is ES's own read of its bytes: a result read back is what ES compares (the
    // built one can differ from it, e.g. a LinkedHashMap of metadata read as a HashMap).
    // equals, or, where metadata holds arrays (which Java's Map.equals compares by identity),
    // the same toString: ES's JSON of the whole result, metadata included.
    List<InternalAggregation> x = original.copyResults();
    List<InternalAggregation> y = back.copyResults();
    if (!x.equals(y) && !show(x).equals(show(y))) {
      r.fail(what + ": ES read wirestream's bytes to other aggregations: " + y);
      return;
    }
    r.pass();
  }

  /** toString, or what it threw (a value its format cannot render, such as a negative nanos). */
  static String show(Object o) {
    try {
      return o.toString();
    } catch (RuntimeException e) {
      return "unprintable: " + e.getMessage();
    }
  }

  /** ES's own read of the bytes; all of them must be read. */
  static InternalAggregations read(byte[] bytes, int version, NamedWriteableRegistry registry)
      throws Exception {
    StreamInput in =
        new NamedWriteableAwareStreamInput(new BytesArray(bytes).streamInput(), registry);
    Es.setVersion(in, version);
    InternalAggregations aggs = InternalAggregations.readFrom(in);
    if (in.read() != -1) throw new IllegalStateException("bytes left after the aggregations");
    return aggs;
  }

  static InternalAggregations esRead(byte[] bytes, int version, NamedWriteableRegistry registry) {
    try {
      return read(bytes, version, registry);
    } catch (Exception e) {
      return null;
    }
  }
}
