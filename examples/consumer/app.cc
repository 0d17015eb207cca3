// A program outside the repository that uses an installed wirestream: it writes a terms
// aggregation the way a shard would, reads it back as a coordinator would, and prints the
// Elasticsearch-shaped response. Built by examples/consumer/CMakeLists.txt
// (find_package) and by a plain `c++ -std=c++20 app.cc $(pkg-config --cflags --libs
// wirestream)`; tools/check_cmake.sh runs both.
#include <cstdio>
#include <memory>
#include <string>

#include "aggregations/json/aggregation_json.h"
#include "aggregations/registry.h"
#include "aggregations/terms.h"
#include "stream/bytes_reference.h"
#include "stream/bytes_stream_output.h"

using namespace wirestream;
using namespace wirestream::aggregations;

int main() {
  auto terms = std::make_unique<StringTerms>("genres", GenericValue());
  StringTerms::Bucket rock;
  rock.key = "rock";
  rock.doc_count = 10;
  terms->buckets().push_back(std::move(rock));
  InternalAggregations shard;
  shard.add(std::move(terms));

  BytesStreamOutput out;
  shard.writeTo(out);
  BytesReferenceStreamInput in(out.bytes());
  InternalAggregations back = InternalAggregations::readFrom(in, defaultRegistry());

  const InternalAggregations* shards[] = {&back, &shard};
  InternalAggregations merged = InternalAggregations::reduce(shards, ReduceContext::finalReduce());
  std::string json = toResponseJson(merged).dump();
  std::printf("%zu bytes on the wire: %s\n", out.size(), json.c_str());
  return json.find("\"doc_count\":20") == std::string::npos;  // 0 when the reduce added up
}
