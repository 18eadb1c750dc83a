#!/bin/bash
# SPDX-License-Identifier: MIT
# Build the libFuzzer targets of tests/fuzz/ with clang (ASan + UBSan + libFuzzer), directly from
# the sources: no CMake build is needed, and the normal (gcc) build is left alone. A target is
# rebuilt only when one of its sources is newer than it.
# usage: tests/fuzz/build.sh OUTDIR [TARGET...]      (default: every target)
#        CLANG=clang-14 to choose the compiler; exits 77 when clang cannot build a fuzzer.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
shift
CLANG=${CLANG:-$(command -v clang-14 || command -v clang)}
[ -n "$CLANG" ] || { echo "SKIP: clang not found"; exit 77; }
mkdir -p "$out" || exit 1

# Every file of palev-gen but its command line.
gen_sources=$(cd "$top/generator" && ls *.c | grep -v -E '^main\.c$')
# Every file of libpaleventing but those that need generated tracepoint headers (what code.c
# defines for the others: pal_stubs.c), provider.c's search for probe providers, and the
# libunwind module.
pal_sources=$(cd "$top/pal" && grep -L 'Paleventing-events\.h' *.c |
              grep -v -E '^(provider_search|unwind_module)\.c$')
# palev-trace's reading core (no command, no main)
trace_sources="core.c index.c fields.c manifest.c util.c hist.c pair.c counters.c summary.c symbols.c stacks.c"
# ... and its reading of perf's samples beside a trace
perf_sources="samples.c cpu.c svg.c flame.c"
# The internal library every part links, and its header of the library's own provider (generated
# from manifest/eventsource.man by the script the CMake build runs).
common_sources=$(cd "$top/common" && ls *.c)

# sources and libraries of each target
target_sources() {
    case $1 in
    fuzz_manifest) for f in $gen_sources; do echo "$top/generator/$f"; done ;;
    fuzz_trace|fuzz_perf)
        for f in $gen_sources; do echo "$top/generator/$f"; done
        for f in $trace_sources; do echo "$top/trace/$f"; done
        [ "$1" = fuzz_perf ] && for f in $perf_sources; do echo "$top/trace/$f"; done
        echo "$top/tests/fuzz/fuzz_ctf.c" ;;
    *) for f in $pal_sources; do echo "$top/pal/$f"; done
       echo "$top/tests/fuzz/pal_stubs.c" ;;
    esac
    for f in $common_sources; do echo "$top/common/$f"; done
    echo "$top/tests/fuzz/$1.c"
}
target_libs() {
    case $1 in
    fuzz_manifest) echo "-lexpat" ;;
    fuzz_trace|fuzz_perf) echo "-lexpat -ljansson -lbabeltrace2 -ldw -lm" ;;
    fuzz_scratch|fuzz_json) echo "-ljansson -ldl -lpthread -lurcu-bp" ;;
    *) echo "-ldl -lpthread -lurcu-bp" ;;
    esac
}

all_targets() {
    echo fuzz_manifest fuzz_env fuzz_scratch fuzz_utf16 fuzz_json fuzz_trace fuzz_perf fuzz_dynamic fuzz_cfi
}

targets=${*:-$(all_targets)}
flags=(-std=c11 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=all -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter
       -I"$top/include" -I"$top/pal" -I"$top/generator" -I"$top/trace" -I"$top/common" -I"$out/gen"
       -DPALEV_FUZZ_TRACE_METADATA="\"$top/tests/fuzz/trace-metadata.tsdl\""
       -DPALEV_FUZZ_TRACE_MANIFEST="\"$top/tests/trace/golden.man\""
       -DPALEV_FUZZ_TRACE_STREAM="\"$top/tests/fuzz/corpus/fuzz_trace/golden-ch_0\""
       -DPALEV_FUZZ_PERF_METADATA="\"$top/tests/fuzz/perf-metadata.tsdl\"")

# Can this clang build a libFuzzer target at all?
probe=$out/.probe
if [ ! -x "$probe" ]; then
    printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' > "$probe.$$.c"
    "$CLANG" -fsanitize=fuzzer,address,undefined "$probe.$$.c" -o "$probe.$$" 2>/dev/null ||
        { rm -f "$probe.$$" "$probe.$$.c"; echo "SKIP: $CLANG cannot build libFuzzer targets"; exit 77; }
    mv "$probe.$$" "$probe"
    rm -f "$probe.$$.c"
fi

cmake -DMANIFEST="$top/manifest/eventsource.man" -DHEADER="$out/gen/pcm_own.h" \
    -P "$top/common/own_provider.cmake" || { echo "FAIL: cannot generate pcm_own.h"; exit 1; }

status=0
for t in $targets; do
    sources=$(target_sources "$t")
    stale=0
    [ -x "$out/$t" ] || stale=1
    for s in $sources "$0" "$top"/pal/*.h "$top"/generator/*.h "$top"/include/*.h "$top"/trace/*.h \
             "$top"/common/*.h "$out/gen/pcm_own.h"; do
        [ "$s" -nt "$out/$t" ] && stale=1
    done
    [ $stale = 0 ] && continue
    echo "building $t"
    # shellcheck disable=SC2046
    "$CLANG" "${flags[@]}" $sources -o "$out/$t.$$" $(target_libs "$t") &&
        mv "$out/$t.$$" "$out/$t" || { rm -f "$out/$t.$$"; echo "FAIL: $t does not build"; status=1; }
done
exit $status
