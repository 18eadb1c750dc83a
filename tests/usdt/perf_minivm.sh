#!/bin/bash
# SPDX-License-Identifier: MIT
# perf on minivm's USDT probes: perf probe -x minivm sdt_Palev_Runtime:GCStart (and MethodLoad),
# perf record -g of a run with every method JIT-compiled and a perf map, an LTTng session on the
# same run. perf_check.py: as many samples as LTTng events with equal integer arguments (all 12
# of MethodLoad), and GCStart user stacks through JIT frames perf names from the perf map.
# Exits 77 (skipped) where perf cannot add uprobes or record here.
# usage: perf_minivm.sh PALEV_GEN MANIFEST MINIVM WORKDIR
set -u
gen=$1 manifest=$2 minivm=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
skip() { echo "SKIP: $*"; exit 77; }
EVENTS="GCStart MethodLoad"
added=""
pid=""
cleanup() {
    for ev in $added; do perf probe -q -d "sdt_Palev_Runtime:$ev" 2>/dev/null; done
    [ -n "$pid" ] && rm -f "/tmp/perf-$pid.map"
    palev_cleanup_sessions
}
trap cleanup EXIT

[ "$(uname -m)" = x86_64 ] || skip "minivm's JIT emits x86-64 code only; this machine is $(uname -m)"
command -v perf >/dev/null || skip "perf is not installed (Debian package linux-perf)"
palev_require_sessiond
rm -rf "$work" && mkdir -p "$work" && work=$(cd "$work" && pwd) || palev_fail "cannot create $work"
unset PALEV_LTTNG PALEV_EVENTSOURCE_FILTER PALEV_EVENTNAME_FILTER
export PERF_BUILDID_DIR=$work/buildid
minivm=$(realpath "$minivm")
for ev in $EVENTS; do
    # perf names SDT events sdt_<provider>:<probe>, one per machine: one left by an earlier run
    # on this binary is removed, one on another binary is someone else's.
    if perf probe -l "sdt_Palev_Runtime:$ev" 2>/dev/null | grep -q .; then
        perf probe -l "sdt_Palev_Runtime:$ev" 2>/dev/null | grep -qF " in $minivm " ||
            skip "sdt_Palev_Runtime:$ev is in use on another binary: $(perf probe -l "sdt_Palev_Runtime:$ev" 2>&1)"
        perf probe -q -d "sdt_Palev_Runtime:$ev"
    fi
    perf probe -x "$minivm" "sdt_Palev_Runtime:$ev" >"$work/probe-$ev.log" 2>&1 ||
        skip "perf probe cannot add uprobes here: $(grep -m2 -iv '^$' "$work/probe-$ev.log")"
    added="$added $ev"
done

"$gen" usdt-args "$manifest" > "$work/usdt-args.txt" || palev_fail "palev-gen usdt-args exited $?"
palev_session_start "palev-usdt-perf-$$" "$work/trace" 'Palev_Runtime:GCStart,Palev_Runtime:MethodLoad'
events=()
for ev in $EVENTS; do events+=(-e "sdt_Palev_Runtime:$ev"); done
PALEV_PERFMAP=1 perf record -q "${events[@]}" -g -o "$work/perf.data" -- \
    sh -c 'echo $$ > "$1"; shift; exec "$@"' sh "$work/pid" "$minivm" --jit=all -t 1500 \
    >"$work/minivm.out" 2>"$work/perf.err"
rc=$?
pid=$(cat "$work/pid" 2>/dev/null)
[ $rc = 0 ] || skip "perf record is not permitted here (exit $rc): $(head -3 "$work/perf.err")"
palev_session_stop "palev-usdt-perf-$$"
grep -q "^workload: [0-9]* rounds, checksum 8040$" "$work/minivm.out" ||
    palev_fail "minivm's workload did not finish: $(tail -3 "$work/minivm.out")"
perf script -i "$work/perf.data" -F comm,pid,event,trace,ip,sym > "$work/perf.txt" 2>"$work/script.err" ||
    palev_fail "perf script failed: $(head -3 "$work/script.err")"
/usr/bin/python3 "$here/perf_check.py" "$work/usdt-args.txt" "$work/perf.txt" "$work/trace" 90 $EVENTS
