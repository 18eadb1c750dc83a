#!/bin/bash
# SPDX-License-Identifier: MIT
# Stacks read back from a real trace: each Paleventing:Stack event of the host, every frame named
# by the oracle (stacks_oracle.py: CodeLoad/CodeRundown by time, statedump + nm), must be exactly
# the call chain the host ran, innermost first, up to main.
# palev-trace stacks must name them as the oracle does.
# usage: stacks.sh CASE STACK_HOST STACK_HOST_NOFP PLUGIN MINIVM PALEV_TRACE WORKDIR
set -u
case=$1 host=$2 nofp=$3 plugin=$4 minivm=$5 palev_trace=$6 work=$7
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
palev_require_sessiond
rm -rf "$work" && mkdir -p "$work" || palev_fail "cannot create $work"
unset PALEV_STACK PALEV_STACK_DEPTH PALEV_LTTNG LD_PRELOAD
session="palev-stacks-$case-$$"
events=("Palev_Stacks:*" "Paleventing:*" "lttng_ust_statedump:*" "lttng_ust_dl:*")
dl=liblttng-ust-dl.so.1   # records the plugin's dlopen (bin_info covers what was loaded before)

# session_on OUT PID EVENT... : a started session writing to OUT and recording the events of
# process PID only: other processes of the same user (other tests' runtimes) stay out of the trace
# palev-trace reads.
session_on() {
    local out=$1 p=$2 ev
    shift 2
    palev_session_create "$session" "$out"
    for ev in "$@"; do
        lttng enable-event -u -s "$session" -c ch "$ev" >/dev/null || palev_fail "lttng enable-event $ev"
    done
    lttng untrack -u -s "$session" --all --vpid >/dev/null &&
        lttng track -u -s "$session" --vpid="$p" >/dev/null || palev_fail "lttng track --vpid=$p"
    lttng start "$session" >/dev/null || palev_fail "lttng start"
}

# run_host ENV... -- ARGS... : the host, started stopped, in a session of its own; sets $pid
run_host() {
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" sh -c 'kill -STOP $$ && exec "$@"' sh "$@" > "$work/host.out" 2> "$work/host.err" &
    pid=$!
    for _ in $(seq 500); do
        [ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" = T ] && break
        sleep 0.01
    done
    session_on "$work/trace" "$pid" "${events[@]}"
    kill -CONT "$pid"
    wait $pid || palev_fail "the host exited $?: $(cat "$work/host.err")"
    palev_session_stop "$session"
}

# The oracle's stacks, each cut after main (below it: libc's start code).
named() {
    /usr/bin/python3 "$here/stacks_oracle.py" "$work/trace" "$pid" | sed -E 's/( < main) < .*$/\1/'
}

# palev-trace's folded stacks of the host (--pid: other tests' processes of the same user may be
# in the session), one line per occurrence as the oracle prints them, cut after main.
tool_stacks() {
    "$palev_trace" stacks --pid "$pid" --folded "$@" "$work/trace" > "$work/folded" 2> "$work/tool.err" ||
        palev_fail "palev-trace stacks exited $?: $(cat "$work/tool.err")"
    sed -E 's/ ([0-9]+)$/\t\1/' "$work/folded" | awk -F '\t' '{
        n = split($1, f, ";"); s = f[1] ": " f[n]
        for (i = n - 1; i >= 2; i--) s = s " < " f[i]
        for (j = 0; j < $2; j++) print s }' | sed -E 's/( < main) < .*$/\1/'
}

check() {
    named > "$work/got" || palev_fail "the oracle failed"
    diff -u "$work/want" "$work/got" || palev_fail "$case: the stacks differ"
    tool_stacks | grep ' < main$' | sort > "$work/tool"
    sort "$work/want" | diff -u - "$work/tool" || palev_fail "$case: palev-trace names them otherwise"
}

