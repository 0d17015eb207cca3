#!/usr/bin/env bash
# The CMake side, as CI runs it: the generated target list matches the BUILD files; CMake
# builds every library, the CLI and the tests, and ctest passes; the install works for a
# find_package consumer (examples/consumer) and for a plain pkg-config compile.
#   tools/check_cmake.sh [BUILD_DIR]      (default: a fresh temporary directory)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
work=${1:-$(mktemp -d)}
prefix=$work/prefix
jobs=$(nproc)

python3 tools/bazel_to_cmake.py --check
cmake -S . -B "$work/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build" -j"$jobs"
(cd "$work/build" && ctest --output-on-failure -j"$jobs")
cmake --install "$work/build" --prefix "$prefix" >/dev/null

cmake -S examples/consumer -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/app"

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046
c++ -std=c++20 -O2 "$src/examples/consumer/app.cc" -o "$work/app-pkgconfig" \
  $(pkg-config --cflags --libs wirestream)
"$work/app-pkgconfig"
echo "check_cmake: build, ctest, install, find_package and pkg-config consumers pass"
