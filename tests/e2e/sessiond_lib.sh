# SPDX-License-Identifier: MIT
# Starting an lttng-sessiond when none runs, and stopping only the very daemon we started, never
# anyone else's. Sourced by the ctest fixture (tests/e2e/sessiond.sh), tests/bench/run.sh and
# tests/faults/lib.sh. (tools/palev-collect, installed alone, keeps its own few lines.)

# A process that exists and is not a zombie.
palev_alive() {
    [ -r "/proc/$1/stat" ] && ! sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | grep -q '^Z'
}

# Wait up to TENTHS tenths of a second (default 50) for PID to be gone; 1 if it is still alive.
palev_wait_gone() {
    local _
    for _ in $(seq "${2:-50}"); do
        palev_alive "$1" || return 0
        sleep 0.1
    done
    ! palev_alive "$1"
}

# A process's start time (field 22 of its stat): a pid alone may name another process later.
palev_start_time() {
    sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20
}

# Start an lttng-sessiond if none runs. $PALEV_SESSIOND is then "PID START_TIME" of ours, or
# empty when one already ran (used, never stopped). Returns 1 when it cannot start.
palev_sessiond_ensure() {
    local pid
    PALEV_SESSIOND=""
    pgrep -x lttng-sessiond >/dev/null && return 0
    lttng-sessiond --daemonize --no-kernel || return 1
    pid=$(pgrep -x -n lttng-sessiond)
    PALEV_SESSIOND="$pid $(palev_start_time "$pid")"
}

# palev_sessiond_stop "PID START_TIME": stop that very daemon and wait for it. Returns 2 when it
# is gone already (or the pid names another process now), 1 when it outlives 5 s.
palev_sessiond_stop() {
    local pid start
    read -r pid start <<< "${1:-}"
    [ -n "$pid" ] || return 2
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = lttng-sessiond ] || return 2
    [ -z "$start" ] || [ "$(palev_start_time "$pid")" = "$start" ] || return 2
    kill "$pid" 2>/dev/null
    palev_wait_gone "$pid" 50
}
