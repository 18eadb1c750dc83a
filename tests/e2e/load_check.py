#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Check what load_host recorded, read with the bt2 module.
# usage: load_check.py TRACEDIR PID BASE [early]: process PID recorded exactly Palev_Load:Small
# { Count BASE+i, Size 10i, Depth -i, Flags 0x10+i, Name "load" } for i = 1..3 (then, with
# "early", the dynamic event Dyn_Load:Early { n = i } for i = 1..3).
# Prints what differs and exits 1, else "ok ...".
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bt2events import events  # noqa: E402


def main():
    trace, pid, base = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    early = len(sys.argv) > 4 and sys.argv[4] == "early"
    got = []
    for ev in events(trace, pid, discarded="fail"):
        p = ev.payload_field
        if ev.name.startswith("Palev_Load:"):
            got.append((ev.name, int(p["Count"]), int(p["Size"]), int(p["Depth"]),
                        int(p["Flags"]), str(p["Name"])))
        elif ev.name.startswith("Dyn_Load:"):
            got.append((ev.name, int(p["n"])))
    want = [("Palev_Load:Small", base + i, 10 * i, -i, 0x10 + i, "load") for i in (1, 2, 3)]
    if early:
        want += [("Dyn_Load:Early", i) for i in (1, 2, 3)]
    if got != want:
        sys.exit(f"FAIL: pid {pid}: {got}, want {want}")
    print(f"ok: pid {pid}: its 3 events exact")


main()
