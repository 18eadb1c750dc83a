#!/bin/bash
# SPDX-License-Identifier: MIT
# palev-collect (the build tree's bin/palev-collect, and samples/collect.sh around it) as a user
# runs it, on minivm:
#   gc         --keywords gc records GC events (and the keyword-less runtime ones), no JIT
#              events; the manifest is kept in the trace; ProviderStatus says loaded; no warning
#   filter     --eventsource-filter reaches the program: only that EventSource is recorded
#   live       --live streams through an lttng-relayd on loopback; the relayd it started is gone
#   noprovider minivm without its probe provider: the reason and the hint on stderr, the
#              ProviderStatus event in the trace, the exit status still the program's; with
#              --strict, 3 instead of the program's 0 (a clean run still 0); without palev-trace
#              beside palev-collect, the check said skipped
#   dirs       -o DIR holding a trace (palev-collect's or plain lttng's) or anything else: exit 2,
#              nothing touched; --replace replaces a trace only; an empty DIR is used; two runs
#              started in the same second without -o get two directories
#   signals    the program gets palev-collect's stdin (a pipe) and signal dispositions; Ctrl-C
#              on a real terminal (a pty) stops the program, and the trace is complete and
#              readable with its manifest, exit 130; SIGTERM sent to palev-collect alone (a
#              script stopping its background job) is passed on to the program, exit 143
#   follow     only the program's tree is recorded: another minivm of the same user, running
#              through the run, is not; minivms a script starts (fork and exec) are, from their
#              first event; a child forked without exec (fault_host --fork) is, every event; a
#              child outliving the program runs on; --all-processes records the other minivm
#   rename     a host built with its provider renamed (mem_host: Palev-Bench=Palev_Mem) records
#              its events through --provider-name, kept in palev-manifests/provider-names;
#              without it nothing is recorded and the check says so; renames apply per manifest
#   cpu        --cpu (--off-cpu as root): perf.data recorded on CLOCK_MONOTONIC, its CTF conversion
#              read with bt2 (cpu_check.py): samples of the program's threads only (not of another
#              minivm running meanwhile), with call stacks, inside the program's LTTng events; JIT
#              code named through the jitdump (perf inject --jit)
#   noperf     perf missing (PATH without it), failing (a perf that exits 255) and refused (as
#              nobody: --off-cpu's sched:sched_switch): the exact line, the LTTng trace recorded,
#              the program's exit status (3 under --strict)
#   valgrind   palev-collect itself under valgrind memcheck (VALGRIND in the environment): no error,
#              no leak; valgrind has no seccomp, so this is also the run where the program's
#              children cannot be followed: the warning, and the program's own events recorded
#   errors     unknown keywords, missing tools and bad usage exit 2 with a message; a program
#              that does not exist or cannot run exits 127 or 126 before any session or
#              directory exists, with one line saying so
# usage: sample_collect.sh MODE COLLECT_SH PALEV_GEN MINIVM WORKDIR
set -u
mode=$1 collect=$2 gen=$3 minivm=$4 work=$5
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
rm -rf "$work" && mkdir -p "$work" || palev_fail "cannot create $work"
cd "$work" || exit 1
export PALEV_GEN=$gen
unset PALEV_LTTNG PALEV_EVENTSOURCE_FILTER PALEV_EVENTNAME_FILTER PALEV_DEBUG PALEV_PROVIDER_PATH
build=$(cd "$(dirname "$gen")/.." && pwd)
pcollect=$build/bin/palev-collect
manifest=$(cd "$here/../.." && pwd)/manifest/runtime.man

# The pid palev-collect reports for the command, and the events of that pid, by name.
command_pid() {
    sed -n 's/^palev-collect: .* runs as pid \([0-9]*\)$/\1/p' "$1"
}
# The Paleventing:ProviderStatus events of a pid, read with bt2: "provider loaded reason" lines.
provider_status() {
    /usr/bin/python3 - "$1" "$2" <<'PY'
import sys, bt2
for m in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(m) is bt2._EventMessageConst and m.event.name == "Paleventing:ProviderStatus" \
            and int(m.event.common_context_field["vpid"]) == int(sys.argv[2]):
        p = m.event.payload_field
        print(str(p["provider"]), int(p["loaded"]), str(p["reason"]))
PY
}
event_names() {
    babeltrace2 "$1" | grep -F "vpid = $2," | awk '{ sub(/:$/, "", $4); print $4 }' | sort | uniq -c
}

# A directory's files and their checksums, to see that nothing in it changed.
fingerprint() {
    (cd "$1" && find . -type f -print0 | sort -z | xargs -0 md5sum)
}
# quiet.masm: a collection and 100 ms of sleep, forever: another process recording events, lightly.
quiet() {
    printf '.method Quiet.main()\nloop:\n    call std.gc\n    pop\n    push 100\n    call std.sleep\n    pop\n    jmp loop\n.end\n' > quiet.masm
}
# The vpids of a trace's events, sorted, one per line.
trace_pids() {
    babeltrace2 "$1" | grep -o 'vpid = [0-9]*' | sort -u | sed 's/vpid = //'
}

# expect_exit CODE PATTERN ARGS... : collect.sh ARGS exits CODE and says PATTERN on stderr.
expect_exit() {
    local code=$1 pattern=$2 rc
    shift 2
    "$@" > err.out 2>&1
    rc=$?
    [ $rc = "$code" ] || palev_fail "$* exited $rc, want $code: $(cat err.out)"
    grep -q -e "$pattern" err.out || palev_fail "$* did not say \"$pattern\": $(cat err.out)"
}

