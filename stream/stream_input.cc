// Out-of-line parts of StreamInput: the chunk-crossing slow paths and the
// readers too large to inline. Every check happens before any allocation.
//
// Grammar read here (wire format §1, §2, §4):
//   vint     := 1..5 bytes; the 5th carries 4 bits (strict: 0xF0 bits clear)
//   vlong    := 1..10 bytes; the 10th is 0 or 1
//   zlong    := vlong of the zig-zag value, no continuation past bit 63
//   bool     := 00 | 01            optional bool := 00 | 01 | 02
//   string   := vint units, unit*  (unit: 0xxxxxxx | 110xxxxx 10xxxxxx
//                                   | 1110xxxx 10xxxxxx 10xxxxxx, no overlong)
//   T array  := vint count, T*
//   float/double array split (wirestream extension, not ES):
//            := vint count, stream_0 .. stream_{w-1}; stream_k is byte k of
//               each value's big-endian bits (w = 4 or 8)
#include "stream/stream_input.h"

#include <bit>
#include <cstdio>

#include "simd/simd.h"
#include "stream/string_codec.h"

namespace wirestream {

namespace {

std::string hex(uint32_t v, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", digits, v);
  return buf;
}

[[noreturn, gnu::cold]] void throwInvalidString(const std::string& what, uint32_t value) {
  internal::throwCorrupt("Invalid string: " + what + " [" + hex(value, 2) + "]");
}

}  // namespace

// ---- slow paths ----

void StreamInput::ensureAvailable(size_t n) {
  size_t left = available();
  if (left < n) internal::throwEndOfStream(n, left);
}

uint8_t StreamInput::readByteSlow() {
  while (pos_ == end_) {
    if (!nextChunk()) internal::throwEndOfStream(1, 0);
  }
  return *pos_++;
}

void StreamInput::readBytesSlow(uint8_t* out, size_t n) {
  ensureAvailable(n);
  while (n > 0) {
    if (pos_ == end_) nextChunk();
    size_t take = std::min(n, static_cast<size_t>(end_ - pos_));
    std::memcpy(out, pos_, take);
    out += take;
    pos_ += take;
    n -= take;
  }
}

void StreamInput::skip(size_t n) {
  ensureAvailable(n);
  while (n > 0) {
    if (pos_ == end_) nextChunk();
    size_t take = std::min(n, static_cast<size_t>(end_ - pos_));
    pos_ += take;
    n -= take;
  }
}

uint64_t StreamInput::readFixedSlow(int width) {
  uint8_t buf[8];
  readBytesSlow(buf, static_cast<size_t>(width));
  switch (width) {
    case 2:
      return codec::loadBig16(buf);
    case 4:
      return codec::loadBig32(buf);
    default:
      return codec::loadBig64(buf);
  }
}

int32_t StreamInput::readVIntSlow() {
  uint32_t r = 0;
  for (int i = 0; i < kMaxVIntBytes; ++i) {
    uint32_t b = readByte();
    if (i == 4 && (b & 0xF0)) internal::throwInvalidVInt(static_cast<uint8_t>(b));
    r |= (b & 0x7F) << (7 * i);
    if (!(b & 0x80)) break;
  }
  return static_cast<int32_t>(r);
}

uint64_t StreamInput::readVarint64Slow(bool zigzag) {
  uint64_t r = 0;
  for (int i = 0; i < 9; ++i) {
    uint64_t b = readByte();
    r |= (b & 0x7F) << (7 * i);
    if (!(b & 0x80)) return r;
  }
  uint64_t b = readByte();
  if (b > 1) {
    if (zigzag) internal::throwZLongTooLong();
    internal::throwInvalidVLong(static_cast<uint8_t>(b));
  }
  return r | (b << 63);
}

// ---- primitives ----

void internal::throwNotABoolean(uint8_t b) {
  internal::throwCorrupt("unexpected byte [" + hex(b, 2) + "]");
}

std::optional<bool> StreamInput::readOptionalBoolean() {
  uint8_t b = readByte();
  if (b > 2) internal::throwCorrupt("unexpected byte [" + hex(b, 2) + "]");
  if (b == 2) return std::nullopt;
  return b == 1;
}

std::optional<int32_t> StreamInput::readOptionalVInt() {
  if (!readBoolean()) return std::nullopt;
  return readVInt();
}

std::optional<int64_t> StreamInput::readOptionalVLong() {
  if (!readBoolean()) return std::nullopt;
  return readVLong();
}

std::optional<int32_t> StreamInput::readOptionalInt() {
  if (!readBoolean()) return std::nullopt;
  return readInt();
}

std::optional<int64_t> StreamInput::readOptionalLong() {
  if (!readBoolean()) return std::nullopt;
  return readLong();
}

std::optional<float> StreamInput::readOptionalFloat() {
  if (!readBoolean()) return std::nullopt;
  return readFloat();
}

std::optional<double> StreamInput::readOptionalDouble() {
  if (!readBoolean()) return std::nullopt;
  return readDouble();
}

// ---- sizes, strings, arrays ----

int32_t StreamInput::checkArraySize(int32_t size, size_t min_bytes_each) {
  if (size < 0) {
    internal::throwCorrupt("array size must be positive but was: " + std::to_string(size));
  }
  if (size > max_array_size_) {
    internal::throwLimitExceeded("array size " + std::to_string(size) + " is above the limit of " +
                                 std::to_string(max_array_size_));
  }
  ensureAvailable(static_cast<size_t>(size) * min_bytes_each);
  return size;
}

// One UTF-16 unit in its 1..3-byte form; readByte() crosses chunks and
// throws EndOfStreamError inside a sequence.
uint32_t StreamInput::readStringUnit() {
  uint32_t b = readByte();
  if (b < 0x80) return b;
  if (b < 0xC0 || b >= 0xF0) throwInvalidString("bad lead byte", b);
  int extra = b < 0xE0 ? 1 : 2;
  uint32_t unit = b & (extra == 1 ? 0x1F : 0x0F);
  for (int i = 0; i < extra; ++i) {
    uint32_t c = readByte();
    if ((c & 0xC0) != 0x80) throwInvalidString("bad continuation byte", c);
    unit = (unit << 6) | (c & 0x3F);
  }
  if (unit < (extra == 1 ? 0x80u : 0x800u)) {
    throwInvalidString("overlong form of", unit);
  }
  return unit;
}

std::string StreamInput::readString() {
  int32_t units = readArraySize();
  std::string s;
  s.reserve(static_cast<size_t>(units));  // bounded by the bytes left
  int32_t left = units;
  const simd::Kernels& kernels = simd::kernels();
  while (left > 0) {
    // The longest span of the chunk whose wire bytes are already UTF-8 (ASCII
    // runs found by the vector scan, well-formed 2- and 3-byte units that are
    // not surrogates) is appended at once. Overlong forms, surrogates, bad
    // bytes and units crossing the chunk take the careful path below.
    const uint8_t* q = pos_;
    int32_t span_units = 0;
    while (span_units < left && q != end_) {
      uint8_t b0 = q[0];
      if (b0 < 0x80) {
        size_t run = kernels.asciiPrefixLength(
            q, std::min(static_cast<size_t>(left - span_units), static_cast<size_t>(end_ - q)));
        q += run;
        span_units += static_cast<int32_t>(run);
        continue;
      }
      const size_t unit_len = codec::wireUnitAsUtf8Length(q, static_cast<size_t>(end_ - q));
      if (unit_len == 0) break;
      q += unit_len;
      ++span_units;
    }
    if (span_units > 0) {
      s.append(reinterpret_cast<const char*>(pos_), static_cast<size_t>(q - pos_));
      pos_ = q;
      left -= span_units;
      continue;
    }
    uint32_t unit = readStringUnit();
    --left;
    if (unit >= 0xDC00 && unit <= 0xDFFF) {
      throwInvalidString("unpaired low surrogate", unit);
    }
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      if (left == 0) throwInvalidString("unpaired high surrogate", unit);
      uint32_t low = readStringUnit();
      --left;
      if (low < 0xDC00 || low > 0xDFFF) {
        throwInvalidString("unpaired high surrogate", unit);
      }
      unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
    }
    appendUtf8(s, unit);
  }
  return s;
}

