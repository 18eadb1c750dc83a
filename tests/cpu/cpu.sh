#!/bin/bash
# SPDX-License-Identifier: MIT
# CPU samples and blocked time beside the LTTng trace, as a user gets them: palev-collect --cpu
# (real perf, real session daemon) on hosts whose time is known by construction, read back with
# palev-trace (docs/cpu.md).
# usage: cpu.sh CASE PALEV_TRACE PALEV_COLLECT PALEV_GEN CPU_HOST MINIVM WORKDIR
#   beside   every LTTng command reads a trace directory holding perf/ctf/ as it reads the LTTng
#            trace alone (babeltrace2's muxer refuses perf's clock beside LTTng's)
#   shares   cpu_host's functions burn known shares of its CPU, inside and outside activities,
#            in JIT code replaced at the same address: cpu, --during, --outside, --where (a Start's
#            field and a Stop's), --by thread, --folded against the host's own measure
#   block    cpu_host blocks its main thread for known times (nanosleep, a mutex, a pipe) inside
#            activities: cpu --off-cpu gives each way's stack its time within 10%, --during and
#            --outside split it
#   minivm   the sample VM: the CPU during its collections is its collector's; its JIT-compiled
#            methods are named
#   report   the HTML report's flame graph in headless Chromium: not blank, every function of
#            cpu_host labelled in full; its tables say what palev-trace cpu says
#   speedscope  export --format speedscope: a sampled profile per thread, valid against speedscope's
#            schema, the totals of cpu --by thread; speedscope (npm, headless Chromium) loads it
#   valgrind the CPU commands under valgrind (PALEV_VALGRIND): no error, the same answers
#   nosamples  what palev-trace cpu says of a trace without samples, without switches, of a task
#            it lacks, of perf's samples alone, of usage errors: exact, with the exit status
# Exits 77 (skipped) where perf is missing or may not record.
set -u
case=$1 palev_trace=$2 collect=$3 gen=$4 host=$5 minivm=$6 work=$7
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
palev_require_sessiond
rm -rf "$work" && mkdir -p "$work" || palev_fail "cannot create $work"
cd "$work" || exit 1
export PALEV_GEN=$gen
unset PALEV_LTTNG PALEV_DEBUG PALEV_STACK PALEV_PERFMAP
man=$here/cpu.man

skip() { echo "SKIP: $*"; exit 77; }
command -v perf > /dev/null || skip "perf is not installed (Debian package linux-perf)"
[ "$(uname -m)" = x86_64 ] || skip "cpu_host's JIT code is x86-64; this machine is $(uname -m)"

# record NAME OPTIONS... -- COMMAND...: palev-collect into NAME/; sets pid. Skips when perf did
# not record (not permitted here), fails on anything else.
record() {
    local name=$1
    shift
    local opts=()
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    "$collect" -m "$man" "${opts[@]}" -o "$work/$name" -- "$@" > "$name.out" 2> "$name.err" ||
        palev_fail "palev-collect ${opts[*]} exited $?: $(cat "$name.out" "$name.err")"
    if grep -q '^palev-collect: --cpu: perf may not record' "$name.err"; then
        skip "perf may not record here: $(cat "$name.err")"
    fi
    pid=$(sed -n 's/^palev-collect: .* runs as pid \([0-9]*\)$/\1/p' "$name.out")
    [ -n "$pid" ] || palev_fail "palev-collect did not say the program's pid: $(cat "$name.out")"
    [ -d "$work/$name/perf/ctf" ] || palev_fail "no CPU samples in $work/$name/perf/ctf: $(cat "$name.out" "$name.err")"
}

