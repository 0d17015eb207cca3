// TSM block codecs (tsm/tsm.h) beside the per-value stream encodings and
// general-purpose compressors, on the 1,000-value block shapes of InfluxDB's
// batch_*_test.go benchmarks:
//
//   BM_Tsm<Type>{Encode,Decode}_<Impl>_<Case>
//     Impl  Block   our TSM block
//           Stream  per value into a BytesStreamOutput / from a ByteArrayStreamInput:
//                   writeZLong (integers), writeVLong (timestamps), writeDouble,
//                   writeBoolean, writeString
//           Lz4     LZ4_compress_default over the plain bytes (8 per value; for
//                   strings: uvarint length + bytes), LZ4_decompress_safe back
//           Zstd    ZSTD_compress level 1 over the same bytes, ZSTD_decompress back
//     Case  integers:   Seq (i), Packed (i + rand 0..9), Random (uniform int64)
//           timestamps: Seq (i), Packed (i*1000 + rand 0..9), Seconds (1 s steps in ns
//                       plus up to 1 ms of jitter), Random (uniform, unsorted)
//           floats:     Seq (float64(i)), Walk (a 2-decimal random walk like the
//                       twoHoursData gauge)
//           booleans:   Random; strings: Uuid (36-character UUID text), decoded
//                       also as views into one buffer (BlockViews)
//
//   BM_TsmSimple8bSums_<Target>/<selector>   1,000 values, every word of one selector
//     (random values of its full width), unpacked into zig-zag running sums by the
//     kernel table of that target (scalar, SSE4, AVX2, ...): where the vector
//     kernels pay and where they leave words to the scalar loop.
//
// Items are values; the bytes_per_value counter is the encoded size; each
// Encode_Block benchmark's label is its block's FNV-1a (bench/go_peer/run.py checks
// InfluxDB's Go blocks against it). Inputs are built once from a fixed seed outside
// the timed loops; bench/go_peer/main.go draws the same ones.
#include <benchmark/benchmark.h>
#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "codec/byte_order.h"
#include "stream/bytes_stream_output.h"
#include "stream/stream_input.h"
#include "stream/varint.h"
#include "tsm/internal.h"
#include "tsm/tsm.h"
#include "tsm/tsm_kernels.h"

