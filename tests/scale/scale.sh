#!/bin/bash
# SPDX-License-Identifier: MIT
# Scale: a manifest of 10 000 events over 2 000 templates generates in under 2 s (median of 3
# runs, each into a fresh directory) and what it generates compiles (-O0, warnings as errors).
# usage: scale.sh PALEV_GEN INCLUDE_DIR WORKDIR [EVENTS TEMPLATES LIMIT_SECONDS]
set -u
gen=$1 inc=$2 work=$3 events=${4:-10000} templates=${5:-2000} limit=${6:-2}
CC=${CC:-cc}
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
"$(dirname "$0")/make_manifest.sh" "$events" "$templates" > big.man || { echo "FAIL: make_manifest"; exit 1; }
echo "big.man: $(grep -c '<event ' big.man) events, $(grep -c '<template ' big.man) templates, $(wc -c < big.man) bytes"

times=()
for run in 1 2 3; do
    rm -rf "out$run"
    start=$(date +%s%N)
    "$gen" generate -o "out$run" big.man || { echo "FAIL: palev-gen generate exited $?"; exit 1; }
    end=$(date +%s%N)
    times+=($(( (end - start) / 1000000 )))
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
echo "palev-gen generate: ${times[*]} ms, median $median ms (limit ${limit} s)"
cmp -s out1/Palev_Scale-events.c out3/Palev_Scale-events.c || { echo "FAIL: two runs generated different files"; exit 1; }
ls -l out1 | awk 'NR > 1 { printf "  %s %d bytes\n", $9, $5 }'

cd out1 || exit 1
start=$(date +%s)
$CC -std=c11 -O0 -fPIC -Wall -Wextra -Werror -I. -c Palev_Scale-probe.c -o probe.o ||
    { echo "FAIL: the probe provider does not compile"; exit 1; }
$CC -std=c11 -O0 -Wall -Wextra -Werror -I. -I"$inc" -c Palev_Scale-events.c -o events.o ||
    { echo "FAIL: the events unit does not compile"; exit 1; }
echo "probe and events units compile (-O0) in $(( $(date +%s) - start )) s"
[ "$median" -lt $((limit * 1000)) ] || { echo "FAIL: median $median ms is not under ${limit} s"; exit 1; }
echo "PASS"
