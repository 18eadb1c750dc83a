#!/bin/bash
# SPDX-License-Identifier: MIT
# fork() without exec while other threads define and undefine dynamic events, in a real session
# recording Dyn_Fork*: every child defines and writes an event at once, never hangs (fork_host
# kills a child that has not exited after 5 s and fails), and fork_check.py (bt2) finds each
# child's event under its own vpid. Twice: with the library calling liblttng-ust's fork hooks
# (the default), and with liblttng-ust-fork.so preloaded (which calls them from its own fork()).
# Then 100 forks while other threads use every lock of the library at once (fork_host all: code
# loaded, described, patched and unloaded with the jitdump on, walkers added and removed, the
# busy threads' events written with their stacks): each child also loads code, its CodeLoad read
# back.
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

# Every lock at once. Stack is on (walks happen) with a filter nothing passes; the code events
# are filtered to this host's names, so other processes of this user never fill the buffers.
all() {
    local name=all session=$tag-all rc
    palev_session_create "$session" "$work/$name"
    lttng enable-event -u -s "$session" -c ch 'Dyn_Fork*' >/dev/null &&
        lttng enable-event -u -s "$session" -c ch Paleventing:CodeLoad \
            --filter 'name == "Fork.Child.*"' >/dev/null &&
        lttng enable-event -u -s "$session" -c ch Paleventing:Stack \
            --filter 'provider == "none"' >/dev/null || palev_fail "lttng enable-event"
    lttng start "$session" >/dev/null || palev_fail "lttng start"
    PALEV_PERFMAP=2 PALEV_PERFMAP_DIR="$work" "$host" all 100 > "$name.out" 2> "$name.err" &
    pid=$!
    wait $pid
    rc=$?
    [ $rc = 0 ] || { cat "$name.err" >&2; palev_fail "$name: fork_host all 100 exited $rc"; }
    palev_session_stop "$session"
    /usr/bin/python3 "$here/fork_check.py" "$work/$name" "$pid" "$name.out" all ||
        palev_fail "$name: fork_check.py"
    tail -n 2 "$name.err"
    [ -s "$work/jit-$pid.dump" ] || palev_fail "$name: no jitdump $work/jit-$pid.dump"
    ls -l "$work/jit-$pid.dump" | awk '{ print "jitdump: " $5 " bytes" }'
    rm -f "$work/jit-$pid.dump"
}
all
echo "PASS: fork"
