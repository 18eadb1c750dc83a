#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Check what fork_host's children recorded, read with the bt2 module.
# usage: fork_check.py TRACEDIR PARENT_PID CHILDREN_FILE [all]; CHILDREN_FILE holds fork_host's
# "child ROUND PID" lines. Each child wrote exactly one Dyn_ForkChild:Hello { round, pid } under
# its own vpid; the parent's busy threads recorded Dyn_ForkBusy events under the parent's. With
# "all" (fork_host all), each child also recorded exactly one CodeLoad named Fork.Child.ROUND.
# Prints what differs and exits 1, else "ok ...".
import sys

import bt2


def main():
    trace, parent, children_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    everything = sys.argv[4:] == ["all"]
    children = {}
    with open(children_file) as f:
        for line in f:
            word, rnd, pid = line.split()
            if word == "child":
                children[int(pid)] = int(rnd)
    if not children:
        sys.exit("FAIL: fork_host printed no child")
    hello = {}
    loads = {}
    busy = 0
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._DiscardedEventsMessageConst:
            sys.exit("FAIL: events discarded")
        if type(msg) is not bt2._EventMessageConst:
            continue
        ev = msg.event
        vpid = int(ev.common_context_field["vpid"])
        if ev.name == "Dyn_ForkChild:Hello" and vpid in children:
            p = ev.payload_field
            hello.setdefault(vpid, []).append((int(p["round"]), int(p["pid"])))
        elif ev.name.startswith("Dyn_ForkBusy") and vpid == parent:
            busy += 1
        elif ev.name == "Paleventing:CodeLoad" and vpid in children:
            loads.setdefault(vpid, []).append(str(ev.payload_field["name"]))
    want = {pid: [(rnd, pid)] for pid, rnd in children.items()}
    if hello != want:
        missing = sorted(set(want) - set(hello))
        wrong = sorted(p for p in hello if p in want and hello[p] != want[p])
        sys.exit(f"FAIL: children's events: missing for pids {missing}, wrong for {wrong}")
    if busy == 0:
        sys.exit("FAIL: no Dyn_ForkBusy event from the parent's threads")
    if not everything:
        print(f"ok: {len(children)} children each recorded their event; {busy} busy events")
        return
    want = {pid: [f"Fork.Child.{rnd}"] for pid, rnd in children.items()}
    if loads != want:
        wrong = sorted(p for p in want if loads.get(p) != want[p])
        sys.exit(f"FAIL: children's CodeLoad: wrong or missing for pids {wrong[:10]}")
    print(f"ok: {len(children)} children each recorded their event and code load; {busy} busy "
          "events")


main()