case $mode in
gc)
    palev_require_sessiond
    "$collect" --keywords gc -o "$work/trace" -- "$minivm" -t 800 > collect.out 2> collect.err ||
        palev_fail "collect.sh exited $?: $(cat collect.out collect.err)"
    [ ! -s collect.err ] || palev_fail "collect.sh warned: $(cat collect.err)"
    cmp "$manifest" "$work/trace/palev-manifests/runtime.man" ||
        palev_fail "the manifest is not in $work/trace/palev-manifests/runtime.man"
    pid=$(command_pid collect.out)
    event_names "$work/trace" "$pid" > names.txt
    cat names.txt
    for e in GCStart GCEnd GCHeapStats GCGenerationTable GCAllocationTick RuntimeStart; do
        grep -q " Palev_Runtime:$e$" names.txt || palev_fail "no $e event recorded"
    done
    ! grep -E " Palev_Runtime:(Method|Exception|Thread|Module)" names.txt ||
        palev_fail "events outside the GC keyword were recorded"
    grep -q "trace in $work/trace" collect.out || palev_fail "collect.sh did not say where the trace is"
    provider_status "$work/trace" "$pid" > status.txt
    cat status.txt
    grep -q "^Paleventing 1 from /" status.txt || palev_fail "no ProviderStatus: Paleventing loaded"
    grep -q "^Palev_Runtime 1 from $(dirname "$minivm")/libPalev_Runtime-lttng.so$" status.txt ||
        palev_fail "no ProviderStatus: Palev_Runtime loaded beside minivm"
    babeltrace2 "$work/trace" | grep -F "vpid = $pid," | grep -q ' lttng_ust_statedump:bin_info: ' ||
        palev_fail "no lttng_ust_statedump:bin_info of minivm"
    babeltrace2 "$work/trace" | grep -q -E '\{ vpid = '"$pid"', vtid = [0-9]+, procname = "minivm" \}' ||
        palev_fail "events lack the vpid, vtid and procname contexts"
    # Two manifests: a keyword one of them does not know selects its keyword-less events, and
    # events both list (Paleventing's own) are enabled once.
    "$pcollect" -m "$manifest" -m "$(dirname "$manifest")/eventsource.man" --keywords gc --no-check \
        -o "$work/two" -- true > two.out 2>&1 || palev_fail "two manifests: exit $?: $(cat two.out)"
    grep -q -x 'palev-collect: session palev-collect-[0-9]* records 11 events of Palev_Runtime Paleventing and paleventing.s own' two.out ||
        palev_fail "two manifests: not the 9 GC and keyword-less events and Paleventing's 2: $(cat two.out)"
    ;;
noprovider)
    palev_require_sessiond
    mkdir alone && cp "$minivm" alone/ || palev_fail "cannot copy minivm"
    printf '.method Exit.main()\n    push 7\n    ret\n.end\n' > exit7.masm
    "$pcollect" -m "$manifest" -o "$work/trace" -- "$work/alone/minivm" exit7.masm > collect.out 2> collect.err
    rc=$?
    [ $rc = 7 ] || palev_fail "palev-collect exited $rc, want the program's 7: $(cat collect.out collect.err)"
    pid=$(command_pid collect.out)
    lib=$(dirname "$(ldd "$minivm" | sed -n 's/.*libpaleventing.so.0 => \([^ ]*\) .*/\1/p')")
    reason="no loadable libPalev_Runtime-lttng.so; tried $work/alone/libPalev_Runtime-lttng.so (No such file or directory); $lib/libPalev_Runtime-lttng.so (No such file or directory); the default search path (cannot open shared object file: No such file or directory)"
    cat > want.err <<EOF
palev-collect: provider Palev_Runtime was not loaded in minivm (pid $pid): $reason
palev-collect: minivm recorded no event of Palev_Runtime
palev-collect: install libPalev_Runtime-lttng.so beside the program, or name its directory in PALEV_PROVIDER_PATH
palev-collect: with PALEV_DEBUG=1 in its environment, the program says on stderr what paleventing loaded, from where, and why not
EOF
    diff -u want.err collect.err || palev_fail "palev-collect did not say why nothing was recorded"
    cp want.err want-missing.err
    provider_status "$work/trace" "$pid" > status.txt
    cat status.txt
    grep -q -x -F "Palev_Runtime 0 $reason" status.txt ||
        palev_fail "the trace has no ProviderStatus of Palev_Runtime, not loaded, with the reason"
    grep -q "^Paleventing 1 from $lib/libPaleventing-lttng.so$" status.txt ||
        palev_fail "the trace has no ProviderStatus of Paleventing, loaded"
    echo "missing provider reported with its reason; exit status 7 kept"
    # --strict: the same run ending 0 fails with 3; a clean run does not.
    printf '.method Exit.main()\n    push 0\n    ret\n.end\n' > exit0.masm
    for strict in "" --strict; do
        "$pcollect" -m "$manifest" $strict -o "$work/strict$strict" -- "$work/alone/minivm" exit0.masm \
            > strict.out 2> strict.err
        rc=$?
        pid=$(command_pid strict.out)
        sed "s/(pid [0-9]*)/(pid $pid)/" want-missing.err > want.err
        if [ -n "$strict" ]; then
            want=3
            echo "palev-collect: --strict: exit status 3 for what the check found ($work/alone/minivm exited 0)" >> want.err
        else
            want=0
        fi
        [ $rc = $want ] || palev_fail "provider missing, program exiting 0${strict:+, $strict}: exit $rc, want $want"
        diff -u want.err strict.err || palev_fail "${strict:-without --strict}: not the check's lines"
    done
    "$pcollect" -m "$manifest" --strict -o "$work/strict-clean" -- "$minivm" exit0.masm > clean.out 2> clean.err ||
        palev_fail "--strict, a clean run: exit $?: $(cat clean.err)"
    [ ! -s clean.err ] || palev_fail "--strict, a clean run: $(cat clean.err)"
    echo "--strict: 3 for the missing provider of a run ending 0; a clean run 0"
    # The check is palev-trace status's: a palev-collect without palev-trace beside it says the
    # check was skipped (a failure under --strict).
    mkdir lone && cp "$pcollect" lone/ || palev_fail "cannot copy palev-collect"
    for strict in "" --strict; do
        "$work/lone/palev-collect" -m "$manifest" $strict -o "$work/lone.trace$strict" -- "$minivm" exit0.masm \
            > lone.out 2> lone.err
        rc=$?
        echo "palev-collect: palev-trace is not installed beside palev-collect ($work/lone): the trace was not checked" > want.err
        [ -z "$strict" ] || echo "palev-collect: --strict: exit status 3 for what the check found ($minivm exited 0)" >> want.err
        want=0
        [ -z "$strict" ] || want=3
        diff -u want.err lone.err && [ $rc = $want ] ||
            palev_fail "without palev-trace${strict:+, $strict}: exit $rc"
    done
    echo "without palev-trace beside it: the check said skipped; --strict 3"
    # A program that does not use paleventing: no process registered, lttng wrote no trace.
    "$pcollect" -m "$manifest" -o "$work/true.trace" -- true > true.out 2> true.err ||
        palev_fail "true: palev-collect exited $?: $(cat true.err)"
    cat > want.err <<EOF
