#!/bin/bash
# SPDX-License-Identifier: MIT
# palev-gen selftest on one valueMap of 2 000 and of 20 000 entries: both must pick the value the
# manifest makes the only unique negative one, and the time must grow about linearly (the pick
# was once quadratic in the map's size: 20 000 entries took seconds). Prints both times and their
# ratio, measured in this one run; fails above 30 (10 for linear growth plus start-up noise; a
# quadratic pick gives 100).
# usage: valuemap.sh PALEV_GEN WORKDIR
set -u
gen=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1

# N entries: every value twice (two labels each, never the sample) but one negative HRESULT-like
# value 0x8000ABCD, held by one entry near the end: the selftest must fire that one.
manifest() {
    awk -v n="$1" 'BEGIN {
        print "<?xml version=\"1.0\" encoding=\"utf-8\"?>"
        print "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\""
        print "    xmlns:win=\"http://manifests.microsoft.com/win/2004/08/windows/events\">"
        print "<instrumentation><events>"
        print "<provider name=\"Palev-BigMap\" guid=\"{0b5e7d2c-2222-4222-8333-444455556666}\" symbol=\"PALEV_BIGMAP\">"
        print "<maps><valueMap name=\"Big\">"
        for (i = 0; i < n - 1; i++)
            printf "<map value=\"%d\" message=\"V%d\"/>\n", int(i / 2), i
        print "<map value=\"0x8000ABCD\" message=\"TheOne\"/>"
        print "</valueMap></maps>"
        print "<templates><template tid=\"T\"><data name=\"Code\" inType=\"win:Int32\" map=\"Big\"/></template></templates>"
        print "<events><event value=\"1\" symbol=\"Coded\" template=\"T\"/></events>"
        print "</provider></events></instrumentation></instrumentationManifest>"
    }'
}

now_ns() { date +%s%N; }

run() {   # N: prints the nanoseconds palev-gen selftest took, the best of 3 runs (a shared machine)
    local n=$1 t0 t1 best=
    manifest "$n" > "$work/map$n.man" || return 1
    for _ in 1 2 3; do
        t0=$(now_ns)
        "$gen" selftest -o "$work/out$n" "$work/map$n.man" || { echo "FAIL: selftest of $n entries exited $?" >&2; return 1; }
        t1=$(now_ns)
        [ -z "$best" ] || [ $((t1 - t0)) -lt "$best" ] && best=$((t1 - t0))
    done
    grep -q 'Code = ( "TheOne" : container = -2147439667 )' "$work/out$n/Palev_BigMap-selftest.expect" ||
        { echo "FAIL: $n entries: the selftest does not fire the only unique negative value" >&2; return 1; }
    echo "$best"
}

small=$(run 2000) || exit 1
big=$(run 20000) || exit 1
ratio=$(awk -v a="$big" -v b="$small" 'BEGIN { printf "%.1f", a / (b > 0 ? b : 1) }')
echo "palev-gen selftest, one valueMap: 2000 entries $((small / 1000000)) ms, 20000 entries $((big / 1000000)) ms, ratio $ratio"
awk -v r="$ratio" 'BEGIN { exit !(r <= 30) }' || { echo "FAIL: 10 times the entries took $ratio times as long"; exit 1; }