std::optional<std::string> StreamInput::readOptionalString() {
  if (!readBoolean()) return std::nullopt;
  return readString();
}

std::vector<uint8_t> StreamInput::readByteArray() {
  int32_t n = readArraySize();
  std::vector<uint8_t> out(static_cast<size_t>(n));
  readBytes(out);
  return out;
}

std::vector<std::string> StreamInput::readStringArray() {
  int32_t n = readArraySize();
  std::vector<std::string> out;
  // A 32-byte std::string per 1-byte element: reserve what the bytes left
  // justify, not the count; the vector grows as strings actually decode.
  out.reserve(boundedReserve(static_cast<size_t>(n), sizeof(std::string)));
  for (int32_t i = 0; i < n; ++i) out.push_back(readString());
  return out;
}

namespace {
template <typename T, typename ReadOne>
std::vector<T> readArray(StreamInput& in, size_t min_bytes_each, ReadOne read_one) {
  int32_t n = in.readArraySize(min_bytes_each);
  std::vector<T> out(static_cast<size_t>(n));
  for (auto& v : out) v = read_one();
  return out;
}
}  // namespace

// The batch decoder takes every value wholly inside the chunk; it stops
// before a value that crosses the chunk's end or is malformed, and readVInt /
// readVLong takes that one (crossing, or throwing the per-value error).
std::vector<int32_t> StreamInput::readVIntArray() {
  size_t n = static_cast<size_t>(readArraySize(1));
  std::vector<int32_t> out(n);
  const simd::Kernels& kernels = simd::kernels();
  size_t i = 0;
  while (i < n) {
    simd::DecodeBatch r = kernels.decodeVInts(pos_, end_, out.data() + i, n - i);
    pos_ = r.next;
    i += r.count;
    if (i < n) out[i++] = readVInt();
  }
  return out;
}

