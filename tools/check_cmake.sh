#!/usr/bin/env bash
# The CMake side, as CI runs it: the generated target list matches the BUILD files; CMake
# builds every library, the CLI and the tests (but those Bazel runs three ways, below) with
# Bazel's warnings as errors, and ctest passes; the install works for a find_package consumer (examples/consumer) and for a plain
# pkg-config compile; the installed CLI starts from this non-standard prefix (RUNPATH); no
# testing helper is installed or linked by a consumer; the header, CMake package and
# pkg-config agree on the version.
#   tools/check_cmake.sh [BUILD_DIR]      (default: a fresh temporary directory)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
work=${1:-$(mktemp -d)}
prefix=$work/prefix
jobs=$(nproc)

python3 tools/bazel_to_cmake.py --check
# Left out: the transport and fault-suite tests, the fuzz replays and the interop tools. Bazel
# builds and runs them in the default, ASan+UBSan and (transport) TSan suites, the fuzz step
# and the harness; on 2 cores their Release build here was a quarter of CI's critical path.
cmake -S . -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DWIRESTREAM_WERROR=ON \
  "-DWIRESTREAM_SKIP_PACKAGES=tests/transport;tests/faults;fuzz;interop" >/dev/null
cmake --build "$work/build" -j"$jobs"
(cd "$work/build" && ctest --output-on-failure -j"$jobs")
cmake --install "$work/build" --prefix "$prefix" >/dev/null

fail() { echo "check_cmake: $*" >&2; exit 1; }
# The installed CLI runs from the prefix alone, without LD_LIBRARY_PATH.
version=$(sed -nE 's/^#define WIRESTREAM_VERSION "(.*)"$/\1/p' stream/wirestream_version.h)
out=$(env -u LD_LIBRARY_PATH "$prefix/bin/wirestream" --version) ||
  fail "the installed CLI does not start: $out"
[[ $out == "wirestream $version;"* ]] || fail "installed wirestream --version: $out"
env -u LD_LIBRARY_PATH "$prefix/bin/wirestream" decode --version 8.7.0 examples/data/shard0.bin \
  >/dev/null ||
  fail "the installed CLI cannot decode examples/data/shard0.bin"
# Tools link the static libraries (BazelRules.cmake), also through a gathering library.
linked=$(ldd "$prefix/bin/wirestream")
[[ $linked != *libwirestream* ]] || fail "the installed CLI links shared wirestream libraries: $linked"
installed_testing=$(find "$prefix" -ipath '*testing*' | head -n 3)
[ -z "$installed_testing" ] || fail "testing helpers installed: $installed_testing"

cmake -S examples/consumer -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/app"

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[ "$(pkg-config --modversion wirestream)" = "$version" ] ||
  fail "pkg-config says $(pkg-config --modversion wirestream), the header $version"
grep -q "PACKAGE_VERSION \"$version\"" "$prefix/lib/cmake/wirestream/wirestreamConfigVersion.cmake" ||
  fail "the CMake package's version is not $version"
libs=$(pkg-config --libs wirestream)
[[ $libs != *testing* ]] || fail "pkg-config --libs links a testing helper: $libs"
# shellcheck disable=SC2046
c++ -std=c++20 -O2 "$src/examples/consumer/app.cc" -o "$work/app-pkgconfig" \
  $(pkg-config --cflags --libs wirestream)
"$work/app-pkgconfig"
echo "check_cmake: build, ctest, install, find_package and pkg-config consumers pass"
