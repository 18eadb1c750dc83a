#!/bin/bash
# SPDX-License-Identifier: MIT
# palev-collect (tools/palev-collect, installed in bin/) run from this tree: minivm's manifest,
# manifest/runtime.man, unless -m is given; the palev-gen of build-demo/ or build/ unless
# PALEV_GEN or an installed one says otherwise. Same options: samples/collect.sh --help.
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
exec "$top/tools/palev-collect" "${m[@]}" "$@"
