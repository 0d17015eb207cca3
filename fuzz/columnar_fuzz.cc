// Fuzz target: columnar::readAggregations (wire format §10, columnar
// aggregations) with the full registry and the production Limits (2^20
// objects a response), then reduce and the response JSON of whatever
// decodes. Input: one version byte (% 3: 7.10.0, 7.17.0, 8.7.0), then the
// columnar list.
//
// Differential round trip of a decoded list: its columnar encoding decodes to
// an == list that encodes to the same bytes (the writer's choices are
// canonical; the input's need not be: a split double column without a NaN, a
// count block equal to the doc counts), and its ES encoding reads back ==.
// The ES one only when under 16 MiB (its copy would trip libFuzzer's 64 MB
// malloc limit, meant for the reader).
//
// A list of more than 65,536 buckets (search.max_buckets' default) is only
// read: the round trips and the reduce would run the same code at scale, in
// seconds under ASan, past the fuzzers' 5 s timeout (a terms reduce of 2 x
// 2^18 buckets: 6.5 s). columnar_limits_test reduces such lists.
#include <cstdint>
#include <span>
#include <vector>

#include "aggregations/columnar.h"
#include "aggregations/internal_aggregation.h"
#include "aggregations/json/aggregation_json.h"
#include "aggregations/registry.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/program.h"
#include "stream/bytes_stream_output.h"

namespace {

using namespace wirestream;

template <class Write>
std::vector<uint8_t> encode(TransportVersion v, Write write) {
  BytesStreamOutput out;
  out.setTransportVersion(v);
  write(out);
  return out.bytes().toVector();
}

// The differential round trips of `aggs`, decoded from `read`.
void roundTrips(TransportVersion version, std::span<const uint8_t> read,
                const aggregations::InternalAggregations& aggs) {
  const NamedWriteableRegistry& registry = aggregations::defaultRegistry();
  std::vector<uint8_t> enc;
  try {
    enc = encode(version,
                 [&](StreamOutput& out) { aggregations::columnar::writeAggregations(out, aggs); });
  } catch (const std::invalid_argument&) {
    // What the ES writer refuses too (a read cannot produce it: checked below).
    FUZZ_CHECK(false, "decoded a list the columnar writer refuses: %s",
               fuzz::hexPrefix(read).c_str());
  }
  {
    ByteArrayStreamInput again(enc);
    again.setTransportVersion(version);
    aggregations::InternalAggregations back =
        aggregations::columnar::readAggregations(again, registry);
    FUZZ_CHECK(again.available() == 0, "columnar re-encoding not consumed");
    FUZZ_CHECK(back == aggs, "columnar re-encoding read back differently: %s",
               fuzz::hexPrefix(enc).c_str());
    std::vector<uint8_t> enc2 = encode(
        version, [&](StreamOutput& out) { aggregations::columnar::writeAggregations(out, back); });
    FUZZ_CHECK(enc2 == enc, "columnar encoding not a fixed point: %s",
               fuzz::hexPrefix(enc).c_str());
  }
  if (aggs.encodedSize() > (size_t{16} << 20)) return;
  std::vector<uint8_t> es = encode(version, [&](StreamOutput& out) { aggs.writeTo(out); });
  ByteArrayStreamInput es_in(es);
  es_in.setTransportVersion(version);
  aggregations::InternalAggregations from_es =
      aggregations::InternalAggregations::readFrom(es_in, registry);
  FUZZ_CHECK(from_es == aggs, "ES encoding of a columnar list read back differently");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const TransportVersion version = fuzz::versionFromByte(data[0]);
  std::span<const uint8_t> raw(data + 1, size - 1);

  ByteArrayStreamInput in(raw);
  in.setTransportVersion(version);
  aggregations::InternalAggregations aggs;
  try {
    // The production Limits.
    aggs = aggregations::columnar::readAggregations(in, aggregations::defaultRegistry());
  } catch (const StreamError&) {
    return 0;
  }
  if (aggs.bucketCount() > 65536) return 0;
  roundTrips(version, raw.first(in.position()), aggs);
  try {
    const aggregations::InternalAggregations* lists[] = {&aggs, &aggs};
    aggregations::InternalAggregations reduced = aggregations::InternalAggregations::reduce(
        lists, aggregations::ReduceContext::finalReduce(4096));
    (void)aggregations::toResponseJson(reduced).dump();
  } catch (const StreamError&) {
  }
  return 0;
}