palev-collect: true recorded no event of Palev_Runtime, and no Paleventing:ProviderStatus: it does not use paleventing, or libpaleventing could not load its own libPaleventing-lttng.so either
palev-collect: with PALEV_DEBUG=1 in its environment, the program says on stderr what paleventing loaded, from where, and why not
EOF
    diff -u want.err true.err || palev_fail "true: not the check's two lines"
    echo "a program without paleventing: said so"
    # libpaleventing copied without its own probe provider: the program's events are recorded,
    # ProviderStatus cannot be, and palev-collect says why.
    mkdir lonely lonelylib && cp "$minivm" "$(dirname "$minivm")/libPalev_Runtime-lttng.so" lonely/ &&
        cp -L "$lib/libpaleventing.so.0" lonelylib/ || palev_fail "cannot copy minivm and libpaleventing"
    LD_LIBRARY_PATH=$work/lonelylib "$pcollect" -m "$manifest" --keywords Loader -o "$work/lonely.trace" \
        -- "$work/lonely/minivm" exit7.masm > lonely.out 2> lonely.err
    rc=$?
    [ $rc = 7 ] || palev_fail "palev-collect exited $rc, want 7: $(cat lonely.out lonely.err)"
    pid=$(command_pid lonely.out)
    cat > want.err <<EOF
palev-collect: minivm (pid $pid) recorded events but no Paleventing:ProviderStatus: libpaleventing could not load its own libPaleventing-lttng.so, which belongs beside libpaleventing.so
palev-collect: with PALEV_DEBUG=1 in its environment, the program says on stderr what paleventing loaded, from where, and why not
EOF
    diff -u want.err lonely.err || palev_fail "palev-collect did not say libPaleventing-lttng.so was missing"
    babeltrace2 "$work/lonely.trace" | grep -F "vpid = $pid," | grep -q ' Palev_Runtime:ModuleLoad: ' ||
        palev_fail "minivm's events were not recorded without libPaleventing-lttng.so"
    echo "libpaleventing without its own probe provider: said so; the program's events recorded"
    ;;
filter)
    palev_require_sessiond
    "$collect" --keywords 0x10 --eventsource-filter minivm-counters -o "$work/trace" -- "$minivm" -t 600 \
        > collect.out 2>&1 || palev_fail "collect.sh exited $?: $(cat collect.out)"
    pid=$(command_pid collect.out)
    babeltrace2 "$work/trace" | grep -F "vpid = $pid," | grep -o 'EventSourceName = "[^"]*"' |
        sort | uniq -c > sources.txt
    cat sources.txt
    grep -q '"MiniVM-Counters"' sources.txt || palev_fail "no MiniVM-Counters event recorded"
    ! grep -q '"MiniVM-App"' sources.txt || palev_fail "MiniVM-App events passed the filter"
    ;;
live)
    palev_require_sessiond
    command -v lttng-relayd >/dev/null || palev_fail "lttng-relayd is not installed"
    # Ports of its own: another collector's relayd on lttng's default ports is not this test's.
    timeout 60 "$collect" --live --relayd-ports 45342,45343,45344 --keywords GC,Loader \
        -o "$work/relay" -- "$minivm" -t 800 \
        > collect.out 2>&1 || palev_fail "collect.sh --live exited $?: $(tail -5 collect.out)"
    pid=$(command_pid collect.out)
    n=$(grep -c -F "vpid = $pid," collect.out)
    grep -F "vpid = $pid," collect.out | grep -q " Palev_Runtime:ModuleLoad: " ||
        palev_fail "the live viewer printed no ModuleLoad of minivm ($n events of pid $pid, $(grep -c "vpid = " collect.out) in all)"
    [ "$(grep -F "vpid = $pid," collect.out | grep -c " Palev_Runtime:GCEnd: ")" -gt 0 ] ||
        palev_fail "the live viewer printed no GCEnd of minivm"
    relayd=$(sed -n 's/^palev-collect: started lttng-relayd (pid \([0-9]*\)).*/\1/p' collect.out)
    if [ -n "$relayd" ]; then
        ! kill -0 "$relayd" 2>/dev/null || palev_fail "the relayd collect.sh started ($relayd) still runs"
        echo "relayd $relayd started and stopped by collect.sh"
    fi
    echo "$n events of minivm received live"
    ;;
