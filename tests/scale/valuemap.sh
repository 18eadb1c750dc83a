#!/bin/bash
# SPDX-License-Identifier: MIT
# palev-gen selftest on one valueMap of 2 000 and of 20 000 entries: both must fire the value the
# manifest makes the only unique one (negative, at the end), with its label. How the time grows
# with the map's size is a benchmark: tests/bench/scale.sh.
# usage: valuemap.sh PALEV_GEN WORKDIR
set -u
gen=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" || exit 1
for n in 2000 20000; do
    "$here/make_valuemap.sh" $n > "$work/map$n.man" || { echo "FAIL: make_valuemap.sh $n"; exit 1; }
    "$gen" selftest -o "$work/out$n" "$work/map$n.man" || { echo "FAIL: selftest of $n entries exited $?"; exit 1; }
    echo 'Palev_BigMap:Coded: { Code = ( "TheOne" : container = -2147439667 ) }' |
        diff -u - "$work/out$n/Palev_BigMap-selftest.expect" ||
        { echo "FAIL: $n entries: the selftest does not fire the only unique value (TheOne)"; exit 1; }
    echo "$n entries: the selftest fires TheOne (-2147439667), the map's only unique value"
done
