#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/bench/define.sh [BUILD_DIR]: the time to define 1000 providers x 10 dynamic events while a
# session records a matching wildcard: one by one (palev_event_define), one
# palev_event_define_many() per provider, one for all; then one provider of 10 000 events in one
# call (what is left: LTTng-UST's per-event registration with the session daemon), and one by
# one with no session of ours; then a runtime's start-up, 10 providers x 50 events, one by one and
# by provider. Each row is a fresh process and a fresh session. Not a pass/fail test.
# BUILD_DIR defaults to build-bench at the top of the source tree (as tests/bench/run.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build-bench}
. "$here/lib.sh"
unset PALEV_LTTNG PALEV_PROVIDER_PATH PALEV_DEBUG
. "$root/tests/e2e/sessiond_lib.sh"
PALEV_SESSIOND=""
session=""

cleanup() {
    [ -n "$session" ] && lttng destroy "$session" >/dev/null 2>&1
    [ -n "${trace:-}" ] && rm -rf "$trace"
    palev_sessiond_stop "$PALEV_SESSIOND" || true
}
trap cleanup EXIT

bench_build palev-bench-define
bench=$build/tests/bench/palev-bench-define
palev_sessiond_ensure || fail "cannot start lttng-sessiond"
trace=$(mktemp -d /tmp/palev-bench-define.XXXXXX) || fail "mktemp failed"

# row MODE PROVIDERS EVENTS SESSION(yes|no): seconds the defines took in a fresh process, its
# events' prefix enabled as a wildcard in a fresh session when SESSION is yes.
row() {
    local prefix=Bench_Def$$_$1_$2 secs
    if [ "$4" = yes ]; then
        session=palev-bench-define-$$
        lttng create "$session" --output="$trace/$1-$2" >/dev/null || fail "lttng create"
        lttng enable-event -u -s "$session" "$prefix*" >/dev/null || fail "lttng enable-event"
        lttng start "$session" >/dev/null || fail "lttng start"
    fi
    secs=$("$bench" "$1" "$2" "$3" "$prefix") || fail "palev-bench-define $1 $2 $3 failed"
    if [ "$4" = yes ]; then
        lttng destroy "$session" >/dev/null
        session=""
    fi
    echo "$secs"
}

one=$(row one 1000 10 yes)
provider=$(row provider 1000 10 yes)
all=$(row all 1000 10 yes)
floor=$(row all 1 10000 yes)
none=$(row one 1000 10 no)
start_one=$(row one 10 50 yes)
start_provider=$(row provider 10 50 yes)
awk -v one="$one" -v provider="$provider" -v all="$all" -v floor="$floor" -v none="$none" \
    -v start_one="$start_one" -v start_provider="$start_provider" 'BEGIN {
    printf "| defining 10 000 events | session | seconds | ms per event | vs one by one |\n"
    printf "|---|---|---|---|---|\n"
    printf "| 1000 providers x 10, palev_event_define() one by one | wildcard | %.2f | %.3f | 1.0 |\n", one, one / 10
    printf "| 1000 providers x 10, one palev_event_define_many() per provider | wildcard | %.2f | %.3f | %.1fx faster |\n", provider, provider / 10, one / provider
    printf "| 1000 providers x 10, one palev_event_define_many() for all | wildcard | %.2f | %.3f | %.1fx faster |\n", all, all / 10, one / all
    printf "| 1 provider x 10 000, one palev_event_define_many() | wildcard | %.2f | %.3f | %.1fx faster |\n", floor, floor / 10, one / floor
    printf "| 1000 providers x 10, one by one | none of ours | %.2f | %.4f | |\n", none, none / 10
    printf "\n| defining 500 events | session | seconds | ms per event | vs one by one |\n"
    printf "|---|---|---|---|---|\n"
    printf "| 10 providers x 50, palev_event_define() one by one | wildcard | %.3f | %.3f | 1.0 |\n", start_one, start_one * 2
    printf "| 10 providers x 50, one palev_event_define_many() per provider | wildcard | %.3f | %.3f | %.1fx faster |\n", start_provider, start_provider * 2, start_one / start_provider
}'
