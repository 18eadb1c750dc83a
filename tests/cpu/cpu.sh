#!/bin/bash
# SPDX-License-Identifier: MIT
# CPU samples and blocked time beside the LTTng trace, as a user gets them: palev-collect --cpu
# (real perf, real session daemon) on hosts whose time is known by construction, read back with
# palev-trace (docs/cpu.md).
# usage: cpu.sh CASE PALEV_TRACE PALEV_COLLECT PALEV_GEN CPU_HOST MINIVM WORKDIR
#   beside   every LTTng command reads a trace directory holding perf/ctf/ as it reads the LTTng
#            trace alone (babeltrace2's muxer refuses perf's clock beside LTTng's)
# Exits 77 (skipped) where perf is missing or may not record.
set -u
case=$1 palev_trace=$2 collect=$3 gen=$4 host=$5 minivm=$6 work=$7
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
palev_require_sessiond
rm -rf "$work" && mkdir -p "$work" || palev_fail "cannot create $work"
cd "$work" || exit 1
export PALEV_GEN=$gen
unset PALEV_LTTNG PALEV_DEBUG PALEV_STACK PALEV_PERFMAP
man=$here/cpu.man

skip() { echo "SKIP: $*"; exit 77; }
command -v perf > /dev/null || skip "perf is not installed (Debian package linux-perf)"
[ "$(uname -m)" = x86_64 ] || skip "cpu_host's JIT code is x86-64; this machine is $(uname -m)"

# record NAME OPTIONS... -- COMMAND...: palev-collect into NAME/; sets pid. Skips when perf did
# not record (not permitted here), fails on anything else.
record() {
    local name=$1
    shift
    local opts=()
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    "$collect" -m "$man" "${opts[@]}" -o "$work/$name" -- "$@" > "$name.out" 2> "$name.err" ||
        palev_fail "palev-collect ${opts[*]} exited $?: $(cat "$name.out" "$name.err")"
    if grep -q '^palev-collect: --cpu: perf may not record' "$name.err"; then
        skip "perf may not record here: $(cat "$name.err")"
    fi
    pid=$(sed -n 's/^palev-collect: .* runs as pid \([0-9]*\)$/\1/p' "$name.out")
    [ -n "$pid" ] || palev_fail "palev-collect did not say the program's pid: $(cat "$name.out")"
    [ -d "$work/$name/perf/ctf" ] || palev_fail "no CPU samples in $work/$name/perf/ctf: $(cat "$name.out" "$name.err")"
}

case $case in
beside)
    record beside --cpu -- "$host" shares 2 1
    # Each LTTng command on the whole directory says what it says on DIR/ust alone, and exits 0.
    for cmd in summary activities counters status "stacks --folded" top; do
        # shellcheck disable=SC2086
        "$palev_trace" $cmd "$work/beside" > whole.out 2> whole.err
        rc=$?
        # shellcheck disable=SC2086
        "$palev_trace" $cmd -m "$man" "$work/beside/ust" > ust.out 2> ust.err
        [ $rc = $? ] || palev_fail "palev-trace $cmd: exit $rc on the directory, not as on ust/: $(cat whole.err)"
        sed "s|$work/beside/ust: |$work/beside: |g" ust.out | diff -u - whole.out ||
            palev_fail "palev-trace $cmd: not the same on the directory as on ust/"
        sed "s|$work/beside/ust: |$work/beside: |g" ust.err | diff -u - whole.err ||
            palev_fail "palev-trace $cmd: not the same messages on the directory as on ust/"
    done
    "$palev_trace" summary "$work/beside" > summary.out 2> summary.err ||
        palev_fail "palev-trace summary exited $?: $(cat summary.err)"
    grep -q ' PhaseStart  ' summary.out || palev_fail "summary: no PhaseStart: $(cat summary.out)"
    "$palev_trace" report -o report.html "$work/beside" 2> report.err ||
        palev_fail "palev-trace report exited $?: $(cat report.err)"
    "$palev_trace" export -o chrome.json "$work/beside" 2> export.err ||
        palev_fail "palev-trace export exited $?: $(cat export.err)"
    echo "every command reads the LTTng trace beside perf/ctf/"
    ;;
*)
    palev_fail "unknown case $case"
    ;;
esac
exit 0
