// TSM blocks on a stream:
//
//   tsm block on the wire := VInt n (0 <= n <= INT32_MAX), n bytes of one block (tsm/tsm.h)
//
// The length is a VInt as every other length of the format (§2); an empty
// integer, unsigned or timestamp array is the one byte 00.
#include "tsm/tsm_stream.h"

#include <algorithm>
#include <string>

#include "stream/errors.h"

namespace wirestream::tsm {
namespace {

std::vector<uint8_t>& writeScratch() {
  thread_local std::vector<uint8_t> buffer;
  return buffer;
}

void writePrefixed(StreamOutput& out, const std::vector<uint8_t>& block) {
  out.writeArraySize(block.size());  // std::invalid_argument above INT32_MAX
  out.writeBytes(block);
}

size_t limit(const StreamInput& in, size_t max_values) {
  return std::min(max_values, static_cast<size_t>(std::max(in.maxArraySize(), 0)));
}

template <typename T, typename Decode>
std::vector<T> readDecoded(StreamInput& in, size_t max_values, Decode decode) {
  std::span<const uint8_t> block = readBlockBytes(in);
  std::vector<T> values;
  decode(block, values, limit(in, max_values));
  return values;
}

}  // namespace

std::span<const uint8_t> readBlockBytes(StreamInput& in) {
  int32_t n = in.readVInt();
  if (n < 0) internal::throwCorrupt("negative TSM block length [" + std::to_string(n) + "]");
  const size_t size = static_cast<size_t>(n);
  if (size > in.available()) internal::throwEndOfStream(size, in.available());
  if (const uint8_t* p = in.readInChunk(size)) return {p, size};
  thread_local std::vector<uint8_t> crossing;
  crossing.resize(size);
  in.readBytes(crossing);
  return crossing;
}

void writeFloatBlock(StreamOutput& out, std::span<const double> values) {
  encodeFloatArray(values, writeScratch());
  writePrefixed(out, writeScratch());
}
void writeIntegerBlock(StreamOutput& out, std::span<const int64_t> values) {
  encodeIntegerArray(values, writeScratch());
  writePrefixed(out, writeScratch());
}
void writeUnsignedBlock(StreamOutput& out, std::span<const uint64_t> values) {
  encodeUnsignedArray(values, writeScratch());
  writePrefixed(out, writeScratch());
}
void writeTimeBlock(StreamOutput& out, std::span<const int64_t> timestamps) {
  encodeTimeArray(timestamps, writeScratch());
  writePrefixed(out, writeScratch());
}
void writeBooleanBlock(StreamOutput& out, const std::vector<bool>& values) {
  encodeBooleanArray(values, writeScratch());
  writePrefixed(out, writeScratch());
}
void writeStringBlock(StreamOutput& out, std::span<const std::string> values) {
  encodeStringArray(values, writeScratch());
  writePrefixed(out, writeScratch());
}

void readFloatBlock(StreamInput& in, std::vector<double>& out, size_t max_values) {
  decodeFloatArray(readBlockBytes(in), out, limit(in, max_values));
}
void readIntegerBlock(StreamInput& in, std::vector<int64_t>& out, size_t max_values) {
  decodeIntegerArray(readBlockBytes(in), out, limit(in, max_values));
}
void readTimeBlock(StreamInput& in, std::vector<int64_t>& out, size_t max_values) {
  decodeTimeArray(readBlockBytes(in), out, limit(in, max_values));
}

std::vector<double> readFloatBlock(StreamInput& in, size_t max_values) {
  return readDecoded<double>(in, max_values,
                             [](auto b, auto& v, size_t m) { decodeFloatArray(b, v, m); });
}
std::vector<int64_t> readIntegerBlock(StreamInput& in, size_t max_values) {
  return readDecoded<int64_t>(in, max_values,
                              [](auto b, auto& v, size_t m) { decodeIntegerArray(b, v, m); });
}
std::vector<uint64_t> readUnsignedBlock(StreamInput& in, size_t max_values) {
  return readDecoded<uint64_t>(in, max_values,
                               [](auto b, auto& v, size_t m) { decodeUnsignedArray(b, v, m); });
}
std::vector<int64_t> readTimeBlock(StreamInput& in, size_t max_values) {
  return readDecoded<int64_t>(in, max_values,
                              [](auto b, auto& v, size_t m) { decodeTimeArray(b, v, m); });
}
std::vector<bool> readBooleanBlock(StreamInput& in, size_t max_values) {
  return readDecoded<bool>(in, max_values,
                           [](auto b, auto& v, size_t m) { decodeBooleanArray(b, v, m); });
}
std::vector<std::string> readStringBlock(StreamInput& in, size_t max_values) {
  return readDecoded<std::string>(in, max_values,
                                  [](auto b, auto& v, size_t m) { decodeStringArray(b, v, m); });
}

}  // namespace wirestream::tsm
