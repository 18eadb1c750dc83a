#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/bench/stacks.sh [BUILD_DIR]: palev-bench-stacks in a real LTTng session: the cost of a
# Stack event (frame pointers, then libunwind), a rundown of 100 000 code ranges (its duration
# read from the trace), the rundown watcher's cost in a host that never records, and what
# registering code costs with nobody recording and in a session.
# Not a pass/fail test. BUILD_DIR defaults to build-bench at the top of the source tree.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build-bench}
. "$here/lib.sh"
unset PALEV_LTTNG PALEV_PROVIDER_PATH PALEV_DEBUG PALEV_STACK PALEV_STACK_DEPTH
session=palev-bench-stacks-$$
trace=""

cleanup() {
    lttng destroy "$session" >/dev/null 2>&1
    [ -n "$trace" ] && rm -rf "$trace"
}
trap cleanup EXIT

bench_build palev-bench-stacks
bench=$build/tests/bench/palev-bench-stacks
pgrep -x lttng-sessiond >/dev/null || fail "no lttng-sessiond runs"
trace=$(bench_tmpdir palev-bench-stacks) || fail "mktemp failed"

lttng create "$session" --output="$trace/t" >/dev/null || fail "lttng create"
lttng enable-channel -u -s "$session" --subbuf-size=8M --num-subbuf=8 ch >/dev/null || fail "enable-channel"
lttng enable-event -u -s "$session" -c ch Palev_StackBench:Fire,Palev_StackBench:Frames >/dev/null ||
    fail "enable-event"
lttng start "$session" >/dev/null || fail "lttng start"
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "row  measured                                        value | baseline                        | ratio | note"
PALEV_STACK_DEPTH=16 "$bench" walk "$session" || fail "walk (fp)"
PALEV_STACK_DEPTH=16 PALEV_STACK=unwind "$bench" walk "$session" || fail "walk (unwind)"
"$bench" code "$session" || fail "code"
"$bench" rundown "$session" || fail "rundown"
lttng stop "$session" >/dev/null
/usr/bin/python3 - "$trace/t" <<'PY'
import sys, bt2
first = last = None; n = 0
for m in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(m) is bt2._EventMessageConst and m.event.name == "Paleventing:CodeRundown":
        t = m.default_clock_snapshot.ns_from_origin
        first = t if first is None else first
        last = t; n += 1
if n:
    print("S2   rundown: %d CodeRundown events in %.1f ms (first to last, from the trace)"
          % (n, (last - first) / 1e6))
else:
    print("S2   rundown: no CodeRundown event in the trace")
PY
