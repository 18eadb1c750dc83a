#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/bench/trace_stacks.sh [BUILD_DIR]: palev-trace on a trace recorded with stacks, in one
# run: minivm's built-in workload (2.5 s) recorded by `palev-collect --stacks` (a Stack event
# after every event), and --cpu where perf may record (the report then draws where the CPU went
# too), then summary, stacks, report and both exports on the same trace, in CPU seconds and as a
# ratio to summary (the reading floor: every command decodes every event once).
# Also the Chrome export's size. Not a pass/fail test: it fails only when something cannot run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build-bench}
. "$here/lib.sh"
work=$(bench_tmpdir palev-trace-stacks-bench) || exit 1
trap 'rm -rf "$work"' EXIT

bench_build palev-trace palev-gen minivm
# palev-collect: a script configured into bin/, or a program of its own target
cmake --build "$build" -j"$(nproc)" --target palev-collect >/dev/null 2>&1 || true
[ -x "$build/bin/palev-collect" ] || fail "no $build/bin/palev-collect"
pt=$build/trace/palev-trace
pgrep -x lttng-sessiond >/dev/null || fail "no lttng-sessiond runs"
cpu=()
command -v perf > /dev/null && cpu=(--cpu)
"$build/bin/palev-collect" -m "$root/manifest/runtime.man" --stacks "${cpu[@]}" --no-check -o "$work/trace" \
    -- "$build/samples/minivm/minivm" > "$work/collect.out" 2>&1 || fail "palev-collect: $(tail -3 "$work/collect.out")"

# CPU seconds (user + system: steadier than wall time on a shared machine) of a command
measure() {
    /usr/bin/time -f "%U %S" -o "$work/time" "$@" > /dev/null 2> "$work/stderr"
    local rc=$?
    [ $rc = 0 ] || fail "$* exited $rc: $(head -3 "$work/stderr")"
    awk '{ printf "%.2f\n", $1 + $2 }' "$work/time"
}

counts=$(babeltrace2 -c sink.utils.counter -p step=+0 "$work/trace/ust" 2>&1)
events=$(echo "$counts" | sed -n 's/^ *\([0-9]*\) Event messages$/\1/p')
stacks=$(babeltrace2 "$work/trace/ust" 2>/dev/null | grep -c 'Paleventing:Stack:')
samples=0
[ -d "$work/trace/perf/ctf" ] &&
    samples=$(babeltrace2 -c sink.utils.counter -p step=+0 "$work/trace/perf/ctf" 2>&1 | sed -n 's/^ *\([0-9]*\) Event messages$/\1/p')
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "trace: minivm, 2.5 s, palev-collect --stacks ${cpu[*]}: $events events, $stacks Stack events, $samples CPU samples"
printf '%-40s %8s %10s\n' command "CPU s" "/ summary"
base=$(measure "$pt" summary "$work/trace")
printf '%-40s %8s %10s\n' "palev-trace summary" "$base" "1.00x"
for cmd in "stacks" "stacks --folded" "report -o $work/r.html" "export -o $work/c.json" \
           "export --format speedscope -o $work/s.json"; do
    s=$(measure "$pt" $cmd "$work/trace")
    printf '%-40s %8s %10s\n' "palev-trace ${cmd%% -o*}" "$s" "$(awk -v a="$s" -v b="$base" 'BEGIN { printf "%.2fx", (b > 0 ? a / b : 0) }')"
done
echo "Chrome export: $(du -k "$work/c.json" | cut -f1) KiB, $(grep -o '"sf":' "$work/c.json" | wc -l) records with a stack," \
     "$(grep -c '^"[0-9]*":{"name"' "$work/c.json") stack frames"
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
