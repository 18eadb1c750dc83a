#!/bin/bash
# SPDX-License-Identifier: MIT
# samples/collect.sh as a user runs it, on minivm:
#   gc      --keywords GC records GC events (and the keyword-less runtime ones), no JIT events
#   filter  --eventsource-filter reaches the program: only that EventSource is recorded
#   live    --live streams through an lttng-relayd on loopback; the relayd it started is gone after
#   errors  unknown keywords, missing tools and bad usage exit 2 with a message
# usage: sample_collect.sh MODE COLLECT_SH PALEV_GEN MINIVM WORKDIR
set -u
mode=$1 collect=$2 gen=$3 minivm=$4 work=$5
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work" || palev_fail "cannot create $work"
cd "$work" || exit 1
export PALEV_GEN=$gen
unset PALEV_LTTNG PALEV_EVENTSOURCE_FILTER PALEV_EVENTNAME_FILTER

# The pid collect.sh reports for the command, and the events of that pid, by name.
command_pid() {
    sed -n 's/^collect: .* runs as pid \([0-9]*\)$/\1/p' "$1"
}
event_names() {
    babeltrace2 "$1" | grep -F "vpid = $2," | awk '{ sub(/:$/, "", $4); print $4 }' | sort | uniq -c
}

# expect_exit CODE PATTERN ARGS... : collect.sh ARGS exits CODE and says PATTERN on stderr.
expect_exit() {
    local code=$1 pattern=$2 rc
    shift 2
    "$@" > err.out 2>&1
    rc=$?
    [ $rc = "$code" ] || palev_fail "$* exited $rc, want $code: $(cat err.out)"
    grep -q -e "$pattern" err.out || palev_fail "$* did not say \"$pattern\": $(cat err.out)"
}

case $mode in
gc)
    palev_require_sessiond
    "$collect" --keywords GC -o "$work/trace" -- "$minivm" -t 800 > collect.out 2>&1 ||
        palev_fail "collect.sh exited $?: $(cat collect.out)"
    pid=$(command_pid collect.out)
    event_names "$work/trace" "$pid" > names.txt
    cat names.txt
    for e in GCStart GCEnd GCHeapStats GCGenerationTable GCAllocationTick RuntimeStart; do
        grep -q " Palev_Runtime:$e$" names.txt || palev_fail "no $e event recorded"
    done
    ! grep -E " Palev_Runtime:(Method|Exception|Thread|Module)" names.txt ||
        palev_fail "events outside the GC keyword were recorded"
    grep -q "trace in $work/trace" collect.out || palev_fail "collect.sh did not say where the trace is"
    ;;
filter)
    palev_require_sessiond
    "$collect" --keywords 0x10 --eventsource-filter minivm-counters -o "$work/trace" -- "$minivm" -t 600 \
        > collect.out 2>&1 || palev_fail "collect.sh exited $?: $(cat collect.out)"
    pid=$(command_pid collect.out)
    babeltrace2 "$work/trace" | grep -F "vpid = $pid," | grep -o 'EventSourceName = "[^"]*"' |
        sort | uniq -c > sources.txt
    cat sources.txt
    grep -q '"MiniVM-Counters"' sources.txt || palev_fail "no MiniVM-Counters event recorded"
    ! grep -q '"MiniVM-App"' sources.txt || palev_fail "MiniVM-App events passed the filter"
    ;;
live)
    palev_require_sessiond
    command -v lttng-relayd >/dev/null || palev_fail "lttng-relayd is not installed"
    timeout 60 "$collect" --live --keywords GC,Loader -o "$work/relay" -- "$minivm" -t 800 \
        > collect.out 2>&1 || palev_fail "collect.sh --live exited $?: $(tail -5 collect.out)"
    pid=$(command_pid collect.out)
    n=$(grep -c -F "vpid = $pid," collect.out)
    grep -F "vpid = $pid," collect.out | grep -q " Palev_Runtime:ModuleLoad: " ||
        palev_fail "the live viewer printed no ModuleLoad of minivm"
    [ "$(grep -F "vpid = $pid," collect.out | grep -c " Palev_Runtime:GCEnd: ")" -gt 0 ] ||
        palev_fail "the live viewer printed no GCEnd of minivm"
    relayd=$(sed -n 's/^collect: started lttng-relayd (pid \([0-9]*\)).*/\1/p' collect.out)
    if [ -n "$relayd" ]; then
        ! kill -0 "$relayd" 2>/dev/null || palev_fail "the relayd collect.sh started ($relayd) still runs"
        echo "relayd $relayd started and stopped by collect.sh"
    fi
    echo "$n events of minivm received live"
    ;;
errors)
    expect_exit 2 'unknown keyword "Bogus"' "$collect" --keywords GC,Bogus -- true
    expect_exit 2 'no COMMAND to run' "$collect" --keywords GC
    expect_exit 2 'unknown option' "$collect" --frobnicate -- true
    # No lttng on PATH: only bash itself is left.
    expect_exit 2 'missing tool: lttng' env PATH=/nonexistent /bin/bash "$collect" -- true
    PALEV_GEN=/nonexistent expect_exit 2 'missing tool: palev-gen' "$collect" -- true
    expect_exit 2 'cannot read the manifest' "$collect" -m /nonexistent.man -- true
    echo "usage errors, unknown keywords and missing tools exit 2"
    ;;
*)
    palev_fail "unknown mode $mode"
    ;;
esac
