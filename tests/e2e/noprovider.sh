#!/bin/bash
# SPDX-License-Identifier: MIT
# Tracing off must never break the host: with a session enabling all its events, a host whose
# probe provider .so is missing, and the same host with PALEV_LTTNG=0, exit 0, print nothing and
# record nothing; the host with its provider (the control) records its events exactly.
# usage: noprovider.sh FIRE_HOST WORKDIR
set -u
host=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
palev_require_sessiond
[ -f "$(dirname "$host")/libPalev_Host-lttng.so" ] || palev_fail "no probe provider beside $host"
rm -rf "$work" && mkdir -p "$work/alone" || palev_fail "cannot create $work"
# The same executable in a directory without its probe provider.
cp "$host" "$work/alone/" || palev_fail "cannot copy $host"
unset PALEV_PROVIDER_PATH PALEV_LTTNG PALEV_DEBUG LD_LIBRARY_PATH
session="palev-noprov-$$"
palev_session_start "$session" "$work/trace" "Palev_Host:*" "Palev_Host2:*"

declare -A pids
run() {  # run NAME ENV... EXECUTABLE: must exit 0 with nothing on stderr
    local name=$1
    shift
    env "$@" > "$work/$name.out" 2> "$work/$name.err" &
    pids[$name]=$!
    wait $! || palev_fail "$name: the host exited $?: $(cat "$work/$name.err")"
    [ -s "$work/$name.err" ] && palev_fail "$name: the host wrote on stderr: $(cat "$work/$name.err")"
}
run control "$host"
run missing "$work/alone/$(basename "$host")"
run lttng0 PALEV_LTTNG=0 "$host"
# Asked to, the library says why it traces nothing.
PALEV_DEBUG=1 "$work/alone/$(basename "$host")" 2> "$work/debug.err" ||
    palev_fail "missing, PALEV_DEBUG=1: the host exited $?"
grep -q 'provider not loaded: name="Palev_Host"' "$work/debug.err" ||
    palev_fail "PALEV_DEBUG=1 did not say that Palev_Host was not loaded: $(cat "$work/debug.err")"
palev_session_stop "$session"

palev_read "$work/trace" "${pids[control]}" > "$work/control.got"
printf '%s\n' 'Palev_Host:CommonChatty: { Value = 1 }' 'Palev_Host:CommonChatty: { Value = 22 }' \
    'Palev_Host:ScalarStart: { Value = 333 }' > "$work/control.expected"
diff -u "$work/control.expected" "$work/control.got" ||
    palev_fail "the control host did not record its 3 events exactly"
for name in missing lttng0; do
    palev_read "$work/trace" "${pids[$name]}" > "$work/$name.got"
    [ -s "$work/$name.got" ] && palev_fail "$name: events were recorded: $(head -3 "$work/$name.got")"
done
echo "control: 3 events recorded; provider .so missing: exit 0, silent, nothing recorded;" \
     "PALEV_LTTNG=0: exit 0, silent, nothing recorded"
