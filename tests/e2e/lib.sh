# SPDX-License-Identifier: MIT
# Shared helpers of the end-to-end tests: real lttng sessions, traces read with babeltrace2.
# Sourced by the test scripts; every session gets a unique name and is destroyed on exit.

palev_fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# A session daemon must run (tests/run.sh or the ctest fixture starts one).
palev_require_sessiond() {
    command -v lttng >/dev/null || palev_fail "lttng is not installed"
    command -v babeltrace2 >/dev/null || palev_fail "babeltrace2 is not installed"
    pgrep -x lttng-sessiond >/dev/null || palev_fail "no lttng-sessiond runs (tests/run.sh starts one)"
}

# The bt2 oracles run under the system python, which must have the bt2 module.
palev_require_bt2() {
    [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import bt2' ||
        palev_fail "/usr/bin/python3 with the bt2 module (python3-bt2) is needed"
}

# palev_workdir DIR : what a test recording with lttng and reading with bt2 needs (both above),
# then DIR made fresh (whatever it held removed) and entered.
palev_workdir() {
    palev_require_sessiond
    palev_require_bt2
    rm -rf "$1" && mkdir -p "$1" || palev_fail "cannot create $1"
    cd "$1" || palev_fail "cannot enter $1"
}

PALEV_SESSIONS=""
palev_cleanup_sessions() {
    for s in $PALEV_SESSIONS; do
        lttng destroy "$s" >/dev/null 2>&1
    done
}
trap palev_cleanup_sessions EXIT

# palev_session_start NAME OUTDIR EVENT... : a started session recording the events (comma lists
# welcome) into OUTDIR, with buffers large enough that nothing is lost, and the vpid context so
# that the events of one process can be told apart. Only processes of our own user are traced:
# per-user buffers of other users' applications (other tests run hosts as nobody) have nothing
# to do with the test, and a session destroyed while one of them registers can leave a stream
# babeltrace2 cannot read.
palev_session_start() {
    local name=$1 out=$2
    shift 2
    palev_session_create "$name" "$out"
    for ev in "$@"; do
        lttng enable-event -u -s "$name" -c ch "$ev" >/dev/null || palev_fail "lttng enable-event $ev"
    done
    lttng start "$name" >/dev/null || palev_fail "lttng start"
}

# palev_session_rule NAME OUTDIR EVENT [lttng enable-event options...] : the same with one rule
# taking options (--filter, --loglevel, ...).
palev_session_rule() {
    local name=$1 out=$2 ev=$3
    shift 3
    palev_session_create "$name" "$out"
    lttng enable-event -u -s "$name" -c ch "$ev" "$@" >/dev/null ||
        palev_fail "lttng enable-event $ev $*"
    lttng start "$name" >/dev/null || palev_fail "lttng start"
}

# The session and its channel, not started (the two functions above).
palev_session_create() {
    local name=$1 out=$2
    lttng destroy "$name" >/dev/null 2>&1
    lttng create "$name" --output="$out" >/dev/null || palev_fail "lttng create $name"
    PALEV_SESSIONS="$PALEV_SESSIONS $name"
    lttng enable-channel -u -s "$name" --subbuf-size=4M --num-subbuf=4 ch >/dev/null ||
        palev_fail "lttng enable-channel"
    lttng add-context -u -s "$name" -c ch -t vpid >/dev/null || palev_fail "lttng add-context"
    lttng track -u -s "$name" --vuid="$(id -u)" >/dev/null || palev_fail "lttng track --vuid"
}

# palev_run_host HOST NAME ARGS... : run HOST ARGS in the background with its output in NAME.out
# and NAME.err, wait, fail (showing NAME.err) unless it exits 0; sets pid.
palev_run_host() {
    local host=$1 name=$2 rc
    shift 2
    "$host" "$@" > "$name.out" 2> "$name.err" &
    pid=$!
    wait $pid && return 0
    rc=$?
    cat "$name.err" >&2
    palev_fail "$name: $(basename "$host") $* exited $rc"
}

palev_session_stop() {
    lttng stop "$1" >/dev/null || palev_fail "lttng stop $1"
    lttng destroy "$1" >/dev/null || palev_fail "lttng destroy $1"
}

# palev_read TRACEDIR PID : the events of process PID as "provider:event: { fields }", one per
# line, timestamps, host, cpu and vpid removed.
palev_read() {
    babeltrace2 "$1" | grep -F "{ vpid = $2 }" |
        sed -E 's/^\[[^]]*\] \([^)]*\) [^ ]+ //; s/: \{ cpu_id = [0-9]+ \}, \{ vpid = [0-9]+ \}, /: /'
}

# palev_relayd_start PORT DIR: an lttng-relayd of the test's own on 127.0.0.1, control port PORT,
# data PORT+1, live PORT+2, writing under DIR (its log: DIR.log); sets relayd_pid, which the
# caller stops.
palev_relayd_start() {
    local port=$1 dir=$2
    lttng-relayd --control-port="tcp://127.0.0.1:$port" --data-port="tcp://127.0.0.1:$((port + 1))" \
        --live-port="tcp://127.0.0.1:$((port + 2))" --output="$dir" > "$dir.log" 2>&1 &
    relayd_pid=$!
    sleep 1
    kill -0 "$relayd_pid" 2>/dev/null || palev_fail "lttng-relayd did not start: $(cat "$dir.log")"
}
