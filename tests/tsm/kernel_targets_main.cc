// A gtest main that runs every test once per kernel table of //tsm (the
// scalar loops, then each Highway target this CPU runs): the expected blocks
// derived from InfluxDB's Go code must come out of every target. A failure
// names its target in the iteration banner and in the test's output.
#include <gtest/gtest.h>

#include <cstdio>

#include "tsm/tsm_kernels.h"

namespace {

class UseTargetPerIteration : public testing::EmptyTestEventListener {
 public:
  void OnTestIterationStart(const testing::UnitTest&, int iteration) override {
    using namespace wirestream::tsm::internal;
    const Kernels& table = kernelTable(size_t(iteration) % kernelTableCount());
    useKernels(&table);
    std::printf("[ kernels  ] %s\n", table.name);
  }
  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (result.failed()) {
      std::printf("[ kernels  ] the failure above is at %s\n",
                  wirestream::tsm::internal::kernels().name);
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  GTEST_FLAG_SET(repeat, int(wirestream::tsm::internal::kernelTableCount()));
  testing::UnitTest::GetInstance()->listeners().Append(new UseTargetPerIteration);
  return RUN_ALL_TESTS();
}
