#!/usr/bin/env bash
# Runs //examples:cluster small: plain, compressed, over mutual TLS, and with
# the columnar aggregations negotiated (--columnar). Its output must be one JSON
# document ({"response": ..., "check": ...}) whose bounds all hold; usage errors
# (a bad or non-finite flag value, an unknown flag) are one line and exit 2.
set -euo pipefail
bin="examples/cluster"
# check OUT PYTHON-CONDITION...: OUT parses as one JSON document `d` and each condition holds.
check() {
  python3 - "$@" <<'PY'
import json, sys
d = json.loads(sys.argv[1])  # one document, or this raises
for cond in sys.argv[2:]:
    assert eval(cond, {"d": d}), cond
PY
}
holds='d["check"]["bounds"]["all_hold"] is True'
out=$("$bin" --shards 3 --docs 20000 --size 5 --terms 2000)
check "$out" "$holds" '"sum_other_doc_count" in d["response"]["aggregations"]["top_terms"]'
out=$("$bin" --shards 2 --docs 5000 --size 3 --terms 500 --compress --processes)
check "$out" "$holds" 'd["check"]["wire"]["compressed"] is True'
out=$("$bin" --shards 2 --docs 5000 --size 3 --terms 500 --tls --processes)
check "$out" "$holds" 'd["check"]["wire"]["mutual_tls"] is True' \
  'd["check"]["bounds"]["date_histogram_matches_exact"] is True'
out=$("$bin" --shards 2 --docs 20000 --size 3 --terms 500 --columnar --processes)
check "$out" "$holds" 'd["check"]["bounds"]["date_histogram_matches_exact"] is True' \
  'all(d["check"]["wire"]["columnar_aggregations_per_shard"])'
for bad in "--zipf nan" "--zipf inf" "--zipf -1" "--shards 0" "--docs x" "--bogus"; do
  set +e
  # shellcheck disable=SC2086
  "$bin" $bad >/dev/null 2>"$TEST_TMPDIR/err"
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || { echo "cluster $bad: exit $rc, want 2"; exit 1; }
  [ "$(wc -l <"$TEST_TMPDIR/err")" -eq 1 ] || { echo "cluster $bad: not one line"; exit 1; }
done
echo "cluster example: bounds hold, one JSON document, usage errors exit 2"