dirs)
    palev_require_sessiond
    printf '.method Exit.main()\n    push 0\n    ret\n.end\n' > exit0.masm
    run() {  # run NAME ARGS...: palev-collect ARGS -- minivm exit0.masm, output in NAME.out/.err
        local name=$1
        shift
        "$pcollect" -m "$manifest" --no-check "$@" -- "$minivm" exit0.masm > "$name.out" 2> "$name.err"
    }
    run first -o "$work/trace" || palev_fail "first run exited $?: $(cat first.err)"
    first=$(command_pid first.out)
    fingerprint trace > before.txt
    # Into an existing palev-collect trace: refused, not a file changed.
    run again -o "$work/trace"
    rc=$?
    [ $rc = 2 ] || palev_fail "-o on a trace: exit $rc, want 2: $(cat again.out again.err)"
    echo "palev-collect: $work/trace already holds a trace: not touched; give another -o DIR, or --replace to replace that trace" |
        diff -u - again.err || palev_fail "-o on a trace: not the one line saying why"
    [ ! -s again.out ] || palev_fail "-o on a trace: a session was set up: $(cat again.out)"
    fingerprint trace | diff -u before.txt - || palev_fail "-o on a trace: the trace changed"
    # Into a plain lttng trace: refused the same way.
    session=palev-dirs-$$
    palev_session_start "$session" "$work/plain" "Palev_Runtime:*"
    "$minivm" exit0.masm || palev_fail "minivm exit0.masm exited $?"
    palev_session_stop "$session"
    fingerprint plain > plain-before.txt
    run plain -o "$work/plain"
    rc=$?
    [ $rc = 2 ] && grep -q -F "$work/plain already holds a trace: not touched" plain.err ||
        palev_fail "-o on an lttng trace: exit $rc: $(cat plain.err)"
    fingerprint plain | diff -u plain-before.txt - || palev_fail "-o on an lttng trace: it changed"
    # Anything else in the directory: refused, with or without --replace, the file kept.
    mkdir other && echo "my notes" > other/notes.txt
    for r in "" --replace; do
        run other -o "$work/other" $r
        rc=$?
        [ $rc = 2 ] || palev_fail "-o on a directory with notes.txt $r: exit $rc, want 2"
        grep -q -F "$work/other/notes.txt" other.err || palev_fail "$r: the message does not name notes.txt: $(cat other.err)"
    done
    [ "$(cat other/notes.txt)" = "my notes" ] && [ "$(ls other)" = notes.txt ] || palev_fail "other/ changed"
    cp -r trace mixed && echo "my notes" > mixed/ust/notes.txt
    fingerprint mixed > mixed-before.txt
    run mixed -o "$work/mixed" --replace
    rc=$?
    echo "palev-collect: $work/mixed holds more than a trace ($work/mixed/ust/notes.txt): not replaced" |
        diff -u - mixed.err && [ $rc = 2 ] || palev_fail "--replace on a trace with notes.txt: exit $rc"
    fingerprint mixed | diff -u mixed-before.txt - || palev_fail "--replace on a trace with notes.txt: it changed"
    # --replace on a trace: the new run only, its manifest once.
    run replace -o "$work/trace" --replace || palev_fail "--replace exited $?: $(cat replace.err)"
    grep -q -x "palev-collect: replacing the trace in $work/trace" replace.out || palev_fail "--replace said nothing"
    second=$(command_pid replace.out)
    trace_pids trace > pids.txt
    grep -q -x "$second" pids.txt || palev_fail "--replace: the new run's pid $second is not in the trace"
    ! grep -q -x "$first" pids.txt || palev_fail "--replace: the old run's pid $first is still in the trace"
    [ "$(ls trace/palev-manifests)" = runtime.man ] || palev_fail "--replace: palev-manifests holds $(ls trace/palev-manifests)"
    # An empty directory is used.
    mkdir empty && run empty -o "$work/empty" || palev_fail "-o on an empty directory exited $?: $(cat empty.err)"
    grep -q -x "$(command_pid empty.out)" <(trace_pids empty) || palev_fail "-o on an empty directory: nothing recorded"
    echo "-o: a trace or other files never touched; --replace replaces a trace only; an empty directory used"
    # Two runs started in the same second without -o: two directories, each with its program.
    for attempt in 1 2 3; do
        rm -rf same && mkdir same && cd same || exit 1
        "$pcollect" -m "$manifest" --no-check -- "$minivm" exit0.masm > a.out 2>&1 &
        a=$!
        "$pcollect" -m "$manifest" --no-check -- "$minivm" exit0.masm > b.out 2>&1
        wait $a
        cd .. || exit 1
        da=$(sed -n 's/^palev-collect: trace in //p' same/a.out)
        db=$(sed -n 's/^palev-collect: trace in //p' same/b.out)
        [ "${da%-2}" = "${db%-2}" ] && break   # else the runs straddled a second: again
    done
    [ -n "$da" ] && [ -n "$db" ] && [ "$da" != "$db" ] ||
        palev_fail "two runs in the same second: directories \"$da\" and \"$db\": $(cat same/a.out same/b.out)"
    [ "$(ls same | grep -c '^palev-trace-')" = 2 ] || palev_fail "not two trace directories: $(ls same)"
    for x in a b; do
        d=$(sed -n 's/^palev-collect: trace in //p' same/$x.out)
        grep -q -x "$(command_pid same/$x.out)" <(trace_pids "$d") || palev_fail "run $x: its program is not in $d"
    done
    echo "two runs in the same second: $(basename "$da") and $(basename "$db")"
    ;;
