// Float blocks (InfluxDB tsm1 batch_float.go): Facebook Gorilla XOR coding.
//
//   10 v0:BE64 then, for v1..vn-1 and a terminating NaN 0x7FF8000000000001,
//   with x = bits(v) ^ bits(previous v), bits written most significant first:
//     0                                  x == 0
//     10 <64-L-T bits of x >> T>         L, T of the last 11 record; lz(x) & 31 >= L
//                                        and tz(x) >= T
//     11 lz:5 m:6 <m bits of x >> tz>    lz = leading zeros & 31 (InfluxDB masks,
//                                        so 32..63 wrap to 0..31), m = 64 - lz - tz,
//                                        written as 0 when 64
//   then zero bits to the byte. The empty array: 10 7FF8000000000001.
// A decoded value equal to the terminator ends the block; the decoder starts
// with L = 0, T = 0 (64 meaningful bits) as InfluxDB's does.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "codec/byte_order.h"
#include "tsm/internal.h"
#include "tsm/tsm.h"
#include "tsm/tsm_kernels.h"

namespace wirestream::tsm {
namespace {

constexpr uint64_t kTerminator = 0x7FF8000000000001;  // InfluxDB's uvnan
const char* const kKind = "float";

// Appends bits most significant first into a buffer sized for the worst case.
class BitWriter {
 public:
  explicit BitWriter(uint8_t* p) : p_(p) {}

  // Writes the low n bits of v (1 <= n <= 64; the other bits of v are zero).
  void write(uint64_t v, int n) {
    if (n < free_) {
      acc_ |= v << (free_ - n);
      free_ -= n;
      return;
    }
    int spill = n - free_;
    acc_ |= v >> spill;
    codec::storeBig64(p_, acc_);
    p_ += 8;
    acc_ = spill == 0 ? 0 : v << (64 - spill);
    free_ = 64 - spill;
  }

  // Flushes the partial word; returns the end of the written bytes.
  uint8_t* finish() {
    int used = 64 - free_;
    uint8_t tail[8];
    codec::storeBig64(tail, acc_);
    int bytes = (used + 7) / 8;
    std::memcpy(p_, tail, bytes);
    return p_ + bytes;
  }

 private:
  uint8_t* p_;
  uint64_t acc_ = 0;
  int free_ = 64;
};

[[noreturn, gnu::cold]] __attribute__((noinline)) void throwEnd(uint64_t pos, uint64_t total,
                                                                int n) {
  internal::throwTruncated(kKind, "ends before its terminating NaN (bit " + std::to_string(pos) +
                                      " of " + std::to_string(total) + ", " + std::to_string(n) +
                                      " more needed)");
}

// Reads bits most significant first from [data, data + size), checking every
// read against the end.
class BitReader {
 public:
  BitReader(const uint8_t* data, size_t size)
      : data_(data), size_(size), total_(8 * uint64_t(size)) {}

  uint64_t position() const { return pos_; }

  // Reads n bits (1 <= n <= 64).
  uint64_t read(int n) {
    if (pos_ + n > total_) throwEnd(pos_, total_, n);
    size_t byte = pos_ >> 3;
    int off = pos_ & 7;
    uint64_t hi = load(byte) << off;
    if (n > 64 - off) hi |= uint64_t(data_[byte + 8]) >> (8 - off);
    pos_ += n;
    return hi >> (64 - n);
  }

  // The next 57 or more bits, left-aligned; bits past the end read as zero.
  uint64_t peek() const { return load(pos_ >> 3) << (pos_ & 7); }

  // Consumes n bits of what peek() showed (1 <= n <= 57).
  void skip(int n) {
    if (pos_ + n > total_) throwEnd(pos_, total_, n);
    pos_ += n;
  }

 private:
  uint64_t load(size_t byte) const {
    if (__builtin_expect(byte + 8 <= size_, 1)) return codec::loadBig64(data_ + byte);
    uint64_t v = 0;
    for (size_t i = 0; i < 8; ++i) v = v << 8 | (byte + i < size_ ? data_[byte + i] : 0);
    return v;
  }

