#!/usr/bin/env bash
# The samples in examples/data cannot go stale: the committed outputs are what
# //tools:wirestream makes of the committed sources today, byte for byte.
#   decode(shard0.bin) == shard0.json
#   encode(src/shardN.json) == shardN.bin, and encode(shard0.json) == shard0.bin
#   reduce(shard0.bin shard1.bin shard2.bin) == response.json
# A failure prints the diff; examples/data/README.md has the commands that
# regenerate the files.
set -uo pipefail

W="$1"
D="$(dirname "$2")"  # examples/data, located through one of its files
T="${TEST_TMPDIR:-$(mktemp -d)}"
V=(--version 8.7.0)
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

"$W" decode "${V[@]}" "$D/shard0.bin" >"$T/shard0.json" || fail "decode shard0.bin"
cmp -s "$T/shard0.json" "$D/shard0.json" ||
  fail "decode(shard0.bin) != shard0.json: $(diff "$D/shard0.json" "$T/shard0.json" | head -20)"

for i in 0 1 2; do
  "$W" encode "${V[@]}" "$D/src/shard$i.json" -o "$T/shard$i.bin" || fail "encode src/shard$i.json"
  cmp -s "$T/shard$i.bin" "$D/shard$i.bin" || fail "encode(src/shard$i.json) != shard$i.bin"
done
"$W" encode "${V[@]}" "$D/shard0.json" -o "$T/again.bin" || fail "encode shard0.json"
cmp -s "$T/again.bin" "$D/shard0.bin" || fail "encode(shard0.json) != shard0.bin"

"$W" reduce "${V[@]}" "$D/shard0.bin" "$D/shard1.bin" "$D/shard2.bin" >"$T/response.json" ||
  fail "reduce"
cmp -s "$T/response.json" "$D/response.json" ||
  fail "reduce(shards) != response.json: $(diff "$D/response.json" "$T/response.json" | head -20)"

# The test can fail: a changed byte in a copy of the sample is noticed.
cp "$D/shard0.bin" "$T/flipped.bin"
printf '\x04' | dd of="$T/flipped.bin" bs=1 seek=$(($(stat -c %s "$T/flipped.bin") - 1)) \
  conv=notrunc status=none
if "$W" decode "${V[@]}" "$T/flipped.bin" >"$T/flipped.json" 2>/dev/null &&
  cmp -s "$T/flipped.json" "$D/shard0.json"; then
  fail "a changed last byte went unnoticed"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "examples/data is what the CLI makes of its sources"
