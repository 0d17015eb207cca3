#!/usr/bin/env bash
# CLI tests of //tools:wirestream: encode/decode round trips at both versions,
# the reduce of several shard files, and the error cases (one line naming the
# file, exit 1, no crash).
set -uo pipefail

source "$(dirname "$0")/cli_test_lib.sh" "$1"

cat >"$T/shard1.json" <<'JSON'
[{"type":"sterms","name":"genres","metadata":{"map":[["owner","ops"],["seven",{"long":-2}]]},
  "reduce_order":{"_key":"asc"},"order":{"_count":"desc"},"required_size":2,"min_doc_count":1,
  "doc_count_error":null,"format":"raw","shard_size":3,"show_term_doc_count_error":true,"other_doc_count":4,
  "buckets":[
    {"doc_count":10,"doc_count_error":0,"aggregations":[{"type":"avg","name":"price","metadata":null,"format":"raw","sum":25.0,"count":10}],"key":"rock"},
    {"doc_count":8,"doc_count_error":0,"aggregations":[{"type":"avg","name":"price","metadata":null,"format":"raw","sum":8.0,"count":8}],"key":"jazz"},
    {"doc_count":5,"doc_count_error":0,"aggregations":[{"type":"avg","name":"price","metadata":null,"format":"raw","sum":5.0,"count":5}],"key_hex":"ff00"}]},
 {"type":"cardinality","name":"users","metadata":null,"format":"raw","sketch":{"precision":14,"dense":false,"hashes":[5,7,9]}}]
JSON
cat >"$T/shard2.json" <<'JSON'
[{"type":"sterms","name":"genres","metadata":null,
  "reduce_order":{"_key":"asc"},"order":{"_count":"desc"},"required_size":2,"min_doc_count":1,
  "doc_count_error":null,"format":"raw","shard_size":3,"show_term_doc_count_error":true,"other_doc_count":6,
  "buckets":[
    {"doc_count":9,"doc_count_error":0,"aggregations":[{"type":"avg","name":"price","metadata":null,"format":"raw","sum":9.0,"count":9}],"key":"rock"},
    {"doc_count":7,"doc_count_error":0,"aggregations":[{"type":"avg","name":"price","metadata":null,"format":"raw","sum":70.0,"count":7}],"key":"pop"},
    {"doc_count":6,"doc_count_error":0,"aggregations":[{"type":"avg","name":"price","metadata":null,"format":"raw","sum":6.0,"count":6}],"key":"blues"}]},
 {"type":"cardinality","name":"users","metadata":null,"format":"raw","sketch":{"precision":14,"dense":false,"hashes":[7,11]}}]
JSON
# 5 = e 2 (not a multiple of 2^11): even encodings; the odd ones need e's low 11 bits 0.
sed -i 's/"hashes":\[5,7,9\]/"hashes":[4,8,12]/; s/"hashes":\[7,11\]/"hashes":[8,16]/' "$T/shard1.json" "$T/shard2.json"

for v in 8.7.0 7.10.0; do
  for s in shard1 shard2; do
    "$W" encode --version "$v" "$T/$s.json" -o "$T/$s-$v.bin" || fail "encode $s at $v"
    "$W" decode --version "$v" "$T/$s-$v.bin" >"$T/$s-$v.decoded.json" || fail "decode $s at $v"
    "$W" encode --version "$v" "$T/$s-$v.decoded.json" -o "$T/$s-$v.again.bin" || fail "re-encode $s at $v"
    cmp -s "$T/$s-$v.bin" "$T/$s-$v.again.bin" || fail "encode(decode(bytes)) != bytes for $s at $v"
  done
done
# The decoded JSON carries every field of the input, at both versions.
python3 - "$T" <<'PY' || fail "decode output differs from the encoded JSON"
import json, sys
t = sys.argv[1]
for s in ("shard1", "shard2"):
    src = json.load(open(f"{t}/{s}.json"))
    out = json.load(open(f"{t}/{s}-8.7.0.decoded.json"))
    assert src == out, (src, out)
    old = json.load(open(f"{t}/{s}-7.10.0.decoded.json"))
    assert src == old, (src, old)
