#!/bin/bash
# SPDX-License-Identifier: MIT
# samples/luajit's tests: an instrumented LuaJIT built from Debian's source, traced for real.
# usage: luajit.sh CASE LJDIR PALEV_BUILD PALEV_TRACE WORKDIR
#   build   samples/luajit/build.sh LJDIR PALEV_BUILD (paleventing's build tree); exit 77 when
#           Debian's mirror cannot be reached and the source package is not cached
#   counts  GC cycles and compiled/aborted traces from the trace equal LuaJIT's own account in
#           the same process (collectgarbage, -jv), -jv's lines rebuilt exactly
#           and every compiled trace's code registered, patched, unloaded (luajit_check.py)
#   stacks  GCStep stacks from trace code and from the interpreter, with frame pointers and
#           with libunwind, exactly, named by the oracle (tests/stacks/stacks_oracle.py) and by
#           palev-trace stacks alike
#   states  an embedding (states.c, built against LJDIR's libluajit.a) with lua_States nested
#           on one thread and one on another thread: each Lua frame named by its own state
#   close   the same embedding closes a state and keeps firing in another, opens a new one
#   tools   palev-trace activities, stacks and report on a LuaJIT trace
#   perf    palev-collect --cpu --call-graph dwarf: perf report names the traces of perf.lua
#           and unwinds through them (perf inject --jit with the jitdump's unwinding info);
#           exit 77 when perf cannot record here
set -u
case=$1 lj=$2 palev_build=$3 palev_trace=$4 work=$5
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
. "$top/tests/e2e/lib.sh"
unset PALEV_STACK PALEV_STACK_DEPTH PALEV_LTTNG LD_PRELOAD PALEV_PERFMAP
rm -rf "$work" && mkdir -p "$work" || palev_fail "cannot create $work"

if [ "$case" = build ]; then
    rm -f "$lj/luajit"    # the other cases skip, rather than test an older build
    "$top/samples/luajit/build.sh" "$lj" "$palev_build"
    rc=$?
    [ $rc = 3 ] && { echo "SKIP: Debian's source package cannot be downloaded here"; exit 77; }
    exit $rc
fi
[ -x "$lj/luajit" ] || { echo "SKIP: no $lj/luajit (the luajit_build test did not build it)"; exit 77; }
palev_require_sessiond
palev_require_bt2
export LUA_PATH="$lj/?.lua;;"

# traced EVENTS -- ARGS... : ARGS run in a session recording EVENTS (comma list) of exactly
# that process (it waits on a fifo until the session tracks its pid); sets $pid.
traced() {
    local events=$1 s="palev-luajit-$case-$$"
    shift 2
    rm -rf "$work/trace"
    mkfifo "$work/go" || palev_fail "mkfifo"
    sh -c 'read _ < "$0"; exec "$@"' "$work/go" "$@" > "$work/out" 2> "$work/err" &
    pid=$!
    exec 3> "$work/go"
    palev_session_create "$s" "$work/trace"
    lttng untrack -u -s "$s" --all --vpid >/dev/null && lttng track -u -s "$s" --vpid="$pid" >/dev/null &&
        lttng add-context -u -s "$s" -c ch -t vtid -t procname >/dev/null &&
        lttng enable-event -u -s "$s" -c ch "$events" >/dev/null &&
        lttng start "$s" >/dev/null || palev_fail "cannot set up session $s"
    exec 3>&-
    wait $pid || palev_fail "luajit exited $?: $(cat "$work/err")"
    palev_session_stop "$s"
    rm -f "$work/go"
}

check=(/usr/bin/python3 "$here/luajit_check.py")
stack_events='LuaJIT:GCStep,Paleventing:*,lttng_ust_statedump:*'

# named: the oracle's names of the GCStep stacks (the trace's own frames from its CodeLoad).
named() {
    /usr/bin/python3 "$top/tests/stacks/stacks_oracle.py" "$work/trace" "$pid" |
        grep '^LuaJIT:GCStep: ' | sed 's/^LuaJIT:GCStep: //' > "$work/named"
    [ -s "$work/named" ] || palev_fail "no GCStep stack"
}

