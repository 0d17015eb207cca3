// Compressed bodies as ES writes and reads them. Expected bytes: the LZ4
// framing from ES's ReuseBuffersLZ4BlockOutputStream (magic, token
// method | level, little-endian lengths, checksum 0, end block); DEFLATE from
// java.util.zip.Deflater(3, nowrap = true), which is zlib's raw deflate at
// level 3 (the same stream Python's zlib.compressobj(3, DEFLATED, -15) gives).
#include "transport/compression.h"

#include <gtest/gtest.h>

#include <random>

#include "stream/bytes_stream_output.h"
#include "stream/errors.h"
#include "tests/stream/test_util.h"

namespace wirestream::transport {
namespace {

using namespace wirestream::testing;  // tests/stream/test_util.h: bytes, pages, prefixes

std::vector<uint8_t> compress(CompressionScheme s, const std::vector<uint8_t>& plain,
                              size_t piece = 1 << 20) {
  BytesStreamOutput out;
  compressBody(s, paged(plain, std::max<size_t>(piece, 1)), out);
  return out.bytes().toVector();
}

std::vector<uint8_t> bytesOf(const std::string& s) { return {s.begin(), s.end()}; }

const std::string kLz4Magic = "4c 5a 34 42 6c 6f 63 6b";  // "LZ4Block"
const std::string kLz4End = kLz4Magic + " 16 00 00 00 00 00 00 00 00 00 00 00 00";

// "hello" does not shrink (a 6-byte LZ4 block), so lz4-java stores it.
TEST(Lz4Body, SmallBodyIsOneStoredBlockThenTheEndBlock) {
  const std::string expected = "4c 5a 34 00 " + kLz4Magic +
                               " 16 05 00 00 00 05 00 00 00 00 00 00 00 68 65 6c 6c 6f " + kLz4End;
  EXPECT_EQ(toHex(compress(CompressionScheme::kLz4, bytesOf("hello"))), expected);
  CompressionScheme scheme = CompressionScheme::kNone;
  EXPECT_EQ(decompressBody(hexBytes(expected), 1 << 20, &scheme), bytesOf("hello"));
  EXPECT_EQ(scheme, CompressionScheme::kLz4);
}

TEST(Lz4Body, EmptyBodyIsTheEndBlockAlone) {
  EXPECT_EQ(toHex(compress(CompressionScheme::kLz4, {})), "4c 5a 34 00 " + kLz4End);
  EXPECT_TRUE(decompressBody(hexBytes("4c 5a 34 00 " + kLz4End), 16).empty());
}

// A hand-made LZ4 block (literal 'a', match offset 1 length 58, five final
// literals) as lz4-java would find it in a stream: 64 x 'a'.
const std::string kLz4CompressedA64 = "4c 5a 34 00 " + kLz4Magic +
                                      " 26 0b 00 00 00 40 00 00 00 00 00 00 00 "
                                      "1f 61 01 00 27 50 61 61 61 61 61 " +
                                      kLz4End;

TEST(Lz4Body, ReadsCompressedBlocks) {
  EXPECT_EQ(decompressBody(hexBytes(kLz4CompressedA64), 1 << 20), std::vector<uint8_t>(64, 'a'));
  // ES never checks a data block's checksum, nor do we.
  std::vector<uint8_t> with_checksum = hexBytes(kLz4CompressedA64);
  with_checksum[4 + 17] = 0x5a;
  EXPECT_EQ(decompressBody(with_checksum, 1 << 20), std::vector<uint8_t>(64, 'a'));
}

// Block boundaries fall every 64 KiB of input, whatever the input's pieces.
TEST(Lz4Body, BlocksOf64KiBWhateverThePieces) {
  std::mt19937_64 rng(testSeed(11));
  std::vector<uint8_t> plain(3 * kLz4BlockSize + 123);
  for (auto& b : plain) b = static_cast<uint8_t>(rng() % 4);
  const std::vector<uint8_t> reference = compress(CompressionScheme::kLz4, plain);
  for (size_t piece : {1, 7, 4096, 65537}) {
    EXPECT_EQ(compress(CompressionScheme::kLz4, plain, piece), reference) << piece;
  }
  // Four data blocks (64 KiB, 64 KiB, 64 KiB, 123 bytes) and the end block.
  size_t at = 4;
  std::vector<uint32_t> originals;
  while (true) {
    const uint8_t* h = reference.data() + at;
    const uint32_t compressed = h[9] | h[10] << 8 | h[11] << 16 | uint32_t{h[12]} << 24;
    const uint32_t original = h[13] | h[14] << 8 | h[15] << 16 | uint32_t{h[16]} << 24;
    EXPECT_TRUE(h[8] == 0x26 || h[8] == 0x16) << int{h[8]};
    at += 21 + compressed;
    if (original == 0) break;
    originals.push_back(original);
  }
  EXPECT_EQ(at, reference.size());
  EXPECT_EQ(originals, (std::vector<uint32_t>{65536, 65536, 65536, 123}));
  EXPECT_EQ(decompressBody(reference, plain.size()), plain);
}

TEST(DeflateBody, WritesWhatJavasDeflaterWrites) {
  struct Case {
    std::vector<uint8_t> plain;
    const char* deflated;
  } cases[] = {
      {bytesOf("hello"), "cb 48 cd c9 c9 07 00"},
      {std::vector<uint8_t>(64, 'a'), "4b 4c a4 0c 00 00"},
  };
  for (const Case& c : cases) {
    for (size_t piece : {1, 3, 1 << 20}) {
      EXPECT_EQ(toHex(compress(CompressionScheme::kDeflate, c.plain, piece)),
                std::string("44 46 4c 00 ") + c.deflated);
    }
    CompressionScheme scheme = CompressionScheme::kNone;
    EXPECT_EQ(decompressBody(hexBytes(std::string("44 46 4c 00 ") + c.deflated), 1 << 20, &scheme),
              c.plain);
    EXPECT_EQ(scheme, CompressionScheme::kDeflate);
  }
  // A stored block (BTYPE 00), as any DEFLATE writer may produce.
  EXPECT_EQ(decompressBody(hexBytes("44 46 4c 00 01 05 00 fa ff 68 65 6c 6c 6f"), 16),
            bytesOf("hello"));
}

TEST(CompressedBody, RoundTripsLargeBodies) {
  std::mt19937_64 rng(testSeed(12));
  std::vector<uint8_t> plain(300000);
  for (auto& b : plain) b = static_cast<uint8_t>(rng() % 16);
  for (CompressionScheme s : {CompressionScheme::kDeflate, CompressionScheme::kLz4}) {
    const std::vector<uint8_t> packed = compress(s, plain, 5000);
    EXPECT_LT(packed.size(), plain.size()) << schemeName(s);
    EXPECT_EQ(decompressBody(packed, plain.size()), plain) << schemeName(s);
  }
}

TEST(CompressedBody, RejectsDamagedTruncatedTrailingAndOversizedInput) {
  std::vector<uint8_t> plain(100000, 'x');
  for (CompressionScheme s : {CompressionScheme::kDeflate, CompressionScheme::kLz4}) {
    const std::vector<uint8_t> packed = compress(s, plain);
    EXPECT_THROW(decompressBody(packed, plain.size() - 1), LimitExceededError) << schemeName(s);
    for (size_t n = 0; n < packed.size(); ++n) {
      EXPECT_THROW(decompressBody({packed.data(), n}, 1 << 20), CorruptStreamError)
          << schemeName(s) << " prefix " << n;
    }
    std::vector<uint8_t> trailing = packed;
    trailing.push_back(0);
    EXPECT_THROW(decompressBody(trailing, 1 << 20), CorruptStreamError) << schemeName(s);
    std::vector<uint8_t> no_marker = packed;
    no_marker[0] = 'X';
    EXPECT_THROW(decompressBody(no_marker, 1 << 20), CorruptStreamError) << schemeName(s);
  }
}

// Headers ES's reader (lz4-java's rules) refuses, and a bomb: a block that
// claims far more than its compressed bytes can hold is refused before any
// allocation.
TEST(Lz4Body, DamagedHeadersAreCorrupt) {
  const std::string hello_block = " 05 00 00 00 05 00 00 00 00 00 00 00 68 65 6c 6c 6f ";
  for (const std::string& hex : {
           "4c 5a 34 00 " + kLz4Magic + " 36" + hello_block + kLz4End,  // unknown method
           "4c 5a 34 00 " + kLz4Magic +
               " 16 05 00 00 00 06 00 00 00 00 00 00 00 68 65 6c 6c 6f "
               "00 " +
               kLz4End,  // stored, lengths differ
           "4c 5a 34 00 " + kLz4Magic + " 20 05 00 00 00 01 04 00 00 00 00 00 00 68 65 6c 6c 6f " +
               kLz4End,  // above 1 << (10 + 0)
           "4c 5a 34 00 " + kLz4Magic + " 26 05 00 00 00 00 00 01 00 00 00 00 00 68 65 6c 6c 6f " +
               kLz4End,  // 64 KiB from 5 bytes
           "4c 5a 34 00 " + kLz4Magic + " 16 00 00 00 00 00 00 00 00 01 00 00 00",  // end, checksum
       }) {
    const std::vector<uint8_t> bytes = hexBytes(hex);
    EXPECT_THROW(decompressBody(bytes, 1 << 20), CorruptStreamError) << hex;
  }
}

}  // namespace
}  // namespace wirestream::transport
