#!/usr/bin/env python3
"""Counts test cases in the JUnit XML that `bazel test` leaves in bazel-testlogs.

Prints one line `N passed, N failed` (the line CI reads). Bazel writes a test.xml
for every test target it runs, with an <error> case when a binary crashes or
exits non-zero without XML of its own; a target whose XML cannot be read or
holds no cases counts as one failure, so nothing is counted as passed unseen.

A target that bazel itself reported as not passing (FAILED, TIMEOUT, ...: a
sanitizer report at exit fails a binary whose XML shows every case passed)
counts at least one failure: pass bazel's output with --bazel-output FILE.

bazel-testlogs also holds the XML of earlier runs (another suite, a target no
longer built) when the configuration shares its output directory, as the
sanitizer configs do: with --targets FILE (the labels `bazel query
"tests(...)"` prints for this run) only those targets count, and one of them
without XML counts as one failure.

usage: count_tests.py [--bazel-output FILE] [--targets FILE] [TESTLOGS_DIR] [LABEL]
"""
import re
import os
import sys
import xml.etree.ElementTree as ET


def count_target(xml_path):
    try:
        root = ET.parse(xml_path).getroot()
    except ET.ParseError:
        return None
    passed = failed = 0
    for case in root.iter("testcase"):
        if case.get("status") == "notrun" or case.find("skipped") is not None:
            continue
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        else:
            passed += 1
    if passed + failed == 0:
        return None
    # A binary that crashed after some cases leaves XML written by bazel with
    # an <error>/<failure> at the suite level.
    for suite in root.iter("testsuite"):
        if suite.find("error") is not None or suite.find("failure") is not None:
            failed += 1
    return passed, failed


# bazel's summary lines for targets that did not pass, e.g.
# "//tests/transport:limits_test      FAILED in 5.3s".
_NOT_PASSED = re.compile(
    r"^(//\S+)\s+(FAILED|TIMEOUT|NO STATUS|INCOMPLETE|FLAKY|FAILED TO BUILD)\b")


def bazel_not_passed(path):
    """Maps each target bazel reported as not passing to its testlogs dir."""
    out = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = _NOT_PASSED.match(line.strip())
            if m:
                out[m.group(1)[2:].replace(":", "/")] = m.group(1)
    return out


def target_of(path, targets):
    """The target dir that path is, or is a run of (name/run_1_of_5), or None."""
    while path and path != ".":
        if path in targets:
            return path
        path = os.path.dirname(path)
    return None


def main():
    args = sys.argv[1:]
    not_passed = {}
    targets = None  # target dir (e.g. tests/stream/errors_test) -> label
    while len(args) >= 2 and args[0] in ("--bazel-output", "--targets"):
        if args[0] == "--bazel-output":
            not_passed = bazel_not_passed(args[1])
        else:
            with open(args[1]) as f:
                labels = [line.strip() for line in f if line.strip().startswith("//")]
            targets = {l[2:].replace(":", "/"): l for l in labels}
        args = args[2:]
    logs = args[0] if len(args) > 0 else "bazel-testlogs"
    label = (args[1] + ": ") if len(args) > 1 else ""
    # Targets under LOGS are named relative to it; bazel names them from the root.
    prefix = os.path.relpath(os.path.realpath(logs), os.path.realpath("bazel-testlogs"))
    prefix = "" if prefix == "." or prefix.startswith("..") else prefix + "/"
    passed = failed = 0
    failed_targets = []
    seen = set()
    for dirpath, _, files in os.walk(logs, followlinks=True):
        if "test.xml" not in files:
            continue
        counts = count_target(os.path.join(dirpath, "test.xml"))
        if counts is None:
            counts = (0, 1)  # unreadable or empty XML: never counted as passed
        rel = os.path.relpath(dirpath, logs)
        if targets is not None:
            owner = target_of(prefix + rel, targets)
            if owner is None:
                continue  # not a test of this run
            seen.add(owner)
        label_of = not_passed.pop(prefix + rel, None)
        if label_of and counts[1] == 0:
            counts = (counts[0], 1)  # bazel says it failed; the XML did not show why
        passed += counts[0]
        failed += counts[1]
        if counts[1]:
            failed_targets.append(rel)
    for target in sorted(not_passed.values()):  # no test.xml at all (did not build, no status)
        failed += 1
        failed_targets.append(target)
    if targets is not None:
        for d, target in sorted(targets.items()):
            if d in seen or target in failed_targets or not d.startswith(prefix):
                continue
            failed += 1  # asked for (under LOGS), but it left no XML
            failed_targets.append(target)
    for t in failed_targets:
        print(f"failed: {t}", file=sys.stderr)
    print(f"{label}{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
