#!/bin/bash
# SPDX-License-Identifier: MIT
# All-or-nothing output when the file system refuses: a destination that is a directory is found
# before any file is written; a rename that fails midway (an immutable destination, as root with
# chattr) puts back every file already replaced. Errors name the destination.
# usage: output.sh PALEV_GEN MANIFEST WORKDIR
set -u
gen=$1 manifest=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
snapshot() { (cd "$1" && find . -mindepth 1 -printf '%P %y\n' | sort && md5sum -- * 2>/dev/null); }

# 1. A directory where a file goes: nothing is written.
mkdir -p "$work/dir/Reserved-events.c"
"$gen" generate -o "$work/dir" "$manifest" 2> "$work/dir.err"
rc=$?
[ $rc = 1 ] || fail "a directory in the way: exit $rc, expected 1"
grep -qx "$work/dir/Reserved-events.c: error: cannot replace: it is a directory" "$work/dir.err" ||
    fail "no error naming the destination: $(cat "$work/dir.err")"
[ "$(ls -A "$work/dir")" = Reserved-events.c ] || fail "files were written: $(ls -A "$work/dir")"
echo "a directory in the way: exit 1, nothing written"

# 2. A rename refused midway: what was replaced is restored. Every file in turn is the one refused,
# so the last one renamed is among them.
sed 's/__LINE__/Line/' "$manifest" > "$work/v2.man"
probe=$work/probe; : > "$probe"
chattr +i "$probe" 2>/dev/null || { echo "SKIP: chattr +i is not permitted here"; exit 77; }
chattr -i "$probe"
"$gen" generate -o "$work/out" "$manifest" 2>/dev/null || fail "cannot generate the first version"
for f in "$work"/out/*; do
    before=$(snapshot "$work/out")
    chattr +i "$f"
    "$gen" generate -o "$work/out" "$work/v2.man" 2> "$work/imm.err"
    rc=$?
    chattr -i "$f"
    [ $rc = 1 ] || fail "$(basename "$f") immutable: exit $rc, expected 1"
    grep -qx "$f: error: cannot replace: Operation not permitted" "$work/imm.err" ||
        fail "no error naming $f: $(cat "$work/imm.err")"
    [ "$(snapshot "$work/out")" = "$before" ] || fail "$(basename "$f") immutable: files changed"
done
echo "$(ls "$work/out" | wc -l) files, each refused in turn: exit 1, every file as it was"
"$gen" generate -o "$work/out" "$work/v2.man" 2>/dev/null || fail "the second version does not generate"
grep -q Line_ "$work/out/Reserved-events.h" || grep -q '\bLine\b' "$work/out/Reserved-events.h" ||
    fail "the second version was not written"
