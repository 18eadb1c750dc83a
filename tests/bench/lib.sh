# SPDX-License-Identifier: MIT
# What the benchmark scripts share. Sourced once they have set root (the source tree) and build
# (the build tree the bench runs from).

# fail MESSAGE: "SCRIPT: MESSAGE" on stderr, exit 1.
fail() {
    echo "${0##*/}: $*" >&2
    exit 1
}

# bench_build TARGET...: configure $build once (optimised, as a runtime would ship), then build
# only those targets.
bench_build() {
    if [ ! -f "$build/CMakeCache.txt" ]; then
        cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null ||
            fail "cmake configure failed"
    fi
    cmake --build "$build" -j"$(nproc)" --target "$@" >/dev/null ||
        fail "build failed: cmake --build $build --target $*"
}

# bench_tmpdir NAME: a new directory NAME.XXXXXX, in memory (/dev/shm) when it can be: the
# consumer daemon writing a trace there costs the bench less. Prints its path.
bench_tmpdir() {
    local tmp=/tmp
    [ -d /dev/shm ] && [ -w /dev/shm ] && tmp=/dev/shm
    mktemp -d "$tmp/$1.XXXXXX"
}
