#!/bin/bash
# SPDX-License-Identifier: MIT
# samples/demo.sh in the suite, on the build under test: it exits 0, its report names every
# event of the workload with a non-zero count and decodes a few, shows the CPU during the
# collections (with perf, as root), and it leaves nothing behind
# (no session of its own; the session daemons it found still run).
# usage: sample_demo.sh DEMO_SH BUILD_DIR WORKDIR
set -u
demo=$1 build=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
palev_require_sessiond
rm -rf "$work" && mkdir -p "$work" || palev_fail "cannot create $work"
# The daemon our lttng commands talk to is the one of our user (others may come and go).
sessiond_before=$(pgrep -x -u "$(id -u)" lttng-sessiond)

# From another directory: the demo must not depend on where it is started.
(cd / && "$demo" --build-dir "$build" --no-build) > "$work/demo.out" 2>&1 ||
    palev_fail "demo.sh exited $?: $(tail -20 "$work/demo.out")"

# The "events per name" section: "   COUNT  provider:event" lines.
sed -n '/^== events per name/,/^== /p' "$work/demo.out" > "$work/counts.txt"
for e in RuntimeStart RuntimeStop ModuleLoad ModuleUnload MethodJittingStarted MethodLoad \
    MethodCompileFailed GCStart GCEnd GCHeapStats GCGenerationTable GCAllocationTick GCHeapPressure \
    GCOutOfMemory ExceptionThrown ExceptionCatch ExceptionUnhandled ThreadStart ThreadStop \
    ThreadPoolEnqueue ThreadPoolDequeue ThreadPoolWorkItemDone; do
    grep -q -E "^ *[1-9][0-9]*  Palev_Runtime:$e( |$)" "$work/counts.txt" ||
        palev_fail "the report has no non-zero count for Palev_Runtime:$e"
done
grep -q -E "^ *[1-9][0-9]*  Paleventing:EventSource$" "$work/counts.txt" ||
    palev_fail "the report has no EventSource events"
# The workload's deliberate failures are explained where they appear.
for note in '^ *1  Palev_Runtime:GCOutOfMemory   (on purpose: the warm-up reaches a heap limit once)$' \
    '^ *1  Palev_Runtime:MethodCompileFailed   (on purpose: the verifier refuses Workload.Broken.underflow)$' \
    '^ *2  Paleventing:ProviderStatus   (one per provider: loaded, and from where)$'; do
    grep -q -e "$note" "$work/counts.txt" || palev_fail "the report does not say: $note"
done
grep -q '^  minivm: work item [0-9]*: unhandled Workload.GiveUp: work item 3 gives up' "$work/demo.out" &&
    grep -q '^  "unhandled Workload.GiveUp": in every round, work item 3 throws Workload.GiveUp' "$work/demo.out" ||
    palev_fail "the report does not explain minivm's unhandled Workload.GiveUp"
grep -q -E '^== done in [0-9]+ s$' "$work/demo.out" || palev_fail "the report does not say how long it took"
for field in 'MethodName = "deep"' 'Reason = ( "OldBudget"' 'ExceptionType = "Workload.ParseError"' \
    'EventSourceName = "MiniVM-Counters"'; do
    grep -q -F "$field" "$work/demo.out" || palev_fail "the report does not decode $field"
done
grep -q "babeltrace2 $build/demo-trace" "$work/demo.out" ||
    palev_fail "the report does not say how to read the trace"

# With perf here (as root), the CPU during minivm's collections: its collector's functions.
if command -v perf >/dev/null && [ "$(id -u)" = 0 ]; then
    sed -n '/^== the CPU during the collections/,/^== /p' "$work/demo.out" > "$work/cpu.txt"
    grep -q -E '^kept: [1-9][0-9]* samples \([0-9.]+%\) taken while an activity of Palev_Runtime:GC was open' "$work/cpu.txt" &&
        grep -q -E ' ms  (_int_free|heap_collect|mark_children|sweep_list)$' "$work/cpu.txt" ||
        palev_fail "the report does not show the CPU during the collections: $(cat "$work/cpu.txt")"
fi

session=$(sed -n 's/^  palev-collect: session \(palev-collect-[0-9]*\) records .*/\1/p' "$work/demo.out")
[ -n "$session" ] || palev_fail "the report does not name palev-collect's session"
! lttng list 2>/dev/null | grep -q -w "$session" || palev_fail "the demo left its session $session behind"
for pid in $sessiond_before; do
    kill -0 "$pid" 2>/dev/null || palev_fail "the session daemon $pid stopped during the demo"
done
own=$(sed -n 's/^  palev-collect: started lttng-sessiond (pid \([0-9]*\)).*/\1/p' "$work/demo.out")
[ -z "$own" ] || ! kill -0 "$own" 2>/dev/null || palev_fail "the demo left its lttng-sessiond $own running"
head -1 "$work/counts.txt"
echo "demo.sh report: $(grep -c -E '^ *[1-9]' "$work/counts.txt") event names with non-zero counts"