# vm_frames EVENT: its stacks reduced to the innermost frame, the VM's methods and main; every
# frame up to main must be named (no bare address).
vm_frames() {
    named | grep "^$1: " | sed "s/^$1: //" | while read -r line; do
        case $line in *"< 0x"*" < main"*|"0x"*) echo "unnamed frame: $line"; continue ;; esac
        echo "$line" | awk -F ' < ' '{ s = $1; for (i = 2; i <= NF; i++) if ($i ~ /^Stacks\./ || $i == "main") s = s " < " $i; print s }'
    done
}

recursion() {
    local s="" i
    for ((i = 0; i < 50; i++)); do s="$s < stack_recurse"; done
    echo "${s# < }"
}

chains_want() {
    cat <<END
Palev_Stacks:Fire: stack_c < stack_b < stack_a < chains < main
Palev_Stacks:Fire: $(recursion) < chains < main
Palev_Stacks:Fire: stack_from_plugin < stack_plugin_inner < stack_plugin_run < chains < main
Palev_Stacks:Mark: chains < main
Paleventing:EventSource: chains < main
END
}

case $case in
chains)
    run_host LD_PRELOAD=$dl PALEV_STACK_DEPTH=64 -- "$host" chains "$plugin"
    chains_want > "$work/want"
    check
    # PALEV_STACK_DEPTH unset: 32 frames at most, the innermost ones.
    run_host LD_PRELOAD=$dl -- "$host" chains "$plugin"
    named | sed -n 2p > "$work/got"
    printf 'Palev_Stacks:Fire: %s\n' "$(recursion | cut -d'<' -f1-32 | sed 's/ $//')" > "$work/want32"
    diff -u "$work/want32" "$work/got" || palev_fail "default depth: not the 32 innermost frames"
    ;;
jit)
    run_host -- "$host" jit
    printf '%s\n' "Palev_Stacks:Fire: stack_from_jit < jit_one < run_code < jit < main" \
        "Palev_Stacks:Fire: stack_from_jit < jit_two < run_code < jit < main" > "$work/want"
    check
    ;;
interp)
    run_host -- "$host" interp
    echo "Palev_Stacks:Fire: stack_c < Script.inner < Script.outer < stack_interp_loop < interp < main" \
        > "$work/want"
    check
    # The text report, up to main.
    "$palev_trace" stacks --pid "$pid" --event Palev_Stacks:Fire "$work/trace" | sed '/^      main$/q' > "$work/text"
    printf '%s\n' "Palev_Stacks:Fire: 1 stack, 1 distinct" "  #1  1 (100.0%)" "      stack_c" \
        "      Script.inner" "      Script.outer" "      stack_interp_loop" "      interp" \
        "      main" | diff -u - "$work/text" || palev_fail "palev-trace stacks: the text differs"
    # libunwind, frame by frame (a walker needs each frame's extent): the same stack.
    run_host PALEV_STACK=unwind -- "$host" interp
    check
    # No Stack event of that name: said, exit 1.
    "$palev_trace" stacks --event Nope "$work/trace" > /dev/null 2> "$work/nope.err"
    [ $? = 1 ] || palev_fail "palev-trace stacks --event Nope: not exit 1"
    echo "palev-trace: $work/trace: no Paleventing:Stack event for Nope (record them with \`lttng enable-event -u Paleventing:Stack\`)" |
        diff -u - "$work/nope.err" || palev_fail "palev-trace stacks --event Nope: message"
    # No trace at all: said once, exit 1.
    mkdir -p "$work/empty"
    "$palev_trace" stacks "$work/empty" > /dev/null 2> "$work/empty.err"
    [ $? = 1 ] || palev_fail "palev-trace stacks on an empty directory: not exit 1"
    echo "palev-trace: error: $work/empty: no CTF trace in this directory (no \"metadata\" file below it)" |
        diff -u - "$work/empty.err" || palev_fail "palev-trace stacks on an empty directory: message"
    ;;
