#!/usr/bin/env bash
# Builds every libFuzzer target (fuzz/<name>_fuzz.cc) with clang 14 and
# ASan+UBSan, runs each for SECONDS (default 60), and fails on any finding.
#
#   tools/fuzz.sh [SECONDS] [NAME...]     e.g. tools/fuzz.sh 600 stream_input
#
# Runs outside Bazel so `bazel test //...` stays gcc-only. The library sources
# (stream/ and the other library directories) are compiled once into an
# archive under $FUZZ_OUT (default /tmp/wirestream-fuzz-$UID), rebuilt when a
# source or header changes. Each target starts from its committed seeds
# (fuzz/corpus/<name>) and regression inputs (fuzz/regressions/<name>) plus a
# scratch corpus that is thrown away. A crashing input is left in
# $FUZZ_OUT/artifacts/; copy it to fuzz/regressions/<name>/<what-it-found>
# so that //fuzz:<name>_replay keeps it fixed.
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-60}
shift || true
out=${FUZZ_OUT:-/tmp/wirestream-fuzz-$(id -u)}
cxx=${FUZZ_CXX:-clang++-14}
# Library code: every top-level directory but these (tools/ holds the CLI's
# wire_json library, which the wire_json target fuzzes; its mains are skipped).
not_lib=" bench docs examples fuzz tests third_party "
lib_dirs=()
for d in */; do
  d=${d%/}
  [[ $not_lib == *" $d "* || $d == bazel-* ]] || lib_dirs+=("$d")
done
# Line tables only: a crash's stack still names file and line, and the 90 sources compile
# and link faster than with full debug information.
flags=(-std=c++20 -O1 -gline-tables-only -fno-omit-frame-pointer -I.
       -fsanitize=address,undefined -fno-sanitize-recover=undefined)
ldlibs=(-llz4 -lsnappy -lz -lhwy)

command -v "$cxx" >/dev/null || { echo "fuzz.sh: $cxx not found (tools/setup.sh)" >&2; exit 1; }
mkdir -p "$out/obj" "$out/artifacts"

# Library + fuzz helper sources: everything but the targets and the mains.
present=(fuzz)
for d in "${lib_dirs[@]}"; do [ -d "$d" ] && present+=("$d"); done
srcs=()
while IFS= read -r f; do srcs+=("$f"); done < <(
  find "${present[@]:1}" -name '*.cc' ! -name '*_test.cc' ! -name '*_benchmark.cc' ! -name '*main.cc' \
    ! -name 'transport_service.cc' | sort)  # the Asio socket layer reads nothing itself
while IFS= read -r f; do srcs+=("$f"); done < <(
  find fuzz -maxdepth 1 -name '*.cc' ! -name '*_fuzz.cc' ! -name replay_main.cc ! -name make_seeds.cc | sort)

lib="$out/libwirestream_fuzz.a"
newest_header=$(find "${present[@]}" -name '*.h' -printf '%T@ %p\n' | sort -n | tail -n 1 | cut -d' ' -f2-)
objs=()
stale=()
for s in "${srcs[@]}"; do
  o="$out/obj/${s//\//_}.o"
  objs+=("$o")
  if [ ! -f "$o" ] || [ "$s" -nt "$o" ] || { [ -n "$newest_header" ] && [ "$newest_header" -nt "$o" ]; }; then
    stale+=("$s")
  fi
done
start=$(date +%s)
if ((${#stale[@]})); then
  echo "fuzz.sh: compiling ${#stale[@]} sources with $cxx"
  printf '%s\n' "${stale[@]}" | xargs -P "$(nproc)" -I{} sh -c '
    o="$1/obj/$(echo "$2" | tr / _).o"; src=$0; shift 2
    exec "$@" -c "$src" -o "$o"' \
    {} "$out" {} "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link
  rm -f "$lib"
fi
[ -f "$lib" ] || ar rcs "$lib" "${objs[@]}"

names=("$@")
if ((${#names[@]} == 0)); then
  for t in fuzz/*_fuzz.cc; do n=$(basename "$t" _fuzz.cc); names+=("$n"); done
fi
for n in "${names[@]}"; do
  bin="$out/$n"
  if [ ! -f "$bin" ] || [ "fuzz/${n}_fuzz.cc" -nt "$bin" ] || [ "$lib" -nt "$bin" ]; then
    "$cxx" "${flags[@]}" -fsanitize=fuzzer "fuzz/${n}_fuzz.cc" "$lib" "${ldlibs[@]}" -o "$bin"
  fi
done
echo "fuzz.sh: built ${#names[@]} targets in $(( $(date +%s) - start )) s"

failed=()
summary=()
for n in "${names[@]}"; do
  work="$out/work/$n"
  rm -rf "$work"
  mkdir -p "$work"
  dirs=("fuzz/corpus/$n")
  [ -d "fuzz/regressions/$n" ] && dirs+=("fuzz/regressions/$n")
  log="$out/$n.log"
  echo "=== fuzz $n: ${secs}s"
  rc=0
  "$out/$n" -max_total_time="$secs" -malloc_limit_mb=64 -rss_limit_mb=2048 \
    -timeout=5 -print_final_stats=1 -artifact_prefix="$out/artifacts/$n-" \
    "$work" "${dirs[@]}" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -n 1 || true)
  if [ "$rc" -ne 0 ]; then
    failed+=("$n")
    tail -n 40 "$log"
    summary+=("$n: FAILED (rc $rc), ${execs:-?} executions; log $log")
  else
    summary+=("$n: ok, ${execs:-?} executions, $cov")
  fi
done
echo "=== fuzz summary (${secs}s a target)"
printf '  %s\n' "${summary[@]}"
if ((${#failed[@]})); then
  echo "fuzz.sh: findings in ${failed[*]}; inputs in $out/artifacts/" >&2
  exit 1
fi
