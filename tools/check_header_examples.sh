#!/usr/bin/env bash
# Fails if a header of the library holds a code-looking comment block that is not a marked
# example, or a marked example that tests/header_examples/BUILD.bazel does not compile
# (tools/header_examples.py; bazel test //tests/header_examples compiles the listed ones).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t headers < <(git ls-files 'stream/*.h' 'codec/*.h' 'tsm/*.h' 'simd/*.h' \
  'transport/*.h' 'aggregations/*.h')
python3 tools/header_examples.py --check tests/header_examples/BUILD.bazel "${headers[@]}"