follow)
    palev_require_sessiond
    printf '.method Exit.main()\n    push 0\n    ret\n.end\n' > exit0.masm
    # events_of TRACE PID: "provider:event" names of that pid's events, one per line (with repeats)
    events_of() {
        babeltrace2 "$1" | grep -F "vpid = $2," | awk '{ sub(/:$/, "", $4); print $4 }'
    }
    # Another minivm of the same user, recording all along (stopped at the end): palev-collect
    # must not record it, unless --all-processes.
    quiet
    "$minivm" quiet.masm > other.out 2>&1 &
    other=$!
    trap 'kill $other 2> /dev/null; palev_cleanup_sessions' EXIT
    printf '#!/bin/sh\n"%s" "%s"\n"%s" "%s" &\nwait\n' "$minivm" "$work/exit0.masm" "$minivm" "$work/exit0.masm" > kids.sh
    chmod +x kids.sh
    sleep 0.5
    "$pcollect" -m "$manifest" -o "$work/kids" -- ./kids.sh > kids.out 2> kids.err ||
        palev_fail "kids.sh: exit $?: $(cat kids.out kids.err)"
    [ ! -s kids.err ] || palev_fail "kids.sh: palev-collect warned: $(cat kids.err)"
    # vpid and the program's name (procname: minivm, or minivm-ust for liblttng-ust's threads)
    babeltrace2 "$work/kids" | sed -n 's/.*{ vpid = \([0-9]*\), vtid = [0-9]*, procname = "\([^"]*\)".*/\1 \2/p' |
        sed 's/-ust$//' | sort -u > kids.pids
    cat kids.pids
    kill -0 "$other" || palev_fail "the other minivm ended early: $(cat other.out)"
    ! grep -q "^$other " kids.pids || palev_fail "the other minivm (pid $other) was recorded"
    [ "$(grep -c ' minivm$' kids.pids)" = 2 ] && [ "$(wc -l < kids.pids)" = 2 ] ||
        palev_fail "not kids.sh's two minivms and nothing else: $(cat kids.pids)"
    while read -r pid _; do
        events_of "$work/kids" "$pid" | grep -v '^lttng_ust_statedump:' | head -3 > first.txt
        printf '%s\n' Paleventing:ProviderStatus Paleventing:ProviderStatus Palev_Runtime:RuntimeStart |
            diff -u - first.txt || palev_fail "minivm $pid: not its first events"
    done < kids.pids
    echo "kids.sh's two minivms recorded from their first event; the other minivm ($other) not"
    # A child forked without exec: every Tick it fired is in the trace, as is every one of its parent.
    faults=$build/tests/faults/fault_host
    "$pcollect" -m "$here/../faults/faults.man" -o "$work/fork" -- "$faults" --fork --seconds 1 \
        --threads 1 --pace-us 500 > fork.out 2> fork.err || palev_fail "fault_host --fork: exit $?: $(cat fork.out fork.err)"
    for who in host child; do
        pid=$(sed -n "s/^$who \([0-9]*\) firing$/\1/p" fork.out)
        fired=$(sed -n "s/^$who thread [0-9]* fired \([0-9]*\)$/\1/p" fork.out)
        got=$(events_of "$work/fork" "$pid" | grep -c '^Palev_Faults:Tick$')
        [ -n "$pid" ] && [ "$got" = "$fired" ] || palev_fail "fault_host $who (pid $pid) fired $fired Ticks, the trace holds $got"
        echo "fault_host $who (pid $pid): $got Ticks recorded of $fired fired"
    done
    # A child outliving the program: palev-collect says so; the child runs on to its end.
    "$pcollect" -m "$manifest" --no-check -o "$work/orphan" -- sh -c "\"$minivm\" -t 3000 > $work/orphan.vm 2>&1 & exit 0" \
        > orphan.out 2>&1 || palev_fail "the orphan's parent: exit $?: $(cat orphan.out)"
    grep -q -x 'palev-collect: processes sh started still run: what they record from now on is not in the trace' orphan.out ||
        palev_fail "palev-collect did not say the orphan runs on: $(cat orphan.out)"
    for _ in $(seq 100); do
        grep -q '^workload: ' orphan.vm && break
        sleep 0.1
    done
    grep -q '^workload: [0-9]* rounds, checksum [0-9]*$' orphan.vm ||
        palev_fail "the orphan minivm did not finish: $(cat orphan.vm)"
    echo "a child outliving the program ran to its end: $(cat orphan.vm)"
    # --all-processes: every process of the user, the other minivm included.
    kill -0 "$other" || palev_fail "the other minivm ended early: $(cat other.out)"
    "$pcollect" -m "$manifest" --no-check --all-processes -o "$work/all" -- "$minivm" exit0.masm > all.out 2>&1 ||
        palev_fail "--all-processes: exit $?: $(cat all.out)"
    [ -n "$(events_of "$work/all" "$other")" ] || palev_fail "--all-processes: the other minivm ($other) was not recorded"
    echo "--all-processes: the other minivm recorded too"
    ;;
cpu)
    palev_require_sessiond
    palev_require_bt2
    command -v perf > /dev/null || palev_fail "perf is not installed (Debian: linux-perf)"
    opt=--off-cpu
    if [ "$(id -u)" != 0 ]; then
        [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 2 ] || { echo "skipped: perf is not permitted to this user"; exit 77; }
        opt=--cpu
        echo "not root: --cpu only (--off-cpu needs root)"
    fi
    quiet
    "$minivm" quiet.masm > other.out 2>&1 &
    other=$!
    trap 'kill $other 2> /dev/null; palev_cleanup_sessions' EXIT
    "$pcollect" -m "$manifest" --strict $opt -o "$work/cpu" -- "$minivm" -t 600 > cpu.out 2> cpu.err ||
        palev_fail "$opt: exit $?: $(cat cpu.out cpu.err)"
    kill -0 "$other" || palev_fail "the other minivm ended early: $(cat other.out)"
    [ ! -s cpu.err ] || palev_fail "$opt: palev-collect said: $(cat cpu.err)"
    pid=$(command_pid cpu.out)
    perf report --header-only -i "$work/cpu/perf/perf.data" 2> /dev/null | grep -q -x '# clockid: monotonic (1)' ||
        palev_fail "perf.data was not recorded on CLOCK_MONOTONIC"
    /usr/bin/python3 "$here/cpu_check.py" "$work/cpu/ust" "$work/cpu/perf/ctf" "$pid" cpu-clock ||
        palev_fail "the CPU samples are not the program's"
    [ $opt = --cpu ] || /usr/bin/python3 "$here/cpu_check.py" "$work/cpu/ust" "$work/cpu/perf/ctf" "$pid" sched:sched_switch ||
        palev_fail "the off-CPU samples are not the program's"
    ! babeltrace2 "$work/cpu/perf/ctf" | grep -q "perf_pid = $other," || palev_fail "samples of the other minivm ($other)"
    grep -q -x "palev-collect: read it with: babeltrace2 $work/cpu/ust, and the CPU samples with: babeltrace2 $work/cpu/perf/ctf" cpu.out ||
        palev_fail "palev-collect did not say where the samples are: $(cat cpu.out)"
    # PALEV_PERFMAP=3: minivm's jitdump beside perf.data, injected: perf report names its JIT code.
    [ -f "$work/cpu/perf/jit-$pid.dump" ] || palev_fail "no jit-$pid.dump in $work/cpu/perf"
    perf report -i "$work/cpu/perf/perf.jit.data" --stdio --sort dso 2> /dev/null | grep -q " jitted-$pid-[0-9]*\.so" ||
        palev_fail "perf report -i perf.jit.data names no jitted code"
    echo "$opt: the program's samples only, on CLOCK_MONOTONIC, JIT code named"
    ;;
