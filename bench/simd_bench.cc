// Benchmarks of the SIMD batch codecs, one row per dispatch level:
//   BM_WriteVIntArray_<Level>_Mixed/N   StreamOutput::writeVIntArray
//   BM_ReadVIntArray_<Level>_Mixed/N    StreamInput::readVIntArray
//   BM_WriteVLongArray_<Level>_Mixed/N  StreamOutput::writeVLongArray
//   BM_ByteStreamSplit{Encode,Decode}_<Level>_{Double,Float}/N  the raw kernels
//   BM_{Write,Read}String_<Level>_{Ascii,Accents}/N     the ASCII scan in use
// with Level = Scalar, Sse4, Avx2, Avx512 (levels the CPU lacks are not
// registered, so Avx512 rows appear only on a CPU with AVX-512),
// beside the per-value loop (the baseline: writeVInt / readVInt one by one)
// and memcpy of the same bytes (the bound), at 1 K, 64 K and 1 M elements.
// "Mixed": VInt widths uniform over 1..5 bytes, VLong widths over 1..9 bytes,
// the worst case for the per-value path's branch on the width. Small arrays
// rotate through several inputs (64K values in all): with one 1K array the
// branch predictor learns the whole sequence and the baseline looks 5x faster
// than it is on real traffic.
//
//   bazel run -c opt //bench:simd_bench -- --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true      (one command line)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "simd/simd.h"
#include "stream/bytes_stream_output.h"
#include "stream/stream_input.h"

