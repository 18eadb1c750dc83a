#!/bin/bash
# SPDX-License-Identifier: MIT
# minivm's JIT under real perf: hot_loop.masm spends its time in Perf.Loop.spin, compiled to
# native code on its 100th call. perf report names it "Perf.Loop.spin[jit]" for most samples
# from the perf map (PALEV_PERFMAP=1) and from the jitdump after perf inject --jit
# (PALEV_PERFMAP=2); without PALEV_PERFMAP the same samples fall on a bare address. The call
# graph walks from the JIT code into the VM (frame pointers), and perf script folds it for a
# flame graph.
# usage: perf.sh MINIVM HOT_LOOP.masm WORKDIR   exits 77 (skipped) where perf cannot record here
set -u
minivm=$1 program=$2 work=$3
SKIP=77
SYM='Perf.Loop.spin[jit]'
# "Most samples": 99 interpreted calls cost ~5% of the run; 90% and more is typical.
MIN_SHARE=50

skip() { echo "SKIP: $*"; exit $SKIP; }
fail() { echo "FAIL: $*" >&2; exit 1; }

pids=""
trap 'for p in $pids; do rm -f "/tmp/perf-$p.map"; done' EXIT

[ "$(uname -m)" = x86_64 ] || skip "minivm's JIT emits x86-64 code only; this machine is $(uname -m)"
command -v perf >/dev/null || skip "perf is not installed (Debian package linux-perf)"
rm -rf "$work" && mkdir -p "$work" && work=$(cd "$work" && pwd) || fail "cannot create $work"
export PERF_BUILDID_DIR=$work/buildid PALEV_LTTNG=0
perf record -q -k 1 -e cpu-clock -o "$work/probe.data" -- true >"$work/probe.log" 2>&1 ||
    skip "perf record is not permitted here (perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)): $(head -2 "$work/probe.log")"

# run NAME [PALEV_PERFMAP]: minivm under perf record for 1.5 s; sets pid (the shell's pid,
# which exec hands to minivm, names its perf map and jitdump)
run() {
    local name=$1 mode=${2:-}
    env -u PALEV_PERFMAP ${mode:+PALEV_PERFMAP=$mode} PALEV_PERFMAP_DIR="$work" \
        perf record -q -k 1 -e cpu-clock -g -o "$work/$name.data" -- \
        sh -c 'echo $$ > "$1"; shift; exec "$@"' sh "$work/$name.pid" "$minivm" "$program" 1500 \
        >"$work/$name.out" 2>"$work/$name.err" || fail "$name: perf record failed: $(cat "$work/$name.err")"
    pid=$(cat "$work/$name.pid")
    pids="$pids $pid"
    grep -q '^calls [0-9]*$' "$work/$name.out" || fail "$name: minivm printed $(cat "$work/$name.out")"
}

report() {
    perf report -i "$1" --stdio --no-children -g none --sort sym -q 2>/dev/null
}

# top DATA: the symbol with the most samples and its share, "97.12 Perf.Loop.spin[jit]"
top() {
    report "$1" | awk 'NF >= 3 { sub("%", "", $1); s = $3; for (i = 4; i <= NF; i++) s = s " " $i; print $1, s; exit }'
}

# share DATA: the percentage of samples perf report gives $SYM, 0 when absent
share() {
    report "$1" | awk -v sym="$SYM" '$3 == sym && NF == 3 { sub("%", "", $1); print $1; found = 1; exit }
                                     END { if (!found) print 0 }'
}

check_named() {
    local what=$1 data=$2 pct
    pct=$(share "$data")
    awk -v p="$pct" -v m=$MIN_SHARE 'BEGIN { exit !(p >= m) }' ||
        fail "$what: $SYM has $pct% of the samples (want >= $MIN_SHARE%); top: $(top "$data")"
    echo "$what: $SYM $pct% of samples"
}

# 1. perf map: the line the JIT logged, and perf report reading it
run map 1
grep -Eq "^[0-9a-f]+ [0-9a-f]+ Perf\.Loop\.spin\[jit\]$" "/tmp/perf-$pid.map" ||
    fail "map: no Perf.Loop.spin[jit] line in /tmp/perf-$pid.map: $(cat "/tmp/perf-$pid.map" 2>&1)"
check_named "perf map (PALEV_PERFMAP=1)" "$work/map.data"

# 2. jitdump, through perf inject --jit; no perf map may help here
run jitdump 2
[ ! -e "/tmp/perf-$pid.map" ] || fail "jitdump: PALEV_PERFMAP=2 wrote a perf map"
[ -f "$work/jit-$pid.dump" ] || fail "jitdump: $work/jit-$pid.dump was not written"
[ "$(share "$work/jitdump.data")" = 0 ] || fail "jitdump: $SYM named before perf inject"
perf inject --jit -i "$work/jitdump.data" -o "$work/jitdump.jit.data" 2>"$work/inject.err" ||
    fail "perf inject --jit failed: $(cat "$work/inject.err")"
check_named "jitdump + perf inject --jit (PALEV_PERFMAP=2)" "$work/jitdump.jit.data"

# 3. off: the same samples land on a bare address
run off
[ ! -e "/tmp/perf-$pid.map" ] || fail "off: a perf map was written without PALEV_PERFMAP"
[ ! -e "$work/jit-$pid.dump" ] || fail "off: a jitdump was written without PALEV_PERFMAP"
[ "$(share "$work/off.data")" = 0 ] || fail "off: $SYM named without PALEV_PERFMAP"
read -r pct sym <<<"$(top "$work/off.data")"
[[ $sym =~ ^0x[0-9a-f]+$ ]] || fail "off: the top entry is '$sym' ($pct%), not a bare address"
# Each address of the loop is an entry of its own now: together they hold what the name held.
read -r bare count <<<"$(report "$work/off.data" |
    awk '$3 ~ /^0x[0-9a-f]+$/ && NF == 3 { sub("%", "", $1); s += $1; n++ } END { printf "%.2f %d\n", s, n }')"
awk -v p="$bare" -v m=$MIN_SHARE 'BEGIN { exit !(p >= m) }' ||
    fail "off: bare addresses have $bare% of the samples (want >= $MIN_SHARE%)"
echo "off (no PALEV_PERFMAP): $bare% of samples on $count bare addresses, the top one $sym $pct%"

# 4. the call graph: from the JIT code through jit_run() into the interpreter, folded by
# perf script for a flame graph
if perf script -l 2>/dev/null | grep -qw stackcollapse; then
    (cd "$work" && perf script report stackcollapse -i "$work/jitdump.jit.data" >"$work/folded.txt" 2>/dev/null)
    stack=$(grep -F ";$SYM " "$work/folded.txt" | sort -t' ' -k2 -nr | head -1)
    [[ $stack == *";interp_run;"*";jit_run;$SYM "* ]] ||
        fail "stackcollapse: no stack runs interp_run -> jit_run -> $SYM: $(head -3 "$work/folded.txt")"
    echo "flame graph input (perf script report stackcollapse): $stack"
else
    echo "note: perf has no stackcollapse script (no Python support): folded stacks not checked"
fi
echo PASS
