#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Check what abi_host recorded, read with the bt2 module.
# usage: abi_check.py TRACEDIR PID refused|loaded
#   refused: no Palev_Abi event; ProviderStatus { Palev_Abi, loaded 0, the ABI reason }
#   loaded:  the 3 Palev_Abi:Small events exactly; ProviderStatus { Palev_Abi, loaded 1 }
# Prints what differs and exits 1, else "ok ...".
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bt2events  # noqa: E402

REASON = ("compiled with paleventing headers of ABI version 999 (PALEV_ABI_VERSION), "
          "libpaleventing has 1: rebuild it against these headers")


def main():
    trace, pid, want = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    small, status = [], []
    for ev in bt2events.events(trace, pid, discarded="ignore"):
        p = ev.payload_field
        if ev.name.startswith("Palev_Abi:"):
            small.append((ev.name, int(p["Count"]), int(p["Size"]), int(p["Depth"]),
                          int(p["Flags"]), str(p["Name"])))
        elif ev.name == "Paleventing:ProviderStatus" and str(p["provider"]) == "Palev_Abi":
            status.append((int(p["loaded"]), str(p["reason"])))
    if want == "refused":
        if small:
            sys.exit(f"FAIL: refused: {len(small)} Palev_Abi events recorded")
        if status != [(0, REASON)]:
            sys.exit(f"FAIL: refused: ProviderStatus {status}, want {[(0, REASON)]}")
        return "no Palev_Abi event; ProviderStatus loaded=0 with the reason"
    events = [("Palev_Abi:Small", i, 10 * i, -i, 0x10 + i, "abi") for i in (1, 2, 3)]
    if small != events:
        sys.exit(f"FAIL: loaded: {small}, want {events}")
    if len(status) != 1 or status[0][0] != 1 or not status[0][1].startswith("from "):
        sys.exit(f"FAIL: loaded: ProviderStatus {status}")
    return "3 Palev_Abi:Small events exact; ProviderStatus loaded=1"


print("ok", main())
