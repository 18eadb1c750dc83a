#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# palev-trace export --format speedscope of a trace with CPU samples: valid against speedscope's
# own schema (file-format-schema.json, checked here by a small validator of the keywords it
# uses), a sampled profile per thread in nanoseconds whose totals are palev-trace cpu --by
# thread's, burn_worker alone on the worker's.
# usage: speedscope_check.py EXPORT SCHEMA CPU_BY_THREAD_TXT
import json
import re
import sys

export, schema, by_thread = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), open(sys.argv[3]).read()
failures = []
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def validate(value, rule, where):
    if "$ref" in rule:
        return validate(value, schema["definitions"][rule["$ref"].split("/")[-1]], where)
    if "anyOf" in rule:
        errors = []
        for alt in rule["anyOf"]:
            before = len(failures)
            validate(value, alt, where)
            if len(failures) == before:
                return
            errors.append(failures[before:])
            del failures[before:]
        failures.append("%s: matches no alternative (%s)" % (where, errors[0][0]))
        return
    kind = rule.get("type")
    if kind == "number" and (isinstance(value, bool) or not isinstance(value, (int, float))):
        failures.append("%s: not a number: %r" % (where, value))
    elif kind in TYPES and not isinstance(value, TYPES[kind]):
        failures.append("%s: not %s: %r" % (where, kind, value))
    if "const" in rule and value != rule["const"]:
        failures.append("%s: %r, not %r" % (where, value, rule["const"]))
    if "enum" in rule and value not in rule["enum"]:
        failures.append("%s: %r is none of %s" % (where, value, rule["enum"]))
    if isinstance(value, dict):
        for key in rule.get("required", []):
            if key not in value:
                failures.append("%s: no %s" % (where, key))
        for key, sub in rule.get("properties", {}).items():
            if key in value:
                validate(value[key], sub, where + "." + key)
    if isinstance(value, list) and "items" in rule:
        for i, item in enumerate(value):
            validate(item, rule["items"], "%s[%d]" % (where, i))


validate(export, {"$ref": schema["$ref"]}, "file")
frames = [f["name"] for f in export["shared"]["frames"]]

# palev-trace cpu --by thread: "thread NAME: TIME (P%)"
UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
want = {m.group(1): float(m.group(2)) * UNITS[m.group(3)]
        for m in re.finditer(r"^thread (\S+): ([\d.]+) (ns|us|ms|s) ", by_thread, re.M)}
got = {}
for p in export["profiles"]:
    if not p["name"].startswith("CPU "):
        continue
    thread = p["name"][4:]
    got[thread] = p["endValue"]
    if p["unit"] != "nanoseconds" or p["endValue"] != sum(p["weights"]) or len(p["samples"]) != len(p["weights"]):
        failures.append("%s: unit %s, endValue %s, weights %s" % (p["name"], p["unit"], p["endValue"], sum(p["weights"])))
    leaves = {}
    for stack, w in zip(p["samples"], p["weights"]):
        leaves[frames[stack[-1]]] = leaves.get(frames[stack[-1]], 0) + w
    top = max(leaves, key=leaves.get)
    print("%-24s %12d ns, %3d stacks, mostly %s" % (p["name"], p["endValue"], len(p["samples"]), top))
    if "burn_worker" in leaves and (top != "burn_worker" or "burn_outside" in leaves):
        failures.append("%s: burn_worker is not alone there: %s" % (p["name"], leaves))
for thread, ns in want.items():
    if abs(got.get(thread, 0) - ns) > max(1000, ns * 6e-4):   # cpu prints 4 significant digits
        failures.append("thread %s: %s ns in the export, cpu --by thread says %.0f" % (thread, got.get(thread), ns))
if set(got) != set(want):
    failures.append("threads: export %s, cpu %s" % (sorted(got), sorted(want)))
first = export["profiles"][export["activeProfileIndex"]]
if first["endValue"] != max(got.values()):
    failures.append("the profile shown first is not the busiest thread's: %s" % first["name"])

for f in failures:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if failures else 0)
