// HyperLogLog++ sketch on the wire (wire format §7, Cardinality):
//   sketch := VInt precision (4..18), boolean dense, then
//             sparse: VLong n (<= 3 * 2^p / 16), n x int encoded hash, in
//                     the slot order of ES's open-addressing table
//             dense:  2^p bytes, each a run length in 0..65-p
//   encoded hash (ES's encodeHash, P2 = 25), e = hash >>> 39:
//             e's low 25-p bits all 0: (e << 7) | (run length at P2 << 1) | 1
//             else:                    e << 1
#include "aggregations/hyperloglog_plus_plus.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "stream/errors.h"

namespace wirestream::aggregations {

namespace {
constexpr int kP2 = HyperLogLogPlusPlus::kSparsePrecision;
constexpr uint64_t mask(int bits) { return (uint64_t{1} << bits) - 1; }

void checkPrecision(int64_t p) {
  if (p < HyperLogLogPlusPlus::kMinPrecision || p > HyperLogLogPlusPlus::kMaxPrecision) {
    internal::throwCorrupt("HyperLogLog++ precision must be in [4, 18] but was [" +
                           std::to_string(p) + "]");
  }
}
}  // namespace

HyperLogLogPlusPlus::HyperLogLogPlusPlus(int precision, SparseTable table)
    : p_(precision), growing_(table == SparseTable::kGrowing) {
  if (precision < kMinPrecision || precision > kMaxPrecision) {
    throw std::invalid_argument("HyperLogLog++ precision must be in [4, 18] but was [" +
                                std::to_string(precision) + "]");
  }
}

uint32_t HyperLogLogPlusPlus::encodeHash(uint64_t hash, int p) {
  uint64_t e = hash >> (64 - kP2);
  uint64_t encoded;
  if ((e & mask(kP2 - p)) == 0) {
    uint64_t run = 1 + std::min(std::countl_zero(hash << kP2), 64 - kP2);
    encoded = (e << 7) | (run << 1) | 1;
  } else {
    encoded = e << 1;
  }
  return static_cast<uint32_t>(encoded);
}

uint32_t HyperLogLogPlusPlus::decodeIndex(uint32_t encoded, int p) {
  uint32_t index = (encoded & 1) ? encoded >> 7 : encoded >> 1;
  return index >> (kP2 - p);
}

uint8_t HyperLogLogPlusPlus::decodeRunLength(uint32_t encoded, int p) {
  if (encoded & 1) return static_cast<uint8_t>(((encoded >> 1) & 0x3F) + (kP2 - p));
  uint32_t bits = encoded << (31 + p - kP2);
  return static_cast<uint8_t>(1 + std::countl_zero(bits));
}

void HyperLogLogPlusPlus::checkEncoded(uint32_t encoded, int p) {
  bool ok;
  if (encoded & 1) {
    uint32_t run = (encoded >> 1) & 0x3F;
    ok = run >= 1 && run <= 64 - kP2 + 1 && ((encoded >> 7) & mask(kP2 - p)) == 0;
  } else {
    uint32_t e = encoded >> 1;
    ok = e < (uint32_t{1} << kP2) && (e & mask(kP2 - p)) != 0;
  }
  if (!ok) {
    internal::throwCorrupt("invalid HyperLogLog++ encoded hash [" + std::to_string(encoded) +
                           "] at precision " + std::to_string(p));
  }
}

void HyperLogLogPlusPlus::collect(uint64_t hash) {
  if (dense_) {
    uint32_t index = static_cast<uint32_t>(hash >> (64 - p_));
    // Same as ES: the OR'ed bit caps the run at 65 - p.
    uint8_t run =
        static_cast<uint8_t>(std::countl_zero((hash << p_) | (uint64_t{1} << (p_ - 1))) + 1);
    setRegister(index, run);
  } else {
    addEncoded(encodeHash(hash, p_));
  }
}

template <class F>
void HyperLogLogPlusPlus::forEachSparse(F&& f) const {
  if (dense_) return;
  if (!read_order_.empty()) {
    for (uint32_t e : read_order_) f(e);
  } else if (!slot_table_.empty()) {
    for (uint32_t e : slot_table_)
      if (e != 0) f(e);
  } else {
    for (const auto& [slot, e] : slot_map_) f(e);
  }
}

std::vector<uint32_t> HyperLogLogPlusPlus::sparseHashes() const {
  std::vector<uint32_t> out;
  out.reserve(sparseSize());
  forEachSparse([&](uint32_t e) { out.push_back(e); });
  return out;
}

uint32_t HyperLogLogPlusPlus::slotAt(uint32_t slot) const {
  if (!slot_table_.empty()) return slot_table_[slot];
  auto it = slot_map_.find(slot);
  return it == slot_map_.end() ? 0 : it->second;
}

void HyperLogLogPlusPlus::setSlot(uint32_t slot, uint32_t encoded) {
  ++slot_count_;
  if (!slot_table_.empty()) {
    slot_table_[slot] = encoded;
    return;
  }
  slot_map_.emplace(slot, encoded);
  // A flat array once it is no larger than the map's nodes.
  size_t capacity = size_t{slotMask()} + 1;
  if (slot_count_ * 8 >= capacity) {
    slot_table_.assign(capacity, 0);
    for (const auto& [s, e] : slot_map_) slot_table_[s] = e;
    slot_map_.clear();
  }
}

// ES's LinearCounting.addEncoded: probe from the home slot, wrapping around;
// an empty slot (0: no encoded hash is 0) takes it, an equal one means known.
void HyperLogLogPlusPlus::addEncoded(uint32_t encoded) {
  if (!read_order_.empty()) {
    // A sketch read from the wire becomes a table, its hashes in read order.
    std::vector<uint32_t> read = std::move(read_order_);
    read_order_.clear();
    read_set_ = {};
    for (uint32_t e : read) addEncoded(e);
  }
  if (growing_) {
    addEncodedGrowing(encoded);
    return;
  }
  const uint32_t mask = slotMask();
  for (uint32_t i = encoded & mask;; i = (i + 1) & mask) {
    uint32_t v = slotAt(i);
    if (v == encoded) return;
    if (v == 0) {
      setSlot(i, encoded);
      break;
    }
  }
  if (slot_count_ > sparseThreshold()) toDense();
}

// ES 8.19.21's LinearCounting.addEncoded with its LinearCountingCell: a new
// table of min(2^p / 4, 32) slots; an existing one more than 3/4 full is
// doubled before the addition, even of a hash it holds, by re-inserting its
// slots in order.
void HyperLogLogPlusPlus::addEncodedGrowing(uint32_t encoded) {
  const auto insert = [](std::vector<uint32_t>& table, uint32_t e) {
    const uint32_t mask = static_cast<uint32_t>(table.size()) - 1;
    for (uint32_t i = e & mask;; i = (i + 1) & mask) {
      if (table[i] == e) return false;
      if (table[i] == 0) {
        table[i] = e;
        return true;
      }
    }
  };
  if (slot_table_.empty()) {
    slot_table_.assign(std::min<size_t>(size_t{slotMask()} + 1, 32), 0);
  } else if (slot_count_ > slot_table_.size() * 3 / 4) {
    std::vector<uint32_t> grown(slot_table_.size() * 2, 0);
    for (uint32_t e : slot_table_)
      if (e != 0) insert(grown, e);
    slot_table_ = std::move(grown);
  }
  if (insert(slot_table_, encoded)) ++slot_count_;
  if (slot_count_ > sparseThreshold()) toDense();
}

void HyperLogLogPlusPlus::toDense() {
  registers_.assign(size_t{1} << p_, 0);
  forEachSparse([&](uint32_t e) { setRegister(decodeIndex(e, p_), decodeRunLength(e, p_)); });
  read_order_ = {};
  read_set_ = {};
  slot_map_.clear();
  slot_table_ = {};
  slot_count_ = 0;
  dense_ = true;
}

void HyperLogLogPlusPlus::merge(const HyperLogLogPlusPlus& other) {
  if (other.p_ != p_) {
    throw std::invalid_argument("cannot merge HyperLogLog++ sketches of precision " +
                                std::to_string(p_) + " and " + std::to_string(other.p_));
  }
  if (other.dense_) {
    if (!dense_) toDense();
    for (size_t i = 0; i < registers_.size(); ++i) {
      registers_[i] = std::max(registers_[i], other.registers_[i]);
    }
    return;
  }
  // In other's write order, as ES merges a sketch's HashesIterator.
  other.forEachSparse([&](uint32_t e) {
    if (dense_) {
      setRegister(decodeIndex(e, p_), decodeRunLength(e, p_));
    } else {
      addEncoded(e);
    }
  });
}

namespace {
// Ertl 2017, algorithm 6 helpers.
double sigma(double x) {
  if (x == 1) return INFINITY;
  double y = 1, z = x, prev;
  do {
    x *= x;
    prev = z;
    z += x * y;
    y += y;
  } while (z != prev);
  return z;
}

double tau(double x) {
  if (x == 0 || x == 1) return 0;
  double y = 1, z = 1 - x, prev;
  do {
    x = std::sqrt(x);
    prev = z;
    y *= 0.5;
    z -= (1 - x) * (1 - x) * y;
  } while (z != prev);
  return z / 3;
}
}  // namespace

int64_t HyperLogLogPlusPlus::cardinality() const {
  if (!dense_) {
    // Linear counting over the 2^25 buckets of the sparse encoding.
    double m = static_cast<double>(uint64_t{1} << kP2);
    double v = m - static_cast<double>(sparseSize());
    return std::llround(m * std::log(m / v));
  }
  const int q = 64 - p_;
  std::vector<uint32_t> c(static_cast<size_t>(q + 2), 0);
  for (uint8_t r : registers_) ++c[r];
  const double m = static_cast<double>(registers_.size());
  double z = m * tau(1 - c[q + 1] / m);
  for (int k = q; k >= 1; --k) z = 0.5 * (z + c[k]);
  z += m * sigma(c[0] / m);
  constexpr double kAlphaInf = 0.5 / 0.6931471805599453;  // 1 / (2 ln 2)
  return std::llround(kAlphaInf * m * m / z);
}

void HyperLogLogPlusPlus::writeTo(StreamOutput& out) const {
  out.writeVInt(p_);
  out.writeBoolean(dense_);
  if (dense_) {
    out.writeBytes(registers_);
  } else {
    out.writeVLong(static_cast<int64_t>(sparseSize()));
    forEachSparse([&](uint32_t e) { out.writeInt(static_cast<int32_t>(e)); });
  }
}

HyperLogLogPlusPlus HyperLogLogPlusPlus::fromDense(int64_t precision,
                                                   std::vector<uint8_t> registers) {
  checkPrecision(precision);
  const auto p = static_cast<int>(precision);
  if (registers.size() != (size_t{1} << p)) {
    internal::throwCorrupt("HyperLogLog++ needs " + std::to_string(1 << p) + " registers, got " +
                           std::to_string(registers.size()));
  }
  for (uint8_t r : registers) {
    if (r > 65 - p) {
      internal::throwCorrupt("HyperLogLog++ register [" + std::to_string(r) +
                             "] above the maximum run length " + std::to_string(65 - p));
    }
  }
  HyperLogLogPlusPlus s(p);
  s.dense_ = true;
  s.registers_ = std::move(registers);
  return s;
}

HyperLogLogPlusPlus HyperLogLogPlusPlus::fromSparse(int64_t precision,
                                                    std::span<const uint32_t> hashes) {
  checkPrecision(precision);
  HyperLogLogPlusPlus s(static_cast<int>(precision));
  if (hashes.size() > s.sparseThreshold()) {
    internal::throwCorrupt("HyperLogLog++ sparse size [" + std::to_string(hashes.size()) +
                           "] outside [0, " + std::to_string(s.sparseThreshold()) + "]");
  }
  s.read_order_.reserve(hashes.size());
  for (uint32_t e : hashes) {
    checkEncoded(e, s.p_);
    if (!s.read_set_.insert(e).second) {
      internal::throwCorrupt("duplicate HyperLogLog++ hash [" + std::to_string(e) + "]");
    }
    s.read_order_.push_back(e);
  }
  return s;
}

HyperLogLogPlusPlus HyperLogLogPlusPlus::readFrom(StreamInput& in) {
  int32_t p = in.readVInt();
  checkPrecision(p);
  if (in.readBoolean()) {
    size_t m = size_t{1} << p;
    if (in.available() < m) internal::throwEndOfStream(m, in.available());
    std::vector<uint8_t> registers(m);
    in.readBytes(registers);
    return fromDense(p, std::move(registers));
  }
  int64_t n = in.readVLong();
  const size_t threshold = (size_t{1} << p) * 3 / 16;  // sparseThreshold() at p
  if (n < 0 || static_cast<uint64_t>(n) > threshold) {
    internal::throwCorrupt("HyperLogLog++ sparse size [" + std::to_string(n) + "] outside [0, " +
                           std::to_string(threshold) + "]");
  }
  if (in.available() < static_cast<size_t>(n) * 4) {
    internal::throwEndOfStream(static_cast<uint64_t>(n) * 4, in.available());
  }
  std::vector<uint32_t> hashes(static_cast<size_t>(n));
  for (uint32_t& e : hashes) e = static_cast<uint32_t>(in.readInt());
  return fromSparse(p, hashes);
}

uint64_t HyperLogLogPlusPlus::hashLong(int64_t v) {
  auto z = static_cast<uint64_t>(v);
  z = (z ^ (z >> 32)) * 0x4cd6944c5cc20b6dULL;
  z = (z ^ (z >> 29)) * 0xfc12c5b19d3259e9ULL;
  return z ^ (z >> 32);
}

namespace {
inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
inline uint64_t fmix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}
inline uint64_t loadLittle64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
}  // namespace

