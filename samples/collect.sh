#!/bin/bash
# SPDX-License-Identifier: MIT
# palev-collect (tools/, built into BUILD/bin/, installed in bin/) run from this tree: minivm's
# manifest, manifest/runtime.man, unless -m is given; the palev-gen and palev-collect of
# build-demo/ or build/ unless PALEV_GEN or installed ones say otherwise (a PALEV_GEN of a build
# tree brings that tree's palev-collect). Same options: samples/collect.sh --help.
here=${BASH_SOURCE[0]%/*}
[ "$here" = "${BASH_SOURCE[0]}" ] && here=.
top=$(cd "$here/.." && pwd)
m=(-m "$top/manifest/runtime.man")
for a in "$@"; do
    case $a in -m) m=() ;; --) break ;; esac
done
if [ -z "${PALEV_GEN:-}" ] && ! command -v palev-gen >/dev/null; then
    for PALEV_GEN in "$top"/build-demo/generator/palev-gen "$top"/build/generator/palev-gen; do
        [ -x "$PALEV_GEN" ] && export PALEV_GEN && break
    done
fi
for collect in ${PALEV_GEN:+"${PALEV_GEN%/*}/../bin/palev-collect"} "$top"/build-demo/bin/palev-collect \
    "$top"/build/bin/palev-collect "$(command -v palev-collect)"; do
    [ -x "$collect" ] && exec "$collect" "${m[@]}" "$@"
done
echo "collect.sh: no palev-collect: build this tree first (cmake -S . -B build && cmake --build build)" >&2
exit 2
