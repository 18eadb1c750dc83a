#!/bin/bash
# SPDX-License-Identifier: MIT
# palev-gen enable-list against tests/gen/enable-list/cases.txt: each line gives the arguments
# and the exact list printed (or the exit status of a usage error).
# usage: enable_list.sh PALEV_GEN
set -u
gen=$1
dir=$(dirname "$0")/enable-list
status=0 n=0
while IFS='|' read -r args expected; do
    case $args in '#'*|'') continue ;; esac
    expected=$(echo "$expected" | sed 's/^ *//; s/ *$//')
    got=$($gen enable-list $args "$dir/input.man" 2>/dev/null)
    rc=$?
    n=$((n + 1))
    if [[ $expected == exit* ]]; then
        [ "exit $rc" = "$expected" ] || { echo "FAIL: enable-list $args: exit $rc, expected $expected"; status=1; }
    elif [ $rc != 0 ] || [ "$got" != "$expected" ]; then
        echo "FAIL: enable-list $args (exit $rc)"; echo "  expected: $expected"; echo "  got:      $got"; status=1
    fi
done < "$dir/cases.txt"
# An unknown keyword's error names the manifest read and lists its keywords.
want="palev-gen: unknown keyword \"Nope\" in $dir/input.man (not a hex mask either); First keywords: GC, JIT; Second keywords: GC, Other, Face"
got=$($gen enable-list --keywords GC,Nope "$dir/input.man" 2>&1 >/dev/null)
[ "$got" = "$want" ] || { echo "FAIL: unknown keyword message"; echo "  expected: $want"; echo "  got:      $got"; status=1; }
want="palev-gen: unknown keyword \"JIT\" in $dir/input.man (not a hex mask either); Second keywords: GC, Other, Face"
got=$($gen enable-list --keywords JIT --provider Second "$dir/input.man" 2>&1 >/dev/null)
[ "$got" = "$want" ] || { echo "FAIL: unknown keyword message (--provider)"; echo "  expected: $want"; echo "  got:      $got"; status=1; }
[ $status = 0 ] && echo "$n enable-list cases and 2 messages as expected"
exit $status
