#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The counts of a ctest run, each skipped test with its reason (the last "SKIP: ..." line it
# printed) and each test that failed or could not run, read from ctest's JUnit file
# (ctest --output-junit FILE).
# usage: tests/summary.py JUNIT_XML [LABEL]
import sys
import xml.etree.ElementTree as ET

suite = ET.parse(sys.argv[1]).getroot()
label = sys.argv[2] if len(sys.argv) > 2 else "ctest"
passed, failed, skipped = [], [], []
for case in suite.iter("testcase"):
    name, status = case.get("name"), case.get("status")
    out = case.findtext("system-out") or ""
    why = case.find("skipped")
    why = why.get("message", "") if why is not None else ""
    if status == "run":
        passed.append(name)
    elif status == "disabled":
        skipped.append((name, "disabled"))
    elif status == "notrun" and why.startswith("SKIP_"):  # SKIP_RETURN_CODE=77, SKIP_REGULAR_EXPRESSION_MATCHED
        reasons = [l[len("SKIP:"):].strip() for l in out.splitlines() if l.startswith("SKIP:")]
        skipped.append((name, reasons[-1] if reasons else "(it printed no SKIP: line)"))
    else:  # failed, or not run: a fixture failed, the command is missing
        failed.append((name, why or "failed"))
print("%s: %d passed, %d failed, %d skipped (of %d)"
      % (label, len(passed), len(failed), len(skipped), len(passed) + len(failed) + len(skipped)))
for name, reason in skipped:
    print("  skipped %s: %s" % (name, reason))
for name, reason in failed:
    print("  FAILED %s: %s" % (name, reason))
