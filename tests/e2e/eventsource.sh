#!/bin/bash
# SPDX-License-Identifier: MIT
# EventSource end to end: es_host fires events through libpaleventing in real LTTng sessions, and
# the payloads read back (bt2, byte for byte) must be exactly the JSON expected; filtered-out,
# invalid and untraced events must be absent; is_enabled must follow the session.
# usage: eventsource.sh ES_HOST WORKDIR
set -u
host=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
palev_workdir "$work"
# Whatever the caller's environment says, the hosts start from the defaults.
unset PALEV_LTTNG PALEV_DEBUG PALEV_PROVIDER_PATH PALEV_EVENTSOURCE_FILTER PALEV_EVENTNAME_FILTER

# run NAME ENV... -- ARGS... : run the host in the background with extra environment, stdout to
# NAME.out, wait, fail unless it exits 0, and set $pid.
run() {
    local name=$1 envs=()
    shift
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" "$host" "$@" > "$name.out" 2> "$name.err" &
    pid=$!
    wait $pid && return 0
    rc=$?
    cat "$name.err" >&2
    palev_fail "$name: es_host $* exited $rc"
}

# read_events TRACE PID OUT : the EventSource events of PID, one line each (see es_read.py).
read_events() {
    /usr/bin/python3 "$here/es_read.py" "$1" "$2" > "$3" || palev_fail "es_read.py $1 failed"
}

# same WANT GOT WHAT : the files must be equal; show the start of the differences if not.
same() {
    cmp -s "$1" "$2" && return 0
    diff "$1" "$2" | cut -c1-300 | head -20 >&2
    palev_fail "$3: $2 differs from $1"
}

# ---- no session listening: exit 0, nothing built, is_enabled 0 ---------------------------
run nosession -- record off
[ -s nosession.out ] && palev_fail "nosession: es_host printed $(cat nosession.out)"
echo "no session: the host ran, every call returned 0, is_enabled was 0"

# ---- one session: exact payloads, PALEV_LTTNG=0, 1 MiB payloads --------------------------
palev_session_start "palev-es-$$" "$work/trace" Paleventing:EventSource
run record -- record on
record_pid=$pid
run disabled PALEV_LTTNG=0 -- record off
disabled_pid=$pid
run big -- big
big_pid=$pid
palev_session_stop "palev-es-$$"

read_events trace $record_pid record.got
same record.out record.got "exact payloads"
echo "recorded: $(wc -l < record.got) events, every field as written; invalid payloads absent"
read_events trace $disabled_pid disabled.got
same /dev/null disabled.got "PALEV_LTTNG=0"
echo "PALEV_LTTNG=0: the host ran, is_enabled was 0, nothing recorded"
read_events trace $big_pid big.got
same big.out big.got "1 MiB payloads"
echo "1 MiB payloads (write_pack and write) recorded intact with 4 MiB sub-buffers"

# ---- filters -----------------------------------------------------------------------------
palev_session_start "palev-es-f-$$" "$work/trace-filter" Paleventing:EventSource
run filter1 "PALEV_EVENTSOURCE_FILTER= alpha , BETA" "PALEV_EVENTNAME_FILTER=start,,STOP" -- filter
filter1_pid=$pid
run filter2 "PALEV_EVENTNAME_FILTER=other" "PALEV_EVENTSOURCE_FILTER=" -- filter
filter2_pid=$pid
palev_session_stop "palev-es-f-$$"

cat > filter1.want <<'EOF'
is_enabled Alpha.Source TaskStart 1
is_enabled Alpha.Source stopped 1
is_enabled Alpha.Source Other 0
is_enabled My-BETA TaskStart 1
is_enabled My-BETA stopped 1
is_enabled My-BETA Other 0
is_enabled Gamma TaskStart 0
is_enabled Gamma stopped 0
is_enabled Gamma Other 0
EOF
printf '%s\n' $'1\tAlpha.Source\tTaskStart\t{"id":1}' $'2\tAlpha.Source\tstopped\t{"id":2}' \
    $'4\tMy-BETA\tTaskStart\t{"id":4}' $'5\tMy-BETA\tstopped\t{"id":5}' > filter1.events