namespace wirestream::bench {
namespace {

constexpr size_t kValues = 1000;
constexpr uint64_t kSeed = 0x75a1000;
using Bytes = std::vector<uint8_t>;

// FNV-1a of a block, in hex: the label of each Encode_Block benchmark.
std::string fnv1a(const Bytes& b) {
  uint64_t h = 14695981039346656037ull;
  for (uint8_t c : b) h = (h ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

template <typename T>
Bytes plainBytes(const std::vector<T>& v) {
  Bytes b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

Bytes plainBytes(const std::vector<bool>& v) { return Bytes(v.begin(), v.end()); }

Bytes plainBytes(const std::vector<std::string>& v) {
  Bytes b;
  for (const std::string& s : v) {
    uint8_t len[10];
    b.insert(b.end(), len, encodeVLong(len, s.size()));
    b.insert(b.end(), s.begin(), s.end());
  }
  return b;
}

void setCounters(benchmark::State& state, size_t encoded) {
  state.SetItemsProcessed(int64_t(state.iterations()) * kValues);
  state.counters["bytes_per_value"] = double(encoded) / kValues;
}

// LZ4 and zstd over the plain bytes: compress, and decompress back.
void registerCompressors(const std::string& type, const std::string& name, const Bytes& plain) {
  auto lz4 = std::make_shared<Bytes>(LZ4_compressBound(int(plain.size())));
  lz4->resize(LZ4_compress_default(reinterpret_cast<const char*>(plain.data()),
                                   reinterpret_cast<char*>(lz4->data()), int(plain.size()),
                                   int(lz4->size())));
  auto zstd = std::make_shared<Bytes>(ZSTD_compressBound(plain.size()));
  zstd->resize(ZSTD_compress(zstd->data(), zstd->size(), plain.data(), plain.size(), 1));
  auto input = std::make_shared<Bytes>(plain);
  benchmark::RegisterBenchmark(
      ("BM_Tsm" + type + "Encode_Lz4_" + name).c_str(), [input, lz4](benchmark::State& state) {
        Bytes out(LZ4_compressBound(int(input->size())));
        for (auto _ : state) {
          int n = LZ4_compress_default(reinterpret_cast<const char*>(input->data()),
                                       reinterpret_cast<char*>(out.data()), int(input->size()),
                                       int(out.size()));
          benchmark::DoNotOptimize(n);
        }
        setCounters(state, lz4->size());
      });
  benchmark::RegisterBenchmark(
      ("BM_Tsm" + type + "Decode_Lz4_" + name).c_str(), [input, lz4](benchmark::State& state) {
        Bytes out(input->size());
        for (auto _ : state) {
          int n = LZ4_decompress_safe(reinterpret_cast<const char*>(lz4->data()),
                                      reinterpret_cast<char*>(out.data()), int(lz4->size()),
                                      int(out.size()));
          benchmark::DoNotOptimize(n);
        }
        setCounters(state, lz4->size());
      });
  benchmark::RegisterBenchmark(
      ("BM_Tsm" + type + "Encode_Zstd_" + name).c_str(), [input, zstd](benchmark::State& state) {
        Bytes out(ZSTD_compressBound(input->size()));
        ZSTD_CCtx* ctx = ZSTD_createCCtx();
        for (auto _ : state) {
          size_t n =
              ZSTD_compressCCtx(ctx, out.data(), out.size(), input->data(), input->size(), 1);
          benchmark::DoNotOptimize(n);
        }
        ZSTD_freeCCtx(ctx);
        setCounters(state, zstd->size());
      });
  benchmark::RegisterBenchmark(
      ("BM_Tsm" + type + "Decode_Zstd_" + name).c_str(), [input, zstd](benchmark::State& state) {
        Bytes out(input->size());
        ZSTD_DCtx* ctx = ZSTD_createDCtx();
        for (auto _ : state) {
          size_t n = ZSTD_decompressDCtx(ctx, out.data(), out.size(), zstd->data(), zstd->size());
          benchmark::DoNotOptimize(n);
        }
        ZSTD_freeDCtx(ctx);
        setCounters(state, zstd->size());
      });
}

// Our block and the per-value stream encoding of one type and case.
template <typename T, typename Enc, typename Dec, typename Write, typename Read>
void registerCase(const std::string& type, const std::string& name, std::vector<T> values,
                  Enc encode, Dec decode, Write write, Read read) {
  auto input = std::make_shared<std::vector<T>>(std::move(values));
  auto block = std::make_shared<Bytes>();
  encode(*input, *block);
  BytesStreamOutput stream_out;
  for (const T& v : *input) write(stream_out, v);
  auto stream = std::make_shared<Bytes>(stream_out.bytes().toVector());

  benchmark::RegisterBenchmark(("BM_Tsm" + type + "Encode_Block_" + name).c_str(),
                               [=](benchmark::State& state) {
                                 Bytes out;
                                 for (auto _ : state) {
                                   encode(*input, out);
                                   benchmark::DoNotOptimize(out.data());
                                 }
                                 setCounters(state, block->size());
                                 // bench/go_peer/run.py checks InfluxDB's block against it.
                                 state.SetLabel("fnv1a " + fnv1a(out));
                               });
  benchmark::RegisterBenchmark(("BM_Tsm" + type + "Decode_Block_" + name).c_str(),
                               [=](benchmark::State& state) {
                                 std::vector<T> out;
                                 for (auto _ : state) {
                                   decode(*block, out);
                                   benchmark::DoNotOptimize(out);
                                 }
                                 if (out != *input) state.SkipWithError("round trip differs");
                                 setCounters(state, block->size());
                               });
  benchmark::RegisterBenchmark(("BM_Tsm" + type + "Encode_Stream_" + name).c_str(),
                               [=](benchmark::State& state) {
                                 BytesStreamOutput out;
                                 for (auto _ : state) {
                                   out.reset();
                                   for (const T& v : *input) write(out, v);
                                   benchmark::ClobberMemory();
                                 }
                                 setCounters(state, stream->size());
                               });
  benchmark::RegisterBenchmark(("BM_Tsm" + type + "Decode_Stream_" + name).c_str(),
                               [=](benchmark::State& state) {
                                 std::vector<T> out(input->size());
                                 for (auto _ : state) {
                                   ByteArrayStreamInput in(*stream);
                                   for (size_t i = 0; i < out.size(); ++i) out[i] = read(in);
                                   benchmark::DoNotOptimize(out);
                                 }
                                 setCounters(state, stream->size());
                               });
  registerCompressors(type, name, plainBytes(*input));
}

void registerIntegers(const std::string& name, std::vector<int64_t> v) {
  registerCase<int64_t>(
      "Integer", name, std::move(v),
      [](const std::vector<int64_t>& in, Bytes& out) { tsm::encodeIntegerArray(in, out); },
      [](const Bytes& b, std::vector<int64_t>& out) { tsm::decodeIntegerArray(b, out); },
      [](StreamOutput& o, int64_t x) { o.writeZLong(x); },
      [](StreamInput& in) { return in.readZLong(); });
}

void registerTimestamps(const std::string& name, std::vector<int64_t> v) {
  registerCase<int64_t>(
      "Time", name, std::move(v),
      [](const std::vector<int64_t>& in, Bytes& out) { tsm::encodeTimeArray(in, out); },
      [](const Bytes& b, std::vector<int64_t>& out) { tsm::decodeTimeArray(b, out); },
      [](StreamOutput& o, int64_t x) { o.writeVLong(x); },
      [](StreamInput& in) { return in.readVLong(); });
}

void registerFloats(const std::string& name, std::vector<double> v) {
  registerCase<double>(
      "Float", name, std::move(v),
      [](const std::vector<double>& in, Bytes& out) { tsm::encodeFloatArray(in, out); },
      [](const Bytes& b, std::vector<double>& out) { tsm::decodeFloatArray(b, out); },
      [](StreamOutput& o, double x) { o.writeDouble(x); },
      [](StreamInput& in) { return in.readDouble(); });
}

// Words of one selector holding at least kValues values.
Bytes wordsOfSelector(int s, std::mt19937_64& rng, size_t& count) {
  constexpr int kCount[16] = {240, 120, 60, 30, 20, 15, 12, 10, 8, 7, 6, 5, 4, 3, 2, 1};
  constexpr int kBits[16] = {0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 30, 60};
  const size_t words = (kValues + kCount[s] - 1) / kCount[s];
  Bytes out(8 * words);
  for (size_t i = 0; i < words; ++i) {
    uint64_t w = uint64_t(s) << 60;
    for (int j = 0; s >= 2 && j < kCount[s]; ++j) {
      w |= (rng() & ((uint64_t{1} << kBits[s]) - 1)) << (j * kBits[s]);
    }
    codec::storeBig64(out.data() + 8 * i, w);
  }
  count = words * kCount[s];
  return out;
}

void registerSimple8bSums(std::mt19937_64& rng) {
  for (size_t t = 0; t < tsm::internal::kernelTableCount(); ++t) {
    const tsm::internal::Kernels* table = &tsm::internal::kernelTable(t);
    for (int s = 0; s < 16; ++s) {
      size_t count = 0;
      auto words = std::make_shared<Bytes>(wordsOfSelector(s, rng, count));
      benchmark::RegisterBenchmark(
          ("BM_TsmSimple8bSums_" + std::string(table->name) + "/" + std::to_string(s)).c_str(),
          [=](benchmark::State& state) {
            std::vector<uint64_t> out(count);
            tsm::internal::useKernels(table);
            for (auto _ : state) {
              tsm::internal::decodeZigZagSums(*words, out.data(), count, 0);
              benchmark::DoNotOptimize(out.data());
            }
            tsm::internal::useKernels(nullptr);
            state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(count));
          });
    }
  }
}

const bool kRegistered = [] {
  std::mt19937_64 rng(kSeed);
  std::vector<int64_t> seq(kValues), packed(kValues), random(kValues);
  for (size_t i = 0; i < kValues; ++i) {
    seq[i] = int64_t(i);
    packed[i] = int64_t(i) + int64_t(rng() % 10);
    random[i] = int64_t(rng());
  }
  registerIntegers("Seq", seq);
  registerIntegers("Packed", packed);
  registerIntegers("Random", random);

  std::vector<int64_t> tpacked(kValues), seconds(kValues), trandom(kValues);
  const int64_t start = 1764547200000000000;  // 2025-12-01T00:00:00Z in ns
  for (size_t i = 0; i < kValues; ++i) {
    tpacked[i] = int64_t(i) * 1000 + int64_t(rng() % 10);
    seconds[i] = start + int64_t(i) * 1000000000 + int64_t(rng() % 1000000);
    trandom[i] = int64_t(rng() >> 1);
  }
  registerTimestamps("Seq", seq);
  registerTimestamps("Packed", tpacked);
  registerTimestamps("Seconds", seconds);
  registerTimestamps("Random", trandom);

  std::vector<double> fseq(kValues), walk(kValues);
  double x = 62.5;
  for (size_t i = 0; i < kValues; ++i) {
    fseq[i] = double(i);
    x += double(int(rng() % 21) - 10) / 100;
    walk[i] = double(std::llround(x * 100)) / 100;
  }
  registerFloats("Seq", fseq);
  registerFloats("Walk", walk);

  std::vector<bool> bools(kValues);
  for (size_t i = 0; i < kValues; ++i) bools[i] = rng() & 1;
  registerCase<bool>(
      "Boolean", "Random", bools,
      [](const std::vector<bool>& in, Bytes& out) { tsm::encodeBooleanArray(in, out); },
      [](const Bytes& b, std::vector<bool>& out) { tsm::decodeBooleanArray(b, out); },
      [](StreamOutput& o, bool v) { o.writeBoolean(v); },
      [](StreamInput& in) { return in.readBoolean(); });
  // The byte-per-value variant of the same blocks (no vector<bool> proxy).
  std::vector<uint8_t> bool_bytes(bools.begin(), bools.end());
  registerCase<uint8_t>(
      "BooleanBytes", "Random", bool_bytes,
      [](const std::vector<uint8_t>& in, Bytes& out) { tsm::encodeBooleanBytes(in, out); },
      [](const Bytes& b, std::vector<uint8_t>& out) { tsm::decodeBooleanBytes(b, out); },
      [](StreamOutput& o, uint8_t v) { o.writeBoolean(v != 0); },
      [](StreamInput& in) { return uint8_t(in.readBoolean()); });

  std::vector<std::string> uuids(kValues);
  for (auto& s : uuids) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%08x-%04x-11ee-%04x-%012llx", unsigned(rng()),
                  unsigned(rng() & 0xFFFF), unsigned(0x8000 | (rng() & 0x3FFF)),
                  static_cast<unsigned long long>(rng() & 0xFFFFFFFFFFFFull));
    s = buf;
  }
  registerCase<std::string>(
      "String", "Uuid", uuids,
      [](const std::vector<std::string>& in, Bytes& out) { tsm::encodeStringArray(in, out); },
      [](const Bytes& b, std::vector<std::string>& out) { tsm::decodeStringArray(b, out); },
      [](StreamOutput& o, const std::string& v) { o.writeString(v); },
      [](StreamInput& in) { return in.readString(); });
  // The views form: one buffer for the block, no std::string per value.
  auto uuid_block = std::make_shared<Bytes>();
  tsm::encodeStringArray(uuids, *uuid_block);
  benchmark::RegisterBenchmark("BM_TsmStringDecode_BlockViews_Uuid", [=](benchmark::State& state) {
    std::string buffer;
    std::vector<std::string_view> out;
    for (auto _ : state) {
      tsm::decodeStringViews(*uuid_block, buffer, out);
      benchmark::DoNotOptimize(out.data());
    }
    if (!std::equal(out.begin(), out.end(), uuids.begin(), uuids.end())) {
      state.SkipWithError("round trip differs");
    }
    setCounters(state, uuid_block->size());
  });
  registerSimple8bSums(rng);
  return true;
}();

}  // namespace
}  // namespace wirestream::bench
