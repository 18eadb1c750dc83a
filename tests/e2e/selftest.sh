#!/bin/bash
# SPDX-License-Identifier: MIT
# Round trip of a manifest through a real LTTng session: palev-gen generate + selftest, build the
# probe providers and the selftest hosts, trace them, and compare what babeltrace2 reads back with
# the .expect files field by field.
# usage: selftest.sh PALEV_GEN INCLUDE_DIR LIB_DIR WORKDIR MANIFEST   (PALEV_GEN_ARGS: more generate options)
set -u
gen=$1 inc=$2 lib=$3 work=$4 manifest=$5
. "$(dirname "$0")/lib.sh"
palev_require_sessiond
CC=${CC:-cc}
# Extra palev-gen options of a tests/gen/valid case: its "args" file beside the manifest.
args=()
[ -f "$(dirname "$manifest")/args" ] && read -r -a args < "$(dirname "$manifest")/args"
rm -rf "$work" && mkdir -p "$work/gen" || palev_fail "cannot create $work"
"$gen" generate "${args[@]}" ${PALEV_GEN_ARGS:-} -o "$work/gen" "$manifest" || palev_fail "palev-gen generate exited $?"
"$gen" selftest "${args[@]}" -o "$work/gen" "$manifest" || palev_fail "palev-gen selftest exited $?"
cd "$work/gen" || exit 1
status=0
for events in *-events.c; do
    p=${events%-events.c}
    $CC -std=c11 -Wall -Wextra -Werror -O2 -fPIC -shared -I. -o "lib$p-lttng.so" "$p-probe.c" \
        -llttng-ust || palev_fail "$p: the probe provider does not build"
    $CC -std=c11 -Wall -Wextra -Werror -O2 -I. -I"$inc" -o "$p-selftest" "$p-selftest.c" "$events" \
        -L"$lib" -lpaleventing -ldl -Wl,-rpath,"$lib" || palev_fail "$p: the selftest does not build"
    session="palev-st-$p-$$"
    palev_session_start "$session" "$work/trace-$p" "$p:*"
    ./"$p-selftest" &
    pid=$!
    wait $pid || palev_fail "$p: the selftest exited $?"
    palev_session_stop "$session"
    palev_read "$work/trace-$p" "$pid" > "$p.got"
    expected=$(wc -l < "$p-selftest.expect")
    matched=$(grep -c -x -F -f "$p-selftest.expect" "$p.got")
    if diff -u "$p-selftest.expect" "$p.got" > "$p.diff"; then
        echo "$p: $matched of $expected events read back with every field equal"
    else
        echo "$p: $matched of $expected events equal; differences:" >&2
        head -40 "$p.diff" >&2
        status=1
    fi
done
exit $status
