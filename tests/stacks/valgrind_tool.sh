#!/bin/bash
# SPDX-License-Identifier: MIT
# palev-trace stacks, report and both exports under valgrind on the minivm case's trace: no
# memory error, nothing definitely lost, and the same answers as without valgrind (the GCStart
# stacks named, the same speedscope and Chrome files).
# usage: valgrind_tool.sh VALGRIND PALEV_TRACE TRACE WORKDIR
set -u
vg=$1 pt=$2 trace=$3 work=$4
rm -rf "$work" && mkdir -p "$work" || exit 1
status=0
i=0
for args in "stacks --top 3" "stacks --folded" "export --format speedscope -o OUT" "export -o OUT" \
            "report -o OUT"; do
    name=cmd$((i += 1))     # cmd1 is stacks --top 3
    plain=(${args//OUT/$work/$name.plain}) under=(${args//OUT/$work/$name.vg})
    "$pt" "${plain[@]}" "$trace" > "$work/$name.plain.out" 2> "$work/$name.plain.err"
    rc=$?
    "$vg" --error-exitcode=99 --leak-check=full --quiet "$pt" "${under[@]}" "$trace" \
        > "$work/$name.vg.out" 2> "$work/$name.vg.err"
    vrc=$?
    if [ $rc != 0 ] || [ $vrc != 0 ]; then
        echo "FAIL: palev-trace $args exited $rc, under valgrind $vrc: $(head -20 "$work/$name.vg.err")"
        status=1
    elif ! cmp -s "$work/$name.plain.out" "$work/$name.vg.out" ||
         { [ -e "$work/$name.plain" ] && ! cmp -s "$work/$name.plain" "$work/$name.vg"; }; then
        echo "FAIL: palev-trace $args answers otherwise under valgrind"
        status=1
    else
        echo "ok: palev-trace $args: the same answer under valgrind"
    fi
done
grep -q '^Palev_Runtime:GCStart: 2 stacks, 2 distinct$' "$work/cmd1.vg.out" ||
    { echo "FAIL: not the 2 GCStart stacks: $(head -3 "$work/cmd1.vg.out")"; status=1; }
exit $status
