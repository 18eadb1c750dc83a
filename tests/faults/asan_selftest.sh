#!/bin/bash
# SPDX-License-Identifier: MIT
# The selftest host of a manifest built with AddressSanitizer and UndefinedBehaviorSanitizer (the
# host, its generated events unit and libpaleventing's sources compiled into it), traced in a real
# session: no sanitizer report, and babeltrace2 reads back exactly the .expect file.
# The probe provider stays uninstrumented (it is LTTng's code). Leak checking stays on: unlike
# valgrind (pal/valgrind.supp), LeakSanitizer finds liblttng-ust's never-freed start-up
# blocks still reachable and reports nothing, so no suppression is needed.
# usage: asan_selftest.sh PALEV_GEN WORKDIR MANIFEST
set -u
gen=$1 work=$2 manifest=$3
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/tests/e2e/lib.sh"
palev_require_sessiond
CC=${CC:-cc}
rm -rf "$work" && mkdir -p "$work/gen" || palev_fail "cannot create $work"
"$gen" generate -o "$work/gen" "$manifest" || palev_fail "palev-gen generate exited $?"
"$gen" selftest -o "$work/gen" "$manifest" || palev_fail "palev-gen selftest exited $?"

. "$here/library_sources.sh"
palev_library_sources "$top" "$gen" "$work" || palev_fail "libpaleventing's sources"
san=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

cd "$work/gen" || exit 1
status=0
for events in *-events.c; do
    p=${events%-events.c}
    $CC -std=c11 -O2 -fPIC -shared -I. -o "lib$p-lttng.so" "$p-probe.c" -llttng-ust ||
        palev_fail "$p: the probe provider does not build"
    $CC -std=c11 -Wall -Wextra -Werror "${san[@]}" -D_GNU_SOURCE -DPALEV_BUILDING_LIBRARY -I. \
        "${PALEV_LIB_INC[@]}" -o "$p-selftest" "$p-selftest.c" "$events" "${PALEV_LIB_SRC[@]}" -ljansson -lurcu-bp -ldl -lpthread ||
        palev_fail "$p: the sanitized selftest does not build"
    session="palev-asan-$p-$$"
    palev_session_start "$session" "$work/trace-$p" "$p:*"
    ./"$p-selftest" 2> "$p.err" &
    pid=$!
    wait $pid
    rc=$?
    palev_session_stop "$session"
    [ $rc = 0 ] || palev_fail "$p: the sanitized selftest exited $rc: $(head -30 "$p.err")"
    [ -s "$p.err" ] && palev_fail "$p: the sanitized selftest wrote on stderr: $(head -30 "$p.err")"
    palev_read "$work/trace-$p" "$pid" > "$p.got"
    if diff -u "$p-selftest.expect" "$p.got" > "$p.diff"; then
        echo "$p: $(wc -l < "$p.got") events, every field equal, no sanitizer report"
    else
        echo "$p: differences:" >&2
        head -40 "$p.diff" >&2
        status=1
    fi
done
exit $status