  const uint8_t* data_;
  size_t size_;
  uint64_t total_;
  uint64_t pos_ = 0;
};

// The XOR coding of values[1..n) and the terminator after values[0] (= prev), into dst.
// One body, compiled twice on x86: the leading and trailing zero counts are one LZCNT and
// one TZCNT each where the CPU has them (BMI1 and LZCNT: Haswell, Piledriver and later),
// and BSR/BSF otherwise; the bytes are the same.
[[gnu::always_inline]] inline uint8_t* encodeXorsBody(const double* values, size_t n, uint64_t prev,
                                                      uint8_t* dst) {
  BitWriter w(dst);
  int prev_leading = -1;
  int prev_trailing = 0;
  for (size_t i = 1; i <= n; ++i) {
    uint64_t cur = i < n ? std::bit_cast<uint64_t>(values[i]) : kTerminator;
    uint64_t x = cur ^ prev;
    prev = cur;
    if (x == 0) {
      w.write(0, 1);
      continue;
    }
    int leading = std::countl_zero(x) & 31;
    int trailing = std::countr_zero(x);
    if (prev_leading >= 0 && leading >= prev_leading && trailing >= prev_trailing) {
      w.write(0b10, 2);
      w.write(x >> prev_trailing, 64 - prev_leading - prev_trailing);
    } else {
      prev_leading = leading;
      prev_trailing = trailing;
      int meaningful = 64 - leading - trailing;
      // Control 11, 5 bits of leading zeros, 6 of the meaningful count (64 as 0).
      w.write(uint64_t{0b11} << 11 | uint64_t(leading) << 6 | (meaningful & 63), 13);
      w.write(x >> trailing, meaningful);
    }
  }
  return w.finish();
}

#if defined(__x86_64__) || defined(__i386__)
// CPUID directly: clang's __builtin_cpu_supports does not know "lzcnt".
bool cpuHasLzcntAndBmi() {
  unsigned a, b, c, d;
  if (__get_cpuid(0x80000001, &a, &b, &c, &d) == 0 || (c & bit_LZCNT) == 0) return false;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && (b & bit_BMI) != 0;
}

[[gnu::target("lzcnt,bmi")]] uint8_t* encodeXorsLzcnt(const double* values, size_t n, uint64_t prev,
                                                      uint8_t* dst) {
  return encodeXorsBody(values, n, prev, dst);
}
#endif

uint8_t* encodeXors(const double* values, size_t n, uint64_t prev, uint8_t* dst) {
#if defined(__x86_64__) || defined(__i386__)
  // The scalar kernel table (WIRESTREAM_SIMD=scalar, or a test forcing it) keeps the
  // baseline loop, so the tests run both.
  static const bool kLzcnt = cpuHasLzcntAndBmi();
  if (kLzcnt && &internal::kernels() != &internal::kernelTable(0)) {
    return encodeXorsLzcnt(values, n, prev, dst);
  }
#endif
  return encodeXorsBody(values, n, prev, dst);
}

}  // namespace

void encodeFloatArray(std::span<const double> values, std::vector<uint8_t>& out) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i])) {
      throw std::invalid_argument("encodeFloatArray: value " + std::to_string(i) +
                                  " is NaN, which a float block cannot hold");
    }
  }
  const size_t n = values.size();
  // Worst case: 77 bits a value after the first, and the terminator.
  out.resize(9 + (77 * n + 7) / 8 + 16);
  out[0] = internal::kPacked << 4;
  uint64_t prev = n == 0 ? kTerminator : std::bit_cast<uint64_t>(values[0]);
  codec::storeBig64(out.data() + 1, prev);
  if (n == 0) {
    out.resize(9);
    return;
  }
  out.resize(encodeXors(values.data(), n, prev, out.data() + 9) - out.data());
}

void decodeFloatArray(std::span<const uint8_t> block, std::vector<double>& out) {
  decodeFloatArray(block, out, kDefaultMaxValues);
}

void decodeFloatArray(std::span<const uint8_t> block, std::vector<double>& out, size_t max_values) {
  if (block.empty()) {
    out.clear();
    return;
  }
  if (block[0] != internal::kPacked << 4) {
    if (block[0] >> 4 != internal::kPacked) {
      internal::throwCorruptBlock(kKind, "has unknown encoding " + std::to_string(block[0] >> 4));
    }
    internal::throwCorruptBlock(kKind,
                                "header has a nonzero low nibble " + std::to_string(block[0] & 15));
  }
  if (block.size() < 9) {
    internal::throwTruncated(
        kKind, "of " + std::to_string(block.size()) + " bytes ends inside the first value");
  }
  uint64_t val = codec::loadBig64(block.data() + 1);
  BitReader r(block.data() + 9, block.size() - 9);
  if (val == kTerminator) {
    out.clear();
  } else {
    // Every value after the first takes at least one bit; one more slot for the
    // value stored before the read that finds the block truncated. What `out`
    // already holds is reused (resize zero-fills only past its old size).
    const uint64_t most = 8 * uint64_t(block.size() - 9) + 2;
    out.resize(std::min<uint64_t>({out.capacity(), most, max_values}));
    size_t count = 0;
    uint64_t* d = reinterpret_cast<uint64_t*>(out.data());
    int trailing = 0;
    int meaningful = 64;
    for (;;) {
      if (count == out.size()) {
        if (count >= max_values) internal::throwTooManyValues(kKind, count + 1, max_values);
        size_t grow = std::min<uint64_t>({std::max<size_t>(16, 2 * count), most, max_values});
        out.reserve(grow);  // exactly: resize alone may double past max_values
        out.resize(grow);
        d = reinterpret_cast<uint64_t*>(out.data());
      }
      d[count++] = val;
      // The control bits and the 11-bit header, if any, from one peek.
      const uint64_t w = r.peek();
      if (!(w >> 63)) {  // 0: x == 0, the same value again
        r.skip(1);
        continue;
      }
      if ((w >> 62) == 0b11) {
        r.skip(13);
        int leading = int(w >> 57) & 31;
        meaningful = int(w >> 51) & 63;
        if (meaningful == 0) meaningful = 64;
        if (leading + meaningful > 64) {
          internal::throwCorruptBlock(
              kKind, "has " + std::to_string(leading) + " leading zeros and " +
                         std::to_string(meaningful) + " meaningful bits, more than 64");
        }
        trailing = 64 - leading - meaningful;
      } else {
        r.skip(2);
      }
      val ^= r.read(meaningful) << trailing;
      if (val == kTerminator) break;
    }
    out.resize(count);
  }
  // Only zero bits may follow the terminator, up to the end of its byte.
  uint64_t end = r.position();
  uint64_t whole = 8 * uint64_t(block.size() - 9);
  if (whole - end >= 8) {
    internal::throwCorruptBlock(
        kKind, "has " + std::to_string((whole - end) / 8) + " bytes after its terminating NaN");
  }
  if (end < whole && r.read(int(whole - end)) != 0) {
    internal::throwCorruptBlock(kKind, "has nonzero padding bits after its terminating NaN");
  }
}

}  // namespace wirestream::tsm
