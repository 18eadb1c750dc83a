#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# samples/luajit's oracle: reads one process's LuaJIT events with bt2 and compares them with
# LuaJIT's own account of the same run.
#   counts TRACE VPID JV STDOUT   -jv's lines, rebuilt from TraceStart/Stop/Abort/Flush, must
#                                 equal JV (luajit -jv=JV); the GC cycles from the first full
#                                 collection on, and the memory after each full one, must be
#                                 what counts.lua printed (STDOUT)
#   tasks TRACE VPID              "TASK COUNT" per task: Start/Stop pairs, for palev-trace
# Exits 1 with the differences on failure.
import sys

import bt2


def events(trace, vpid, prefix="LuaJIT:"):
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is not bt2._EventMessageConst:
            continue
        ev = msg.event
        if int(ev.common_context_field["vpid"]) == vpid and ev.name.startswith(prefix):
            yield ev.name[len(prefix):], ev.payload_field


def label(f):
    """An enum field's label (bt2 gives the labels of its value)."""
    return f.labels[0] if hasattr(f, "labels") else str(f)


def jv_lines(evs):
    """jit/v.lua's dump_trace(), fed with the events instead of vmevents."""
    out, startloc, startex = [], "", ""
    for name, p in evs:
        if name == "TraceStart":
            startloc = str(p["Location"])
            kind = label(p["Kind"])
            startex = ("(%d/%d) " % (p["Parent"], p["ParentExit"]) if kind == "Side" else
                       "(%d/stitch) " % p["Parent"] if kind == "Stitch" else "")
        elif name == "TraceAbort":
            loc = str(p["Location"])
            at = " at %s" % loc if loc != startloc else ""
            out.append("[TRACE --- %s%s -- %s%s]" % (startex, startloc, p["Detail"], at))
        elif name == "TraceStop" and label(p["Outcome"]) == "Compiled":
            tr, link, ltype = int(p["Trace"]), int(p["Link"]), label(p["LinkType"])
            if ltype == "interpreter":
                line = "[TRACE %3s %s%s -- fallback to interpreter]" % (tr, startex, startloc)
            elif ltype == "stitch":
                line = "[TRACE %3s %s%s %s %s]" % (tr, startex, startloc, ltype,
                                                  p["StopFunction"])
            elif link == tr or link == 0:
                line = "[TRACE %3s %s%s %s]" % (tr, startex, startloc, ltype)
            elif ltype == "root":
                line = "[TRACE %3s %s%s -> %d]" % (tr, startex, startloc, link)
            else:
                line = "[TRACE %3s %s%s -> %d %s]" % (tr, startex, startloc, link, ltype)
            out.append(line)
        elif name == "TraceFlush":
            out.append("[TRACE flush]")
    return out


def check_counts(trace, vpid, jv, stdout):
    evs = list(events(trace, vpid))
    fails = []

    # Traces: -jv's text, line for line, and the counts.
    ours = jv_lines(evs)
    theirs = open(jv).read().splitlines()
    if ours != theirs:
        for i in range(max(len(ours), len(theirs))):
            a = ours[i] if i < len(ours) else "(none)"
            b = theirs[i] if i < len(theirs) else "(none)"
            if a != b:
                fails.append("-jv line %d: trace says %r, -jv says %r" % (i + 1, a, b))
                break
        fails.append("trace: %d lines, -jv: %d lines" % (len(ours), len(theirs)))
    stops = [p for n, p in evs if n == "TraceStop"]
    compiled = sum(1 for p in stops if label(p["Outcome"]) == "Compiled")
    aborted = sum(1 for p in stops if label(p["Outcome"]) == "Aborted")
    starts = sum(1 for n, _ in evs if n == "TraceStart")
    aborts = sum(1 for n, _ in evs if n == "TraceAbort")
    jv_compiled = sum(1 for l in theirs if l.startswith("[TRACE ") and l[7:10].strip().isdigit())
    jv_aborted = sum(1 for l in theirs if l.startswith("[TRACE --- "))
    if (compiled, aborted) != (jv_compiled, jv_aborted):
        fails.append("traces compiled/aborted: trace %d/%d, -jv %d/%d" %
                     (compiled, aborted, jv_compiled, jv_aborted))
    if starts != compiled + aborted or aborts != aborted:
        fails.append("%d TraceStart, %d TraceAbort for %d compiled and %d aborted" %
                     (starts, aborts, compiled, aborted))
    kinds = {label(p["Kind"]) for n, p in evs if n == "TraceStart"}
    if kinds != {"Root", "Side", "Stitch"} or compiled < 10 or aborted < 3:
        fails.append("the workload should compile root, side and stitched traces and abort "
                     "some: kinds %s, %d compiled, %d aborted" % (sorted(kinds), compiled, aborted))

    # GC: the window opens with the first full cycle.
    printed = open(stdout).read().splitlines()
    fulls = [int(l.split()[1]) for l in printed if l.startswith("full ")]
    cycles = [int(l.split()[1]) for l in printed if l.startswith("cycles ")]
    gc = [(n, p) for n, p in evs if n in ("GCStart", "GCStop")]
    first = next((i for i, (n, p) in enumerate(gc)
                  if n == "GCStart" and label(p["Kind"]) == "Full"), None)
    if first is None or not cycles:
        fails.append("no full GC cycle in the trace, or no count printed")
    else:
        window = gc[first:]
        started = [p for n, p in window if n == "GCStart"]
        stopped = [p for n, p in window if n == "GCStop"]
        if len(started) != cycles[0] or len(stopped) != cycles[0]:
            fails.append("GC cycles: %d GCStart and %d GCStop in the trace, LuaJIT counted %d" %
                         (len(started), len(stopped), cycles[0]))
        numbers = [int(p["Cycle"]) for p in started]
        if numbers and numbers != list(range(numbers[0], numbers[0] + len(numbers))):
            fails.append("GC cycle numbers not consecutive: %s" % numbers)
        after = [int(p["TotalBytes"]) for p in stopped if label(p["Kind"]) == "Full"]
        if after != fulls:
            fails.append("memory after each full cycle: trace %s, collectgarbage(\"count\") %s" %
                         (after, fulls))
        print("GC: %d cycles (%d full), memory after the full ones %s bytes" %
              (len(started), len(after), after))
    print("traces: %d compiled, %d aborted (-jv: %d, %d), %d -jv lines equal" %
          (compiled, aborted, jv_compiled, jv_aborted, len(theirs)))
    return fails


def tasks(trace, vpid):
    opened, pairs = {}, {}
    for name, p in events(trace, vpid):
        for task in ("GC", "Trace"):
            if name == task + "Start":
                opened[task] = opened.get(task, 0) + 1
            elif name == task + "Stop" and opened.get(task):
                opened[task] -= 1
                pairs[task] = pairs.get(task, 0) + 1
    for task in sorted(pairs):
        print("LuaJIT:%s %d" % (task, pairs[task]))
    return []


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "counts":
        fails = check_counts(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
    elif len(sys.argv) == 4 and sys.argv[1] == "tasks":
        fails = tasks(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit("usage: luajit_check.py counts TRACE VPID JV STDOUT | tasks TRACE VPID")
    for f in fails:
        print("FAIL: " + f, file=sys.stderr)
    sys.exit(1 if fails else 0)


main()
