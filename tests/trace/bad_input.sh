#!/bin/bash
# SPDX-License-Identifier: MIT
# palev-trace on bad input: each case must give its exact message and exit code, never a crash:
# no trace, a file, a missing path, damaged streams and metadata, an empty trace, lost events
# (recorded for real with tiny buffers), manifests that do not match the trace, usage errors.
# usage: bad_input.sh PALEV_TRACE GOLDEN_WORKDIR WORKDIR [GOLDEN_HOST]
set -u
pt=$1 golden=$2 work=$3 host=${4:-}
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
