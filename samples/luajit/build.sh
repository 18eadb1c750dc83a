#!/bin/sh
# SPDX-License-Identifier: MIT
# Build LuaJIT from Debian's own source package with paleventing's events (luajit.patch,
# lj_palev.c, luajit.man): DIR/luajit and its probe provider DIR/libLuaJIT-lttng.so beside it.
# usage: samples/luajit/build.sh [--stock] [--cache CACHEDIR] DIR [PALEVENTING]
#   PALEVENTING  an install prefix of paleventing (holding lib/pkgconfig/paleventing.pc) or a
#                built CMake build tree (installed into DIR/paleventing first); default: the
#                build/ directory of this checkout
#   --stock      the same LuaJIT built the same way without the patch (for comparisons)
#   --cache      where the source package is kept (default DIR/cache): a second build does not
#                download it again
# Exit status: 0 built, 1 failed (the log's end is shown), 2 usage, 3 the source package could
# not be downloaded (no route to the Debian mirror) and is not in the cache.
# The machine's apt configuration is never changed: apt-get reads a sources list of its own,
# in the cache, holding one deb-src line for the mirror the machine's own apt sources name.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
usage() {
    echo "usage: $0 [--stock] [--cache CACHEDIR] DIR [PALEVENTING]" >&2
    exit 2
}

stock=0
cache=
while [ $# -gt 0 ]; do
    case $1 in
    --stock) stock=1; shift ;;
    --cache) [ $# -ge 2 ] || usage; cache=$2; shift 2 ;;
    -*) usage ;;
    *) break ;;
    esac
done
[ $# -ge 1 ] && [ $# -le 2 ] || usage
mkdir -p "$1"
dir=$(cd "$1" && pwd)
palev=${2:-$top/build}
cache=${cache:-$dir/cache}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
log=$dir/build.log
: > "$log"
start=$(date +%s)

fail() {
    echo "build.sh: $*" >&2
    [ -s "$log" ] && { echo "--- the end of $log:" >&2; tail -n 25 "$log" >&2; }
    exit 1
}

# The Debian mirror of the machine's own apt sources (deb822 .sources or one-line lists).
mirror_uri() {
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk -v suite="$1" '
            /^[ \t]*$/ { if (deb && ok && uri != "") { print uri; exit } deb = ok = 0; uri = ""; next }
            tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
            tolower($1) == "uris:" { uri = $2 }
            tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == suite) ok = 1 }
            END { if (deb && ok && uri != "") print uri }' "$f"
    done | head -n 1 | grep . && return 0
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        awk -v suite="$1" '$1 == "deb" { u = $2; s = $3; if ($2 ~ /^\[/) { u = $3; s = $4 } }
                           $1 == "deb" && s == suite { print u; exit }' | grep .
}

# The source package, downloaded once into the cache with a private apt configuration.
fetch_source() {
    ls "$cache"/luajit_*.dsc >/dev/null 2>&1 && return 0
    command -v apt-get >/dev/null || fail "apt-get is needed to download Debian's source package"
    suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [ -n "$suite" ] || fail "no VERSION_CODENAME in /etc/os-release: not a Debian system?"
    uri=$(mirror_uri "$suite") || fail "no Debian mirror for $suite in /etc/apt/sources.list*"
    apt=$cache/apt
    mkdir -p "$apt/lists/partial" "$apt/parts" "$apt/cache/archives/partial"
    key=/usr/share/keyrings/debian-archive-keyring.gpg
    if [ -f "$key" ]; then
        echo "deb-src [signed-by=$key] $uri $suite main" > "$apt/src.list"
    else
        echo "deb-src $uri $suite main" > "$apt/src.list"
    fi
    set -- -o Dir::Etc::SourceList="$apt/src.list" -o Dir::Etc::SourceParts="$apt/parts" \
        -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
    [ "$(id -u)" = 0 ] && set -- "$@" -o APT::Sandbox::User=root
    echo "== apt-get update ($(cat "$apt/src.list"))" >> "$log"
    if ! apt-get "$@" update >> "$log" 2>&1 || grep -q "^[WE]: Failed to fetch" "$log"; then
        echo "build.sh: cannot reach $uri for Debian's source index (see $log)" >&2
        exit 3
    fi
    echo "== apt-get source --download-only luajit" >> "$log"
    (cd "$cache" && apt-get "$@" source --download-only luajit) >> "$log" 2>&1 || {
        rm -f "$cache"/luajit_*.dsc
        echo "build.sh: cannot download luajit's source package from $uri (see $log)" >&2
        exit 3
    }
}

