#!/usr/bin/env bash
# Compiles transport/ (the Asio side and its transport/net/ units) with clang's
# thread-safety analysis as errors: a member annotated WS_GUARDED_BY(mu) used
# without `mu` held, or a WS_REQUIRES function called without it, fails.
# The annotations are in transport/net/thread_annotations.h. Syntax-only: no
# objects are built, so it needs only clang++-14 and the system headers the
# Bazel build uses (Boost, OpenSSL, zlib, lz4).
#
#   tools/check_thread_safety.sh            # exit 0: no finding
set -euo pipefail
cd "$(dirname "$0")/.."
CXX=${CXX:-clang++-14}
if ! command -v "$CXX" >/dev/null; then
  echo "check_thread_safety: $CXX not found (apt-get install clang-14)" >&2
  exit 2
fi
# A probe that must fail proves the analysis is on (a compiler that ignores the
# attributes would pass everything).
probe=$(mktemp --suffix=.cc)
trap 'rm -f "$probe"' EXIT
cat >"$probe" <<'CC'
#include "transport/net/thread_annotations.h"
struct Probe {
  wirestream::transport::net::Mutex mu;
  int value WS_GUARDED_BY(mu) = 0;
  void unlocked() { value = 1; }
};
CC
if "$CXX" -std=c++20 -fsyntax-only -I. -Wthread-safety -Werror=thread-safety "$probe" 2>/dev/null; then
  echo "check_thread_safety: the analysis did not flag an unlocked access; is it enabled?" >&2
  exit 2
fi
status=0
for f in $(git ls-files 'transport/*.cc'); do  # recursive: transport/net/ too
  if ! "$CXX" -std=c++20 -fsyntax-only -I. -Wthread-safety -Werror=thread-safety \
      -Wno-unknown-warning-option "$f"; then
    status=1
  fi
done
if [ "$status" -eq 0 ]; then echo "check_thread_safety: transport/ passes -Wthread-safety"; fi
exit "$status"