case $case in
beside)
    record beside --cpu -- "$host" shares 2 1
    # Each LTTng command on the whole directory says what it says on DIR/ust alone, and exits 0.
    for cmd in summary activities counters status "stacks --folded" top; do
        # shellcheck disable=SC2086
        "$palev_trace" $cmd "$work/beside" > whole.out 2> whole.err
        rc=$?
        # shellcheck disable=SC2086
        "$palev_trace" $cmd -m "$man" "$work/beside/ust" > ust.out 2> ust.err
        [ $rc = $? ] || palev_fail "palev-trace $cmd: exit $rc on the directory, not as on ust/: $(cat whole.err)"
        sed "s|$work/beside/ust: |$work/beside: |g" ust.out | diff -u - whole.out ||
            palev_fail "palev-trace $cmd: not the same on the directory as on ust/"
        sed "s|$work/beside/ust: |$work/beside: |g" ust.err | diff -u - whole.err ||
            palev_fail "palev-trace $cmd: not the same messages on the directory as on ust/"
    done
    "$palev_trace" summary "$work/beside" > summary.out 2> summary.err ||
        palev_fail "palev-trace summary exited $?: $(cat summary.err)"
    grep -q ' PhaseStart  ' summary.out || palev_fail "summary: no PhaseStart: $(cat summary.out)"
    "$palev_trace" report -o report.html "$work/beside" 2> report.err ||
        palev_fail "palev-trace report exited $?: $(cat report.err)"
    "$palev_trace" export -o chrome.json "$work/beside" 2> export.err ||
        palev_fail "palev-trace export exited $?: $(cat export.err)"
    echo "every command reads the LTTng trace beside perf/ctf/"
    ;;
shares)
    # 20 rounds of 60 ms of CPU at 4 kHz: about 5000 samples, a share's standard error below 0.6
    # points; shares are compared among the six functions (the host measures nothing else), with
    # 2 points of tolerance.
    record shares --cpu=4000 -- "$host" shares 20 0.6
    cut() { "$palev_trace" cpu --top 1000 "$@" "$work/shares" 2> cut.err || palev_fail "palev-trace cpu $* exited $?: $(cat cut.err)"; }
    cut > all.txt
    cut --during Palev_Cpu:Phase > during.txt
    cut --outside Palev_Cpu:Phase > outside.txt
    cut --during Palev_Cpu:Phase --where Kind=1 > kind1.txt
    cut --during Palev_Cpu:Phase --where Outcome=8 > outcome8.txt
    cut --by thread > threads.txt
    cut --folded > folded.txt
    /usr/bin/python3 "$here/shares_check.py" shares.out all.txt during.txt outside.txt kind1.txt outcome8.txt \
        threads.txt folded.txt || palev_fail "the shares differ (palev-trace cpu's outputs in $work)"
    ;;
