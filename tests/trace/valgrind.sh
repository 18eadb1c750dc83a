#!/bin/bash
# SPDX-License-Identifier: MIT
# Every palev-trace command under valgrind on the golden trace and on damaged copies of it: no
# invalid access, no use of uninitialised memory, nothing definitely lost.
# usage: valgrind.sh VALGRIND PALEV_TRACE GOLDEN_WORKDIR WORKDIR
set -u
vg=$1 pt=$2 golden=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
man=$here/golden.man
rm -rf "$work" && mkdir -p "$work" || exit 1
cp -r "$golden/trace" "$work/truncated"
s=$(find "$work/truncated" -name 'ch_*' -type f -size +0 | head -1)
truncate -s $(( $(stat -c %s "$s") / 3 )) "$s"
status=0
run() {
    "$vg" --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --quiet "$pt" "$@" \
        > /dev/null 2> "$work/vg.err"
    local rc=$?
    if [ $rc = 99 ] || [ $rc -gt 2 ]; then
        echo "FAIL: valgrind palev-trace $* exited $rc: $(head -20 "$work/vg.err")"
        status=1
    else
        echo "ok: palev-trace $* (exit $rc)"
    fi
}
for t in "$golden/trace" "$work/truncated"; do
    run summary -m "$man" "$t"
    run activities -m "$man" --by Kind "$t"
    run counters -m "$man" "$t"
    run export -m "$man" -o "$work/export.json" "$t"
    run report -m "$man" --by Kind -o "$work/report.html" "$t"
done
exit $status
