// codec/cesu8.h. Expected wire bytes follow Java's StreamOutput.writeString, which sends
// each UTF-16 char on its own: c <= 0x7F as one byte; c > 0x7FF as 0xE0 | c >> 12,
// 0x80 | (c >> 6 & 0x3F), 0x80 | (c & 0x3F); otherwise 0xC0 | c >> 6, 0x80 | (c & 0x3F).
// A code point above U+FFFF is two chars (its surrogates), so six bytes.
#include "codec/cesu8.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace wirestream::codec {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes wireOf(const Bytes& utf8) {
  Bytes out(utf8.size() * 2 + 8, 0xEE);
  uint8_t* end = encodeUtf8AsWire(out.data(), utf8.data(), utf8.size());
  out.resize(static_cast<size_t>(end - out.data()));
  return out;
}

TEST(Cesu8, EncodesAsJavaWritesEachChar) {
  struct Case {
    const char* what;
    Bytes utf8;
    Bytes wire;
  };
  const Case cases[] = {
      {"empty", {}, {}},
      {"ascii", {'a', 0x00, 0x7F}, {'a', 0x00, 0x7F}},
      {"U+00E9", {0xC3, 0xA9}, {0xC3, 0xA9}},
      {"U+20AC", {0xE2, 0x82, 0xAC}, {0xE2, 0x82, 0xAC}},
      {"U+FFFF", {0xEF, 0xBF, 0xBF}, {0xEF, 0xBF, 0xBF}},
      // U+10000 = D800 DC00
      {"U+10000", {0xF0, 0x90, 0x80, 0x80}, {0xED, 0xA0, 0x80, 0xED, 0xB0, 0x80}},
      // U+1F600 = D83D DE00
      {"U+1F600", {0xF0, 0x9F, 0x98, 0x80}, {0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80}},
      // U+10FFFF = DBFF DFFF
      {"U+10FFFF", {0xF4, 0x8F, 0xBF, 0xBF}, {0xED, 0xAF, 0xBF, 0xED, 0xBF, 0xBF}},
      {"mixed",
       {'a', 0xF0, 0x9F, 0x98, 0x80, 0xC3, 0xA9, 0xF0, 0x90, 0x80, 0x80, 'b'},
       {'a', 0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80, 0xC3, 0xA9, 0xED, 0xA0, 0x80, 0xED, 0xB0, 0x80,
        'b'}},
  };
  for (const Case& c : cases) EXPECT_EQ(wireOf(c.utf8), c.wire) << c.what;
}

TEST(Cesu8, SequenceLengthIsStrict) {
  struct Case {
    Bytes bytes;
    size_t length;  // 0: invalid
  };
  const Case cases[] = {
      {{'a'}, 1},
      {{0xC2, 0x80}, 2},
      {{0xDF, 0xBF}, 2},
      {{0xE0, 0xA0, 0x80}, 3},
      {{0xED, 0x9F, 0xBF}, 3},
      {{0xEF, 0xBF, 0xBF}, 3},
      {{0xF0, 0x90, 0x80, 0x80}, 4},
      {{0xF4, 0x8F, 0xBF, 0xBF}, 4},
      {{0x80}, 0},                    // stray continuation
      {{0xBF}, 0},                    // stray continuation
      {{0xC0, 0x80}, 0},              // overlong U+0000 (Java's modified UTF-8, not ES's)
      {{0xC1, 0xBF}, 0},              // overlong
      {{0xE0, 0x9F, 0xBF}, 0},        // overlong
      {{0xED, 0xA0, 0x80}, 0},        // surrogate D800 as UTF-8
      {{0xF0, 0x8F, 0xBF, 0xBF}, 0},  // overlong
      {{0xF4, 0x90, 0x80, 0x80}, 0},  // above U+10FFFF
      {{0xF5, 0x80, 0x80, 0x80}, 0},
      {{0xFF}, 0},
      {{0xC2, 0x41}, 0},  // continuation missing
      {{0xC2}, 0},        // cut
      {{0xE2, 0x82}, 0},
      {{0xF0, 0x9F, 0x98}, 0},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(utf8SequenceLength(c.bytes.data(), c.bytes.size(), 0), c.length)
        << testing::PrintToString(c.bytes);
  }
}

