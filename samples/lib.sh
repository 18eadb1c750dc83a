# SPDX-License-Identifier: MIT
# Shared by samples/demo.sh and samples/collect.sh (sourced).

# palev_own_sessiond LOG: start an lttng-sessiond of our own and set sessiond_pid. Called only
# when none runs. --sig-parent says when the daemon is ready, and $! is exactly the daemon the
# caller may stop later (and only that one). Returns 1 when it did not start.
palev_own_sessiond() {
    local ready=0
    trap 'ready=1' USR1
    lttng-sessiond --no-kernel --sig-parent >"$1" 2>&1 &
    sessiond_pid=$!
    for _ in $(seq 100); do
        [ $ready = 1 ] && break
        sleep 0.1
    done
    trap - USR1
    [ $ready = 1 ]
}
