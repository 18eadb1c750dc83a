#!/bin/bash
# SPDX-License-Identifier: MIT
# Every palev-trace command under valgrind on the golden trace and on damaged copies of it: no
# invalid access, no use of uninitialised memory, nothing definitely lost; and the same answers
# as without valgrind: the same exit status, output and files (exit 0 on the golden trace, 1 with
# "damaged" said on the truncated one).
# usage: valgrind.sh VALGRIND PALEV_TRACE GOLDEN_WORKDIR WORKDIR
set -u
vg=$1 pt=$2 golden=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
man=$here/golden.man
rm -rf "$work" && mkdir -p "$work/plain" "$work/vg" || exit 1
cp -r "$golden/trace" "$work/truncated"
s=$(find "$work/truncated" -name 'ch_*' -type f -size +0 | head -1)
truncate -s $(( $(stat -c %s "$s") / 3 )) "$s"
status=0

# run WANT_RC NAME ARGS...: the command plainly, then under valgrind; both must exit WANT_RC and
# write the same stdout and -o file (FILE in the arguments stands for it).
run() {
    local want=$1 name=$2
    shift 2
    "$pt" "${@//FILE/$work/plain/$name.file}" > "$work/plain/$name.out" 2> "$work/plain/$name.err"
    local rc=$?
    "$vg" --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --quiet \
        "$pt" "${@//FILE/$work/vg/$name.file}" > "$work/vg/$name.out" 2> "$work/vg/$name.err"
    local vrc=$?
    if [ $vrc = 99 ] || [ $vrc != $rc ] || [ $rc != "$want" ]; then
        echo "FAIL: palev-trace $* exited $rc, under valgrind $vrc (want $want): $(head -20 "$work/vg/$name.err")"
        status=1
    elif ! cmp -s "$work/plain/$name.out" "$work/vg/$name.out" ||
         { [ -e "$work/plain/$name.file" ] && ! cmp -s "$work/plain/$name.file" "$work/vg/$name.file"; }; then
        echo "FAIL: palev-trace $* answers otherwise under valgrind"
        status=1
    else
        echo "ok: palev-trace $* (exit $rc, the same output)"
    fi
}
for t in golden truncated; do
    trace=$golden/trace want=0
    [ $t = truncated ] && trace=$work/truncated want=1
    run $want $t-summary summary -m "$man" "$trace"
    run $want $t-activities activities -m "$man" --by Kind "$trace"
    run $want $t-counters counters -m "$man" "$trace"
    run $want $t-export export -m "$man" -o FILE "$trace"
    run $want $t-report report -m "$man" --by Kind -o FILE "$trace"
done
grep -q "the trace is damaged\|not a readable CTF trace" "$work/vg/truncated-summary.err" ||
    { echo "FAIL: the truncated trace is not said to be damaged: $(head -3 "$work/vg/truncated-summary.err")"; status=1; }
grep -q '^Palev_TraceGolden:Work ' "$work/vg/golden-activities.out" ||
    { echo "FAIL: no Work row under valgrind: $(head -3 "$work/vg/golden-activities.out")"; status=1; }
exit $status
