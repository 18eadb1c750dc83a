#!/bin/bash
# SPDX-License-Identifier: MIT
# What a trace may hold that palev-trace must not get wrong, recorded for real from edge_host.c:
# event names whose hashes collide stay two events; the process is named by its main thread, not
# by LTTng's listener thread; names and values with escape sequences reach the terminal escaped;
# --by reads the Stop's field and says when no event has it; an EventSource payload with a
# number out of range keeps its other numbers; NaN and infinities are counted, never drawn; a
# series of +-1e308 draws a finite chart with sane labels.
# usage: edge.sh PALEV_TRACE EDGE_HOST WORKDIR
set -u
pt=$1 host=$(realpath "$2") work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
palev_require_sessiond
palev_require_bt2
rm -rf "$work" && mkdir -p "$work" && mkfifo "$work/go" || palev_fail "cannot create $work"

name=$'edge\x1b[31mred'     # the process's name: its threads carry it
ln -s "$host" "$work/$name" || palev_fail "cannot link $name"
"$work/$name" < "$work/go" > "$work/host.out" 2>&1 &
pid=$!
exec 3> "$work/go"
s=palev-trace-edge-$$
lttng create "$s" --output="$work/trace" >/dev/null || palev_fail "lttng create"
PALEV_SESSIONS="$PALEV_SESSIONS $s"
lttng enable-channel -u -s "$s" ch >/dev/null &&
    lttng add-context -u -s "$s" -c ch -t vpid -t vtid -t procname >/dev/null &&
    lttng untrack -u -s "$s" --all --vpid >/dev/null && lttng track -u -s "$s" --vpid="$pid" >/dev/null &&
    lttng enable-event -u -s "$s" -c ch 'Ev:*,Paleventing:EventSource,lttng_ust_statedump:*' >/dev/null &&
    lttng start "$s" >/dev/null || palev_fail "cannot set up session $s"
sleep 0.5   # the statedump, by LTTng's listener thread, comes first
exec 3>&-
wait $pid || palev_fail "the host exited $?: $(cat "$work/host.out")"
palev_session_stop "$s"
status=0
fail() { echo "FAIL: $*"; status=1; }
t=$work/trace

# The premise: the process's first event is the listener thread's ("NAME-ust").
first=$(/usr/bin/python3 - "$t" <<'PY'
import sys, bt2
for m in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(m) is bt2._EventMessageConst:
        print(m.event.common_context_field["procname"]); break
PY
)
case $first in *-ust) ;; *) palev_fail "the first event is not the listener thread's: \"$first\"" ;; esac

# raw control characters (but the newline, and the tab between TSV columns) in a file: the lines
raw() { LC_ALL=C grep -c $'[\x01-\x08\x0b-\x1f\x7f]' "$1"; }

# summary: two events, the process's name, escaped names
"$pt" summary "$t" > "$work/summary.txt" 2> "$work/summary.err" || fail "summary exited $?: $(cat "$work/summary.err")"
grep -qE '^    R6MrKe6TXPM +3 ' "$work/summary.txt" && grep -qE '^    CmbqjLx4J_P +5 ' "$work/summary.txt" ||
    fail "the two events whose names collide: $(grep -E 'R6Mr|Cmbq' "$work/summary.txt")"
grep -qF " $pid edge\\x1b[31mred " "$work/summary.txt" ||
    fail "summary does not name the process by its main thread, escaped: $(grep -F " $pid " "$work/summary.txt")"
grep -qE '^  Edge\\x1b\]0;pwned\\x07 +odd\\tname +1$' "$work/summary.txt" ||
    fail "the EventSource names, escaped: $(grep -A2 '^EventSource' "$work/summary.txt")"
[ "$(raw "$work/summary.txt")" = 0 ] || fail "summary printed raw control characters"
# --pid: the host's events are all of the trace; no event of another process
"$pt" summary --pid "$pid" "$t" > "$work/summary-pid.txt" 2>&1 && cmp -s "$work/summary.txt" "$work/summary-pid.txt" ||
    fail "summary --pid $pid differs from summary"
"$pt" summary --pid $((pid + 1)) "$t" > /dev/null 2> "$work/pid.err"
[ $? = 1 ] && [ "$(cat "$work/pid.err")" = "palev-trace: error: the trace holds no event of process $((pid + 1)) (--pid)" ] ||
    fail "summary --pid of another process: $(cat "$work/pid.err")"

# activities --by a field of the Stop only; --by a field of no event says so
"$pt" activities --by Outcome --format tsv "$t" > "$work/act.tsv" 2> "$work/act.err" || fail "activities exited $?"
printf '%s\n' "Ev:Job 3" "  Outcome=ok 2" "  Outcome=fail\\x1b[2J\\n\\tnow 1" "Ev:Step 3" > "$work/act.want"
cut -f1,2 "$work/act.tsv" | tail -n +2 | tr '\t' ' ' | diff -u "$work/act.want" - || fail "activities --by Outcome"
[ ! -s "$work/act.err" ] || fail "activities --by Outcome warned: $(cat "$work/act.err")"
"$pt" activities --by Nope "$t" > "$work/act2.txt" 2> "$work/act2.err" || fail "activities --by Nope exited $?"
echo 'palev-trace: warning: --by Nope: no Start or Stop event of the 6 activities has a field "Nope": nothing is split' |
    diff -u - "$work/act2.err" || fail "activities --by Nope: the warning"
