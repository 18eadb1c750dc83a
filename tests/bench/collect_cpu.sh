#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/bench/collect_cpu.sh [BUILD_DIR]: what palev-collect --cpu and --off-cpu cost, in one run.
# Two fixed-work programs (cpu_work: "compute", four CPU-bound threads; "handover", four threads
# passing a token round a ring of pipes, a context switch per hand-over) run under palev-collect
# without perf, with --cpu (999 Hz) and with --off-cpu (as root), ROUNDS times each, interleaved;
# their own time (wall and CPU, which they print) is compared, medians and ratios to the run
# without perf. Then what collection adds around the program: palev-collect's wall time minus
# the program's, per mode, and perf data convert --to-ctf on its own.
# ROUNDS: PALEV_CPU_BENCH_ROUNDS (default 5). Not a pass/fail test: it fails only when something
# cannot run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
rounds=${PALEV_CPU_BENCH_ROUNDS:-5}
work=$(mktemp -d /tmp/palev-cpu-bench.XXXXXX) || exit 1
trap '[ -n "${PALEV_CPU_BENCH_KEEP:-}" ] && cat "$work/results" >&2; rm -rf "$work"' EXIT
fail() {
    echo "collect_cpu.sh: $*" >&2
    exit 1
}
collect=$build/bin/palev-collect prog=$build/tests/bench/cpu_work
[ -x "$collect" ] && [ -x "$prog" ] || fail "build palev-collect and palev-cpu-work in $build first"
command -v perf > /dev/null || fail "perf is not installed (linux-perf)"
pgrep -x lttng-sessiond > /dev/null || fail "no lttng-sessiond runs"
export PALEV_GEN=$build/generator/palev-gen
modes="none cpu"
[ "$(id -u)" = 0 ] && modes="none cpu offcpu"

now() { date +%s.%N; }
declare -A work_args=([compute]="4 8000 0" [handover]="4 0 4000")
# run WORK MODE ROUND: one palev-collect run; appends "WORK MODE wall cpu total" to results
run() {
    local load=$1 mode=$2 opt=() t0 t1 out=$work/$1-$2-$3
    case $mode in cpu) opt=(--cpu) ;; offcpu) opt=(--off-cpu) ;; esac
    t0=$(now)
    # shellcheck disable=SC2086
    "$collect" -m "$root/manifest/runtime.man" --no-check "${opt[@]}" -o "$out" -- "$prog" ${work_args[$load]} \
        > "$out.log" 2>&1 || fail "palev-collect ${opt[*]} exited $?: $(cat "$out.log")"
    t1=$(now)
    sed -n "s/^cpu_work: \([0-9.]*\) s wall, \([0-9.]*\) s CPU$/$load $mode \1 \2 $(echo "$t1 - $t0" | bc)/p" \
        "$out.log" >> "$work/results"
}
for r in $(seq "$rounds"); do
    for load in compute handover; do
        for m in $modes; do
            run "$load" "$m" "$r"
        done
    done
done

median() {  # median WORK MODE COLUMN
    awk -v w="$1" -v m="$2" -v c="$3" '$1 == w && $2 == m { print $c }' "$work/results" | sort -n |
        awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
echo "cpu_work under palev-collect, $rounds rounds each, interleaved; medians (load: $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-9s %-7s %13s %12s %8s %8s %14s %18s\n' work mode "program wall" "program CPU" "wall x" "CPU x" \
    "palev-collect" "around the program"
for load in compute handover; do
    w0=$(median $load none 3) c0=$(median $load none 4)
    for m in $modes; do
        w=$(median $load "$m" 3) c=$(median $load "$m" 4) t=$(median $load "$m" 5)
        printf '%-9s %-7s %11.3f s %10.3f s %7.3fx %7.3fx %12.3f s %16.3f s\n' $load "$m" "$w" "$c" \
            "$(echo "$w / $w0" | bc -l)" "$(echo "$c / $c0" | bc -l)" "$t" "$(echo "$t - $w" | bc -l)"
    done
done
# The conversion alone, on the last round's perf.data of each perf mode.
for m in $modes; do
    [ "$m" = none ] && continue
    data=$work/handover-$m-$rounds/perf/perf.data
    t0=$(now)
    perf data convert --to-ctf "$work/convert-$m" -i "$data" > "$work/convert-$m.log" 2>&1 || fail "perf data convert failed"
    t1=$(now)
    samples=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$work/convert-$m.log" | tail -1)
    printf 'perf data convert --to-ctf (handover, %s): %.3f s for %s samples, %s of perf.data\n' "$m" \
        "$(echo "$t1 - $t0" | bc -l)" "$samples" "$(du -h "$data" | cut -f1)"
done
