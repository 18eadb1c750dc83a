#!/bin/bash
# SPDX-License-Identifier: MIT
# The benchmarks' programs run and print what tests/bench/*.sh read from them, without a session
# (no timing is judged: the values are only checked to be numbers):
#   bench   palev-bench --quick: the table with rows 1, 10 and 6; the disabled calls and
#           palev_event_lookup() allocate nothing (0 in the alloc column, row 6 "0: met"); the
#           count of events fired; bad options exit 2 with the usage
#   stacks  palev-bench-stacks walk: the S1 rows (three for PALEV_STACK=fp, two for unwind)
#   define  palev-bench-define: 3 providers x 4 events defined in each mode (the program looks
#           every one up afterwards), the seconds as one number; a bad mode exits 2
# usage: smoke.sh bench|stacks|define PROGRAM WORKDIR
set -u
mode=$1 prog=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
unset PALEV_LTTNG PALEV_PROVIDER_PATH PALEV_DEBUG PALEV_EVENTSOURCE_FILTER PALEV_EVENTNAME_FILTER PALEV_STACK
num='[0-9]+(\.[0-9]+)?'
# expect FILE ERE WHAT: a line of FILE matches ERE
expect() { grep -qE "$2" "$1" || { cat "$1"; fail "$3"; }; }
# usage_error ARGS...: exit 2 and a usage line on stderr
usage_error() {
    "$prog" "$@" > "$work/usage.out" 2> "$work/usage.err"
    local rc=$?
    [ $rc = 2 ] || fail "$(basename "$prog") $* exited $rc, not 2"
    expect "$work/usage.err" "^usage: $(basename "$prog") " "no usage line on stderr for: $*"
}

case $mode in
bench)
    out=$work/bench.txt
    "$prog" --quick > "$out" 2> "$work/bench.err" || { cat "$work/bench.err"; fail "palev-bench --quick exited $?"; }
    expect "$out" '^row +measured +value +alloc \| baseline +value +alloc \| +ratio \| target$' "no table header"
    expect "$out" "^1 +FireEventSmallOff\(\) disabled \(4 int \+ 1 string\) +$num ns +0 \| empty loop iteration +$num ns +0 \|" \
        "row 1: FireEventSmallOff() disabled, no value or not 0 allocations"
    expect "$out" "^1 +raw lttng_ust_tracepoint\(\) disabled, same fields +$num ns +0 \|" "row 1: no raw baseline"
    expect "$out" "^10 +PALEV_EVENT_WRITE\(\) disabled \(4 int \+ 1 string\) +$num ns +0 \|" \
        "row 10: PALEV_EVENT_WRITE() disabled, no value or not 0 allocations"
    expect "$out" "^10 +palev_event_lookup\(\), 10 000 events defined +$num ns +0 \|" \
        "row 10: palev_event_lookup(), no value or not 0 allocations"
    expect "$out" '^6 +heap allocations per typed event \(rows 1-4\), most +- +0 \|.*\| 0: met$' \
        "row 6: typed events allocate"
    expect "$out" '^events fired into the session: [0-9]+$' "no count of events fired"
    usage_error --no-such-option
    echo "palev-bench --quick: rows 1, 10 and 6 as expected; no allocation in the disabled calls and lookups"
    ;;
stacks)
    for stack in fp unwind; do
        out=$work/walk-$stack.txt
        PALEV_STACK=$stack "$prog" walk palev-no-such-session > "$out" 2> "$work/walk.err" ||
            { cat "$work/walk.err"; fail "PALEV_STACK=$stack palev-bench-stacks walk exited $?"; }
        rows=$([ $stack = fp ] && echo 3 || echo 2)     # the JIT-ranges row is fp's
        [ "$(wc -l < "$out")" = $rows ] || { cat "$out"; fail "$stack: not $rows lines"; }
        label=$(printf '%-6s' $stack)
        expect "$out" "^S1 +event 16 frames deep \+ Stack \($label\) +$num ns \| event alone $num ns: \+-?$num ns/event$" \
            "$stack: no first S1 row"
        target=$([ $stack = fp ] && echo '(met|MISSED)' || echo 'n/a')
        expect "$out" "^S1 +event 16 frames deep \+ Stack \($label\) +$num ns \| event \+ Stack-shaped event, no walk +$num ns \| +-?$num \| walk \+-?$num ns \(target <= 150 ns with fp: $target\)$" \
            "$stack: no second S1 row"
        [ $stack = fp ] || continue
        expect "$out" "^S1 +same, 1000 JIT ranges with unwind rules live +$num ns \| none: $num ns \| +$num \| \+-?$num ns per event for 16 lookups" \
            "$stack: no third S1 row (JIT ranges with unwind rules)"
    done
    usage_error walk
    echo "palev-bench-stacks walk: the S1 rows, fp and unwind"
    ;;
define)
    for how in one provider all; do
        "$prog" $how 3 4 "Bench_DefSmoke_${how}_" > "$work/$how.txt" 2> "$work/$how.err" ||
            { cat "$work/$how.err"; fail "palev-bench-define $how 3 4 exited $?"; }
        [ "$(wc -l < "$work/$how.txt")" = 1 ] || { cat "$work/$how.txt"; fail "$how: not one line"; }
        expect "$work/$how.txt" '^[0-9]+\.[0-9]{3}$' "$how: not a number of seconds"
    done
    usage_error some 3 4 Bench_DefSmoke_
    echo "palev-bench-define: 12 events defined and found in each mode"
    ;;
*)
    fail "unknown mode $mode"
    ;;
esac
