#!/bin/bash
# SPDX-License-Identifier: MIT
# palev-gen's command line: usage errors exit 2 with the exact message, a rename of a provider the
# manifest lacks exits 1.
# usage: cli.sh PALEV_GEN MANIFEST WORKDIR
set -u
gen=$1 manifest=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
expect() {     # expect RC A-LINE-OF-STDERR ARG...
    local rc=$1 msg=$2 got
    shift 2
    "$gen" "$@" 2> "$work/err" > /dev/null
    got=$?
    [ $got = "$rc" ] || fail "palev-gen $*: exit $got, expected $rc: $(cat "$work/err")"
    grep -qxF -- "$msg" "$work/err" || fail "palev-gen $*: said \"$(cat "$work/err")\""
    echo "palev-gen $*: exit $rc"
}
expect 2 'palev-gen: --provider-name Reserved=B: provider "Reserved" is already renamed to "A"' \
    generate --provider-name Reserved=A --provider-name Reserved=B -o "$work" "$manifest"
expect 2 'palev-gen: --provider-name wants ETWNAME=LTTNGNAME, not "Reserved"' \
    check --provider-name Reserved "$manifest"
expect 1 "$manifest: error: --provider-name Nope=X: no provider \"Nope\" in the manifest" \
    check --provider-name Nope=X "$manifest"
"$gen" check --provider-name Reserved=A --provider-name Reserved=A "$manifest" 2>/dev/null ||
    fail "the same rename twice is refused"
