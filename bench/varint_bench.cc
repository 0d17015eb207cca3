// writeVInt / readVInt side by side: our StreamOutput / StreamInput, protobuf
// 3.21's CodedOutputStream / CodedInputStream, and two ablations of the write
// side (the ones the Elasticsearch reviewers argued about):
//
//   BM_WriteVInt_Wirestream_<Case>  writeVInt into a BytesStreamOutput: the
//                                   inline one-byte branch, else the width
//                                   switch (encodeVInt) straight into the page
//   BM_WriteVInt_Protobuf_<Case>    CodedOutputStream::WriteVarint32 into an
//                                   ArrayOutputStream over a flat buffer
//   BM_WriteVInt_EsLoop_<Case>      fast path off: ES before its fast path, a
//                                   byte-at-a-time loop into a scratch buffer,
//                                   then writeBytes(scratch, n)
//   BM_WriteVInt_Unrolled_<Case>    the fully unrolled width switch
//                                   (encodeVInt) into a scratch buffer, then
//                                   writeBytes: unrolling without the inline
//                                   direct-to-page path
//   BM_WriteVInt_WirestreamCursor_<Case>  writeVInt through a
//                                   StreamOutput::Cursor over the same output:
//                                   what aggregations' inner loops use
//   BM_WriteVInt_WirestreamReserved_<Case>  Cursor::writeEach: the room for
//                                   a run of values checked once, then
//                                   unchecked writes (the per-value loop of
//                                   an aggregation column), into one page
//                                   that holds the whole pass
//   BM_WriteVInt_ProtobufArray_<Case>  CodedOutputStream::WriteVarint32ToArray,
//                                   the pointer-passing form protobuf's
//                                   generated code uses (no bounds check at
//                                   all: a lower bound), into the same page
//   BM_WriteVInt_ProtobufArrayUnrolled_<Case>  the same, the caller's loop
//                                   unrolled by four as writeEach's run is
//   BM_ReadVInt_{Wirestream,Protobuf}_<Case>  readVInt from a
//                                   ByteArrayStreamInput / ReadVarint32 from a
//                                   CodedInputStream over the same bytes
//   BM_ReadVInt_WirestreamCursor_<Case>  readVInt through a
//                                   StreamInput::Cursor
//   BM_ReadVInt_WirestreamReserved_<Case>  Cursor::readEach: the bytes of a
//                                   run checked once, then unchecked reads
//   BM_ReadVInt_ProtobufArray_<Case>  VarintParse, the pointer-passing parse of
//                                   protobuf's generated code
//   BM_ReadVInt_ProtobufArrayUnrolled_<Case>  the same, the caller's loop
//                                   unrolled by four as readEach's run is
//
// Cases: OneByte, Mixed, FiveByte, Geometric, kVarintValues (64 Ki) values
// each (bench/inputs.h, which says how they are drawn and why 64 Ki), drawn
// once outside the timed loop; every implementation gets the same values and
// (checked at setup) produces the same bytes. The output is reused with
// reset(): its pages go back to the recycler and come again, so the write
// loops measure encoding and page crossings, not page allocation. (Not
// seek(0): writing below the furthest position written takes the careful
// path that keeps the bytes after each value; see BytesStreamOutput.)
#include <benchmark/benchmark.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/parse_context.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench/inputs.h"
#include "stream/bytes_stream_output.h"
#include "stream/page_recycler.h"
#include "stream/stream_input.h"
#include "stream/varint.h"

namespace wirestream::bench {
namespace {

using google::protobuf::io::CodedOutputStream;

const std::vector<Workload>& workloads() {
  static const bool announced = [] {
    std::fprintf(stderr, "varint_bench: %zu values per case, seed 0x%x\n", kVarintValues,
                 kVarintSeed);
    return true;
  }();
  (void)announced;
  return varintWorkloads();
}

void setThroughput(benchmark::State& state, const Workload& w) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * w.values.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * w.encoded.size()));
}

// Every writer must have produced exactly the reference bytes.
void checkOutput(benchmark::State& state, const Workload& w, std::span<const uint8_t> written) {
  if (written.size() != w.encoded.size() ||
      !std::equal(written.begin(), written.end(), w.encoded.begin())) {
    state.SkipWithError("output differs from the reference encoding");
  }
}

// Runs one pass over the values out of line, so that callgrind can count the
// instructions of exactly the loop (--toggle-collect='*valueLoop*'); one
// call per iteration costs nothing next to 64 Ki values.
template <typename F>
[[gnu::noinline]] auto valueLoop(F&& loop) {
  return loop();
}

// ---- the write ablations ----

