#!/bin/bash
# SPDX-License-Identifier: MIT
# Faults around a traced host (tests/faults/host.c, two threads firing Palev_Faults events): the
# host must exit 0 within a bounded time, and every event that reached the trace must be intact
# (babeltrace2 reads the trace to the end; check_trace.py checks every field).
# usage: fault.sh CASE FAULT_HOST WORKDIR [PALEV_GEN]
#   sessiond-kill    the session daemon is killed with SIGKILL while the host fires; a new one is
#                    started and the still running host records into its session
#   session-destroy  the session is destroyed (without stopping it first) while the host fires
#   session-start    a session is created and started while the host fires
#   tiny-buffers     2 x 4 KiB sub-buffers in discard mode: events are lost, the host's time is not
#   fork             the host forks halfway; the child fires with two threads and exits 0
#   provider         the probe provider missing, unreadable, a directory, not an ELF file, a cut
#                    ELF file, a FIFO: the host runs untraced
#   provider-layout  a probe provider generated from another version of the manifest (same
#                    names, another argument layout) is skipped, the next candidate loaded: needs
#                    PALEV_GEN
#   big              64 KiB strings and 100 000-element arrays: recorded whole when the
#                    sub-buffer holds them, else discarded and reported; never a crash
#   eventsource-big  EventSource payloads of 1 MiB (JSON text to compact, and json_pack): recorded
#                    whole when the sub-buffer holds them, else discarded and reported
#   big-asan         the same with the host, its events unit and libpaleventing's sources built
#                    with ASan+UBSan (needs PALEV_GEN)
#   exit-firing      main() returns while 4 threads go on firing typed and EventSource events,
#                    20 times, at different moments: every run exits 0 (tiny buffers in discard
#                    mode: the threads run the whole recording path, the trace stays small)
set -u
case=$1 host=$2 work=$3 gen=${4:-}
FAULT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$FAULT_DIR/lib.sh"
fault_init "$work" "$host"
W=$FAULT_WORK

# The pid the host printed ("host <pid> firing"): the vpid of its events.
host_pid() {
    sed -n 's/^host \([0-9]*\) firing$/\1/p' "$1"
}

# The host's own measure of its run, in ms.
host_ms() {
    sed -n 's/^host elapsed_ms //p' "$1"
}

# The data channel flushes every 200 ms (switch timer) so that events reach the disk before the
# kill. liblttng-ust retries a lost daemon after about 5 s (seen up to a minute on a loaded
# machine): the test waits (at most 90 s) until the still running host has registered with the
# new daemon, lets it record into the new session for a while, then tells it to stop.
case_sessiond_kill() {
    local pid t0 waited=0
    fault_sessiond_start
    fault_session before "$W/trace-before" --subbuf-size=4M --num-subbuf=4 --switch-timer=200000
    FAULT_HOST_TIMEOUT=120 fault_host_start "$W/host.log" "$host" --seconds 100 --pace-us 200 \
        --stop-file "$W/stop"
    sleep 2
    pid=$(host_pid "$W/host.log")
    [ -n "$pid" ] || fault_fail "the host did not start"
    echo "killing lttng-sessiond $FAULT_SESSIOND_PID with SIGKILL while the host $pid fires"
    kill -KILL "$FAULT_SESSIOND_PID"
    t0=$(date +%s)
    while palev_alive "$FAULT_SESSIOND_PID"; do sleep 0.1; done
    FAULT_SESSIOND_PID=""
    sleep 1
    fault_sessiond_start
    fault_session after "$W/trace-after"
    until fault_as lttng list -u 2>/dev/null | grep -q "PID: $pid "; do
        waited=$(( $(date +%s) - t0 ))
        [ $waited -lt 90 ] || fault_fail "the host did not register with the new daemon in 90 s"
        sleep 0.5
    done
    echo "started a new lttng-sessiond $FAULT_SESSIOND_PID; the host registered with it $(( $(date +%s) - t0 )) s after the kill"
    sleep 2
    fault_lttng stop after && fault_lttng destroy after || fault_fail "cannot stop the new session"
    t0=$(date +%s%N)
    touch "$W/stop"
    fault_host_wait "$W/host.log"
    echo "host exited 0, $(( ($(date +%s%N) - t0) / 1000000 )) ms after being told to stop"
    [ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 5000 ] || fault_fail "the host was slow to stop"
    echo -n "before the kill: "
    fault_check "$W/trace-before" --pid "$pid"
    echo -n "after the restart: "
    fault_check "$W/trace-after" --pid "$pid" --min Tick=1
}

