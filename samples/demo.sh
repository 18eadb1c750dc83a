#!/bin/bash
# SPDX-License-Identifier: MIT
# README command one: install what is missing, build, trace minivm's built-in workload in a real
# LTTng session (its runtime events and the EventSource tracepoint), and report what was recorded.
# Runs from any directory, as often as you like; leaves no session or daemon of its own behind.
# usage: samples/demo.sh [--build-dir DIR] [--no-build]
#   --build-dir DIR  build (or find the build) in DIR (default: build-demo/ beside samples/)
#   --no-build       use DIR as it is (the test suite runs the demo on its own build)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/samples/lib.sh"
build=$top/build-demo
do_build=1
while [ $# -gt 0 ]; do
    case $1 in
    --build-dir) build=$(mkdir -p "$2" && cd "$2" && pwd) || exit 2; shift 2 ;;
    --no-build) do_build=0; shift ;;
    *) echo "usage: $0 [--build-dir DIR] [--no-build]" >&2; exit 2 ;;
    esac
done
minivm=$build/samples/minivm/minivm
trace=$build/demo-trace
session=minivm-demo-$$
log=$build/demo.log

say() { printf '\n== %s\n' "$*"; }
die() { echo "demo: $*" >&2; exit 1; }

# Cleanup on every exit: our session, and the session daemon only if we started it.
sessiond_pid=""
cleanup() {
    lttng destroy "$session" >/dev/null 2>&1
    if [ -n "$sessiond_pid" ]; then
        kill "$sessiond_pid" 2>/dev/null && wait "$sessiond_pid" 2>/dev/null
    fi
}
trap cleanup EXIT

install_and_build() {
    say "dependencies"
    . "$top/tests/deps.sh"
    palev_install_deps || die "cannot install the Debian packages the demo needs"
    echo "Debian packages present"
    [ $do_build = 1 ] || return 0
    say "building in $build (log: $log)"
    mkdir -p "$build" || die "cannot create $build"
    { cmake -S "$top" -B "$build" -DPALEV_BUILD_TESTS=OFF &&
        cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)"; } >"$log" 2>&1 ||
        { tail -30 "$log" >&2; die "the build failed (full log: $log)"; }
    echo "built $minivm"
}

# A session daemon of our own only when none runs (samples/lib.sh).
ensure_sessiond() {
    say "session daemon"
    if pgrep -x lttng-sessiond >/dev/null; then
        echo "using the lttng-sessiond that already runs"
        return 0
    fi
    palev_own_sessiond "$build/sessiond.log" || die "lttng-sessiond did not start (see $build/sessiond.log)"
    echo "started lttng-sessiond (pid $sessiond_pid), stopped again at the end"
}

record() {
    say "recording minivm's built-in workload"
    rm -rf "$trace"
    lttng create "$session" --output="$trace" >/dev/null || die "lttng create failed"
    # only our own user's processes: other users' buffers are not the demo's business
    lttng track -u -s "$session" --vuid="$(id -u)" >/dev/null || die "lttng track failed"
    # Large sub-buffers: the workload fires tens of thousands of events per second.
    lttng enable-channel -u -s "$session" --subbuf-size=4M --num-subbuf=4 demo >/dev/null &&
        lttng add-context -u -s "$session" -c demo -t vpid -t vtid >/dev/null &&
        lttng enable-event -u -s "$session" -c demo 'Palev_Runtime:*' >/dev/null &&
        lttng enable-event -u -s "$session" -c demo 'Paleventing:EventSource' >/dev/null &&
        lttng enable-event -u -s "$session" -c demo 'MiniVM_*' >/dev/null &&
        lttng start "$session" >/dev/null || die "cannot set up session $session"
    echo "session $session: Palev_Runtime:*, Paleventing:EventSource and MiniVM_* (typed, defined at run time)"
    local start end rc
    start=$(date +%s%N)
    "$minivm" -v &
    minivm_pid=$!
    wait $minivm_pid
    rc=$?
    end=$(date +%s%N)
    [ $rc = 0 ] || die "minivm exited $rc"
    workload_ms=$(( (end - start) / 1000000 ))
    lttng stop "$session" >/dev/null && lttng destroy "$session" >/dev/null ||
        die "cannot stop session $session"
}

