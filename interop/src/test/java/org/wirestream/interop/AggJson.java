package org.wirestream.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.lucene.util.BytesRef;
import org.elasticsearch.common.Rounding;
import org.elasticsearch.search.DocValueFormat;
import org.wirestream.interop.compat.Es;
import org.elasticsearch.search.aggregations.BucketOrder;
import org.elasticsearch.search.aggregations.InternalAggregation;
import org.elasticsearch.search.aggregations.InternalAggregations;
import org.elasticsearch.search.aggregations.bucket.histogram.InternalDateHistogram;
import org.elasticsearch.search.aggregations.bucket.histogram.InternalHistogram;
import org.elasticsearch.search.aggregations.bucket.terms.InternalTerms;
import org.elasticsearch.search.aggregations.metrics.AbstractHyperLogLog;
import org.elasticsearch.search.aggregations.metrics.AbstractHyperLogLogPlusPlus;
import org.elasticsearch.search.aggregations.metrics.AbstractLinearCounting;
import org.elasticsearch.search.aggregations.metrics.InternalCardinality;
import org.elasticsearch.search.aggregations.metrics.InternalValueCount;
import org.elasticsearch.search.sort.SortOrder;

/**
 * wirestream's wire JSON (docs/cli.md) of an ES aggregation result, read off ES's object
 * itself (its getters, and its fields where ES keeps them private), never from wirestream:
 * the runner encodes it and the bytes must be ES's. Metadata values come as the generator's
 * tagged JSON (their kinds are the value vectors' subject); the map around them is read here.
 */
final class AggJson {
  static final JsonNodeFactory J = JsonNodeFactory.instance;

  private final Function<Map<String, Object>, JsonNode> metadataValues;

  /** metadataValues: the tagged JSON of each metadata map's values, by key. */
  AggJson(Function<Map<String, Object>, JsonNode> metadataValues) {
    this.metadataValues = metadataValues;
  }

  ArrayNode list(InternalAggregations aggs) throws Exception {
    ArrayNode a = J.arrayNode();
    for (InternalAggregation agg : aggs.copyResults()) a.add(agg(agg));
    return a;
  }

