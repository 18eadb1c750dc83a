#!/bin/bash
# SPDX-License-Identifier: MIT
# End to end with real perf: JIT code logged through palev_code_load() is named in
# perf report, from the perf map (PALEV_PERFMAP=1) and from the jitdump after perf inject --jit
# (PALEV_PERFMAP=2); without PALEV_PERFMAP it stays a bare address. JIT code keeping no frame
# pointer, logged with its CFI (palev_code_load_unwind()), is unwound through by
# perf record --call-graph dwarf + perf inject --jit: main is below it; logged without, not.
# usage: perf_jit.sh JIT_HOST WORKDIR     exits 77 (skipped) where perf is missing or not permitted
set -u
host=$1 work=$2
SKIP=77
# "Most samples": the host spends nearly all its time in the loop; 90% and more is typical.
MIN_SHARE=50

skip() { echo "SKIP: $*"; exit $SKIP; }
fail() { echo "FAIL: $*" >&2; exit 1; }

pids=""
cleanup() {
    for p in $pids; do rm -f "/tmp/perf-$p.map"; done
}
trap cleanup EXIT

[ "$(uname -m)" = x86_64 ] || skip "the JIT host emits x86-64 code; this machine is $(uname -m)"
command -v perf >/dev/null || skip "perf is not installed (Debian package linux-perf)"
rm -rf "$work"
mkdir -p "$work" || fail "cannot create $work"
# perf record and inject file build ids here, not in ~/.debug.
export PERF_BUILDID_DIR=$work/buildid
perf record -q -k 1 -e cpu-clock -o "$work/probe.data" -- true >"$work/probe.log" 2>&1 ||
    skip "perf record is not permitted here (perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)): $(head -2 "$work/probe.log")"

