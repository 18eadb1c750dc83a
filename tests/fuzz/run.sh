#!/bin/bash
# SPDX-License-Identifier: MIT
# Build and run every libFuzzer target for SECONDS each, then print per target: executions,
# coverage (edges and features libFuzzer counted), corpus size and the result. A crashing input is
# kept in tests/fuzz/crashes/<target>-crash-<sha1> (reproduce: <dir>/<target> FILE).
#
# usage: tests/fuzz/run.sh [--smoke] [--dir DIR] [--jobs N] SECONDS [TARGET...]
#   --dir DIR  where targets, corpora and logs go (default: build-fuzz/libfuzzer in the tree)
#   --jobs N   targets run at the same time (default 1)
#   --smoke    the ctest mode: a fresh corpus from the seeds only, crashes kept in DIR/crashes,
#              no nice; the normal mode keeps growing DIR/corpus/<target> from run to run and
#              runs at nice 10 (PALEV_FUZZ_NICE)
# PALEV_FUZZ_ARGS adds libFuzzer options to every target (e.g. -max_len=8192).
# Seeds: tests/fuzz/corpus/<target>/, and for fuzz_manifest the project's manifests (manifest/,
# tests/*/*.man, every tests/gen case) plus the shared real-world ones when they are there
# (PALEV_SHARED_MANIFESTS, default ../shared/manifests beside the checkout).
# Exits 0 when every target ran inputs and none crashed, 1 otherwise, 77 when clang cannot build
# libFuzzer targets.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
dir=$top/build-fuzz/libfuzzer jobs=1 smoke=0
while [ $# -gt 0 ]; do
    case $1 in
    --smoke) smoke=1; shift ;;
    --dir) dir=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    *) break ;;
    esac
done
[ $# -ge 1 ] || { sed -n '3,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
seconds=$1
shift
targets=${*:-fuzz_manifest fuzz_env fuzz_scratch fuzz_utf16 fuzz_json fuzz_trace fuzz_perf fuzz_dynamic fuzz_cfi}
mkdir -p "$dir" || exit 1
dir=$(cd "$dir" && pwd)

"$here/build.sh" "$dir" $targets
rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || exit 1

shared=${PALEV_SHARED_MANIFESTS:-$top/../shared/manifests}

# The seed directory of a target, rebuilt from the sources each run.
seed() {
    local t=$1 s=$dir/seeds/$1
    rm -rf "$s" && mkdir -p "$s"
    [ -d "$here/corpus/$t" ] && cp "$here/corpus/$t"/* "$s"/ 2>/dev/null
    if [ "$t" = fuzz_manifest ]; then
        [ -d "$shared" ] && cp "$shared"/*.man "$s"/ 2>/dev/null
        for c in "$top"/tests/gen/valid/* "$top"/tests/gen/invalid/*; do
            [ -f "$c/input.man" ] && cp "$c/input.man" "$s/gen-$(basename "$(dirname "$c")")-$(basename "$c").man"
        done
        for m in "$top"/manifest/*.man "$top"/tests/*/*.man; do
            [ -f "$m" ] && cp "$m" "$s/project-$(basename "$(dirname "$m")")-$(basename "$m")"
        done
    fi
    echo "$s"
}

options() {
    case $1 in
    fuzz_manifest) echo "-dict=$here/manifest.dict -max_len=65536" ;;
    fuzz_trace) echo "-max_len=16384" ;;
    fuzz_perf) echo "-max_len=16384 -malloc_limit_mb=1048576" ;;
    *) echo "-max_len=8192" ;;
    esac
}

run_one() {
    local t=$1 corpus crashes log nice_cmd=()
    if [ $smoke = 1 ]; then
        corpus=$dir/smoke-corpus/$t crashes=$dir/crashes
        rm -rf "$corpus"
    else
        corpus=$dir/corpus/$t crashes=$top/tests/fuzz/crashes
        nice_cmd=(nice -n "${PALEV_FUZZ_NICE:-10}")
    fi
    mkdir -p "$corpus" "$crashes"
    log=$dir/$t.log
    # shellcheck disable=SC2046
    "${nice_cmd[@]}" "$dir/$t" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2560 \
        -print_final_stats=1 -artifact_prefix="$crashes/$t-" $(options "$t") ${PALEV_FUZZ_ARGS:-} \
        "$corpus" "$(seed "$t")" > "$log" 2>&1
    echo $? > "$dir/$t.rc"
}

summary() {
    local t=$1 log=$dir/$1.log rc runs cov result
    rc=$(cat "$dir/$t.rc" 2>/dev/null || echo 1)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1 | sed -E 's/.*cov: ([0-9]+) ft: ([0-9]+) corp: ([^ ]+).*/edges \1, features \2, corpus \3/')
    if [ "$rc" = 0 ] && [ "${runs:-0}" -gt 0 ]; then
        result=ok
    elif [ "$rc" = 0 ]; then
        result="FAILED: libFuzzer ran no input (see $log)"
        rc=1
    else
        result="FAILED: $(grep -m1 -E 'ERROR: |SUMMARY: ' "$log" | sed 's/^==[0-9]*== *//')"
        result="$result; input: $(sed -n 's/.*Test unit written to //p' "$log" | tail -1)"
    fi
    printf '%-15s runs %-10s %s  %s\n' "$t" "${runs:-?}" "${cov:-coverage ?}" "$result"
    [ "$rc" = 0 ]
}

running=0
for t in $targets; do
    run_one "$t" &
    running=$((running + 1))
    if [ $running -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait

status=0
echo "fuzzing, $seconds s per target (logs: $dir/<target>.log)"
for t in $targets; do
    summary "$t" || status=1
done
exit $status
