// FUZZ_CHECK: the assertion of the fuzz targets. A failed check prints what
// broke and aborts, so libFuzzer saves the input as a crash artifact and the
// gcc replay tests (replay_main.cc) fail. Unlike assert() it stays on in
// optimised builds.
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond, ...)                                                                \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "FUZZ_CHECK failed at %s:%d: %s\n  ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                                     \
      std::fprintf(stderr, "\n");                                                            \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)