nosamples)
    # expect STATUS MESSAGE ARGS...: palev-trace ARGS exits STATUS, says MESSAGE (its first stderr
    # line) and prints nothing.
    expect() {
        local want=$1 msg=$2
        shift 2
        "$palev_trace" "$@" > got.out 2> got.err
        local rc=$?
        [ $rc = "$want" ] || palev_fail "palev-trace $*: exit $rc, not $want: $(cat got.err)"
        head -1 got.err | diff -u <(echo "$msg") - || palev_fail "palev-trace $*: not the message"
        [ ! -s got.out ] || palev_fail "palev-trace $*: printed $(cat got.out)"
    }
    "$collect" -m "$man" -o "$work/plain" -- "$host" shares 1 0.2 > plain.out 2> plain.err ||
        palev_fail "palev-collect exited $?: $(cat plain.err)"
    expect 1 "palev-trace: $work/plain: no CPU samples beside this trace (record them with palev-collect --cpu)" \
        cpu "$work/plain"
    expect 1 "palev-trace: $work/plain: no CPU samples beside this trace (record them with palev-collect --cpu)" \
        cpu --off-cpu --during Palev_Cpu:Phase "$work/plain"
    record cpu --cpu -- "$host" shares 2 0.5
    expect 1 "palev-trace: $work/cpu/perf/ctf: no sched:sched_switch samples: where threads block was not recorded (record it with palev-collect --off-cpu)" \
        cpu --off-cpu "$work/cpu"
    expect 1 "palev-trace cpu: no activity of task Palev_Cpu:Nope in the trace (its tasks: Palev_Cpu:Phase)" \
        cpu --during Palev_Cpu:Nope "$work/cpu"
    expect 1 "palev-trace: error: $work/cpu/perf/ctf: only perf's CPU samples here, no LTTng trace (give the directory palev-collect wrote, which holds both)" \
        cpu "$work/cpu/perf/ctf"
    expect 2 "palev-trace cpu: --during and --outside cut by one task: give one of them" \
        cpu --during Palev_Cpu:Phase --outside Palev_Cpu:Phase "$work/cpu"
    expect 2 'palev-trace cpu: --by takes "thread", not "process"' cpu --by process "$work/cpu"
    expect 2 "palev-trace cpu: --where filters the activities of --during or --outside TASK: give one" \
        cpu --where Kind=1 "$work/cpu"
    expect 2 'palev-trace cpu: --where takes FIELD=VALUE, not "Kind"' cpu --during Palev_Cpu:Phase --where Kind "$work/cpu"
    # --pid keeps one process's samples: the program's are all there is; another's, none.
    expect 1 "palev-trace: $work/cpu/perf/ctf: no CPU sample of process 1 (--pid)" cpu --pid 1 "$work/cpu"
    "$palev_trace" cpu "$work/cpu" > nopid.out 2>&1 && "$palev_trace" cpu --pid "$pid" "$work/cpu" > pid.out 2>&1 ||
        palev_fail "cpu --pid $pid failed: $(cat pid.out)"
    # (a sanitized build's LeakSanitizer forks a tracer at exit: a process of its own, left out)
    grep -q '^CPU samples: [0-9]* of 1 process,' pid.out || palev_fail "cpu --pid $pid: not one process: $(cat pid.out)"
    ! grep -q '^CPU samples: [0-9]* of 1 process,' nopid.out || diff -u nopid.out pid.out ||
        palev_fail "cpu --pid $pid is not the program's samples"
    # A --where no activity passes: nothing kept, said in the header, exit 0.
    "$palev_trace" cpu --during Palev_Cpu:Phase --where Kind=99 "$work/cpu" > none.out 2> none.err ||
        palev_fail "--where Kind=99: exit $?: $(cat none.err)"
    grep -qx 'kept: 0 samples (0.0%) taken while an activity of Palev_Cpu:Phase with Kind=99 was open in their process' none.out ||
        palev_fail "--where Kind=99: $(cat none.out)"
    echo "no samples, no switches, no such task, perf's samples alone, usage errors: said, exact"
    ;;
block)
    # Three rounds, each blocking the main thread 100 ms three ways inside a Phase.
    record block --off-cpu -- "$host" block 3 100
    if grep -q '^palev-collect: --off-cpu: ' block.err; then
        skip "sched:sched_switch may not be recorded here: $(cat block.err)"
    fi
    for cut in "" "--during Palev_Cpu:Phase" "--outside Palev_Cpu:Phase"; do
        # shellcheck disable=SC2086
        "$palev_trace" cpu --off-cpu --folded $cut "$work/block" > folded.txt 2> folded.err ||
            palev_fail "palev-trace cpu --off-cpu $cut exited $?: $(cat folded.err)"
        for way in sleep mutex pipe; do
            # blocked microseconds of the main thread's stacks through each way's case function
            got=$(awk -v f="main;${way}_case;" 'index($0, f) { s += $NF } END { print s + 0 }' folded.txt)
            want=$(awk -v w="wait_$way" '$1 == w { printf "%d", $2 * 1000 }' block.out)
            [ -n "$cut" ] && [ "${cut#--outside}" != "$cut" ] && want=0
            echo "${cut:-all}: ${way}_case blocked ${got} us, the host measured ${want} us"
            awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= 0.1 * w + 1000) }' ||
                palev_fail "${cut:-all}: ${way}_case blocked $got us, not within 10% of $want us"
        done
    done
    ;;
