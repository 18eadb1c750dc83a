#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# palev-trace cpu's self and total shares recomputed from its --folded lines (an independent
# count): self, the samples whose innermost frame is the function; total, the samples with the
# function anywhere in their stack, once however often it recurses there.
# usage: totals_check.py CPU_TOP_ALL_TXT FOLDED
import re
import sys

table, folded = open(sys.argv[1]).read(), open(sys.argv[2])
ROW = re.compile(r"^\s+([\d.]+)%\s+\S+ \S+\s+([\d.]+)%\s+\S+ \S+\s+(.+)$", re.M)
tool = {m.group(3): (float(m.group(1)), float(m.group(2))) for m in ROW.finditer(table)}
self_n, total_n, samples = {}, {}, 0
for line in folded:
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames, n = stack.split(";")[1:], int(count)    # the process's frame is no function
    samples += n
    if frames:
        self_n[frames[-1]] = self_n.get(frames[-1], 0) + n
    for f in set(frames):
        total_n[f] = total_n.get(f, 0) + n
failures, deepest = [], 0
for f, (s, t) in tool.items():
    want_s, want_t = 100.0 * self_n.get(f, 0) / samples, 100.0 * total_n.get(f, 0) / samples
    if abs(s - want_s) > 0.06 or abs(t - want_t) > 0.06:
        failures.append("%s: self %.1f%% total %.1f%%, the folded lines say %.2f%% and %.2f%%" % (f, s, t, want_s, want_t))
for line in open(sys.argv[2]):
    frames = line.rpartition(" ")[0].split(";")
    deepest = max(deepest, max(frames.count(f) for f in frames))
print("%d functions, self and total as the %d folded samples give them; a function recurses up to %d deep"
      % (len(tool), samples, deepest))
if set(tool) != set(total_n):
    failures.append("functions only in the table: %s; only in the folded lines: %s"
                    % (sorted(set(tool) - set(total_n))[:5], sorted(set(total_n) - set(tool))[:5]))
for f in failures:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if failures else 0)
