#!/bin/bash
# SPDX-License-Identifier: MIT
# A bad manifest: tests/gen/invalid/<case>/input.man (plus optional "args", extra palev-gen
# options) must make palev-gen check and generate exit 1 with exactly the diagnostics of
# <case>/expected.txt on stderr, and generate must neither create nor modify any file in the
# output directory.
# usage: invalid.sh PALEV_GEN CASE_DIR WORKDIR
set -u
gen=$1 case=$2 work=$3
rm -rf "$work" && mkdir -p "$work/out" || exit 1
# An output directory that already holds files, one of them with a name generate would write.
echo "left alone" > "$work/out/keep.txt"
echo "/* stale */" > "$work/out/Sample-tp.h"
snapshot() {
    find "$work/out" -mindepth 1 -printf '%P %s %T@\n' | sort
    md5sum "$work/out"/*
}
before=$(snapshot)
cd "$case" || exit 1
args=()
[ -f args ] && read -r -a args < args
for cmd in check generate; do
    extra=("${args[@]}")
    [ $cmd = generate ] && extra+=(-o "$work/out")
    "$gen" $cmd "${extra[@]}" input.man 2> "$work/$cmd.err" > "$work/$cmd.out"
    rc=$?
    [ $rc = 1 ] || { echo "FAIL: palev-gen $cmd exited $rc, expected 1"; cat "$work/$cmd.err"; exit 1; }
    diff -u expected.txt "$work/$cmd.err" || { echo "FAIL: palev-gen $cmd diagnostics differ"; exit 1; }
done
after=$(snapshot)
[ "$before" = "$after" ] || { echo "FAIL: the output directory changed"; echo "$after"; exit 1; }
echo "exit 1, $(wc -l < expected.txt) expected diagnostic line(s), output directory untouched"