minivm)
    # The sample VM's built-in workload for 1 s: its collections and its JIT-compiled methods.
    record minivm --cpu=4000 -m "$here/../../manifest/runtime.man" -- "$minivm" -t 1000
    "$palev_trace" cpu --top 20 "$work/minivm" > all.txt 2> all.err || palev_fail "cpu exited $?: $(cat all.err)"
    "$palev_trace" cpu --top 1000 --during Palev_Runtime:GC "$work/minivm" > gc.txt 2> gc.err ||
        palev_fail "cpu --during exited $?: $(cat gc.err)"
    "$palev_trace" cpu --top 1000 --outside Palev_Runtime:GC "$work/minivm" > mutator.txt 2> mutator.err ||
        palev_fail "cpu --outside exited $?: $(cat mutator.err)"
    cat all.txt
    head -20 gc.txt
    # collector SELF%: the self share of the collector's functions and of the libc free() its
    # sweep calls (a sample inside libc, built without frame pointers, loses its callers)
    collector() {
        awk '/%/ && $NF ~ /^(heap_collect|mark|mark_.*|sweep|sweep_.*|free|_int_free|cfree.*|malloc_consolidate|unlink_chunk.*)$/ {
            s += $1 } END { printf "%.1f", s }' "$1"
    }
    gc=$(collector gc.txt) mutator=$(collector mutator.txt)
    echo "the collector's functions: ${gc}% of the CPU during collections, ${mutator}% outside them"
    if grep -q '__asan' all.txt gc.txt; then
        # A sanitized build: malloc and free are AddressSanitizer's, costly both in and out.
        echo "AddressSanitizer's allocator: the collector's share is not checked"
    else
        awk -v g="$gc" -v m="$mutator" 'BEGIN { exit !(g >= 75 && m <= 10) }' ||
            palev_fail "the collector has ${gc}% of the CPU during collections (want >= 75%) and ${mutator}% outside (want <= 10%)"
    fi
    awk '/%/ && $NF == "heap_collect" { exit !($4 + 0 >= 15) }' gc.txt ||
        palev_fail "heap_collect and its callees: under 15% of the CPU during collections"
    # JIT-compiled methods are named by the trace's CodeLoad events: one among the top functions
    # with 5% or more of the CPU, and no bare address there.
    awk '/%/ && $NF ~ /\[jit\]$/ && $4 + 0 >= 5 { found = 1 } END { exit !found }' all.txt ||
        palev_fail "no JIT-compiled method with 5% of the CPU among the top functions"
    ! grep -E '%  0x[0-9a-f]+$' all.txt || palev_fail "a bare address among the top functions"
    # Self and total of every function as the folded lines give them (JIT recursion: a total
    # counts a sample once however deep the function recurses in it).
    "$palev_trace" cpu --top 100000 "$work/minivm" > every.txt && "$palev_trace" cpu --folded "$work/minivm" > folded.txt ||
        palev_fail "cpu --top 100000 / --folded failed"
    /usr/bin/python3 "$here/totals_check.py" every.txt folded.txt || palev_fail "self and total differ from --folded's"
    ;;
report)
    # The HTML report's "Where the CPU went", as a person sees it in headless Chromium.
    . "$here/../trace/browser.sh"
    record report --cpu=4000 -- "$host" shares 10 0.6
    "$palev_trace" report -o report.html "$work/report" 2> report.err ||
        palev_fail "palev-trace report exited $?: $(cat report.err)"
    "$palev_trace" cpu --top 1000 "$work/report" > all.txt 2> all.err || palev_fail "cpu exited $?: $(cat all.err)"
    "$palev_trace" cpu --during Palev_Cpu:Phase "$work/report" > during.txt 2> during.err ||
        palev_fail "cpu --during exited $?: $(cat during.err)"
    # The flame graph alone, as the page draws it (self-contained SVG), then the whole page.
    /usr/bin/python3 - report.html flame.svg <<'PY' || palev_fail "no flame graph in the report"
import re, sys
page = open(sys.argv[1]).read()
m = re.search(r'<svg class="flame".*?</svg>', page, re.S)
open(sys.argv[2], "w").write(m.group(0).replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1))
PY
    pt_chromium "file://$work/flame.svg" flame.png flame.dom 1200,1000 || palev_fail "chromium failed on the flame graph"
    pt_not_blank flame.png || palev_fail "the flame graph is blank"
    pt_chromium "file://$work/report.html" report.png report.dom 1200,1600 || palev_fail "chromium failed on the report"
    pt_not_blank report.png || palev_fail "the report is blank"
    /usr/bin/python3 "$here/report_check.py" report.dom all.txt during.txt ||
        palev_fail "the report's CPU section differs from palev-trace cpu (in $work)"
    ;;
