# SPDX-License-Identifier: MIT
# Shared helpers of the fault tests. Each test runs its own lttng-sessiond, as a per-user daemon
# under a private LTTNG_HOME (as root: as user nobody, through setpriv), so that it may kill or
# starve it without touching the session daemon other tests and other users share. The host runs
# as the same user with the same LTTNG_HOME, so it registers with that daemon.
# Sourced by fault.sh; every daemon started here is stopped on exit.

fault_fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# fault_init WORKDIR [HOST]: a fresh work directory the test user may write, and its LTTNG_HOME;
# checks that the test user may run HOST. Fault tests of every build tree on this machine run one
# at a time: per-user daemons of one user share the futex liblttng-ust waits on for a daemon
# (/dev/shm/lttng-ust-wait-8-<uid>), and one daemon's orderly exit would leave another test's
# host waiting for a daemon that already started.
fault_init() {
    exec 9> "${FAULT_LOCK:-/tmp/paleventing-fault-tests.lock}"
    flock -w 400 9 || fault_fail "another fault test held the lock for 400 s"
    FAULT_WORK=$1
    FAULT_HOME=$FAULT_WORK/home
    rm -rf "$FAULT_WORK" && mkdir -p "$FAULT_HOME" || fault_fail "cannot create $FAULT_WORK"
    FAULT_RUNAS=(env HOME="$FAULT_HOME" LTTNG_HOME="$FAULT_HOME")
    if [ "$(id -u)" = 0 ]; then
        chown -R nobody:nogroup "$FAULT_WORK" || fault_fail "cannot chown $FAULT_WORK"
        FAULT_RUNAS=(setpriv --reuid=nobody --regid=nogroup --clear-groups "${FAULT_RUNAS[@]}")
    fi
    # nobody must reach the host: a build tree under a private home (/root) cannot be tested so
    [ -z "${2:-}" ] || fault_as test -x "$2" ||
        fault_fail "user nobody cannot run $2: build in a directory every user may enter"
    command -v lttng-sessiond >/dev/null || fault_fail "lttng-sessiond is not installed"
    command -v babeltrace2 >/dev/null || fault_fail "babeltrace2 is not installed"
    trap fault_cleanup EXIT
}

# Run a command as the test user, with the private LTTNG_HOME.
fault_as() {
    "${FAULT_RUNAS[@]}" "$@"
}

fault_lttng() {
    fault_as lttng "$@" >> "$FAULT_WORK/lttng.log" 2>&1 || {
        echo "lttng $* failed:" >&2
        tail -5 "$FAULT_WORK/lttng.log" >&2
        return 1
    }
}

# palev_alive, palev_wait_gone
. "$(dirname "${BASH_SOURCE[0]}")/../e2e/sessiond_lib.sh"

FAULT_SESSIOND_PID=""
# Start the private session daemon; its pid is in $FAULT_SESSIOND_PID.
fault_sessiond_start() {
    local pidfile=$FAULT_HOME/.lttng/lttng-sessiond.pid
    rm -f "$pidfile"
    # right after a kill, the old daemon may still look alive for a moment
    for try in $(seq 20); do
        fault_as lttng-sessiond --daemonize >> "$FAULT_WORK/sessiond.log" 2>&1 && break
        tail -1 "$FAULT_WORK/sessiond.log" | grep -q "already running" && [ "$try" -lt 20 ] ||
            fault_fail "cannot start a private lttng-sessiond: $(tail -3 "$FAULT_WORK/sessiond.log")"
        sleep 0.5
    done
    for _ in $(seq 50); do
        [ -s "$pidfile" ] && break
        sleep 0.1
    done
    FAULT_SESSIOND_PID=$(cat "$pidfile" 2>/dev/null)
    [ -n "$FAULT_SESSIOND_PID" ] || fault_fail "the private lttng-sessiond wrote no pid file"
}

# Stop our daemon (it is ours: the pid came from our private LTTNG_HOME and still names an
# lttng-sessiond of the test user) and wait for it and its consumer daemons to be gone.
fault_sessiond_stop() {
    local sig=${1:-TERM} pid=$FAULT_SESSIOND_PID
    [ -n "$pid" ] || return 0
    FAULT_SESSIOND_PID=""
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = lttng-sessiond ] || return 0
    kill -"$sig" "$pid"
    palev_wait_gone "$pid" 100 || kill -KILL "$pid"
    # its consumer daemons, found by their private sockets: never anyone else's
    for c in $(pgrep -x lttng-consumerd); do
        tr '\0' ' ' < "/proc/$c/cmdline" 2>/dev/null | grep -qF "$FAULT_HOME/" && kill -KILL "$c"
    done
    return 0
}

fault_cleanup() {
    # a host left running by a failed check (timeout passes the signal on to it)
    [ -n "${FAULT_HOST_PID:-}" ] && palev_alive "$FAULT_HOST_PID" && kill "$FAULT_HOST_PID"
    fault_sessiond_stop TERM
}

# fault_session NAME OUTDIR [enable-channel options...]: a started session recording every
# Palev_Faults event (or the comma list FAULT_EVENTS) in a channel "ch" with the options given (default: 4 x 4 MiB, nothing lost
# at the rates the host fires), with the vpid context. The metadata channel gets a switch timer
# (FAULT_METADATA_TIMER us, default 200 ms): without one the trace description reaches the disk
# only when the session stops, and a killed daemon then leaves data nobody can decode.
fault_session() {
    local name=$1 out=$2
    shift 2
    [ $# -gt 0 ] || set -- --subbuf-size=4M --num-subbuf=4
    fault_lttng create "$name" --output="$out" &&
        fault_lttng enable-channel -u -s "$name" --switch-timer="${FAULT_METADATA_TIMER:-200000}" metadata &&
        fault_lttng enable-channel -u -s "$name" "$@" ch &&
        fault_lttng add-context -u -s "$name" -c ch -t vpid &&
        fault_lttng enable-event -u -s "$name" -c ch "${FAULT_EVENTS:-Palev_Faults:*}" &&
        fault_lttng start "$name" || fault_fail "cannot set up session $name"
}

# fault_host_start LOG ARGS...: the host in the background as the test user, under timeout;
# its pid in $FAULT_HOST_PID (the timeout process: `wait` gives the host's exit status, 124 when
# it had to be killed).
fault_host_start() {
    local log=$1
    shift
    fault_as timeout -k 5 "${FAULT_HOST_TIMEOUT:-60}" "$@" > "$log" 2> "$log.err" &
    FAULT_HOST_PID=$!
}

# fault_host_wait LOG: waits for the host; fails unless it exited 0 and wrote nothing on stderr.
fault_host_wait() {
    local log=$1 rc
    wait "$FAULT_HOST_PID"
    rc=$?
    [ $rc = 124 ] && fault_fail "the host did not finish within ${FAULT_HOST_TIMEOUT:-60} s"
    [ $rc = 0 ] || fault_fail "the host exited $rc: $(head -5 "$log.err")"
    [ -s "$log.err" ] && fault_fail "the host wrote on stderr: $(head -5 "$log.err")"
    return 0
}

# fault_check TRACEDIR ARGS...: check_trace.py's verdict (see there), echoed.
fault_check() {
    /usr/bin/python3 "$FAULT_DIR/check_trace.py" "$@" || fault_fail "trace $1: see above"
}
