#!/bin/bash
# SPDX-License-Identifier: MIT
# README command one: install what is missing, build, trace minivm's built-in workload with
# palev-collect (its runtime events, EventSource and ProviderStatus, and perf's CPU samples), and
# report what was recorded and where the CPU went during the collections.
# Runs from any directory, as often as you like; leaves no session or daemon of its own behind.
# usage: samples/demo.sh [--build-dir DIR] [--no-build]
#   --build-dir DIR  build (or find the build) in DIR (default: build-demo/ beside samples/)
#   --no-build       use DIR as it is (the test suite runs the demo on its own build)
set -u
demo_start=$(date +%s)
top=$(cd "$(dirname "$0")/.." && pwd)
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
collect=$build/bin/palev-collect
trace=$build/demo-trace
log=$build/demo.log

say() { printf '\n== %s\n' "$*"; }
die() { echo "demo: $*" >&2; exit 1; }

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

# palev-collect (the build's bin/palev-collect) starts a session daemon only when none runs and
# stops it again; every event of the manifest, as no --keywords means.
record() {
    say "recording minivm's built-in workload with palev-collect"
    local rc
    rm -rf "$trace"
    # MiniVM_*: minivm's counters and script events, typed events it defines at run time;
    # --cpu: perf's CPU samples beside them (without perf, or without the right to use it,
    # palev-collect says so and records the rest)
    PALEV_GEN=$build/generator/palev-gen "$collect" -m "$top/manifest/runtime.man" -e 'MiniVM_*' \
        --cpu -o "$trace" -- "$minivm" -v >"$build/collect.out" 2>"$build/minivm.err"
    rc=$?
    sed 's/^/  /' "$build/collect.out"
    grep '^palev-collect: ' "$build/minivm.err" | sed 's/^/  /'
    [ $rc = 0 ] || die "minivm exited $rc"
    minivm_pid=$(sed -n 's/^palev-collect: .* runs as pid \([0-9]*\)$/\1/p' "$build/collect.out")
    [ -n "$minivm_pid" ] || die "palev-collect did not say minivm's pid"
    # minivm's own measure of its run: "minivm: 2.507 s, ..."
    workload_ms=$(sed -n 's/^minivm: \([0-9]*\)\.\([0-9]\{3\}\) s, .*/\1\2/p' "$build/minivm.err")
    workload_ms=$((10#${workload_ms:-0}))
}

# minivm's own stderr: the workload's deliberate failures, explained.
explain_minivm() {
    say "what minivm said on stderr (all of it part of the workload, none of it a failure)"
    grep -v '^palev-collect: ' "$build/minivm.err" | sed 's/^/  /'
    cat <<'EOF'
  "unhandled Workload.GiveUp": in every round, work item 3 throws Workload.GiveUp and nothing
  catches it, so that ExceptionUnhandled events exist; the thread pool reports the first one
  and carries on. The summary line counts them all.
EOF
}

# The first event of the text trace matching a pattern, its fields one per line.
show_event() {
    grep -m1 -E "$1" "$2" |
        sed -E -e 's/^\[[^]]*\] \([^)]*\) [^ ]+ ([^ ]+): \{ cpu_id = [0-9]+ \}, /\1 /' \
            -e 's/^([^ ]+) \{ vpid = [0-9]+, vtid = ([0-9]+), procname = "[^"]*" \}, \{ (.*) \}$/  \1 (thread \2)\n\3/' |
        sed -E '2s/, ([A-Za-z_][A-Za-z0-9_]* = )/\n\1/g' | sed -E '2,$s/^/      /'
}

report() {
    local text=$build/demo-trace.txt total rate gc metadata
    # Only minivm's events: on a shared machine other traced programs may be recording too.
    babeltrace2 "$trace/ust" 2>"$build/demo-babeltrace.log" | grep -F "vpid = $minivm_pid," |
        grep -v ' lttng_ust_statedump:' >"$text" ||
        die "no events of minivm in $trace (babeltrace2: $build/demo-babeltrace.log)"
    total=$(wc -l <"$text")
    rate=$((total * 1000 / (workload_ms > 0 ? workload_ms : 1)))
    say "events per name ($total events in ${workload_ms} ms: $rate events/s)"
    awk '{ sub(/:$/, "", $4); n[$4]++ } END { for (e in n) printf "%8d  %s\n", n[e], e }' "$text" |
        sort -k2 | awk '{ print $0 note[$2] }
            BEGIN {
                note["Palev_Runtime:GCOutOfMemory"] = "   (on purpose: the warm-up reaches a heap limit once)"
                note["Palev_Runtime:MethodCompileFailed"] = "   (on purpose: the verifier refuses Workload.Broken.underflow)"
                note["Palev_Runtime:ExceptionUnhandled"] = "   (on purpose: one Workload.GiveUp per round)"
                note["Paleventing:ProviderStatus"] = "   (one per provider: loaded, and from where)"
            }'
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
    show_event ' Paleventing:ProviderStatus: .*provider = "Palev_Runtime"' "$text"
    show_event ' MiniVM_Counters:Tick: ' "$text"

    say "where the trace is"
    metadata=$trace/ust/uid/$(id -u)/64-bit/metadata
    echo "  $trace"
    echo "  (CTF; minivm's streams are described by $metadata)"
    say "look further"
    cat <<EOF
  every event, decoded:
      babeltrace2 $trace/ust | less
  the collections only:
      babeltrace2 $trace/ust | grep -E 'Palev_Runtime:GC(Start|End):'
  in a GUI: Trace Compass (https://eclipse.dev/tracecompass), File > Open Trace..., pick
      $metadata
  record only some areas, chosen by the manifest's keywords, like perfcollect:
      $collect -m $top/manifest/runtime.man --keywords GC,Exception -- $minivm
  watch the events arrive through lttng-relayd:
      $collect -m $top/manifest/runtime.man --live -- $minivm
EOF
}

# palev-trace: the collections and other activities, and the HTML report of the whole trace.
analyse() {
    local pt=$build/trace/palev-trace html=$build/demo-report.html
    local man=(-m "$top/manifest/runtime.man" -m "$top/manifest/eventsource.man")
    say "activities (palev-trace activities --by Generation)"
    "$pt" activities "${man[@]}" --by Generation --top 5 "$trace"
    if [ -d "$trace/perf/ctf" ]; then
        say "the CPU during the collections (palev-trace cpu --during Palev_Runtime:GC)"
        "$pt" cpu "${man[@]}" --during Palev_Runtime:GC --top 8 "$trace"
        echo "  (outside them: palev-trace cpu --outside Palev_Runtime:GC $trace; the flame graph: the report)"
    else
        say "no CPU samples (perf is missing or may not record here: palev-collect said why above)"
    fi
    "$pt" report "${man[@]}" --by Generation -o "$html" "$trace" ||
        echo "(palev-trace report exited $?: see above)"
    say "report"
    echo "  $html"
}

install_and_build
[ -x "$minivm" ] || die "$minivm is missing (build first, or drop --no-build)"
command -v lttng >/dev/null && command -v babeltrace2 >/dev/null ||
    die "lttng-tools and babeltrace2 are needed"
record
explain_minivm
report
analyse
say "done in $(( $(date +%s) - demo_start )) s"
exit 0
