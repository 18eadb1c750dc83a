#!/bin/bash
# SPDX-License-Identifier: MIT
# Out-of-tree adoption: install paleventing to a temporary prefix, build a tiny runtime against
# the prefix only (a CMake project with find_package + palev_add_provider, and a plain Makefile
# with pkg-config), trace both in a real session and check every field of their events.
# usage: run.sh BUILD_DIR WORKDIR EVENTSOURCE   (EVENTSOURCE 1: the build has libPaleventing-lttng.so)
set -u
build=$1 work=$2 eventsource=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
palev_require_sessiond
prefix=$work/prefix
rm -rf "$work" && mkdir -p "$work" || palev_fail "cannot create $work"
# Nothing from the environment may point into the build tree or at another install.
unset LD_LIBRARY_PATH PALEV_PROVIDER_PATH PALEV_LTTNG CMAKE_PREFIX_PATH PKG_CONFIG_PATH

# ---- the installed tree ----------------------------------------------------------------------
cmake --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 ||
    { cat "$work/install.log"; palev_fail "cmake --install exited $?"; }
lib=$(find "$prefix" -name libpaleventing.so -printf '%h\n' | head -1)
[ -n "$lib" ] || palev_fail "no libpaleventing.so installed under $prefix"
version=$(sed -n 's/^#define PALEV_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
    "$here/../../include/paleventing.h" | paste -sd.)
expect_link() {  # expect_link NAME TARGET
    [ "$(readlink "$lib/$1")" = "$2" ] || palev_fail "$lib/$1 is not a symlink to $2"
}
expect_link libpaleventing.so "libpaleventing.so.${version%%.*}"
expect_link "libpaleventing.so.${version%%.*}" "libpaleventing.so.$version"
for f in include/paleventing.h bin/palev-gen bin/palev-collect share/paleventing/valgrind.supp \
         "${lib#"$prefix"/}/pkgconfig/paleventing.pc" \
         "${lib#"$prefix"/}/cmake/paleventing/paleventingConfig.cmake" \
         "${lib#"$prefix"/}/cmake/paleventing/paleventingConfigVersion.cmake" \
         "${lib#"$prefix"/}/cmake/paleventing/paleventingTargets.cmake" \
         "${lib#"$prefix"/}/cmake/paleventing/PalevAddProvider.cmake"; do
    [ -f "$prefix/$f" ] || palev_fail "not installed: $f"
done
if [ "$eventsource" = 1 ] && [ ! -f "$lib/libPaleventing-lttng.so" ]; then
    palev_fail "the EventSource probe provider is not installed next to libpaleventing.so"
