// The version of the wirestream library, under semantic versioning (the README's
// "API policy": what is public, what a minor and a major release may change).
// This header is the one place it is written: CMakeLists.txt reads its project
// version from here, so the CMake package (wirestreamConfigVersion.cmake) and
// the pkg-config module carry the same numbers, and `wirestream --version`
// prints WIRESTREAM_VERSION.
//
// Example (runs: wirestream_version):
//   #include <cstdio>
//   #include "stream/wirestream_version.h"
//   static_assert(WIRESTREAM_VERSION_MAJOR == 0 && WIRESTREAM_VERSION_MINOR >= 2);
//   std::puts(WIRESTREAM_VERSION);  // "0.2.0"
#pragma once

#define WIRESTREAM_VERSION_MAJOR 0
#define WIRESTREAM_VERSION_MINOR 2
#define WIRESTREAM_VERSION_PATCH 0
#define WIRESTREAM_VERSION "0.2.0"
