#!/bin/bash
# SPDX-License-Identifier: MIT
# palev-trace's golden numbers: the golden host traced in a real session, then summary and
# activities (with -m, with the manifest stored in the trace, without any) checked against a
# python bt2 oracle reading the same trace. Leaves the trace in WORKDIR for the other tests.
# With STATUS_HOST, a second session records Paleventing:ProviderStatus events (a hand-written
# stand-in of libpaleventing's) and summary must name the provider that did not load.
# usage: golden.sh PALEV_TRACE GOLDEN_HOST WORKDIR [STATUS_HOST]
set -u
pt=$1 host=$2 work=$3 status_host=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
palev_require_sessiond
man=$here/golden.man
oracle="/usr/bin/python3 $here/oracle.py"
rm -rf "$work" && mkdir -p "$work" && mkfifo "$work/go" || palev_fail "cannot create $work"

# The host waits on the fifo: the session tracks exactly its pid before it fires anything.
"$host" 200 < "$work/go" > "$work/host.out" 2>&1 &
pid=$!
exec 3> "$work/go"
s=palev-trace-golden-$$
lttng create "$s" --output="$work/trace" >/dev/null || palev_fail "lttng create"
PALEV_SESSIONS="$PALEV_SESSIONS $s"
lttng enable-channel -u -s "$s" --subbuf-size=1M --num-subbuf=4 ch >/dev/null &&
    lttng add-context -u -s "$s" -c ch -t vpid -t vtid -t procname >/dev/null &&
    lttng untrack -u -s "$s" --all --vpid >/dev/null && lttng track -u -s "$s" --vpid="$pid" >/dev/null &&
    lttng enable-event -u -s "$s" -c ch 'Palev_TraceGolden:*,Paleventing:EventSource' >/dev/null &&
    lttng start "$s" >/dev/null || palev_fail "cannot set up session $s"
exec 3>&-
wait $pid || palev_fail "the host exited $?: $(cat "$work/host.out")"
palev_session_stop "$s"
status=0

# 1. the manifest given with -m
"$pt" activities -m "$man" --format tsv "$work/trace" > "$work/act.tsv" 2> "$work/act.err" ||
    palev_fail "activities exited $?: $(cat "$work/act.err")"
"$pt" activities -m "$man" --format tsv --by Kind "$work/trace" > "$work/act-by.tsv" 2>> "$work/act.err" ||
    palev_fail "activities --by exited $?: $(cat "$work/act.err")"
$oracle activities "$work/trace" "$man" "$work/act.tsv" Kind "$work/act-by.tsv" || status=1
grep -q '^Palev_TraceGolden:Phase	3	' "$work/act.tsv" ||
    { echo "FAIL: not 3 Phase instances: $(cat "$work/act.tsv")"; status=1; }
grep -q '^Palev_TraceGolden:Work	202	.*	1	0$' "$work/act.tsv" ||
    { echo "FAIL: not 202 Work instances, 1 unmatched start: $(cat "$work/act.tsv")"; status=1; }

# 2. the manifest stored in the trace, as palev-collect does: same answers without -m; and
#    babeltrace2 still reads the trace directory
cp -r "$work/trace" "$work/collected" && mkdir "$work/collected/palev-manifests" &&
    cp "$man" "$work/collected/palev-manifests/" || palev_fail "cannot copy the trace"
"$pt" activities --format tsv "$work/collected" > "$work/act-stored.tsv" 2>> "$work/act.err" ||
    palev_fail "activities (stored manifest) exited $?"
cmp -s "$work/act.tsv" "$work/act-stored.tsv" ||
    { echo "FAIL: the stored manifest gives other answers than -m"; diff "$work/act.tsv" "$work/act-stored.tsv"; status=1; }
a=$(babeltrace2 -c sink.utils.counter "$work/trace" 2>&1 | awk '/Event messages/ { print $1 }')
b=$(babeltrace2 -c sink.utils.counter "$work/collected" 2> "$work/bt-collected.err" | awk '/Event messages/ { print $1 }')
[ "$a" = "$b" ] && [ -n "$a" ] && [ ! -s "$work/bt-collected.err" ] ||
    { echo "FAIL: babeltrace2 reads the collected trace differently: $a vs $b, $(cat "$work/bt-collected.err")"; status=1; }

