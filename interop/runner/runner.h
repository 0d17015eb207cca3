// The C++ side of the real-Elasticsearch harness (interop/, tools/interop.sh).
//
// `runner FILE` reads one JSON request a line from FILE and prints one JSON answer a line
// on stdout, in the same order; the Java side (RunnerProcess.java) compares the answers
// with what ES's own classes wrote and reads. Every request has
//   {"id": N, "kind": "values" | "aggs" | "reduce", "version": <transport version id>, ...}
// and every answer {"id": N, ...} with either the kind's fields or {"error": "<type>: <what>"}
// (a StreamError or any other exception the request caused; the runner goes on).
//
// Each kind has its own unit and its own fields, documented beside it:
//   values  runner/values.cc   primitives, strings and generic values
//   aggs    runner/aggs.cc     InternalAggregations: wire JSON <-> bytes
//   reduce  runner/reduce.cc   final reduce of shard results, bytes and response JSON
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "aggregations/text_util.h"

namespace wirestream::interop {

using Json = nlohmann::ordered_json;

// Each takes the whole request and returns the answer's fields (the id is added by main).
Json runValues(const Json& request);
Json runAggs(const Json& request);
Json runReduce(const Json& request);

// Lower-case hex of bytes, and back (CorruptStreamError on bad hex): the aggregations' own.
using aggregations::text_util::fromHex;
using aggregations::text_util::toHex;

}  // namespace wirestream::interop
