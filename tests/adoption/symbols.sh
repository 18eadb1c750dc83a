#!/bin/bash
# SPDX-License-Identifier: MIT
# The exported symbols of libpaleventing are exactly the version script's, and those are exactly
# the PALEV_API functions of the public headers: three lists, any difference listed.
# usage: symbols.sh LIBPALEVENTING_SO VERSION_SCRIPT HEADER...
set -u
so=$1 map=$2
shift 2
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

# Defined dynamic symbols with their version ("palev_init@@PALEVENTING_0"), minus the version
# nodes themselves (type A).
nm -D --defined-only "$so" > "$work/nm" || { echo "FAIL: nm -D $so exited $?"; exit 1; }
awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' "$work/nm" | sort -u > "$work/exported"
# The names under "global:" in the version script, up to "local:".
sed -e 's,/\*.*\*/,,g' "$map" | awk '/global:/ { on = 1; next } /local:/ { on = 0 }
    on { gsub(/[ \t;]/, ""); if ($0 != "") print }' | sort -u > "$work/map"
# Every "PALEV_API <type> name(" function and "PALEV_API extern <type> name;" object declaration,
# across line breaks, outside comments and directives.
for header in "$@"; do
    ${CC:-cc} -w -fpreprocessed -dD -E -P -x c "$header" ||
        { echo "FAIL: cannot strip the comments of $header"; exit 1; }
done > "$work/header" || exit 1
grep -v '^[[:space:]]*#' "$work/header" | tr '\n' ' ' | grep -o 'PALEV_API [^;(]*[(;]' |
    sed -E 's/[(;]$//; s/[ ]*$//; s/.*[ *]([A-Za-z_][A-Za-z0-9_]*)$/\1/' | sort -u > "$work/api"

status=0
compare() {  # compare A B: names in A missing from B
    local missing
    missing=$(comm -23 "$work/$1" "$work/$2")
    if [ -n "$missing" ]; then
        echo "FAIL: in $3 but not in $4: $(tr '\n' ' ' <<< "$missing")"
        status=1
    fi
}
compare api map "the headers (PALEV_API)" "the version script"
compare map api "the version script" "the headers (PALEV_API)"
compare map exported "the version script" "the library's exports"
compare exported map "the library's exports" "the version script"
grep -v '@@PALEVENTING_' "$work/nm" | awk '$2 != "A"' | grep . &&
    { echo "FAIL: exported without a PALEVENTING_ version (above)"; status=1; }
[ -s "$work/api" ] || { echo "FAIL: no PALEV_API function found in $*"; status=1; }
[ $status = 0 ] && echo "$(wc -l < "$work/api") symbols: headers, version script and exports agree"
exit $status
