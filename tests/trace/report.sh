#!/bin/bash
# SPDX-License-Identifier: MIT
# palev-trace report of the golden trace, opened in headless Chromium from a local HTTP server:
# the screenshot is not blank, the DOM has the headings, figures and one histogram bar per
# non-empty bin (report_check.py, against the python bt2 oracle), and the page asks for nothing
# but itself (the server's log; no URL, script or external resource in the file).
# usage: report.sh PALEV_TRACE GOLDEN_WORKDIR WORKDIR
set -u
pt=$1 golden=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/browser.sh"
trap pt_unserve EXIT
man=$here/golden.man
rm -rf "$work" && mkdir -p "$work/site" || exit 1
status=0
"$pt" report -m "$man" --by Kind -o "$work/site/report.html" "$golden/trace" 2> "$work/report.err" ||
    { echo "FAIL: report exited $?: $(cat "$work/report.err")"; exit 1; }
grep -qiE '<script|<link rel="stylesheet"|src=|url\(|https?://' "$work/site/report.html" &&
    { echo "FAIL: the report refers to something outside itself: $(grep -oiE '<script|src=[^ ]*|url\([^)]*|https?://[^ "]*' "$work/site/report.html" | head -3)"; status=1; }
pt_serve "$work/site" "$work/http.log" || exit 1
pt_chromium "http://127.0.0.1:$PT_HTTP_PORT/report.html" "$work/report.png" "$work/report.dom.html" 1280,2600 ||
    { echo "FAIL: chromium failed"; exit 1; }
pt_unserve
pt_not_blank "$work/report.png" || { echo "FAIL: blank screenshot $work/report.png"; status=1; }
requests=$(grep -c '"GET ' "$work/http.log")
others=$(grep '"GET ' "$work/http.log" | grep -v '"GET /report.html ')
[ "$requests" = 2 ] && [ -z "$others" ] ||
    { echo "FAIL: the page made requests besides itself: $(grep '"GET ' "$work/http.log")"; status=1; }
/usr/bin/python3 "$here/report_check.py" "$work/report.dom.html" "$golden/trace" "$man" || status=1
[ $status = 0 ] && echo "report rendered: $work/report.png"
exit $status
