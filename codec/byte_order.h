// Fixed-width loads and stores in wire byte order over plain memory: the one place that
// converts between host and wire byte order.
//
// Example (runs: codec_byte_order):
//   uint8_t buf[8];
//   codec::storeBig32(buf, 0x01020304);     // 01 02 03 04
//   uint32_t v = codec::loadBig32(buf);     // 0x01020304
//
// Every fixed-width value on the wire is big-endian (wire format §1). The pointers may be
// unaligned; Boost.Endian compiles each call to one load/store plus a byte swap. The
// caller guarantees the bytes exist. Stateless; thread-safe; never throws.
#pragma once

#include <boost/endian/conversion.hpp>
#include <cstdint>

namespace wirestream::codec {

inline void storeBig16(uint8_t* p, uint16_t v) {
  boost::endian::endian_store<uint16_t, 2, boost::endian::order::big>(p, v);
}
inline void storeBig32(uint8_t* p, uint32_t v) {
  boost::endian::endian_store<uint32_t, 4, boost::endian::order::big>(p, v);
}
inline void storeBig64(uint8_t* p, uint64_t v) {
  boost::endian::endian_store<uint64_t, 8, boost::endian::order::big>(p, v);
}
// Little-endian: only for varints assembled in a register (LEB128 puts the
// low group first), never for a fixed-width wire value.
// storeBig16/32/64 by the width of U (uint16_t, uint32_t or uint64_t).
template <class U>
inline void storeBig(uint8_t* p, U v) {
  static_assert(sizeof(U) == 2 || sizeof(U) == 4 || sizeof(U) == 8);
  if constexpr (sizeof(U) == 2) {
    storeBig16(p, v);
  } else if constexpr (sizeof(U) == 4) {
    storeBig32(p, v);
  } else {
    storeBig64(p, v);
  }
}
inline void storeLittle64(uint8_t* p, uint64_t v) {
  boost::endian::endian_store<uint64_t, 8, boost::endian::order::little>(p, v);
}
[[nodiscard]] inline uint32_t loadLittle32(const uint8_t* p) {
  return boost::endian::endian_load<uint32_t, 4, boost::endian::order::little>(p);
}
[[nodiscard]] inline uint16_t loadBig16(const uint8_t* p) {
  return boost::endian::endian_load<uint16_t, 2, boost::endian::order::big>(p);
}
[[nodiscard]] inline uint32_t loadBig32(const uint8_t* p) {
  return boost::endian::endian_load<uint32_t, 4, boost::endian::order::big>(p);
}
[[nodiscard]] inline uint64_t loadBig64(const uint8_t* p) {
  return boost::endian::endian_load<uint64_t, 8, boost::endian::order::big>(p);
}

// loadBig16/32/64 by the width of U (uint16_t, uint32_t or uint64_t).
template <class U>
[[nodiscard]] inline U loadBig(const uint8_t* p) {
  static_assert(sizeof(U) == 2 || sizeof(U) == 4 || sizeof(U) == 8);
  if constexpr (sizeof(U) == 2) {
    return loadBig16(p);
  } else if constexpr (sizeof(U) == 4) {
    return loadBig32(p);
  } else {
    return loadBig64(p);
  }
}

}  // namespace wirestream::codec
