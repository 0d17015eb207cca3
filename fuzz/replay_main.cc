// A main() that feeds files to a libFuzzer entry point, so the committed seed
// corpus and the regression inputs of every fuzz target run as ordinary gcc
// cc_tests inside `bazel test //...` (no libFuzzer needed).
//
//   replay FILE...      runs LLVMFuzzerTestOneInput on each file in turn
//
// A finding aborts inside the target (FUZZ_CHECK, a sanitizer, an uncaught
// exception), which fails the test. Fails as well when given no input at all,
// so a broken glob cannot turn the test into one that checks nothing.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "replay: no input files\n");
    return 1;
  }
  for (int i = 1; i < argc; ++i) {
    std::ifstream f(argv[i], std::ios::binary);
    if (!f) {
      std::fprintf(stderr, "replay: cannot open %s\n", argv[i]);
      return 1;
    }
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)),
                               std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  std::printf("replay: %d inputs passed\n", argc - 1);
  return 0;
}
