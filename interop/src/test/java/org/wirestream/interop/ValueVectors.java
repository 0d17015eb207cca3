package org.wirestream.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.elasticsearch.common.bytes.BytesArray;
import org.elasticsearch.common.bytes.BytesReference;
import org.elasticsearch.common.io.stream.BytesStreamOutput;
import org.elasticsearch.common.io.stream.StreamInput;
import org.wirestream.interop.compat.Es;

/**
 * Primitives, strings and generic values, written by ES's own BytesStreamOutput at the
 * version's wire version (runner/values.cc has the request's shape). A vector is a random
 * sequence of 1-6 writes; it matches when wirestream writes ES's bytes, reads ES's bytes to
 * the same values, writes what it read back to the same bytes, and ES reads wirestream's bytes
 * to values equal to the originals.
 */
final class ValueVectors {
  static final int VECTORS = 1400;
  static final JsonNodeFactory J = JsonNodeFactory.instance;

  private ValueVectors() {}

  static void run(Context ctx, Result r) throws Exception {
    Random rnd = ctx.random("values");
    int version = Es.transportVersionId();
    List<List<ValueOp>> vectors = new ArrayList<>();
    List<ObjectNode> requests = new ArrayList<>();
    List<String> esHex = new ArrayList<>();
    for (int id = 0; id < VECTORS; id++) {
      List<ValueOp> ops = new ArrayList<>();
      // Every 25th vector is one string holding a lone surrogate (a documented strictness).
      int n = id % 25 == 24 ? 1 : 1 + rnd.nextInt(6);
      for (int i = 0; i < n; i++) {
        ops.add(id % 25 == 24 ? ValueOp.loneSurrogate(rnd) : ValueOp.random(rnd));
      }
      BytesStreamOutput out = new BytesStreamOutput();
      Es.setVersion(out, version);
      try {
        for (ValueOp op : ops) op.write(out);
      } catch (IllegalArgumentException e) {
        id--;  // a generic value this ES version cannot write: draw another vector
        continue;
      }
      String hex = HexFormat.of().formatHex(BytesReference.toBytes(out.bytes()));
      ObjectNode req = J.objectNode();
      req.put("id", vectors.size());
      req.put("kind", "values");
      req.put("version", version);
      ArrayNode jops = req.putArray("ops");
      for (ValueOp op : ops) jops.addObject().put("t", op.type).set("v", op.json);
      req.put("es_hex", hex);
      vectors.add(ops);
      requests.add(req);
      esHex.add(hex);
    }
    List<JsonNode> answers = RunnerProcess.run(ctx, "values", requests);
    for (int i = 0; i < vectors.size(); i++) {
      check(vectors.get(i), esHex.get(i), answers.get(i), version, r, i);
    }
  }

  static void check(List<ValueOp> ops, String es, JsonNode a, int version, Result r, int id) {
    String what = "values #" + id + " " + summary(ops);
    if (a.has("error")) {
      r.fail(what + ": runner: " + a.get("error").asText());
      return;
    }
    if (ops.get(0).lone) {
      String err = a.path("decode_error").asText("");
      if (err.contains("Invalid string")) {
        r.known("a string holding a lone surrogate is refused (CorruptStreamError \"Invalid"
            + " string\"): stricter than ES, which keeps the unit (docs/wire-format.md, what"
            + " every reader refuses)");
      } else {
        r.fail(what + ": a lone surrogate was not refused as an invalid string: " + a);
      }
      return;
    }
    if (a.has("encode_error")) {
      r.fail(what + ": wirestream could not write: " + a.get("encode_error").asText());
      return;
    }
    String ws = a.get("encode_hex").asText();
    if (!ws.equals(es)) {
      r.fail(what + ": wirestream wrote other bytes: " + JsonCompare.hexDiff(es, ws));
      return;
    }
    if (a.has("decode_error")) {
      r.fail(what + ": wirestream could not read ES's bytes: " + a.get("decode_error").asText());
      return;
    }
    for (int i = 0; i < ops.size(); i++) {
      String d = JsonCompare.diff(ops.get(i).json, a.get("decode").get(i));
      if (d != null) {
        r.fail(what + ": op " + i + " (" + ops.get(i).type + ") read back as " + d);
        return;
      }
    }
    String rewrite = a.get("rewrite_hex").asText();
    if (!rewrite.equals(es)) {
      r.fail(what + ": what wirestream read, written again: " + JsonCompare.hexDiff(es, rewrite));
      return;
    }
    try {
      StreamInput raw = new BytesArray(HexFormat.of().parseHex(ws)).streamInput();
      Es.setVersion(raw, version);
      StreamInput in = Es.genericNamedAware(raw);  // generic tag 30's GeoBoundingBox
      for (int i = 0; i < ops.size(); i++) {
        Object back = ops.get(i).read(in);
        if (!Values.deepEquals(ops.get(i).value, back)) {
          r.fail(what + ": ES read op " + i + " of wirestream's bytes as " + Values.show(back));
          return;
        }
      }
      if (in.read() != -1) {
        r.fail(what + ": ES left bytes unread in wirestream's bytes");
        return;
      }
    } catch (Exception e) {
      r.fail(what + ": ES could not read wirestream's bytes: " + e);
      return;
    }
    r.pass();
  }

  static String summary(List<ValueOp> ops) {
    StringBuilder b = new StringBuilder("[");
    for (ValueOp op : ops) {
      if (b.length() > 1) b.append(", ");
      String v = op.json.toString();
      b.append(op.type).append(' ').append(v.length() > 60 ? v.substring(0, 60) + "..." : v);
    }
    return b.append(']').toString();
  }
}