  /** A field of ES's object by name, from its class or a superclass. */
  static Object get(Object o, String name) throws Exception {
    for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass()) {
      try {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
      } catch (NoSuchFieldException e) {
        // declared higher up
      }
    }
    throw new NoSuchFieldException(o.getClass().getName() + "." + name);
  }

  ObjectNode agg(InternalAggregation agg) throws Exception {
    ObjectNode o = J.objectNode();
    String type = agg.getWriteableName();
    o.put("type", type);
    o.put("name", agg.getName());
    o.set("metadata", metadata(agg.getMetadata()));
    switch (type) {
      case "sterms", "lterms", "dterms" -> terms((InternalTerms<?, ?>) agg, o);
      case "histogram" -> histogram((InternalHistogram) agg, o);
      case "date_histogram" -> dateHistogram((InternalDateHistogram) agg, o);
      case "max", "min", "sum" -> {
        o.set("format", format((DocValueFormat) get(agg, "format")));
        o.set("value", Values.doubleJson((double) get(agg, type.equals("sum") ? "sum" : type)));
      }
      case "avg" -> {
        o.set("format", format((DocValueFormat) get(agg, "format")));
        o.set("sum", Values.doubleJson((double) get(agg, "sum")));
        o.put("count", (long) get(agg, "count"));
      }
      case "value_count" -> o.put("value", ((InternalValueCount) agg).getValue());
      case "stats" -> {
        o.set("format", format((DocValueFormat) get(agg, "format")));
        o.put("count", (long) get(agg, "count"));
        for (String f : new String[] {"min", "max", "sum"}) {
          o.set(f, Values.doubleJson((double) get(agg, f)));
        }
      }
      case "cardinality" -> {
        o.set("format", format((DocValueFormat) get(agg, "format")));
        o.set("sketch", sketch((AbstractHyperLogLogPlusPlus) get(agg, "counts")));
      }
      default -> throw new IllegalArgumentException("no wire JSON for " + type);
    }
    return o;
  }

  JsonNode metadata(Map<String, Object> meta) {
    if (meta == null) return J.nullNode();
    JsonNode values = metadataValues.apply(meta);
    ArrayNode pairs = J.arrayNode();
    for (String key : meta.keySet()) pairs.add(J.arrayNode().add(key).add(values.get(key)));
    ObjectNode o = J.objectNode();
    // ES tags a LinkedHashMap as the ordered map, any other map as a map.
    o.set(meta instanceof java.util.LinkedHashMap ? "ordered map" : "map", pairs);
    return o;
  }

  static JsonNode format(DocValueFormat f) throws Exception {
    String name = f.getWriteableName();
    if (f instanceof DocValueFormat.Decimal) {
      return J.objectNode().put("name", name).put("pattern", (String) get(f, "pattern"));
    }
    if (f instanceof DocValueFormat.DateTime) {
      ObjectNode o = J.objectNode().put("name", name);
      o.put("pattern", ((org.elasticsearch.common.time.DateFormatter) get(f, "formatter")).pattern());
      o.put("zone", ((java.time.ZoneId) get(f, "timeZone")).getId());
      o.put("resolution", get(f, "resolution").toString().toLowerCase(java.util.Locale.ROOT));
      o.put("format_sort_values", (boolean) get(f, "formatSortValues"));
      if (get(f, "formatter").getClass().getSimpleName().contains("Joda")) o.put("joda", true);
      if (Es.dateLocales().length > 1) {  // on the wire from 8.16; "" is ROOT
        String locale = ((org.elasticsearch.common.time.DateFormatter) get(f, "formatter"))
            .locale().toString();
        if (!locale.isEmpty()) o.put("locale", locale);
      }
      return o;
    }
    return J.textNode(name);
  }

  static JsonNode order(BucketOrder order) throws Exception {
    String cls = order.getClass().getSimpleName();
    if (cls.equals("CompoundOrder")) {
      ArrayNode a = J.arrayNode();
      for (Object e : (List<?>) get(order, "orderElements")) a.add(order((BucketOrder) e));
      return a;
    }
    if (cls.equals("Aggregation")) {
      boolean asc = get(order, "order") == SortOrder.ASC;
      return J.objectNode().put(get(order, "path").toString(), asc ? "asc" : "desc");
    }
    for (boolean asc : new boolean[] {true, false}) {
      String dir = asc ? "asc" : "desc";
      if (order.equals(BucketOrder.count(asc))) return J.objectNode().put("_count", dir);
      if (order.equals(BucketOrder.key(asc))) return J.objectNode().put("_key", dir);
    }
    throw new IllegalArgumentException("no wire JSON for the order " + order);
  }

  void terms(InternalTerms<?, ?> t, ObjectNode o) throws Exception {
    o.set("reduce_order", order((BucketOrder) get(t, "reduceOrder")));
    o.set("order", order((BucketOrder) get(t, "order")));
    o.put("required_size", (int) get(t, "requiredSize"));
    o.put("min_doc_count", (long) get(t, "minDocCount"));
    Long error = (Long) get(t, "docCountError");
    if (error == null) o.putNull("doc_count_error");
    else o.put("doc_count_error", error);
    o.set("format", format((DocValueFormat) get(t, "format")));
    o.put("shard_size", (int) get(t, "shardSize"));
    boolean show = (boolean) get(t, "showTermDocCountError");
    o.put("show_term_doc_count_error", show);
    o.put("other_doc_count", (long) get(t, "otherDocCount"));
    ArrayNode buckets = o.putArray("buckets");
    for (Object b : t.getBuckets()) {
      ObjectNode j = buckets.addObject();
      j.put("doc_count", (long) get(b, "docCount"));
      if (show) j.put("doc_count_error", (long) get(b, "docCountError"));
      j.set("aggregations", list((InternalAggregations) get(b, "aggregations")));
      switch (o.get("type").asText()) {
        case "sterms" -> {
          BytesRef key = (BytesRef) get(b, "termBytes");
          String text = utf8(key);
          if (text != null) j.put("key", text);
          else j.put("key_hex", HexFormat.of().formatHex(key.bytes, key.offset,
              key.offset + key.length));
        }
        case "lterms" -> j.put("key", (long) get(b, "term"));
        default -> j.set("key", Values.doubleJson((double) get(b, "term")));
      }
    }
  }

  /** The key as text when its bytes are UTF-8, else null. */
  static String utf8(BytesRef key) {
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(key.bytes, key.offset, key.length)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  /**
   * The fields both histograms start with: order, min_doc_count, and the empty-bucket info,
   * written as null here when there is none; returns it (the caller writes it when present).
   */
  Object histogramHead(Object h, ObjectNode o) throws Exception {
    o.set("order", order((BucketOrder) get(h, "order")));
    o.put("min_doc_count", (long) get(h, "minDocCount"));
    Object info = get(h, "emptyBucketInfo");
    if (info == null) o.putNull("empty_bucket_info");
    return info;
  }

  void histogram(InternalHistogram h, ObjectNode o) throws Exception {
    Object info = histogramHead(h, o);
    if (info != null) {
      ObjectNode e = o.putObject("empty_bucket_info");
      for (String f : new String[] {"interval", "offset", "minBound", "maxBound"}) {
        e.set(f.equals("minBound") ? "min_bound" : f.equals("maxBound") ? "max_bound" : f,
            Values.doubleJson((double) get(info, f)));
      }
      e.set("aggregations", list((InternalAggregations) get(info, "subAggregations")));
    }
    o.set("format", format((DocValueFormat) get(h, "format")));
    o.put("keyed", (boolean) get(h, "keyed"));
    ArrayNode buckets = o.putArray("buckets");
    for (Object b : h.getBuckets()) {
      ObjectNode j = buckets.addObject();
      j.set("key", Values.doubleJson((double) get(b, "key")));
      j.put("doc_count", (long) get(b, "docCount"));
      j.set("aggregations", list((InternalAggregations) get(b, "aggregations")));
    }
  }

  void dateHistogram(InternalDateHistogram h, ObjectNode o) throws Exception {
    Object info = histogramHead(h, o);
    if (info != null) {
      ObjectNode e = o.putObject("empty_bucket_info");
      e.set("rounding", rounding((Rounding) get(info, "rounding")));
      e.set("aggregations", list((InternalAggregations) get(info, "subAggregations")));
      Object bounds = get(info, "bounds");
      if (bounds == null) {
        e.putNull("bounds");
      } else {
        ObjectNode b = e.putObject("bounds");
        b.putPOJO("min", get(bounds, "min"));
        b.putPOJO("max", get(bounds, "max"));
        b.putPOJO("min_as_str", get(bounds, "minAsStr"));
        b.putPOJO("max_as_str", get(bounds, "maxAsStr"));
      }
    }
    o.put("offset", (long) get(h, "offset"));
    o.set("format", format((DocValueFormat) get(h, "format")));
    o.put("keyed", (boolean) get(h, "keyed"));
    if (Es.hasDownsampledResultsOffset() && (boolean) get(h, "downsampledResultsOffset")) {
      o.put("downsampled_results_offset", true);
    }
    ArrayNode buckets = o.putArray("buckets");
    for (Object b : h.getBuckets()) {
      ObjectNode j = buckets.addObject();
      j.put("key", (long) get(b, "key"));
      j.put("doc_count", (long) get(b, "docCount"));
      j.set("aggregations", list((InternalAggregations) get(b, "aggregations")));
    }
  }

  static JsonNode rounding(Rounding r) throws Exception {
    ObjectNode o = J.objectNode();
    Long offset = null;
    if (r.getClass().getSimpleName().equals("OffsetRounding")) {
      offset = (long) get(r, "offset");
      r = (Rounding) get(r, "delegate");
    }
    if (r.getClass().getSimpleName().equals("TimeUnitRounding")) {
      o.put("unit", ((Rounding.DateTimeUnit) get(r, "unit")).getId());
      o.putNull("interval");
    } else {
      o.putNull("unit");
      o.put("interval", (long) get(r, "interval"));
    }
    o.put("zone", ((java.time.ZoneId) get(r, "timeZone")).getId());
    if (offset == null) o.putNull("offset");
    else o.put("offset", offset);
    return o;
  }

  /** The sketch of bucket 0, as ES writes it: the linear-counting hashes or the registers. */
  static JsonNode sketch(AbstractHyperLogLogPlusPlus counts) throws Exception {
    if (counts == null) return J.nullNode();
    ObjectNode o = J.objectNode().put("precision", counts.precision());
    java.lang.reflect.Method algorithm =
        AbstractHyperLogLogPlusPlus.class.getDeclaredMethod("getAlgorithm", long.class);
    algorithm.setAccessible(true);
    boolean dense = (boolean) algorithm.invoke(counts, 0L) == AbstractHyperLogLogPlusPlus.HYPERLOGLOG;
    o.put("dense", dense);
    if (dense) {
      java.lang.reflect.Method m =
          AbstractHyperLogLogPlusPlus.class.getDeclaredMethod("getHyperLogLog", long.class);
      m.setAccessible(true);
      AbstractHyperLogLog.RunLenIterator it = (AbstractHyperLogLog.RunLenIterator) m.invoke(counts, 0L);
      java.io.ByteArrayOutputStream regs = new java.io.ByteArrayOutputStream();
      while (it.next()) regs.write(it.value());
      o.put("registers", HexFormat.of().formatHex(regs.toByteArray()));
    } else {
      java.lang.reflect.Method m =
          AbstractHyperLogLogPlusPlus.class.getDeclaredMethod("getLinearCounting", long.class);
      m.setAccessible(true);
      AbstractLinearCounting.HashesIterator it =
          (AbstractLinearCounting.HashesIterator) m.invoke(counts, 0L);
      ArrayNode hashes = o.putArray("hashes");
      while (it.next()) hashes.add(it.value() & 0xFFFFFFFFL);
    }
    return o;
  }
}
