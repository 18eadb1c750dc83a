#!/bin/bash
# SPDX-License-Identifier: MIT
# palev-trace on bad input: each case must give its exact message and exit code, never a crash:
# no trace, a file, a missing path, damaged streams and metadata, an empty trace, stream files
# emptied or deleted (the index says what is missing), a trace given twice, a trace deep below
# its input, lost events (recorded for real with tiny buffers), manifests that do not match the
# trace, usage errors, an output that cannot be written, an -o file kept when nothing could be
# read, an abort of our own never blamed on the trace.
# usage: bad_input.sh PALEV_TRACE GOLDEN_WORKDIR WORKDIR [GOLDEN_HOST [ABORT_PRELOAD]]
set -u
pt=$1 golden=$2 work=$3 host=${4:-} preload=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
trace=$golden/trace
[ -d "$trace" ] || palev_fail "no golden trace in $golden (the trace_golden test makes it)"
rm -rf "$work" && mkdir -p "$work" || palev_fail "cannot create $work"
status=0
stream=$(find "$trace" -name 'ch_*' -type f -size +0 | head -1)
meta=$(dirname "$stream")

# expect CODE PATTERN -- COMMAND...: exit code CODE and PATTERN (grep -E) on stderr
expect() {
    local code=$1 pattern=$2
    shift 3
    "$@" > "$work/out" 2> "$work/err"
    local rc=$?
    if [ $rc != "$code" ] || ! grep -qE -- "$pattern" "$work/err"; then
        echo "FAIL: $* exited $rc (want $code), stderr: $(head -5 "$work/err")"
        status=1
    else
        echo "ok: exit $rc: $(grep -m1 -E -- "$pattern" "$work/err")"
    fi
}

mkdir "$work/notrace" && echo hello > "$work/notrace/file.txt"
expect 1 "notrace: no CTF trace in this directory" -- "$pt" summary "$work/notrace"
expect 1 "file.txt: not a trace directory" -- "$pt" summary "$work/notrace/file.txt"
expect 1 "missing: No such file or directory" -- "$pt" activities "$work/missing"

# a stream cut in the middle of a packet
cp -r "$trace" "$work/truncated"
cut=$(find "$work/truncated" -name "$(basename "$stream")")
truncate -s $(( $(stat -c %s "$cut") / 2 + 7 )) "$cut"
expect 1 "the trace is damaged|not a readable CTF trace" -- "$pt" summary "$work/truncated"
# a packet overwritten with garbage
cp -r "$trace" "$work/garbage"
g=$(find "$work/garbage" -name "$(basename "$stream")")
dd if=/dev/urandom of="$g" bs=1 seek=200 count=4000 conv=notrunc status=none
expect 1 "palev-trace: error:" -- "$pt" activities "$work/garbage"
# a packet babeltrace2's decoder asserts on (found by fuzz_trace; babeltrace2 itself aborts)
mkdir -p "$work/bt2abort" && cp "$here/../fuzz/trace-metadata.tsdl" "$work/bt2abort/metadata" &&
    cp "$here/data/bt2-abort.stream" "$work/bt2abort/stream"
expect 1 "the trace is damaged: babeltrace2's CTF decoder stopped on an internal assertion" -- \
    "$pt" summary "$work/bt2abort"
# metadata that is not CTF
mkdir -p "$work/badmeta" && echo "this is not TSDL" > "$work/badmeta/metadata"
expect 1 "badmeta: not a readable CTF trace" -- "$pt" summary "$work/badmeta"
# an empty trace: the metadata and no stream
mkdir -p "$work/empty" && cp "$meta/metadata" "$work/empty/"
expect 1 "the trace holds no event" -- "$pt" summary "$work/empty"

# stream files emptied or deleted after recording: the index lists their packets
cp -r "$trace" "$work/emptied"
e=$(find "$work/emptied" -name "$(basename "$stream")")
size=$(stat -c %s "$e")
: > "$e"
expect 1 "error: $e: [1-9][0-9]* packets \($size bytes\) the trace's index lists are missing from this stream file \(emptied, cut short or deleted after recording\): their events are not read" -- \
    "$pt" summary "$work/emptied"
grep -qE "^  $e: [1-9][0-9]* packets \($size bytes\) MISSING" "$work/out" && ! grep -q "none: the trace holds every event" "$work/out" ||
    { echo "FAIL: summary's lost events do not say the packets are missing: $(grep -A2 '^lost events' "$work/out")"; status=1; }
rm "$e"
expect 1 "error: $e: [1-9][0-9]* packets \($size bytes\) the trace's index lists are missing" -- "$pt" activities "$work/emptied"

# the same trace twice, or a directory and one below it: read once, and said
real=$(find "$trace" -name metadata -printf '%h\n' | head -1)
"$pt" summary "$trace" > "$work/once" 2>&1 || { echo "FAIL: summary of the golden trace exited $?"; status=1; }
expect 0 "^palev-trace: warning: $real: this trace was found twice \(an input given twice, or inside another one\): read once$" -- \
    "$pt" summary "$trace" "$trace/ust"
