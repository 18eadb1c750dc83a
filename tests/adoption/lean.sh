#!/bin/bash
# SPDX-License-Identifier: MIT
# A library-only build (-DPALEV_BUILD_TRACE=OFF, docs/adopting.md) where pkg-config finds neither
# libbabeltrace2 nor libdw: it configures, builds only what it installs, and installs the library,
# its probe providers, palev-gen, palev-collect and the CMake and pkg-config packages, without
# palev-trace. -DPALEV_BUILD_TESTS=ON with it is refused with the reason.
# usage: lean.sh SOURCE_DIR WORKDIR
set -u
src=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
rm -rf "$work" && mkdir -p "$work/pkgconfig" || palev_fail "cannot create $work"
unset CMAKE_PREFIX_PATH PKG_CONFIG_PATH LD_LIBRARY_PATH CMAKE_BUILD_TYPE CMAKE_GENERATOR

# pkg-config's own directories, without babeltrace2 and libdw.
for d in $(pkg-config --variable pc_path pkg-config | tr : ' '); do
    for pc in "$d"/*.pc; do
        case ${pc##*/} in
        babeltrace2*.pc | libdw.pc) ;;
        *) [ -f "$pc" ] && [ ! -e "$work/pkgconfig/${pc##*/}" ] && ln -s "$pc" "$work/pkgconfig/" ;;
        esac
    done
done
export PKG_CONFIG_LIBDIR=$work/pkgconfig
for m in babeltrace2 libdw; do
    ! pkg-config --exists $m || palev_fail "pkg-config still finds $m"
done
pkg-config --exists lttng-ust || palev_fail "pkg-config no longer finds lttng-ust"

# Tests without palev-trace: refused, with the reason.
cmake -S "$src" -B "$work/refused" -DPALEV_BUILD_TRACE=OFF -DPALEV_BUILD_TESTS=ON \
    > "$work/refused.log" 2>&1 && palev_fail "PALEV_BUILD_TESTS=ON with PALEV_BUILD_TRACE=OFF was accepted"
grep -q "PALEV_BUILD_TESTS=ON needs PALEV_BUILD_TRACE=ON" "$work/refused.log" ||
    { cat "$work/refused.log"; palev_fail "no reason given for refusing PALEV_BUILD_TESTS=ON"; }

# Configure (PALEV_BUILD_TESTS defaults to OFF), build what is installed, install.
b=$work/build prefix=$work/prefix
cmake -S "$src" -B "$b" -DPALEV_BUILD_TRACE=OFF > "$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; palev_fail "configure with PALEV_BUILD_TRACE=OFF failed"; }
grep -qx 'PALEV_BUILD_TESTS:BOOL=OFF' "$b/CMakeCache.txt" || palev_fail "PALEV_BUILD_TESTS is not OFF"
! grep -q '^__pkg_config_checked_\(BABELTRACE2\|LIBDW\):' "$b/CMakeCache.txt" ||
    palev_fail "configure looked for libbabeltrace2 or libdw"
targets=(paleventing palev-gen palev-collect Paleventing-lttng)
cmake --build "$b" --target help > "$work/targets.txt" 2>&1 || palev_fail "cmake --build --target help failed"
grep -qx '\.\.\. paleventing-unwind' "$work/targets.txt" && targets+=(paleventing-unwind)
cmake --build "$b" -j2 --target "${targets[@]}" > "$work/build.log" 2>&1 ||
    { tail -30 "$work/build.log"; palev_fail "build of ${targets[*]} failed"; }
cmake --install "$b" --prefix "$prefix" > "$work/install.log" 2>&1 ||
    { cat "$work/install.log"; palev_fail "cmake --install failed"; }

# The installed tree: exactly these files (no palev-trace), and nothing links libbabeltrace2 or libdw.
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$b/CMakeCache.txt")
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$b/CMakeCache.txt")
{
    echo bin/palev-collect
    echo bin/palev-gen
    echo include/paleventing-gen.h
    echo include/paleventing.h
    echo "$libdir/cmake/paleventing/PalevAddProvider.cmake"
    echo "$libdir/cmake/paleventing/paleventingConfig.cmake"
    echo "$libdir/cmake/paleventing/paleventingConfigVersion.cmake"
    echo "$libdir/cmake/paleventing/paleventingTargets-relwithdebinfo.cmake"
    echo "$libdir/cmake/paleventing/paleventingTargets.cmake"
    echo "$libdir/libPaleventing-lttng.so"
    echo "$libdir/libpaleventing.so"
    echo "$libdir/libpaleventing.so.${version%%.*}"
    echo "$libdir/libpaleventing.so.$version"
    [[ " ${targets[*]} " = *" paleventing-unwind "* ]] && echo "$libdir/libpaleventing-unwind.so"
    echo "$libdir/pkgconfig/paleventing.pc"
    echo share/paleventing/valgrind.supp
} | LC_ALL=C sort > "$work/want"
(cd "$prefix" && find . ! -type d | sed 's|^\./||' | LC_ALL=C sort) > "$work/got"
diff -u "$work/want" "$work/got" || palev_fail "the installed tree differs"
for f in "$prefix/bin/palev-gen" "$prefix/$libdir"/*.so; do
    ! readelf -d "$f" | grep -q 'NEEDED.*\(babeltrace\|libdw\)' || palev_fail "$f needs libbabeltrace2 or libdw"
done
[ "$("$prefix/bin/palev-gen" providers "$here/app.man")" = Palev_Adopt_App ] ||
    palev_fail "the installed palev-gen does not list the provider of app.man"
"$prefix/bin/palev-collect" --help > "$work/collect.txt" 2>&1 || palev_fail "palev-collect --help exited $?"
[ "$(PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig pkg-config --modversion paleventing)" = "$version" ] ||
    palev_fail "pkg-config --modversion paleventing is not $version"
echo "library-only build: $(wc -l < "$work/got") files installed without libbabeltrace2 and libdw"
