#!/bin/bash
# SPDX-License-Identifier: MIT
# Selecting events as ETW would, through a real session. "keywords": for several (keywords, level)
# pairs, palev-gen enable-list must print exactly the events ETW's rule selects (computed from the
# manifest by etw_rule.py), and a session enabling that list must record exactly those events of
# the selftest hosts. "loglevel": a session enabling 'P:*' --loglevel=L must record exactly the
# events whose ETW level maps (docs/manifest.md "Levels") to L or more severe.
# usage: select.sh keywords|loglevel PALEV_GEN INCLUDE_DIR LIB_DIR WORKDIR MANIFEST
set -u
mode=$1 gen=$2 inc=$3 lib=$4 work=$5 manifest=$6
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
palev_require_sessiond
rule() { /usr/bin/python3 "$here/etw_rule.py" "$manifest" "$@" || palev_fail "etw_rule.py $* exited $?"; }
CC=${CC:-cc}
rm -rf "$work" && mkdir -p "$work/gen" || palev_fail "cannot create $work"
"$gen" generate -o "$work/gen" "$manifest" || palev_fail "palev-gen generate exited $?"
"$gen" selftest -o "$work/gen" "$manifest" || palev_fail "palev-gen selftest exited $?"
cd "$work/gen" || exit 1
providers=$("$gen" providers "$manifest") || palev_fail "palev-gen providers exited $?"
for p in $providers; do
    $CC -std=c11 -O2 -fPIC -shared -I. -o "lib$p-lttng.so" "$p-probe.c" -llttng-ust ||
        palev_fail "$p: the probe provider does not build"
    $CC -std=c11 -O2 -I. -I"$inc" -o "$p-selftest" "$p-selftest.c" "$p-events.c" \
        -L"$lib" -lpaleventing -ldl -Wl,-rpath,"$lib" || palev_fail "$p: the selftest does not build"
done
cat ./*-selftest.expect > all.expect

# One session per case, all recording while the selftest hosts run once. Small channels: a case
# records at most one event of each kind.
cases=()
session_for() {  # session_for LABEL DESCRIPTION lttng-enable-event-arguments...
    local s="palev-sel-$1-$$" label=$1 desc=$2
    shift 2
    lttng create "$s" --output="$work/trace-$label" >/dev/null || palev_fail "lttng create $s"
    lttng track -u -s "$s" --vuid="$(id -u)" >/dev/null || palev_fail "lttng track $s"
    PALEV_SESSIONS="$PALEV_SESSIONS $s"
    lttng enable-channel -u -s "$s" --subbuf-size=64K --num-subbuf=2 ch >/dev/null ||
        palev_fail "lttng enable-channel ($s)"
    lttng add-context -u -s "$s" -c ch -t vpid >/dev/null || palev_fail "lttng add-context ($s)"
    lttng enable-event -u -s "$s" -c ch "$@" >/dev/null || palev_fail "lttng enable-event $* ($s)"
    lttng start "$s" >/dev/null || palev_fail "lttng start $s"
    cases+=("$s|$label|$desc")
}

n=0
if [ "$mode" = keywords ]; then
    # keywords level provider ("-": not given); high keyword bit, a custom level, names, mask 0
    while read -r kw lvl prov; do
        args=()
        [ "$kw" != - ] && args+=(--keywords "$kw")
        [ "$lvl" != - ] && args+=(--level "$lvl")
        [ "$prov" != - ] && args+=(--provider "$prov")
        want=$(rule select "${args[@]}")
        got=$("$gen" enable-list "${args[@]}" "$manifest") || palev_fail "enable-list ${args[*]} exited $?"
        if [ "$(tr ',' '\n' <<< "$got" | sort)" != "$(tr ',' '\n' <<< "$want" | sort)" ]; then
            palev_fail "palev-gen enable-list ${args[*]:-(no options)}: $(diff <(tr ',' '\n' <<< "$want" | sort) \
                <(tr ',' '\n' <<< "$got" | sort) | grep '^[<>]' | tr '\n' ' ')(< ETW rule, > palev-gen)"
        fi
        n=$((n + 1))
        echo "$want" > "want-$n"
        echo "enable-list ${args[*]:-(nothing)}: $(tr ',' '\n' <<< "$want" | wc -l) events, as ETW's rule"
        session_for "$n" "enable-list ${args[*]:-(nothing)}" "$got"
    done <<'EOF'
- - -
0x1 2 -
0x2 4 -
0x8000000000 - -
0x4 3 Palev_Coverage
0 5 -
0 16 -
Text,Bulk 1 Palev_Coverage
EOF
else
    # LTTng log level names and values (LTTNG-NOTES): boundaries of each ETW level and between
    for level in EMERG:0 CRIT:2 ERR:3 WARNING:4 NOTICE:5 INFO:6 DEBUG_LINE:13 DEBUG:14; do
        n=$((n + 1))
        rule loglevel "${level#*:}" --provider Palev_Coverage > "want-$n"
        session_for "$n" "'Palev_Coverage:*' --loglevel=${level%:*}" 'Palev_Coverage:*' \
            --loglevel="${level%:*}"
    done
fi

pids=()
for p in $providers; do
    "./$p-selftest" &
    pids+=($!)
    wait $! || palev_fail "$p: the selftest exited $?"
done
status=0
for c in "${cases[@]}"; do
    IFS='|' read -r s label what <<< "$c"
    palev_session_stop "$s"
    for pid in "${pids[@]}"; do palev_read "$work/trace-$label" "$pid"; done > "got-$label"
    sed 's/: {.*//' "got-$label" | sort > "got-names-$label"
    tr ',' '\n' < "want-$label" | grep . | sort > "want-names-$label"
    if ! diff -u "want-names-$label" "got-names-$label" > "diff-$label"; then
        echo "FAIL: $what: the session did not record exactly the selected events:" >&2
        grep '^[-+][^-+]' "diff-$label" | sed 's/^-/  missing: /; s/^+/  unexpected: /' >&2
        status=1
    elif ! grep -q -x -v -F -f all.expect "got-$label"; then
        echo "$what: recorded exactly the $(wc -l < "got-names-$label") selected events, fields intact"
    else
        echo "FAIL: $what: events with wrong fields:" >&2
        grep -x -v -F -f all.expect "got-$label" >&2
        status=1
    fi
done
exit $status
