#!/bin/bash
# SPDX-License-Identifier: MIT
# minivm traced for real: its built-in workload with every Palev_Runtime event and the
# EventSource tracepoint, then sample_minivm_check.py reads the trace (bt2) and checks that the
# values agree with each other (collections, code addresses, exceptions, threads, work items),
# and that the native code the MethodLoad events announce is where the perf map puts it.
# usage: sample_minivm.sh MINIVM WORKDIR [JIT_MODE]    (minivm's --jit, default hot)
set -u
minivm=$1 work=$2 jit=${3:-hot}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
palev_require_sessiond
palev_require_bt2
rm -rf "$work" && mkdir -p "$work" || palev_fail "cannot create $work"
unset PALEV_LTTNG PALEV_EVENTSOURCE_FILTER PALEV_EVENTNAME_FILTER

# The checker needs vtid (OS thread ids must match the events' threads), so the session is set
# up here rather than with palev_session_start.
session=palev-minivm-$$
lttng create "$session" --output="$work/trace" >/dev/null || palev_fail "lttng create"
lttng track -u -s "$session" --vuid="$(id -u)" >/dev/null || palev_fail "lttng track"
PALEV_SESSIONS="$PALEV_SESSIONS $session"
lttng enable-channel -u -s "$session" --subbuf-size=4M --num-subbuf=4 ch >/dev/null &&
    lttng add-context -u -s "$session" -c ch -t vpid -t vtid >/dev/null &&
    lttng enable-event -u -s "$session" -c ch 'Palev_Runtime:*' >/dev/null &&
    lttng enable-event -u -s "$session" -c ch Paleventing:EventSource >/dev/null &&
    lttng start "$session" >/dev/null || palev_fail "cannot set up session $session"
PALEV_PERFMAP=1 "$minivm" --jit="$jit" -t 2000 > "$work/minivm.out" &
pid=$!
map=/tmp/perf-$pid.map
trap 'rm -f "$map"; palev_cleanup_sessions' EXIT
wait $pid || palev_fail "minivm exited $?"
palev_session_stop "$session"
perfmap=()
if [ "$jit" = off ]; then
    [ ! -e "$map" ] || palev_fail "--jit=off wrote a perf map"
else
    mv "$map" "$work/perf.map" || palev_fail "no perf map $map"
    perfmap=(--perfmap "$work/perf.map")
fi
grep -q "^workload: [0-9]* rounds, checksum 8040$" "$work/minivm.out" ||
    palev_fail "unexpected workload output: $(cat "$work/minivm.out")"
if babeltrace2 "$work/trace" 2>&1 >/dev/null | grep -i discarded; then
    palev_fail "events were discarded: the checks need all of them"
fi
/usr/bin/python3 "$here/sample_minivm_check.py" "$work/trace" "$pid" --jit "$jit" "${perfmap[@]}"
