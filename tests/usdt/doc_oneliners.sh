#!/bin/bash
# SPDX-License-Identifier: MIT
# Every bpftrace line of docs/usdt.md runs against minivm (a live one for "-p $PID", its own for
# "-c"): each prints at least one map entry and no error; the stack ones name JIT frames from the
# perf map.
# Exits 77 (skipped) where BPF or uprobes are not permitted.
# usage: doc_oneliners.sh DOC MINIVM WORKDIR
set -u
doc=$1 minivm=$(realpath "$2") work=$3
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || skip "bpftrace needs root here (BPF programs and uprobes)"
command -v bpftrace >/dev/null || skip "bpftrace is not installed (tests/deps.sh installs it)"
rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
timeout 60 bpftrace -e 'BEGIN { exit(); }' >"$work/bpf.log" 2>&1 ||
    skip "BPF programs are not permitted here: $(grep -m1 -i error "$work/bpf.log")"
mapfile -t lines < <(grep -E '^bpftrace (-p \$PID|-c) ' "$doc")
[ ${#lines[@]} -ge 5 ] || fail "only ${#lines[@]} bpftrace lines in $doc"

# Long enough for every line on a loaded machine; killed at the end.
PALEV_LTTNG=0 PALEV_PERFMAP=1 "$minivm" --jit=all -t 600000 > "$work/minivm.out" &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -f /tmp/perf-$PID.map' EXIT
export MINIVM=$minivm PID
sleep 0.5
n=0
for line in "${lines[@]}"; do
    n=$((n + 1))
    if [[ $line == "bpftrace -c "* ]]; then   # runs its own minivm to the end
        timeout 120 bash -c "$line" > "$work/$n.out" 2>&1 || fail "line $n exited $?: $line"
    else                                      # attached to the running one, stopped like Ctrl-C
        timeout -s INT 5 bash -c "$line" > "$work/$n.out" 2>&1
    fi
    # Not errors of the line: the memlock limit bpftrace cannot raise in a container, and a
    # stack it could not read back (the stack map full or a hash collision under load; the
    # others are counted and printed).
    grep -v -e RLIMIT_MEMLOCK -e 'failed to look up stack id' "$work/$n.out" | grep -q ERROR &&
        fail "line $n: $line: $(grep -v RLIMIT_MEMLOCK "$work/$n.out" | grep -m2 -B2 -A2 ERROR)"
    grep -Eq '^@' "$work/$n.out" || fail "line $n printed no map: $line: $(tail -3 "$work/$n.out")"
    if [[ $line == *ustack* ]]; then
        grep -q '\[jit\]' "$work/$n.out" || fail "line $n: no JIT frame named in its stacks: $line"
    fi
    echo "ok $n: $(grep -c '^@' "$work/$n.out") map entries: $line"
done
kill -0 $PID 2>/dev/null || fail "minivm did not survive the probes: $(tail -3 "$work/minivm.out")"
