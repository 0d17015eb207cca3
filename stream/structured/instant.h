// Instant: a point on the UTC time line as java.time.Instant keeps it, whole
// seconds since 1970-01-01T00:00:00Z plus 0..999,999,999 nanoseconds.
//
// Example (runs: instant):
//   #include "stream/bytes_stream_output.h"
//   #include "stream/structured/structured_stream.h"
//   BytesStreamOutput out;
//   writeInstant(out, Instant::ofEpochMilli(1500));   // long 1, int 500000000
//   BytesReferenceStreamInput in(out.bytes());
//   Instant i = readInstant(in);
//
// The range is Java's (Instant.MIN .. Instant.MAX); readInstant rejects
// anything outside it, or nanos outside 0..999,999,999, as CorruptStreamError.
// A value type; thread-safe.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace wirestream {

struct Instant {
  // java.time.Instant.MIN / MAX epoch seconds.
  static constexpr int64_t kMinSecond = -31557014167219200LL;
  static constexpr int64_t kMaxSecond = 31556889864403199LL;
  static constexpr int32_t kNanosPerSecond = 1000000000;

  int64_t epoch_seconds = 0;
  int32_t nanos = 0;  // 0 .. kNanosPerSecond - 1

  // Floor division, as Instant.ofEpochMilli: -1 ms is second -1 + 999,000,000
  // ns.
  [[nodiscard]] static constexpr Instant ofEpochMilli(int64_t millis) {
    int64_t s = millis / 1000;
    int64_t ms = millis % 1000;
    if (ms < 0) {
      ms += 1000;
      --s;
    }
    return Instant{s, static_cast<int32_t>(ms * 1000000)};
  }

  constexpr bool valid() const {
    return epoch_seconds >= kMinSecond && epoch_seconds <= kMaxSecond && nanos >= 0 &&
           nanos < kNanosPerSecond;
  }

  // "<seconds>.<nanos, 9 digits>s since the epoch", e.g. "1.500000000s".
  std::string toString() const;

  friend constexpr auto operator<=>(const Instant&, const Instant&) = default;
};

}  // namespace wirestream
