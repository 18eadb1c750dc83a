#!/bin/bash
# SPDX-License-Identifier: MIT
# ProviderEnabled<P>(level, keywords) reflects the real sessions: a running host built from the
# coverage manifest (providers renamed Palev_Host, Palev_Host2) answers a table of (level, mask)
# questions with no session, then while sessions enable subsets of its events (a list, a
# wildcard with --loglevel, two sessions at once), and after they are gone. Each answer must be
# what ETW's rule says over the enabled subset (etw_rule.py).
# usage: enabled.sh ENABLED_HOST MANIFEST WORKDIR
set -u
host=$1 manifest=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
palev_require_sessiond
renames=(--rename Palev-Coverage=Palev_Host --rename Microsoft-Windows-Palev-Second=Palev_Host2)
rule() { /usr/bin/python3 "$here/etw_rule.py" "$manifest" "$@" "${renames[@]}" ||
    palev_fail "etw_rule.py $* exited $?"; }
rm -rf "$work" && mkdir -p "$work" || palev_fail "cannot create $work"

coproc HOST { "$host"; }
ask() {  # ask FILE: the host's answers
    echo q >&"${HOST[1]}"
    : > "$1"
    local line
    while IFS= read -r -t 10 line <&"${HOST[0]}"; do
        [ "$line" = . ] && return 0
        echo "$line" >> "$1"
    done
    palev_fail "the host did not answer"
}
# check LABEL ENABLED-LIST: the answers must follow the ETW rule over ENABLED-LIST. A running
# host learns of a session change through the session daemon: allow it a moment.
step=0
check() {
    local label=$1 enabled=$2
    step=$((step + 1))
    for _ in $(seq 30); do
        ask "$work/got-$step"
        rule answers --enabled "$enabled" < "$work/got-$step" > "$work/want-$step"
        cmp -s "$work/want-$step" "$work/got-$step" && break
        sleep 0.1
    done
    if ! diff -u "$work/want-$step" "$work/got-$step" > "$work/diff-$step"; then
        echo "FAIL: $label: ProviderEnabled answers differ (- ETW rule, + host):" >&2
        grep '^[-+][^-+]' "$work/diff-$step" >&2
        exit 1
    fi
    echo "$label: $(grep -c ' 1$' "$work/got-$step") of $(wc -l < "$work/got-$step") questions answered yes, as ETW's rule says"
}
session() {  # session NAME lttng-enable-event-arguments...
    local s="palev-en-$1-$$"
    shift
    lttng create "$s" --output="$work/trace-$s" >/dev/null || palev_fail "lttng create $s"
    lttng track -u -s "$s" --vuid="$(id -u)" >/dev/null || palev_fail "lttng track $s"
    PALEV_SESSIONS="$PALEV_SESSIONS $s"
    lttng enable-event -u -s "$s" "$@" >/dev/null || palev_fail "lttng enable-event $*"
    lttng start "$s" >/dev/null || palev_fail "lttng start $s"
}
gone() { lttng destroy "palev-en-$1-$$" >/dev/null || palev_fail "lttng destroy $1"; }

check "no session" ""
session a Palev_Host:TextError
check "session enabling TextError" Palev_Host:TextError
gone a
check "session destroyed" ""
list=Palev_Host:CommonChatty,Palev_Host:BulkInfo,Palev_Host2:Event2
session b "$list"
check "session enabling $list" "$list"
gone b
session c 'Palev_Host:*' --loglevel=WARNING
warn=$(rule loglevel 4 --provider Palev_Host)
check "session enabling 'Palev_Host:*' --loglevel=WARNING" "$warn"
session d Palev_Host2:SecondCommon
check "two sessions, the second enabling Palev_Host2:SecondCommon" "$warn,Palev_Host2:SecondCommon"
gone c
gone d
check "sessions destroyed" ""
exec {HOST[1]}>&-
wait "$HOST_PID" || palev_fail "the host exited $?"
