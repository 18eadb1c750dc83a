#!/bin/bash
# SPDX-License-Identifier: MIT
# Collection like perfcollect, driven by the manifest: record exactly the events an ETW session
# with these keywords and this level would get (palev-gen enable-list), plus the EventSource
# tracepoint, while COMMAND runs; to a trace directory, or live through an lttng-relayd.
usage() {
    cat <<'EOF'
usage: collect.sh [--keywords GC,JIT|HEXMASK] [--level N] [--eventsource-filter S] [--live]
                  [-o DIR] [-m MANIFEST] -- COMMAND [ARG...]
  --keywords K            keyword names of the manifest (comma-separated) or a hex mask;
                          default: every keyword
  --level N               ETW level: 1 Critical .. 5 Verbose; default 0, every level
  --eventsource-filter S  passed to COMMAND as PALEV_EVENTSOURCE_FILTER (EventSource names)
  --live                  stream through an lttng-relayd on 127.0.0.1 and print the events as
                          they arrive (a relayd is started, and stopped after, if none listens)
  -o DIR                  where the trace goes (default: ./collect-DATE-TIME)
  -m MANIFEST             the manifest (default: manifest/runtime.man of this tree)
Environment: PALEV_GEN, the palev-gen to use (default: on PATH, else this tree's build).
Exit status: COMMAND's; 2 for usage errors, unknown keywords and missing tools; 1 when tracing
could not be set up.
EOF
}
set -u
here=${BASH_SOURCE[0]%/*}
[ "$here" = "${BASH_SOURCE[0]}" ] && here=.
top=$(cd "$here/.." && pwd)
. "$top/samples/lib.sh"
manifest=$top/manifest/runtime.man
keywords="" level="" es_filter="" live=0 out=""
LIVE_PORT=5344

fail() { echo "collect: $1" >&2; exit "${2:-1}"; }
usage_error() { echo "collect: $*" >&2; usage >&2; exit 2; }

parse_args() {
    while [ $# -gt 0 ]; do
        case $1 in
        --keywords) [ $# -ge 2 ] || usage_error "--keywords needs a value"; keywords=$2; shift 2 ;;
        --level) [ $# -ge 2 ] || usage_error "--level needs a value"; level=$2; shift 2 ;;
        --eventsource-filter) [ $# -ge 2 ] || usage_error "--eventsource-filter needs a value"
            es_filter=$2; shift 2 ;;
        --live) live=1; shift ;;
        -o) [ $# -ge 2 ] || usage_error "-o needs a directory"; out=$2; shift 2 ;;
        -m) [ $# -ge 2 ] || usage_error "-m needs a manifest"; manifest=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        --) shift; break ;;
        -*) usage_error "unknown option \"$1\"" ;;
        *) break ;;
        esac
    done
    [ $# -gt 0 ] || usage_error "no COMMAND to run"
    command=("$@")
}

find_tools() {
    local t
    for t in lttng babeltrace2 $([ $live = 1 ] && echo lttng-relayd); do
        command -v "$t" >/dev/null ||
            fail "missing tool: $t (Debian: apt-get install lttng-tools babeltrace2)" 2
    done
    if [ -z "${PALEV_GEN:-}" ]; then
        PALEV_GEN=$(command -v palev-gen) ||
            for PALEV_GEN in "$top"/build-demo/generator/palev-gen "$top"/build/generator/palev-gen; do
                [ -x "$PALEV_GEN" ] && break
            done
    fi
    [ -x "$PALEV_GEN" ] || fail "missing tool: palev-gen (build this tree, or set PALEV_GEN)" 2
    [ -r "$manifest" ] || fail "cannot read the manifest $manifest" 2
}

# The events to enable, as one comma-separated list; palev-gen explains unknown keywords.
select_events() {
    local args=() rc
    [ -n "$keywords" ] && args+=(--keywords "$keywords")
    [ -n "$level" ] && args+=(--level "$level")
    events=$("$PALEV_GEN" enable-list "${args[@]}" "$manifest")
    rc=$?
    [ $rc = 0 ] || fail "palev-gen enable-list failed (exit $rc): nothing recorded" 2
    [ -n "$events" ] || echo "collect: no event of $manifest has these keywords and level" >&2
}

# Our own daemons only when none runs; $! is exactly what we may stop later.
sessiond_pid="" relayd_pid="" viewer_pid="" session=""
cleanup() {
    [ -n "$session" ] && lttng destroy "$session" >/dev/null 2>&1
    [ -n "$viewer_pid" ] && kill "$viewer_pid" 2>/dev/null
    for pid in $relayd_pid $sessiond_pid; do
        kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    done
}
trap cleanup EXIT

ensure_sessiond() {
    pgrep -x lttng-sessiond >/dev/null && return 0
    palev_own_sessiond /dev/null || fail "lttng-sessiond did not start"
    echo "collect: started lttng-sessiond (pid $sessiond_pid), stopped at the end"
}

listening() {
    (: </dev/tcp/127.0.0.1/"$1") 2>/dev/null
}

ensure_relayd() {
    if listening $LIVE_PORT; then
        echo "collect: using the lttng-relayd on 127.0.0.1:$LIVE_PORT (the trace goes to its output directory)"
        return 0
    fi
    lttng-relayd --control-port=tcp://127.0.0.1:5342 --data-port=tcp://127.0.0.1:5343 \
        --live-port=tcp://127.0.0.1:$LIVE_PORT --output="$out" >"$out.relayd.log" 2>&1 &
    relayd_pid=$!
    for _ in $(seq 100); do
        listening $LIVE_PORT && break
        sleep 0.1
    done
    listening $LIVE_PORT || fail "lttng-relayd did not start (see $out.relayd.log)"
    echo "collect: started lttng-relayd (pid $relayd_pid) on 127.0.0.1, writing to $out"
}

create_session() {
    session=collect-$$
    if [ $live = 1 ]; then
        lttng create "$session" --live=200000 --set-url=net://127.0.0.1 >/dev/null
    else
        lttng create "$session" --output="$out" >/dev/null
    fi || { session=""; fail "lttng create failed"; }
    lttng enable-channel -u -s "$session" --subbuf-size=4M --num-subbuf=4 ch >/dev/null &&
        lttng add-context -u -s "$session" -c ch -t vpid -t vtid -t procname >/dev/null &&
        { [ -z "$events" ] || lttng enable-event -u -s "$session" -c ch "$events" >/dev/null; } &&
        lttng enable-event -u -s "$session" -c ch Paleventing:EventSource >/dev/null ||
        fail "cannot enable the events in session $session"
    local n
    n=$(echo "$events" | tr ',' '\n' | grep -c .)
    echo "collect: session $session records $n events of $(basename "$manifest") and Paleventing:EventSource"
}

# babeltrace2 attaches to a live session at its most recent data: streams that exist when it
# attaches are read from their end. It must have attached before the session starts, or the
# command's first events go by unseen. The relayd says how many viewers a session has.
viewer_attached() {
    babeltrace2 query src.ctf.lttng-live sessions -p "url=\"net://127.0.0.1:$LIVE_PORT\"" 2>/dev/null |
        awk -v s="$session" '
            /^- *$/ { if (name == s && clients > 0) found = 1; name = ""; clients = 0 }
            $1 == "client-count:" { clients = $2 }
            $1 == "session-name:" { name = $2 }
            END { if (name == s && clients > 0) found = 1; exit !found }'
}

start_viewer() {
    local url=net://127.0.0.1:$LIVE_PORT/host/$(uname -n)/$session
    echo "collect: live: babeltrace2 --input-format=lttng-live $url"
    babeltrace2 --input-format=lttng-live "$url" &
    viewer_pid=$!
    for _ in $(seq 300); do
        viewer_attached && return 0
        kill -0 "$viewer_pid" 2>/dev/null || fail "babeltrace2 could not attach to $url"
        sleep 0.1
    done
    echo "collect: the viewer did not attach within 30 s; the first events may not be shown" >&2
}

# The viewer ends by itself once the destroyed session's last data reached it.
stop_viewer() {
    for _ in $(seq 100); do
        kill -0 "$viewer_pid" 2>/dev/null || break
        sleep 0.1
    done
    kill "$viewer_pid" 2>/dev/null
    wait "$viewer_pid" 2>/dev/null
    viewer_pid=""
}

run_command() {
    if [ -n "$es_filter" ]; then
        PALEV_EVENTSOURCE_FILTER=$es_filter "${command[@]}" &
    else
        "${command[@]}" &
    fi
    local pid=$!
    echo "collect: ${command[0]} runs as pid $pid"
    wait $pid
    status=$?
}

summary() {
    echo "collect: ${command[0]} exited $status"
    if [ $live = 0 ]; then
        echo "collect: trace in $out"
        echo "collect: read it with: babeltrace2 $out"
    elif [ -n "$relayd_pid" ]; then
        echo "collect: trace in $out/$(uname -n)/ (written by the relayd)"
    fi
}

parse_args "$@"
find_tools
select_events
[ -n "$out" ] || out=collect-$(date +%Y%m%d-%H%M%S)
mkdir -p "$(dirname "$out")" && out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out") ||
    fail "cannot use $out" 2
ensure_sessiond
[ $live = 1 ] && ensure_relayd
create_session
[ $live = 1 ] && start_viewer
lttng start "$session" >/dev/null || fail "lttng start failed"
run_command
lttng stop "$session" >/dev/null
lttng destroy "$session" >/dev/null
session=""
[ $live = 1 ] && stop_viewer
summary
exit $status
