#!/bin/bash
# SPDX-License-Identifier: MIT
# A provider built renamed (palev-gen --provider-name), traced for real, read by palev-trace: its
# manifest describes the trace only with the same rename, given with --provider-name or in
# TRACE/palev-manifests/provider-names (as palev-collect writes it). The manifest's task and
# opcodes are what make Open..Close an activity: its instance shows the manifest was used.
# usage: provider_names.sh PALEV_GEN PALEV_TRACE INCLUDE_DIR LIB_DIR WORKDIR
set -u
gen=$1 pt=$2 inc=$3 lib=$4 work=$5
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
palev_require_sessiond
CC=${CC:-cc}
man=$here/renamed.man
rename=Palev-Renamed=Renamed
rm -rf "$work" && mkdir -p "$work/gen" || palev_fail "cannot create $work"
"$gen" generate --provider-name $rename -o "$work/gen" "$man" || palev_fail "palev-gen generate exited $?"
"$gen" selftest --provider-name $rename -o "$work/gen" "$man" || palev_fail "palev-gen selftest exited $?"
cd "$work/gen" || exit 1
$CC -std=c11 -O2 -fPIC -shared -I. -o libRenamed-lttng.so Renamed-probe.c -llttng-ust ||
    palev_fail "the probe provider does not build"
$CC -std=c11 -O2 -I. -I"$inc" -o host Renamed-selftest.c Renamed-events.c -L"$lib" -lpaleventing -ldl \
    -Wl,-rpath,"$lib" || palev_fail "the host does not build"
session="palev-names-$$"
palev_session_start "$session" "$work/trace" 'Renamed:*'
palev_run_host ./host host
palev_session_stop "$session"
trace=$work/trace
status=0

# expect CODE PATTERN -- palev-trace ARGS...: exit code CODE and PATTERN (grep -E) in stdout+stderr
expect() {
    local code=$1 pattern=$2
    shift 3
    "$pt" "$@" > "$work/out" 2>&1
    local rc=$?
    if [ $rc != "$code" ] || ! grep -qE -- "$pattern" "$work/out"; then
        echo "FAIL: palev-trace $* exited $rc (want $code and /$pattern/):"
        head -5 "$work/out"
        status=1
    else
        echo "ok: exit $rc: $(grep -m1 -E -- "$pattern" "$work/out")"
    fi
}
job='^Renamed:Job +1 '
# without the rename the manifest names another provider
expect 1 "renamed.man does not describe this trace: no event of its provider Palev_Renamed is in it" -- \
    activities -m "$man" "$trace"
expect 0 "$job" -- activities -m "$man" --provider-name $rename "$trace"
# the trace's own record, as palev-collect keeps it: no option needed
mkdir -p "$trace/palev-manifests" && cp "$man" "$trace/palev-manifests/"
printf '# ETWNAME=LTTNGNAME, as the providers were built\n\n  %s  \n' $rename > "$trace/palev-manifests/provider-names"
expect 0 "$job" -- activities "$trace"
expect 0 "^manifests  1$" -- summary "$trace"
# the command line wins over the file: the manifest then describes a provider Other
expect 0 "^\(no activity" -- activities --provider-name Palev-Renamed=Other "$trace"
expect 0 "^Renamed:Job +1 " -- activities --no-manifests -m "$man" --provider-name $rename "$trace"
# mistakes, said as palev-gen says them
printf '%s\noops\n' $rename > "$trace/palev-manifests/provider-names"
expect 1 "palev-manifests/provider-names:2: wants ETWNAME=LTTNGNAME, not \"oops\"" -- activities "$trace"
printf 'Palev-Renamed=Renamed\nPalev-Renamed=Other\n' > "$trace/palev-manifests/provider-names"
expect 1 "provider-names:2: Palev-Renamed=Other: provider \"Palev-Renamed\" is already renamed to \"Renamed\"" -- \
    activities "$trace"
expect 2 "palev-trace activities: --provider-name wants ETWNAME=LTTNGNAME, not \"Renamed\"" -- \
    activities --provider-name Renamed "$trace"
expect 2 "--provider-name A=C: provider \"A\" is already renamed to \"B\"" -- \
    summary --provider-name A=B --provider-name A=C "$trace"
expect 1 "--provider-name Nope=X: no provider \"Nope\" in the manifests read" -- \
    summary --no-manifests -m "$man" --provider-name $rename --provider-name Nope=X "$trace"
exit $status
