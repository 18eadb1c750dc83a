#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a test of the shared manifest corpus, or skips it (exit 77, ctest's SKIP_RETURN_CODE) with
# the reason when the manifest is not there: the corpus is optional, kept beside the repository.
# usage: tests/corpus.sh MANIFEST COMMAND [ARG...]
manifest=$1
shift
if [ ! -f "$manifest" ]; then
    echo "SKIP: no $manifest (the shared corpus is optional; -DPALEV_SHARED_MANIFESTS=DIR)"
    exit 77
fi
exec "$@"