case_session_destroy() {
    fault_sessiond_start
    fault_session s "$W/trace"
    fault_host_start "$W/host.log" "$host" --seconds 4 --pace-us 100
    sleep 1.5
    fault_lttng destroy s || fault_fail "lttng destroy"
    echo "destroyed the session while the host fires"
    fault_host_wait "$W/host.log"
    echo "host exited 0 after $(host_ms "$W/host.log") ms (4000 asked)"
    [ "$(host_ms "$W/host.log")" -lt 8000 ] || fault_fail "the host was held up"
    fault_check "$W/trace" --pid "$(host_pid "$W/host.log")" --min Tick=1
}

case_session_start() {
    fault_sessiond_start
    fault_host_start "$W/host.log" "$host" --seconds 4 --pace-us 100
    sleep 1
    fault_session s "$W/trace"
    echo "started a session while the host fires"
    sleep 1.5
    fault_lttng stop s && fault_lttng destroy s || fault_fail "cannot stop the session"
    fault_host_wait "$W/host.log"
    echo "host exited 0 after $(host_ms "$W/host.log") ms (4000 asked)"
    fault_check "$W/trace" --pid "$(host_pid "$W/host.log")" --min Tick=1
}

# The same work (COUNT Ticks per thread, unpaced) without a session, with a session of large
# buffers and with tiny ones. Discarding must keep the host's time close to the large-buffer case;
# blocking on full buffers would make it wait for the consumer daemon.
case_tiny_buffers() {
    local count=300000 t0 t1 t2
    fault_sessiond_start
    fault_host_start "$W/none.log" "$host" --count $count
    fault_host_wait "$W/none.log"
    t0=$(host_ms "$W/none.log")
    fault_session big "$W/trace-big"
    fault_host_start "$W/big.log" "$host" --count $count
    fault_host_wait "$W/big.log"
    fault_lttng destroy big
    t1=$(host_ms "$W/big.log")
    fault_session tiny "$W/trace-tiny" --subbuf-size=4096 --num-subbuf=2 --discard
    fault_host_start "$W/tiny.log" "$host" --count $count
    fault_host_wait "$W/tiny.log"
    fault_lttng stop tiny && fault_lttng destroy tiny
    t2=$(host_ms "$W/tiny.log")
    echo "2 threads x $count events: no session $t0 ms, 4 x 4 MiB buffers $t1 ms, 2 x 4 KiB buffers $t2 ms"
    # generous: a loaded 2-core machine varies a lot, blocking would cost far more
    [ "$t2" -le $((3 * t1 + 2000)) ] || fault_fail "the host took $t2 ms with tiny buffers"
    echo -n "tiny buffers: "
    fault_check "$W/trace-tiny" --pid "$(host_pid "$W/tiny.log")" --min Tick=1 --discarded some \
        --fired $((2 * count))
}