[ "$(raw "$work/act.tsv")" = 0 ] && [ "$(raw "$work/act2.txt")" = 0 ] || fail "activities printed raw control characters"

# counters: the payload's numbers but the one out of range, non-finite samples counted
"$pt" counters --format tsv "$t" > "$work/counters.tsv" 2> "$work/counters.err" || fail "counters exited $?"
cat > "$work/counters.want" <<'END'
series	samples	min	mean	max	last	rate_per_s	nonfinite
Edge\x1b]0;pwned\x07/odd\tname/big	1	1.8446744073709552e+19	1.8446744073709552e+19	1.8446744073709552e+19	1.8446744073709552e+19	0	0
Edge\x1b]0;pwned\x07/odd\tname/huge	0						1
Edge\x1b]0;pwned\x07/odd\tname/ok	1	3	3	3	3	0	0
Ev:CmbqjLx4J_P/n	5	0	2	4	4	X	0
Ev:Gauge/v	2	1	1.5	2	2	X	3
Ev:Huge/v	5	-1.6999999999999999e+308	M	1.5e+308	5.0000000000000001e+307	X	0
Ev:R6MrKe6TXPM/n	3	0	1	2	2	X	0
END
# change/s is checked by the golden test; the mean of +-1e308 against math.fsum below
awk -F '\t' 'BEGIN { OFS = "\t" } NR > 1 && $7 != 0 && $7 != "" { $7 = "X" } /^Ev:Huge/ { $4 = "M" } { print }' \
    "$work/counters.tsv" | diff -u "$work/counters.want" - || fail "counters --format tsv"
/usr/bin/python3 -c '
import math, sys
row = [l.split("\t") for l in open(sys.argv[1]) if l.startswith("Ev:Huge/v")][0]
want = math.fsum([1e308, -1e308, 1.5e308, -1.7e308, 0.5e308]) / 5
sys.exit(0 if abs(float(row[3]) - want) <= 1e-12 * abs(want) else print("mean", row[3], "want", want) or 1)
' "$work/counters.tsv" || fail "counters: the mean of +-1e308 samples"
"$pt" counters "$t" > "$work/counters.txt" 2>> "$work/counters.err"
grep -qF '(Ev:Gauge/v: 3 samples not finite (NaN, infinite, or beyond a double'"'"'s range) left out of min, mean, max and last)' \
    "$work/counters.txt" || fail "counters does not say Gauge's samples were not finite: $(tail -3 "$work/counters.txt")"
[ "$(raw "$work/counters.txt")" = 0 ] || fail "counters printed raw control characters"

# report: finite coordinates, labels as numbers, the samples not drawn said, the process named
"$pt" report -o "$work/report.html" "$t" 2> "$work/report.err" || fail "report exited $?: $(cat "$work/report.err")"
/usr/bin/python3 - "$work/report.html" "$pid" <<'PY' || status=1
import math, re, sys
page, pid = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2]
fails = []
bad = [xy for pts in re.findall(r'points="([^"]*)"', page) for xy in pts.split()
       if not all(math.isfinite(float(v)) for v in xy.split(","))]
if bad or re.search(r'="[^"]*\b(nan|inf)\b', page):
    fails.append("coordinates that are not numbers: %s" % bad[:3])
chart = page.split("<b>Ev:Huge/v</b>")[1].split("</svg>")[0]
labels = re.findall(r'<text class="tick" x="56" y="[^"]*" text-anchor="end">([^<]*)</text>', chart)
if labels != ["1.5e+308", "-1.7e+308"]:
    fails.append("Ev:Huge/v's axis labels: %s" % labels)
if len(re.findall(r'points="([^"]*)"', chart)[0].split()) != 5:
    fails.append("Ev:Huge/v: not 5 points")
if "3 not finite (NaN, infinite or beyond a double's range): not drawn" not in page.split("<b>Ev:Gauge/v</b>")[1].split("</p>")[0]:
    fails.append("Gauge's samples not drawn are not said")
row = re.search(r"<td>%s</td><td>([^<]*)</td>" % pid, page)
if not row or row.group(1) != "edge\x1b[31mred":
    fails.append("the report's process: %r" % (row and row.group(1)))
for f in fails:
    print("FAIL: report:", f)
sys.exit(1 if fails else 0)
PY

# export: the process track named by the main thread
"$pt" export -o "$work/export.json" "$t" 2> "$work/export.err" || fail "export exited $?: $(cat "$work/export.err")"
/usr/bin/python3 - "$work/export.json" "$pid" <<'PY' || fail "export's process name"
import json, sys
recs = json.load(open(sys.argv[1]))["traceEvents"]
names = [r["args"]["name"] for r in recs if r["ph"] == "M" and r["name"] == "process_name"]
sys.exit(0 if names and all(n.startswith("edge\x1b[31mred %s " % sys.argv[2]) for n in names) else print(names) or 1)
PY
[ $status = 0 ] && echo "edge: every answer as the trace says it"
exit $status