namespace wirestream {
namespace {

constexpr int64_t kSizes[] = {1 << 10, 1 << 16, 1 << 20};

// How many different inputs a benchmark of n values rotates through.
size_t variants(size_t n) { return std::clamp<size_t>((size_t{1} << 16) / n, 1, 64); }

std::vector<int32_t> mixedVInts(size_t n, uint64_t seed = 42) {
  std::mt19937_64 rng(seed);
  std::vector<int32_t> out(n);
  for (auto& v : out) {
    uint64_t r = rng();
    int width = static_cast<int>(r % 5);
    uint32_t bits = static_cast<uint32_t>(r >> 32);
    v = static_cast<int32_t>(width == 4 ? bits | 0x80000000u : bits >> (32 - 7 * (width + 1)));
  }
  return out;
}

std::vector<int64_t> mixedVLongs(size_t n, uint64_t seed = 43) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> out(n);
  for (auto& v : out) {
    uint64_t r = rng();
    int width = static_cast<int>(rng() % 9);
    v = static_cast<int64_t>((r >> (64 - 7 * (width + 1))) & 0x7fffffffffffffffULL);
  }
  return out;
}

std::vector<double> doubles(size_t n) {
  std::mt19937_64 rng(44);
  std::vector<double> out(n);
  for (auto& v : out) v = std::ldexp(static_cast<double>(rng() % 1000000), -10);
  return out;
}

std::vector<uint8_t> encodedVInts(const std::vector<int32_t>& values) {
  PageRecycler recycler;
  BytesStreamOutput out(recycler);
  out.writeArraySize(values.size());
  for (int32_t v : values) out.writeVInt(v);
  return out.bytes().toVector();
}

// Level nullopt = the per-value loop.
void writeVIntArray(benchmark::State& state, std::optional<simd::Level> level) {
  size_t n = static_cast<size_t>(state.range(0));
  std::vector<std::vector<int32_t>> inputs;
  for (size_t v = 0; v < variants(n); ++v) inputs.push_back(mixedVInts(n, 42 + v));
  if (level) simd::setLevel(*level);
  PageRecycler recycler;
  BytesStreamOutput out(recycler);
  size_t next = 0, bytes = 0;
  for (auto _ : state) {
    const auto& values = inputs[next];
    next = next + 1 == inputs.size() ? 0 : next + 1;
    out.reset();
    if (level) {
      out.writeVIntArray(values);
    } else {
      out.writeArraySize(values.size());
      for (int32_t v : values) out.writeVInt(v);
    }
    bytes += out.size();
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
  simd::setLevel(std::nullopt);
}

void readVIntArray(benchmark::State& state, std::optional<simd::Level> level) {
  size_t n = static_cast<size_t>(state.range(0));
  std::vector<std::vector<uint8_t>> inputs;
  for (size_t v = 0; v < variants(n); ++v) inputs.push_back(encodedVInts(mixedVInts(n, 42 + v)));
  if (level) simd::setLevel(*level);
  std::vector<int32_t> sink;
  size_t next = 0, bytes = 0;
  for (auto _ : state) {
    const auto& input = inputs[next];
    next = next + 1 == inputs.size() ? 0 : next + 1;
    ByteArrayStreamInput in(input);
    if (level) {
      sink = in.readVIntArray();
    } else {
      sink.assign(static_cast<size_t>(in.readArraySize(1)), 0);
      for (auto& v : sink) v = in.readVInt();
    }
    bytes += input.size();
    benchmark::DoNotOptimize(sink.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
  simd::setLevel(std::nullopt);
}

void writeVLongArray(benchmark::State& state, std::optional<simd::Level> level) {
  size_t n = static_cast<size_t>(state.range(0));
  std::vector<std::vector<int64_t>> inputs;
  for (size_t v = 0; v < variants(n); ++v) inputs.push_back(mixedVLongs(n, 43 + v));
  if (level) simd::setLevel(*level);
  PageRecycler recycler;
  BytesStreamOutput out(recycler);
  size_t next = 0, bytes = 0;
  for (auto _ : state) {
    const auto& values = inputs[next];
    next = next + 1 == inputs.size() ? 0 : next + 1;
    out.reset();
    if (level) {
      out.writeVLongArray(values);
    } else {
      out.writeArraySize(values.size());
      for (int64_t v : values) out.writeVLong(v);
    }
    bytes += out.size();
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
  simd::setLevel(std::nullopt);
}

// The raw ByteStreamSplit kernels over doubles, or floats (the same values
// narrowed).
template <typename T>
void splitEncode(benchmark::State& state, simd::Level level) {
  size_t n = static_cast<size_t>(state.range(0));
  auto d = doubles(n);
  std::vector<T> values(d.begin(), d.end());
  std::vector<uint8_t> out(sizeof(T) * n);
  const simd::Kernels& k = simd::kernelsFor(level);
  for (auto _ : state) {
    if constexpr (sizeof(T) == 8) {
      k.splitEncodeDoubles(values.data(), n, out.data());
    } else {
      k.splitEncodeFloats(values.data(), n, out.data());
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * sizeof(T) * n));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}

template <typename T>
void splitDecode(benchmark::State& state, simd::Level level) {
  size_t n = static_cast<size_t>(state.range(0));
  auto d = doubles(n);
  std::vector<T> values(d.begin(), d.end());
  std::vector<uint8_t> split(sizeof(T) * n);
  const simd::Kernels& scalar = simd::kernelsFor(simd::Level::kScalar);
  if constexpr (sizeof(T) == 8) {
    scalar.splitEncodeDoubles(values.data(), n, split.data());
  } else {
    scalar.splitEncodeFloats(values.data(), n, split.data());
  }
  std::vector<T> out(n);
  const simd::Kernels& k = simd::kernelsFor(level);
  for (auto _ : state) {
    if constexpr (sizeof(T) == 8) {
      k.splitDecodeDoubles(split.data(), n, out.data());
    } else {
      k.splitDecodeFloats(split.data(), n, out.data());
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * sizeof(T) * n));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}

// Text of about n bytes: ASCII words, and with `accents` one 2-byte letter in
// every 64 bytes or so (the vector scan then runs between them).
std::string text(size_t n, bool accents) {
  std::mt19937_64 rng(45);
  std::string out;
  while (out.size() < n) {
    if (accents && rng() % 8 == 0) out += "\xC3\xA9";
    for (int i = 0; i < 7; ++i) out += static_cast<char>('a' + rng() % 26);
    out += ' ';
  }
  return out;
}

// Strings: writeString / readString with the ASCII scan of `level`.
void writeString(benchmark::State& state, simd::Level level, bool accents) {
  std::string s = text(static_cast<size_t>(state.range(0)), accents);
  simd::setLevel(level);
  PageRecycler recycler;
  BytesStreamOutput out(recycler);
  for (auto _ : state) {
    out.reset();
    out.writeString(s);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * s.size()));
  simd::setLevel(std::nullopt);
}

void readString(benchmark::State& state, simd::Level level, bool accents) {
  std::string s = text(static_cast<size_t>(state.range(0)), accents);
  PageRecycler recycler;
  BytesStreamOutput out(recycler);
  out.writeString(s);
  std::vector<uint8_t> bytes = out.bytes().toVector();
  simd::setLevel(level);
  for (auto _ : state) {
    ByteArrayStreamInput in(bytes);
    std::string got = in.readString();
    benchmark::DoNotOptimize(got.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * s.size()));
  simd::setLevel(std::nullopt);
}

// The bound: copying the same number of bytes.
void memcpyBytes(benchmark::State& state, size_t bytes) {
  std::vector<uint8_t> src(bytes, 1), dst(bytes);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * state.range(0)));
}

std::string capitalized(simd::Level level) {
  std::string name = simd::levelName(level);
  name[0] = static_cast<char>(name[0] - 'a' + 'A');
  return name;
}

template <typename Fn>
void registerSizes(const std::string& name, Fn fn) {
  auto* b = benchmark::RegisterBenchmark(name.c_str(), fn);
  for (int64_t n : kSizes) b->Arg(n);
}

int registerAll() {
  using Opt = std::optional<simd::Level>;
  registerSizes("BM_WriteVIntArray_PerValue_Mixed",
                [](benchmark::State& s) { writeVIntArray(s, Opt()); });
  registerSizes("BM_ReadVIntArray_PerValue_Mixed",
                [](benchmark::State& s) { readVIntArray(s, Opt()); });
  registerSizes("BM_WriteVLongArray_PerValue_Mixed",
                [](benchmark::State& s) { writeVLongArray(s, Opt()); });
  for (simd::Level level : simd::supportedLevels()) {
    std::string l = capitalized(level);
    registerSizes("BM_WriteVIntArray_" + l + "_Mixed",
                  [level](benchmark::State& s) { writeVIntArray(s, level); });
    registerSizes("BM_ReadVIntArray_" + l + "_Mixed",
                  [level](benchmark::State& s) { readVIntArray(s, level); });
    registerSizes("BM_WriteVLongArray_" + l + "_Mixed",
                  [level](benchmark::State& s) { writeVLongArray(s, level); });
    registerSizes("BM_ByteStreamSplitEncode_" + l + "_Double",
                  [level](benchmark::State& s) { splitEncode<double>(s, level); });
    registerSizes("BM_ByteStreamSplitDecode_" + l + "_Double",
                  [level](benchmark::State& s) { splitDecode<double>(s, level); });
    registerSizes("BM_ByteStreamSplitEncode_" + l + "_Float",
                  [level](benchmark::State& s) { splitEncode<float>(s, level); });
    registerSizes("BM_ByteStreamSplitDecode_" + l + "_Float",
                  [level](benchmark::State& s) { splitDecode<float>(s, level); });
  }
  for (simd::Level level : simd::supportedLevels()) {
    std::string l = capitalized(level);
    for (bool accents : {false, true}) {
      std::string kind = accents ? "_Accents" : "_Ascii";
      benchmark::RegisterBenchmark(
          ("BM_WriteString_" + l + kind).c_str(),
          [level, accents](benchmark::State& s) { writeString(s, level, accents); })
          ->Arg(1 << 10)
          ->Arg(1 << 16);
      benchmark::RegisterBenchmark(
          ("BM_ReadString_" + l + kind).c_str(),
          [level, accents](benchmark::State& s) { readString(s, level, accents); })
          ->Arg(1 << 10)
          ->Arg(1 << 16);
    }
  }
  registerSizes("BM_Memcpy_VIntMixed", [](benchmark::State& s) {
    memcpyBytes(s, encodedVInts(mixedVInts(static_cast<size_t>(s.range(0)))).size());
  });
  registerSizes("BM_Memcpy_Double",
                [](benchmark::State& s) { memcpyBytes(s, 8 * static_cast<size_t>(s.range(0))); });
  return 0;
}

const int registered = registerAll();

}  // namespace
}  // namespace wirestream