rundown)
    # The code is loaded before any session exists: only CodeRundown can name it.
    flag="$work/loaded"
    "$host" rundown "$flag" > "$work/host.out" 2> "$work/host.err" &
    pid=$!
    for _ in $(seq 300); do [ -e "$flag" ] && break; sleep 0.05; done
    [ -e "$flag" ] || palev_fail "the host did not load its code"
    session_on "$work/trace" "$pid" "${events[@]}"
    rm -f "$flag"
    wait $pid || palev_fail "the host exited $?: $(cat "$work/host.err")"
    palev_session_stop "$session"
    echo "Palev_Stacks:Fire: stack_from_jit < jit_early < run_code < rundown < main" > "$work/want"
    check
    babeltrace2 "$work/trace" | grep -F "vpid = $pid }" | grep -c 'Paleventing:CodeRundown:.*name = "jit_early"' \
        > "$work/rundowns"
    [ "$(cat "$work/rundowns")" = 1 ] || palev_fail "expected 1 CodeRundown of jit_early, got $(cat "$work/rundowns")"
    ;;
nofp)
    # Without frame pointers: the walk stops early, never faults; the first frame is still right.
    run_host LD_PRELOAD=$dl -- "$nofp" chains "$plugin"
    named > "$work/got" || palev_fail "the oracle failed"
    [ "$(wc -l < "$work/got")" = 5 ] || palev_fail "nofp: expected 5 stacks: $(cat "$work/got")"
    chains_want | cut -d' ' -f1-2 > "$work/want"
    cut -d' ' -f1-2 "$work/got" > "$work/first"
    diff -u "$work/want" "$work/first" || palev_fail "nofp: the innermost frames differ"
    [ "$(grep -o stack_recurse "$work/got" | wc -l)" -lt 50 ] ||
        palev_fail "nofp: a full stack through code without frame pointers?"
    # libunwind follows the DWARF CFI: the full stacks again.
    run_host LD_PRELOAD=$dl PALEV_STACK=unwind PALEV_STACK_DEPTH=64 -- "$nofp" chains "$plugin"
    chains_want > "$work/want"
    check
    ;;
minivm)
    # A collection from a JIT-compiled method and one from an interpreted one.
    events=("Palev_Runtime:GCStart" "Paleventing:*" "lttng_ust_statedump:*")
    run_host -- "$minivm" "$here/gc_stacks.masm"
    vm_frames Palev_Runtime:GCStart > "$work/got"
    printf '%s\n' "heap_collect < Stacks.Gc.hot[jit] < Stacks.Gc.main < main" \
        "heap_collect < Stacks.Gc.cold < Stacks.Gc.main < main" > "$work/want"
    diff -u "$work/want" "$work/got" || palev_fail "minivm: the methods in the GCStart stacks differ"
    named | grep '^Palev_Runtime:GCStart: ' | sort > "$work/oracle"
    tool_stacks --event GCStart | sort | diff -u "$work/oracle" - ||
        palev_fail "minivm: palev-trace names the GCStart stacks otherwise"
    # The HTML report's "Where they come from": the same two call paths under GCStart.
    "$palev_trace" report --pid "$pid" -o "$work/report.html" "$work/trace" 2> "$work/report.err" ||
        palev_fail "palev-trace report exited $?: $(cat "$work/report.err")"
    /usr/bin/python3 - "$work/report.html" <<'PY' | sed -E 's/( < main) < .*$/\1/' | sort |
import re, sys
page = open(sys.argv[1]).read()
section = page.split("<h2>Where they come from</h2>")[1].split("<h2>")[0]
table = section.split('<h3 class="task">Palev_Runtime:GCStart</h3>')[1].split("</table>")[0]
for count, path in re.findall(r'<tr><td>(\d+) \([^)]*\)</td><td><ol class="stack">(.*?)</ol>', table):
    for _ in range(int(count)):
        print("Palev_Runtime:GCStart: " + " < ".join(re.findall(r"<li>(.*?)</li>", path)))
