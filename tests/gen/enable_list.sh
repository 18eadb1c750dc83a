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
[ $status = 0 ] && echo "$n enable-list cases as expected"
exit $status
