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
        # A daemon that no longer answers (lttng-sessiond 2.13 was seen hung in its
        # notification thread under heavy load) would make every end-to-end test time out:
        # say so once here, and the tests that need it are not run.
        timeout 20 lttng list >/dev/null 2>&1 || {
            echo "FAIL: the running lttng-sessiond ($(pgrep -x lttng-sessiond | tr '\n' ' '| sed 's/ $//')) does not answer \`lttng list\` within 20 s: restart it (kill it: the tests start a new one)"
            exit 1
        }
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