PY
# The two versions differ by the docCountError presence byte only.
[ $(($(stat -c %s "$T/shard1-8.7.0.bin") - $(stat -c %s "$T/shard1-7.10.0.bin"))) -ge 1 ] ||
  fail "8.7.0 bytes should be longer than 7.10.0 bytes"

# Reduce: rock 19, jazz 8 kept; pop 7 + blues 6 + ff00 5 + other 4 + 6 = 28
# other; each full _count desc shard bounds the error by its last count: 5 + 6.
"$W" reduce --version 8.7.0 "$T/shard1-8.7.0.bin" "$T/shard2-8.7.0.bin" >"$T/reduced.json" ||
  fail "reduce"
python3 - "$T/reduced.json" <<'PY' || fail "reduce output: $(cat "$T/reduced.json")"
import json, sys
r = json.load(open(sys.argv[1]))
g = r["genres"]
assert list(g.keys()) == ["meta", "doc_count_error_upper_bound", "sum_other_doc_count", "buckets"], g.keys()
assert g["doc_count_error_upper_bound"] == 11, g
assert g["meta"] == {"owner": "ops", "seven": -2}, g
assert g["sum_other_doc_count"] == 28, g
assert [b["key"] for b in g["buckets"]] == ["rock", "jazz"], g
assert [b["doc_count"] for b in g["buckets"]] == [19, 8], g
assert g["buckets"][0]["doc_count_error_upper_bound"] == 0
assert g["buckets"][1]["doc_count_error_upper_bound"] == 6   # shard 2 may hold up to 6 jazz
assert abs(g["buckets"][0]["price"]["value"] - 34.0 / 19) < 1e-12
assert g["buckets"][1]["price"]["value"] == 1.0
assert r["users"]["value"] == 4, r["users"]   # {4, 8, 12} + {8, 16}
PY
"$W" reduce --version 7.10.0 "$T/shard1-7.10.0.bin" "$T/shard2-7.10.0.bin" >"$T/reduced7.json" ||
  fail "reduce at 7.10.0"
cmp -s "$T/reduced.json" "$T/reduced7.json" || fail "reduce differs between versions"

# ---- errors ----
head -c 40 "$T/shard1-8.7.0.bin" >"$T/truncated.bin"
expect_error "truncated.bin: at byte 37: tried to read" "$W" decode --version 8.7.0 "$T/truncated.bin"
# Without --version a read error says which version it read at and how to give the file's.
expect_error "bytes from an older node need its --version" "$W" decode "$T/truncated.bin"
expect_error "truncated.bin" "$W" reduce --version 8.7.0 "$T/shard1-8.7.0.bin" "$T/truncated.bin"
printf 'garbage that is not an aggregation' >"$T/garbage.bin"
expect_error "garbage.bin" "$W" decode "$T/garbage.bin"
: >"$T/empty.bin"
expect_error "empty.bin" "$W" decode "$T/empty.bin"
cat "$T/shard1-8.7.0.bin" <(printf '\x00\x01') >"$T/trailing.bin"
expect_error "2 trailing bytes" "$W" decode "$T/trailing.bin"
printf '\x01\x06xterms\x01a\xff' >"$T/unknown.bin"
expect_error "Unknown NamedWriteable [InternalAggregation][xterms]" "$W" decode "$T/unknown.bin"
expect_error "nothing.bin: cannot open: No such file or directory" "$W" decode "$T/nothing.bin"
# Versions outside 7.10.0 .. current are usage errors that give the range.
range="supported: 7.10.0 to 8.8.x (ids 7100099 to 8080199), the release table's 8.18.8 to 9.5.3 and ids 8500000 to 9458007"
expect_status 2 "--version: not a transport version: [9.x]; $range" \
  "$W" decode --version 9.x "$T/shard1-8.7.0.bin"
expect_status 2 "--version: unknown release [8.10.0]" "$W" decode --version 8.10.0 "$T/shard1-8.7.0.bin"
for v in 8080299 8499999 9458008 6.8.0 7090099; do
  for cmd in decode reduce; do
    expect_status 2 "--version: unsupported version [$v]; $range" \
      "$W" "$cmd" --version "$v" "$T/shard1-8.7.0.bin"
  done
  expect_status 2 "unsupported version [$v]" "$W" encode --version "$v" "$T/shard1.json" -o "$T/x"
