#!/bin/bash
# SPDX-License-Identifier: MIT
# palev-trace top through a real lttng-relayd on 127.0.0.1 (ports 35352-35354, our own relayd,
# stopped at the end) while the golden host runs: bounded by --seconds, it exits 0, shows the
# host's events per second and its activities, and its last screen counts every event the
# session recorded (babeltrace2 reads the relayd's copy afterwards).
# usage: live.sh PALEV_TRACE GOLDEN_HOST WORKDIR
set -u
pt=$1 host=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
palev_require_sessiond
command -v lttng-relayd >/dev/null || palev_fail "lttng-relayd is not installed"
man=$here/golden.man
rm -rf "$work" && mkdir -p "$work/relayd" && work=$(cd "$work" && pwd) || palev_fail "cannot create $work"
relayd_pid="" top_pid=""
stop_all() {
    [ -n "$top_pid" ] && kill "$top_pid" 2>/dev/null
    palev_cleanup_sessions
    [ -n "$relayd_pid" ] && kill "$relayd_pid" 2>/dev/null && wait "$relayd_pid" 2>/dev/null
}
trap stop_all EXIT
palev_relayd_start 35352 "$work/relayd"

# The host starts once top is attached: streams a viewer attaches to before they hold data stay
# "inactive" for it (lttng 2.13), so the session tracks our user rather than a pid that exists.
s=palev-trace-live-$$
lttng create "$s" --live=200000 --set-url=net://127.0.0.1:35352:35353 >/dev/null || palev_fail "lttng create"
PALEV_SESSIONS="$PALEV_SESSIONS $s"
lttng enable-channel -u -s "$s" --subbuf-size=1M --num-subbuf=4 ch >/dev/null &&
    lttng add-context -u -s "$s" -c ch -t vpid -t vtid -t procname >/dev/null &&
    lttng track -u -s "$s" --vuid="$(id -u)" >/dev/null &&
    lttng enable-event -u -s "$s" -c ch 'Palev_TraceGolden:*' >/dev/null &&
    lttng start "$s" >/dev/null || palev_fail "cannot set up session $s"
timeout 60 "$pt" top --seconds 7 -m "$man" "net://127.0.0.1:35354/host/$(uname -n)/$s" \
    > "$work/top.out" 2> "$work/top.err" &
top_pid=$!
sleep 1.5
echo | "$host" 6000 > /dev/null 2>&1 || palev_fail "the host exited $?"
wait $top_pid
rc=$?
top_pid=""
palev_session_stop "$s"
[ $rc = 0 ] || palev_fail "top exited $rc: $(cat "$work/top.err")"
status=0
screens=$(grep -c '^palev-trace top ' "$work/top.out")
[ "$screens" -ge 5 ] || { echo "FAIL: $screens screens in 7 seconds"; status=1; }
grep -qE '^Palev_TraceGolden:WorkStart +[1-9][0-9]* ' "$work/top.out" ||
    { echo "FAIL: no second with WorkStart events: $(head -20 "$work/top.out")"; status=1; }
grep -qE '^Palev_TraceGolden:Work +[1-9][0-9]* ' "$work/top.out" ||
    { echo "FAIL: no second with Work activities"; status=1; }
grep -qE '^Palev_TraceGolden:Tick/alloc_bytes +10000$' "$work/top.out" ||
    { echo "FAIL: the latest alloc_bytes is not 10000"; status=1; }
recorded=$(babeltrace2 -c sink.utils.counter -p step=+0 "$work/relayd" 2>&1 | sed -n 's/^ *\([0-9]*\) Event messages$/\1/p')
seen=$(grep '^palev-trace top ' "$work/top.out" | tail -1 | sed -E 's/.* ([0-9]+) events$/\1/')
[ -n "$recorded" ] && [ "$seen" = "$recorded" ] ||
    { echo "FAIL: top saw $seen events, the session recorded $recorded"; status=1; }
[ $status = 0 ] && echo "top: $screens screens, $seen events live = $recorded recorded"
exit $status
