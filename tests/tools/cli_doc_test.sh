#!/usr/bin/env bash
# docs/cli.md cannot drift from the CLI: every ```json block in it is encoded
# (at 8.7.0, or the version an `<!-- version: X -->` line right above names),
# decoded, and compared with the block, member order and number spelling
# included. The blocks together must show every aggregation type, every
# DocValueFormat and every generic-value kind the sources define.
set -uo pipefail

source "$(dirname "$0")/cli_test_lib.sh" "$1"
DOC="$2"
SRC="$(dirname "$DOC")/.."  # the workspace root, for the sources' name lists

python3 - "$W" "$DOC" "$T" "$SRC" <<'PY' || fail "docs/cli.md"
import collections, json, re, subprocess, sys

w, doc, tmp, src = sys.argv[1:]
text = open(doc).read()
blocks = re.findall(r"(?:<!-- version: (\S+) -->\n)?```json\n(.*?)```", text, re.S)
assert len(blocks) >= 15, f"only {len(blocks)} json blocks in {doc}"

def canonical(s):
    # Ordered members; 10.0 and 10 stay distinct, as they are in the output.
    return json.dumps(json.loads(s, object_pairs_hook=collections.OrderedDict),
                      separators=(",", ":"))

types, formats, kinds = set(), set(), set()
def walk_generic(v):
    if isinstance(v, list):
        for e in v: walk_generic(e)
    elif isinstance(v, dict):
        for k, e in v.items():
            kinds.add(k)
            walk_generic(e)
def walk(aggs):
    for a in aggs:
        types.add(a["type"])
        f = a.get("format")
        if f is not None: formats.add(f if isinstance(f, str) else f["name"])
        if a["metadata"] is not None: walk_generic(a["metadata"])
        for b in a.get("buckets", []): walk(b["aggregations"])
        info = a.get("empty_bucket_info")
        if info: walk(info["aggregations"])

failed = 0
for i, (version, block) in enumerate(blocks):
    version = version or "8.7.0"
    path, binary = f"{tmp}/doc{i}.json", f"{tmp}/doc{i}.bin"
    open(path, "w").write(block)
    first = block.strip().splitlines()[0][:80]
    enc = subprocess.run([w, "encode", "--version", version, path, "-o", binary],
                         capture_output=True, text=True)
    if enc.returncode != 0:
        print(f"FAIL: block {i} ({first}): encode: {enc.stderr}", file=sys.stderr)
        failed += 1
        continue
    dec = subprocess.run([w, "decode", "--version", version, binary],
                         capture_output=True, text=True)
    if dec.returncode != 0 or canonical(dec.stdout) != canonical(block):
        print(f"FAIL: block {i} ({first}) decodes to:\n{dec.stdout}{dec.stderr}", file=sys.stderr)
        failed += 1
    walk(json.loads(block))

def names(path, pattern):
    return set(re.findall(pattern, open(f"{src}/{path}").read()))
want_types = names("aggregations/metrics.h", r'kType = "(\w+)"') | \
    names("aggregations/terms.h", r'kType = "(\w+)"') | \
    names("aggregations/histogram.h", r'kType = "(\w+)"') | \
    names("aggregations/date_histogram.h", r'kType = "(\w+)"') | \
    names("aggregations/cardinality.h", r'kType = "(\w+)"')
want_formats = names("aggregations/doc_value_format.cc", r'\{DocValueFormat::Kind::\w+, "(\w+)"\}')
kind_list = re.search(r"kNames\[\] = \{(.*?)\};", open(f"{src}/stream/structured/generic_value.cc").read(), re.S)
want_kinds = set(re.findall(r'"([a-z ]+)"', kind_list.group(1))) - {"null", "string", "boolean"}
for what, want, have in (("aggregation types", want_types, types),
                         ("formats", want_formats, formats), ("generic kinds", want_kinds, kinds)):
    assert len(want) >= 3, f"found no {what} in the sources"
    if want - have:
        print(f"FAIL: docs/cli.md shows no example of the {what} {sorted(want - have)}",
              file=sys.stderr)
        failed += 1
print(f"{len(blocks)} blocks; {len(types)} types, {len(formats)} formats, {len(kinds)} kinds")
sys.exit(1 if failed else 0)
PY

finish "docs/cli.md agrees with the CLI"
