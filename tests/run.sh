#!/bin/bash
# SPDX-License-Identifier: MIT
# The test command: install what the tests need (Debian packages, as root), build with warnings as
# errors, run every test (unit, generator, valgrind, end to end with a real lttng-sessiond), then
# the unit and generator tests again built with ASan+UBSan; then the counts, and each skipped test
# with its reason (tests/summary.py). Exits non-zero on any failure.
# usage: tests/run.sh            (from anywhere; builds in build/ and build-asan/)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
jobs=$(nproc 2>/dev/null || echo 2)

. "$top/tests/deps.sh"
palev_install_deps tests

cmake -S . -B build -DPALEV_WERROR=ON >/dev/null
cmake --build build -j"$jobs"

# A session daemon for the end-to-end tests: ours only if none runs, and then stopped at the end.
. "$top/tests/e2e/sessiond_lib.sh"
palev_sessiond_ensure
trap 'palev_sessiond_stop "$PALEV_SESSIOND" || true' EXIT

status=0
rm -f build/ctest.xml build-asan/ctest.xml
ctest --test-dir build --output-on-failure -j"$jobs" --output-junit ctest.xml || status=1

echo "== sanitizers: unit and generator tests under ASan+UBSan"
cmake -S . -B build-asan -DPALEV_WERROR=ON -DPALEV_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j"$jobs" -R '^(unit_|gen_valid_|gen_invalid_)' \
    --output-junit ctest.xml || status=1

# What ran and what was skipped, and why (a skipped test printed "SKIP: reason" and exited 77).
echo "== summary"
for b in build build-asan; do
    [ -f $b/ctest.xml ] && { /usr/bin/python3 tests/summary.py $b/ctest.xml "$b" || status=1; }
done
[ $status = 0 ] && echo "ALL TESTS PASSED" || echo "SOME TESTS FAILED"
exit $status
