#!/bin/bash
# SPDX-License-Identifier: MIT
# Scale: a manifest of 10 000 events over 2 000 templates (make_manifest.sh) generates the same
# files twice, with exactly one tracepoint class per template and one event, log level and stub
# per event; enable-list selects exactly the events of a keyword and of a level, as the manifest
# says (computed here from make_manifest.sh's rules); both units compile (-O0, warnings as errors).
# How long it takes is a benchmark: tests/bench/scale.sh.
# usage: scale.sh PALEV_GEN INCLUDE_DIR WORKDIR
set -u
gen=$(realpath "$1") inc=$(realpath "$2") work=$3 events=10000 templates=2000
CC=${CC:-cc}
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
"$here/make_manifest.sh" $events $templates > big.man || fail "make_manifest.sh"
echo "big.man: $(grep -c '<event ' big.man) events, $(grep -c '<template ' big.man) templates, $(wc -c < big.man) bytes"

for run in 1 2; do
    "$gen" generate -o "out$run" big.man || fail "palev-gen generate exited $?"
done
diff -r out1 out2 > /dev/null || fail "two runs generated different files"
ls -l out1 | awk 'NR > 1 { printf "  %s %d bytes\n", $9, $5 }'

# What each event became, against what make_manifest.sh wrote: event e is Ev<e>, of template
# T<e % templates>, level Verbose when e % 3 == 0 (LTTng's DEBUG) else Informational (INFO),
# keywords K<e % 64> and K<(e * 7) % 64>.
tp=out1/Palev_Scale-tp.h
count() { grep -c "$1" "$2"; }
[ "$(count '^LTTNG_UST_TRACEPOINT_EVENT_CLASS(' $tp)" = $templates ] || fail "not $templates tracepoint classes"
[ "$(count '^LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(' $tp)" = $events ] || fail "not $events tracepoint events"
awk -v n=$events 'BEGIN { for (e = 0; e < n; e++)
    printf "LTTNG_UST_TRACEPOINT_LOGLEVEL(Palev_Scale, Ev%d, LTTNG_UST_TRACEPOINT_LOGLEVEL_%s)\n", e, e % 3 ? "INFO" : "DEBUG" }' > want_levels
grep '^LTTNG_UST_TRACEPOINT_LOGLEVEL(' $tp | diff -u want_levels - > levels.diff || { head levels.diff; fail "log levels differ"; }
seq 0 $((events - 1)) | sed 's/^/FireEventEv/' > want_stubs
sed -n 's/^static inline void \(FireEventEv[0-9]*\)(.*/\1/p' out1/Palev_Scale-events.h | sort -V | diff -u want_stubs - > stubs.diff ||
    { head stubs.diff; fail "the FireEventEv<N>() stubs differ"; }
"$gen" enable-list --keywords K5 big.man | tr , '\n' > got_k5 || fail "enable-list --keywords K5 exited $?"
awk -v n=$events 'BEGIN { for (e = 0; e < n; e++) if (e % 64 == 5 || (e * 7) % 64 == 5) print "Palev_Scale:Ev" e }' |
    diff -u - got_k5 > k5.diff || { head k5.diff; fail "enable-list --keywords K5 differs"; }
"$gen" enable-list --level 4 big.man | tr , '\n' > got_info || fail "enable-list --level 4 exited $?"
awk -v n=$events 'BEGIN { for (e = 0; e < n; e++) if (e % 3) print "Palev_Scale:Ev" e }' |
    diff -u - got_info > info.diff || { head info.diff; fail "enable-list --level 4 differs"; }
echo "$templates classes, $events events with their levels and stubs; enable-list: $(wc -l < got_k5) events of K5, $(wc -l < got_info) at level 4 or below"

cd out1 || exit 1
$CC -std=c11 -O0 -fPIC -Wall -Wextra -Werror -I. -c Palev_Scale-probe.c -o probe.o ||
    fail "the probe provider does not compile"
$CC -std=c11 -O0 -Wall -Wextra -Werror -I. -I"$inc" -c Palev_Scale-events.c -o events.o ||
    fail "the events unit does not compile"
echo "probe and events units compile (-O0, -Werror)"
