#!/usr/bin/env bash
# The resource contract of //tools:wirestream (docs/cli.md, "Resource limits
# and errors"), each case bounded in time (timeout) and stack or memory:
# JSON nested 50,000 deep under a 1 MiB stack, a 200,000-key object, huge
# strings, decode of a large input under 64 MiB + 16 x its size of peak RSS,
# reduce's bucket budget on the 109-byte nested-histogram bomb, reduce's
# streamed response for a 100 KB date pattern (its ~150 MB of output within the
# same bound), out of memory as one line, and the exit status and single line
# of every kind of error.
set -uo pipefail

source "$(dirname "$0")/cli_test_lib.sh" "$1"

python3 - "$T" <<'PY'
import json, struct, sys
t = sys.argv[1]
def w(name, text):
    open(f"{t}/{name}", "w").write(text)
n = 50000
w("deep_arrays.json", "[" * n + "]" * n)
w("deep_objects.json", '{"a":' * n + "1" + "}" * n)
w("deep_metadata.json", '[{"type":"max","name":"a","metadata":' + '{"list":[' * n + "1" + "]}" * n +
  ',"format":"raw","value":1}]')
keys = ",".join(f'"k{i}":{i}' for i in range(200000))
head = '[{"type":"max","name":"a","metadata":null,"format":"raw","value":1,'
w("wide.json", head + keys + "}]")
w("small.json", '[{"type":"max","name":"a","metadata":null,"format":"raw","value":1}]')
w("wide_dup.json", head + keys + ',"k7":1}]')
big = "x" * (8 << 20)
w("huge_name.json", '[{"type":"max","name":"' + big + '","metadata":null,"format":"raw","value":1}]')
w("huge_type.json", '[{"type":"' + big + '","name":"a","metadata":null}]')
w("huge_value.json", '[{"type":"max","name":"a","metadata":null,"format":"raw","value":"' + big + '"}]')
w("huge_unterminated.json", '[{"type":"max","name":"' + big)

# A large result for decode: sterms with 20,000 buckets, each with an avg and
# a histogram of 3 buckets, and an lterms of 60,000 buckets.
def terms(kind, name, buckets, show):
    return {"type": kind, "name": name, "metadata": None, "reduce_order": {"_key": "asc"},
            "order": {"_count": "desc"}, "required_size": 10, "min_doc_count": 1,
            "doc_count_error": None, "format": "raw", "shard_size": 10,
            "show_term_doc_count_error": show, "other_doc_count": 0, "buckets": buckets}
sb = [{"doc_count": 1000 - i % 1000, "doc_count_error": 0, "aggregations": [
        {"type": "avg", "name": "p", "metadata": None, "format": "raw", "sum": float(i), "count": i + 1},
        {"type": "histogram", "name": "h", "metadata": None, "order": {"_key": "asc"}, "min_doc_count": 1,
         "empty_bucket_info": None, "format": "raw", "keyed": False,
         "buckets": [{"key": float(k), "doc_count": k + 1, "aggregations": []} for k in range(3)]}],
       "key": "term-%06d" % i} for i in range(20000)]
lb = [{"doc_count": 1, "aggregations": [], "key": i} for i in range(60000)]
w("large.json", json.dumps([terms("sterms", "s", sb, True), terms("lterms", "l", lb, False)]))

# The nested-histogram bomb, field by field (wire format §7): 65,536 empty
# buckets, each to hold a histogram of 65,536 empty buckets.
def s(x):
    return bytes([len(x)]) + x.encode()
def hist(name, lo, hi, empty_subs):
    return (s("histogram") + s(name) + b"\xff" + b"\x04" + b"\x00" + struct.pack(">dd", 1, 0) +
            struct.pack(">dd", lo, hi) + empty_subs +
            s("raw") + b"\x00" + b"\x00")
bomb = b"\x01" + hist("o", 0, 65535, b"\x01" + hist("i", 0, 65535, b"\x00"))
open(f"{t}/bomb.bin", "wb").write(bomb)
# A date_histogram whose format pattern is a 100 KB literal (then the time of
# day, so keys differ), with two buckets far apart that the final reduce fills
# in between (min_doc_count 0, a 1 ms interval): each bucket prints a 100 KB
# key_as_string, so a response built whole takes a few hundred MB.
def long_pattern(n, keyed):
    return [{"type": "date_histogram", "name": "d", "metadata": None, "order": {"_key": "asc"},
             "min_doc_count": 0,
             "empty_bucket_info": {"rounding": {"unit": None, "interval": 1, "zone": "Z",
                                                "offset": None}, "aggregations": [], "bounds": None},
             "offset": 0,
             "format": {"name": "date_time", "pattern": "'" + "x" * 100000 + "'HHmmssSSS",
                        "zone": "Z", "resolution": "milliseconds", "format_sort_values": False},
             "keyed": keyed,
             "buckets": [{"key": k, "doc_count": 1, "aggregations": []} for k in (0, n - 1)]}]
