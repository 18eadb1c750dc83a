#!/bin/bash
# SPDX-License-Identifier: MIT
# palev-trace export of the golden trace: parsed back and checked against the python bt2 oracle
# (B/E nesting per track, timestamps per track, args equal to the decoded fields), then loaded
# into speedscope (npm speedscope@1.25.0) in headless Chromium: a screenshot and the DOM must
# show the imported profiles, without an import error.
# usage: export.sh PALEV_TRACE GOLDEN_WORKDIR WORKDIR
set -u
pt=$1 golden=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/browser.sh"
trap pt_unserve EXIT
man=$here/golden.man
rm -rf "$work" && mkdir -p "$work" || exit 1
status=0
"$pt" export -m "$man" -o "$work/golden.json" "$golden/trace" 2> "$work/export.err" ||
    { echo "FAIL: export exited $?: $(cat "$work/export.err")"; exit 1; }
/usr/bin/python3 "$here/oracle.py" export "$golden/trace" "$work/golden.json" "$man" || status=1

# speedscope, installed once per build tree, served with the export from 127.0.0.1
node=$work/../node
if [ ! -f "$node/node_modules/speedscope/dist/release/index.html" ]; then
    . "$here/../npm.sh"
    palev_npm_install "$node" speedscope@1.25.0 || { rc=$?; [ $status = 0 ] || rc=1; exit $rc; }
fi
site=$work/site
cp -r "$node/node_modules/speedscope/dist/release" "$site" && cp "$work/golden.json" "$site/golden.json"
pt_serve "$site" "$work/http.log" || exit 1
pt_chromium "http://127.0.0.1:$PT_HTTP_PORT/index.html#profileURL=/golden.json&title=golden" \
    "$work/speedscope.png" "$work/speedscope.html" || { echo "FAIL: chromium failed"; exit 1; }
pt_unserve
pt_not_blank "$work/speedscope.png" || { echo "FAIL: blank screenshot $work/speedscope.png"; status=1; }
grep -q "Something went wrong\|Unrecognized format" "$work/speedscope.html" &&
    { echo "FAIL: speedscope could not import the export"; status=1; }
grep -q '<title>golden - speedscope</title>' "$work/speedscope.html" ||
    { echo "FAIL: speedscope did not load the profile: $(grep -o '<title>[^<]*' "$work/speedscope.html")"; status=1; }
# one profile per thread of the golden host that has activities: the main one and the worker
grep -q 'golden <span[^>]*>(1/2)</span>' "$work/speedscope.html" ||
    { echo "FAIL: speedscope does not show 2 profiles"; status=1; }
grep -q 'GET /golden.json' "$work/http.log" || { echo "FAIL: speedscope never fetched the export"; status=1; }
[ $status = 0 ] && echo "speedscope imported the export: $work/speedscope.png"
exit $status
