#!/usr/bin/env bash
# tools/interop_report.py turns tools/interop.sh's lines into docs/compatibility.md: counts per
# version and check, a failed check marked, known differences listed with their reason, a
# version whose build failed shown as such, and a log without results refused (exit 1).
set -uo pipefail
report=$1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat >"$t/log" <<'LOG'
interop ES 8.7.1 (transport version 8070199), seed 20261202
  known difference (3x): wirestream refuses a string longer than its limit
interop ES 8.7.1 vectors: 2310 of 2310 match
  FAIL reduce: case 17: bytes differ at 40
interop ES 8.7.1 reduce: 299 of 300 match
interop ES 8.7.1 transport: 12 of 12 pass
interop ES 7.17.29 build: 0 of 1 pass
LOG
python3 "$report" "$t/log" "$t/out.md" || fail "report exited $?"
grep -qx '| 8.7.1 | 8070199 | 20261202 | 2310 of 2310 match | 299 of 300 match \*\*FAILED\*\* | 12 of 12 pass | not run |' "$t/out.md" ||
  fail "8.7.1 row: $(grep '8.7.1 |' "$t/out.md")"
grep -q '| 7.17.29 | ? | ? | not built | not built | not built |' "$t/out.md" || fail "7.17.29 row"
grep -q 'ES 8.7.1, vectors (3 cases, seed 20261202): wirestream refuses a string' "$t/out.md" ||
  fail "known difference"
grep -q 'ES 8.7.1, reduce, seed 20261202: case 17: bytes differ at 40' "$t/out.md" || fail "failure"

echo "interop ES 8.7.1 (transport version 8070199), seed 1" >"$t/empty"
python3 "$report" "$t/empty" "$t/none.md" 2>/dev/null && fail "a log without results was accepted"
[ ! -e "$t/none.md" ] || fail "wrote a matrix from a log without results"
echo "interop_report_test: ok"
