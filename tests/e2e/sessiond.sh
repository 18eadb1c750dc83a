#!/bin/bash
# SPDX-License-Identifier: MIT
# ctest fixture: "start STATE" starts an lttng-sessiond if none runs and notes it in STATE;
# "stop STATE" stops only a daemon that "start" started.
set -u
action=$1 state=$2
. "$(dirname "$0")/sessiond_lib.sh"
case $action in
start)
    rm -f "$state"
    palev_sessiond_ensure || { echo "FAIL: cannot start lttng-sessiond"; exit 1; }
    if [ -z "$PALEV_SESSIOND" ]; then
        echo "an lttng-sessiond already runs: using it"
        exit 0
    fi
    echo "$PALEV_SESSIOND" > "$state"
    echo "started lttng-sessiond ${PALEV_SESSIOND%% *}"
    ;;
stop)
    [ -s "$state" ] || { echo "no lttng-sessiond of ours to stop"; exit 0; }
    ours=$(cat "$state")
    rm -f "$state"
    # Only the very process "start" started: a test may have killed it and started another.
    palev_sessiond_stop "$ours"
    case $? in
    2) echo "the lttng-sessiond ${ours%% *} we started is gone: nothing to stop" ;;
    *) echo "stopped lttng-sessiond ${ours%% *}" ;;
    esac
    ;;
esac
