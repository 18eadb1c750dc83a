#!/bin/bash
# SPDX-License-Identifier: MIT
# Memory that must stay flat: a host runs every path of the library that touches the heap (typed
# events with heap-sized UTF-16 strings and struct arrays, EventSource packed by jansson, dynamic
# events, code ranges loaded and unloaded) round after round while a session records all of it.
# The heap in use after the last round must be where it was after the first (a leak of one byte
# per iteration would show as ITERS * (ROUNDS - 1) bytes); the trace must hold every kind.
# usage: memory.sh MEM_HOST WORKDIR [ROUNDS [ITERS]]   (prints the host's table)
set -u
host=$1 work=$2 rounds=${3:-4} iters=${4:-20000}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
palev_require_sessiond
rm -rf "$work" && mkdir -p "$work" || palev_fail "cannot create $work"
session=palev-mem-$$
palev_session_start "$session" "$work/trace" 'Palev_Mem:*' 'Palev_MemDyn:*' \
    Paleventing:EventSource Paleventing:CodeLoad Paleventing:CodeUnload
"$host" "$rounds" "$iters" > "$work/host.out" 2> "$work/host.err"
rc=$?
palev_session_stop "$session"
cat "$work/host.out"
[ $rc = 0 ] || palev_fail "the host exited $rc: $(cat "$work/host.err")"
[ -s "$work/host.err" ] && palev_fail "the host wrote on stderr: $(cat "$work/host.err")"

# The heap in use: rounds 1 and last (the warm-up line is shown, not compared: it holds what
# the first events take for the life of the process).
first=$(awk '$1 == "round" { print $5; exit }' "$work/host.out")
last=$(awk '$1 == "round" { v = $5 } END { print v }' "$work/host.out")
[ -n "$first" ] && [ -n "$last" ] || palev_fail "the host printed no round"
growth=$((last - first))
bound=4096
echo "heap in use: $first bytes after round 1, $last after round $rounds ($growth bytes" \
     "over $(((rounds - 1) * iters)) iterations; bound $bound)"
[ "$growth" -le "$bound" ] || palev_fail "the heap grew by $growth bytes"

# Every kind of event reached the trace, and babeltrace2 reads it cleanly.
babeltrace2 "$work/trace" 2> "$work/bt.err" |
    sed -nE 's/^\[[^]]*\] \([^)]*\) [^ ]+ ([A-Za-z_]+:[A-Za-z0-9_]+): .*/\1/p' |
    sort | uniq -c > "$work/counts"
[ -s "$work/bt.err" ] && palev_fail "babeltrace2 complained: $(head -3 "$work/bt.err")"
cat "$work/counts"
for ev in Palev_Mem:Small Palev_Mem:Text16 Palev_Mem:Items Palev_MemDyn:Write \
          Paleventing:EventSource Paleventing:CodeLoad Paleventing:CodeUnload; do
    grep -qE " $ev\$" "$work/counts" || palev_fail "no $ev in the trace"
done
rm -rf "$work/trace"
echo "PASS: the heap stayed flat while every path recorded"
