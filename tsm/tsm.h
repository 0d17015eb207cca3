// Batch block codecs byte-compatible with InfluxDB 1.x's TSM engine
// (tsdb/engine/tsm1/batch_*.go): a whole array becomes one block.
//
//   floats     Gorilla XOR, first value in full, NaN-terminated    (header 0x10)
//   integers   zig-zag deltas as simple8b (0x10), RLE (0x20) or uncompressed (0x00)
//   unsigned   the integer block over the same bits
//   timestamps unsigned deltas, divided by the largest common power of ten
//              1e12..1 (low header nibble = log10), as simple8b / RLE / uncompressed
//   booleans   count (uvarint) + bits, most significant first           (0x10)
//   strings    snappy over (uvarint length, bytes)*                      (0x10)
//
// docs/codecs.md has the byte layouts.
//
// Example (runs: tsm):
//   std::vector<int64_t> timestamps = {1700000000000, 1700000010000, 1700000020000};
//   std::vector<uint8_t> block;
//   wirestream::tsm::encodeTimeArray(timestamps, block);   // block replaced
//   std::vector<int64_t> back;
//   wirestream::tsm::decodeTimeArray(block, back);         // back replaced
//
// Every encoder replaces `out` with the block of `values`; the block of an
// empty array is what InfluxDB writes for it (zero bytes for integers, unsigned
// and timestamps). Every decoder replaces `out` with the values of a block and
// accepts zero bytes as an empty array. Decoders are readers of untrusted bytes:
// a malformed block throws a wirestream::StreamError subclass naming the
// problem (EndOfStreamError: the block ends inside a value; CorruptStreamError:
// an unknown encoding nibble, unused bits or bytes that are not zero or absent,
// an impossible bit count; LimitExceededError: more values than `max_values`).
// The value count is known before anything is reserved, and a decoder never
// holds more than max_values values: the RLE encodings make 20 bytes stand for
// any count, so the two-argument decoders cap a block at kDefaultMaxValues.
// On a throw `out` holds unspecified values.
//
// Stricter than InfluxDB's decoders, which ignore them: the unused low nibble of
// the header byte, nonzero unused bits of a simple8b word, bytes after the end
// of an RLE, float or boolean block, and padding bits after the float
// terminator are errors here (InfluxDB's encoders always write them as zero or
// not at all), as are a count of 0 values in a timestamp RLE block and a
// timestamp divisor above 1e12.
//
// Vector kernels: integer, unsigned and timestamp blocks compute their deltas,
// simple8b words and running sums with kernels compiled from one Highway
// source (tsm/tsm_kernels.cc) once per Highway target of simd/hwy_targets.h
// (x86: SSE4, AVX2, AVX3_DL = AVX-512 with VBMI; ARM: NEON; the same list as
// //simd, which Highway's dispatch needs). On first use Highway's dynamic dispatch
// picks the best target this CPU runs; WIRESTREAM_SIMD=scalar (read then)
// keeps the plain loops instead. Every target writes the same bytes and reads
// the same values: the tests run each against InfluxDB's expected blocks.
// Floats, booleans and strings have no vector kernel; the Gorilla encoder counts
// leading and trailing zeros with LZCNT/TZCNT where the CPU has them (x86), except
// under the scalar table.
//
// Thread-safety: the functions keep no shared state (encoders use a
// thread_local scratch buffer; the kernel choice is made once, atomically)
// and may run concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wirestream::tsm {

// Values the two-argument decoders accept from one block (16 Mi; 128 MiB of
// int64). InfluxDB writes at most 1,000 values a block.
inline constexpr size_t kDefaultMaxValues = size_t{1} << 24;

// Floats. Throws std::invalid_argument on a NaN (the format ends a block with
// one; InfluxDB's encoder rejects NaN too). Unlike InfluxDB's, +Inf and -Inf
// may appear anywhere (its encoder refuses a block whose tail sums to NaN).
void encodeFloatArray(std::span<const double> values, std::vector<uint8_t>& out);
void decodeFloatArray(std::span<const uint8_t> block, std::vector<double>& out);
void decodeFloatArray(std::span<const uint8_t> block, std::vector<double>& out, size_t max_values);

void encodeIntegerArray(std::span<const int64_t> values, std::vector<uint8_t>& out);
void decodeIntegerArray(std::span<const uint8_t> block, std::vector<int64_t>& out);
void decodeIntegerArray(std::span<const uint8_t> block, std::vector<int64_t>& out,
                        size_t max_values);

void encodeUnsignedArray(std::span<const uint64_t> values, std::vector<uint8_t>& out);
void decodeUnsignedArray(std::span<const uint8_t> block, std::vector<uint64_t>& out);
void decodeUnsignedArray(std::span<const uint8_t> block, std::vector<uint64_t>& out,
                         size_t max_values);

// Timestamps should be sorted: a decreasing step is a delta above simple8b's
// 2^60 - 1 and makes the whole block uncompressed (any order round-trips).
void encodeTimeArray(std::span<const int64_t> timestamps, std::vector<uint8_t>& out);
void decodeTimeArray(std::span<const uint8_t> block, std::vector<int64_t>& out);
void decodeTimeArray(std::span<const uint8_t> block, std::vector<int64_t>& out, size_t max_values);

void encodeBooleanArray(std::span<const bool> values, std::vector<uint8_t>& out);
void encodeBooleanArray(const std::vector<bool>& values, std::vector<uint8_t>& out);
void decodeBooleanArray(std::span<const uint8_t> block, std::vector<bool>& out);
void decodeBooleanArray(std::span<const uint8_t> block, std::vector<bool>& out, size_t max_values);
// The same blocks with one byte a value (0 false, anything else true on
// encode; 0 or 1 on decode): no std::vector<bool> proxy, 8 values a store.
void encodeBooleanBytes(std::span<const uint8_t> values, std::vector<uint8_t>& out);
void decodeBooleanBytes(std::span<const uint8_t> block, std::vector<uint8_t>& out,
                        size_t max_values = kDefaultMaxValues);

// Strings are bytes (no UTF-8 check). The snappy bytes come from libsnappy, a
// valid snappy stream that InfluxDB decodes, but not always the bytes Go's
// snappy encoder would choose for the same input (the decoded payload is).
void encodeStringArray(std::span<const std::string> values, std::vector<uint8_t>& out);
void encodeStringArray(std::span<const std::string_view> values, std::vector<uint8_t>& out);
void decodeStringArray(std::span<const uint8_t> block, std::vector<std::string>& out);
void decodeStringArray(std::span<const uint8_t> block, std::vector<std::string>& out,
                       size_t max_values);
// The fast form: the strings as views into `buffer`, which receives the
// block's decoded bytes (its capacity reused from block to block), with no
// allocation per value, as InfluxDB's Go slices one decoded buffer. The views
// stay valid until `buffer` is changed or destroyed.
//
// Example (runs: tsm_string_views):
//   std::vector<std::string> strings = {"cpu", "disk"};
//   std::vector<uint8_t> block;
//   wirestream::tsm::encodeStringArray(strings, block);
//   std::string buffer;
//   std::vector<std::string_view> values;
//   wirestream::tsm::decodeStringViews(block, buffer, values);  // values[1] == "disk"
void decodeStringViews(std::span<const uint8_t> block, std::string& buffer,
                       std::vector<std::string_view>& out, size_t max_values = kDefaultMaxValues);

}  // namespace wirestream::tsm
