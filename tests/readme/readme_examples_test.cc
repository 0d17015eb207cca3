// The README's code, compiled and run, so the front door stays true.
#include <gtest/gtest.h>

#include "aggregations/registry.h"
#include "aggregations/terms.h"
#include "stream/bytes_stream_output.h"

namespace wirestream {
namespace {

TEST(Readme, Usage) {
  BytesStreamOutput out;
  out.writeVInt(300);
  out.writeString("h\xC3\xA9llo");
  out.writeZLong(-2);
  EXPECT_EQ(out.bytes().toHex(), "ac 02 05 68 c3 a9 6c 6c 6f 03");

  BytesReference bytes = out.bytes();
  BytesReferenceStreamInput in(bytes);
  EXPECT_EQ(in.readVInt(), 300);
  EXPECT_EQ(in.readString(), "h\xC3\xA9llo");
  EXPECT_EQ(in.readZLong(), -2);
}

TEST(Readme, AggregationResults) {
  using namespace wirestream::aggregations;
  auto terms = std::make_unique<StringTerms>("genres", GenericValue());
  StringTerms::Bucket rock;
  rock.key = "rock";
  rock.doc_count = 10;
  terms->buckets().push_back(std::move(rock));
  InternalAggregations shard0;
  shard0.add(std::move(terms));

  BytesStreamOutput out;
  shard0.writeTo(out);
  BytesReferenceStreamInput in(out.bytes());
  InternalAggregations back = InternalAggregations::readFrom(in, defaultRegistry());

  const InternalAggregations* shards[] = {&back, &shard0};
  InternalAggregations merged = InternalAggregations::reduce(shards, ReduceContext::finalReduce());
  std::string json = merged.toResponseJson().dump();
  EXPECT_NE(json.find("\"genres\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"key\":\"rock\",\"doc_count\":20"), std::string::npos) << json;
}

}  // namespace
}  // namespace wirestream