TEST(Cesu8, SequenceLengthReadsNothingPastN) {
  const uint8_t bytes[] = {'x', 0xE2, 0x82, 0xAC};
  EXPECT_EQ(utf8SequenceLength(bytes, 4, 1), 3u);
  // The same bytes follow, but n ends the sequence early.
  EXPECT_EQ(utf8SequenceLength(bytes, 3, 1), 0u);
  EXPECT_EQ(utf8SequenceLength(bytes, 2, 1), 0u);
}

TEST(Cesu8, WireUnitAsUtf8Length) {
  struct Case {
    Bytes bytes;
    size_t length;
  };
  const Case cases[] = {
      {{0xC3, 0xA9, 'x'}, 2},   // U+00E9
      {{0xE2, 0x82, 0xAC}, 3},  // U+20AC
      {{0xE0, 0xA0, 0x80}, 3},  // U+0800, the first 3-byte unit
      {{0xED, 0x9F, 0xBF}, 3},  // U+D7FF, the last unit below the surrogates
      {{0xED, 0xA0, 0xBD}, 0},  // high surrogate: needs its pair
      {{0xED, 0xB8, 0x80}, 0},  // low surrogate
      {{0xE0, 0x80, 0x80}, 0},  // overlong
      {{0xC0, 0x80, 'x'}, 0},   // overlong
      {{0x80, 0x80, 0x80}, 0},  // stray continuation
      {{0xE2, 0x82, 'x'}, 0},   // third byte not a continuation
      {{0xC3, 0x29, 'x'}, 0},   // second byte not a continuation
      {{0xF0, 0x90, 0x80}, 0},  // never a wire unit
  };
  for (const Case& c : cases) {
    EXPECT_EQ(wireUnitAsUtf8Length(c.bytes.data(), c.bytes.size()), c.length)
        << testing::PrintToString(c.bytes);
  }
  const uint8_t two[] = {0xC3, 0xA9};
  EXPECT_EQ(wireUnitAsUtf8Length(two, 2), 0u);  // fewer than 3 readable: the careful path
}

TEST(Cesu8, AppendUtf8AtEveryLengthBoundary) {
  struct Case {
    uint32_t cp;
    Bytes utf8;
  };
  const Case cases[] = {
      {0x00, {0x00}},
      {0x7F, {0x7F}},
      {0x80, {0xC2, 0x80}},
      {0x7FF, {0xDF, 0xBF}},
      {0x800, {0xE0, 0xA0, 0x80}},
      {0xFFFF, {0xEF, 0xBF, 0xBF}},
      {0x10000, {0xF0, 0x90, 0x80, 0x80}},
      {0x10FFFF, {0xF4, 0x8F, 0xBF, 0xBF}},
  };
  for (const Case& c : cases) {
    std::string out = "p";
    appendUtf8(out, c.cp);
    EXPECT_EQ(Bytes(out.begin() + 1, out.end()), c.utf8) << std::hex << c.cp;
  }
}

// Every code point: appendUtf8's bytes are one valid sequence of the right length, and
// the wire form is the bytes themselves below U+10000 and six bytes above.
TEST(Cesu8, EveryCodePoint) {
  for (uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    std::string s;
    appendUtf8(s, cp);
    const auto* p = reinterpret_cast<const uint8_t*>(s.data());
    ASSERT_EQ(utf8SequenceLength(p, s.size(), 0), s.size()) << std::hex << cp;
    Bytes wire = wireOf(Bytes(p, p + s.size()));
    if (cp < 0x10000) {
      ASSERT_EQ(wire, Bytes(p, p + s.size())) << std::hex << cp;
    } else {
      ASSERT_EQ(wire.size(), 6u) << std::hex << cp;
      const uint32_t hi = ((wire[0] & 0x0Fu) << 12) | ((wire[1] & 0x3Fu) << 6) | (wire[2] & 0x3Fu);
      const uint32_t lo = ((wire[3] & 0x0Fu) << 12) | ((wire[4] & 0x3Fu) << 6) | (wire[5] & 0x3Fu);
      ASSERT_EQ(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00), cp) << std::hex << cp;
    }
  }
}

}  // namespace
}  // namespace wirestream::codec
