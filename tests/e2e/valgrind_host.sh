#!/bin/bash
# SPDX-License-Identifier: MIT
# What an adopter runs: the host under valgrind memcheck with the default leak kinds (definite and
# possible) and only the installed suppression file (pal/valgrind.supp), recording into a real
# session and with no session: no error, and the events recorded.
# usage: valgrind_host.sh VALGRIND FIRE_HOST SUPPRESSIONS WORKDIR
set -u
valgrind=$1 host=$2 supp=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
palev_require_sessiond
rm -rf "$work" && mkdir -p "$work" || palev_fail "cannot create $work"
unset PALEV_PROVIDER_PATH PALEV_LTTNG PALEV_DEBUG
vg=("$valgrind" --error-exitcode=99 --leak-check=full --keep-debuginfo=yes --quiet
    --suppressions="$supp")
"${vg[@]}" "$host" > "$work/alone.out" 2> "$work/alone.err" ||
    palev_fail "no session: valgrind exited $?: $(head -30 "$work/alone.err")"
session="palev-vg-$$"
palev_session_start "$session" "$work/trace" "Palev_Host:*"
"${vg[@]}" "$host" > "$work/traced.out" 2> "$work/traced.err" &
pid=$!
wait $pid || palev_fail "in a session: valgrind exited $?: $(head -30 "$work/traced.err")"
palev_session_stop "$session"
n=$(palev_read "$work/trace" "$pid" | grep -c '^Palev_Host:')
[ "$n" = 3 ] || palev_fail "in a session: $n events recorded, want 3"
echo "under valgrind with $(basename "$supp"): no error with and without a session; 3 events recorded"
