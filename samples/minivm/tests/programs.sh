#!/bin/bash
# SPDX-License-Identifier: MIT
# minivm without tracing: every example prints exactly its .out (with a young generation so small
# that it collects hundreds of times), and bad programs fail the way the README says: assembler
# errors as FILE:LINE: error: with exit 2, refused methods and uncaught exceptions with exit 1.
# usage: programs.sh MINIVM EXAMPLES_DIR WORKDIR
set -u
minivm=$1 examples=$2 work=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || fail "cannot create $work"

for p in "$examples"/*.masm; do
    name=$(basename "$p" .masm)
    "$minivm" -y 16 "$p" > "$name.got" 2> "$name.err" || fail "$name exited $?: $(cat "$name.err")"
    diff -u "${p%.masm}.out" "$name.got" || fail "$name printed something else"
    echo "$name: output as expected"
done

# run CODE FILE [ARG...] : minivm runs FILE and exits CODE; stdout in out.txt, stderr in err.txt.
run() {
    local code=$1 rc
    shift
    "$minivm" "$@" > out.txt 2> err.txt
    rc=$?
    [ $rc = "$code" ] || fail "minivm $* exited $rc, want $code: $(cat err.txt)"
}

cat > bad.masm <<'PROGRAM'
.global g
.method Bad.main()
.locals x
    push 1
    frob
    load y
    jmp nowhere
    call Bad.missing
    call std.nope
    push
here:
here:
.end
PROGRAM
run 2 bad.masm
cat > want.txt <<'ERRORS'
bad.masm:5: error: unknown instruction "frob"
bad.masm:6: error: unknown local "y"
bad.masm:9: error: unknown library function "std.nope"
bad.masm:10: error: "push" needs an operand
bad.masm:12: error: label "here" defined twice (first on line 11)
bad.masm:7: error: unknown label "nowhere"
bad.masm:8: error: unknown method "Bad.missing"
ERRORS
diff -u want.txt err.txt || fail "assembler errors differ"
echo "assembler errors: every one reported with its line, exit 2"

printf '.method M.main()\n    push 1\n    jz out\n    push 2\nout:\n    push 3\n    ret\n.end\n' > mismatch.masm
run 1 mismatch.masm
grep -qx 'minivm: unhandled InvalidProgramError: M.main(): stack depths differ where paths join at bytecode offset 9' err.txt ||
    fail "verifier message: $(cat err.txt)"
printf '.method M.main()\n    pushs "no"\n    throw M.Oops\n.end\n' > throw.masm
run 1 throw.masm
grep -qx 'minivm: unhandled M.Oops: no' err.txt || fail "unhandled message: $(cat err.txt)"
echo "refused method and uncaught exception: exit 1 with the exception"

printf '.method M.main(args)\n    load args\n    push 1\n    aload\n    call std.int\n    ret\n.end\n' > args.masm
run 7 args.masm six 7
run 2 -w 0
run 2 --jit=fast args.masm
run 2 --jit=0 args.masm
run 7 --jit=all args.masm six 7
run 7 -J args.masm six 7
run 2 /nonexistent.masm
echo "main's result is the exit status; usage errors (a bad --jit too) exit 2"