uint64_t HyperLogLogPlusPlus::hashBytes(std::span<const uint8_t> bytes) {
  constexpr uint64_t c1 = 0x87c37b91114253d5ULL, c2 = 0x4cf5ad432745937fULL;
  const uint8_t* data = bytes.data();
  const size_t len = bytes.size();
  uint64_t h1 = 0, h2 = 0;
  size_t blocks = len / 16;
  for (size_t i = 0; i < blocks; ++i) {
    uint64_t k1 = loadLittle64(data + i * 16), k2 = loadLittle64(data + i * 16 + 8);
    k1 *= c1;
    k1 = rotl(k1, 31);
    k1 *= c2;
    h1 ^= k1;
    h1 = rotl(h1, 27);
    h1 += h2;
    h1 = h1 * 5 + 0x52dce729;
    k2 *= c2;
    k2 = rotl(k2, 33);
    k2 *= c1;
    h2 ^= k2;
    h2 = rotl(h2, 31);
    h2 += h1;
    h2 = h2 * 5 + 0x38495ab5;
  }
  const uint8_t* tail = data + blocks * 16;
  uint64_t k1 = 0, k2 = 0;
  switch (len & 15) {
    case 15:
      k2 ^= uint64_t{tail[14]} << 48;
      [[fallthrough]];
    case 14:
      k2 ^= uint64_t{tail[13]} << 40;
      [[fallthrough]];
    case 13:
      k2 ^= uint64_t{tail[12]} << 32;
      [[fallthrough]];
    case 12:
      k2 ^= uint64_t{tail[11]} << 24;
      [[fallthrough]];
    case 11:
      k2 ^= uint64_t{tail[10]} << 16;
      [[fallthrough]];
    case 10:
      k2 ^= uint64_t{tail[9]} << 8;
      [[fallthrough]];
    case 9:
      k2 ^= uint64_t{tail[8]};
      k2 *= c2;
      k2 = rotl(k2, 33);
      k2 *= c1;
      h2 ^= k2;
      [[fallthrough]];
    case 8:
      k1 ^= uint64_t{tail[7]} << 56;
      [[fallthrough]];
    case 7:
      k1 ^= uint64_t{tail[6]} << 48;
      [[fallthrough]];
    case 6:
      k1 ^= uint64_t{tail[5]} << 40;
      [[fallthrough]];
    case 5:
      k1 ^= uint64_t{tail[4]} << 32;
      [[fallthrough]];
    case 4:
      k1 ^= uint64_t{tail[3]} << 24;
      [[fallthrough]];
    case 3:
      k1 ^= uint64_t{tail[2]} << 16;
      [[fallthrough]];
    case 2:
      k1 ^= uint64_t{tail[1]} << 8;
      [[fallthrough]];
    case 1:
      k1 ^= uint64_t{tail[0]};
      k1 *= c1;
      k1 = rotl(k1, 31);
      k1 *= c2;
      h1 ^= k1;
  }
  h1 ^= len;
  h2 ^= len;
  h1 += h2;
  h2 += h1;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h1 += h2;
  return h1;
}

}  // namespace wirestream::aggregations
