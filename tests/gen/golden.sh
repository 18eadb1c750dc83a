#!/bin/bash
# SPDX-License-Identifier: MIT
# Golden test of one generator case: tests/gen/valid/<case>/input.man (plus optional "args", extra
# palev-gen options) must generate exactly the files in <case>/expected/, for generate and selftest,
# and say exactly <case>/warnings.txt on stderr (nothing when there is none).
# UPDATE_GOLDEN=1 rewrites expected/ instead (review the diff before committing).
# usage: golden.sh PALEV_GEN CASE_DIR WORKDIR
set -u
gen=$1 case=$2 work=$3
args=()
[ -f "$case/args" ] && read -r -a args < "$case/args"
rm -rf "$work" && mkdir -p "$work/out" || exit 1
cd "$case" || exit 1
"$gen" generate "${args[@]}" -o "$work/out" input.man 2> "$work/warnings.txt" ||
    { echo "FAIL: generate exited $?"; cat "$work/warnings.txt"; exit 1; }
"$gen" selftest "${args[@]}" -o "$work/out" input.man 2> /dev/null || { echo "FAIL: selftest exited $?"; exit 1; }
if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
    rm -rf expected && cp -r "$work/out" expected && echo "updated $case/expected"
    rm -f warnings.txt
    [ -s "$work/warnings.txt" ] && cp "$work/warnings.txt" warnings.txt && echo "updated $case/warnings.txt"
    exit 0
fi
diff -ru expected "$work/out" || { echo "FAIL: generated files differ from $case/expected"; exit 1; }
if [ -f warnings.txt ]; then
    diff -u warnings.txt "$work/warnings.txt" || { echo "FAIL: warnings differ from $case/warnings.txt"; exit 1; }
else
    diff -u /dev/null "$work/warnings.txt" || { echo "FAIL: unexpected warnings"; exit 1; }
fi
echo "$(ls expected | wc -l) files equal to $case/expected"
