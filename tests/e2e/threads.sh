#!/bin/bash
# SPDX-License-Identifier: MIT
# Sessions coming and going around a busy host: while two threads fire events, a session is
# created, started, stopped and destroyed five times. The host must exit 0, babeltrace2 must read
# every trace without an error or a warning (none discarded), and every recorded event must have
# exactly the field values its thread gave it.
# usage: threads.sh THREADS_HOST WORKDIR
set -u
host=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
palev_require_sessiond
rm -rf "$work" && mkdir -p "$work" && mkfifo "$work/ctl" || palev_fail "cannot create $work"
"$host" < "$work/ctl" > "$work/host.out" 2> "$work/host.err" &
pid=$!
exec 3> "$work/ctl"
cycles=5
for c in $(seq $cycles); do
    palev_session_start "palev-thr-$c-$$" "$work/trace-$c" "Palev_Host:IntsAlways,Palev_Host:Wide15"
    sleep 0.3
    palev_session_stop "palev-thr-$c-$$"
done
exec 3>&-
wait $pid
rc=$?
[ $rc = 0 ] || palev_fail "the host exited $rc: $(cat "$work/host.err")"
[ -s "$work/host.err" ] && palev_fail "the host wrote on stderr: $(cat "$work/host.err")"
grep -c 'fired [1-9]' "$work/host.out" | grep -qx 2 || palev_fail "a thread fired nothing: $(cat "$work/host.out")"
status=0
for c in $(seq $cycles); do
    babeltrace2 "$work/trace-$c" > "$work/trace-$c.txt" 2> "$work/trace-$c.err" ||
        palev_fail "session $c: babeltrace2 exited $?: $(head -5 "$work/trace-$c.err")"
    [ -s "$work/trace-$c.err" ] &&
        palev_fail "session $c: babeltrace2 complained: $(head -5 "$work/trace-$c.err")"
    result=$(grep -F "{ vpid = $pid }" "$work/trace-$c.txt" |
        sed -E 's/^\[[^]]*\] \([^)]*\) [^ ]+ //; s/: \{ cpu_id = [0-9]+ \}, \{ vpid = [0-9]+ \}, /: /' |
        /usr/bin/python3 "$here/threads_check.py") || status=1
    echo "session $c: $result"
done
[ $status = 0 ] && echo "host exited 0 ($(tr '\n' ' ' < "$work/host.out"))"
exit $status
