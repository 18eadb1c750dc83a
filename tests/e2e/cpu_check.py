#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# palev-collect --cpu's samples against its LTTng trace, read with python bt2: every sample in
# DIR/perf/ctf belongs to the program (perf_pid), on threads the LTTng trace knows (vtid), on
# CLOCK_MONOTONIC: perf's clock says "monotonic" and the samples' raw times (ns) lie inside the
# program's run as its LTTng events' raw times (the clock's offset to the epoch left out) say.
# usage: cpu_check.py LTTNG_TRACE PERF_CTF PID EVENT   (EVENT: cpu-clock or sched:sched_switch)
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bt2events import messages  # noqa: E402

lttng, ctf, pid, want = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]


first = last = None
tids = set()
for msg in messages(lttng, pid, discarded="ignore"):
    ctx = msg.event.common_context_field
    t = msg.default_clock_snapshot.value
    first = t if first is None else min(first, t)
    last = t if last is None else max(last, t)
    tids.add(int(ctx["vtid"]))
if first is None:
    sys.exit("no LTTng event of pid %d" % pid)

samples, times, stacks, seen, others = 0, [], 0, set(), {}
for msg in messages(ctf, discarded="ignore"):
    ev = msg.event
    if not ev.name.startswith(want):
        continue
    p = ev.payload_field
    if int(p["perf_pid"]) != pid:
        others[int(p["perf_pid"])] = others.get(int(p["perf_pid"]), 0) + 1
        continue
    samples += 1
    seen.add(int(p["perf_tid"]))
    stacks += int(p["perf_callchain_size"]) > 0
    times.append(msg.default_clock_snapshot.value)
if not samples:
    sys.exit("no %s sample of pid %d" % (want, pid))
times.sort()
median = times[len(times) // 2]
if not first <= median <= last:
    sys.exit("the median sample (%d ns) is outside the program's LTTng events (%d..%d ns)" % (median, first, last))
if pid not in seen or not (seen & tids) - {pid}:
    sys.exit("no sample of the main thread %d and another thread of the LTTng trace %s: %s"
             % (pid, sorted(tids), sorted(seen)))
if stacks < samples * 9 // 10:
    sys.exit("only %d of %d samples have a call stack" % (stacks, samples))
print("%s: %d samples of pid %d on %d threads (%d of them in the LTTng trace), %d with call stacks; "
      "median at %.3f s of its %.3f s of LTTng events (raw CLOCK_MONOTONIC); %d of other processes %s"
      % (want, samples, pid, len(seen), len(seen & tids), stacks, (median - first) / 1e9, (last - first) / 1e9,
         sum(others.values()), sorted(others)))
if sum(others.values()) > samples:
    sys.exit("more samples of other processes than of the program")
