# SPDX-License-Identifier: MIT
# libpaleventing's sources and include flags, for tests that compile the library into a host by
# hand (with the sanitizers): sourced by asan_selftest.sh and fault.sh.
# palev_library_sources TOP PALEV_GEN WORKDIR: sets PALEV_LIB_SRC and PALEV_LIB_INC (arrays);
# generates into WORKDIR the headers the build generates (the library's own provider name and
# the EventSource unit). Returns 1, with the reason on stderr, when a step fails.
palev_library_sources() {
    local top=$1 gen=$2 work=$3 f
    PALEV_LIB_SRC=()
    for f in "$top"/pal/*.c; do    # libunwind's module is a separate .so (pal/CMakeLists.txt)
        [ "$(basename "$f")" = unwind_module.c ] || PALEV_LIB_SRC+=("$f")
    done
    PALEV_LIB_SRC+=("$top"/common/*.c)    # palev_common, linked into libpaleventing
    mkdir -p "$work/common" &&
        cmake -DMANIFEST="$top/manifest/eventsource.man" -DHEADER="$work/common/pcm_own.h" \
            -P "$top/common/own_provider.cmake" >/dev/null ||
        { echo "cannot generate pcm_own.h into $work/common" >&2; return 1; }
    "$gen" generate -o "$work/es" "$top/manifest/eventsource.man" ||
        { echo "palev-gen cannot generate the EventSource unit" >&2; return 1; }
    PALEV_LIB_SRC+=("$work/es/Paleventing-events.c")
    PALEV_LIB_INC=(-I"$top/include" -I"$top/pal" -I"$top/common" -I"$work/common" -I"$work/es")
}