noperf)
    palev_require_sessiond
    printf '.method Exit.main()\n    push 0\n    ret\n.end\n' > exit0.masm
    # check_run RC NAME WANT [TRACE]: the run's exit status RC is WANT, its stderr NAME.err is
    # NAME.want, its LTTng trace (TRACE, default $work/NAME) holds the program's RuntimeStart
    check_run() {
        local rc=$1 name=$2 want=$3 trace=${4:-$work/$2}
        [ "$rc" = "$want" ] || palev_fail "$name: exit $rc, want $want: $(cat "$name.out" "$name.err")"
        diff -u "$name.want" "$name.err" || palev_fail "$name: not the line saying why"
        pid=$(command_pid "$name.out")
        babeltrace2 "$trace/ust" 2> /dev/null | grep -F "vpid = $pid," | grep -q ' Palev_Runtime:RuntimeStart: ' ||
            palev_fail "$name: the LTTng trace was not recorded"
    }
    # perf missing: a PATH with lttng alone.
    mkdir bin && ln -s "$(command -v lttng)" bin/lttng || palev_fail "cannot make bin/"
    for strict in "" --strict; do
        PATH=$work/bin "$pcollect" -m "$manifest" --cpu $strict -o "$work/absent$strict" -- "$minivm" exit0.masm \
            > "absent$strict.out" 2> "absent$strict.err"
        rc=$?
        echo "palev-collect: --cpu: perf is not installed (Debian: apt-get install linux-perf): no CPU samples; the LTTng trace is still recorded" \
            > "absent$strict.want"
        [ -z "$strict" ] || echo "palev-collect: --strict: exit status 3 for what the check found ($minivm exited 0)" >> "absent$strict.want"
        want=0
        [ -z "$strict" ] || want=3
        check_run $rc "absent$strict" $want
    done
    echo "perf missing: said, the LTTng trace recorded, exit 0 (3 under --strict)"
    # perf failing: a perf that exits 255.
    mkdir fake && printf '#!/bin/sh\necho "perf: cannot do that here" >&2\nexit 255\n' > fake/perf && chmod +x fake/perf
    PATH=$work/fake:$PATH "$pcollect" -m "$manifest" --cpu -o "$work/failing" -- "$minivm" exit0.masm > failing.out 2> failing.err
    rc=$?
    echo "palev-collect: --cpu: perf record exited 255 (see $work/failing/perf/perf.log): no CPU samples; the LTTng trace is still recorded" > failing.want
    check_run $rc failing 0
    grep -q -x 'perf: cannot do that here' "$work/failing/perf/perf.log" || palev_fail "perf's words are not in perf.log"
    echo "perf failing: said, its words in perf.log, the LTTng trace recorded"
    # perf refused: --off-cpu as nobody (a session daemon of nobody's own, stopped at the end).
    if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null; then
        echo "not root: the refusal as nobody not tried"
        exit 0
    fi
    # nobody's HOME holds the session daemon's sockets, whose paths must stay under 108 bytes
    # (sockaddr_un): a short directory of its own, not one below a checkout of any depth.
    nobody_home=$(mktemp -d /tmp/palev-nobody.XXXXXX) && chmod 777 "$nobody_home" &&
        mkdir -p nobody && chmod 777 nobody || palev_fail "cannot make nobody's directories"
    as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$nobody_home" "$@"; }
    as_nobody lttng-sessiond --daemonize --no-kernel || palev_fail "cannot start a session daemon as nobody"
    nobody_sessiond=$(cat "$nobody_home/.lttng/lttng-sessiond.pid")
    . "$here/sessiond_lib.sh"
    trap 'kill $nobody_sessiond 2> /dev/null; palev_wait_gone $nobody_sessiond 50; rm -rf "$nobody_home"; palev_cleanup_sessions' EXIT
    level=$(cat /proc/sys/kernel/perf_event_paranoid)
    readable=""
    as_nobody test -r /sys/kernel/tracing/events/sched/sched_switch/id ||
        as_nobody test -r /sys/kernel/debug/tracing/events/sched/sched_switch/id || readable="not "
    if [ "$level" -le -1 ] && [ -z "$readable" ]; then
        echo "perf_event_paranoid is $level and tracefs readable: nobody may record sched_switch, no refusal to see"
        exit 0
    fi
    as_nobody "$pcollect" -m "$manifest" --off-cpu -o "$work/nobody/trace" -- "$minivm" -t 300 \
        > nobody/trace.out 2> nobody/trace.err
    rc=$?
    echo "palev-collect: --off-cpu: sched:sched_switch needs root or CAP_PERFMON here (kernel.perf_event_paranoid is $level, tracefs ${readable}readable): run palev-collect as root, or as root: sysctl -w kernel.perf_event_paranoid=-1 and mount -o remount,mode=755 /sys/kernel/tracing; CPU samples only" \
        > nobody/trace.want
    (cd nobody && check_run $rc trace 0 "$work/nobody/trace") || exit 1
    babeltrace2 "$work/nobody/trace/perf/ctf" | grep -q ' cpu-clock:u: ' || palev_fail "nobody: no user-space CPU samples"
    echo "perf refused (--off-cpu as nobody): said with the fix, CPU samples and the LTTng trace recorded"
    ;;