// An int64 per 1-byte element: the vector starts at what the bytes left
// justify (boundedReserve) and doubles as values actually decode, so a count
// that the data cannot back never allocates 8 bytes per input byte.
std::vector<int64_t> StreamInput::readVLongArray() {
  size_t n = static_cast<size_t>(readArraySize(1));
  std::vector<int64_t> out(boundedReserve(n, sizeof(int64_t)));
  const simd::Kernels& kernels = simd::kernels();
  size_t i = 0;
  while (i < n) {
    simd::DecodeBatch r = kernels.decodeVLongs(pos_, end_, out.data() + i, out.size() - i);
    pos_ = r.next;
    i += r.count;
    if (i == n) break;
    if (i == out.size()) out.resize(std::min(n, std::max<size_t>(16, 2 * out.size())));
    out[i++] = readVLong();
  }
  return out;
}
std::vector<int32_t> StreamInput::readIntArray() {
  return readArray<int32_t>(*this, 4, [&] { return readInt(); });
}
std::vector<int64_t> StreamInput::readLongArray() {
  return readArray<int64_t>(*this, 8, [&] { return readLong(); });
}
std::vector<float> StreamInput::readFloatArray() {
  return readArray<float>(*this, 4, [&] { return readFloat(); });
}
std::vector<double> StreamInput::readDoubleArray() {
  return readArray<double>(*this, 8, [&] { return readDouble(); });
}

template <typename T>
std::vector<T> StreamInput::readSplit(void (*decode)(const uint8_t*, size_t, T*)) {
  size_t n = static_cast<size_t>(readArraySize(sizeof(T)));  // checked before allocating
  std::vector<T> out(n);
  size_t bytes = n * sizeof(T);
  if (static_cast<size_t>(end_ - pos_) >= bytes) {
    if (n > 0) decode(pos_, n, out.data());
    pos_ += bytes;
  } else {
    std::vector<uint8_t> split(bytes);  // the streams span chunks: gather first
    readBytes(split);
    decode(split.data(), n, out.data());
  }
  return out;
}

std::vector<float> StreamInput::readFloatArraySplit() {
  return readSplit<float>(simd::kernels().splitDecodeFloats);
}

std::vector<double> StreamInput::readDoubleArraySplit() {
  return readSplit<double>(simd::kernels().splitDecodeDoubles);
}

// ---- ByteArrayStreamInput ----

ByteArrayStreamInput::ByteArrayStreamInput(std::span<const uint8_t> bytes) : begin_(bytes.data()) {
  pos_ = bytes.data();
  end_ = bytes.data() + bytes.size();
}

void ByteArrayStreamInput::seek(size_t position) {
  if (position > static_cast<size_t>(end_ - begin_)) {
    throw std::out_of_range("seek to " + std::to_string(position) + " past the end of a " +
                            std::to_string(end_ - begin_) + "-byte input");
  }
  pos_ = begin_ + position;
}

}  // namespace wirestream
