#!/usr/bin/env python3
"""Extracts the C++ blocks of README.md, unmodified, so that tests/readme compiles them.

  readme_blocks.py README.md OUT_DIR NAME...

Every ```cpp block must follow a marker line: `<!-- compile: NAME -->` (written to
OUT_DIR/NAME.cc, byte for byte) or `<!-- partial: NAME -->` (a deliberate fragment,
skipped). The NAMEs given must be exactly the compile blocks, so a new block cannot go
untested: add its name to tests/readme/BUILD.bazel.
"""
import re
import sys


def blocks(text):
    out = []
    for m in re.finditer(r"^(?:<!-- (compile|partial): (\w+) -->\n)?```cpp\n(.*?)^```$", text,
                         re.M | re.S):
        kind, name, body = m.group(1), m.group(2), m.group(3)
        if not kind:
            line = text.count("\n", 0, m.start()) + 1
            sys.exit("README.md:%d: a ```cpp block without <!-- compile: NAME --> or "
                     "<!-- partial: NAME -->" % line)
        out.append((kind, name, body))
    return out


def main():
    readme, out_dir, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    found = [(n, b) for k, n, b in blocks(open(readme).read()) if k == "compile"]
    if sorted(n for n, _ in found) != sorted(names):
        sys.exit("readme_blocks: README compile blocks %s, BUILD expects %s"
                 % (sorted(n for n, _ in found), sorted(names)))
    for name, body in found:
        with open("%s/%s.cc" % (out_dir, name), "w") as f:
            f.write(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
