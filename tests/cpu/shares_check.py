#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# palev-trace cpu's shares of cpu_host's functions against the CPU time the host measured in each
# (cpu_host.c: thread CPU time around each function's work), for every cut.
# usage: shares_check.py HOST_OUT ALL DURING OUTSIDE KIND1 OUTCOME8 THREADS FOLDED
import re
import sys

TOLERANCE = 2.0     # percentage points; about 3.5 standard errors at 5000 samples
STRAY = 0.5         # at most this share of a cut for a function the cut leaves out

host_out, all_txt, during_txt, outside_txt, kind1_txt, outcome8_txt, threads_txt, folded_txt = sys.argv[1:]
FUNCS = ["burn_inside", "burn_kind2", "burn_outside", "jit_loop_one", "jit_loop_two", "burn_worker"]
PHASE = ["burn_inside", "burn_kind2", "burn_worker"]
failures = []


def host_ms():
    ms = {}
    for line in open(host_out):
        name, _, value = line.partition(" ")
        if name in FUNCS:
            ms[name] = float(value)
    assert set(ms) == set(FUNCS), "the host did not report every function: %s" % ms
    return ms


ROW = re.compile(r"^\s+([\d.]+)%\s+\S+ \S+\s+([\d.]+)%\s+\S+ \S+\s+(.+)$")


def table(path):
    """{function: total%} of a cpu text output (the first table, or every thread's)."""
    shares, kept = {}, None
    for line in open(path):
        m = ROW.match(line)
        if m:
            shares[m.group(3)] = shares.get(m.group(3), 0.0) + float(m.group(2))
        m = re.match(r"kept: (\d+) samples \(([\d.]+)%\)", line)
        if m:
            kept = float(m.group(2))
    return shares, kept


def compare(what, tool, expected_ms, names):
    """The tool's shares among `names` against the host's."""
    total_tool = sum(tool.get(n, 0.0) for n in names)
    total_host = sum(expected_ms[n] for n in names)
    for n in names:
        got = 100 * tool.get(n, 0.0) / total_tool if total_tool else 0.0
        want = 100 * expected_ms[n] / total_host
        line = "%-9s %-13s palev-trace %5.1f%%  host %5.1f%%" % (what, n, got, want)
        print(line)
        if abs(got - want) > TOLERANCE:
            failures.append(line)


def absent(what, tool, names):
    for n in names:
        if tool.get(n, 0.0) > STRAY:
            failures.append("%s: %s has %.1f%% of the samples" % (what, n, tool[n]))


ms = host_ms()
tool, _ = table(all_txt)
covered = sum(tool.get(n, 0.0) for n in FUNCS)
print("the six functions hold %.1f%% of all samples" % covered)
if covered < 95:
    failures.append("the six functions hold only %.1f%% of the samples" % covered)
compare("all", tool, ms, FUNCS)

# --during: samples while a Phase was open in the process (the worker's too: the main thread
# waits in a Phase meanwhile); --outside: the rest.
during, kept = table(during_txt)
want = 100 * sum(ms[n] for n in PHASE) / sum(ms.values())
print("during    kept %.1f%% of the samples, host %.1f%%" % (kept, want))
if abs(kept - want) > TOLERANCE:
    failures.append("--during kept %.1f%% of the samples, the host spent %.1f%% in Phases" % (kept, want))
compare("during", during, ms, PHASE)
absent("during", during, [n for n in FUNCS if n not in PHASE])
outside, _ = table(outside_txt)
compare("outside", outside, ms, [n for n in FUNCS if n not in PHASE])
absent("outside", outside, PHASE)

# --where: a Start's field (Kind=1: burn_inside's Phases) and a Stop's (Outcome=8: burn_kind2's).
for path, only in ((kind1_txt, "burn_inside"), (outcome8_txt, "burn_kind2")):
    cut, _ = table(path)
    print("where     %-13s %5.1f%% of its cut" % (only, cut.get(only, 0.0)))
    if cut.get(only, 0.0) < 97:
        failures.append("%s: %s has %.1f%% of the cut" % (path, only, cut.get(only, 0.0)))
    absent(path, cut, [n for n in FUNCS if n != only])

# --by thread: burn_worker on a thread of its own, the rest on the main thread.
sections, current = {}, None
for line in open(threads_txt):
    m = re.match(r"^thread (\S+): ", line)
    if m:
        current = m.group(1)
    m = ROW.match(line)
    if m and current and float(m.group(2)) > STRAY:
        sections.setdefault(current, set()).add(m.group(3))
worker = [t for t, names in sections.items() if "burn_worker" in names]
main = [t for t, names in sections.items() if "burn_outside" in names]
if len(worker) != 1 or len(main) != 1 or worker == main or \
        sections[worker[0]] & set(FUNCS) != {"burn_worker"} or "burn_worker" in sections[main[0]]:
    failures.append("--by thread: not burn_worker alone on a thread of its own: %s" % sections)
else:
    print("by thread %s: burn_worker; %s: the others" % (worker[0], main[0]))

# --folded: every sample on one line, counts summing to the samples; the host's rooted at its
# process (a sanitized build's LeakSanitizer forks a tracer at exit: a process the LTTng trace
# does not hold, "pid N", with a few samples).
total = others = 0
for line in open(folded_txt):
    frames, _, count = line.rstrip("\n").rpartition(" ")
    total += int(count)
    if re.match(r"pid \d+;", frames):
        others += int(count)
    elif not frames.startswith("cpu_host;"):
        failures.append("--folded: a line not rooted at the process: %r" % line)
samples = int(re.search(r"^CPU samples: (\d+) ", open(all_txt).read(), re.M).group(1))
print("folded    %d samples in %s, %d in all" % (total, folded_txt, samples))
if total != samples:
    failures.append("--folded counts %d samples, cpu says %d" % (total, samples))
if others > samples // 100:
    failures.append("--folded: %d samples of other processes" % others)

for f in failures:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if failures else 0)
