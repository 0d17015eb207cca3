#!/usr/bin/env bash
# Fails if any tracked C++ file differs from .clang-format (clang-format 14, as
# Debian ships it). `tools/check_format.sh --fix` rewrites them instead.
set -euo pipefail
cd "$(dirname "$0")/.."
CF=$(command -v clang-format-14 || command -v clang-format)
mapfile -t files < <(git ls-files '*.h' '*.cc' ':!:third_party/**')
if [ "${1:-}" = "--fix" ]; then
  "$CF" -i "${files[@]}"
  exit 0
fi
"$CF" --dry-run -Werror "${files[@]}"
echo "check_format: ${#files[@]} files clean"
