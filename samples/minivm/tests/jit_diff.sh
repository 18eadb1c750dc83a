#!/bin/bash
# SPDX-License-Identifier: MIT
# The JIT changes nothing a program can see: every example, the JIT edge cases and the built-in
# workload write the same bytes to stdout and stderr and exit with the same status with
# --jit=off (the interpreter only) as with --jit=all (every method native from its first call),
# --jit=2 (native from the second call: interpreted and native frames mixed on one stack) and
# --jit=hot (the default). A 16 KiB young generation makes the collector run hundreds of times
# meanwhile. With VALGRIND, the JIT runs are done under it (--smc-check=all: code written at
# run time) and must be clean too.
# usage: jit_diff.sh MINIVM SOURCE_DIR WORKDIR [VALGRIND]
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
minivm=$(realpath "$1") src=$(realpath "$2") work=$3 valgrind=${4:-}
[ -x "$minivm" ] || fail "no minivm at $1"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || fail "cannot create $work"
[ "$(uname -m)" = x86_64 ] ||
    echo "note: $(uname -m) has no JIT backend: --jit is accepted and every run is interpreted"

modes="all 2 hot"
runner=()
if [ -n "$valgrind" ]; then
    modes="all 2"
    runner=("$valgrind" --error-exitcode=99 --leak-check=full --quiet --smc-check=all)
fi

# Small programs for what the examples do not end with: an exception nobody catches, thrown
# through native frames, and main's result as the exit status.
cat > unhandled.masm <<'PROGRAM'
.method U.main()
    push 3
    call U.down
    ret
.end
.method U.down(n)
    load n
    jz bottom
    load n
    push 1
    sub
    call U.down
    ret
bottom:
    pushs "nobody catches this"
    throw U.Escaped
.end
PROGRAM
printf '.method E.main()\n    push 6\n    push 7\n    mul\n    ret\n.end\n' > status.masm

# run OUT ARGS...: minivm's stdout, stderr and exit status, in OUT.{out,err,rc}
run() {
    local out=$1
    shift
    "$@" > "$out.out" 2> "$out.err"
    echo $? > "$out.rc"
}

# check NAME ARGS...: the reference run, then each JIT mode, compared byte for byte
check() {
    local name=$1 mode
    shift
    run "$name.off" "$minivm" --jit=off -y 16 "$@"
    for mode in $modes; do
        run "$name.$mode" "${runner[@]}" "$minivm" --jit="$mode" -y 16 "$@"
        [ "$(cat "$name.$mode.rc")" != 99 ] || fail "$name --jit=$mode: valgrind: $(cat "$name.$mode.err")"
        for part in out err rc; do
            cmp -s "$name.off.$part" "$name.$mode.$part" ||
                fail "$name --jit=$mode: std$part differs from --jit=off: $(diff "$name.off.$part" "$name.$mode.$part" | head -5)"
        done
    done
    echo "$name: same stdout, stderr and exit status ($(cat "$name.off.rc")) with --jit=off and --jit={${modes// /,}}"
}

# Each of these has a .out file of what it prints.
for p in "$src"/examples/*.masm "$src"/tests/jit_edges.masm; do
    name=$(basename "$p" .masm)
    check "$name" "$p"
    diff -u "${p%.masm}.out" "$name.off.out" || fail "$name printed something else"
done
check unhandled unhandled.masm
[ "$(cat unhandled.off.rc)" = 1 ] || fail "unhandled: exit status $(cat unhandled.off.rc), want 1"
check status status.masm
[ "$(cat status.off.rc)" = 42 ] || fail "status: exit status $(cat status.off.rc), want 42"
# The built-in workload: -t 0 runs exactly one round, so its output is fixed.
check workload -t 0
echo PASS