# The messages of luajit.man's TraceErrorMap must be the source's lj_traceerr.h, in order.
check_trace_errors() {
    sed -n 's/^TREDEF([A-Z]*,[ \t]*"\(.*\)")$/\1/p' "$src/src/lj_traceerr.h" > "$dir/traceerr.src"
    sed -n 's/^ *<string id="TraceError\.[A-Z]*" value="\(.*\)"\/>$/\1/p' "$here/luajit.man" |
        sed 's/&amp;/\&/g; s/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g' > "$dir/traceerr.man"
    cmp -s "$dir/traceerr.src" "$dir/traceerr.man" ||
        fail "luajit.man's TraceError strings differ from $src/src/lj_traceerr.h: $(diff "$dir/traceerr.man" "$dir/traceerr.src" | head -n 4 | tr '\n' ' ')"
    rm -f "$dir/traceerr.src" "$dir/traceerr.man"
}

# paleventing for pkg-config: an install prefix as it is, a build tree installed into DIR.
find_paleventing() {
    pc=$(ls "$palev"/lib/pkgconfig/paleventing.pc "$palev"/lib/*/pkgconfig/paleventing.pc \
         "$palev"/lib64/pkgconfig/paleventing.pc 2>/dev/null | head -n 1) || true
    if [ -z "$pc" ] && [ -f "$palev/CMakeCache.txt" ]; then
        rm -rf "$dir/paleventing"
        cmake --install "$palev" --prefix "$dir/paleventing" >> "$log" 2>&1 ||
            fail "cannot install the build tree $palev into $dir/paleventing (is it built?)"
        pc=$(ls "$dir"/paleventing/lib*/pkgconfig/paleventing.pc "$dir"/paleventing/lib/*/pkgconfig/paleventing.pc 2>/dev/null | head -n 1)
    fi
    [ -n "$pc" ] || fail "$palev is neither a paleventing install prefix nor a CMake build tree"
    PKG_CONFIG_PATH=$(dirname "$pc")
    export PKG_CONFIG_PATH
}

fetch_source
src=$dir/src
rm -rf "$src"
dpkg-source --no-copy -x "$(ls "$cache"/luajit_*.dsc | tail -n 1)" "$src" >> "$log" 2>&1 ||
    fail "dpkg-source cannot unpack the source package in $cache"
version=$(cd "$src" && dpkg-parsechangelog -S Version 2>/dev/null || echo "?")

# LuaJIT's own Makefile, told to keep frame pointers (CCOPT) and symbols (TARGET_STRIP).
set -- -C "$src/src" -j"${JOBS:-$(nproc 2>/dev/null || echo 2)}" \
    CCOPT="-O2 -fno-omit-frame-pointer" TARGET_STRIP=:
if [ $stock = 0 ]; then
    check_trace_errors
    patch -d "$src" -p1 --quiet < "$here/luajit.patch" >> "$log" 2>&1 ||
        fail "luajit.patch does not apply to luajit $version"
    find_paleventing
    gen=$(pkg-config --variable=palev_gen paleventing)
    "$gen" generate -o "$src/src" "$here/luajit.man" >> "$log" 2>&1 ||
        fail "palev-gen failed on luajit.man"
    cp "$here/lj_palev.c" "$here/lj_palev.h" "$src/src/"
    set -- "$@" TARGET_CFLAGS="$(pkg-config --cflags paleventing)" \
        TARGET_LIBS="$(pkg-config --libs paleventing) -Wl,-rpath,$(pkg-config --variable=libdir paleventing)"
fi
echo "== make $*" >> "$log"
make "$@" >> "$log" 2>&1 || fail "make failed"

cp "$src/src/luajit" "$dir/luajit"
rm -rf "$dir/jit"
cp -r "$src/src/jit" "$dir/jit"    # jit.v (-jv) and friends: LUA_PATH="DIR/?.lua;;"
rm -f "$dir/libLuaJIT-lttng.so"
if [ $stock = 0 ]; then
    ${CC:-cc} -shared -fPIC -O2 -I"$src/src" -o "$dir/libLuaJIT-lttng.so" "$src/src/LuaJIT-probe.c" \
        $(pkg-config --cflags --libs lttng-ust) >> "$log" 2>&1 || fail "the probe provider did not build"
fi
what="instrumented"
[ $stock = 1 ] && what="stock"
echo "built $what luajit $version: $dir/luajit ($(($(date +%s) - start)) s)"
