#!/usr/bin/env bash
# clang-tidy-14 with the repository's .clang-tidy over the library sources (stream/,
# aggregations/, tsm/, simd/, codec/, tools/), failing on any finding. The compile
# database comes from a CMake configure (no build) with CMAKE_EXPORT_COMPILE_COMMANDS.
#   tools/check_tidy.sh [BUILD_DIR]     (default: a fresh temporary directory)
#   JOBS=n tools/check_tidy.sh          (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
jobs=${JOBS:-$(nproc)}
tidy=${CLANG_TIDY:-clang-tidy-14}

cmake -S . -B "$work" -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  -DCMAKE_CXX_COMPILER=g++ >/dev/null
# Tracked library sources only (not tests, fuzzers, benchmarks, transport).
mapfile -t files < <(git ls-files 'stream/*.cc' 'aggregations/*.cc' 'tsm/*.cc' 'simd/*.cc' \
  'codec/*.cc' 'tools/*.cc')
echo "check_tidy: ${#files[@]} files, $jobs jobs"
# --quiet: only findings; -p: the database. gcc's flags are understood by clang,
# except a few warnings, which --extra-arg silences.
printf '%s\n' "${files[@]}" |
  xargs -P "$jobs" -n 1 "$tidy" --quiet -p "$work" --extra-arg=-Wno-unknown-warning-option \
    >"$work/tidy.log" 2>&1 || {
  grep -E "(warning|error):" "$work/tidy.log" | sort -u
  echo "check_tidy: findings above (full log: $work/tidy.log)"
  exit 1
}
echo "check_tidy: clean"
