// Fuzz target: InternalAggregations::readFrom with the full registry (every
// type of wire format §7, sub-aggregations in buckets, HLL++ sketches), then
// reduce and the response JSON of whatever decodes. Input: one version byte
// (% 3: 7.10.0, 7.17.0, 8.7.0: the sides of the gates of §6), then the aggregations.
//
// Differential round trip of a decoded list: its re-encoding is no longer
// than the bytes it came from; at equal length it is byte-identical except
// where a NaN payload was canonicalised (only overlong varints, and
// writeSize's INT32_MAX written as 0, shrink); decoding the re-encoding gives
// an == list that re-encodes to the same bytes.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "aggregations/internal_aggregation.h"
#include "aggregations/json/aggregation_json.h"
#include "aggregations/registry.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/program.h"
#include "stream/bytes_stream_output.h"

namespace {

using namespace wirestream;

std::vector<uint8_t> write(const aggregations::InternalAggregations& aggs, TransportVersion v) {
  BytesStreamOutput out;
  out.setTransportVersion(v);
  aggs.writeTo(out);
  return out.bytes().toVector();
}

// Whether every byte where `a` and `b` differ lies in a big-endian double (or
// float) that is a NaN in `a` and the canonical NaN in `b`.
bool differOnlyInNanPayloads(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    bool explained = false;
    for (size_t width : {size_t{8}, size_t{4}}) {
      for (size_t j = i >= width - 1 ? i - (width - 1) : 0; j <= i && j + width <= a.size(); ++j) {
        uint64_t x = 0, y = 0;
        for (size_t k = 0; k < width; ++k) {
          x = x << 8 | a[j + k];
          y = y << 8 | b[j + k];
        }
        bool nan_a = width == 8 ? std::isnan(std::bit_cast<double>(x))
                                : std::isnan(std::bit_cast<float>(static_cast<uint32_t>(x)));
        uint64_t canonical = width == 8 ? 0x7ff8000000000000ull : 0x7fc00000ull;
        if (nan_a && y == canonical) explained = true;
      }
    }
    if (!explained) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const TransportVersion version = fuzz::versionFromByte(data[0]);
  std::span<const uint8_t> raw(data + 1, size - 1);
  const NamedWriteableRegistry& registry = aggregations::defaultRegistry();

  ByteArrayStreamInput in(raw);
  in.setTransportVersion(version);
  aggregations::InternalAggregations aggs;
  try {
    aggs = aggregations::InternalAggregations::readFrom(in, registry);
  } catch (const StreamError&) {
    return 0;
  }
  auto src = raw.first(in.position());

  std::vector<uint8_t> enc = write(aggs, version);
  FUZZ_CHECK(enc.size() <= src.size(), "re-encoded longer: %s -> %s", fuzz::hexPrefix(src).c_str(),
             fuzz::hexPrefix(enc).c_str());
  if (enc.size() == src.size()) {
    FUZZ_CHECK(differOnlyInNanPayloads(src, enc), "re-encoded differently: %s -> %s",
               fuzz::hexPrefix(src).c_str(), fuzz::hexPrefix(enc).c_str());
  }
  ByteArrayStreamInput again(enc);
  again.setTransportVersion(version);
  aggregations::InternalAggregations back =
      aggregations::InternalAggregations::readFrom(again, registry);
  FUZZ_CHECK(again.available() == 0, "re-encoding has %zu bytes left", again.available());
  FUZZ_CHECK(back == aggs, "decode(encode(decode(x))) != decode(x): %s",
             fuzz::hexPrefix(enc).c_str());
  FUZZ_CHECK(write(back, version) == enc, "re-encoding is not a fixed point");

  // What a coordinating node does next with a shard's result.
  const aggregations::InternalAggregations* lists[] = {&aggs, &back};
  try {
    auto reduced = aggregations::InternalAggregations::reduce(
        lists, aggregations::ReduceContext::finalReduce());
    (void)toResponseJson(reduced).dump();
  } catch (const StreamError&) {
  }
  return 0;
}
