#!/bin/bash
# SPDX-License-Identifier: MIT
# ctest fixture: "start STATE" starts an lttng-sessiond if none runs and notes it in STATE;
# "stop STATE" stops only a daemon that "start" started.
set -u
action=$1 state=$2
case $action in
start)
    rm -f "$state"
    if pgrep -x lttng-sessiond >/dev/null; then
        echo "an lttng-sessiond already runs: using it"
        exit 0
    fi
    lttng-sessiond --daemonize --no-kernel || { echo "FAIL: cannot start lttng-sessiond"; exit 1; }
    # the pid and its start time: a pid alone may name another process by the time we stop
    pid=$(pgrep -x -n lttng-sessiond)
    echo "$pid $(cut -d' ' -f22 "/proc/$pid/stat" 2>/dev/null)" > "$state"
    echo "started lttng-sessiond $pid"
    ;;
stop)
    [ -s "$state" ] || { echo "no lttng-sessiond of ours to stop"; exit 0; }
    read -r pid start < "$state"
    # Only the very process "start" started: a test may have killed it and started another.
    if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != lttng-sessiond ] ||
        { [ -n "${start:-}" ] && [ "$(cut -d' ' -f22 "/proc/$pid/stat")" != "$start" ]; }; then
        rm -f "$state"
        echo "the lttng-sessiond $pid we started is gone: nothing to stop"
        exit 0
    fi
    kill "$pid" 2>/dev/null
    for _ in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    rm -f "$state"
    echo "stopped lttng-sessiond $pid"
    ;;
esac