# The first event of the text trace matching a pattern, its fields one per line.
show_event() {
    grep -m1 -E "$1" "$2" |
        sed -E -e 's/^\[[^]]*\] \([^)]*\) [^ ]+ ([^ ]+): \{ cpu_id = [0-9]+ \}, /\1 /' \
            -e 's/^([^ ]+) \{ vpid = [0-9]+, vtid = ([0-9]+) \}, \{ (.*) \}$/  \1 (thread \2)\n\3/' |
        sed -E '2s/, ([A-Za-z_][A-Za-z0-9_]* = )/\n\1/g' | sed -E '2,$s/^/      /'
}

report() {
    local text=$build/demo-trace.txt total rate gc metadata
    # Only minivm's events: on a shared machine other traced programs may be recording too.
    babeltrace2 "$trace" 2>"$build/demo-babeltrace.log" | grep -F "vpid = $minivm_pid," >"$text" ||
        die "no events of minivm in $trace (babeltrace2: $build/demo-babeltrace.log)"
    total=$(wc -l <"$text")
    rate=$((total * 1000 / (workload_ms > 0 ? workload_ms : 1)))
    say "events per name ($total events in ${workload_ms} ms: $rate events/s)"
    awk '{ sub(/:$/, "", $4); n[$4]++ } END { for (e in n) printf "%8d  %s\n", n[e], e }' "$text" |
        sort -k2
    if grep -q -i discarded "$build/demo-babeltrace.log"; then
        echo "(babeltrace2 reports discarded events: see $build/demo-babeltrace.log)"
    fi

    say "a few decoded events (every field typed, as the manifest declares it)"
    show_event ' Palev_Runtime:ModuleLoad: ' "$text"
    show_event ' Palev_Runtime:MethodLoad: .*MethodName = "deep"' "$text"
    # One full collection the old generation's growth asked for: its start, end and statistics
    # carry the same Count.
    gc=$(grep -m1 -E ' Palev_Runtime:GCStart: .*"OldBudget"' "$text" | sed -E 's/.*Count = ([0-9]+),.*/\1/')
    for e in GCStart GCEnd GCHeapStats; do
        show_event " Palev_Runtime:$e: .*\\{ Count = ${gc:-1}," "$text"
    done
    show_event ' Palev_Runtime:ExceptionThrown: .*Workload.ParseError' "$text"
    show_event ' Palev_Runtime:ExceptionCatch: .*Workload.ParseError' "$text"
    show_event ' Palev_Runtime:ThreadPoolDequeue: ' "$text"
    show_event 'EventName = "RuntimeCounters"' "$text"
    show_event ' MiniVM_Counters:Tick: ' "$text"

    say "where the trace is"
    metadata=$trace/ust/uid/$(id -u)/64-bit/metadata
    echo "  $trace"
    echo "  (CTF; minivm's streams are described by $metadata)"
    say "look further"
    cat <<EOF
  every event, decoded:
      babeltrace2 $trace | less
  the collections only:
      babeltrace2 $trace | grep -E 'Palev_Runtime:GC(Start|End):'
  in a GUI: Trace Compass (https://eclipse.dev/tracecompass), File > Open Trace..., pick
      $metadata
  record only some areas, chosen by the manifest's keywords, like perfcollect:
      $top/samples/collect.sh --keywords GC,Exception -- $minivm
  watch the events arrive through lttng-relayd:
      $top/samples/collect.sh --live -- $minivm
EOF
}

install_and_build
[ -x "$minivm" ] || die "$minivm is missing (build first, or drop --no-build)"
command -v lttng >/dev/null && command -v babeltrace2 >/dev/null ||
    die "lttng-tools and babeltrace2 are needed"
ensure_sessiond
record
report
exit 0
