#!/bin/bash
# SPDX-License-Identifier: MIT
# Dynamic events end to end: dyn_host defines and writes events in real LTTng sessions and
# dyn_check.py (bt2) checks the exact values: every field type, --filter on integer, UTF-8 and
# UTF-16 fields, --loglevel, a wildcard enabled before the define, 1 thread defining while 7
# write, palev_event_define_many() (a wildcard enabled before, a bad definition failing alone),
# 1000 providers x 10 events (one by one, and one palev_event_define_many() per provider),
# sessions destroyed and started while 4 threads write, exit() while they write, and every
# definition limit with its errno (the trace still readable after the refused definitions).
# With MINIVM: its MiniVM_Counters:Tick events equal their RuntimeCounters JSON twins.
# usage: dynamic.sh DYN_HOST WORKDIR [MINIVM]
set -u
host=$1 work=$2 minivm=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
palev_workdir "$work"
unset PALEV_LTTNG PALEV_DEBUG PALEV_PROVIDER_PATH
tag=dyn-$$

# run NAME ARGS... : the host in the background, failing unless it exits 0; sets $pid.
run() {
    palev_run_host "$host" "$@"
}

check() {
    /usr/bin/python3 "$here/dyn_check.py" "$@" || palev_fail "dyn_check.py $*"
}

# session NAME EVENT [lttng enable-event options...] : a started session recording one rule
# into $work/NAME (tests/e2e/lib.sh).
session() {
    palev_session_rule "$tag-$1" "$work/$1" "$2" "${@:3}"
}

# ---- errors: every limit refused with its errno, in a session recording Dyn_Err*: names that
# meet as readers see them (an array's hidden length field among them) are refused, and the
# trace still reads with the valid events ----------------------------------------------------
session errors 'Dyn_Err*'
run errors errors
palev_session_stop "$tag-errors"
check errors "$work/errors" "$pid"

# ---- every field type --------------------------------------------------------------------
session types 'Dyn_Types:*'
run types types
palev_session_stop "$tag-types"
check types "$work/types" "$pid"

# ---- --filter on an integer, a UTF-8 string, a UTF-16 string, and both --------------------
session f_status Dyn_Http:Request --filter 'status >= 500'
session f_path Dyn_Http:Request --filter 'path == "/api/*"'
session f_wpath Dyn_Http:Request --filter 'wpath == "/health"'
session f_both Dyn_Http:Request --filter 'status >= 300 && path == "/index"'
run filter filter
for f in status path wpath both; do
    palev_session_stop "$tag-f_$f"
    check filter "$work/f_$f" "$pid" "$f"
done

# ---- --loglevel and --loglevel-only ---------------------------------------------------------
session l_warn 'Dyn_Level:*' --loglevel=TRACE_WARNING
session l_debug 'Dyn_Level:*' --loglevel-only=TRACE_DEBUG
run loglevel loglevel
palev_session_stop "$tag-l_warn"
palev_session_stop "$tag-l_debug"
check loglevel "$work/l_warn" "$pid" 4
check loglevel "$work/l_debug" "$pid" only14

# ---- a wildcard enabled before the event exists: recorded at once -----------------------
session late 'Dyn_La*'
run late late
palev_session_stop "$tag-late"
check late "$work/late" "$pid"

# ---- one thread defines while 7 others look up and write -------------------------------
session threads 'Dyn_Threads:*'
run threads threads
palev_session_stop "$tag-threads"
check threads "$work/threads" "$pid"

# ---- palev_event_define_many(): a wildcard enabled before; a bad definition fails alone -------
session batch 'Dyn_Batch*'
lttng enable-event -u -s "$tag-batch" -c ch Paleventing:Batch >/dev/null ||
    palev_fail "lttng enable-event Paleventing:Batch"
run batch batch
palev_session_stop "$tag-batch"
check batch "$work/batch" "$pid"

# ---- 1000 providers x 10 events, one by one and one call per provider (timings: the log) -----
session many 'Dyn_Many*'
run many many
palev_session_stop "$tag-many"
check many "$work/many" "$pid" Dyn_Many
cat many.out
session manyb 'Dyn_ManyB*'
run manybatch manybatch
palev_session_stop "$tag-manyb"
check many "$work/manyb" "$pid" Dyn_ManyB
cat manybatch.out

# ---- sessions destroyed and started while 4 threads write ------------------------------
"$host" churn "$work/stop" > churn.out 2> churn.err &
churn=$!
for i in 1 2 3 4 5 6; do
    session "churn$i" 'Dyn_Spin:*'
    sleep 0.5
    palev_session_stop "$tag-churn$i"
done
touch "$work/stop"
wait $churn || { cat churn.err >&2; palev_fail "churn: dyn_host exited $?"; }
[ "$(cat churn.out)" = done ] || palev_fail "churn: dyn_host printed $(cat churn.out)"
# A session may end before the host's registration with it completes (the host learns of
# new sessions asynchronously): every trace written must hold whole events, and most must exist.
traces=0
for i in 1 2 3 4 5 6; do
    [ -d "$work/churn$i/ust" ] || continue
    check spin "$work/churn$i" "$churn" 0
    traces=$((traces + 1))
done
[ $traces -ge 3 ] || palev_fail "churn: only $traces of 6 sessions recorded"
echo "churn: 6 sessions destroyed and started while 4 threads wrote; $traces traces whole"

# ---- exit() while 4 threads write: exit status 0, the trace whole ----------------------
session exit 'Dyn_Spin:*'
for i in 1 2 3 4 5; do
    run "exit$i" exit
    exit_pid=$pid
done
palev_session_stop "$tag-exit"
check spin "$work/exit" "$exit_pid" 1
echo "exit: 5 processes exited while 4 threads wrote: status 0, traces whole"

# ---- minivm: typed counters and their EventSource JSON twins, from the same snapshots ------
if [ -n "$minivm" ]; then
    session minivm 'MiniVM_*'
    lttng enable-event -u -s "$tag-minivm" -c ch Paleventing:EventSource >/dev/null ||
        palev_fail "lttng enable-event Paleventing:EventSource"
    "$minivm" > minivm.out 2> minivm.err &
    pid=$!
    wait $pid || { cat minivm.err >&2; palev_fail "minivm exited $?"; }
    palev_session_stop "$tag-minivm"
    check minivm "$work/minivm" "$pid"
fi
echo "PASS: dynamic events"
