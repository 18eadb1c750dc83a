#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/bench/cpu_read.sh [BUILD_DIR]: how fast palev-trace reads perf's samples beside a trace,
# in one run. minivm's built-in workload (MS, default 5000 ms) recorded by palev-collect
# --cpu=20000 (many samples, deep JIT stacks), and by --off-cpu (sched_switch at every switch);
# then, on each trace, babeltrace2's counter sink over the LTTng trace and over perf's (the
# decoding floor) and palev-trace's commands, in CPU seconds (user + system, the median of
# ROUNDS runs: steadier than wall time on a shared machine). `cpu` reads both traces: its time
# is set against both counters, and its time beyond `summary` (which reads the LTTng trace only)
# against perf's counter, as samples per second. With valgrind, also in instructions (callgrind:
# no noise from the machine's load) on a shorter recording: the pass over the samples alone
# (cpu, less cpu stopped after the LTTng trace by a task it lacks) against perf's counter.
# MS: PALEV_CPU_READ_MS; ROUNDS: PALEV_CPU_READ_ROUNDS (default 3). Not a pass/fail test: it
# fails only when something cannot run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
. "$here/lib.sh"
ms=${PALEV_CPU_READ_MS:-5000}
rounds=${PALEV_CPU_READ_ROUNDS:-3}
work=$(bench_tmpdir palev-cpu-read) || exit 1
trap 'rm -rf "$work"' EXIT
pt=$build/trace/palev-trace collect=$build/bin/palev-collect minivm=$build/samples/minivm/minivm
[ -x "$pt" ] && [ -x "$collect" ] && [ -x "$minivm" ] || fail "build palev-trace, palev-collect and minivm in $build first"
command -v perf > /dev/null || fail "perf is not installed (linux-perf)"
pgrep -x lttng-sessiond > /dev/null || fail "no lttng-sessiond runs"
export PALEV_GEN=$build/generator/palev-gen

record() {
    "$collect" -m "$root/manifest/runtime.man" --no-check "$@" -- "$minivm" -t "$ms" > "$work/collect.log" 2>&1 ||
        fail "palev-collect $* exited $?: $(tail -3 "$work/collect.log")"
    ! grep -q '^palev-collect: --\(cpu\|off-cpu\): ' "$work/collect.log" || fail "perf did not record: $(cat "$work/collect.log")"
}

# CPU seconds of a command: the median of the rounds
measure() {
    local runs=()
    for _ in $(seq "$rounds"); do
        /usr/bin/time -f "%U %S" -o "$work/time" "$@" > /dev/null 2> "$work/stderr" ||
            fail "$* exited $?: $(head -3 "$work/stderr")"
        runs+=("$(awk '{ printf "%.3f", $1 + $2 }' "$work/time")")
    done
    printf '%s\n' "${runs[@]}" | sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }'
}

events() {
    babeltrace2 -c sink.utils.counter -p step=+0 "$1" 2>&1 | sed -n 's/^ *\([0-9]*\) Event messages$/\1/p'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", (b > 0 ? a / b : 0) }'; }

bench() {
    local trace=$1 off=$2 samples lttng cu cp sum cpu
    shift 2
    samples=$(events "$trace/perf/ctf") lttng=$(events "$trace/ust")
    echo
    echo "trace: minivm ${ms} ms, $* : $lttng LTTng events, $samples perf samples"
    cu=$(measure babeltrace2 -c sink.utils.counter -p step=+0 "$trace/ust")
    cp=$(measure babeltrace2 -c sink.utils.counter -p step=+0 "$trace/perf/ctf")
    sum=$(measure "$pt" summary "$trace")
    cpu=$(measure "$pt" cpu $off "$trace")
    printf '%-46s %8s\n' command "CPU s"
    printf '%-46s %8s\n' "babeltrace2 counter, LTTng trace" "$cu" "babeltrace2 counter, perf's samples" "$cp" \
        "palev-trace summary" "$sum" "palev-trace cpu $off" "$cpu"
    for cmd in "cpu $off --during Palev_Runtime:GC" "cpu $off --folded" "report -o $work/r.html" \
               "export --format speedscope -o $work/s.json"; do
        # shellcheck disable=SC2086
        printf '%-46s %8s\n' "palev-trace ${cmd%% -o*}" "$(measure "$pt" $cmd "$trace")"
    done
    echo "cpu vs both counters: $(ratio "$cpu" "$(awk -v a="$cu" -v b="$cp" 'BEGIN { print a + b }')");" \
         "cpu beyond summary vs perf's counter: $(ratio "$(awk -v a="$cpu" -v b="$sum" 'BEGIN { print a - b }')" "$cp")," \
         "$(awk -v n="$samples" -v a="$cpu" -v b="$sum" 'BEGIN { printf "%.2f M", (a > b ? n / (a - b) / 1e6 : 0) }') samples/s;" \
         "perf's counter: $(awk -v n="$samples" -v s="$cp" 'BEGIN { printf "%.2f M", (s > 0 ? n / s / 1e6 : 0) }') samples/s"
}

echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
record --cpu=20000 -o "$work/cpu"
bench "$work/cpu" "" "palev-collect --cpu=20000"
if [ "$(id -u)" = 0 ]; then
    record --off-cpu -o "$work/off"
    bench "$work/off" --off-cpu "palev-collect --off-cpu"
fi
# Instructions of a command (callgrind; any exit status: one run stops on purpose)
instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 > /dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

if command -v valgrind > /dev/null; then
    ms=4000
    record --cpu=20000 -o "$work/small"
    echo
    echo "instructions (callgrind), minivm ${ms} ms at 20 kHz: $(events "$work/small/perf/ctf") perf samples"
    counter=$(instructions babeltrace2 -c sink.utils.counter -p step=+0 "$work/small/perf/ctf")
    pass1=$(instructions "$pt" cpu --during Palev_Runtime:NoSuchTask "$work/small")
    whole=$(instructions "$pt" cpu "$work/small")
    printf '%-46s %14s\n' "babeltrace2 counter, perf's samples" "$counter" "palev-trace cpu, the LTTng trace only" "$pass1" \
        "palev-trace cpu" "$whole"
    echo "the samples' pass vs perf's counter: $(ratio "$((whole - pass1))" "$counter")"
fi
echo
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
