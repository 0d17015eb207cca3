// String blocks (InfluxDB tsm1 batch_string.go):
//
//   10 snappy( (uvarint len, bytes)* )     the empty array: 10 00 (snappy of nothing)
//
// The snappy stream is libsnappy's: valid snappy, decoded identically by Go's
// snappy, though its matches may differ from the bytes Go's encoder picks.
#include <snappy.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "tsm/internal.h"
#include "tsm/tsm.h"

namespace wirestream::tsm {
namespace {

const char* const kKind = "string";

// Snappy's largest expansion: a 3-byte copy element of 64 bytes.
constexpr uint64_t kMaxSnappyExpansion = 22;

template <typename S>
void encodeStrings(std::span<const S> values, std::vector<uint8_t>& out) {
  out.clear();
  if (values.empty()) {
    out = {internal::kPacked << 4, 0x00};
    return;
  }
  size_t raw_size = 0;
  for (const S& s : values) raw_size += vLongSize(s.size()) + s.size();
  std::string raw(raw_size, '\0');
  uint8_t* p = reinterpret_cast<uint8_t*>(raw.data());
  for (const S& s : values) {
    p = internal::putUvarint(p, s.size());
    // Length-prefixed bytes, not a C string: no terminator belongs here.
    std::memcpy(p, s.data(), s.size());  // NOLINT(bugprone-not-null-terminated-result)
    p += s.size();
  }
  out.resize(1 + snappy::MaxCompressedLength(raw_size));
  out[0] = internal::kPacked << 4;
  size_t compressed = 0;
  snappy::RawCompress(raw.data(), raw_size, reinterpret_cast<char*>(out.data() + 1), &compressed);
  out.resize(1 + compressed);
}

}  // namespace

void encodeStringArray(std::span<const std::string> values, std::vector<uint8_t>& out) {
  encodeStrings(values, out);
}

void encodeStringArray(std::span<const std::string_view> values, std::vector<uint8_t>& out) {
  encodeStrings(values, out);
}

namespace {

// Inflates `block` into `raw` (its capacity reused) and checks its strings
// before anything is reserved for them: returns their count.
size_t inflateStrings(std::span<const uint8_t> block, std::string& raw, size_t max_values) {
  if (block.empty()) {
    raw.clear();
    return 0;
  }
  if (block[0] != internal::kPacked << 4) {
    internal::throwCorruptBlock(kKind,
                                "has header " + std::to_string(block[0]) + ", not 16 (snappy)");
  }
  const char* compressed = reinterpret_cast<const char*>(block.data() + 1);
  const size_t compressed_size = block.size() - 1;
  size_t raw_size = 0;
  if (compressed_size == 0) internal::throwTruncated(kKind, "ends after its header");
  if (!snappy::GetUncompressedLength(compressed, compressed_size, &raw_size)) {
    internal::throwCorruptBlock(kKind, "has an invalid snappy length");
  }
  if (raw_size > kMaxSnappyExpansion * compressed_size) {
    internal::throwCorruptBlock(kKind, "declares " + std::to_string(raw_size) +
                                           " snappy bytes, more than its " +
                                           std::to_string(compressed_size) + " bytes can hold");
  }
  // Sized without clearing first: only bytes past the old size are zeroed
  // before snappy overwrites them all (a reused buffer costs no memset).
  raw.resize(raw_size);
  if (!snappy::RawUncompress(compressed, compressed_size, raw.data())) {
    internal::throwCorruptBlock(kKind, "is not valid snappy");
  }
  const uint8_t* begin = reinterpret_cast<const uint8_t*>(raw.data());
  const uint8_t* end = begin + raw_size;
  size_t count = 0;
  for (const uint8_t* p = begin; p != end; ++count) {
    auto len = internal::getUvarint(p, end);
    if (len.value > uint64_t(end - len.next)) {
      internal::throwTruncated(kKind, "string " + std::to_string(count) + " of " +
                                          std::to_string(len.value) + " bytes has only " +
                                          std::to_string(end - len.next));
    }
    p = len.next + len.value;
  }
  internal::checkCount(kKind, count, max_values);
  return count;
}

// Calls f(data, size) for each string of a checked `raw`.
template <typename F>
void forEachString(const std::string& raw, F f) {
  const uint8_t* end = reinterpret_cast<const uint8_t*>(raw.data()) + raw.size();
  for (const uint8_t* p = reinterpret_cast<const uint8_t*>(raw.data()); p != end;) {
    auto len = internal::getUvarint(p, end);
    f(reinterpret_cast<const char*>(len.next), len.value);
    p = len.next + len.value;
  }
}

}  // namespace

void decodeStringArray(std::span<const uint8_t> block, std::vector<std::string>& out) {
  decodeStringArray(block, out, kDefaultMaxValues);
}

void decodeStringArray(std::span<const uint8_t> block, std::vector<std::string>& out,
                       size_t max_values) {
  out.clear();
  std::string raw;
  out.reserve(inflateStrings(block, raw, max_values));
  forEachString(raw, [&](const char* data, size_t size) { out.emplace_back(data, size); });
}

void decodeStringViews(std::span<const uint8_t> block, std::string& buffer,
                       std::vector<std::string_view>& out, size_t max_values) {
  out.clear();
  out.reserve(inflateStrings(block, buffer, max_values));
  forEachString(buffer, [&](const char* data, size_t size) { out.emplace_back(data, size); });
}

}  // namespace wirestream::tsm
