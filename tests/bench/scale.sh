#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/bench/scale.sh [BUILD_DIR]: how palev-gen's time grows with the manifest, as ratios taken
# in this one run (best of 3 per size, each into a fresh directory): generate on 1 000 and 10 000
# events (make_manifest.sh, 5 events per template), and selftest on a valueMap of 10 000 and
# 100 000 entries (make_valuemap.sh; its pick was once quadratic: 20 000 entries took seconds).
# Linear growth gives ratios near 10, quadratic near 100. Not a pass/fail test: it fails only
# when something cannot run (ctest -R scale checks what is generated at these sizes).
# BUILD_DIR defaults to build-bench at the top of the source tree (as tests/bench/run.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build-bench}
. "$here/lib.sh"
bench_build palev-gen
gen=$build/generator/palev-gen
work=$(mktemp -d /tmp/palev-bench-scale.XXXXXX) || fail "mktemp failed"
trap 'rm -rf "$work"' EXIT

# best CMD MANIFEST: the fewest milliseconds of 3 runs of palev-gen CMD -o DIR MANIFEST.
best() {
    local i t0 t1 ms best=
    for i in 1 2 3; do
        rm -rf "$work/out"
        t0=$(date +%s%N)
        "$gen" "$1" -o "$work/out" "$2" > /dev/null || fail "palev-gen $1 $2 exited $?"
        t1=$(date +%s%N)
        ms=$(((t1 - t0) / 1000000))
        [ -z "$best" ] || [ $ms -lt "$best" ] && best=$ms
    done
    echo "$best"
}
row() {  # row WHAT SMALL_LABEL SMALL_MS BIG_LABEL BIG_MS
    awk -v w="$1" -v sl="$2" -v s="$3" -v bl="$4" -v b="$5" 'BEGIN {
        printf "%-38s %-16s %6d ms  %-16s %6d ms  ratio %5.1f\n", w, sl, s, bl, b, b / (s > 0 ? s : 1) }'
}

"$root/tests/scale/make_manifest.sh" 1000 200 > "$work/e1000.man" || fail "make_manifest.sh"
"$root/tests/scale/make_manifest.sh" 10000 2000 > "$work/e10000.man" || fail "make_manifest.sh"
"$root/tests/scale/make_valuemap.sh" 10000 > "$work/m10000.man" || fail "make_valuemap.sh"
"$root/tests/scale/make_valuemap.sh" 100000 > "$work/m100000.man" || fail "make_valuemap.sh"

echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
row "palev-gen generate, events" "1 000 events" "$(best generate "$work/e1000.man")" \
    "10 000 events" "$(best generate "$work/e10000.man")"
row "palev-gen selftest, one valueMap" "10 000 entries" "$(best selftest "$work/m10000.man")" \
    "100 000 entries" "$(best selftest "$work/m100000.man")"