same filter1.want filter1.out "is_enabled with both filters"
read_events trace-filter $filter1_pid filter1.got
same filter1.events filter1.got "events with both filters"
cat > filter2.want <<'EOF'
is_enabled Alpha.Source TaskStart 0
is_enabled Alpha.Source stopped 0
is_enabled Alpha.Source Other 1
is_enabled My-BETA TaskStart 0
is_enabled My-BETA stopped 0
is_enabled My-BETA Other 1
is_enabled Gamma TaskStart 0
is_enabled Gamma stopped 0
is_enabled Gamma Other 1
EOF
printf '%s\n' $'3\tAlpha.Source\tOther\t{"id":3}' $'6\tMy-BETA\tOther\t{"id":6}' \
    $'9\tGamma\tOther\t{"id":9}' > filter2.events
same filter2.want filter2.out "is_enabled with a name filter"
read_events trace-filter $filter2_pid filter2.got
same filter2.events filter2.got "events with a name filter"
echo "filters: exactly the matching events recorded, is_enabled agrees"

# ---- an event larger than a sub-buffer is dropped and counted, the host runs on ----------
session="palev-es-s-$$"
lttng create "$session" --output="$work/trace-small" >/dev/null || palev_fail "lttng create"
lttng track -u -s "$session" --vuid="$(id -u)" >/dev/null || palev_fail "lttng track"
PALEV_SESSIONS="$PALEV_SESSIONS $session"
lttng enable-channel -u -s "$session" --subbuf-size=64K --num-subbuf=4 ch >/dev/null &&
    lttng add-context -u -s "$session" -c ch -t vpid >/dev/null &&
    lttng enable-event -u -s "$session" -c ch Paleventing:EventSource >/dev/null &&
    lttng start "$session" >/dev/null || palev_fail "small session setup"
run small -- big
small_pid=$pid
palev_session_stop "$session"
read_events trace-small $small_pid small.got
printf '%s\n' $'3\tPalev.Test\tAfter\t{"after":true}' 'events discarded' > small.want
same small.want small.got "64 KiB sub-buffers"
echo "64 KiB sub-buffers: both 1 MiB events discarded (reported as such), the next one recorded"

# ---- is_enabled follows the session ------------------------------------------------------
session="palev-es-t-$$"
lttng create "$session" --output="$work/trace-toggle" >/dev/null || palev_fail "lttng create"
lttng track -u -s "$session" --vuid="$(id -u)" >/dev/null || palev_fail "lttng track"
PALEV_SESSIONS="$PALEV_SESSIONS $session"
lttng enable-event -u -s "$session" Paleventing:EventSource >/dev/null || palev_fail "enable-event"
coproc TOGGLE { "$host" toggle; }
states=""
# step COMMAND... : run an lttng command (none for the first step), then ask the host again.
step() {
    local line
    [ $# -gt 0 ] && { "$@" >/dev/null || palev_fail "$*"; echo >&"${TOGGLE[1]}"; }
    read -r -t 30 line <&"${TOGGLE[0]}" || palev_fail "toggle: no answer from es_host"
    states="$states ${line#enabled=}"
}
step
step lttng start "$session"
step lttng stop "$session"
step lttng start "$session"
step lttng disable-event -u -s "$session" Paleventing:EventSource
step lttng enable-event -u -s "$session" Paleventing:EventSource
step lttng destroy "$session"
eval "exec ${TOGGLE[1]}>&-"
wait "$TOGGLE_PID" || palev_fail "toggle: es_host exited $?"
# created, started, stopped, started, event disabled, enabled, session destroyed
[ "$states" = " 0 1 0 1 0 1 0" ] ||
    palev_fail "is_enabled through the session's life: got$states, want 0 1 0 1 0 1 0"
echo "is_enabled followed the session: 0 1 0 1 0 1 0 (created, start, stop, start, disable-event,"\
     "enable-event, destroy)"