# Without fork hooks the child's events would carry the parent's vpid (liblttng-ust caches it):
# libpaleventing registers liblttng-ust's hooks with pthread_atfork() (plain), unless
# liblttng-ust-fork.so is preloaded (preload) or the host does it itself with PALEV_FORK_HOOKS=0
# (atfork). Each way the child registers as a process of its own, exits 0, its events intact.
case_fork() {
    local variant log pid child
    fault_sessiond_start
    for variant in plain preload atfork; do
        log=$W/host-$variant.log
        fault_session "fork-$variant" "$W/trace-$variant"
        case $variant in
        plain) fault_host_start "$log" "$host" --fork --seconds 3 --pace-us 100 ;;
        preload) fault_host_start "$log" env LD_PRELOAD=liblttng-ust-fork.so.1 "$host" --fork --seconds 3 --pace-us 100 ;;
        # the host registers the hooks itself: libpaleventing must not do it again
        atfork) fault_host_start "$log" env PALEV_FORK_HOOKS=0 "$host" --fork --atfork --seconds 3 --pace-us 100 ;;
        esac
        fault_host_wait "$log"
        fault_lttng stop "fork-$variant" && fault_lttng destroy "fork-$variant"
        pid=$(host_pid "$log")
        child=$(sed -n 's/^child \([0-9]*\) exited 0$/\1/p' "$log")
        [ -n "$child" ] || fault_fail "$variant: the child did not exit 0: $(cat "$log")"
        echo -n "$variant: parent $pid, child $child exited 0; "
        fault_check "$W/trace-$variant" --pid "$child" --min Tick=1 > "$W/child-$variant.txt" ||
            fault_fail "$variant: $(cat "$W/child-$variant.txt")"
        echo "child's own events: $(cat "$W/child-$variant.txt")"
    done
}

# A copy of the host far from its probe provider, with PALEV_PROVIDER_PATH pointing at what the
# case puts there: the host must run untraced, and quietly.
case_provider() {
    local dir=$W/providers so name
    so=$(dirname "$host")/libPalev_Faults-lttng.so
    [ -f "$so" ] || fault_fail "no probe provider next to $host"
    mkdir -p "$W/bin" && cp "$host" "$W/bin/" || fault_fail "cannot copy the host"
    fault_sessiond_start
    for name in missing directory unreadable text cut-elf fifo; do
        rm -rf "$dir" && mkdir -p "$dir"
        case $name in
        directory) mkdir "$dir/libPalev_Faults-lttng.so" ;;
        # the host runs as nobody (when the test runs as root), for whom mode 000 is unreadable
        unreadable) cp "$so" "$dir/" && chmod 000 "$dir/libPalev_Faults-lttng.so" ;;
        text) echo "not a shared object" > "$dir/libPalev_Faults-lttng.so" ;;
        cut-elf) head -c 4096 "$so" > "$dir/libPalev_Faults-lttng.so" ;;
        # nobody ever writes into it: opening it to read would wait forever
        fifo) mkfifo "$dir/libPalev_Faults-lttng.so" ;;
        esac
        chown -R "$(stat -c %u:%g "$W")" "$dir"
        fault_session "prov-$name" "$W/trace-$name"
        FAULT_HOST_TIMEOUT=30 fault_host_start "$W/$name.log" env PALEV_PROVIDER_PATH="$dir" \
            "$W/bin/fault_host" --seconds 0.5
        fault_host_wait "$W/$name.log"
        fault_lttng stop "prov-$name" && fault_lttng destroy "prov-$name"
        echo -n "$name: host exited 0, quietly; "
        fault_check "$W/trace-$name" --max Tick=0
    done
}