speedscope)
    # export --format speedscope: a sampled profile per thread, valid for speedscope, which loads it.
    . "$here/../trace/browser.sh"
    trap 'pt_unserve; palev_cleanup_sessions' EXIT
    record speedscope --cpu=4000 -- "$host" shares 5 0.6
    "$palev_trace" export --format speedscope -o cpu.json "$work/speedscope" 2> export.err ||
        palev_fail "export --format speedscope exited $?: $(cat export.err)"
    "$palev_trace" cpu --by thread "$work/speedscope" > threads.txt 2> threads.err ||
        palev_fail "cpu --by thread exited $?: $(cat threads.err)"
    node=$work/../node
    if [ ! -f "$node/node_modules/speedscope/dist/release/index.html" ]; then
        mkdir -p "$node" && (cd "$node" && npm install --no-audit --no-fund --silent speedscope@1.25.0) ||
            palev_fail "npm install speedscope@1.25.0 failed"
    fi
    release=$node/node_modules/speedscope/dist/release
    /usr/bin/python3 "$here/speedscope_check.py" cpu.json "$release/file-format-schema.json" threads.txt ||
        palev_fail "the speedscope export differs from palev-trace cpu --by thread (in $work)"
    cp -r "$release" site && cp cpu.json site/ || palev_fail "cannot copy speedscope"
    pt_serve site http.log || palev_fail "no HTTP server"
    pt_chromium "http://127.0.0.1:$PT_HTTP_PORT/index.html#profileURL=/cpu.json" speedscope.png speedscope.html ||
        palev_fail "chromium failed"
    pt_not_blank speedscope.png > /dev/null || palev_fail "blank screenshot"
    ! grep -q "Something went wrong\|Unrecognized format" speedscope.html || palev_fail "speedscope could not import the export"
    grep -qF "<title>$work/speedscope - speedscope</title>" speedscope.html || palev_fail "speedscope did not load the export"
    grep -q 'CPU cpu_host-[0-9]* <span[^>]*>(1/[0-9]*)</span>' speedscope.html ||
        palev_fail "speedscope does not show the main thread's CPU profile first"
    ;;
valgrind)
    # palev-trace's CPU paths under valgrind (PALEV_VALGRIND): no invalid access, no use of
    # uninitialised memory, nothing definitely lost, and the same answers as without it.
    vg=${PALEV_VALGRIND:-valgrind}
    record vg --off-cpu -- "$host" shares 3 0.5
    status=0
    for args in "cpu" "cpu --during Palev_Cpu:Phase --where Outcome=8" "cpu --outside Palev_Cpu:Phase --by thread --folded" \
                "cpu --off-cpu --by thread" "report -o FILE" "export --format speedscope -o FILE"; do
        name=$(echo "$args" | tr -c 'a-zA-Z0-9\n' _)
        # shellcheck disable=SC2086
        set -- ${args//FILE/$work/$name.plain}
        "$palev_trace" "$@" "$work/vg" > "$name.plain.out" 2> "$name.plain.err"
        rc=$?
        # shellcheck disable=SC2086
        set -- ${args//FILE/$work/$name.vg}
        "$vg" --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --quiet \
            "$palev_trace" "$@" "$work/vg" > "$name.vg.out" 2> "$name.vg.err"
        vrc=$?
        if [ $vrc = 99 ] || [ $vrc != $rc ] || [ $rc != 0 ]; then
            echo "FAIL: palev-trace $args exited $rc, under valgrind $vrc: $(head -20 "$name.vg.err")"
            status=1
        elif ! cmp -s "$name.plain.out" "$name.vg.out" || { [ -e "$name.plain" ] && ! cmp -s "$name.plain" "$name.vg"; }; then
            echo "FAIL: palev-trace $args answers otherwise under valgrind"
            status=1
        else
            echo "ok: palev-trace $args (the same output)"
        fi
    done
    [ $status = 0 ] || palev_fail "valgrind found errors (in $work)"
    ;;
*)
    palev_fail "unknown case $case"
    ;;
esac
exit 0
