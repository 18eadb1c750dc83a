#!/bin/bash
# SPDX-License-Identifier: MIT
# What paleventing costs LuaJIT when no session records: stock and instrumented LuaJIT built the
# same way (build.sh, --stock), bench.lua and `luajit -e ''` run alternately, medians and the
# ratio instrumented / stock printed, all from one run. CPU time (user + system) is the
# figure to read on a shared machine; wall time is printed beside it.
# usage: samples/luajit/bench.sh DIR [RUNS]   (builds DIR/stock and DIR/instrumented if absent)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 DIR [RUNS]" >&2; exit 2; }
mkdir -p "$1"
dir=$(cd "$1" && pwd)
runs=${2:-11}
[ -x "$dir/stock/luajit" ] || "$here/build.sh" --stock --cache "$dir/cache" "$dir/stock"
[ -x "$dir/instrumented/luajit" ] || "$here/build.sh" --cache "$dir/cache" "$dir/instrumented"
unset PALEV_LTTNG PALEV_PERFMAP PALEV_STACK

# time_run OUT ARGS...: append "wall cpu" (milliseconds) of one run of ARGS to OUT.
TIMEFORMAT='%3R %3U %3S'
time_run() {
    local out=$1 t
    shift
    t=$( { time "$@" > /dev/null 2>&1; } 2>&1 )
    echo "$t" | awk '{ printf "%.0f %.0f\n", $1 * 1000, ($2 + $3) * 1000 }' >> "$out"
}
median() {  # median of column $2 of file $1
    sort -g -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in $(seq "$runs"); do
    time_run "$work/bench.stock" "$dir/stock/luajit" "$here/bench.lua"
    time_run "$work/bench.inst" "$dir/instrumented/luajit" "$here/bench.lua"
    PALEV_LTTNG=0 time_run "$work/bench.off" "$dir/instrumented/luajit" "$here/bench.lua"
done
for i in $(seq $((runs * 3))); do
    time_run "$work/start.stock" "$dir/stock/luajit" -e ''
    time_run "$work/start.inst" "$dir/instrumented/luajit" -e ''
    PALEV_LTTNG=0 time_run "$work/start.off" "$dir/instrumented/luajit" -e ''
done

row() {  # row NAME FILE BASELINE
    local w c bw bc
    w=$(median "$2" 1) c=$(median "$2" 2) bw=$(median "$3" 1) bc=$(median "$3" 2)
    printf '%-44s %7s ms %7s ms   %6.2f  %6.2f\n' "$1" "$w" "$c" \
        "$(echo "$w $bw" | awk '{ print ($2 > 0 ? $1 / $2 : 0) }')" \
        "$(echo "$c $bc" | awk '{ print ($2 > 0 ? $1 / $2 : 0) }')"
}
echo "medians of $runs runs of bench.lua, $((runs * 3)) of -e '' (load $(cut -d' ' -f1 /proc/loadavg))"
printf '%-44s %10s %10s   %6s  %6s\n' "" "wall" "cpu" "ratio" "ratio"
row "bench.lua, stock" "$work/bench.stock" "$work/bench.stock"
row "bench.lua, instrumented, no session" "$work/bench.inst" "$work/bench.stock"
row "bench.lua, instrumented, PALEV_LTTNG=0" "$work/bench.off" "$work/bench.stock"
row "luajit -e '', stock" "$work/start.stock" "$work/start.stock"
row "luajit -e '', instrumented" "$work/start.inst" "$work/start.stock"
row "luajit -e '', instrumented, PALEV_LTTNG=0" "$work/start.off" "$work/start.stock"
