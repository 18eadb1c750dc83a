#!/bin/bash
# SPDX-License-Identifier: MIT
# A manifest generated with --usdt builds (events unit as C11 and as C++17, every events header
# from C++17 with -Wpedantic) and its objects carry one stapsdt note per manifest event (counted
# from the XML by python), each naming a semaphore of its own inside .probes; the probes are
# those palev-gen usdt-args documents.
# usage: notes.sh PALEV_GEN INCLUDE_DIR WORKDIR MANIFEST
set -u
gen=$1 inc=$2 work=$3 manifest=$(realpath "$4")
CC=${CC:-cc} CXX=${CXX:-c++}
flags=(-Wall -Wextra -Werror -O2 -fPIC -I. -I"$inc")
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
"$gen" generate --usdt -o . "$manifest" || fail "palev-gen generate --usdt exited $?"
"$gen" usdt-args "$manifest" > usdt-args.txt || fail "palev-gen usdt-args exited $?"
# The oracle: <event> elements of the manifest's providers, counted from the XML.
want=$(/usr/bin/python3 - "$manifest" <<'PY'
import sys, xml.etree.ElementTree as ET
n = sum(1 for e in ET.parse(sys.argv[1]).iter() if e.tag.split('}')[-1] == 'event')
print(n)
PY
) || fail "python could not read $manifest"

# notes OBJECT: "provider:name semaphore" per stapsdt note
notes() {
    readelf -n "$1" | awk '/Provider:/ { p = $2 } /Name:/ { n = $2 } /Semaphore:/ { print p ":" n, $NF }'
}
: > all.notes
: > all.cpp.notes
for events in *-events.c; do
    p=${events%-events.c}
    $CC -std=c11 "${flags[@]}" -c "$events" -o "$p.o" || fail "$events (C11)"
    # linked, so that the semaphore addresses are final
    $CC -shared -o "$p.so" "$p.o" || fail "$p.o does not link into a shared object"
    $CXX -std=c++17 "${flags[@]}" -x c++ -c "$events" -o "$p.cpp.o" || fail "$events (C++17)"
    printf '#include "%s"\nint main(void) { return 0; }\n' "$p-events.h" > "use-$p.cpp"
    $CXX -std=c++17 "${flags[@]}" -Wpedantic -Wold-style-cast -c "use-$p.cpp" -o /dev/null ||
        fail "$p-events.h (C++17)"
    notes "$p.so" >> all.notes
    notes "$p.cpp.o" >> all.cpp.notes
    # every semaphore inside .probes
    read -r start size <<<"$(readelf -SW "$p.so" | awk '$2 == ".probes" { print $4, $6 }')"
    [ -n "${start:-}" ] || fail "$p.so has no .probes section"
    while read -r probe sem; do
        a=$((16#${sem#0x}))
        [ $a -ge $((16#$start)) ] && [ $((a + 2)) -le $((16#$start + 16#$size)) ] ||
            fail "$p: the semaphore of $probe ($sem) is outside .probes"
    done < <(notes "$p.so")
done
got=$(wc -l < all.notes)
[ "$got" = "$want" ] || fail "$got stapsdt notes, the manifest has $want events"
[ "$(wc -l < all.cpp.notes)" = "$want" ] || fail "$(wc -l < all.cpp.notes) stapsdt notes as C++17, want $want"
dups=$(awk '{ print $2 }' all.notes | sort | uniq -d | head -3)
[ -z "$dups" ] || fail "probes share a semaphore: $dups"
diff <(awk '{ print $1 }' all.notes | sort) <(awk '{ print $1 }' usdt-args.txt | sort) > names.diff ||
    fail "the notes' probes differ from palev-gen usdt-args: $(head -5 names.diff)"
echo "$want events: $got stapsdt notes (C11, and as many as C++17), each with its own semaphore in .probes"
