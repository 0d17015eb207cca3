// The scalar level: per-value loops, the reference every vector level is
// tested against and the fallback on CPUs without SSE4.1.
#include "simd/internal.h"

namespace wirestream::simd::internal {

// The varint loops are also the neon level's (internal.h).
uint8_t* encodeVIntsScalar(const int32_t* in, size_t n, uint8_t* dst) {
  for (size_t i = 0; i < n; ++i) dst = encodeVIntOne(dst, static_cast<uint32_t>(in[i]));
  return dst;
}

uint8_t* encodeVLongsScalar(const int64_t* in, size_t n, uint8_t* dst) {
  for (size_t i = 0; i < n; ++i) dst = encodeVLongOne(dst, static_cast<uint64_t>(in[i]));
  return dst;
}

DecodeBatch decodeVIntsScalar(const uint8_t* p, const uint8_t* limit, int32_t* out, size_t n) {
  return decodeVIntsTail(p, limit, out, n, 0);
}

DecodeBatch decodeVLongsScalar(const uint8_t* p, const uint8_t* limit, int64_t* out, size_t n) {
  return decodeVLongsTail(p, limit, out, n, 0);
}

namespace {

size_t asciiPrefixLengthScalar(const uint8_t* p, size_t n) {
  // Eight bytes at a time in a general register.
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    if (w & 0x8080808080808080ULL) break;
  }
  return asciiPrefixTail(p, n, i);
}

size_t utf16LengthScalar(const uint8_t* p, size_t n) { return utf16LengthTail(p, n, 0); }

void splitEncodeFloatsScalar(const float* in, size_t n, uint8_t* out) {
  splitEncodeFloatsTail(in, n, out, 0);
}
void splitDecodeFloatsScalar(const uint8_t* in, size_t n, float* out) {
  splitDecodeFloatsTail(in, n, out, 0);
}
void splitEncodeDoublesScalar(const double* in, size_t n, uint8_t* out) {
  splitEncodeDoublesTail(in, n, out, 0);
}
void splitDecodeDoublesScalar(const uint8_t* in, size_t n, double* out) {
  splitDecodeDoublesTail(in, n, out, 0);
}

}  // namespace

const Kernels kScalarKernels = {
    Level::kScalar,           encodeVIntsScalar,        encodeVLongsScalar,
    decodeVIntsScalar,        decodeVLongsScalar,       asciiPrefixLengthScalar,
    utf16LengthScalar,        splitEncodeFloatsScalar,  splitDecodeFloatsScalar,
    splitEncodeDoublesScalar, splitDecodeDoublesScalar,
};

}  // namespace wirestream::simd::internal
