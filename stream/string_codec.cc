#include "stream/string_codec.h"

#include <cstdio>

#include "codec/cesu8.h"
#include "simd/simd.h"
#include "stream/errors.h"

namespace wirestream {

namespace {

[[noreturn, gnu::cold]] void throwInvalidUtf8(std::string_view utf8, size_t at) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "writeString: invalid UTF-8 at byte %zu (0x%02x) of %zu", at,
                static_cast<uint8_t>(utf8[at]), utf8.size());
  internal::throwInvalidArgument(buf);
}

}  // namespace

// 16 or 32 bytes a step with the SIMD kernels (//simd).
size_t asciiPrefixLength(const uint8_t* p, size_t n) {
  return simd::kernels().asciiPrefixLength(p, n);
}

Utf8Measure measureUtf8(std::string_view utf8) {
  const auto* s = reinterpret_cast<const uint8_t*>(utf8.data());
  size_t n = utf8.size();
  size_t i = asciiPrefixLength(s, n);
  if (i == n) return {n, n, true};
  size_t units = i;
  size_t four_byte = 0;
  const simd::Kernels& kernels = simd::kernels();
  while (i < n) {
    if (s[i] < 0x80) {  // an ASCII run between multi-byte sequences: vector scan
      size_t run = kernels.asciiPrefixLength(s + i, n - i);
      units += run;
      i += run;
      continue;
    }
    size_t len = codec::utf8SequenceLength(s, n, i);
    if (len == 0) throwInvalidUtf8(utf8, i);
    units += len == 4 ? 2 : 1;
    four_byte += len == 4;
    i += len;
  }
  return {units, n + 2 * four_byte, false};
}

}  // namespace wirestream
