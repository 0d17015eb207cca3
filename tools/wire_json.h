// The text side of `wirestream decode` / `encode`: aggregation results as the
// lossless wire JSON (toWireJson's shape, aggregations/json), read and
// written with bounded resources. Shared by tools/wirestream_main.cc and the
// fuzz target fuzz/wire_json_fuzz.cc.
//
//   InternalAggregations aggs = cli::aggregationsFromWireJsonText(text);   // encode
//   cli::writeWireJson(std::cout, aggs);                                   // decode
//
// Reading parses with nlohmann's SAX interface, which keeps its own stack (no
// recursion on the C stack): nesting deeper than kMaxJsonNesting is refused
// as it is reached, objects are built in linear time with hash-based
// duplicate-key detection, and every error names where it happened as a JSON
// path ($[0].buckets[3].key) with echoed text capped at kMaxEcho characters.
// Writing streams: no JSON document of a whole aggregation is built, only one
// bucket's fields at a time (through its JSON codec's BucketJsonHook,
// aggregation_json.h), and the text is byte for byte what
// toWireJson(aggs).dump(2) would print.
//
// Stateless functions; thread-safe for distinct arguments.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>

#include "aggregations/internal_aggregation.h"
#include "aggregations/json/aggregation_json.h"

namespace wirestream::cli {

// JSON nesting allowed while parsing: room for the 100 levels of
// aggregations the readers allow (four JSON levels each) and metadata nested
// 100 deep inside them; the readers' own limits apply after parsing.
inline constexpr size_t kMaxJsonNesting = 1024;
// Characters of input echoed in an error message at most.
inline constexpr size_t kMaxEcho = 200;

// `text` cut to at most `max` characters, saying how much was cut.
std::string capEcho(std::string_view text, size_t max = kMaxEcho);

// Parses one JSON document. Malformed JSON and duplicate keys are
// CorruptStreamError, nesting deeper than kMaxJsonNesting is
// LimitExceededError; messages say where ("at byte 17 ($[0].name)").
nlohmann::ordered_json parseJsonLimited(std::string_view text);

// parseJsonLimited, then aggregationsFromWireJson, whose errors say where
// (JSON path and innermost aggregation) and refuse unknown fields:
// "$[1] (histogram [h]): missing field [keyed]",
// "$[0].buckets[2].bogus (sterms [s]): unknown field [bogus]".
aggregations::InternalAggregations aggregationsFromWireJsonText(std::string_view text);

// Buckets an aggregation may have (at every depth) and still be rendered
// whole by writeWireJson and writeResponseJson.
inline constexpr size_t kBucketBatch = 256;

// Writes aggs as toWireJson(aggs).dump(2) would, without building that document:
// an aggregation with at most `bucket_batch` buckets (at every depth) and a
// small encoding is rendered whole; a larger bucketed one (terms, histogram,
// date_histogram: a codec with a BucketJsonHook) field by field, its buckets
// one at a time and their sub-aggregations in turn. `aggs` is only read.
// Throws what `out` throws.
void writeWireJson(std::ostream& out, const aggregations::InternalAggregations& aggs,
                   size_t bucket_batch = kBucketBatch);

// Writes aggs as toResponseJson(aggs).dump(2, ' ', false, replace) would (the
// body of `wirestream reduce`), without building that document: as
// writeWireJson, so what it holds is one bucket's JSON (however long its
// key_as_string) and, for a keyed histogram, a hash and an index a bucket (a
// repeated key text keeps its first place and the last bucket, as in the
// document), not the output. `aggs` is only read.
// Throws what `out` throws.
void writeResponseJson(std::ostream& out, const aggregations::InternalAggregations& aggs,
                       size_t bucket_batch = kBucketBatch);

}  // namespace wirestream::cli