# run NAME [PALEV_PERFMAP [CALL_GRAPH [HOST_ARGS...]]]: the host under perf record; sets pid
run() {
    local name=$1 mode=${2:-} graph=${3:-fp}
    shift $(($# < 3 ? $# : 3))
    env -u PALEV_PERFMAP ${mode:+PALEV_PERFMAP=$mode} PALEV_PERFMAP_DIR="$work" \
        perf record -q -k 1 -e cpu-clock --call-graph "$graph" -o "$work/$name.data" -- \
        "$host" 1.5 "$@" >"$work/$name.out" 2>"$work/$name.err" ||
        fail "$name: perf record failed: $(cat "$work/$name.err")"
    pid=$(sed -n 's/^pid=//p' "$work/$name.out")
    [ -n "$pid" ] || fail "$name: the host printed no pid"
    pids="$pids $pid"
    grep -qx "log=0" "$work/$name.out" || fail "$name: logging failed: $(cat "$work/$name.out")"
}

# top DATA: the symbol with the most samples and its share, "97.12 jit_hot_loop"
top() {
    perf report -i "$1" --stdio --no-children -g none --sort sym -q 2>/dev/null |
        awk 'NF >= 3 { sub("%", "", $1); s = $3; for (i = 4; i <= NF; i++) s = s " " $i; print $1, s; exit }'
}

# share DATA SYMBOL: the percentage of samples perf report gives the symbol, 0 when absent
share() {
    perf report -i "$1" --stdio --no-children -g none --sort sym -q 2>/dev/null |
        awk -v sym="$2" '$3 == sym && NF == 3 { sub("%", "", $1); print $1; found = 1; exit }
                         END { if (!found) print 0 }'
}

check_named() {
    local what=$1 data=$2 pct
    pct=$(share "$data" jit_hot_loop)
    awk -v p="$pct" -v m=$MIN_SHARE 'BEGIN { exit !(p >= m) }' ||
        fail "$what: jit_hot_loop has $pct% of the samples (want >= $MIN_SHARE%); top: $(top "$data")"
    echo "$what: jit_hot_loop $pct% of samples"
}

# 1. perf map
run map 1
[ -f "/tmp/perf-$pid.map" ] || fail "map: /tmp/perf-$pid.map was not written"
grep -Eq '^[0-9a-f]+ c jit_hot_loop$' "/tmp/perf-$pid.map" ||
    fail "map: no jit_hot_loop line in /tmp/perf-$pid.map: $(cat "/tmp/perf-$pid.map")"
check_named "perf map (PALEV_PERFMAP=1)" "$work/map.data"

# 2. jitdump, through perf inject --jit; no perf map may help here
run jitdump 2
[ ! -e "/tmp/perf-$pid.map" ] || fail "jitdump: PALEV_PERFMAP=2 wrote a perf map"
[ -f "$work/jit-$pid.dump" ] || fail "jitdump: $work/jit-$pid.dump was not written"
perf inject --jit -i "$work/jitdump.data" -o "$work/jitdump.jit.data" 2>"$work/inject.err" ||
    fail "perf inject --jit failed: $(cat "$work/inject.err")"
[ "$(share "$work/jitdump.data" jit_hot_loop)" = 0 ] ||
    fail "jitdump: jit_hot_loop named before perf inject"
check_named "jitdump + perf inject --jit (PALEV_PERFMAP=2)" "$work/jitdump.jit.data"

# 3. off: the same samples land on a bare address
run off
[ ! -e "/tmp/perf-$pid.map" ] || fail "off: a perf map was written without PALEV_PERFMAP"
ls "$work"/jit-"$pid".dump >/dev/null 2>&1 && fail "off: a jitdump was written without PALEV_PERFMAP"
[ "$(share "$work/off.data" jit_hot_loop)" = 0 ] || fail "off: jit_hot_loop named without PALEV_PERFMAP"
read -r pct sym <<<"$(top "$work/off.data")"
[[ $sym =~ ^0x[0-9a-f]+$ || $sym = "[unknown]" ]] ||
    fail "off: the top entry is '$sym' ($pct%), not a bare address"
echo "off (no PALEV_PERFMAP): top entry $sym $pct% of samples"

# 4. a flame graph's input: folded stacks from perf script, jit_hot_loop as a leaf
if perf script -l 2>/dev/null | grep -qw stackcollapse; then
    (cd "$work" && perf script report stackcollapse -i "$work/jitdump.jit.data" >"$work/folded.txt" 2>/dev/null)
    grep -Eq ';jit_hot_loop [0-9]+$' "$work/folded.txt" ||
        fail "stackcollapse: no stack ends in jit_hot_loop: $(head -3 "$work/folded.txt")"
    echo "flame graph input (perf script report stackcollapse): $(grep -E ';jit_hot_loop [0-9]+$' "$work/folded.txt" | sort -t' ' -k2 -nr | head -1)"
else
    echo "note: perf has no stackcollapse script (no Python support): folded stacks not checked"
fi
# 5. JIT code without frame pointer, under --call-graph dwarf (perf copies the user stack and
# unwinds it with DWARF CFI): the jitdump's unwinding-info record lets perf step over the JIT
# frame to main. stacks DATA: perf script's call chains "leaf;...;root", one per sample.
stacks() {
    perf script -i "$1" -F ip,sym 2>/dev/null | awk '
        NF == 0 { if (s != "") print s; s = ""; next }
        { $1 = ""; sub(/^ /, ""); s = s == "" ? $0 : s ";" $0 }
        END { if (s != "") print s }'
}
# through DATA: of the samples in jit_spin below jit_nofp, the share whose chain reaches main
through() {
    stacks "$1" | awk '/^jit_spin;jit_nofp/ { n++; if (/;run_nofp;main(;|$)/) m++ }
        END { printf "%d %d\n", m, n }'
}
for desc in cfi bare; do
    run "nofp-$desc" 2 dwarf nofp $([ $desc = bare ] && echo bare)
    perf inject --jit -i "$work/nofp-$desc.data" -o "$work/nofp-$desc.jit.data" 2>"$work/inject.err" ||
        fail "perf inject --jit (nofp $desc) failed: $(cat "$work/inject.err")"
    read -r m n <<<"$(through "$work/nofp-$desc.jit.data")"
    [ "$n" -gt 100 ] || fail "nofp $desc: only $n samples in jit_spin below jit_nofp: $(stacks "$work/nofp-$desc.jit.data" | sort | uniq -c | sort -rn | head -3)"
    echo "no frame pointer, $desc: $m of $n samples in jit_spin;jit_nofp reach main"
    if [ $desc = cfi ]; then
        [ $((m * 100)) -ge $((n * 95)) ] ||
            fail "nofp cfi: $m of $n chains through jit_nofp reach main; top: $(stacks "$work/nofp-cfi.jit.data" | sort | uniq -c | sort -rn | head -2)"
    else
        [ "$m" = 0 ] || fail "nofp bare: $m chains reach main without unwind info?"
    fi
done
echo "PASS"