done
# Every release of the table and ids of both shapes after 8.7: the same JSON round trip.
for v in 8.8.0 8080099 8.19.7 8841096 9.0.0 9.1.0 9.5.3 9458007; do
  "$W" encode --version "$v" "$T/shard1.json" -o "$T/v.bin" || fail "encode --version $v"
  "$W" decode --version "$v" "$T/v.bin" >"$T/v.json" || fail "decode --version $v"
  cmp -s "$T/v.json" "$T/shard1-8.7.0.decoded.json" || fail "decode --version $v differs"
done
# Every 8.7.x patch release is 8.7's wire (ES 8.7.1 speaks 8070199).
for v in 8.7.1 8070199 8.7.9; do
  "$W" decode --version "$v" "$T/shard1-8.7.0.bin" >"$T/v.json" || fail "decode --version $v"
  cmp -s "$T/v.json" "$T/shard1-8.7.0.decoded.json" || fail "decode --version $v differs"
done
# jq's and protoc's conventions: the library version, a mistyped command, - for stdio,
# relative paths under `bazel run`.
"$W" --version >"$T/version" || fail "--version exit $?"
grep -qxE "wirestream [0-9]+\.[0-9]+\.[0-9]+; Elasticsearch transport versions $(sed 's/[().]/\\&/g' <<<"$range" | sed 's/supported: //')" \
  "$T/version" || fail "--version printed: $(cat "$T/version")"
expect_status 2 "unknown command 'decod' (commands: decode, encode, reduce" "$W" decod x.bin
"$W" decode --version 8.7.0 - <"$T/shard1-8.7.0.bin" >"$T/stdin.json" || fail "decode - exit $?"
cmp -s "$T/stdin.json" "$T/shard1-8.7.0.decoded.json" || fail "decode - differs from decode FILE"
"$W" encode --version 8.7.0 - -o - <"$T/shard1-8.7.0.decoded.json" >"$T/stdout.bin" ||
  fail "encode - -o - exit $?"
cmp -s "$T/stdout.bin" "$T/shard1-8.7.0.bin" || fail "encode -o - differs from encode -o FILE"
[ ! -e ./- ] || fail "encode -o - wrote a file named -"
w_abs=$(realpath "$W")
(cd / && BUILD_WORKING_DIRECTORY="$T" "$w_abs" reduce --version 8.7.0 shard1-8.7.0.bin shard2-8.7.0.bin) \
  >"$T/bwd.json" || fail "reduce under BUILD_WORKING_DIRECTORY exit $?"
cmp -s "$T/bwd.json" "$T/reduced.json" || fail "BUILD_WORKING_DIRECTORY: relative paths not the caller's"
echo '[{"type":"xterms","name":"a","metadata":null}]' >"$T/unknown.json"
expect_error "unknown.json: \$[0].type (xterms [a]): Unknown NamedWriteable [InternalAggregation][xterms]" \
  "$W" encode "$T/unknown.json" -o "$T/x.bin"
echo '[{"type":"max","name":"a"' >"$T/broken.json"
expect_error "broken.json: invalid JSON at byte 27 (" "$W" encode "$T/broken.json" -o "$T/x.bin"
echo '[{"type":"max","name":"a","metadata":null,"format":"raw"}]' >"$T/missing.json"
expect_error "missing field [value]" "$W" encode "$T/missing.json" -o "$T/x.bin"
echo '[{"type":"max","name":"genres","metadata":null,"format":"raw","value":1}]' >"$T/max.json"
"$W" encode --version 8.7.0 "$T/max.json" -o "$T/max.bin" || fail "encode max"
expect_error "cannot reduce" "$W" reduce --version 8.7.0 "$T/shard1-8.7.0.bin" "$T/max.bin"
# Without --version every command is at the newest supported release, 9.5.3.
"$W" encode "$T/shard1.json" -o "$T/shard1-default.bin" || fail "encode at the default"
"$W" encode --version 9.5.3 "$T/shard1.json" -o "$T/shard1-9.5.3.bin" || fail "encode at 9.5.3"
cmp -s "$T/shard1-default.bin" "$T/shard1-9.5.3.bin" || fail "the default version is not 9.5.3"
"$W" decode --help | grep -q "9\.5\.3" || fail "decode --help does not name the default, 9.5.3"

