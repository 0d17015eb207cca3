// Summary: which time stands for a benchmark, the ratios, and the targets.
#include "bench/summary.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace wirestream::bench {
namespace {

std::string printed(const Summary& s) {
  std::FILE* f = std::tmpfile();
  s.print(f);
  std::rewind(f);
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  return text;
}

TEST(Summary, MedianOfIterationRunsUnlessTheMedianAggregateIsGiven) {
  Summary s;
  s.add("BM_WriteVInt_Wirestream_Mixed", 30, "", {});
  s.add("BM_WriteVInt_Wirestream_Mixed", 10, "", {});
  s.add("BM_WriteVInt_Wirestream_Mixed", 20, "", {});
  EXPECT_EQ(s.timeOf("BM_WriteVInt_Wirestream_Mixed"), 20);
  s.add("BM_WriteVInt_Wirestream_Mixed", 15, "mean", {});
  EXPECT_EQ(s.timeOf("BM_WriteVInt_Wirestream_Mixed"), 20);
  s.add("BM_WriteVInt_Wirestream_Mixed", 12, "median", {});
  EXPECT_EQ(s.timeOf("BM_WriteVInt_Wirestream_Mixed"), 12);
  EXPECT_FALSE(s.timeOf("BM_Absent").has_value());
}

TEST(Summary, TargetsComeFromTheRatios) {
  Summary s;
  s.add("BM_WriteVInt_Wirestream_Mixed", 100, "", {});
  s.add("BM_WriteVInt_Protobuf_Mixed", 149, "", {});  // 1.49x: under 1.5x
  s.add("BM_ReadVInt_Wirestream_Mixed", 100, "", {});
  s.add("BM_ReadVInt_Protobuf_Mixed", 120, "", {});  // exactly 1.2x: met
  s.add(
      "BM_StringTermsSerialize_Wirestream/1000", 10, "",
      {{"allocs_per_iter", 0}, {"peak_extra_bytes", 1000 + 2 * 16384 + 1}, {"output_bytes", 1000}});
  s.add("BM_Memcpy_StringTermsBytes/1000", 1, "", {});  // 10x: met
  auto targets = s.targets();
  ASSERT_EQ(targets.size(), 5u);
  EXPECT_EQ(targets[0].description, "WriteVInt_Mixed >= 1.5x protobuf");
  EXPECT_FALSE(targets[0].met);
  EXPECT_EQ(targets[0].measured, "1.49x");
  EXPECT_TRUE(targets[1].met);
  EXPECT_TRUE(targets[2].met);   // memcpy
  EXPECT_TRUE(targets[3].met);   // zero allocations
  EXPECT_FALSE(targets[4].met);  // one byte over output + 2 pages
}

TEST(Summary, PrintsOneRowPerOperationAndCaseWithTheAblations) {
  Summary s;
  s.add("BM_WriteVInt_Wirestream_OneByte", 50, "", {});
  s.add("BM_WriteVInt_Protobuf_OneByte", 100, "", {});
  s.add("BM_WriteVInt_EsLoop_OneByte", 200, "", {});
  s.add("BM_NotABenchmarkName", 1, "", {});
  std::string text = printed(s);
  EXPECT_NE(text.find("WriteVInt"), std::string::npos) << text;
  EXPECT_NE(text.find("2.00x"), std::string::npos) << text;             // ours vs protobuf
  EXPECT_NE(text.find("200.0 ns (0.50x)"), std::string::npos) << text;  // EsLoop vs protobuf
  EXPECT_EQ(text.find("NotABenchmarkName"), std::string::npos) << text;
}

TEST(Summary, NothingToCompareNothingPrinted) {
  Summary s;
  EXPECT_EQ(printed(s), "");
}

}  // namespace
}  // namespace wirestream::bench
