#!/usr/bin/env bash
# Builds and runs examples/bazel_consumer, a workspace that depends on wirestream through
# deps.bzl, as its README block says (no flags beyond its own .bazelrc), and checks that
# the build is quiet: no sandbox debug lines (CI runs this).
set -euo pipefail
cd "$(dirname "$0")/../examples/bazel_consumer"
log=$(mktemp)
bazel build //:app 2>&1 | tee "$log" | tail -n 3
noise=$(grep -c "src/main/tools/linux-sandbox" "$log" || true)
[ "$noise" -eq 0 ] || { echo "check_bazel_consumer: $noise linux-sandbox debug lines"; exit 1; }
rm -f "$log"
bazel-bin/app
bazel shutdown
echo "check_bazel_consumer: the outside workspace builds and runs"
