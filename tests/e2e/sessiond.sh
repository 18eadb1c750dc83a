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
    pgrep -x -n lttng-sessiond > "$state"
    echo "started lttng-sessiond $(cat "$state")"
    ;;
stop)
    [ -s "$state" ] || { echo "no lttng-sessiond of ours to stop"; exit 0; }
    pid=$(cat "$state")
    kill "$pid" 2>/dev/null
    for _ in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    rm -f "$state"
    echo "stopped lttng-sessiond $pid"
    ;;
esac