PY
        diff -u "$work/oracle" - || palev_fail "minivm: the report's call paths differ"
    # The Chrome export: each GCStart's record carries its stack ("sf" into "stackFrames", every
    # frame named as the oracle names it); no Stack event is a record of its own.
    "$palev_trace" export --pid "$pid" -o "$work/chrome.json" "$work/trace" 2> "$work/export.err" ||
        palev_fail "palev-trace export exited $?: $(cat "$work/export.err")"
    /usr/bin/python3 - "$work/chrome.json" "$pid" <<'PY' | sed -E 's/( < main) < .*$/\1/' | sort |
import json, sys
doc = json.load(open(sys.argv[1]))
frames, pid = doc["stackFrames"], int(sys.argv[2])
for r in doc["traceEvents"]:
    if r.get("name") == "Stack" or "frames" in r.get("args", {}):
        sys.exit("a Stack event exported as a record: %s" % r)
    if r["pid"] == pid and "sf" in r:
        if (r["ph"], r["name"], r["cat"]) != ("B", "GC", "Palev_Runtime"):
            sys.exit("a stack on another record than GCStart's: %s" % r)
        chain, f = [], str(r["sf"])
        while f:
            chain.append(frames[f]["name"])
            f = frames[f].get("parent")
        print("Palev_Runtime:GCStart: " + " < ".join(chain))
PY
        diff -u "$work/oracle" - || palev_fail "minivm: the Chrome export's stacks differ"
    ;;
collect)
    # As a user does it: palev-collect --stacks, then palev-trace stacks, the manifest read from
    # the trace directory. Both methods of the collections are named.
    collect=$(dirname "$palev_trace")/../bin/palev-collect
    "$collect" -m "$here/../../manifest/runtime.man" --keywords GC --stacks -o "$work/trace" \
        -- "$minivm" "$here/gc_stacks.masm" > "$work/collect.out" 2> "$work/collect.err" ||
        palev_fail "palev-collect --stacks exited $?: $(cat "$work/collect.err")"
    cpid=$(sed -n 's/^palev-collect: .* runs as pid \([0-9]*\)$/\1/p' "$work/collect.out" "$work/collect.err" | head -1)
    "$palev_trace" stacks ${cpid:+--pid "$cpid"} --event GCStart "$work/trace" > "$work/stacks.txt" 2> "$work/tool.err" ||
        palev_fail "palev-trace stacks exited $?: $(cat "$work/tool.err")"
    cat "$work/stacks.txt"
    head -1 "$work/stacks.txt" | grep -q '^Palev_Runtime:GCStart: 2 stacks, 2 distinct$' ||
        palev_fail "collect: not the 2 GCStart stacks of gc_stacks.masm"
    for m in 'Stacks.Gc.hot\[jit\]' 'Stacks.Gc.cold' 'Stacks.Gc.main' heap_collect main; do
        grep -Eq "^ +$m( |$)" "$work/stacks.txt" || palev_fail "collect: $m is not named"
    done
    grep -E '^  #[0-9]' "$work/stacks.txt" > "$work/want"
    ;;
minivm-rundown)
    # The session starts after the JIT compiled Stacks.Late.hot: CodeRundown names it.
    "$minivm" "$here/gc_late.masm" > "$work/host.out" 2> "$work/host.err" &
    pid=$!
    sleep 0.5
    session_on "$work/trace" "$pid" "Palev_Runtime:GCStart" "Paleventing:*" "lttng_ust_statedump:*"
    wait $pid || palev_fail "minivm exited $?: $(cat "$work/host.err")"
    palev_session_stop "$session"
    babeltrace2 "$work/trace" | grep -F "vpid = $pid }" | grep -F 'name = "Stacks.Late.hot[jit]"' |
        sed -E 's/^.*(Paleventing:Code[A-Za-z]+):.*$/\1/' > "$work/hot"
    echo Paleventing:CodeRundown | diff -u - "$work/hot" || palev_fail "not exactly one CodeRundown of hot"
    vm_frames Palev_Runtime:GCStart > "$work/got"
    printf '%s\n' "heap_collect < Stacks.Late.hot[jit] < Stacks.Late.main < main" \
        "heap_collect < Stacks.Late.cold < Stacks.Late.main < main" > "$work/want"
    diff -u "$work/want" "$work/got" || palev_fail "minivm-rundown: the methods differ"
    named | grep '^Palev_Runtime:GCStart: ' | sort > "$work/oracle"
    tool_stacks --event GCStart | sort | diff -u "$work/oracle" - ||
        palev_fail "minivm-rundown: palev-trace names the GCStart stacks otherwise"
    ;;
