// Decodes and re-encodes the op programs of core_program.h.
//
// Grammar of a program:
//   program := (op value)*
//   op      := 1 byte, reader = kOps[op % kCoreOpCount]
//   value   := what that reader reads (wire format §1, §2)
// VLong values are written back with writeVLongNoCheck: like ES, readVLong
// accepts the 10-byte form of a negative long that writeVLong refuses.
#include "fuzz/core_program.h"

#include <cmath>
#include <cstdio>
#include <typeinfo>

#include "fuzz/fuzz_check.h"
#include "stream/bytes_stream_output.h"

namespace wirestream::fuzz {

namespace {

// Reads one value and writes it back; returns true if a NaN was written
// (NaN payloads are canonicalised, so those bytes may differ).
using OpFn = bool (*)(StreamInput&, StreamOutput&);

struct Op {
  const char* name;
  OpFn run;
};

template <typename T>
bool anyNan(const std::vector<T>& v) {
  for (T x : v) {
    if (std::isnan(x)) return true;
  }
  return false;
}

const Op kOps[kCoreOpCount] = {
    {"readByte", [](StreamInput& in, StreamOutput& out) { out.writeByte(in.readByte()); return false; }},
    {"readShort", [](StreamInput& in, StreamOutput& out) { out.writeShort(in.readShort()); return false; }},
    {"readInt", [](StreamInput& in, StreamOutput& out) { out.writeInt(in.readInt()); return false; }},
    {"readLong", [](StreamInput& in, StreamOutput& out) { out.writeLong(in.readLong()); return false; }},
    {"readVInt", [](StreamInput& in, StreamOutput& out) { out.writeVInt(in.readVInt()); return false; }},
    {"readVLong", [](StreamInput& in, StreamOutput& out) { out.writeVLongNoCheck(in.readVLong()); return false; }},
    {"readZLong", [](StreamInput& in, StreamOutput& out) { out.writeZLong(in.readZLong()); return false; }},
    {"readFloat", [](StreamInput& in, StreamOutput& out) {
       float v = in.readFloat();
       out.writeFloat(v);
       return std::isnan(v);
     }},
    {"readDouble", [](StreamInput& in, StreamOutput& out) {
       double v = in.readDouble();
       out.writeDouble(v);
       return std::isnan(v);
     }},
    {"readBoolean", [](StreamInput& in, StreamOutput& out) { out.writeBoolean(in.readBoolean()); return false; }},
    {"readOptionalBoolean", [](StreamInput& in, StreamOutput& out) { out.writeOptionalBoolean(in.readOptionalBoolean()); return false; }},
    {"readOptionalVInt", [](StreamInput& in, StreamOutput& out) { out.writeOptionalVInt(in.readOptionalVInt()); return false; }},
    {"readOptionalVLong", [](StreamInput& in, StreamOutput& out) {
       auto v = in.readOptionalVLong();
       out.writeBoolean(v.has_value());
       if (v) out.writeVLongNoCheck(*v);
       return false;
     }},
    {"readOptionalInt", [](StreamInput& in, StreamOutput& out) { out.writeOptionalInt(in.readOptionalInt()); return false; }},
    {"readOptionalLong", [](StreamInput& in, StreamOutput& out) { out.writeOptionalLong(in.readOptionalLong()); return false; }},
    {"readOptionalFloat", [](StreamInput& in, StreamOutput& out) {
       auto v = in.readOptionalFloat();
       out.writeOptionalFloat(v);
       return v && std::isnan(*v);
     }},
    {"readOptionalDouble", [](StreamInput& in, StreamOutput& out) {
       auto v = in.readOptionalDouble();
       out.writeOptionalDouble(v);
       return v && std::isnan(*v);
     }},
    {"readString", [](StreamInput& in, StreamOutput& out) { out.writeString(in.readString()); return false; }},
    {"readOptionalString", [](StreamInput& in, StreamOutput& out) {
       auto v = in.readOptionalString();
       out.writeOptionalString(v ? std::optional<std::string_view>(*v) : std::nullopt);
       return false;
     }},
    {"readByteArray", [](StreamInput& in, StreamOutput& out) { out.writeByteArray(in.readByteArray()); return false; }},
    {"readStringArray", [](StreamInput& in, StreamOutput& out) { out.writeStringArray(std::span<const std::string>(in.readStringArray())); return false; }},
    {"readVIntArray", [](StreamInput& in, StreamOutput& out) { out.writeVIntArray(in.readVIntArray()); return false; }},
    {"readVLongArray", [](StreamInput& in, StreamOutput& out) {
       auto v = in.readVLongArray();
       out.writeArraySize(v.size());
       for (int64_t x : v) out.writeVLongNoCheck(x);
       return false;
     }},
    {"readIntArray", [](StreamInput& in, StreamOutput& out) { out.writeIntArray(in.readIntArray()); return false; }},
    {"readLongArray", [](StreamInput& in, StreamOutput& out) { out.writeLongArray(in.readLongArray()); return false; }},
    {"readFloatArray", [](StreamInput& in, StreamOutput& out) {
       auto v = in.readFloatArray();
       out.writeFloatArray(v);
       return anyNan(v);
     }},
    {"readDoubleArray", [](StreamInput& in, StreamOutput& out) {
       auto v = in.readDoubleArray();
       out.writeDoubleArray(v);
       return anyNan(v);
     }},
};

}  // namespace

const char* coreOpName(uint8_t op) { return kOps[op % kCoreOpCount].name; }

bool decodeCoreOp(uint8_t op, StreamInput& in, StreamOutput& out) {
  return kOps[op % kCoreOpCount].run(in, out);
}

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

ProgramResult runCoreProgram(StreamInput& in, std::span<const uint8_t> raw) {
  ProgramResult r;
  const size_t total = in.available();
  FUZZ_CHECK(total == raw.size(), "available() %zu != input size %zu", total,
             raw.size());
  BytesStreamOutput one;
  while (in.available() > 0) {
    const size_t start = total - in.available();
    one.reset();
    uint8_t op = 0;
    bool nan = false;
    try {
      op = in.readByte();
      one.writeByte(op);
      nan = decodeCoreOp(op, in, one);
    } catch (const StreamError& e) {
      r.error = std::string(typeid(e).name()) + ": " + e.what();
      return r;
    }
    const size_t end = total - in.available();
    std::vector<uint8_t> enc = one.bytes().toVector();
    auto src = raw.subspan(start, end - start);
    FUZZ_CHECK(enc.size() <= src.size(),
               "%s re-encoded longer than its input: %s -> %s",
               coreOpName(op), hexPrefix(src).c_str(), hexPrefix(enc).c_str());
    if (enc.size() == src.size() && !nan) {
      FUZZ_CHECK(std::equal(enc.begin(), enc.end(), src.begin()),
                 "%s re-encoded differently: %s -> %s", coreOpName(op),
                 hexPrefix(src).c_str(), hexPrefix(enc).c_str());
    }
    r.reencoded.insert(r.reencoded.end(), enc.begin(), enc.end());
    r.consumed = end;
    ++r.ops;
  }
  return r;
}

void checkReencodingIsStable(const ProgramResult& first) {
  ByteArrayStreamInput in(first.reencoded);
  ProgramResult second = runCoreProgram(in, first.reencoded);
  FUZZ_CHECK(second.error.empty(), "re-encoding does not decode: %s",
             second.error.c_str());
  FUZZ_CHECK(second.ops == first.ops, "ops %zu != %zu", second.ops, first.ops);
  FUZZ_CHECK(second.reencoded == first.reencoded,
             "decode(encode(decode(x))) != decode(x): %s -> %s",
             hexPrefix(first.reencoded).c_str(),
             hexPrefix(second.reencoded).c_str());
}

}  // namespace wirestream::fuzz
