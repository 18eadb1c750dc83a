#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Check what undef_host recorded around palev_event_undefine_provider(), read with the bt2 module.
# usage: undef_check.py SCENARIO TRACEDIR PID; prints what differs and exits 1, else "ok ...".
# The expected values are computed here from the inputs undef_host.c uses, not from its output.
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bt2events  # noqa: E402
from dyn_check import events, fields  # noqa: E402

import bt2  # noqa: E402


def check_versions(trace, pid):
    """Version A's 3 events, nothing from the stale handle, version B's 3 events, in order."""
    got = [(name, fields(p)) for name, p, _ in events(trace, pid)]
    def boolean(v):
        return (1, ["true"]) if v else (0, ["false"])

    want = [("Dyn_UndefV:E", {"n": -i, "s": f"a{i}", "b": boolean(i % 2)}) for i in (1, 2, 3)]
    want += [("Dyn_UndefV:E", {"d": i + 0.5, "x": 0xABC0 + i, "b": boolean(i % 2 == 0),
                               "w": "v\u00e9\U0001F600"}) for i in (1, 2, 3)]
    if got != want:
        sys.exit(f"FAIL: versions: got {got}\nwant {want}")
    return "A x3, B x3, no stale event"


def check_threads(trace, pid):
    """Old version: whole events, per-thread sequence increasing, none written after the undefine
    returned (after=1); new version: exactly its 5 events."""
    last = {}
    old = new = 0
    pat = re.compile(r"payload-(\d+)-(\d+)\Z")
    for ev in bt2events.events(trace, pid, discarded="ignore"):
        f = fields(ev.payload_field)
        if set(f) == {"x"}:
            if f["x"] != new * 1.25:
                sys.exit(f"FAIL: threads: new version event {new}: {f}")
            new += 1
            continue
        if set(f) != {"tid", "seq", "after", "s"}:
            sys.exit(f"FAIL: threads: unexpected event {ev.name} {f}")
        m = pat.match(f["s"])
        if not m or (int(m[1]), int(m[2])) != (f["tid"], f["seq"]) or f["tid"] > 3:
            sys.exit(f"FAIL: threads: a broken event {f}")
        if f["after"] != 0:
            sys.exit(f"FAIL: threads: recorded after the undefine returned: {f}")
        if f["seq"] <= last.get(f["tid"], -1):
            sys.exit(f"FAIL: threads: sequence not increasing: {f}")
        last[f["tid"]] = f["seq"]
        old += 1
    if sorted(last) != [0, 1, 2, 3] or new != 5:
        sys.exit(f"FAIL: threads: threads {sorted(last)}, {new} new-version events (want 5)")
    return f"{old} whole old-version events from 4 threads, 5 new-version events"


def check_loop(trace, pid):
    """200 events, r = 0..199, alternating versions; LTTng's metadata holds 2 versions of E."""
    got = [fields(p) for _, p, _ in events(trace, pid)]
    want = [{"r": r} if r % 2 == 0 else {"r": r, "s": f"r{r}"} for r in range(200)]
    if got != want:
        sys.exit(f"FAIL: loop: got {len(got)} events {got[:4]}...\nwant {want[:4]}...")
    classes = set()
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._StreamBeginningMessageConst:
            for ec in msg.stream.cls.values():
                if ec.name == "Dyn_UndefL:E":
                    classes.add(ec.id)
    return f"200 events in order, {len(classes)} event classes named Dyn_UndefL:E"


CHECKS = {"versions": check_versions, "threads": check_threads, "loop": check_loop}

if __name__ == "__main__":
    what, trace, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
    print("ok", what, CHECKS[what](trace, pid))
