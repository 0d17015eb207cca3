# The system packages wirestream's libraries use (Debian: see tools/setup.sh). Included by
# the build and, installed, by wirestreamConfig.cmake, so consumers find the same ones.
include(CMakeFindDependencyMacro)
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_dependency(Threads)
find_dependency(Boost 1.74)
find_dependency(nlohmann_json 3.10)
find_dependency(OpenSSL 3)  # TLS between nodes
find_dependency(ZLIB)       # DEFLATE frames
find_dependency(Snappy)     # TSM string blocks
find_dependency(hwy)        # Highway: SIMD target regions and dispatch (simd, codecs)
if(NOT TARGET lz4)  # liblz4-dev ships no CMake package: the plain library
  add_library(lz4 INTERFACE IMPORTED)
  set_target_properties(lz4 PROPERTIES INTERFACE_LINK_LIBRARIES "-llz4")
endif()
if(WIRESTREAM_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(WIRESTREAM_BUILD_TOOLS)
  find_package(CLI11 REQUIRED)
endif()
