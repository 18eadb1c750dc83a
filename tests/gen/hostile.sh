#!/bin/bash
# SPDX-License-Identifier: MIT
# Manifest text never becomes code: every file palev-gen writes for MANIFEST (generate and
# selftest, with the case's "args"), stripped of its comments by the compiler's preprocessor and
# of its string and character literals, must hold no word injected_<anything>: the hostile names
# in the manifest (tests/gen/valid/hostile-names) each try to declare one.
# usage: hostile.sh PALEV_GEN WORKDIR MANIFEST
set -u
gen=$1 work=$2 manifest=$3
CC=${CC:-cc}
args=()
[ -f "$(dirname "$manifest")/args" ] && read -r -a args < "$(dirname "$manifest")/args"
rm -rf "$work" && mkdir -p "$work/out" || exit 1
"$gen" generate "${args[@]}" -o "$work/out" "$manifest" || { echo "FAIL: generate exited $?"; exit 1; }
"$gen" selftest "${args[@]}" -o "$work/out" "$manifest" || { echo "FAIL: selftest exited $?"; exit 1; }
n=0 status=0
for f in "$work"/out/*.c "$work"/out/*.h; do
    # -fpreprocessed: comments go, directives stay as written (nothing is included or expanded)
    $CC -x c -w -fpreprocessed -dD -E -P "$f" > "$work/stripped" ||
        { echo "FAIL: $(basename "$f"): the preprocessor cannot read it"; exit 1; }
    # string and character literals, escapes included
    sed -E -e 's/"([^"\\]|\\.)*"/""/g' -e "s/'([^'\\\\]|\\\\.)*'/''/g" "$work/stripped" > "$work/code"
    if grep -n -w -E 'injected_[A-Za-z0-9_]*' "$work/code"; then
        echo "FAIL: $(basename "$f"): manifest text became code (above)"
        status=1
    fi
    n=$((n + 1))
done
[ $status = 0 ] && echo "$n files: no injected_* outside comments and string literals"
exit $status