fi
# Run paths may name the prefix or the consumers' own directories, never the build tree.
check_runpath() {
    local d
    for d in $(readelf -d "$1" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]$/\1/p' | tr ':' ' '); do
        case $d in
        "$work"/*|'$ORIGIN') ;;
        "$build"/*) palev_fail "$1 has a run path into the build tree: $d";;
        esac
    done
}
for f in "$lib/libpaleventing.so.$version" "$prefix/bin/palev-gen"; do
    check_runpath "$f"
done
[ "$("$prefix/bin/palev-gen" providers "$here/app.man")" = Palev_Adopt_App ] ||
    palev_fail "the installed palev-gen does not list the provider of app.man"

# ---- pkg-config ------------------------------------------------------------------------------
export PKG_CONFIG_PATH=$lib/pkgconfig
[ "$(pkg-config --modversion paleventing)" = "$version" ] ||
    palev_fail "pkg-config --modversion paleventing is not $version"
libs=$(pkg-config --libs paleventing)
cflags=$(pkg-config --cflags paleventing)
for l in -lpaleventing -ldl; do
    case " $libs " in *" $l "*) ;; *) palev_fail "pkg-config --libs has no $l: \"$libs\"";; esac
done
case " $libs " in *lttng*) palev_fail "--libs links LTTng: \"$libs\"";; esac
[ -f "$(pkg-config --variable=includedir paleventing)/paleventing.h" ] ||
    palev_fail "--variable=includedir has no paleventing.h"
[ -x "$(pkg-config --variable=palev_gen paleventing)" ] || palev_fail "--variable=palev_gen"
echo "installed: libpaleventing.so.$version with its links, header, palev-gen, CMake package," \
     "paleventing.pc ($cflags $libs)$([ $eventsource = 1 ] && echo ", libPaleventing-lttng.so")"

# ---- the two consumers -----------------------------------------------------------------------
cmake -S "$here/cmake-consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
    -DAPP_SOURCE_DIR="$here" -DAPP_EVENTSOURCE=$eventsource > "$work/cmake.log" 2>&1 ||
    { cat "$work/cmake.log"; palev_fail "the CMake consumer does not configure"; }
found=$(sed -n 's/^paleventing_DIR:PATH=//p' "$work/cmake/CMakeCache.txt")
[ "$found" -ef "$lib/cmake/paleventing" ] || palev_fail "find_package found paleventing in $found"
cmake --build "$work/cmake" > "$work/cmake-build.log" 2>&1 ||
    { cat "$work/cmake-build.log"; palev_fail "the CMake consumer does not build"; }
cmake --install "$work/cmake" --prefix "$work/installed" > "$work/cmake-install.log" 2>&1 ||
    { cat "$work/cmake-install.log"; palev_fail "the CMake consumer does not install"; }
mkdir -p "$work/make" && make -C "$work/make" -f "$here/make-consumer/Makefile" SRC="$here" \
    APP_EVENTSOURCE=$([ $eventsource = 1 ] && echo 1) > "$work/make.log" 2>&1 ||
    { cat "$work/make.log"; palev_fail "the Makefile consumer does not build"; }
for app in "$work/cmake/app" "$work/installed/bin/app" "$work/make/app"; do
    [ -f "$(dirname "$app")/libPalev_Adopt_App-lttng.so" ] ||
        palev_fail "no probe provider next to $app"
    check_runpath "$app"
    ldd "$app" | grep -q "libpaleventing.so.${version%%.*} => $lib/" ||
        palev_fail "$app does not use the installed libpaleventing: $(ldd "$app" | grep paleventing)"
done
echo "built against the prefix only: a CMake project (find_package + palev_add_provider)," \
     "also installed, and a Makefile (pkg-config)"

# ---- traced in a real session ----------------------------------------------------------------
cat > "$work/expected" <<'EOF'
Palev_Adopt_App:AppStarted: { Version = 3, Name = "adopt é日", Ratio = 0.25 }
Palev_Adopt_App:WorkDone: { Items = 1234567890123, Label = "done", Count = 3, _Sizes_length = 3, Sizes = [ [0] = 16, [1] = 32, [2] = 4096 ] }
EOF
[ $eventsource = 1 ] && cat >> "$work/expected" <<'EOF'
Paleventing:EventSource: { EventID = 7, EventName = "Hello", EventSourceName = "Adopt", Payload = "{\"n\":1,\"who\":\"app\"}" }
EOF
echo 'Palev_Adopt_App:AppStopped: { }' >> "$work/expected"
session="palev-adopt-$$"
palev_session_start "$session" "$work/trace" "Palev_Adopt_App:*" "Paleventing:EventSource"
pids=()
kinds=(cmake installed/bin make)
for kind in "${kinds[@]}"; do
    PALEV_DEBUG=1 "$work/$kind/app" 2> "$work/${kind%/*}.stderr" &
    pids+=($!)
    wait $! || palev_fail "the $kind consumer exited $?: $(cat "$work/${kind%/*}.stderr")"
    grep -qF "path=\"$work/$kind/libPalev_Adopt_App-lttng.so\"" "$work/${kind%/*}.stderr" ||
        palev_fail "the $kind consumer did not load its probe provider from beside it:" \
                   "$(cat "$work/${kind%/*}.stderr")"
    [ $eventsource = 0 ] || grep -qF "path=\"$lib/libPaleventing-lttng.so\"" "$work/${kind%/*}.stderr" ||
        palev_fail "the $kind consumer did not load the installed EventSource probe provider:" \
                   "$(cat "$work/${kind%/*}.stderr")"
done
palev_session_stop "$session"
# The installed collector, with the installed palev-gen beside it: the app's events, no warning.
(unset PALEV_GEN; cd "$work" && PATH=/usr/bin:/bin "$prefix/bin/palev-collect" -m "$here/app.man" \
    -o "$work/collected" -- "$work/installed/bin/app" > "$work/collect.out" 2> "$work/collect.err") ||
    palev_fail "the installed palev-collect exited $?: $(cat "$work/collect.out" "$work/collect.err")"
[ ! -s "$work/collect.err" ] || palev_fail "the installed palev-collect warned: $(cat "$work/collect.err")"
babeltrace2 "$work/collected" | grep -q " Palev_Adopt_App:WorkDone: " ||
    palev_fail "the installed palev-collect recorded no Palev_Adopt_App:WorkDone"
[ -f "$work/collected/palev-manifests/app.man" ] || palev_fail "no palev-manifests/app.man in the trace"
echo "installed palev-collect: the app's events recorded, its manifest kept, nothing to warn about"
status=0
for i in 0 1 2; do
    kind=${kinds[$i]%/*}
    palev_read "$work/trace" "${pids[$i]}" > "$work/$kind.got"
    if diff -u "$work/expected" "$work/$kind.got"; then
        echo "$kind consumer: $(wc -l < "$work/expected") events read back with every field equal"
    else
        echo "FAIL: the $kind consumer's events differ from the expected ones (above)" >&2
        status=1
    fi
done
exit $status
