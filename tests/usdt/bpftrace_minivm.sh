#!/bin/bash
# SPDX-License-Identifier: MIT
# minivm (built with USDT) traced by bpftrace and by an LTTng session at once: for each probe the
# hits bpftrace counts equal the events the session recorded, and the integer and string
# arguments equal the LTTng fields event by event (bpftrace_check.py; argument positions from
# palev-gen usdt-args). Exits 77 (skipped) where BPF or uprobes are not permitted.
# usage: bpftrace_minivm.sh PALEV_GEN MANIFEST MINIVM WORKDIR
set -u
gen=$1 manifest=$2 minivm=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
skip() { echo "SKIP: $*"; exit 77; }
EVENTS="RuntimeStart GCStart GCEnd GCHeapStats GCGenerationTable GCAllocationTick MethodJittingStarted MethodLoad
ExceptionThrown ExceptionCatch ThreadStart ThreadStop ModuleLoad RuntimeStop"

[ "$(id -u)" = 0 ] || skip "bpftrace needs root here (BPF programs and uprobes)"
command -v bpftrace >/dev/null || skip "bpftrace is not installed (tests/deps.sh installs it)"
palev_require_sessiond
rm -rf "$work" && mkdir -p "$work" || palev_fail "cannot create $work"
unset PALEV_LTTNG PALEV_EVENTSOURCE_FILTER PALEV_EVENTNAME_FILTER
export BPFTRACE_STRLEN=100 BPFTRACE_PERF_RB_PAGES=1024
# What this machine permits: a BPF program at all, then a uprobe on minivm's main.
timeout 60 bpftrace -e 'BEGIN { exit(); }' >"$work/bpf.log" 2>&1 ||
    skip "BPF programs are not permitted here: $(grep -m1 -i error "$work/bpf.log")"
timeout 60 bpftrace -e "uprobe:$minivm:main { printf(\"main\\n\"); }" -c "$minivm -t 1" \
    >"$work/uprobe.log" 2>&1 && grep -q '^main$' "$work/uprobe.log" ||
    skip "uprobes cannot attach here: $(grep -m1 -i error "$work/uprobe.log")"

"$gen" usdt-args "$manifest" > "$work/usdt-args.txt" || palev_fail "palev-gen usdt-args exited $?"
/usr/bin/python3 "$here/bpftrace_check.py" script "$work/usdt-args.txt" "$minivm" $EVENTS \
    > "$work/probes.bt" || palev_fail "cannot write the bpftrace program"
palev_session_start "palev-usdt-bt-$$" "$work/trace" 'Palev_Runtime:*'
timeout 120 bpftrace "$work/probes.bt" -c "$minivm -t 600" >"$work/bpftrace.out" 2>"$work/bpftrace.err" ||
    palev_fail "bpftrace exited $?: $(grep -v RLIMIT_MEMLOCK "$work/bpftrace.err" | head -5)"
palev_session_stop "palev-usdt-bt-$$"
! grep -i "lost" "$work/bpftrace.out" "$work/bpftrace.err" || palev_fail "bpftrace lost events"
grep -q "^workload: [0-9]* rounds, checksum 8040$" "$work/bpftrace.out" ||
    palev_fail "minivm's workload did not finish: $(tail -3 "$work/bpftrace.out")"
/usr/bin/python3 "$here/bpftrace_check.py" check "$work/usdt-args.txt" "$work/bpftrace.out" \
    "$work/trace" $EVENTS || exit 1

# Without LTTng (PALEV_LTTNG=0: no probe provider, no liblttng-ust), the probes still fire and
# the host runs as ever. minivm fires GCHeapStats only when ProviderEnabledPalev_Runtime(
# Informational, GC) says someone listens: with --usdt, a tool attached to it counts.
PALEV_LTTNG=0 timeout 120 bpftrace -e "usdt:$minivm:Palev_Runtime:GCStart { @gc = count(); }
    usdt:$minivm:Palev_Runtime:GCHeapStats { @stats = count(); }" \
    -c "$minivm -t 300" >"$work/nolttng.out" 2>"$work/nolttng.err" ||
    palev_fail "PALEV_LTTNG=0: bpftrace exited $?: $(grep -v RLIMIT_MEMLOCK "$work/nolttng.err" | head -3)"
grep -q "^workload: [0-9]* rounds, checksum 8040$" "$work/nolttng.out" ||
    palev_fail "PALEV_LTTNG=0: minivm's workload did not finish: $(tail -3 "$work/nolttng.out")"
gc=$(sed -n 's/^@gc: //p' "$work/nolttng.out")
stats=$(sed -n 's/^@stats: //p' "$work/nolttng.out")
[ "${gc:-0}" -gt 0 ] || palev_fail "PALEV_LTTNG=0: no GCStart hit"
[ "${stats:-0}" = "$gc" ] || palev_fail "PALEV_LTTNG=0: ${stats:-0} GCHeapStats hits for $gc GCStart"
echo "PALEV_LTTNG=0: $gc GCStart hits, as many GCHeapStats (ProviderEnabled sees the tool), workload finished"
