#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/bench/trace.sh [BUILD_DIR]: palev-trace against babeltrace2 on the same large traces, in
# one run: summary and activities vs `babeltrace2 -c sink.utils.counter` (the decoder's floor)
# and vs `babeltrace2 TRACE > /dev/null`, export's events per second, and peak memory of
# activities at two trace sizes (it must not grow). The traces are recorded for real from the
# golden host (tests/trace) with buffers large enough that nothing is lost.
# Sizes: PALEV_TRACE_BENCH_SIZES (default "1000000 4000000"; "1000000 10000000" for the issue's
# 10 M case). Not a pass/fail test: it fails only when something cannot run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build-bench}
. "$here/lib.sh"
sizes=${PALEV_TRACE_BENCH_SIZES:-1000000 4000000}
session=palev-trace-bench-$$
work=$(bench_tmpdir palev-trace-bench) || exit 1
cleanup() {
    lttng destroy "$session" >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT

bench_build palev-trace palev_trace_golden_host
pt=$build/trace/palev-trace
host=$build/tests/trace/golden_host
man=$root/tests/trace/golden.man
pgrep -x lttng-sessiond >/dev/null || fail "no lttng-sessiond runs"

# record N: a trace of about N events (Work Start/Stop pairs and a Tick between) in $work/N
record() {
    local n=$1 pid
    mkfifo "$work/go.$n"
    "$host" --bench "$n" < "$work/go.$n" &
    pid=$!
    exec 3> "$work/go.$n"
    lttng create "$session" --output="$work/$n" >/dev/null &&
        lttng enable-channel -u -s "$session" --subbuf-size=8M --num-subbuf=8 ch >/dev/null &&
        lttng add-context -u -s "$session" -c ch -t vpid -t vtid >/dev/null &&
        lttng untrack -u -s "$session" --all --vpid >/dev/null &&
        lttng track -u -s "$session" --vpid="$pid" >/dev/null &&
        lttng enable-event -u -s "$session" -c ch 'Palev_TraceGolden:*' >/dev/null &&
        lttng start "$session" >/dev/null || fail "cannot set up session $session"
    exec 3>&-
    wait $pid
    lttng stop "$session" >/dev/null && lttng destroy "$session" >/dev/null || fail "lttng stop"
}

# CPU seconds (user + system: steadier than wall time on a shared machine) and peak RSS (KiB)
# of a command, its output thrown away: "SECONDS KIB"
measure() {
    /usr/bin/time -f "%U %S %M" -o "$work/time" "$@" > /dev/null 2> "$work/stderr"
    local rc=$?
    [ $rc = 0 ] || [ $rc = 1 ] || fail "$* exited $rc: $(head -3 "$work/stderr")"
    awk '{ printf "%.2f %s\n", $1 + $2, $3 }' "$work/time"
}

echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %-22s %9s %10s %12s %8s\n' events command "CPU s" "peak KiB" "events/s" ratio
declare -A rss floor_rss
for n in $sizes; do
    record "$n"
    t=$work/$n
    counts=$(babeltrace2 -c sink.utils.counter -p step=+0 "$t" 2>&1)
    events=$(echo "$counts" | sed -n 's/^ *\([0-9]*\) Event messages$/\1/p')
    lost=$(echo "$counts" | sed -n 's/^ *\([0-9]*\) Discarded event messages$/\1/p')
    [ "${lost:-0}" = 0 ] || echo "(warning: $lost discarded-event records in the $n trace)"
    read -r floor fk < <(measure babeltrace2 -c sink.utils.counter -p step=+0 "$t")
    read -r text tk < <(measure babeltrace2 "$t")
    row() { printf '%-10s %-22s %9s %10s %12.0f %8s\n' "$events" "$1" "$2" "$3" "$(awk -v n="$events" -v s="$2" 'BEGIN { print (s > 0 ? n / s : 0) }')" "$4"; }
    row "babeltrace2 counter" "$floor" "$fk" "1.00x"
    row "babeltrace2 text" "$text" "$tk" "$(awk -v a="$text" -v b="$floor" 'BEGIN { printf "%.2fx", a / b }')"
    for cmd in summary activities; do
        read -r s k < <(measure "$pt" $cmd -m "$man" "$t")
        row "palev-trace $cmd" "$s" "$k" "$(awk -v a="$s" -v b="$floor" -v c="$text" \
            'BEGIN { printf "%.2fx floor, %.1fx faster than text", a / b, c / a }')"
        [ $cmd = activities ] && rss[$n]=$k && floor_rss[$n]=$fk
    done
    read -r s k < <(measure "$pt" export -m "$man" -o "$work/export.json" "$t")
    row "palev-trace export" "$s" "$k" "$(awk -v a="$s" -v b="$floor" 'BEGIN { printf "%.2fx", a / b }')"
    rm -rf "$t" "$work/export.json"
done
set -- $sizes
# babeltrace2's decoder maps the stream files: its RSS grows with the trace whoever reads it.
# What palev-trace adds above the decoder's own peak is what must stay flat.
echo "peak RSS of activities: ${rss[$1]} KiB at $1 events, ${rss[$2]} KiB at $2 events;" \
    "above babeltrace2 -c sink.utils.counter on the same trace: $((rss[$1] - floor_rss[$1])) KiB and" \
    "$((rss[$2] - floor_rss[$2])) KiB"
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