valgrind)
    palev_require_sessiond
    [ -n "${VALGRIND:-}" ] || palev_fail "VALGRIND is not set"
    vg=("$VALGRIND" --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --quiet)
    "${vg[@]}" "$pcollect" -m "$manifest" --keywords gc -o "$work/vg" -- "$minivm" -t 200 > vg.out 2> vg.err
    rc=$?
    [ $rc = 0 ] || palev_fail "palev-collect under valgrind: exit $rc: $(cat vg.err)"
    echo "palev-collect: cannot follow the processes $minivm starts (seccomp: Function not implemented): only its own events are recorded (--all-processes records every process of the user)" > want.err
    grep -v '^--[0-9]*-- ' vg.err | diff -u want.err - || palev_fail "under valgrind: not the warning alone"
    pid=$(command_pid vg.out)
    babeltrace2 "$work/vg" | grep -F "vpid = $pid," | grep -q ' Palev_Runtime:GCStart: ' ||
        palev_fail "under valgrind: the program's events were not recorded"
    "${vg[@]}" "$pcollect" --frobnicate > /dev/null 2>&1
    [ $? = 2 ] || palev_fail "palev-collect --frobnicate under valgrind: not exit 2"
    echo "palev-collect under valgrind: no error, no leak; without seccomp the program alone, said"
    ;;
rename)
    palev_require_sessiond
    host=$build/tests/e2e/mem_host bench=$here/../bench/bench.man
    # Without the rename: palev-gen's names select nothing the host fires.
    "$pcollect" -m "$bench" --strict -o "$work/plain" -- "$host" 1 50 > plain.out 2> plain.err
    rc=$?
    [ $rc = 3 ] && grep -q -x 'palev-collect: mem_host recorded no event of Palev_Bench, and no process registered it (built from another manifest?)' plain.err ||
        palev_fail "without --provider-name: exit $rc, want 3 and the check saying so: $(cat plain.err)"
    # With it: the host's events, its provider loaded, nothing to say, the rename kept.
    "$pcollect" -m "$bench" --provider-name Palev-Bench=Palev_Mem --strict -o "$work/renamed" -- "$host" 1 50 \
        > renamed.out 2> renamed.err || palev_fail "--provider-name: exit $?: $(cat renamed.out renamed.err)"
    [ ! -s renamed.err ] || palev_fail "--provider-name: the check said: $(cat renamed.err)"
    grep -q -x 'palev-collect: session palev-collect-[0-9]* records 6 events of Palev_Mem and paleventing.s own' renamed.out ||
        palev_fail "--provider-name: not the 6 events of Palev_Mem: $(cat renamed.out)"
    pid=$(command_pid renamed.out)
    n=$(babeltrace2 "$work/renamed" | grep -F "vpid = $pid," | grep -c ' Palev_Mem:')
    [ "$n" -gt 0 ] || palev_fail "--provider-name: no Palev_Mem event recorded"
    echo "Palev-Bench=Palev_Mem" | cmp - "$work/renamed/palev-manifests/provider-names" ||
        palev_fail "palev-manifests/provider-names: $(cat "$work/renamed/palev-manifests/provider-names")"
    echo "--provider-name Palev-Bench=Palev_Mem: $n Palev_Mem events, the rename kept"
    # Two manifests: the rename applies to the one with that provider.
    "$pcollect" -m "$manifest" -m "$bench" --provider-name Palev-Bench=Palev_Mem --no-check -o "$work/two" \
        -- "$host" 1 10 > two.out 2>&1 || palev_fail "two manifests: exit $?: $(cat two.out)"
    grep -q -x 'palev-collect: session palev-collect-[0-9]* records 28 events of Palev_Runtime Palev_Mem and paleventing.s own' two.out ||
        palev_fail "two manifests: $(cat two.out)"
    expect_exit 2 '^palev-collect: --provider-name Nope=X: no manifest has that provider$' \
        "$pcollect" -m "$manifest" -m "$bench" --provider-name Nope=X -- true
    expect_exit 2 'no provider "Nope" in the manifest' "$pcollect" -m "$bench" --provider-name Nope=X -- true
    expect_exit 2 '^palev-collect: --provider-name wants ETWNAME=LTTNGNAME, not "Nope"$' \
        "$pcollect" -m "$bench" --provider-name Nope -- true
    echo "renames apply per manifest; one no manifest knows, or malformed: exit 2"
    ;;