speedscope)
    # export --format speedscope: the stacks the host ran, and speedscope (npm, headless
    # Chromium) loads the file: its profiles shown, no import error.
    . "$here/../trace/browser.sh"
    trap 'pt_unserve; palev_cleanup_sessions' EXIT
    run_host LD_PRELOAD=$dl PALEV_STACK_DEPTH=64 -- "$host" chains "$plugin"
    "$palev_trace" export --pid "$pid" --format speedscope -o "$work/gc.json" "$work/trace" ||
        palev_fail "export --format speedscope exited $?"
    /usr/bin/python3 - "$work/gc.json" > "$work/tool" <<'PY' || palev_fail "the export is not speedscope's format"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
names = [f["name"] for f in d["shared"]["frames"]]
for p in d["profiles"]:
    assert p["type"] == "sampled" and len(p["samples"]) == len(p["weights"])
    assert p["endValue"] == sum(p["weights"])
    for sample, weight in zip(p["samples"], p["weights"]):
        frames = [names[i] for i in reversed(sample)]
        frames = frames[:frames.index("main") + 1]
        for _ in range(weight):
            print("%s: %s" % (p["name"], " < ".join(frames)))
PY
    chains_want | sort > "$work/want"
    sort "$work/tool" | diff -u "$work/want" - || palev_fail "speedscope: the stacks differ"
    node=$work/../node
    if [ ! -f "$node/node_modules/speedscope/dist/release/index.html" ]; then
        . "$here/../npm.sh"
        palev_npm_install "$node" speedscope@1.25.0 || exit $?
    fi
    cp -r "$node/node_modules/speedscope/dist/release" "$work/site" && cp "$work/gc.json" "$work/site/" ||
        palev_fail "cannot copy speedscope"
    pt_serve "$work/site" "$work/http.log" || palev_fail "no HTTP server"
    pt_chromium "http://127.0.0.1:$PT_HTTP_PORT/index.html#profileURL=/gc.json" \
        "$work/speedscope.png" "$work/speedscope.html" || palev_fail "chromium failed"
    pt_not_blank "$work/speedscope.png" > /dev/null || palev_fail "blank screenshot"
    ! grep -q "Something went wrong\|Unrecognized format" "$work/speedscope.html" ||
        palev_fail "speedscope could not import the export"
    grep -qF "<title>$work/trace - speedscope</title>" "$work/speedscope.html" ||
        palev_fail "speedscope did not load the export"
    # Three events with stacks: three profiles, the first one shown.
    grep -q 'Palev_Stacks:Fire <span[^>]*>(1/3)</span>' "$work/speedscope.html" ||
        palev_fail "speedscope does not show the 3 profiles"
    ;;
stress)
    # Sessions started and stopped (a rundown each time) while 4 threads fire, load and unload
    # code: the host exits 0, and every Fire stack starts where the host fired it.
    events=("Palev_Stacks:*" "Paleventing:Stack" "Paleventing:CodeRundown" "lttng_ust_statedump:*")
    touch "$work/running"
    "$host" stress "$work/running" > "$work/host.out" 2> "$work/host.err" &
    pid=$!
    for i in 1 2 3; do
        session_on "$work/trace$i" "$pid" "${events[@]}"
        sleep 0.3
        palev_session_stop "$session"
    done
    rm -f "$work/running"
    wait $pid || palev_fail "the host exited $?: $(cat "$work/host.err")"
    mv "$work/trace1" "$work/trace"
    "$palev_trace" stacks --pid "$pid" --folded --event Fire "$work/trace" > "$work/folded" 2> "$work/tool.err" ||
        palev_fail "palev-trace stacks exited $?: $(cat "$work/tool.err")"
    [ -s "$work/folded" ] || palev_fail "no Fire stack recorded"
    grep -v ';stress_fire [0-9]*$' "$work/folded" > "$work/bad"
    [ ! -s "$work/bad" ] || palev_fail "stacks not starting at stress_fire: $(head -3 "$work/bad")"
    echo "stress: $(awk '{ n += $NF } END { print n }' "$work/folded")" > "$work/want"
    ;;