cmp -s "$work/once" "$work/out" || { echo "FAIL: a trace given twice is not read once:"; diff "$work/once" "$work/out" | head -5; status=1; }
ln -s "$(realpath "$trace")" "$work/link"
expect 0 "^palev-trace: warning: $work/link/${real#$trace/}: this trace is $real, found already" -- \
    "$pt" activities "$trace" "$work/link"

# a trace deep below its input: found at any depth, as babeltrace2 finds it
deep=$work/deep/1/2/3/4/5/6/7/8/9/10/11/12
mkdir -p "$deep" && cp -r "$trace" "$deep/"
"$pt" summary "$work/deep" > "$work/out" 2> "$work/err" && [ ! -s "$work/err" ] &&
    cmp -s "$work/once" <(sed "s|$deep/trace|$trace|" "$work/out") ||
    { echo "FAIL: the trace 17 directories down is not read as it is: $(head -3 "$work/err")"; status=1; }

# an output that cannot be written: said, exit 1
for cmd in summary activities counters; do
    "$pt" $cmd "$trace" > /dev/full 2> "$work/err"
    rc=$?
    [ $rc = 1 ] && grep -q "^palev-trace: error: cannot write the output: " "$work/err" ||
        { echo "FAIL: $cmd > /dev/full exited $rc: $(cat "$work/err")"; status=1; continue; }
    echo "ok: $cmd > /dev/full: exit $rc: $(cat "$work/err")"
done

# -o FILE when nothing can be read: the file is left as it was
for args in "export" "export --format speedscope" "report"; do
    echo precious > "$work/keep"
    expect 1 "badmeta: not a readable CTF trace" -- "$pt" $args -o "$work/keep" "$work/badmeta"
    [ "$(cat "$work/keep")" = precious ] || { echo "FAIL: $args -o emptied the file"; status=1; }
    [ -z "$(ls "$work" | grep '^keep\.')" ] || { echo "FAIL: $args left its temporary file: $(ls "$work")"; status=1; }
done

# our own abort (a sink callback's, here jansson's json_loads aborting) is a crash, not damage
if [ -n "$preload" ]; then
    ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0 LD_PRELOAD=$preload "$pt" counters "$trace" > /dev/null 2> "$work/err"
    rc=$?
    if [ $rc = 134 ] && ! grep -q "damaged" "$work/err"; then
        echo "ok: an abort outside babeltrace2's decoder is SIGABRT (exit $rc), not \"damaged\""
    else
        echo "FAIL: an abort of palev-trace's own exited $rc: $(head -3 "$work/err")"
        status=1
    fi
fi

# manifests: not this trace's, one that disagrees with it, one that is not valid
expect 1 "runtime.man does not describe this trace: no event of its provider Palev_Runtime is in it" -- \
    "$pt" summary -m "$here/../../manifest/runtime.man" "$trace"
sed 's/name="Depth"/name="Level"/' "$here/golden.man" > "$work/renamed.man"
expect 1 'event Palev_TraceGolden:PhaseBegin does not match its manifest: the trace.s field "Depth" is not in the manifest.s event \(.*renamed.man:[0-9]+\)' -- \
    "$pt" activities -m "$work/renamed.man" "$trace"
sed '/symbol="Note"/,+1d' "$here/golden.man" > "$work/nonote.man"
expect 1 "the manifest of provider Palev_TraceGolden has no event Note" -- "$pt" summary -m "$work/nonote.man" "$trace"
printf '<instrumentationManifest>\n<broken' > "$work/broken.man"
expect 1 "broken.man:2: error: .*" -- "$pt" summary -m "$work/broken.man" "$trace"

# usage
expect 2 "no TRACE given" -- "$pt" summary
expect 2 "unknown command \"frobnicate\"" -- "$pt" frobnicate "$trace"
expect 2 "--top wants a count" -- "$pt" activities --top many "$trace"
expect 2 "--by is not an option of this command" -- "$pt" summary --by X "$trace"

# lost events, recorded for real: per-process buffers of 2 x 4 KiB cannot keep up
if [ -n "$host" ]; then
    palev_require_sessiond
    mkfifo "$work/go"
    "$host" --bench 300000 < "$work/go" > /dev/null 2>&1 &
    pid=$!
    exec 3> "$work/go"
    s=palev-trace-lossy-$$
    lttng create "$s" --output="$work/lossy" >/dev/null || palev_fail "lttng create"
    PALEV_SESSIONS="$PALEV_SESSIONS $s"
    lttng enable-channel -u -s "$s" --buffers-pid --subbuf-size=4096 --num-subbuf=2 ch >/dev/null &&
        lttng untrack -u -s "$s" --all --vpid >/dev/null && lttng track -u -s "$s" --vpid="$pid" >/dev/null &&
        lttng enable-event -u -s "$s" -c ch 'Palev_TraceGolden:*' >/dev/null && lttng start "$s" >/dev/null ||
        palev_fail "cannot set up session $s"
    exec 3>&-
    wait $pid
    palev_session_stop "$s"
    expect 1 "warning: the trace lost [1-9][0-9]* events" -- "$pt" summary "$work/lossy"
    grep -qE "[0-9]+ events DISCARDED: the tracer's ring buffer was full. Record again with bigger sub-buffers" "$work/out" ||
        { echo "FAIL: summary does not say the events were discarded: $(grep -A3 'lost events' "$work/out")"; status=1; }
fi
exit $status
