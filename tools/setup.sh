#!/usr/bin/env bash
# Installs everything wirestream needs to build, test and benchmark, from
# Debian's packages only (no other downloads). Idempotent: when every package
# is already present it only checks and returns.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap       # Bazel 4.2.3, offline (WORKSPACE mode)
  g++                   # the default compiler (gcc 12, C++20)
  clang-14              # libFuzzer builds (fuzz/)
  libclang-rt-14-dev    # clang's sanitizer and fuzzer runtimes
  libgtest-dev libgmock-dev
  libbenchmark-dev
  libboost-dev          # Boost.Endian, Boost.Asio
  libprotobuf-dev protobuf-compiler   # the protobuf peer in bench/
  libhwy-dev            # Highway: SIMD dispatch
  nlohmann-json3-dev    # JSON in the CLI and renderers
  libcli11-dev          # the CLI's argument parser
  liblz4-dev            # transport frame compression
  python3               # tools/*.py (test counting, charts)
  clang-format-14       # tools/check_format.sh (CI)
  clang-tidy-14         # tools/check_tidy.sh (CI)
  libssl-dev            # TLS between nodes (OpenSSL 3)
  zlib1g-dev            # DEFLATE frames, as Elasticsearch writes them
  libsnappy-dev         # tsm/: TSM string blocks
  libzstd-dev           # bench/: zstd beside the TSM blocks
  libflatbuffers-dev flatbuffers-compiler   # bench/ peers on the StringTerms tree
  libcapnp-dev capnproto
  libcereal-dev
  libmsgpack-cxx-dev
  tzdata                # region time zones (TZif files) for date_histogram and date formats
  cmake pkg-config      # the CMake build and its consumers (tools/check_cmake.sh)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: all ${#PACKAGES[@]} packages present" >&2
