#!/bin/bash
# SPDX-License-Identifier: MIT
# Everything palev-gen writes for a manifest compiles without warnings: every .c as C11, the events
# unit also as C++17 (a C++ runtime may compile it so), every events header from a C11 and from a
# C++17 translation unit that includes the C library's headers first (their macros must not meet
# a parameter name), all headers of the manifest together; and the case's host.c, if any (a host
# whose own macros and typedefs are named like the manifest's fields), as C11 and C++17.
# usage: compile.sh PALEV_GEN INCLUDE_DIR WORKDIR MANIFEST   (PALEV_GEN_ARGS: more generate options)
set -u
gen=$1 inc=$2 work=$3 manifest=$4
CC=${CC:-cc} CXX=${CXX:-c++}
# Extra palev-gen options of a tests/gen/valid case: its "args" file beside the manifest.
args=()
[ -f "$(dirname "$manifest")/args" ] && read -r -a args < "$(dirname "$manifest")/args"
flags=(-Wall -Wextra -Wshadow -Werror -I. -I"$inc")
host=$(dirname "$manifest")/host.c
[ -f "$host" ] && host=$(cd "$(dirname "$host")" && pwd)/host.c
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
"$gen" generate "${args[@]}" ${PALEV_GEN_ARGS:-} -o . "$manifest" || { echo "FAIL: generate exited $?"; exit 1; }
"$gen" selftest "${args[@]}" -o . "$manifest" || { echo "FAIL: selftest exited $?"; exit 1; }
: > all.c
n=0
for h in *-events.h; do
    echo "#include \"$h\"" >> all.c
    p=${h%-events.h}
    printf '%s\n' '#include <errno.h>' '#include <fcntl.h>' '#include <limits.h>' '#include <math.h>' \
        '#include <poll.h>' '#include <signal.h>' '#include <stdint.h>' '#include <stdio.h>' \
        '#include <stdlib.h>' '#include <string.h>' '#include <sys/mman.h>' '#include <sys/socket.h>' \
        '#include <sys/wait.h>' '#include <unistd.h>' > "use-$p.c"
    printf '#include "%s"\nint main(void) { return EventEnabled%s(); }\n' "$h" \
        "$(grep -m1 -o 'int EventEnabled[A-Za-z0-9_]*' "$h" | sed 's/int EventEnabled//')" >> "use-$p.c"
    cp "use-$p.c" "use-$p.cpp"
    for src in "$p-probe.c" "$p-events.c" "$p-selftest.c" "use-$p.c"; do
        $CC -std=c11 -fPIC "${flags[@]}" -c "$src" -o /dev/null || { echo "FAIL: $src (C11)"; exit 1; }
    done
    $CXX -std=c++17 "${flags[@]}" -Wpedantic -Wold-style-cast -c "use-$p.cpp" -o /dev/null ||
        { echo "FAIL: $h (C++17)"; exit 1; }
    $CXX -std=c++17 "${flags[@]}" -x c++ -c "$p-events.c" -o /dev/null ||
        { echo "FAIL: $p-events.c (C++17)"; exit 1; }
    n=$((n + 1))
done
if [ -f "$host" ]; then
    $CC -std=c11 "${flags[@]}" -c "$host" -o /dev/null || { echo "FAIL: $host (C11)"; exit 1; }
    $CXX -std=c++17 "${flags[@]}" -x c++ -c "$host" -o /dev/null || { echo "FAIL: $host (C++17)"; exit 1; }
    echo "host.c: built as C11 and C++17 with -Wshadow"
fi
cp all.c all.cpp
$CC -std=c11 "${flags[@]}" -c all.c -o /dev/null || { echo "FAIL: all headers together (C11)"; exit 1; }
$CXX -std=c++17 "${flags[@]}" -c all.cpp -o /dev/null || { echo "FAIL: all headers together (C++17)"; exit 1; }
echo "$n provider(s): probe, events, selftest as C11; events also as C++17; headers as C11 and C++17, alone and together"