w("long_pattern.json", json.dumps(long_pattern(1024, False)))
w("long_pattern_keyed.json", json.dumps(long_pattern(512, True)))
w("long_pattern_many.json", json.dumps(long_pattern(4000000, False)))
open(f"{t}/small_fills.bin", "wb").write(b"\x01" + hist("o", 0, 9, b"\x01" + hist("i", 0, 9, b"\x00")))
PY

# ---- encode: nesting is refused while parsing, with a small stack ----
for f in deep_arrays deep_objects deep_metadata; do
  (ulimit -s 1024 && expect_status 1 "$f.json: JSON nested deeper than 1024 at \$" \
    "$W" encode "$T/$f.json" -o "$T/x.bin") || fail "$f under a 1 MiB stack"
done

# ---- encode: a wide object is linear (its unknown members are refused); a duplicate key
# is an error ----
start=$(date +%s)
expect_status 1 "wide.json: \$[0].k0 (max [a]): unknown field [k0]" \
  "$W" encode "$T/wide.json" -o "$T/wide.bin"
[ $(($(date +%s) - start)) -le 30 ] || fail "200,000 keys took $(($(date +%s) - start)) s"
expect_status 1 "wide_dup.json: duplicate key [k7] in the object at \$[0]" \
  "$W" encode "$T/wide_dup.json" -o "$T/x.bin"

# ---- huge strings: kept whole when valid, capped when echoed ----
timeout 60 "$W" encode "$T/huge_name.json" -o "$T/huge_name.bin" || fail "encode of an 8 MiB name"
timeout 60 "$W" decode "$T/huge_name.bin" >"$T/huge_name.out" || fail "decode of an 8 MiB name"
python3 -c "import json,sys; assert len(json.load(open(sys.argv[1]))[0]['name']) == 8 << 20" \
  "$T/huge_name.out" || fail "the 8 MiB name did not come back"
expect_status 1 "more characters" "$W" encode "$T/huge_type.json" -o "$T/x.bin"
expect_status 1 "field [value] is not a double" "$W" encode "$T/huge_value.json" -o "$T/x.bin"
expect_status 1 "invalid JSON at byte 8388632" "$W" encode "$T/huge_unterminated.json" -o "$T/x.bin"

# ---- decode streams: peak RSS within 64 MiB + 16 x the input ----
timeout 120 "$W" encode "$T/large.json" -o "$T/large.bin" || fail "encode large.json"
size=$(stat -c %s "$T/large.bin")
/usr/bin/time -f "%M" -o "$T/rss" timeout 120 "$W" decode "$T/large.bin" >"$T/large.out" ||
  fail "decode large.bin"
rss_kib=$(tail -n 1 "$T/rss")
bound_kib=$(((64 << 10) + 16 * size / 1024))
echo "decode of $size bytes: peak RSS $rss_kib KiB (bound $bound_kib KiB)"
# The bounds are the contract of a normal build: under a sanitizer (CI's --config=asan,
# tsan) shadow memory and the quarantine add to RSS, so only the output is checked there.
sanitized=false
# ldd's whole output is read first: grep -q in a pipe can exit before ldd has
# written, and pipefail would then read ldd's SIGPIPE as "not sanitized".
libs=$(ldd "$W" 2>/dev/null || true)
if grep -qE 'lib(a|t|ub)san' <<<"$libs"; then sanitized=true; fi
$sanitized || [ "$rss_kib" -le "$bound_kib" ] || fail "decode peak RSS $rss_kib KiB > $bound_kib KiB"
python3 -c "import json,sys; assert json.load(open(sys.argv[1])) == json.load(open(sys.argv[2]))" \
  "$T/large.json" "$T/large.out" || fail "decode of large.bin differs from large.json"

# ---- reduce: the bucket budget ----
[ "$(stat -c %s "$T/bomb.bin")" -eq 109 ] || fail "bomb.bin is not 109 bytes"
/usr/bin/time -f "%M" -o "$T/rss" "$W" reduce "$T/bomb.bin" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 1 ] || fail "reduce of the bomb: exit $rc"
grep -qF "cannot reduce: Trying to create too many buckets. Must be less than or equal to: [65536] but was [65537]. This limit can be set by changing the [search.max_buckets] cluster level setting." \
  "$T/err" || fail "reduce of the bomb: $(cat "$T/err")"
