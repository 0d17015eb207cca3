// The program runner of program.h: decode an op, write it back, compare.
#include "fuzz/program.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <typeinfo>

#include "fuzz/fuzz_check.h"
#include "stream/bytes_stream_output.h"

namespace wirestream::fuzz {

std::string hexPrefix(std::span<const uint8_t> bytes) {
  std::string s;
  char buf[4];
  for (size_t i = 0; i < bytes.size() && i < 64; ++i) {
    std::snprintf(buf, sizeof buf, "%02x ", bytes[i]);
    s += buf;
  }
  if (bytes.size() > 64) s += "...";
  return s;
}

uint8_t opIndex(std::span<const Op> ops, const char* name) {
  for (size_t i = 0; i < ops.size(); ++i) {
    if (std::strcmp(ops[i].name, name) == 0) return static_cast<uint8_t>(i);
  }
  std::fprintf(stderr, "no op %s\n", name);
  std::abort();
}

ProgramResult runProgram(std::span<const Op> ops, StreamInput& in, std::span<const uint8_t> raw) {
  ProgramResult r;
  const size_t total = in.available();
  FUZZ_CHECK(total == raw.size(), "available() %zu != input size %zu", total, raw.size());
  BytesStreamOutput one;
  one.setTransportVersion(in.transportVersion());
  while (in.available() > 0) {
    const size_t start = total - in.available();
    one.reset();
    const Op* op = nullptr;
    bool nan = false;
    try {
      uint8_t code = in.readByte();
      op = &ops[code % ops.size()];
      one.writeByte(code);
      nan = op->run(in, one);
    } catch (const StreamError& e) {
      r.error = std::string(typeid(e).name()) + ": " + e.what();
      return r;
    }
    const size_t end = total - in.available();
    std::vector<uint8_t> enc = one.bytes().toVector();
    auto src = raw.subspan(start, end - start);
    FUZZ_CHECK(enc.size() <= src.size(), "%s re-encoded longer than its input: %s -> %s", op->name,
               hexPrefix(src).c_str(), hexPrefix(enc).c_str());
    if (op->exact && enc.size() == src.size() && !nan) {
      FUZZ_CHECK(std::equal(enc.begin(), enc.end(), src.begin()),
                 "%s re-encoded differently: %s -> %s", op->name, hexPrefix(src).c_str(),
                 hexPrefix(enc).c_str());
    }
    r.reencoded.insert(r.reencoded.end(), enc.begin(), enc.end());
    r.consumed = end;
    ++r.ops;
  }
  return r;
}

void checkReencodingIsStable(std::span<const Op> ops, const ProgramResult& first,
                             TransportVersion version) {
  ByteArrayStreamInput in(first.reencoded);
  in.setTransportVersion(version);
  ProgramResult second = runProgram(ops, in, first.reencoded);
  FUZZ_CHECK(second.error.empty(), "re-encoding does not decode: %s (%s)", second.error.c_str(),
             hexPrefix(first.reencoded).c_str());
  FUZZ_CHECK(second.ops == first.ops, "ops %zu != %zu", second.ops, first.ops);
  FUZZ_CHECK(second.reencoded == first.reencoded,
             "decode(encode(decode(x))) != decode(x): %s -> %s", hexPrefix(first.reencoded).c_str(),
             hexPrefix(second.reencoded).c_str());
}

}  // namespace wirestream::fuzz
