#!/usr/bin/env python3
"""Checks the links between the project's Markdown files: every relative link
[text](path), [text](path#anchor) and [text](#anchor) must name a file or folder that
exists and, with an anchor, a heading of that file (GitHub's slugs). Links to the web
are not fetched (CI has no business depending on other sites).

  tools/check_links.py            every tracked *.md file; exit 1 listing the dead links
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
CODE = re.compile(r"`[^`\n]*`")


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r"`|\*\*|__", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found = set()
        counts = {}
        text = FENCE.sub("", open(path, encoding="utf-8").read())
        for m in re.finditer(r"^#{1,6}\s+(.*?)\s*#*$", text, re.M):
            s = slug(m.group(1))
            n = counts.get(s, 0)
            counts[s] = n + 1
            found.add(s if n == 0 else "%s-%d" % (s, n))
        found |= set(re.findall(r'<a (?:name|id)="([^"]+)"', text))
        cache[path] = found
    return cache[path]


def main():
    files = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split()
    dead = []
    for f in files:
        path = os.path.join(ROOT, f)
        blank = lambda m: "\n" * m.group(0).count("\n")  # keeps the line numbers
        text = CODE.sub("", FENCE.sub(blank, open(path, encoding="utf-8").read()))
        for m in LINK.finditer(text):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                if file_part else path
            line = text.count("\n", 0, m.start()) + 1
            if not os.path.exists(dest):
                dead.append("%s:%d: %s: no such file" % (f, line, target))
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                dead.append("%s:%d: %s: no heading with that anchor" % (f, line, target))
    for d in dead:
        print(d)
    print("check_links: %d files, %d dead links" % (len(files), len(dead)))
    return 1 if dead else 0


if __name__ == "__main__":
    sys.exit(main())
