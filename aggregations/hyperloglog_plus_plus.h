// HyperLogLogPlusPlus: the cardinality sketch of ES's `cardinality`
// aggregation, with ES's two representations and byte-compatible encoding.
//
// Example (runs: hyperloglog_plus_plus):
//   #include <cassert>
//   #include <string_view>
//   HyperLogLogPlusPlus s(14);                      // precision 4..18, 2^p registers
//   for (std::string_view term : {"rock", "jazz", "rock"}) {
//     auto bytes = reinterpret_cast<const uint8_t*>(term.data());
//     s.collect(HyperLogLogPlusPlus::hashBytes({bytes, term.size()}));
//   }
//   HyperLogLogPlusPlus other(14);
//   other.collect(HyperLogLogPlusPlus::hashLong(42));
//   other.merge(s);                                 // same precision
//   assert(s.cardinality() == 2 && other.cardinality() == 3);
//
// Sparse ("linear counting"): the distinct hashes, each folded to the 32-bit
// encoding of ES (the register index at precision 25 and, when it can't be
// recomputed at precision p, the run length). A sketch built here keeps them
// where ES's open-addressing table would: 2^p / 4 int slots, home slot
// `encoded & (2^p/4 - 1)`, forward probing with wrap-around, and lists them in
// slot order, so the same values collected (or merged) in the same order give
// ES's bytes. A sketch read from the wire keeps the order it was read in (as
// ES's read-only sparse sketch does) until something is added to it; then it
// is rebuilt as a table, its hashes inserted in that order. The table is
// simulated in memory proportional to the hashes held. Once more than 3/16 of
// 2^p hashes are held (ES: a quarter of the register bytes as 4-byte ints at
// load factor 0.75) it switches to dense: one byte a register, the run length
// of leading zeros + 1.
//
// SparseTable::kGrowing is the table of ES 8.19.21 and 9.3.4
// (HyperLogLogPlusPlus.LinearCountingCell): it starts at min(2^p / 4, 32) slots
// and, when an addition finds more than 3/4 of them held (a repeat included),
// doubles first, re-inserting its hashes in slot order; the home slot and
// probing are as above, so only the order of the listed hashes differs.
//
// Estimates: sparse uses linear counting over 2^25 buckets as ES; dense uses
// Ertl's improved raw estimator ("New cardinality estimation algorithms for
// HyperLogLog sketches", 2017), which needs no empirical bias tables and has
// a relative standard error of about 1.04 / sqrt(2^p) over the whole range.
// ES uses the HLL++ bias tables instead, so estimates can differ from ES by a
// fraction of that error; the bytes do not differ.
//
// Wire (wire format §7): VInt p, boolean dense, then sparse: VLong n +
// n x int encoded hash; dense: 2^p register bytes. A value type; not
// thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <unordered_set>
#include <vector>

#include "stream/stream_input.h"
#include "stream/stream_output.h"

namespace wirestream::aggregations {

class HyperLogLogPlusPlus {
 public:
  static constexpr int kMinPrecision = 4;
  static constexpr int kMaxPrecision = 18;
  // Precision of the sparse encoding (ES's P2).
  static constexpr int kSparsePrecision = 25;

  // Which of ES's sparse tables to follow (see the top of this file).
  enum class SparseTable { kFixed, kGrowing };

  // std::invalid_argument unless kMinPrecision <= precision <= kMaxPrecision.
  explicit HyperLogLogPlusPlus(int precision, SparseTable table = SparseTable::kFixed);

  int precision() const { return p_; }
  bool isDense() const { return dense_; }
  // Sparse: the encoded hashes in the order they are written (ES's slot order,
  // or the order read). Dense: empty.
  std::vector<uint32_t> sparseHashes() const;
  size_t sparseSize() const {
    return dense_ ? 0 : (read_order_.empty() ? slot_count_ : read_order_.size());
  }
  // Dense: 2^p run lengths. Sparse: empty.
  const std::vector<uint8_t>& registers() const { return registers_; }
  // Most hashes the sparse form holds before switching to dense.
  size_t sparseThreshold() const { return (size_t{1} << p_) * 3 / 16; }

  // Adds a 64-bit hash of a value (hashBytes/hashLong, or any good hash).
  void collect(uint64_t hash);
  // Adds everything `other` holds. std::invalid_argument if the precisions differ.
  void merge(const HyperLogLogPlusPlus& other);
  int64_t cardinality() const;

  void writeTo(StreamOutput& out) const;
  // CorruptStreamError for a precision outside 4..18, an invalid or duplicate
  // sparse hash, more sparse hashes than sparseThreshold(), or a register
  // above 65 - p.
  static HyperLogLogPlusPlus readFrom(StreamInput& in);

  // A sketch from its parts, validated as readFrom does (its JSON is
  // aggregations/json/model_json.h). CorruptStreamError for a precision
  // outside 4..18; dense: unless there are 2^p registers, each at most 65 - p;
  // sparse: for more hashes than sparseThreshold(), or an invalid or
  // duplicate one. The sparse hashes keep their order.
  static HyperLogLogPlusPlus fromDense(int64_t precision, std::vector<uint8_t> registers);
  static HyperLogLogPlusPlus fromSparse(int64_t precision, std::span<const uint32_t> hashes);

  // Same precision, representation, and contents (sparse: in the same order).
  bool operator==(const HyperLogLogPlusPlus& o) const {
    return p_ == o.p_ && dense_ == o.dense_ && sparseHashes() == o.sparseHashes() &&
           registers_ == o.registers_;
  }

  // ES's hashes: MurmurHash3 x64 128 (seed 0, first half) for bytes,
  // hppc's BitMixer.mix64 for longs (Stafford's variant 9:
  // shifts 32, 29, 32; multipliers 0x4cd6944c5cc20b6d, 0xfc12c5b19d3259e9).
  static uint64_t hashBytes(std::span<const uint8_t> bytes);
  static uint64_t hashLong(int64_t v);

  // The sparse encoding of a hash at precision p, and back (exposed for tests).
  static uint32_t encodeHash(uint64_t hash, int p);
  static uint32_t decodeIndex(uint32_t encoded, int p);
  static uint8_t decodeRunLength(uint32_t encoded, int p);

 private:
  void addEncoded(uint32_t encoded);
  // SparseTable::kGrowing's addEncoded (slot_table_ is the whole table).
  void addEncodedGrowing(uint32_t encoded);
  // The sparse hashes in write order, without allocating.
  template <class F>
  void forEachSparse(F&& f) const;
  uint32_t slotMask() const { return (uint32_t{1} << p_) / 4 - 1; }
  uint32_t slotAt(uint32_t slot) const;
  void setSlot(uint32_t slot, uint32_t encoded);
  void toDense();
  void setRegister(uint32_t index, uint8_t run_length) {
    if (registers_[index] < run_length) registers_[index] = run_length;
  }
  // Throws CorruptStreamError if `encoded` is not an output of encodeHash.
  static void checkEncoded(uint32_t encoded, int p);

  int p_;
  bool dense_ = false;
  bool growing_ = false;
  // As read (wire or JSON), until the first addition; with a set to refuse repeats.
  std::vector<uint32_t> read_order_;
  std::unordered_set<uint32_t> read_set_;
  // ES's hash table: slot -> encoded hash, in a map while sparse and in a
  // flat array of 2^p / 4 slots once it holds an eighth of them.
  std::map<uint32_t, uint32_t> slot_map_;
  std::vector<uint32_t> slot_table_;
  size_t slot_count_ = 0;
  std::vector<uint8_t> registers_;
};

}  // namespace wirestream::aggregations
