#!/bin/bash
# SPDX-License-Identifier: MIT
# fork() without exec while other threads define and undefine dynamic events, in a real session
# recording Dyn_Fork*: every child defines and writes an event at once, never hangs (fork_host
# kills a child that has not exited after 5 s and fails), and fork_check.py (bt2) finds each
# child's event under its own vpid. Twice: with the library calling liblttng-ust's fork hooks
# (the default), and with liblttng-ust-fork.so preloaded (which calls them from its own fork()).
# usage: fork.sh FORK_HOST WORKDIR
set -u
host=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
palev_require_sessiond
palev_require_bt2
rm -rf "$work" && mkdir -p "$work" || palev_fail "cannot create $work"
cd "$work" || exit 1
unset PALEV_LTTNG PALEV_DEBUG PALEV_PROVIDER_PATH PALEV_FORK_HOOKS
tag=fork-$$

# busy NAME FORKS [env...]: one session, the host forking FORKS times, its children checked.
busy() {
    local name=$1 forks=$2
    shift 2
    palev_session_start "$tag-$name" "$work/$name" 'Dyn_Fork*'
    palev_run_host env "$name" "$@" "$host" busy "$forks"
    palev_session_stop "$tag-$name"
    /usr/bin/python3 "$here/fork_check.py" "$work/$name" "$pid" "$name.out" ||
        palev_fail "$name: fork_check.py"
    tail -n 1 "$name.err"
}

busy busy 40
busy preload 10 LD_PRELOAD=liblttng-ust-fork.so.1
echo "PASS: fork"
