// BytesStreamOutput and PageRecycler: pages are taken, never copied, and all
// come back; positions and views stay right across every page boundary.
#include "tests/stream/test_util.h"

namespace wirestream {
namespace {

using testing::kPageSizes;

std::vector<uint8_t> pattern(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 7 + 1);
  return v;
}

TEST(BytesStreamOutput, EmptyOutput) {
  BytesStreamOutput out;
  EXPECT_EQ(out.size(), 0u);
  EXPECT_EQ(out.bytes().length(), 0u);
  EXPECT_TRUE(out.bytes().pieces().empty());
  EXPECT_EQ(out.pageCount(), 0u);
}

TEST(BytesStreamOutput, PiecesArePagesAndTheLastIsCut) {
  for (size_t page : kPageSizes) {
    for (size_t n : {page - 1, page, page + 1, 3 * page, 3 * page + 2}) {
      if (n == 0) continue;
      PageRecycler recycler(page);
      BytesStreamOutput out(recycler);
      std::vector<uint8_t> data = pattern(n);
      // Half byte by byte (inline path), half in one call (slow path).
      for (size_t i = 0; i < n / 2; ++i) out.writeByte(data[i]);
      out.writeBytes(std::span(data).subspan(n / 2));
      ASSERT_EQ(out.size(), n);
      BytesReference ref = out.bytes();
      EXPECT_EQ(ref.toVector(), data);
      size_t expected_pieces = (n + page - 1) / page;
      ASSERT_EQ(ref.pieces().size(), expected_pieces) << "page " << page << " n " << n;
      for (size_t i = 0; i + 1 < expected_pieces; ++i) EXPECT_EQ(ref.pieces()[i].size(), page);
      EXPECT_EQ(ref.pieces().back().size(), n - (expected_pieces - 1) * page);
      EXPECT_EQ(out.pageCount(), expected_pieces);
    }
  }
}

TEST(BytesStreamOutput, GrowingNeverMovesAFilledPage) {
  PageRecycler recycler(32);
  BytesStreamOutput out(recycler);
  out.writeBytes(pattern(100));
  BytesReference before = out.bytes();
  std::vector<const uint8_t*> addresses;
  for (auto piece : before.pieces()) addresses.push_back(piece.data());
  out.writeBytes(pattern(10000));
  BytesReference after = out.bytes();
  for (size_t i = 0; i < addresses.size(); ++i) {
    EXPECT_EQ(after.pieces()[i].data(), addresses[i]) << "page " << i << " moved";
  }
  // The earlier view is still valid and still reads the same bytes.
  EXPECT_EQ(before.toVector(), pattern(100));
}

TEST(BytesStreamOutput, ResetAndDestructionReturnEveryPage) {
  PageRecycler recycler(16, 1 << 20);
  {
    BytesStreamOutput out(recycler);
    out.writeBytes(pattern(100));  // 7 pages
    EXPECT_EQ(recycler.outstandingPages(), 7u);
    out.reset();
    EXPECT_EQ(out.size(), 0u);
    EXPECT_EQ(recycler.outstandingPages(), 0u);
    EXPECT_EQ(recycler.pooledPages(), 7u);
    out.writeBytes(pattern(100));  // takes the same 7 pages back
    EXPECT_EQ(recycler.pooledPages(), 0u);
    EXPECT_EQ(out.bytes().toVector(), pattern(100));
  }
  EXPECT_EQ(recycler.outstandingPages(), 0u);
  EXPECT_EQ(recycler.pooledPages(), 7u);
}

TEST(PageRecycler, KeepsPagesUpToItsBudget) {
  PageRecycler recycler(16, 32);  // room for two pooled pages
  {
    BytesStreamOutput out(recycler);
    out.writeBytes(pattern(16 * 5));
  }
  EXPECT_EQ(recycler.outstandingPages(), 0u);
  EXPECT_EQ(recycler.pooledPages(), 2u);
  EXPECT_THROW(PageRecycler(0), std::invalid_argument);
}

TEST(PageRecycler, SharedAcrossThreads) {
  PageRecycler recycler(64, 1 << 20);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&recycler, t] {
      for (int i = 0; i < 200; ++i) {
        BytesStreamOutput out(recycler);
        for (int j = 0; j < 50; ++j) out.writeVInt(t * 1000 + j);
        BytesReferenceStreamInput in(out.bytes());
        for (int j = 0; j < 50; ++j) ASSERT_EQ(in.readVInt(), t * 1000 + j);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(recycler.outstandingPages(), 0u);
}

TEST(BytesStreamOutput, SeekBackToFillAHeaderThenForward) {
  for (size_t page : kPageSizes) {
    PageRecycler recycler(page);
    BytesStreamOutput out(recycler);
    out.skip(4);  // room for a length written once known
    out.writeString("payload");
    size_t end = out.size();
    out.seek(0);
    out.writeInt(static_cast<int32_t>(end - 4));
    out.seek(end);
    ASSERT_EQ(out.size(), end);
    BytesReferenceStreamInput in(out.bytes());
    EXPECT_EQ(in.readInt(), static_cast<int32_t>(end - 4));
    EXPECT_EQ(in.readString(), "payload");
    EXPECT_EQ(in.available(), 0u);
  }
}

TEST(BytesStreamOutput, SeekToAPageBoundaryTakesNoExtraPage) {
  PageRecycler recycler(8);
  BytesStreamOutput out(recycler);
  out.seek(16);
  EXPECT_EQ(out.size(), 16u);
  EXPECT_EQ(out.pageCount(), 2u);
  out.writeByte(1);
  EXPECT_EQ(out.pageCount(), 3u);
  EXPECT_EQ(out.size(), 17u);
}

TEST(BytesStreamOutput, WarmOutputReusesItsPages) {
  PageRecycler recycler(1024, 1 << 20);
  BytesStreamOutput out(recycler);
  out.writeBytes(pattern(5000));
  std::vector<const uint8_t*> first;
  BytesReference first_ref = out.bytes();
  for (auto p : first_ref.pieces()) first.push_back(p.data());
  out.reset();
  out.writeBytes(pattern(5000));
  std::vector<const uint8_t*> second;
  BytesReference second_ref = out.bytes();
  for (auto p : second_ref.pieces()) second.push_back(p.data());
  std::sort(first.begin(), first.end());
  std::sort(second.begin(), second.end());
  EXPECT_EQ(first, second) << "a warm output should write into the pages it gave back";
}

}  // namespace
}  // namespace wirestream
