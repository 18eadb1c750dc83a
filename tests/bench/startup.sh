#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/bench/startup.sh [BUILD_DIR]: palev-bench-startup three ways, each table from one run:
# with the session daemon and no session of ours, with no session daemon reachable (as root),
# and while a session of ours records the hosts' events (their buffers are mapped at start).
# Not a pass/fail test: it fails only when something cannot run. BUILD_DIR defaults to
# build-bench at the top of the source tree (configured RelWithDebInfo if absent).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build-bench}
. "$here/lib.sh"
rounds=${PALEV_BENCH_ROUNDS:-41}
unset PALEV_LTTNG PALEV_PROVIDER_PATH PALEV_DEBUG PALEV_LOAD LTTNG_UST_REGISTER_TIMEOUT
session=palev-startup-$$
trace=""
. "$root/tests/e2e/sessiond_lib.sh"
PALEV_SESSIOND=""

cleanup() {
    lttng destroy "$session" >/dev/null 2>&1
    [ -n "$trace" ] && rm -rf "$trace"
    palev_sessiond_stop "$PALEV_SESSIOND" || true
}
trap cleanup EXIT

bench_build palev-bench-startup
bench=$build/tests/bench/palev-bench-startup
palev_sessiond_ensure || fail "cannot start lttng-sessiond"

"$bench" --rounds "$rounds" --label "no session of ours" || fail "$bench failed"

trace=$(mktemp -d /tmp/palev-startup-trace.XXXXXX) || fail "mktemp failed"
lttng create "$session" --output="$trace/t" >/dev/null || fail "lttng create"
lttng enable-event -u -s "$session" 'Palev_Startup:*,palev_bench_raw:*,Paleventing:*' \
    >/dev/null || fail "lttng enable-event"
lttng start "$session" >/dev/null || fail "lttng start"
"$bench" --rounds "$rounds" --found-only \
    --label "a session of ours recording the hosts' events, per-user buffers" || fail "$bench failed"
