#!/usr/bin/env bash
# tools/bazel_to_cmake.py translates or refuses: each BUILD file below holds one thing it
# cannot translate, and it must stop naming the rule and the thing; a tree of what it does
# translate must come out with ALWAYSLINK and the textual headers.
#   bazel_to_cmake_test.sh <bazel_to_cmake.py>
set -euo pipefail
gen=$1
tmp=${TEST_TMPDIR:-$(mktemp -d)}
failed=0

tree() {  # tree NAME BUILD-TEXT: a one-package workspace at $tmp/NAME
  mkdir -p "$tmp/$1/lib" "$tmp/$1/cmake"
  printf '%s\n' "$2" >"$tmp/$1/lib/BUILD.bazel"
}

refused() {  # refused NAME EXPECTED-TEXT
  local out rc=0
  out=$(python3 "$gen" --root "$tmp/$1" 2>&1) || rc=$?
  if [[ $rc -eq 0 ]]; then
    echo "FAIL $1: the generator accepted it"
    failed=1
  elif [[ $out != *"$2"* ]]; then
    echo "FAIL $1: expected '$2' in: $out"
    failed=1
  else
    echo "ok   $1: $out"
  fi
}

tree unknown_attribute 'cc_library(name = "a", srcs = ["a.cc"], includes = ["x"])'
refused unknown_attribute "cc_library //lib:a sets includes, which has no CMake translation"

tree select_key 'cc_library(name = "a", srcs = select({"@platforms//cpu:aarch64": ["arm.cc"], "//conditions:default": ["a.cc"]}))'
refused select_key "select() on @platforms//cpu:aarch64 has no CMake translation"

tree linkstatic_installed 'cc_library(name = "lib", srcs = ["a.cc"], linkstatic = True)'
refused linkstatic_installed "//lib:lib: linkstatic on an installed library"

tree genrule 'genrule(name = "g", outs = ["g.h"], cmd = "touch $@")'
refused genrule "genrule //lib:g has no CMake form"

# What it translates: alwayslink and textual_hdrs come through.
tree good 'cc_library(name = "lib", srcs = ["a.cc"], hdrs = ["a.h"], textual_hdrs = ["a.inc"], alwayslink = True, testonly = True)'
python3 "$gen" --root "$tmp/good"
out=$(cat "$tmp/good/cmake/bazel_targets.cmake")
for want in "ws_cc_library(lib" "ALWAYSLINK" "HDRS lib/a.h lib/a.inc"; do
  if [[ $out != *"$want"* ]]; then
    echo "FAIL good: no '$want' in: $out"
    failed=1
  fi
done
[[ $failed -eq 0 ]] && echo "bazel_to_cmake_test: all passed"
exit $failed
