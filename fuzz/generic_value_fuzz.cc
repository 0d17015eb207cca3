// Fuzz target: readGenericValue on its own, checked through GenericValue's
// own semantics. Input: one version byte (bit 0 set: 7.10.0, string map keys;
// else 8.7.0, generic keys), then one generic value (trailing bytes ignored).
// A value that decodes must: re-encode no longer than its input, and
// byte-identical at equal length unless a NaN was canonicalised (only overlong
// varint sizes shrink); decode from its re-encoding to a value == to itself
// with the same hash() (decode(encode(decode(x))) == decode(x)); compare equal
// to its own copy; and render with toString().
#include <cstdint>

#include "fuzz/fuzz_check.h"
#include "fuzz/program.h"
#include "stream/bytes_stream_output.h"
#include "stream/structured/generic_value.h"
#include "stream/structured/structured_stream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wirestream;
  if (size == 0) return 0;
  TransportVersion version = (data[0] & 1) ? TransportVersion::V_7_10_0 : TransportVersion::V_8_7_0;
  std::span<const uint8_t> raw(data + 1, size - 1);
  ByteArrayStreamInput in(raw);
  in.setTransportVersion(version);
  GenericValue v;
  try {
    v = readGenericValue(in);
  } catch (const StreamError&) {
    return 0;
  }
  auto src = raw.first(in.position());

  BytesStreamOutput out;
  out.setTransportVersion(version);
  writeGenericValue(out, v);
  std::vector<uint8_t> enc = out.bytes().toVector();
  FUZZ_CHECK(enc.size() <= src.size(), "re-encoded longer: %s -> %s", fuzz::hexPrefix(src).c_str(),
             fuzz::hexPrefix(enc).c_str());
  if (enc.size() == src.size() && !fuzz::containsNan(v)) {
    FUZZ_CHECK(std::equal(enc.begin(), enc.end(), src.begin()), "re-encoded differently: %s -> %s",
               fuzz::hexPrefix(src).c_str(), fuzz::hexPrefix(enc).c_str());
  }

  ByteArrayStreamInput again(enc);
  again.setTransportVersion(version);
  GenericValue w = readGenericValue(again);
  FUZZ_CHECK(again.available() == 0, "re-encoding has %zu bytes left", again.available());
  FUZZ_CHECK(w == v, "decode(encode(v)) != v: %s vs %s", w.toString().c_str(),
             v.toString().c_str());
  FUZZ_CHECK(w.hash() == v.hash(), "equal values, different hashes: %s", v.toString().c_str());
  GenericValue copy = v;
  FUZZ_CHECK(copy == v, "a copy differs: %s", v.toString().c_str());
  return 0;
}
