#!/bin/bash
# SPDX-License-Identifier: MIT
# palev-gen's command line: usage errors exit 2 with the exact message, a rename of a provider the
# manifest lacks exits 1; --symbol-prefix lets one translation unit include two manifests whose
# events share symbols.
# usage: cli.sh PALEV_GEN MANIFEST WORKDIR INCLUDE_DIR PREFIX_MANIFEST
set -u
gen=$1 manifest=$2 work=$3 inc=$4 second=$5
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
expect 2 'palev-gen: --symbol-prefix wants a C identifier, not "9x"' \
    check --symbol-prefix 9x "$manifest"

# Two copies of one manifest (events GCStart, GCEnd) under two provider names, in one unit.
"$gen" generate -o "$work/a" "$second" 2>/dev/null || fail "cannot generate $second"
"$gen" generate --provider-name Second-Runtime=Third -o "$work/b" "$second" 2>/dev/null ||
    fail "cannot generate $second as Third"
printf '#include "Second_Runtime-events.h"\n#include "Third-events.h"\n' > "$work/both.c"
! cc -fsyntax-only -I"$work/a" -I"$work/b" -I"$inc" "$work/both.c" 2>/dev/null ||
    fail "two manifests with the same symbols compiled in one unit without a prefix"
"$gen" generate --provider-name Second-Runtime=Third --symbol-prefix Third_ -o "$work/b" "$second" ||
    fail "cannot generate with --symbol-prefix"
printf 'void f(void);\nvoid f(void) { FireEventGCEnd(); FireEventThird_GCEnd(); }\n' >> "$work/both.c"
cc -Wall -Wextra -Werror -fsyntax-only -I"$work/a" -I"$work/b" -I"$inc" "$work/both.c" ||
    fail "two manifests in one unit with --symbol-prefix Third_ do not compile"
echo "two manifests with the same symbols in one unit: compile with --symbol-prefix"

# --usdt: an event's semaphore <P>_<E>_semaphore and a struct type <P>_<T>_<S> can meet; both are
# declared in <P>-events.h, so generate --usdt refuses what would not compile (without --usdt there
# is no semaphore and nothing to refuse).
cat > "$work/sem.man" <<'MAN'
<?xml version="1.0" encoding="utf-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
<instrumentation><events>
<provider name="Sem" guid="{0b5e7d2c-3333-4222-8333-444455556666}" symbol="SEM">
<templates>
<template tid="X"><struct name="semaphore"><data name="A" inType="win:UInt32"/></struct></template>
</templates>
<events><event value="1" symbol="X" template="X"/></events>
</provider></events></instrumentation></instrumentationManifest>
MAN
expect 1 "$work/sem.man:7: error: struct \"semaphore\" would get the C type name Sem_X_semaphore of the USDT semaphore of the event at $work/sem.man:9" \
    generate --usdt -o "$work/sem" "$work/sem.man"
[ ! -e "$work/sem" ] || [ -z "$(ls -A "$work/sem")" ] || fail "generate --usdt wrote files for a refused manifest"
"$gen" generate -o "$work/sem" "$work/sem.man" 2>/dev/null || fail "the same manifest without --usdt is refused"