# ---- generic kinds of tags 13, 23, 26, 27 in metadata ----
# encode, decode and encode again give the same bytes and JSON at both
# versions, and the bytes hold ES's encoding of each value (StreamOutput.WRITERS:
# tag, writeString(zone / offset id or decimal), writeLong).
cat >"$T/meta.json" <<'JSON'
[{"type":"max","name":"m","metadata":{"ordered map":[
   ["zoned",{"zoned date time":[1700000000000,"Europe/Paris"]}],
   ["joda",{"joda date time":[1000,"UTC"]}],
   ["big",{"big integer":"-18446744073709551616"}],
   ["time",{"offset time":[34200000000000,"+05:30"]}]]},
  "format":"raw","value":1.5}]
JSON
for v in 8.7.0 7.10.0; do
  "$W" encode --version "$v" "$T/meta.json" -o "$T/meta-$v.bin" || fail "encode meta at $v"
  "$W" decode --version "$v" "$T/meta-$v.bin" >"$T/meta-$v.json" || fail "decode meta at $v"
  "$W" encode --version "$v" "$T/meta-$v.json" -o "$T/meta-again-$v.bin" || fail "re-encode meta at $v"
  cmp -s "$T/meta-$v.bin" "$T/meta-again-$v.bin" || fail "meta: encode(decode(bytes)) != bytes at $v"
  python3 - "$T/meta.json" "$T/meta-$v.json" <<'PY' || fail "meta: decoded JSON differs at $v"
import json, sys
assert json.load(open(sys.argv[1])) == json.load(open(sys.argv[2]))
PY
  hex=$(od -An -tx1 -v "$T/meta-$v.bin" | tr -d ' \n')
  for want in 170c4575726f70652f50617269730000018bcfe56800 0d0355544300000000000003e8 \
    1a152d3138343436373434303733373039353531363136 1b062b30353a333000001f1aced9f000; do
    case "$hex" in *"$want"*) ;; *) fail "meta bytes at $v lack $want: $hex" ;; esac
  done
done
echo '[{"type":"max","name":"m","metadata":{"map":[["t",{"zoned date time":[0,"UTC+1"]}]]},"format":"raw","value":1}]' >"$T/bad-zone.json"
expect_error "bad date time" "$W" encode "$T/bad-zone.json" -o "$T/x.bin"
# ---- ES's bytes of a date_histogram over a date field (7.17.0: the DateTime
# format's joda flag and formatSortValues), decoded, re-encoded and reduced ----
echo "01 0e 646174655f686973746f6772616d 01 61 ff 04 00 01 05 01 5a 00 01 01 0000014aa2cab000 00 00 00
  0000000000000000 09 646174655f74696d65
  27 7374726963745f646174655f6f7074696f6e616c5f74696d657c7c65706f63685f6d696c6c6973
  01 5a 00 00 00 00 01 0000014aa7f10c00 02 00" |
  python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.stdin.read()))' >"$T/dh.bin"
"$W" decode --version 7.17.0 "$T/dh.bin" >"$T/dh.json" || fail "decode date_histogram"
"$W" encode --version 7.17.0 "$T/dh.json" -o "$T/dh.again.bin" || fail "encode date_histogram"
cmp -s "$T/dh.bin" "$T/dh.again.bin" || fail "date_histogram: encode(decode(ES bytes)) != ES bytes"
"$W" reduce --version 7.17.0 "$T/dh.bin" >"$T/dh.response.json" || fail "reduce date_histogram"
python3 - "$T/dh.response.json" <<'PY' || fail "date_histogram response"
import json, sys
b = json.load(open(sys.argv[1]))["a"]["buckets"]
# min bound 2015-01-01 to the one bucket on 2015-01-02: one empty day first
assert [x["key_as_string"] for x in b] == ["2015-01-01T00:00:00.000Z", "2015-01-02T00:00:00.000Z"], b
assert [x["doc_count"] for x in b] == [0, 2], b
PY

# ---- help ----
for cmd in decode encode reduce; do
  "$W" "$cmd" --help >"$T/help" 2>&1 || fail "$cmd --help exit $?"
  grep -q "Usage" "$T/help" || fail "$cmd --help prints no usage"
done
"$W" --help >/dev/null 2>&1 || fail "--help"

finish "all CLI checks passed"