# A probe provider built from another version of the manifest: Text moved before Seq in T_Tick.
case_provider_layout() {
    local v=$W/variant
    [ -n "$gen" ] || fault_fail "provider-layout needs PALEV_GEN"
    mkdir -p "$v" "$W/bin" && cp "$host" "$W/bin/" || fault_fail "cannot copy the host"
    /usr/bin/python3 - "$FAULT_DIR/faults.man" "$v/variant.man" <<'PY' || fault_fail "cannot write the variant"
import sys
s = open(sys.argv[1]).read()
text = '            <data name="Text" inType="win:UnicodeString"/>\n'
seq = '            <data name="Seq" inType="win:UInt64"/>\n'
assert text in s and seq in s
s = s.replace(text, "", 1).replace(seq, text + seq, 1)
open(sys.argv[2], "w").write(s)
PY
    "$gen" generate -o "$v" "$v/variant.man" || fault_fail "palev-gen generate (variant)"
    ${CC:-cc} -std=c11 -O2 -fPIC -shared -I"$v" -o "$v/libPalev_Faults-lttng.so" \
        "$v/Palev_Faults-probe.c" -llttng-ust || fault_fail "the variant probe does not build"
    chown -R "$(stat -c %u:%g "$W")" "$v"
    fault_sessiond_start
    # Only the variant: refused before it is loaded, and said so; the host runs untraced.
    fault_session layout "$W/trace"
    FAULT_HOST_TIMEOUT=30 fault_host_start "$W/host.log" env PALEV_PROVIDER_PATH="$v" PALEV_DEBUG=1 \
        "$W/bin/fault_host" --seconds 1 --pace-us 100
    wait "$FAULT_HOST_PID" || fault_fail "the host exited $?: $(head -5 "$W/host.log.err")"
    fault_lttng stop layout && fault_lttng destroy layout
    grep -q "provider not loaded: name=\"Palev_Faults\", .*tried=\"$v/libPalev_Faults-lttng.so (built from another version of the manifest" \
        "$W/host.log.err" || fault_fail "PALEV_DEBUG did not say why the variant was skipped: $(cat "$W/host.log.err")"
    echo -n "host exited 0 with only a provider of another layout (skipped, PALEV_DEBUG says why); "
    fault_check "$W/trace" --max Tick=0
    # The variant first in PALEV_PROVIDER_PATH, the right one beside the host: the right one is
    # loaded, the host traced.
    cp "$(dirname "$host")/libPalev_Faults-lttng.so" "$W/bin/" && chown -R "$(stat -c %u:%g "$W")" "$W/bin" ||
        fault_fail "cannot copy the probe provider"
    fault_session layout2 "$W/trace2"
    FAULT_HOST_TIMEOUT=30 fault_host_start "$W/host2.log" env PALEV_PROVIDER_PATH="$v" \
        "$W/bin/fault_host" --seconds 1 --pace-us 100
    fault_host_wait "$W/host2.log"
    fault_lttng stop layout2 && fault_lttng destroy layout2
    echo -n "the variant first in PALEV_PROVIDER_PATH, the right one beside the host: "
    fault_check "$W/trace2" --min Tick=100
}

# Each thread fires one BigString (two 64 KiB strings), one BigArray (400 KB of integers) and one
# BigDoubles (a 1.9 MB JSON string), then Ticks.
case_big() {
    local log
    fault_sessiond_start
    fault_session big4m "$W/trace-4m" --subbuf-size=4M --num-subbuf=4
    fault_host_start "$W/host-4m.log" "$host" --big --count 100
    fault_host_wait "$W/host-4m.log"
    fault_lttng stop big4m && fault_lttng destroy big4m
    echo -n "4 MiB sub-buffers: "
    fault_check "$W/trace-4m" --min BigString=2 --min BigArray=2 --min BigDoubles=2 --min Tick=200 \
        --discarded none
    fault_session big256k "$W/trace-256k" --subbuf-size=256K --num-subbuf=4
    fault_host_start "$W/host-256k.log" "$host" --big --count 100
    fault_host_wait "$W/host-256k.log"
    fault_lttng stop big256k && fault_lttng destroy big256k
    echo -n "256 KiB sub-buffers: "
    fault_check "$W/trace-256k" --min BigString=2 --max BigArray=0 --max BigDoubles=0 \
        --min Tick=200 --discarded some
}