# 3. no manifest: Work is found by its names (WorkStart/WorkStop), Phase (PhaseBegin/PhaseDone) not
"$pt" activities --format tsv "$work/trace" > "$work/act-names.tsv" 2>> "$work/act.err" ||
    palev_fail "activities (no manifest) exited $?"
[ "$(cut -f1 "$work/act-names.tsv" | tail -n +2)" = "Palev_TraceGolden:Work" ] ||
    { echo "FAIL: without a manifest: $(cat "$work/act-names.tsv")"; status=1; }
[ "$(grep '^Palev_TraceGolden:Work' "$work/act-names.tsv")" = "$(grep '^Palev_TraceGolden:Work' "$work/act.tsv")" ] ||
    { echo "FAIL: Work by names differs from Work by manifest"; status=1; }

# --no-manifests ignores the stored one: the same as no manifest at all
"$pt" activities --no-manifests --format tsv "$work/collected" > "$work/act-nomans.tsv" 2>> "$work/act.err" ||
    palev_fail "activities --no-manifests exited $?"
cmp -s "$work/act-names.tsv" "$work/act-nomans.tsv" ||
    { echo "FAIL: --no-manifests still used the stored manifest"; status=1; }

# 4. summary
"$pt" summary "$work/collected" > "$work/summary.txt" 2> "$work/summary.err" ||
    palev_fail "summary exited $?: $(cat "$work/summary.err")"
$oracle summary "$work/trace" "$work/summary.txt" || status=1
for want in "Golden.Source *Counters *10" "Golden.Source *Message *1" "lost events" "none: the trace holds every event" \
            " $pid golden_host "; do
    grep -q -- "$want" "$work/summary.txt" || { echo "FAIL: summary lacks \"$want\""; status=1; }
done
# 5. counters: Tick's fields and the EventSource numbers (with the manifest: Start/Stop events are
#    activities, not counters)
"$pt" counters -m "$man" --format tsv "$work/trace" > "$work/counters.tsv" 2>> "$work/act.err" ||
    palev_fail "counters exited $?"
$oracle counters "$work/trace" "$work/counters.tsv" || status=1
# 6. providers not loaded, from Paleventing:ProviderStatus
if [ -n "$status_host" ]; then
    mkfifo "$work/go-status"
    "$status_host" < "$work/go-status" > /dev/null 2>&1 &
    spid=$!
    exec 3> "$work/go-status"
    st=palev-trace-status-$$
    lttng create "$st" --output="$work/status" >/dev/null || palev_fail "lttng create $st"
    PALEV_SESSIONS="$PALEV_SESSIONS $st"
    lttng enable-channel -u -s "$st" ch >/dev/null && lttng add-context -u -s "$st" -c ch -t vpid >/dev/null &&
        lttng untrack -u -s "$st" --all --vpid >/dev/null && lttng track -u -s "$st" --vpid="$spid" >/dev/null &&
        lttng enable-event -u -s "$st" -c ch 'Paleventing:ProviderStatus' >/dev/null &&
        lttng start "$st" >/dev/null || palev_fail "cannot set up session $st"
    exec 3>&-
    wait $spid || palev_fail "the status host exited $?"
    palev_session_stop "$st"
    "$pt" summary "$work/status" > "$work/status.txt" 2>> "$work/act.err" || palev_fail "summary (status) exited $?"
    want="  $(hostname) vpid $spid: Palev_Missing not loaded: libPalev_Missing-lttng.so: cannot open shared object file"
    got=$(sed -n '/^providers not loaded/,/^$/p' "$work/status.txt" | sed -n 2p)
    [ "$got" = "$want" ] && ! grep -q "Palev_Runtime not loaded" "$work/status.txt" ||
        { echo "FAIL: providers not loaded: \"$got\", want \"$want\""; status=1; }
fi
[ -s "$work/act.err" ] && { echo "FAIL: palev-trace wrote on stderr: $(cat "$work/act.err")"; status=1; }
[ $status = 0 ] && echo "golden: every figure equals the oracle's"
exit $status