# Stacks cut after main (or run_c, states.c's thread), unless a Lua frame follows (a frame
# misplaced by a walker).
cut_main() {
    sed -E '/ < (main|run_c) < .*\.lua/!s/( < (main|run_c)) < .*$/\1/'
}

# palev-trace stacks names every frame of every GCStep stack as the oracle does (up to main:
# the oracle reads no symbols in libc, palev-trace does).
tool_matches_oracle() {
    "$palev_trace" stacks --pid "$pid" --folded --event GCStep "$work/trace" > "$work/folded" 2> "$work/tool.err" ||
        palev_fail "palev-trace stacks exited $?: $(cat "$work/tool.err")"
    sed -E 's/ ([0-9]+)$/\t\1/' "$work/folded" | awk -F '\t' '{
        n = split($1, f, ";"); s = f[n]
        for (i = n - 1; i >= 2; i--) s = s " < " f[i]
        for (j = 0; j < $2; j++) print s }' | cut_main | sort > "$work/tool"
    cut_main < "$work/named" | sort | diff -u - "$work/tool" > "$work/diff" ||
        palev_fail "palev-trace names the GCStep stacks otherwise: $(head -n 20 "$work/diff")"
}

# The embedding, built against the instrumented libluajit.a; its probe provider beside it.
build_states() {
    local pc
    pc=$(ls "$lj"/paleventing/lib*/pkgconfig/paleventing.pc "$lj"/paleventing/lib/*/pkgconfig/paleventing.pc 2>/dev/null | head -n 1)
    [ -n "$pc" ] || palev_fail "no paleventing.pc under $lj/paleventing"
    PKG_CONFIG_PATH=$(dirname "$pc") sh -c 'cc -O2 -fno-omit-frame-pointer -Wall -Werror -I"$1/src/src" \
        -o "$2/states" "$3/states.c" "$1/src/src/libluajit.a" \
        $(pkg-config --cflags --libs paleventing) -Wl,-rpath,$(pkg-config --variable=libdir paleventing) \
        -lm -ldl -lpthread' sh "$lj" "$work" "$here" > "$work/cc.log" 2>&1 ||
        palev_fail "states.c did not build: $(cat "$work/cc.log")"
    cp "$lj/libLuaJIT-lttng.so" "$work/" || palev_fail "no $lj/libLuaJIT-lttng.so"
}

case $case in
counts)
    traced 'LuaJIT:*,Paleventing:CodeLoad,Paleventing:CodeUnload' -- \
        "$lj/luajit" -jv="$work/jv.txt" "$here/counts.lua"
    "${check[@]}" counts "$work/trace" "$pid" "$work/jv.txt" "$work/out" ||
        palev_fail "counts: the trace and LuaJIT's own account differ"
    ;;
stacks)
    # From trace code: the collector called by the trace's GC check (lj_gc_step_jit), the trace
    # (the compiled loop of gcstack.lua line 6) named by its CodeLoad and stepped over by its
    # unwind rule, then the Lua frame that called it (line 12), lua_pcall and luajit's own C
    # frames. From the interpreter: the Lua frames at their lines. Both walks cross the VM's
    # frames (lj_BC_FUNCC: the frame pointer walk by the rule lj_palev.c gives lj_vm's code,
    # libunwind by the VM's CFI) and reach main, every stack but those from the trace exit
    # handler (whose frame neither walk crosses).
    want_trace='lj_gc_step < lj_gc_step_jit < TRACE_1::gcstack.lua:6 < gcstack.lua:12 < lua_pcall < docall < pmain < lj_BC_FUNCC < lua_cpcall < main'
    want_interp='lj_gc_step < lj_BC_TNEW < gcstack.lua:9 < gcstack.lua:13 < lua_pcall < docall < pmain < lj_BC_FUNCC < lua_cpcall < main'
    for stack in fp unwind; do
        PALEV_STACK=$stack traced "$stack_events" -- "$lj/luajit" "$here/gcstack.lua"
        named
        cut_main < "$work/named" | sort | uniq -c | sort -rn > "$work/counted"
        # The most frequent stack is the trace's, then the interpreter's.
        read -r n got < "$work/counted"
        [ "$got" = "$want_trace" ] ||
            palev_fail "$stack: from trace code, expected '$want_trace': $(head -n 5 "$work/counted")"
        cut_main < "$work/named" | grep -Fxq "$want_interp" ||
            palev_fail "$stack: from the interpreter, no stack reads '$want_interp': $(head -n 5 "$work/counted")"
        total=$(wc -l < "$work/named")
        main=$(cut_main < "$work/named" | grep -c ' < main$')
        exits=$(grep -c ' < lj_vm_exit_handler$' "$work/named")
        [ $((main + exits)) = "$total" ] ||
            palev_fail "$stack: $((total - main - exits)) of $total GCStep stacks end before main: $(grep -v -e ' < main$' -e ' < lj_vm_exit_handler$' "$work/counted" | head -n 5)"
        tool_matches_oracle
        echo "$stack, from trace code ($n of $total GCStep stacks): $got"
        echo "$stack, from the interpreter: $want_interp"
        echo "$stack: $main of $total GCStep stacks reach main, $exits end at lj_vm_exit_handler"
    done
    ;;
states|close)
    build_states
    if [ "$case" = states ]; then
        # A's frames and B's on one thread (a.lua calls to_b(), a C function running B's
        # inner()), C's on a thread of its own while A waits in with_thread(): each Lua frame
        # named by its state's walker, each state's trace by its chunk.
        cat > "$work/want" <<'END'
lj_gc_step < lj_gc_step_jit < TRACE_1::a.lua:4 < a.lua:10 < lua_pcall < run < main
lj_gc_step < lj_gc_step_jit < TRACE_1::b.lua:3 < b.lua:6 < lua_pcall < to_b < lj_BC_FUNCC < a.lua:8 < a.lua:11 < lua_pcall < run < main
lj_gc_step < lua_gc < lj_cf_collectgarbage < lj_BC_FUNCC < a.lua:7 < a.lua:11 < lua_pcall < run < main
lj_gc_step < lua_gc < lj_cf_collectgarbage < lj_BC_FUNCC < b.lua:7 < lua_pcall < to_b < lj_BC_FUNCC < a.lua:8 < a.lua:11 < lua_pcall < run < main
lj_gc_step < lua_gc < lj_cf_collectgarbage < lj_BC_FUNCC < c.lua:2 < c.lua:4 < lua_pcall < run < run_c
END
    else
        # B runs, is closed; A fires on (B's walker is gone with B: a walker left behind would
        # read B's freed memory), then D is opened, runs and is closed, and A fires again.
        cat > "$work/want" <<'END'
lj_gc_step < lj_gc_step_jit < TRACE_1::b.lua:3 < b.lua:6 < lua_pcall < call_global < main
lj_gc_step < lua_gc < lj_cf_collectgarbage < lj_BC_FUNCC < b.lua:7 < lua_pcall < call_global < main
lj_gc_step < lua_gc < lj_cf_collectgarbage < lj_BC_FUNCC < a.lua:2 < lua_pcall < call_global < main
lj_gc_step < lua_gc < lj_cf_collectgarbage < lj_BC_FUNCC < d.lua:1 < lua_pcall < run < main
END
    fi
    for stack in fp unwind; do
        PALEV_STACK=$stack traced "$stack_events" -- "$work/states" "$case"
        [ "$(cat "$work/out")" = "states: done" ] || palev_fail "$case ($stack): the embedding said $(cat "$work/out" "$work/err")"
        named
        # Each collectgarbage("step") stack, and the most frequent stack from each trace.
        cut_main < "$work/named" | sort | uniq -c | sort -rn > "$work/counted"
        { grep ' lj_cf_collectgarbage ' "$work/counted" | sed -E 's/^ *[0-9]+ //'
          for tr in a b; do
              grep " TRACE_1::$tr\.lua:" "$work/counted" | head -n 1 | sed -E 's/^ *[0-9]+ //'
          done; } | sort -u > "$work/got"
        sort "$work/want" | diff -u - "$work/got" ||
            palev_fail "$case ($stack): the stacks differ"
        tool_matches_oracle
    done
    echo "$case: $(wc -l < "$work/want") distinct stacks named exactly, with fp and unwind"
    ;;
perf)
    command -v perf > /dev/null || { echo "SKIP: no perf"; exit 77; }
    "$palev_build/bin/palev-collect" -m "$top/samples/luajit/luajit.man" --cpu --call-graph dwarf \
        -o "$work/collect" -- "$lj/luajit" "$here/perf.lua" > "$work/collect.log" 2>&1 ||
        palev_fail "palev-collect exited $?: $(tail -n 5 "$work/collect.log")"
    if [ ! -s "$work/collect/perf/perf.data" ]; then
        echo "SKIP: perf recorded nothing here: $(tail -n 3 "$work/collect.log")"
        exit 77
    fi
    [ -s "$work/collect/perf/perf.jit.data" ] ||
        palev_fail "no perf.jit.data (perf inject --jit): $(tail -n 5 "$work/collect.log")"
    perf script -i "$work/collect/perf/perf.jit.data" -F ip,sym > "$work/script.txt" 2> "$work/script.err" ||
        palev_fail "perf script exited $?: $(tail -n 3 "$work/script.err")"
    "${check[@]}" perf "$work/script.txt" ||
        palev_fail "perf: the samples in trace code are not named and unwound through"
    ;;
tools)
    traced 'LuaJIT:*,Paleventing:*,lttng_ust_statedump:*' -- "$lj/luajit" "$here/counts.lua"
    "${check[@]}" tasks "$work/trace" "$pid" > "$work/want" || palev_fail "the oracle failed"
    # activities: each task's count as the oracle pairs them, none unmatched.
    "$palev_trace" activities -m "$top/samples/luajit/luajit.man" --format tsv "$work/trace" \
        > "$work/act.tsv" 2> "$work/act.err" || palev_fail "activities exited $?: $(cat "$work/act.err")"
    awk -F '\t' '$1 ~ /^LuaJIT:/ { print $1, $2 }' "$work/act.tsv" | sort | diff -u "$work/want" - ||
        palev_fail "palev-trace activities counts differ from the oracle's"
    awk -F '\t' '$1 ~ /^LuaJIT:/ && ($(NF-1) != 0 || $NF != 0) { print }' "$work/act.tsv" > "$work/unmatched"
    [ -s "$work/unmatched" ] && palev_fail "unmatched Start/Stop: $(cat "$work/unmatched")"
    # stacks: GCStep's stacks name the Lua functions and traces of counts.lua.
    "$palev_trace" stacks --event GCStep --top 1000 "$work/trace" > "$work/stacks.txt" 2> "$work/stacks.err" ||
        palev_fail "stacks exited $?: $(cat "$work/stacks.err")"
    for want in 'counts\.lua:[0-9]+' 'TRACE_[0-9]+::counts\.lua:[0-9]+'; do
        grep -Eq "^ +$want\$" "$work/stacks.txt" ||
            palev_fail "palev-trace stacks names no frame $want: $(head -n 30 "$work/stacks.txt")"
    done
    # report: one page with both tasks and GCStep's call paths.
    "$palev_trace" report -m "$top/samples/luajit/luajit.man" -o "$work/report.html" "$work/trace" \
        2> "$work/report.err" || palev_fail "report exited $?: $(cat "$work/report.err")"
    for want in 'LuaJIT:GC' 'LuaJIT:Trace' 'LuaJIT:GCStep' 'counts.lua:[0-9]'; do
        grep -Eq "$want" "$work/report.html" || palev_fail "the report lacks $want"
    done
    cat "$work/want"
    ;;
*)
    palev_fail "unknown case $case"
    ;;
esac
echo "PASS: luajit $case"
