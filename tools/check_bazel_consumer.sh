#!/usr/bin/env bash
# Builds and runs examples/bazel_consumer, a workspace that depends on wirestream through
# deps.bzl, with no .bazelrc of its own (CI runs this).
set -euo pipefail
cd "$(dirname "$0")/../examples/bazel_consumer"
bazel build --spawn_strategy=processwrapper-sandbox //:app
bazel-bin/app
bazel shutdown
echo "check_bazel_consumer: the outside workspace builds and runs"
