#!/usr/bin/env bash
# Runs //examples:cluster small: plain, compressed, over mutual TLS, and with
# the columnar aggregations negotiated (--columnar); it
# exits non-zero when a bound of the response does not hold.
set -euo pipefail
bin="examples/cluster"
out=$("$bin" --shards 3 --docs 20000 --size 5 --terms 2000)
grep -q '"all_hold": true' <<<"$out"
grep -q '"sum_other_doc_count"' <<<"$out"
out=$("$bin" --shards 2 --docs 5000 --size 3 --terms 500 --compress --processes)
grep -q '"all_hold": true' <<<"$out"
out=$("$bin" --shards 2 --docs 5000 --size 3 --terms 500 --tls --processes)
grep -q '"all_hold": true' <<<"$out"
grep -q '"mutual_tls": true' <<<"$out"
grep -q '"date_histogram_matches_exact": true' <<<"$out"
out=$("$bin" --shards 2 --docs 20000 --size 3 --terms 500 --columnar --processes)
grep -q '"all_hold": true' <<<"$out"
grep -q '"date_histogram_matches_exact": true' <<<"$out"
grep -A1 '"columnar_aggregations_per_shard"' <<<"$out" | grep true >/dev/null
echo "cluster example: bounds hold"
