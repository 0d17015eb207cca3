#!/usr/bin/env bash
# CLI round trips of aggregation metadata holding the generic kinds of tags
# 13, 23, 26 and 27 (Joda / zoned date-times, BigInteger, OffsetTime): encode,
# decode and encode again give the same bytes and JSON at both versions, and
# the bytes hold ES's encoding of each value. Bad ones fail with one line.
set -uo pipefail

W="$1"
T="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

cat >"$T/meta.json" <<'JSON'
[{"type":"max","name":"m","metadata":{"ordered map":[
   ["zoned",{"zoned date time":[1700000000000,"Europe/Paris"]}],
   ["joda",{"joda date time":[1000,"UTC"]}],
   ["big",{"big integer":"-18446744073709551616"}],
   ["time",{"offset time":[34200000000000,"+05:30"]}]]},
  "format":"raw","value":1.5}]
JSON
for v in 8.7.0 7.10.0; do
  "$W" encode --version "$v" "$T/meta.json" -o "$T/meta-$v.bin" || fail "encode at $v"
  "$W" decode --version "$v" "$T/meta-$v.bin" >"$T/meta-$v.json" || fail "decode at $v"
  "$W" encode --version "$v" "$T/meta-$v.json" -o "$T/again-$v.bin" || fail "re-encode at $v"
  cmp -s "$T/meta-$v.bin" "$T/again-$v.bin" || fail "encode(decode(bytes)) != bytes at $v"
  python3 - "$T/meta.json" "$T/meta-$v.json" <<'PY' || fail "decoded JSON differs at $v"
import json, sys
assert json.load(open(sys.argv[1])) == json.load(open(sys.argv[2]))
PY
  hex=$(od -An -tx1 -v "$T/meta-$v.bin" | tr -d ' \n')
  # StreamOutput.WRITERS: tag, writeString(zone or offset id), writeLong.
  for want in 170c4575726f70652f50617269730000018bcfe56800 \
    0d0355544300000000000003e8 \
    1a152d3138343436373434303733373039353531363136 \
    1b062b30353a333000001f1aced9f000; do
    case "$hex" in *"$want"*) ;; *) fail "bytes at $v lack $want: $hex" ;; esac
  done
done

echo '[{"type":"max","name":"m","metadata":{"map":[["t",{"zoned date time":[0,"UTC+1"]}]]},"format":"raw","value":1}]' >"$T/bad.json"
"$W" encode "$T/bad.json" -o "$T/bad.bin" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 1 ] || fail "exit $rc (want 1) on a zone id Java does not write"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "stderr is not one line: $(cat "$T/err")"
grep -qF "bad date time" "$T/err" || fail "stderr lacks the reason: $(cat "$T/err")"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo PASS
