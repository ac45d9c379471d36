#!/usr/bin/env python3
"""Prints the test run's one closing line, `N passed, N failed[, N skipped]`, from the
JUnit XML files the runners wrote (swift test --xunit-output, pytest --junitxml).

A suite that was expected but wrote no file counts as one failure, so a runner that died
before reporting cannot make the run look green."""
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def count(path: Path):
    passed = failed = skipped = 0
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def main(argv):
    passed = failed = skipped = 0
    for name in argv:
        path = Path(name)
        if not path.is_file():
            print(f"test-summary: {name}: no results (the runner did not finish)", file=sys.stderr)
            failed += 1
            continue
        try:
            p, f, s = count(path)
        except ET.ParseError as e:
            print(f"test-summary: {name}: unreadable results: {e}", file=sys.stderr)
            failed += 1
            continue
        passed, failed, skipped = passed + p, failed + f, skipped + s
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