$sanitized || [ "$(tail -n 1 "$T/rss")" -le 65536 ] ||
  fail "reduce of the bomb took $(tail -n 1 "$T/rss") KiB"
expect_status 1 "but was [11]" "$W" reduce --max-buckets 10 "$T/small_fills.bin"
timeout 60 "$W" reduce --max-buckets 110 "$T/small_fills.bin" >"$T/out" ||
  fail "10 x 10 fills in 110 buckets"
python3 -c "import json,sys; b=json.load(open(sys.argv[1]))['o']['buckets']; assert len(b) == 10 and all(len(x['i']['buckets']) == 10 for x in b)" \
  "$T/out" || fail "reduce of 10 x 10 fills: $(head -c 300 "$T/out")"

# ---- reduce streams its response: a 100 KB date pattern's key_as_string in each of 1,024
# filled buckets (512 keyed) is printed within 64 MiB + 16 x the input ----
for f in long_pattern long_pattern_keyed; do
  timeout 60 "$W" encode "$T/$f.json" -o "$T/$f.bin" || fail "encode $f.json"
  size=$(stat -c %s "$T/$f.bin")
  /usr/bin/time -f "%M" -o "$T/rss" timeout 240 "$W" reduce "$T/$f.bin" >/dev/null 2>"$T/err"
  rc=$?
  [ "$rc" -eq 0 ] && [ ! -s "$T/err" ] || fail "reduce $f.bin: exit $rc: $(head -c 300 "$T/err")"
  rss_kib=$(tail -n 1 "$T/rss")
  bound_kib=$(((64 << 10) + 16 * size / 1024))
  echo "reduce of $f.bin ($size bytes): peak RSS $rss_kib KiB (bound $bound_kib KiB)"
  $sanitized || [ "$rss_kib" -le "$bound_kib" ] ||
    fail "reduce $f.bin peak RSS $rss_kib KiB > $bound_kib KiB"
done
# Out of memory (4,000,000 buckets to fill in 20 MB of address space) is one line, exit 1.
# ASan and TSan reserve terabytes of address space, so only a plain build runs it.
timeout 60 "$W" encode "$T/long_pattern_many.json" -o "$T/long_pattern_many.bin" ||
  fail "encode long_pattern_many.json"
$sanitized || (failures=0 && ulimit -v 20000 && expect_status 1 "wirestream: out of memory" \
  "$W" reduce --max-buckets 5000000 "$T/long_pattern_many.bin" && [ "$failures" -eq 0 ]) ||
  fail "out of memory"

# ---- every error: exit 1 (input) or 2 (usage), one line ----
mkdir -p "$T/dir"
expect_status 1 "dir: is a directory, not a file" "$W" decode "$T/dir"
expect_status 1 "dir: is a directory, not a file" "$W" encode "$T/dir" -o "$T/x.bin"
expect_status 1 "dir: is a directory, not a file" "$W" reduce "$T/bomb.bin" "$T/dir"
expect_status 1 "/proc/self/mem: read error: " "$W" decode /proc/self/mem
expect_status 1 "missing.bin: cannot open: No such file or directory" "$W" decode "$T/missing.bin"
expect_status 1 "bomb.bin/x: cannot open: Not a directory" "$W" decode "$T/bomb.bin/x"
expect_status 1 "dir: cannot open for writing: Is a directory" \
  "$W" encode "$T/small.json" -o "$T/dir"
expect_status 1 "at byte 108: tried to read" "$W" decode <(head -c 108 "$T/bomb.bin")
expect_status 2 "A subcommand is required" "$W"
expect_status 2 "FILE is required" "$W" decode
expect_status 2 "--output is required" "$W" encode "$T/wide.json"
expect_status 2 "--bogus" "$W" decode --bogus "$T/bomb.bin"
expect_status 2 "--max-buckets" "$W" reduce --max-buckets -1 "$T/bomb.bin"
expect_status 2 "--max-buckets" "$W" reduce --max-buckets many "$T/bomb.bin"
"$W" reduce --help >"$T/help" 2>&1 || fail "reduce --help exit $?"
grep -q -- "--max-buckets" "$T/help" || fail "reduce --help does not name --max-buckets"
grep -q "Resource limits and errors" "$T/help" || fail "reduce --help lacks the resource contract"

finish "all CLI limit checks passed"