valgrind)
    # Under valgrind with the installed suppressions only: JIT frames, a walker, libunwind; the
    # stacks still exact.
    vg=(valgrind --error-exitcode=99 --leak-check=full --quiet --keep-debuginfo=yes
        --suppressions="$here/../../pal/valgrind.supp")
    for stack in fp unwind; do
        run_host PALEV_STACK=$stack -- "${vg[@]}" "$host" interp
        echo "Palev_Stacks:Fire: stack_c < Script.inner < Script.outer < stack_interp_loop < interp < main" \
            > "$work/want"
        check
        run_host PALEV_STACK=$stack -- "${vg[@]}" "$host" jit
        printf '%s\n' "Palev_Stacks:Fire: stack_from_jit < jit_one < run_code < jit < main" \
            "Palev_Stacks:Fire: stack_from_jit < jit_two < run_code < jit < main" > "$work/want"
        check
        # JIT code without frame pointer: its rules read by the walk, registered with libunwind
        run_host PALEV_STACK=$stack -- "${vg[@]}" "$host" jitnofp
        printf '%s\n' "Palev_Stacks:Fire: stack_from_jit < jit_fixed < run_code < jitnofp < main" \
            "Palev_Stacks:Fire: stack_from_jit < jit_cfi < run_code < jitnofp < main" \
            "Palev_Stacks:Fire: stack_from_jit < jit_bare" > "$work/want"
        named > "$work/got" || palev_fail "the oracle failed"
        diff -u "$work/want" "$work/got" || palev_fail "valgrind jitnofp ($stack): the stacks differ"
    done
    ;;
jitnofp)
    # JIT code keeping no frame pointer (rbp cleared): described by a fixed frame or by CFI, the
    # walk steps over it to main, with frame pointers and with libunwind; undescribed, it ends
    # there. palev-trace names them as the oracle does (up to main: the bare case is left out).
    printf '%s\n' "Palev_Stacks:Fire: stack_from_jit < jit_fixed < run_code < jitnofp < main" \
        "Palev_Stacks:Fire: stack_from_jit < jit_cfi < run_code < jitnofp < main" \
        "Palev_Stacks:Fire: stack_from_jit < jit_bare" > "$work/want"
    for stack in fp unwind; do
        run_host PALEV_STACK=$stack -- "$host" jitnofp
        named > "$work/got" || palev_fail "the oracle failed"
        diff -u "$work/want" "$work/got" || palev_fail "jitnofp ($stack): the stacks differ"
        tool_stacks | grep ' < main$' | sort > "$work/tool"
        grep ' < main$' "$work/want" | sort | diff -u - "$work/tool" ||
            palev_fail "jitnofp ($stack): palev-trace names them otherwise"
    done
    ;;
