#!/bin/bash
# SPDX-License-Identifier: MIT
# PALEV_LOAD=background in a real session: probe providers load on a thread of the library;
# after palev_provider_wait() the host's events are recorded exactly (load_check.py, bt2), and
# those of a dynamic event it defined before liblttng-ust was loaded; its registration says 0 and
# the debug log the loads. A fork at main(), while the providers load,
# waits for them: parent and child both record their events, each under its own vpid, and the
# child never hangs (load_host kills it after 5 s and fails).
# usage: load.sh LOAD_HOST WORKDIR
set -u
host=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
palev_workdir "$work"
unset PALEV_LTTNG PALEV_PROVIDER_PATH PALEV_FORK_HOOKS
tag=load-$$
export PALEV_LOAD=background

check() {
    /usr/bin/python3 "$here/load_check.py" "$@" || palev_fail "load_check.py $*"
}

palev_session_start "$tag-ready" "$work/ready" 'Palev_Load:*' 'Dyn_Load:*'
PALEV_DEBUG=1 palev_run_host "$host" ready ready
palev_session_stop "$tag-ready"
[ "$(cat ready.out)" = "wait 0 register 0 enabled 1" ] || palev_fail "ready: printed $(cat ready.out)"
grep -q 'loaded provider: name="Palev_Load"' ready.err || palev_fail "ready: no load in the log"
check "$work/ready" "$pid" 0 early

palev_session_start "$tag-fork" "$work/fork" 'Palev_Load:*'
palev_run_host "$host" fork fork
palev_session_stop "$tag-fork"
child=$(awk '$1 == "child" { print $2 }' fork.out)
[ "$(grep -c '^wait 0 register 0 enabled 1$' fork.out)" = 2 ] || palev_fail "fork: printed $(cat fork.out)"
check "$work/fork" "$pid" 0
check "$work/fork" "$child" 100
echo "PASS: background loading"
