#!/usr/bin/env python3
"""Counts test cases in the JUnit XML that `bazel test` leaves in bazel-testlogs.

Prints one line `N passed, N failed` (the line CI reads). Bazel writes a test.xml
for every test target it runs, with an <error> case when a binary crashes or
exits non-zero without XML of its own; a target whose XML cannot be read or
holds no cases counts as one failure, so nothing is counted as passed unseen.

usage: count_tests.py [TESTLOGS_DIR] [LABEL]
"""
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


def main():
    logs = sys.argv[1] if len(sys.argv) > 1 else "bazel-testlogs"
    label = (sys.argv[2] + ": ") if len(sys.argv) > 2 else ""
    passed = failed = 0
    failed_targets = []
    for dirpath, _, files in os.walk(logs, followlinks=True):
        if "test.xml" not in files:
            continue
        counts = count_target(os.path.join(dirpath, "test.xml"))
        if counts is None:
            counts = (0, 1)  # unreadable or empty XML: never counted as passed
        passed += counts[0]
        failed += counts[1]
        if counts[1]:
            failed_targets.append(os.path.relpath(dirpath, logs))
    for t in failed_targets:
        print(f"failed: {t}", file=sys.stderr)
    print(f"{label}{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
