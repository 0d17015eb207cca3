// Out-of-line parts of StreamOutput: the slow paths taken when a value does
// not fit in the current buffer, and the writers too large to inline.
//
// Grammar of what is written here (wire format §1, §2):
//   float/double   := int/long of the IEEE bits (NaN canonical)
//   optional<T>    := bool present [T]
//   string         := vint utf16_units, unit*   (unit: 1..3 bytes, CESU-8 style)
//   byte array     := vint length, byte*
//   T array        := vint count, T*
//   float/double array split (wirestream extension, not ES):
//                  := vint count, stream_0 .. stream_{w-1}; stream_k is byte k
//                     of each value's big-endian bits (w = 4 or 8)
#include "stream/stream_output.h"

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "simd/simd.h"
#include "stream/string_codec.h"

namespace wirestream {

void internal::throwNegativeVLong(int64_t v) {
  internal::throwInvalidArgument(
      "Negative longs unsupported, use writeLong or writeZLong for negative "
      "numbers [" +
      std::to_string(v) + "]");
}

void StreamOutput::writeBytesSlow(const uint8_t* data, size_t n) {
  ensureCapacity(n);
  while (true) {
    size_t room = static_cast<size_t>(end_ - pos_);
    size_t take = room < n ? room : n;
    if (take) std::memcpy(pos_, data, take);
    pos_ += take;
    data += take;
    n -= take;
    if (n == 0) return;
    nextBuffer();
  }
}

void StreamOutput::writeFixedSlow(uint64_t v, int width) {
  uint8_t buf[8];
  switch (width) {
    case 2:
      codec::storeBig16(buf, static_cast<uint16_t>(v));
      break;
    case 4:
      codec::storeBig32(buf, static_cast<uint32_t>(v));
      break;
    default:
      codec::storeBig64(buf, v);
      break;
  }
  writeBytesSlow(buf, static_cast<size_t>(width));
}

void StreamOutput::writeVIntSlow(uint32_t v) {
  uint8_t buf[kMaxVIntBytes];
  writeBytesSlow(buf, static_cast<size_t>(encodeVInt(buf, v) - buf));
}

void StreamOutput::writeVarint64Slow(uint64_t v) {
  uint8_t buf[kMaxVLongBytes];
  writeBytesSlow(buf, static_cast<size_t>(encodeVarint64(buf, v) - buf));
}

void StreamOutput::writeOptionalVInt(std::optional<int32_t> v) {
  writeBoolean(v.has_value());
  if (v) writeVInt(*v);
}

void StreamOutput::writeOptionalVLong(std::optional<int64_t> v) {
  writeBoolean(v.has_value());
  if (v) writeVLong(*v);
}

void StreamOutput::writeOptionalInt(std::optional<int32_t> v) {
  writeBoolean(v.has_value());
  if (v) writeInt(*v);
}

void StreamOutput::writeOptionalLong(std::optional<int64_t> v) {
  writeBoolean(v.has_value());
  if (v) writeLong(*v);
}

void StreamOutput::writeOptionalFloat(std::optional<float> v) {
  writeBoolean(v.has_value());
  if (v) writeFloat(*v);
}

void StreamOutput::writeOptionalDouble(std::optional<double> v) {
  writeBoolean(v.has_value());
  if (v) writeDouble(*v);
}

void internal::throwArraySizeTooLarge(size_t size) {
  internal::throwInvalidArgument("array size too large for the wire: " + std::to_string(size));
}

void StreamOutput::writeString(std::string_view s) {
  Utf8Measure m = measureUtf8(s);  // validates before anything is written
  writeArraySize(m.utf16_units);
  const auto* data = reinterpret_cast<const uint8_t*>(s.data());
  // Without 4-byte sequences (wire_bytes == size) every UTF-8 sequence is
  // already its unit's wire form: the input is the wire bytes.
  if (m.ascii || m.wire_bytes == s.size()) {
    writeBytes({data, s.size()});
  } else if (static_cast<size_t>(end_ - pos_) >= m.wire_bytes) {
    pos_ = encodeUtf8AsWire(pos_, s);
  } else {
    std::string wire(m.wire_bytes, '\0');
    encodeUtf8AsWire(reinterpret_cast<uint8_t*>(wire.data()), s);
    writeBytesSlow(reinterpret_cast<const uint8_t*>(wire.data()), wire.size());
  }
}

void StreamOutput::writeOptionalString(std::optional<std::string_view> s) {
  writeBoolean(s.has_value());
  if (s) writeString(*s);
}

void StreamOutput::writeStringArray(std::span<const std::string> values) {
  writeArraySize(values.size());
  for (const auto& v : values) writeString(v);
}

void StreamOutput::writeStringArray(std::span<const std::string_view> values) {
  writeArraySize(values.size());
  for (auto v : values) writeString(v);
}

void StreamOutput::writeVIntArray(std::span<const int32_t> values) {
  writeArraySize(values.size());
  const simd::Kernels& kernels = simd::kernels();
  const int32_t* v = values.data();
  size_t left = values.size();
  while (left > 0) {
    // The values sure to fit in this buffer go in one batch; near its end
    // (fewer than 5 bytes of room) one value at a time crosses to the next.
    size_t fit = std::min(left, static_cast<size_t>(end_ - pos_) / kMaxVIntBytes);
    if (fit > 0) {
      pos_ = kernels.encodeVInts(v, fit, pos_);
      v += fit;
      left -= fit;
    } else {
      writeVInt(*v++);
      --left;
    }
  }
}

void StreamOutput::writeVLongArray(std::span<const int64_t> values) {
  for (int64_t v : values) {  // refuse before writing anything
    if (!codec::isVLong(v)) internal::throwNegativeVLong(v);
  }
  writeArraySize(values.size());
  const simd::Kernels& kernels = simd::kernels();
  const int64_t* v = values.data();
  size_t left = values.size();
  while (left > 0) {
    size_t fit = std::min(left, static_cast<size_t>(end_ - pos_) / kMaxVLongBytes);
    if (fit > 0) {
      pos_ = kernels.encodeVLongs(v, fit, pos_);
      v += fit;
      left -= fit;
    } else {
      writeVLongNoCheck(*v++);
      --left;
    }
  }
}

void StreamOutput::writeIntArray(std::span<const int32_t> values) {
  writeArraySize(values.size());
  for (int32_t v : values) writeInt(v);
}

void StreamOutput::writeLongArray(std::span<const int64_t> values) {
  writeArraySize(values.size());
  for (int64_t v : values) writeLong(v);
}

void StreamOutput::writeFloatArray(std::span<const float> values) {
  writeArraySize(values.size());
  for (float v : values) writeFloat(v);
}

void StreamOutput::writeDoubleArray(std::span<const double> values) {
  writeArraySize(values.size());
  for (double v : values) writeDouble(v);
}

template <typename T>
void StreamOutput::writeSplit(std::span<const T> values,
                              void (*encode)(const T*, size_t, uint8_t*)) {
  writeArraySize(values.size());
  size_t bytes = values.size() * sizeof(T);
  if (static_cast<size_t>(end_ - pos_) >= bytes) {
    if (bytes > 0) encode(values.data(), values.size(), pos_);
    pos_ += bytes;
    return;
  }
  // The streams span the whole array, so an array that crosses buffers is
  // laid out aside first (after the output has agreed to take it).
  ensureCapacity(bytes);
  std::vector<uint8_t> split(bytes);
  encode(values.data(), values.size(), split.data());
  writeBytesSlow(split.data(), bytes);
}

void StreamOutput::writeFloatArraySplit(std::span<const float> values) {
  writeSplit(values, simd::kernels().splitEncodeFloats);
}

void StreamOutput::writeDoubleArraySplit(std::span<const double> values) {
  writeSplit(values, simd::kernels().splitEncodeDoubles);
}

}  // namespace wirestream
