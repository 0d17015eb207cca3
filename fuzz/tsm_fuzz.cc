// Fuzz target: the TSM block decoders of //tsm. Input: one kind byte
// (% 6: float, integer, unsigned, timestamp, boolean, string), then one block.
// Decoders may only throw StreamError subclasses and hold at most max_values
// values. A block that decodes is re-encoded; that encoding must decode to the
// same values (floats bit for bit) and re-encode to itself: encode is a fixed
// point of decode. (Lengths are not compared: a strange but valid block, such
// as a Gorilla 10 control with 64 meaningful bits first, can be shorter than the
// greedy encoding.)
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "fuzz/program.h"
#include "stream/errors.h"
#include "tsm/tsm.h"

namespace {

using namespace wirestream;
using Bytes = std::vector<uint8_t>;
constexpr size_t kMaxValues = size_t{1} << 16;

template <typename T, typename Decode, typename Encode, typename Same>
void check(std::span<const uint8_t> block, Decode decode, Encode encode, Same same) {
  std::vector<T> values;
  try {
    decode(block, values, kMaxValues);
  } catch (const StreamError&) {
    return;
  }
  FUZZ_CHECK(values.size() <= kMaxValues, "%zu values", values.size());
  Bytes enc;
  if (!encode(values, enc)) return;
  std::vector<T> again;
  decode(enc, again, kMaxValues);
  FUZZ_CHECK(same(values, again), "decode(encode(decode(x))) != decode(x) for %s",
             fuzz::hexPrefix(block).c_str());
  Bytes enc2;
  encode(again, enc2);
  FUZZ_CHECK(enc2 == enc, "encoding is not a fixed point: %s -> %s -> %s",
             fuzz::hexPrefix(block).c_str(), fuzz::hexPrefix(enc).c_str(),
             fuzz::hexPrefix(enc2).c_str());
}

template <typename T>
bool equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a == b;
}

// decodeStringViews decodes what decodeStringArray does, or throws as it does.
void checkViewsAgree(std::span<const uint8_t> block) {
  std::vector<std::string> owned;
  bool owned_threw = false;
  try {
    wirestream::tsm::decodeStringArray(block, owned, kMaxValues);
  } catch (const StreamError&) {
    owned_threw = true;
  }
  std::string buffer;
  std::vector<std::string_view> views;
  bool views_threw = false;
  try {
    wirestream::tsm::decodeStringViews(block, buffer, views, kMaxValues);
  } catch (const StreamError&) {
    views_threw = true;
  }
  FUZZ_CHECK(owned_threw == views_threw, "one string decoder threw, the other did not: %s",
             fuzz::hexPrefix(block).c_str());
  FUZZ_CHECK(std::equal(owned.begin(), owned.end(), views.begin(), views.end()),
             "the views differ from the strings: %s", fuzz::hexPrefix(block).c_str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wirestream::tsm;
  if (size == 0) return 0;
  std::span<const uint8_t> block(data + 1, size - 1);
  switch (data[0] % 6) {
    case 0:
      check<double>(
          block, [](auto b, auto& o, size_t m) { decodeFloatArray(b, o, m); },
          [](const std::vector<double>& v, Bytes& out) {
            for (double d : v) {
              if (std::isnan(d)) return false;  // a NaN that is not the terminator
            }
            encodeFloatArray(v, out);
            return true;
          },
          [](const std::vector<double>& a, const std::vector<double>& b) {
            if (a.size() != b.size()) return false;
            for (size_t i = 0; i < a.size(); ++i) {
              if (std::bit_cast<uint64_t>(a[i]) != std::bit_cast<uint64_t>(b[i])) return false;
            }
            return true;
          });
      break;
    case 1:
      check<int64_t>(
          block, [](auto b, auto& o, size_t m) { decodeIntegerArray(b, o, m); },
          [](const std::vector<int64_t>& v, Bytes& out) {
            encodeIntegerArray(v, out);
            return true;
          },
          equal<int64_t>);
      break;
    case 2:
      check<uint64_t>(
          block, [](auto b, auto& o, size_t m) { decodeUnsignedArray(b, o, m); },
          [](const std::vector<uint64_t>& v, Bytes& out) {
            encodeUnsignedArray(v, out);
            return true;
          },
          equal<uint64_t>);
      break;
    case 3:
      check<int64_t>(
          block, [](auto b, auto& o, size_t m) { decodeTimeArray(b, o, m); },
          [](const std::vector<int64_t>& v, Bytes& out) {
            encodeTimeArray(v, out);
            return true;
          },
          equal<int64_t>);
      break;
    case 4:
      check<bool>(
          block, [](auto b, auto& o, size_t m) { decodeBooleanArray(b, o, m); },
          [](const std::vector<bool>& v, Bytes& out) {
            encodeBooleanArray(v, out);
            return true;
          },
          equal<bool>);
      break;
    default:
      check<std::string>(
          block, [](auto b, auto& o, size_t m) { decodeStringArray(b, o, m); },
          [](const std::vector<std::string>& v, Bytes& out) {
            encodeStringArray(v, out);
            return true;
          },
          equal<std::string>);
      checkViewsAgree(block);
      break;
  }
  return 0;
}
