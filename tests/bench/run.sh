#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/bench/run.sh [BUILD_DIR]: build palev-bench if needed, record it in a real LTTng session
# with buffers large enough that nothing is lost, print its table and what the trace holds.
# Not a pass/fail test: it fails only when something cannot run. BUILD_DIR defaults to
# build-bench at the top of the source tree.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build-bench}
. "$here/lib.sh"
# Row 7 times palev-gen on CoreCLR's manifest from the shared corpus when it is there (beside the
# checkout, or PALEV_SHARED_MANIFESTS), else on the project's own runtime manifest.
manifest=${PALEV_BENCH_MANIFEST:-${PALEV_SHARED_MANIFESTS:-$root/../shared/manifests}/dotnet__coreclr__ClrEtwAll.man}
[ -f "$manifest" ] || manifest=$root/manifest/runtime.man
# The library's settings come from the environment: the bench runs with none of them.
unset PALEV_LTTNG PALEV_PROVIDER_PATH PALEV_DEBUG PALEV_EVENTSOURCE_FILTER PALEV_EVENTNAME_FILTER
session=palev-bench-$$
trace=""
. "$root/tests/e2e/sessiond_lib.sh"
PALEV_SESSIOND=""

cleanup() {
    [ -n "$session" ] && lttng destroy "$session" >/dev/null 2>&1
    [ -n "$trace" ] && rm -rf "$trace"
    palev_sessiond_stop "$PALEV_SESSIOND" || true
}
trap cleanup EXIT

for tool in cmake lttng lttng-sessiond babeltrace2; do
    command -v $tool >/dev/null || fail "$tool is not installed (tests/deps.sh installs it)"
done

# Build: configure once (optimised, as a runtime would ship), then only what the bench needs.
bench_build palev-bench palev-gen
bench=$build/tests/bench/palev-bench
gen=$build/generator/palev-gen

# A session daemon: ours only if none runs, and then stopped on exit.
palev_sessiond_ensure || fail "cannot start lttng-sessiond"

trace=$(bench_tmpdir palev-bench-trace) || fail "mktemp failed"

# Per-user buffers of 8 x 8 MiB per CPU: one round of any row fits many times over, so the
# consumer drains them between rounds and nothing is discarded. No context fields: events carry
# exactly their payload, like the raw baselines. The session tracks only the bench's processes
# (it adds them): other processes' Paleventing:EventSource events stay out of it, and their
# tracepoint stays off.
lttng create "$session" --output="$trace/t" >/dev/null || fail "lttng create"
lttng untrack -u -s "$session" --all --vpid >/dev/null || fail "lttng untrack"
lttng enable-channel -u -s "$session" --subbuf-size=8M --num-subbuf=8 ch >/dev/null ||
    fail "lttng enable-channel"
lttng enable-event -u -s "$session" -c ch \
    Palev_Bench:Small,Palev_Bench:Text16,Palev_Bench:Text8,Palev_Bench:Wide15,Palev_Bench:Items \
    >/dev/null || fail "lttng enable-event Palev_Bench"
lttng enable-event -u -s "$session" -c ch Palev_BenchUsdt:Small >/dev/null ||
    fail "lttng enable-event Palev_BenchUsdt:Small"
lttng enable-event -u -s "$session" -c ch \
    palev_bench_raw:Small,palev_bench_raw:Text8,palev_bench_raw:Wide15,palev_bench_raw:Items,palev_bench_raw:Json \
    >/dev/null || fail "lttng enable-event palev_bench_raw"
# Row 10: the dynamic event, enabled before the bench defines it (Bench_Dyn:SmallOff stays off).
lttng enable-event -u -s "$session" -c ch Bench_Dyn:Small >/dev/null ||
    fail "lttng enable-event Bench_Dyn:Small"
lttng start "$session" >/dev/null || fail "lttng start"

# Row 9: bpftrace counting the hits of a USDT probe of the bench (as root, where uprobes work).
usdt=()
if [ "$(id -u)" = 0 ] && command -v bpftrace >/dev/null; then
    usdt=(--usdt-cmd "bpftrace -q -e 'usdt:$bench:Palev_BenchUsdt:SmallOff { @hits = count(); }' >/dev/null 2>&1 -p")
fi

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "machine: $(nproc) CPUs, $cpu, Linux $(uname -r)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
out=$trace/bench.txt
"$bench" --expect-session \
    --enable-cmd "lttng enable-event -u -s $session -c ch Paleventing:EventSource >/dev/null" \
    --track-cmd "lttng track -u -s $session --vpid >/dev/null" \
    --gen "$gen" --manifest "$manifest" "${usdt[@]}" >"$out" || fail "palev-bench failed"
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
lttng stop "$session" >/dev/null || fail "lttng stop"
cat "$out"

# What the trace holds: the tracer's discarded count, and the events babeltrace2 reads back.
fired=$(sed -n 's/^events fired into the session: //p' "$out")
discarded=$(lttng list "$session" -c ch | sed -n 's/^ *Discarded events: //p' | head -1)
counts=$(babeltrace2 "$trace/t" -c sink.utils.counter 2>&1 | tail -9)
recorded=$(echo "$counts" | sed -n 's/^ *\([0-9]*\) Event messages$/\1/p')
lost=$(echo "$counts" | sed -n 's/^ *\([0-9]*\) Discarded event messages$/\1/p')
echo "trace: $recorded events recorded of $fired fired; discarded events: ${discarded:-?} (lttng)," \
    "discarded-event records: ${lost:-?} (babeltrace2)"
