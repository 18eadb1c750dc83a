#!/bin/bash
# SPDX-License-Identifier: MIT
# The README's examples as a newcomer follows them, taken from the pages themselves (the blocks
# after "<!-- readme-test: NAME -->"), so that they cannot rot: from README.md the manifest
# skeleton, the CMake project and main.c built against a freshly installed prefix, the trace
# line palev-collect records and palev-trace activities' timing of it; from docs/adopting.md the pkg-config commands; from
# docs/collecting.md palev-collect's whole message for a missing probe provider.
# usage: readme.sh SOURCE_DIR BUILD_DIR WORKDIR
set -u
src=$1 build=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
palev_require_sessiond
rm -rf "$work" && mkdir -p "$work" || palev_fail "cannot create $work"
unset LD_LIBRARY_PATH PALEV_PROVIDER_PATH PALEV_LTTNG PALEV_DEBUG CMAKE_PREFIX_PATH PKG_CONFIG_PATH PALEV_GEN
prefix=$work/opt

# Where each block lives, relative to the source tree.
declare -A page=([skeleton]=README.md [cmake]=README.md [main.c]=README.md [read]=README.md
                 [pkg-config]=docs/adopting.md [missing]=docs/collecting.md)
# block NAME: the fenced block after the marker in its page, with /opt/paleventing pointing at
# our prefix.
block() {
    awk -v m="<!-- readme-test: $1" '
        index($0, m) == 1 { found = 1; next }
        found == 1 && /^```/ { found = 2; next }
        found == 2 && /^```/ { exit }
        found == 2 { print }' "$src/${page[$1]}" | sed "s|/opt/paleventing|$prefix|g"
}
for b in "${!page[@]}"; do
    [ -n "$(block "$b")" ] || palev_fail "${page[$b]} has no \"readme-test: $b\" block"
done
# A marked block this test does not read, or reads from another page, would rot unseen.
(cd "$src" && grep -o -H '^<!-- readme-test: [^ ]*' README.md docs/*.md) |
while IFS=: read -r file marker; do
    b=${marker#<!-- readme-test: }
    [ "${page[$b]:-}" = "$file" ] || palev_fail "$file has a \"readme-test: $b\" block this test does not build"
done || exit 1
block skeleton | cmp - "$src/tests/gen/valid/readme-skeleton/input.man" ||
    palev_fail "the README's manifest differs from tests/gen/valid/readme-skeleton/input.man"

cmake --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 ||
    palev_fail "cmake --install: $(tail -5 "$work/install.log")"
export PATH=$prefix/bin:$PATH

# collect NAME PROGRAM: palev-collect as the README runs it; stderr kept in NAME.err.
collect() {
    (cd "$work" && palev-collect -m "$work/cmake/my.man" -o "$work/$1.trace" -- "$2") \
        > "$work/$1.out" 2> "$work/$1.err"
}
# The events of a trace as the README's "read" block shows them, time, host and ids left out.
normalise() {
    sed -E 's/^\[[^]]*\] \([^)]*\) [^ ]+ //; s/cpu_id = [0-9]+/cpu_id = N/; s/vpid = [0-9]+, vtid = [0-9]+,/vpid = N, vtid = N,/'
}

# ---- CMake ---------------------------------------------------------------------------------
mkdir -p "$work/cmake" && cd "$work/cmake" || exit 1
block skeleton > my.man && block cmake > CMakeLists.txt && block main.c > main.c
cmake -S . -B build -DCMAKE_PREFIX_PATH="$prefix" > cmake.log 2>&1 &&
    cmake --build build > build.log 2>&1 &&
    cmake --install build --prefix "$work/installed" > install.log 2>&1 ||
    palev_fail "the README's CMake project does not build and install: $(tail -20 cmake.log build.log install.log)"
block read | sed -n '2,$p' | normalise > "$work/want.txt"
collect cmake "$work/installed/bin/myvm" || palev_fail "palev-collect exited $?: $(cat "$work/cmake.err")"
[ ! -s "$work/cmake.err" ] || palev_fail "palev-collect warned: $(cat "$work/cmake.err")"
babeltrace2 "$work/cmake.trace" | grep ' MyVM:' | normalise > "$work/cmake.got"
grep -q -x -F -f "$work/want.txt" "$work/cmake.got" ||
    palev_fail "the trace does not show the README's line: $(cat "$work/want.txt") in $(cat "$work/cmake.got")"
[ "$(wc -l < "$work/cmake.got")" = 2 ] || palev_fail "want MyVM:GCStart and MyVM:GCEnd: $(cat "$work/cmake.got")"
echo "CMake: built, installed, traced: $(head -1 "$work/cmake.got")"
# The README's "palev-trace activities": the GC task's Start/Stop pair, timed as babeltrace2's
# clock (1 GHz: cycles are ns) says, from the manifest palev-collect kept beside the trace.
pause=$(babeltrace2 --clock-cycles "$work/cmake.trace" | grep -E ' MyVM:GC(Start|End):' |
    sed -E 's/^\[0*([0-9]+)\].*/\1/' | awk 'NR == 1 { t = $1 } NR == 2 { print $1 - t }')
[ -n "$pause" ] || palev_fail "no GCStart and GCEnd with times in the trace"
palev-trace activities --format tsv "$work/cmake.trace" > "$work/activities.tsv" 2>&1 ||
    palev_fail "palev-trace activities exited $?: $(cat "$work/activities.tsv")"
want=$(printf 'MyVM:GC\t1\t%s\t%s\t%s' "$pause" "$pause" "$pause")
grep -q -F "$want" "$work/activities.tsv" && grep -q -P '^MyVM:GC\t.*\t0\t0$' "$work/activities.tsv" ||
    palev_fail "palev-trace activities does not time the GC pair as $pause ns: $(cat "$work/activities.tsv")"
echo "palev-trace activities: MyVM:GC once, $pause ns, as babeltrace2's times say"

# ---- pkg-config ----------------------------------------------------------------------------
mkdir -p "$work/pc" && cd "$work/pc" || exit 1
cp "$work/cmake/my.man" "$work/cmake/main.c" .
block pkg-config > build.sh
bash -e build.sh > build.log 2>&1 || palev_fail "docs/adopting.md's pkg-config commands fail: $(cat build.log)"
collect pc "$work/pc/myvm" || palev_fail "palev-collect exited $?: $(cat "$work/pc.err")"
[ ! -s "$work/pc.err" ] || palev_fail "palev-collect warned: $(cat "$work/pc.err")"
babeltrace2 "$work/pc.trace" | grep ' MyVM:' | normalise | cmp - "$work/cmake.got" ||
    palev_fail "the pkg-config build's events differ from the CMake build's"
echo "pkg-config: built and traced, the same events"

# ---- the first-day mistake -----------------------------------------------------------------
mkdir -p "$work/alone" && cp "$work/installed/bin/myvm" "$work/alone/" || exit 1
collect alone "$work/alone/myvm" || palev_fail "palev-collect exited $?"
block missing | sed -E "s|/opt/myvm/bin|$work/alone|; s/pid [0-9]+/pid N/" > "$work/want-missing.txt"
sed -E 's/pid [0-9]+/pid N/' "$work/alone.err" > "$work/alone.got"
diff -u "$work/want-missing.txt" "$work/alone.got" ||
    palev_fail "palev-collect does not say what docs/collecting.md shows for a missing probe provider"
echo "missing probe provider: palev-collect says what docs/collecting.md shows"