signals)
    palev_require_sessiond
    # The program reads palev-collect's stdin, and ignores the signals palev-collect ignores.
    printf 'a line from the pipe\n' | "$pcollect" -m "$manifest" --no-check -o "$work/stdin" -- \
        sh -c 'read -r line; echo "program read: $line"' > stdin.out 2>&1 ||
        palev_fail "piped stdin: palev-collect exited $?: $(cat stdin.out)"
    grep -q -x 'program read: a line from the pipe' stdin.out || palev_fail "piped stdin lost: $(cat stdin.out)"
    "$pcollect" -m "$manifest" --no-check -o "$work/sigign" -- grep '^SigIgn:' /proc/self/status > sigign.out 2>&1
    want=$(grep '^SigIgn:' /proc/self/status)
    grep -q -x "$want" sigign.out || palev_fail "the program ignores other signals ($(grep SigIgn sigign.out)) than its caller ($want)"
    echo "the program read the pipe; its ignored signals are its caller's ($want)"
    # After its "runs as pid" line, the program records for a while, then check_stopped says:
    # palev-collect exited CODE, the program (killed by SIG) is gone, the trace is readable, with
    # the program's first events and the manifest.
    check_stopped() {  # check_stopped OUT CODE TRACE
        local out=$1 code=$2 trace=$3 pid
        pid=$(command_pid "$out")
        [ -n "$pid" ] || palev_fail "no pid in $out: $(cat "$out")"
        palev_wait_gone "$pid" 50 || palev_fail "the program (pid $pid) still runs after palev-collect ended"
        grep -q -x "EXIT $code" "$out" || palev_fail "palev-collect did not exit $code: $(cat "$out")"
        grep -q "palev-collect: .*minivm exited $code$" "$out" || palev_fail "no \"exited $code\": $(cat "$out")"
        babeltrace2 "$trace" > "$out.events" 2> "$out.bterr" || palev_fail "babeltrace2 cannot read $trace: $(cat "$out.bterr")"
        for e in Paleventing:ProviderStatus Palev_Runtime:RuntimeStart Palev_Runtime:GCStart; do
            grep -F "vpid = $pid," "$out.events" | grep -q " $e: " || palev_fail "$trace: no $e of pid $pid"
        done
        cmp "$manifest" "$trace/palev-manifests/runtime.man" || palev_fail "$trace: the manifest was not stored"
    }
    . "$here/sessiond_lib.sh"
    # Ctrl-C typed on a terminal: palev-collect runs in a pty, the test types ^C.
    /usr/bin/python3 - "$pcollect" -m "$manifest" --no-check -o "$work/ctrlc" -- "$minivm" -t 30000 \
        > ctrlc.out 2>&1 <<'PY'
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out, deadline = b"", time.time() + 30
def more(timeout):
    global out
    if not select.select([fd], [], [], timeout)[0]:
        return True
    try:
        data = os.read(fd, 65536)
    except OSError:          # EIO: the terminal's last writer is gone
        return False
    out += data
    return bool(data)
while b"runs as pid" not in out and time.time() < deadline and more(0.1):
    pass
end = time.time() + 1.0     # let it record a second
while time.time() < end and more(0.1):
    pass
os.write(fd, b"\x03")
while time.time() < deadline and more(1.0):
    pass
status = os.waitpid(pid, 0)[1]
sys.stdout.write(out.decode(errors="replace").replace("\r", ""))
print("EXIT", os.waitstatus_to_exitcode(status))
PY
    check_stopped ctrlc.out 130 "$work/ctrlc"
    echo "Ctrl-C on a terminal: the program stopped, palev-collect exited 130, the trace complete"
    # SIGTERM to palev-collect alone, as a script stops its background job.
    "$pcollect" -m "$manifest" --no-check -o "$work/term" -- "$minivm" -t 30000 > term.out 2>&1 &
    collector=$!
    for _ in $(seq 100); do
        [ -n "$(command_pid term.out)" ] && break
        sleep 0.1
    done
    sleep 1
    kill -TERM "$collector"
    wait "$collector"
    echo "EXIT $?" >> term.out
    check_stopped term.out 143 "$work/term"
    echo "SIGTERM to palev-collect: passed on, the program stopped, exit 143, the trace complete"
    ;;
errors)
    expect_exit 2 'unknown keyword "Bogus"' "$collect" --keywords GC,Bogus -- true
    expect_exit 2 'no COMMAND to run' "$collect" --keywords GC
    expect_exit 2 'unknown option' "$collect" --frobnicate -- true
    expect_exit 2 '--relayd-ports wants three port numbers CONTROL,DATA,LIVE, not "1,2"' \
        "$collect" --relayd-ports 1,2 -- true
    # No lttng on PATH: only bash itself is left.
    expect_exit 2 'missing tool: lttng' env PATH=/nonexistent /bin/bash "$collect" -- true
    PALEV_GEN=/nonexistent expect_exit 2 'missing tool: palev-gen' "$collect" -- true
    expect_exit 2 'no manifest: give the program' "$pcollect" -- true
    expect_exit 2 'strict fails a run on what the check finds: not with --no-check' \
        "$pcollect" -m "$manifest" --strict --no-check -- true
    expect_exit 2 'no manifest knows the keywords "bogus": nothing recorded' \
        "$pcollect" -m "$manifest" -m "$(dirname "$manifest")/eventsource.man" --keywords bogus -- true
    expect_exit 2 'unknown keyword "nope" in .*runtime.man (not a hex mask either); Palev_Runtime keywords: GC, JIT, Exception, Threading, Loader' \
        "$pcollect" -m "$manifest" --keywords nope -- true
    expect_exit 2 'cannot read the manifest' "$collect" -m /nonexistent.man -- true
    echo "usage errors, unknown keywords and missing tools exit 2"
    # The program is looked for as execvp would, before anything is set up.
    : > notexec.sh
    for c in "127 palev-no-such-program command not found" "127 $work/missing/prog no such file" \
             "126 $work/notexec.sh not an executable file" "126 $work not an executable file"; do
        read -r code prog why <<< "$c"
        "$pcollect" -m "$manifest" -o "$work/none" -- "$prog" arg > none.out 2> none.err
        rc=$?
        [ $rc = "$code" ] || palev_fail "$prog: exit $rc, want $code: $(cat none.out none.err)"
        echo "palev-collect: cannot run $prog: $why: nothing recorded" | diff -u - none.err ||
            palev_fail "$prog: not the one line saying why"
        [ ! -s none.out ] || palev_fail "$prog: a session was set up: $(cat none.out)"
        [ ! -e "$work/none" ] || palev_fail "$prog: $work/none was created"
    done
    echo "a program that does not exist or cannot run: 127 or 126, one line, no session, no directory"
    ;;
*)
    palev_fail "unknown mode $mode"
    ;;
esac