case_eventsource_big() {
    local FAULT_EVENTS="Palev_Faults:*,Paleventing:EventSource"
    fault_sessiond_start
    fault_session es4m "$W/trace-4m" --subbuf-size=4M --num-subbuf=4
    fault_host_start "$W/host-4m.log" "$host" --es-big --count 100
    fault_host_wait "$W/host-4m.log"
    fault_lttng stop es4m && fault_lttng destroy es4m
    echo -n "4 MiB sub-buffers: "
    fault_check "$W/trace-4m" --min EventSource=4 --min Tick=200 --discarded none
    fault_session es256k "$W/trace-256k" --subbuf-size=256K --num-subbuf=4
    fault_host_start "$W/host-256k.log" "$host" --es-big --count 100
    fault_host_wait "$W/host-256k.log"
    fault_lttng stop es256k && fault_lttng destroy es256k
    echo -n "256 KiB sub-buffers: "
    fault_check "$W/trace-256k" --max EventSource=0 --min Tick=200 --discarded some
}

# At exit the tracepoint modules' destructors used to zero the function pointers the call sites
# go through while other threads still fired: SIGSEGV in most runs (libpaleventing now tells
# liblttng-ust to leave them, see pal/ust.c).
case_exit_firing() {
    local FAULT_EVENTS="Palev_Faults:*,Paleventing:EventSource" k pids=()
    fault_sessiond_start
    fault_session s "$W/trace" --subbuf-size=4096 --num-subbuf=2 --discard
    for k in $(seq 20); do
        FAULT_HOST_TIMEOUT=30 fault_host_start "$W/host-$k.log" "$host" --threads 4 \
            --seconds "0.$(printf %02d "$k")" --exit-firing
        fault_host_wait "$W/host-$k.log"
        grep -q "exits while firing" "$W/host-$k.log" || fault_fail "run $k did not exit while firing"
        pids+=(--pid "$(host_pid "$W/host-$k.log")")
    done
    echo "20 runs of 4 threads firing while main() returns: every one exited 0"
    fault_lttng stop s && fault_lttng destroy s || fault_fail "cannot stop the session"
    fault_check "$W/trace" "${pids[@]}" --min Tick=1 --min EventSource=1
}

# The host rebuilt with the sanitizers: generated code and libpaleventing instrumented, the probe
# provider (LTTng's code) not.
build_asan_host() {
    local d=$W/asan top
    top=$(cd "$FAULT_DIR/../.." && pwd)
    [ -n "$gen" ] || fault_fail "$case needs PALEV_GEN"
    mkdir -p "$d" && "$gen" generate -o "$d" "$FAULT_DIR/faults.man" || fault_fail "palev-gen generate"
    . "$FAULT_DIR/library_sources.sh"
    palev_library_sources "$top" "$gen" "$d" || fault_fail "libpaleventing's sources"
    ${CC:-cc} -std=c11 -O2 -fPIC -shared -I"$d" -o "$d/libPalev_Faults-lttng.so" \
        "$d/Palev_Faults-probe.c" -llttng-ust || fault_fail "the probe provider does not build"
    ${CC:-cc} -std=c11 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
        -fno-omit-frame-pointer -D_GNU_SOURCE -DPALEV_BUILDING_LIBRARY -I"$d" "${PALEV_LIB_INC[@]}" \
        -o "$d/fault_host" "$FAULT_DIR/host.c" "$d/Palev_Faults-events.c" "${PALEV_LIB_SRC[@]}" \
        -ljansson -lurcu-bp -ldl -lpthread || fault_fail "the sanitized host does not build"
    chown -R "$(stat -c %u:%g "$W")" "$d"
    host=$d/fault_host
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
}

case $case in
sessiond-kill) case_sessiond_kill ;;
session-destroy) case_session_destroy ;;
session-start) case_session_start ;;
tiny-buffers) case_tiny_buffers ;;
fork) case_fork ;;
provider) case_provider ;;
provider-layout) case_provider_layout ;;
big) case_big ;;
eventsource-big) case_eventsource_big ;;
big-asan) build_asan_host && case_big ;;
exit-firing) case_exit_firing ;;
*) fault_fail "unknown case $case" ;;
esac
echo PASS
