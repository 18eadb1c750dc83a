#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The report's "Where the CPU went" as Chromium rendered it (its DOM) against palev-trace cpu's
# text: every cpu_host function is a flame graph frame labelled in full whose tooltip gives its
# share; the functions table and the task table say what cpu says; the longest Phases say what
# they were (their Start's and Stop's fields) and the CPU in them.
# usage: report_check.py REPORT_DOM CPU_ALL_TXT CPU_DURING_TXT
import html
import re
import sys

FUNCS = ["burn_inside", "burn_kind2", "burn_outside", "jit_loop_one", "jit_loop_two", "burn_worker"]
dom, all_txt, during_txt = (open(p).read() for p in sys.argv[1:4])
failures = []

ROW = re.compile(r"^\s+([\d.]+)%\s+\S+ \S+\s+([\d.]+)%\s+\S+ \S+\s+(.+)$", re.M)
cpu = {m.group(3): (float(m.group(1)), float(m.group(2))) for m in ROW.finditer(all_txt)}
kept = float(re.search(r"^kept: \d+ samples \(([\d.]+)%\)", during_txt, re.M).group(1))

section = dom.split('<h2 id="cpu">Where the CPU went</h2>')
if len(section) != 2:
    sys.exit("FAIL: no \"Where the CPU went\" section")
section = section[1].split("<h2")[0]
flame = re.search(r'<svg class="flame".*?</svg>', section, re.S)
if not flame:
    sys.exit("FAIL: no flame graph in the section")
frames = re.findall(r'<g class="f"><title>(.*?)</title><rect [^>]*?width="([\d.]+)"[^>]*?>(?:</rect>)?'
                    r'(?:<text[^>]*>(.*?)</text>)?</g>', flame.group(0), re.S)
print("flame graph: %d frames" % len(frames))
for name in FUNCS:
    mine = [(t, float(w), html.unescape(l or "")) for t, w, l in frames if html.unescape(t).startswith(name + " (")]
    if len(mine) != 1:
        failures.append("%s: %d frames in the flame graph, want 1" % (name, len(mine)))
        continue
    title, width, text = mine[0]
    share = float(re.search(r"samples, ([\d.]+)%", title).group(1))
    print("%-13s frame %6.1f px, label %-14r tooltip %5.2f%%, cpu total %5.1f%%" % (name, width, text, share, cpu[name][1]))
    if text != name:
        failures.append("%s: labelled %r, not in full" % (name, text))
    if abs(share - cpu[name][1]) > 0.06:
        failures.append("%s: the tooltip says %.2f%%, cpu %.1f%%" % (name, share, cpu[name][1]))

table = re.search(r'<table class="functions">(.*?)</table>', section, re.S).group(1)
for fn, self_pct, total_pct in re.findall(r'<td class="fn">(.*?)</td><td>[^<]*</td><td>([\d.]+)%</td><td>[^<]*</td>'
                                          r'<td>([\d.]+)%</td>', table):
    fn = html.unescape(fn)
    if fn in cpu and (abs(float(self_pct) - cpu[fn][0]) > 0.05 or abs(float(total_pct) - cpu[fn][1]) > 0.05):
        failures.append("functions table: %s %s%% / %s%%, cpu %s" % (fn, self_pct, total_pct, cpu[fn]))
    if fn in FUNCS:
        print("%-13s table %s%% self, %s%% total" % (fn, self_pct, total_pct))

tasks = re.search(r'<table class="tasks">(.*?)</table>', section, re.S)
row = tasks and re.search(r"<td>Palev_Cpu:Phase</td><td>[^<]*</td><td>([\d.]+)%</td>", tasks.group(1))
if not row:
    failures.append("no Palev_Cpu:Phase row in the task table")
else:
    print("Palev_Cpu:Phase: %s%% of the CPU during its activities, cpu --during kept %.1f%%" % (row.group(1), kept))
    if abs(float(row.group(1)) - kept) > 0.05:
        failures.append("task table: %s%% during Phase, cpu --during %.1f%%" % (row.group(1), kept))

# The longest Phases: what each was (its Start's Kind, its Stop's Outcome) and the CPU in it.
UNITS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
def ms(text):
    value, unit = text.split()
    return float(value) * UNITS[unit]

phase = dom.split('<h3 class="task">Palev_Cpu:Phase</h3>')[1].split("<h3")[0]
rows = re.findall(r"<tr><td>([^<]*)</td><td>[^<]*</td><td>[^<]*</td><td>\d+</td><td>\d+</td><td>([^<]*) \((\d+)\)</td>"
                  r'<td class="fields">([^<]*)</td><td class="fields">([^<]*)</td></tr>', phase)
print("the longest Phases: %d rows" % len(rows))
if len(rows) != 10:
    failures.append("the longest Phases: %d rows with their CPU and fields, want 10" % len(rows))
for duration, cpu_in, samples, start, stop in rows:
    kind = re.fullmatch(r"Kind=(\d+)", start)
    outcome = re.fullmatch(r"Outcome=(\d+)", stop)
    print("  %-12s CPU %-12s (%s samples)  %-8s %s" % (duration, cpu_in, samples, start, stop))
    if not kind or not outcome or int(outcome.group(1)) != int(kind.group(1)) + 6:
        failures.append("a longest Phase's fields: %r / %r" % (start, stop))
    elif ms(cpu_in) > 2 * ms(duration) + 0.5 or (kind.group(1) != "3" and not int(samples)):
        failures.append("a longest Phase of %s: %s of CPU in %s" % (start, cpu_in, duration))

for f in failures:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if failures else 0)
