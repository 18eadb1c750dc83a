#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# samples/luajit's oracle: reads one process's LuaJIT events with bt2 and compares them with
# LuaJIT's own account of the same run.
#   counts TRACE VPID JV STDOUT   -jv's lines, rebuilt from TraceStart/Stop/Abort/Flush, must
#                                 equal JV (luajit -jv=JV); the GC cycles from the first full
#                                 collection on, and the memory after each full one, must be
#                                 what counts.lua printed (STDOUT); every compiled trace's code
#                                 registered, patched when a side trace links, unloaded
#   tasks TRACE VPID              "TASK COUNT" per task: Start/Stop pairs, for palev-trace
#   perf SCRIPT                   `perf script -F ip,sym` of perf.lua's samples after perf
#                                 inject --jit, DWARF call graphs: samples in trace code and in
#                                 the collector called from it name the trace and go on past it
# Exits 1 with the differences on failure.
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../tests/e2e"))
from bt2events import events as trace_events  # noqa: E402


def events(trace, vpid, prefix="LuaJIT:", code=False):
    """(name, payload) of the process's events of the provider, in order; with code, also
    Paleventing:CodeLoad/CodeUnload, named "CodeLoad"/"CodeUnload"."""
    for ev in trace_events(trace, vpid, discarded="ignore"):
        if ev.name.startswith(prefix):
            yield ev.name[len(prefix):], ev.payload_field
        elif code and ev.name in ("Paleventing:CodeLoad", "Paleventing:CodeUnload"):
            yield ev.name[len("Paleventing:"):], ev.payload_field


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


JIT = 0


def check_code(evs):
    """Each compiled trace's machine code loaded as TRACE_<n>::<its start location> with its
    size, just before its TraceStop; a side trace's parent patched (a new version, same name,
    same start) while it compiles; every trace unloaded before TraceFlush and by the end."""
    fails, live, loc, current, patched = [], {}, {}, {}, 0
    last_load, patch_of, loads, patches = None, None, 0, 0
    flushed = 0     # traces loaded since the last flush
    for name, p in evs:
        if name == "TraceStart":
            tr = int(p["Trace"])
            loc[tr] = str(p["Location"])
            patch_of = int(p["Parent"]) if label(p["Kind"]) == "Side" else None
            last_load, patched = None, 0
        elif name == "CodeLoad" and int(p["kind"]) == JIT:
            start, version = int(p["start"]), int(p["version"])
            if version == 0:
                live[start] = (str(p["name"]), int(p["size"]))
                last_load = (start, str(p["name"]), int(p["size"]))
                loads += 1
                flushed += 1
                continue
            if patch_of is None or current.get(patch_of) != start:
                fails.append("a patch of %s, not of the parent of a side trace compiling" %
                             (live.get(start, ("an unknown range",))[0]))
            elif str(p["name"]) != live[start][0]:
                fails.append("the patch of %s renamed it %s" % (live[start][0], p["name"]))
            patched += 1
            patches += 1
        elif name == "CodeUnload":
            start = int(p["start"])
            if start in live:
                del live[start]
        elif name == "TraceStop" and label(p["Outcome"]) == "Compiled":
            tr = int(p["Trace"])
            want = ("TRACE_%d::%s" % (tr, loc.get(tr)), int(p["MCodeSize"]))
            if not last_load or last_load[1:] != want:
                fails.append("trace %d: code loaded %s, expected %s" % (tr, last_load, want))
            else:
                current[tr] = last_load[0]
            if patch_of is not None and patched == 0:
                fails.append("side trace %d: its parent %d was not patched" % (tr, patch_of))
            patched, patch_of = 0, None
        elif name == "TraceFlush":
            if live:
                fails.append("TraceFlush with %d traces still loaded: %s" %
                             (len(live), sorted(n for n, _ in live.values())[:3]))
            if not flushed:
                fails.append("TraceFlush with no trace compiled before it")
            print("code: none of the %d traces compiled before TraceFlush is loaded after it" % flushed)
            current, flushed = {}, 0
    if live:
        fails.append("%d traces never unloaded: %s" % (len(live), sorted(n for n, _ in live.values())[:3]))
    if not patches:
        fails.append("no side trace patched its parent")
    print("code: %d traces loaded, %d parents patched by side traces" % (loads, patches))
    return fails


def check_counts(trace, vpid, jv, stdout):
    evs = list(events(trace, vpid, code=True))
    fails = check_code(evs)
    evs = [(n, p) for n, p in evs if not n.startswith("Code")]

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


def perf_samples(path):
    """Each sample's user frames, innermost first (perf script's inlined frames left out)."""
    samples, cur = [], []
    for line in open(path):
        if not line.strip():
            if cur:
                samples.append(cur)
            cur = []
            continue
        m = re.match(r"\s+[0-9a-f]+ (.*)$", line.rstrip("\n"))
        if m and not m.group(1).endswith(" (inlined)"):
            cur.append(m.group(1))
    if cur:
        samples.append(cur)
    return samples


def check_perf(path):
    trace = re.compile(r"^TRACE_\d+::perf\.lua:(\d+)$")
    below = ["lua_pcall", "docall", "pmain"]
    samples = perf_samples(path)
    leaf = [s for s in samples if trace.match(s[0])]
    through = [s for s in leaf if trace.match(s[0]).group(1) == "10" and s[1:4] == below]
    gc = [s for s in samples for i in range(1, len(s) - 3)
          if s[i - 1] == "lj_gc_step_jit" and trace.match(s[i]) and
          trace.match(s[i]).group(1) == "20" and s[i + 1:i + 4] == below]
    print("perf: %d samples, %d in trace code, %d of them unwound through the trace to %s; "
          "%d in the collector called from trace code unwound through it" %
          (len(samples), len(leaf), sum(1 for s in leaf if s[1:4] == below), " < ".join(below),
           len(gc)))
    fails = []
    if not through:
        fails.append("no sample in the trace of perf.lua:10 goes on to %s: %s" %
                     (" < ".join(below), [" < ".join(s[:4]) for s in leaf[:3]]))
    if not gc:
        fails.append("no sample in the collector goes on through the trace of perf.lua:20 to %s"
                     % " < ".join(below))
    return fails


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "counts":
        fails = check_counts(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
    elif len(sys.argv) == 4 and sys.argv[1] == "tasks":
        fails = tasks(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "perf":
        fails = check_perf(sys.argv[2])
    else:
        sys.exit("usage: luajit_check.py counts TRACE VPID JV STDOUT | tasks TRACE VPID | perf SCRIPT")
    for f in fails:
        print("FAIL: " + f, file=sys.stderr)
    sys.exit(1 if fails else 0)


main()
