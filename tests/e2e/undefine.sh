#!/bin/bash
# SPDX-License-Identifier: MIT
# palev_event_undefine_provider() end to end, in real sessions recording a matching wildcard,
# read back by undef_check.py (bt2): an event written, undefined, written through its stale
# handle (nothing recorded), defined again with other field types and written (both versions
# read with their exact values); undefined while 4 threads write through the handle (the host
# exits 0, only whole events, none written after the call returned); 200 define/write/undefine
# rounds (every event in order, LTTng holding 2 versions, not 200; the heap kept per round);
# the same rounds with LTTNG_UST_DEBUG=1, not one "Error:" from LTTng-UST; and with no session,
# 200 rounds of 3 providers defined in one call and undefined.
# usage: undefine.sh UNDEF_HOST WORKDIR
set -u
host=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
palev_workdir "$work"
unset PALEV_LTTNG PALEV_DEBUG PALEV_PROVIDER_PATH
tag=undef-$$

# run NAME ARGS... : the host in the background, failing unless it exits 0; sets $pid.
run() {
    palev_run_host "$host" "$@"
}

check() {
    /usr/bin/python3 "$here/undef_check.py" "$@" || palev_fail "undef_check.py $*"
}

# session NAME EVENT [lttng enable-event options...] : a started session recording one rule
# into $work/NAME (tests/e2e/lib.sh).
session() {
    palev_session_rule "$tag-$1" "$work/$1" "$2" "${@:3}"
}

# No session of ours (unless another is active, LTTng-UST only queues the probes: lazy
# registration): 600 undefines.
run idle idle
echo "idle: 200 rounds of 3 providers x 10 events defined in one call and undefined"

for what in versions threads loop; do
    session "$what" 'Dyn_Undef*'
    run "$what" "$what"
    palev_session_stop "$tag-$what"
    check "$what" "$work/$what" "$pid"
    cat "$what.out"
done
# The rounds again with LTTng-UST's debug output: not one "Error:" from it in 200 rounds.
session loopdbg 'Dyn_Undef*'
LTTNG_UST_DEBUG=1 run loopdbg loop
palev_session_stop "$tag-loopdbg"
check loop "$work/loopdbg" "$pid"
grep -q 'registered probe Dyn_UndefL' loopdbg.err || palev_fail "loopdbg: no LTTng-UST debug output"
if grep -F 'Error:' loopdbg.err >&2; then
    palev_fail "loopdbg: LTTng-UST reported errors"
fi
echo "loopdbg: 200 rounds, no LTTng-UST error"
echo "PASS: undefine"
