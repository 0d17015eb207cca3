// Fuzz target: BytesReferenceStreamInput, the reader over paged / composite
// bytes. Input: one layout byte, then a core core program (program.h). The
// program is cut into pieces whose sizes the layout byte picks (1, 2, 3, 5, 7,
// 13, 32, 1024 bytes, as the page-size tables of the unit tests), each piece
// in its own heap block so that ASan sees any read past a piece; with bit 7
// set, the reference is a slice of a larger one. The result (re-encoding,
// consumed bytes, error type and message) must equal that of the same program
// over one contiguous ByteArrayStreamInput, and the re-encoding must be stable.
#include <cstdint>
#include <memory>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "fuzz/program.h"
#include "stream/bytes_reference.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wirestream;
  if (size == 0) return 0;
  const uint8_t layout = data[0];
  std::span<const uint8_t> raw(data + 1, size - 1);

  static constexpr size_t kPieceSizes[] = {1, 2, 3, 5, 7, 13, 32, 1024};
  const bool sliced = layout & 0x80;
  std::vector<std::unique_ptr<uint8_t[]>> blocks;
  std::vector<BytesReference::Piece> pieces;
  auto addPiece = [&](const uint8_t* p, size_t n) {
    blocks.emplace_back(new uint8_t[n]);
    std::copy(p, p + n, blocks.back().get());
    pieces.emplace_back(blocks.back().get(), n);
  };
  static constexpr uint8_t kJunk[3] = {0xFF, 0xFE, 0xFD};
  if (sliced) addPiece(kJunk, sizeof kJunk);
  uint32_t state = layout;
  for (size_t off = 0; off < raw.size();) {
    state = state * 1103515245u + 12345u;
    size_t n = std::min(kPieceSizes[(state >> 16) % 8], raw.size() - off);
    addPiece(raw.data() + off, n);
    off += n;
  }
  if (sliced) addPiece(kJunk, sizeof kJunk);
  BytesReference ref(pieces);
  if (sliced) ref = ref.slice(sizeof kJunk, raw.size());
  FUZZ_CHECK(ref.length() == raw.size(), "reference length %zu != %zu", ref.length(), raw.size());

  BytesReferenceStreamInput paged(ref);
  fuzz::ProgramResult got = fuzz::runProgram(fuzz::coreOps(), paged, raw);
  ByteArrayStreamInput flat(raw);
  fuzz::ProgramResult want = fuzz::runProgram(fuzz::coreOps(), flat, raw);
  FUZZ_CHECK(got.ops == want.ops && got.consumed == want.consumed,
             "paged read %zu ops / %zu bytes, flat %zu / %zu", got.ops, got.consumed, want.ops,
             want.consumed);
  FUZZ_CHECK(got.error == want.error, "paged error [%s], flat error [%s]", got.error.c_str(),
             want.error.c_str());
  FUZZ_CHECK(got.reencoded == want.reencoded, "paged and flat values differ");
  fuzz::checkReencodingIsStable(fuzz::coreOps(), got, flat.transportVersion());
  return 0;
}
