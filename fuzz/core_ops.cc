// The op table of the core readers (program.h): every primitive, string and
// array reader of StreamInput, each paired with its writer.
//
// Grammar of a core program (wire format §1, §2):
//   program := (op value)*
//   op      := 1 byte, reader = kOps[op % size]
//   value   := what that reader reads
// VLong values are written back with writeVLongNoCheck: like ES, readVLong
// accepts the 10-byte form of a negative long that writeVLong refuses.
#include <cmath>
#include <cstdio>
#include <typeinfo>

#include "fuzz/fuzz_check.h"
#include "fuzz/program.h"
#include "stream/bytes_stream_output.h"

namespace wirestream::fuzz {

namespace {

template <typename T>
bool anyNan(const std::vector<T>& v) {
  for (T x : v) {
    if (std::isnan(x)) return true;
  }
  return false;
}

const Op kOps[] = {
    {"readByte",
     [](StreamInput& in, StreamOutput& out) {
       out.writeByte(in.readByte());
       return false;
     },
     true},
    {"readShort",
     [](StreamInput& in, StreamOutput& out) {
       out.writeShort(in.readShort());
       return false;
     },
     true},
    {"readInt",
     [](StreamInput& in, StreamOutput& out) {
       out.writeInt(in.readInt());
       return false;
     },
     true},
    {"readLong",
     [](StreamInput& in, StreamOutput& out) {
       out.writeLong(in.readLong());
       return false;
     },
     true},
    {"readVInt",
     [](StreamInput& in, StreamOutput& out) {
       out.writeVInt(in.readVInt());
       return false;
     },
     true},
    {"readVLong",
     [](StreamInput& in, StreamOutput& out) {
       out.writeVLongNoCheck(in.readVLong());
       return false;
     },
     true},
    {"readZLong",
     [](StreamInput& in, StreamOutput& out) {
       out.writeZLong(in.readZLong());
       return false;
     },
     true},
    {"readFloat",
     [](StreamInput& in, StreamOutput& out) {
       float v = in.readFloat();
       out.writeFloat(v);
       return std::isnan(v);
     },
     true},
    {"readDouble",
     [](StreamInput& in, StreamOutput& out) {
       double v = in.readDouble();
       out.writeDouble(v);
       return std::isnan(v);
     },
     true},
    {"readBoolean",
     [](StreamInput& in, StreamOutput& out) {
       out.writeBoolean(in.readBoolean());
       return false;
     },
     true},
    {"readOptionalBoolean",
     [](StreamInput& in, StreamOutput& out) {
       out.writeOptionalBoolean(in.readOptionalBoolean());
       return false;
     },
     true},
    {"readOptionalVInt",
     [](StreamInput& in, StreamOutput& out) {
       out.writeOptionalVInt(in.readOptionalVInt());
       return false;
     },
     true},
    {"readOptionalVLong",
     [](StreamInput& in, StreamOutput& out) {
       auto v = in.readOptionalVLong();
       out.writeBoolean(v.has_value());
       if (v) out.writeVLongNoCheck(*v);
       return false;
     },
     true},
    {"readOptionalInt",
     [](StreamInput& in, StreamOutput& out) {
       out.writeOptionalInt(in.readOptionalInt());
       return false;
     },
     true},
    {"readOptionalLong",
     [](StreamInput& in, StreamOutput& out) {
       out.writeOptionalLong(in.readOptionalLong());
       return false;
     },
     true},
    {"readOptionalFloat",
     [](StreamInput& in, StreamOutput& out) {
       auto v = in.readOptionalFloat();
       out.writeOptionalFloat(v);
       return v && std::isnan(*v);
     },
     true},
    {"readOptionalDouble",
     [](StreamInput& in, StreamOutput& out) {
       auto v = in.readOptionalDouble();
       out.writeOptionalDouble(v);
       return v && std::isnan(*v);
     },
     true},
    {"readString",
     [](StreamInput& in, StreamOutput& out) {
       out.writeString(in.readString());
       return false;
     },
     true},
    {"readOptionalString",
     [](StreamInput& in, StreamOutput& out) {
       auto v = in.readOptionalString();
       out.writeOptionalString(v ? std::optional<std::string_view>(*v) : std::nullopt);
       return false;
     },
     true},
    {"readByteArray",
     [](StreamInput& in, StreamOutput& out) {
       out.writeByteArray(in.readByteArray());
       return false;
     },
     true},
    {"readStringArray",
     [](StreamInput& in, StreamOutput& out) {
       out.writeStringArray(std::span<const std::string>(in.readStringArray()));
       return false;
     },
     true},
    {"readVIntArray",
     [](StreamInput& in, StreamOutput& out) {
       out.writeVIntArray(in.readVIntArray());
       return false;
     },
     true},
    {"readVLongArray",
     [](StreamInput& in, StreamOutput& out) {
       auto v = in.readVLongArray();
       out.writeArraySize(v.size());
       for (int64_t x : v) out.writeVLongNoCheck(x);
       return false;
     },
     true},
    {"readIntArray",
     [](StreamInput& in, StreamOutput& out) {
       out.writeIntArray(in.readIntArray());
       return false;
     },
     true},
    {"readLongArray",
     [](StreamInput& in, StreamOutput& out) {
       out.writeLongArray(in.readLongArray());
       return false;
     },
     true},
    {"readFloatArray",
     [](StreamInput& in, StreamOutput& out) {
       auto v = in.readFloatArray();
       out.writeFloatArray(v);
       return anyNan(v);
     },
     true},
    {"readDoubleArray",
     [](StreamInput& in, StreamOutput& out) {
       auto v = in.readDoubleArray();
       out.writeDoubleArray(v);
       return anyNan(v);
     },
     true},
};

}  // namespace

std::span<const Op> coreOps() { return kOps; }

}  // namespace wirestream::fuzz
