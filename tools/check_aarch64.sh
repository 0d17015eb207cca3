#!/usr/bin/env bash
# Cross-builds wirestream's stream, simd and aggregations test suites for aarch64 with
# Debian's cross compiler (cmake/toolchains/aarch64-linux-gnu.cmake) and runs them under
# qemu-user through ctest: the ARM check CI runs. Installs what it needs first (the
# arm64 architecture, the cross compiler, qemu, the arm64 -dev packages); idempotent, like
# tools/setup.sh. Builds only those suites' targets. With ccache (installed here) a warm
# cache (CCACHE_DIR, default ~/.cache/ccache) makes a repeated run mostly link and test.
#   tools/check_aarch64.sh [BUILD_DIR]    (default: a fresh temporary directory; ccache
#                                          keeps repeated runs fast)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-$(mktemp -d)}
suites='stream|simd|aggregations'

# ---- packages ----
HOST_PACKAGES=(g++-aarch64-linux-gnu qemu-user cmake ninja-build ccache nlohmann-json3-dev)
# What the CMake configure finds (cmake/Dependencies.cmake) and the suites link, for arm64.
ARM64_PACKAGES=(libhwy-dev libgtest-dev libgmock-dev libboost-dev libssl-dev zlib1g-dev
  libsnappy-dev liblz4-dev)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
missing=()
for p in "${HOST_PACKAGES[@]}" "${ARM64_PACKAGES[@]/%/:arm64}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "check_aarch64: installing ${missing[*]}" >&2
  dpkg --print-foreign-architectures | grep -qx arm64 || $SUDO dpkg --add-architecture arm64
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# ---- build only what the suites need ----
# Ninja: with Makefiles, `--target a b c` builds one target after the other, and a test
# is one source file, so only one core would work.
cmake -S . -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
  -DCMAKE_BUILD_TYPE=Release -DWIRESTREAM_BUILD_TOOLS=OFF \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null
mapfile -t targets < <(grep -oE "^ws_cc_test\(tests_($suites)_[A-Za-z0-9_]+" \
  cmake/bazel_targets.cmake | sed 's/^ws_cc_test(//')
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"

# ---- run them under qemu (CMAKE_CROSSCOMPILING_EMULATOR) ----
cd "$build"
ctest -R "^tests/($suites)/" --output-on-failure -j"$(nproc)"
echo "check_aarch64: ${#targets[@]} aarch64 test binaries pass under qemu"