walkers)
    # A process-wide walker and a walker per thread (two VM states), lines, removals; palev-trace
    # prints a frame with a line as name:line, as the oracle does.
    run_host -- "$host" walkers
    printf '%s\n' \
        "Palev_Stacks:Fire: stack_c < Script.other:3 < Script.outer:7 < stack_walked_loop < walkers_thread" \
        "Palev_Stacks:Fire: stack_c < Script.inner:12 < Script.outer:7 < stack_walked_loop < walkers < main" \
        "Palev_Stacks:Fire: stack_c < Script.inner:12 < stack_walked_loop < walkers < main" \
        "Palev_Stacks:Fire: stack_c < stack_walked_loop < walkers < main" > "$work/want"
    named | sed -E 's/( < walkers_thread) < .*$/\1/' > "$work/got" || palev_fail "the oracle failed"
    diff -u "$work/want" "$work/got" || palev_fail "walkers: the stacks differ"
    tool_stacks | sed -E 's/( < walkers_thread) < .*$/\1/' | sort > "$work/tool"
    sort "$work/want" | diff -u - "$work/tool" || palev_fail "walkers: palev-trace names them otherwise"
    # The Chrome export's stackFrames name them alike.
    "$palev_trace" export --pid "$pid" -o "$work/chrome.json" "$work/trace" 2> "$work/export.err" ||
        palev_fail "palev-trace export exited $?: $(cat "$work/export.err")"
    /usr/bin/python3 - "$work/chrome.json" <<'PY' | sed -E 's/( < (main|walkers_thread)) < .*$/\1/' |
import json, sys
doc = json.load(open(sys.argv[1]))
for r in doc["traceEvents"]:
    if "sf" in r:
        chain, f = [], str(r["sf"])
        while f:
            chain.append(doc["stackFrames"][f]["name"])
            f = doc["stackFrames"][f].get("parent")
        print("%s: %s" % (r["name"], " < ".join(chain)))
PY
        sort | diff -u <(sort "$work/want") - || palev_fail "walkers: the Chrome export names them otherwise"
    ;;
patch)
    # A patch is a new version from its time on (one keeping the name is named alike); an area
    # unload frees the range, every version of it: the same bytes run once more before new code
    # takes their place are no longer named. CodeLoad carries the version.
    run_host -- "$host" patch
    printf '%s\n' "Palev_Stacks:Fire: stack_from_jit < jit_v0 < run_code < patch < main" \
        "Palev_Stacks:Fire: stack_from_jit < jit_v1 < run_code < patch < main" \
        "Palev_Stacks:Fire: stack_from_jit < jit_v1 < run_code < patch < main" \
        "Palev_Stacks:Fire: stack_from_jit < ADDRESS < run_code < patch < main" \
        "Palev_Stacks:Fire: stack_from_jit < jit_after < run_code < patch < main" > "$work/want"
    named | sed -E 's/ < 0x[0-9a-f]+ < / < ADDRESS < /' > "$work/got" || palev_fail "the oracle failed"
    diff -u "$work/want" "$work/got" || palev_fail "patch: the stacks differ"
    tool_stacks | grep ' < main$' | sed -E 's/ < 0x[0-9a-f]+ < / < ADDRESS < /' | sort > "$work/tool"
    sort "$work/want" | diff -u - "$work/tool" || palev_fail "patch: palev-trace names them otherwise"
    palev_read "$work/trace" "$pid" | grep -E '^Paleventing:Code(Load|Unload)' |
        sed -E 's/start = 0x[0-9A-Fa-f]+/start = S/' > "$work/code"
    printf '%s\n' 'Paleventing:CodeLoad: { start = S, size = 8, kind = 0, name = "jit_v0", version = 0 }' \
        'Paleventing:CodeLoad: { start = S, size = 8, kind = 0, name = "jit_v1", version = 1 }' \
        'Paleventing:CodeLoad: { start = S, size = 8, kind = 0, name = "jit_v1", version = 2 }' \
        'Paleventing:CodeUnload: { start = S, size = 8 }' \
        'Paleventing:CodeLoad: { start = S, size = 8, kind = 0, name = "jit_after", version = 0 }' |
        diff -u - "$work/code" || palev_fail "patch: the code events differ"
    ;;
dynamic)
    # An event defined at run time gets its stack like a generated one.
    events=("Palev_StacksDyn:*" "Paleventing:Stack" "lttng_ust_statedump:*")
    run_host -- "$host" dynamic
    echo "Palev_StacksDyn:Tick: dyn_fire < dynamic < main" > "$work/want"
    check
    ;;
*)
    palev_fail "unknown case $case"
    ;;
esac
echo "$case: $(wc -l < "$work/want") stacks named exactly"