inline void writeVIntEsLoop(StreamOutput& out, uint32_t v) {
  uint8_t scratch[kMaxVIntBytes];
  size_t n = 0;
  while ((v & ~0x7Fu) != 0) {
    scratch[n++] = static_cast<uint8_t>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  scratch[n++] = static_cast<uint8_t>(v);
  // Tells the compiler what it cannot see, or -Warray-bounds flags the
  // 8..16-byte branch of the inline copy in writeBytes.
  if (n > sizeof scratch) __builtin_unreachable();
  out.writeBytes({scratch, n});
}

inline void writeVIntUnrolled(StreamOutput& out, uint32_t v) {
  uint8_t scratch[kMaxVIntBytes];
  size_t n = static_cast<size_t>(encodeVInt(scratch, v) - scratch);
  if (n > sizeof scratch) __builtin_unreachable();  // as in writeVIntEsLoop
  out.writeBytes({scratch, n});
}

template <typename WriteFn>
void writeIntoBytesStream(benchmark::State& state, const Workload& w, WriteFn write) {
  BytesStreamOutput out;
  for (auto _ : state) {
    out.reset();
    valueLoop([&] {
      for (uint32_t v : w.values) write(out, v);
    });
    benchmark::ClobberMemory();
  }
  checkOutput(state, w, out.bytes().toVector());
  setThroughput(state, w);
}

void BM_WriteVInt_Wirestream(benchmark::State& state, const Workload& w) {
  writeIntoBytesStream(
      state, w, [](BytesStreamOutput& out, uint32_t v) { out.writeVInt(static_cast<int32_t>(v)); });
}

void BM_WriteVInt_EsLoop(benchmark::State& state, const Workload& w) {
  writeIntoBytesStream(state, w,
                       [](BytesStreamOutput& out, uint32_t v) { writeVIntEsLoop(out, v); });
}

void BM_WriteVInt_Unrolled(benchmark::State& state, const Workload& w) {
  writeIntoBytesStream(state, w,
                       [](BytesStreamOutput& out, uint32_t v) { writeVIntUnrolled(out, v); });
}

// Page-aligned, like the recycler's pages are cache-line aligned: with
// wherever the heap put a vector, protobuf's OneByte time moved between
// ~33 and ~75 us from one process to the next.
struct AlignedBuffer {
  static constexpr std::align_val_t kPage{4096};
  explicit AlignedBuffer(size_t n) : data(static_cast<uint8_t*>(::operator new[](n, kPage))) {}
  ~AlignedBuffer() { ::operator delete[](data, kPage); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  uint8_t* data;
};

void BM_WriteVInt_Protobuf(benchmark::State& state, const Workload& w) {
  namespace io = google::protobuf::io;
  AlignedBuffer storage(w.encoded.size());
  std::span<uint8_t> buffer(storage.data, w.encoded.size());
  size_t written = 0;
  for (auto _ : state) {
    io::ArrayOutputStream array(buffer.data(), static_cast<int>(buffer.size()));
    io::CodedOutputStream coded(&array);
    valueLoop([&] {
      for (uint32_t v : w.values) coded.WriteVarint32(v);
    });
    coded.Trim();
    written = static_cast<size_t>(coded.ByteCount());
    benchmark::ClobberMemory();
  }
  checkOutput(state, w, {buffer.data(), written});
  setThroughput(state, w);
}

void BM_WriteVInt_WirestreamCursor(benchmark::State& state, const Workload& w) {
  BytesStreamOutput out;
  for (auto _ : state) {
    out.reset();
    valueLoop([&] {
      StreamOutput::Cursor c(out);
      for (uint32_t v : w.values) c.writeVInt(static_cast<int32_t>(v));
    });
    benchmark::ClobberMemory();
  }
  checkOutput(state, w, out.bytes().toVector());
  setThroughput(state, w);
}

// The sink of the two per-value loops below, the same for both: one recycler
// page that holds a whole pass at the widest (kMaxVIntBytes a value plus a
// run's slop). Each pass gives back the last pass's page, then takes it again
// inside valueLoop (ours in its first write, protobuf's before its loop), so
// both write the same memory with the same per-pass work and neither crosses
// a page; page crossings are in the Cursor and Wirestream benchmarks.
PageRecycler& flatRecycler() {
  constexpr size_t kBytes = kMaxVIntBytes * kVarintValues + StreamOutput::kReservedSlop;
  static PageRecycler* recycler = new PageRecycler((kBytes + 4095) / 4096 * 4096);
  return *recycler;
}

void BM_WriteVInt_WirestreamReserved(benchmark::State& state, const Workload& w) {
  BytesStreamOutput out(flatRecycler());
  for (auto _ : state) {
    out.reset();
    valueLoop([&] {
      StreamOutput::Cursor c(out);
      c.writeEach(w.values, kMaxVIntBytes,
                  [](auto& o, uint32_t v) { o.writeVInt(static_cast<int32_t>(v)); });
    });
    benchmark::ClobberMemory();
  }
  if (out.pageCount() > 1) state.SkipWithError("a pass took more than one page");
  checkOutput(state, w, out.bytes().toVector());
  setThroughput(state, w);
}

// pass(page) writes the values from `page` on and returns the end; the page
// is taken inside valueLoop, as BytesStreamOutput takes it in its first write.
template <typename Pass>
void writeIntoFlatPage(benchmark::State& state, const Workload& w, Pass pass) {
  PageRecycler& recycler = flatRecycler();
  uint8_t* page = nullptr;
  uint8_t* end = nullptr;
  for (auto _ : state) {
    if (page != nullptr) recycler.release(page);
    end = valueLoop([&] {
      page = recycler.obtain();
      return pass(page);
    });
    benchmark::ClobberMemory();
  }
  checkOutput(state, w, {page, static_cast<size_t>(end - page)});
  if (page != nullptr) recycler.release(page);
  setThroughput(state, w);
}

void BM_WriteVInt_ProtobufArray(benchmark::State& state, const Workload& w) {
  writeIntoFlatPage(state, w, [&w](uint8_t* p) {
    for (uint32_t v : w.values) p = CodedOutputStream::WriteVarint32ToArray(v, p);
    return p;
  });
}

// The same, with the caller's loop unrolled by four as writeEach's run is:
// how much of the difference is the loop and how much the encoder.
void BM_WriteVInt_ProtobufArrayUnrolled(benchmark::State& state, const Workload& w) {
  writeIntoFlatPage(state, w, [&w](uint8_t* p) {
    const uint32_t* v = w.values.data();
    const uint32_t* stop = v + w.values.size();
    for (; stop - v >= 4; v += 4) {
      p = CodedOutputStream::WriteVarint32ToArray(v[0], p);
      p = CodedOutputStream::WriteVarint32ToArray(v[1], p);
      p = CodedOutputStream::WriteVarint32ToArray(v[2], p);
      p = CodedOutputStream::WriteVarint32ToArray(v[3], p);
    }
    for (; v != stop; ++v) p = CodedOutputStream::WriteVarint32ToArray(*v, p);
    return p;
  });
}

// ---- reads ----
//
// Each read loop sums the values into a local, added to `sum` once a pass:
// `sum` escapes (DoNotOptimize), so a `sum +=` per value is a load, add and
// store to memory, a loop-carried chain of ~6 cycles through store
// forwarding that capped every reader at the same speed on one-byte values.

// One of our readers: pass(in) reads every value of a fresh input over the
// encoding and returns their sum.
template <typename Pass>
void readOurs(benchmark::State& state, const Workload& w, Pass pass) {
  uint32_t sum = 0;
  for (auto _ : state) {
    ByteArrayStreamInput in(w.encoded);
    sum += valueLoop([&] { return pass(in); });
    benchmark::DoNotOptimize(sum);
  }
  setThroughput(state, w);
}

void BM_ReadVInt_Wirestream(benchmark::State& state, const Workload& w) {
  readOurs(state, w, [n = w.values.size()](StreamInput& in) {
    uint32_t s = 0;
    for (size_t i = 0; i < n; ++i) s += static_cast<uint32_t>(in.readVInt());
    return s;
  });
}

// protobuf's readers: the sum of the values, or nullopt if protobuf refused
// the bytes.
void BM_ReadVInt_Protobuf(benchmark::State& state, const Workload& w) {
  namespace io = google::protobuf::io;
  uint32_t sum = 0;
  for (auto _ : state) {
    io::CodedInputStream in(w.encoded.data(), static_cast<int>(w.encoded.size()));
    std::optional<uint32_t> pass = valueLoop([&]() -> std::optional<uint32_t> {
      uint32_t s = 0;
      for (size_t i = 0, n = w.values.size(); i < n; ++i) {
        uint32_t v;
        if (!in.ReadVarint32(&v)) [[unlikely]]
          return std::nullopt;
        s += v;
      }
      return s;
    });
    if (!pass) {
      state.SkipWithError("protobuf could not read the reference encoding");
      break;
    }
    sum += *pass;
    benchmark::DoNotOptimize(sum);
  }
  setThroughput(state, w);
}

void BM_ReadVInt_WirestreamCursor(benchmark::State& state, const Workload& w) {
  readOurs(state, w, [n = w.values.size()](StreamInput& in) {
    uint32_t s = 0;
    StreamInput::Cursor c(in);
    for (size_t i = 0; i < n; ++i) s += static_cast<uint32_t>(c.readVInt());
    return s;
  });
}

void BM_ReadVInt_WirestreamReserved(benchmark::State& state, const Workload& w) {
  readOurs(state, w, [n = w.values.size()](StreamInput& in) {
    uint32_t s = 0;
    StreamInput::Cursor c(in);
    c.readEach(n, kMaxVIntBytes, [&s](auto& r) { s += static_cast<uint32_t>(r.readVInt()); });
    return s;
  });
}

// VarintParse over the encoding, value by value (kUnroll 1: the loop as
// protobuf's users write it) or with the caller's loop unrolled by kUnroll:
// the sum of the values, or nullopt if protobuf refused the bytes.
template <int kUnroll>
std::optional<uint32_t> parseAllProtobufArray(const Workload& w) {
  uint32_t s = 0;
  const char* p = reinterpret_cast<const char*>(w.encoded.data());
  size_t i = 0;
  const size_t n = w.values.size();
  if constexpr (kUnroll > 1) {
    for (; n - i >= kUnroll; i += kUnroll) {
      for (int k = 0; k < kUnroll; ++k) {
        uint32_t v;
        p = google::protobuf::internal::VarintParse(p, &v);
        if (p == nullptr) [[unlikely]]
          return std::nullopt;
        s += v;
      }
    }
  }
  for (; i < n; ++i) {
    uint32_t v;
    p = google::protobuf::internal::VarintParse(p, &v);
    if (p == nullptr) [[unlikely]]
      return std::nullopt;
    s += v;
  }
  return s;
}

template <int kUnroll>
void readProtobufArray(benchmark::State& state, const Workload& w) {
  uint32_t sum = 0;
  for (auto _ : state) {
    std::optional<uint32_t> pass = valueLoop([&w] { return parseAllProtobufArray<kUnroll>(w); });
    if (!pass) {
      state.SkipWithError("protobuf could not parse the reference encoding");
      break;
    }
    sum += *pass;
    benchmark::DoNotOptimize(sum);
  }
  setThroughput(state, w);
}

void BM_ReadVInt_ProtobufArray(benchmark::State& state, const Workload& w) {
  readProtobufArray<1>(state, w);
}
void BM_ReadVInt_ProtobufArrayUnrolled(benchmark::State& state, const Workload& w) {
  readProtobufArray<4>(state, w);
}

// Reads must also agree with the values they were written from; checked once
// here rather than in the timed loops.
bool readsAgree(const Workload& w) {
  ByteArrayStreamInput in(w.encoded);
  google::protobuf::io::CodedInputStream pb(w.encoded.data(), static_cast<int>(w.encoded.size()));
  for (uint32_t expected : w.values) {
    uint32_t v = 0;
    if (static_cast<uint32_t>(in.readVInt()) != expected || !pb.ReadVarint32(&v) || v != expected) {
      return false;
    }
  }
  return in.available() == 0;
}

using Fn = void (*)(benchmark::State&, const Workload&);

void registerAll() {
  const std::pair<const char*, Fn> suites[] = {
      {"BM_WriteVInt_Wirestream_", BM_WriteVInt_Wirestream},
      {"BM_WriteVInt_Protobuf_", BM_WriteVInt_Protobuf},
      {"BM_WriteVInt_EsLoop_", BM_WriteVInt_EsLoop},
      {"BM_WriteVInt_Unrolled_", BM_WriteVInt_Unrolled},
      {"BM_ReadVInt_Wirestream_", BM_ReadVInt_Wirestream},
      {"BM_ReadVInt_Protobuf_", BM_ReadVInt_Protobuf},
      {"BM_WriteVInt_WirestreamCursor_", BM_WriteVInt_WirestreamCursor},
      {"BM_WriteVInt_ProtobufArray_", BM_WriteVInt_ProtobufArray},
      {"BM_ReadVInt_WirestreamCursor_", BM_ReadVInt_WirestreamCursor},
      {"BM_ReadVInt_ProtobufArray_", BM_ReadVInt_ProtobufArray},
      {"BM_WriteVInt_WirestreamReserved_", BM_WriteVInt_WirestreamReserved},
      {"BM_ReadVInt_WirestreamReserved_", BM_ReadVInt_WirestreamReserved},
      {"BM_WriteVInt_ProtobufArrayUnrolled_", BM_WriteVInt_ProtobufArrayUnrolled},
      {"BM_ReadVInt_ProtobufArrayUnrolled_", BM_ReadVInt_ProtobufArrayUnrolled},
  };
  for (const auto& [prefix, fn] : suites) {
    for (size_t i = 0; i < 4; ++i) {
      static const char* kCases[] = {"OneByte", "Mixed", "FiveByte", "Geometric"};
      benchmark::RegisterBenchmark((std::string(prefix) + kCases[i]).c_str(),
                                   [fn = fn, i](benchmark::State& state) {
                                     const Workload& w = workloads()[i];
                                     if (!readsAgree(w)) {
                                       state.SkipWithError("decoders disagree with the values");
                                       for (auto _ : state) {
                                       }
                                       return;
                                     }
                                     fn(state, w);
                                   });
    }
  }
}

const bool kRegistered = (registerAll(), true);

}  // namespace
}  // namespace wirestream::bench
