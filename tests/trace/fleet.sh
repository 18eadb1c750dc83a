#!/bin/bash
# SPDX-License-Identifier: MIT
# A fleet: two sessions streamed through a real lttng-relayd on 127.0.0.1 (ports 35342-35344, our
# own relayd, stopped at the end) plus a copy of that host's traces posing as a second host (its
# CTF environment's hostname changed, same length). The relayd's output tree is one input: the
# summary has one row per host with that host's events, and activities count every instance of
# every host, as the python bt2 oracle reads them trace by trace.
# usage: fleet.sh PALEV_TRACE GOLDEN_HOST WORKDIR
set -u
pt=$1 host=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
palev_require_sessiond
command -v lttng-relayd >/dev/null || palev_fail "lttng-relayd is not installed"
man=$here/golden.man
rm -rf "$work" && mkdir -p "$work/relayd" && work=$(cd "$work" && pwd) || palev_fail "cannot create $work"
relayd_pid=""
stop_relayd() {
    palev_cleanup_sessions
    [ -n "$relayd_pid" ] && kill "$relayd_pid" 2>/dev/null && wait "$relayd_pid" 2>/dev/null
}
trap stop_relayd EXIT
palev_relayd_start 35342 "$work/relayd"

# one session through the relayd around one run of the golden host
session_run() {
    local s=palev-trace-fleet-$1-$$ pid
    mkfifo "$work/go.$1"
    "$host" "$2" < "$work/go.$1" > /dev/null 2>&1 &
    pid=$!
    exec 3> "$work/go.$1"
    lttng create "$s" --set-url=net://127.0.0.1:35342:35343 >/dev/null || palev_fail "lttng create $s"
    PALEV_SESSIONS="$PALEV_SESSIONS $s"
    lttng enable-channel -u -s "$s" --subbuf-size=1M --num-subbuf=4 ch >/dev/null &&
        lttng add-context -u -s "$s" -c ch -t vpid -t vtid -t procname >/dev/null &&
        lttng untrack -u -s "$s" --all --vpid >/dev/null && lttng track -u -s "$s" --vpid="$pid" >/dev/null &&
        lttng enable-event -u -s "$s" -c ch 'Palev_TraceGolden:*' >/dev/null &&
        lttng start "$s" >/dev/null || palev_fail "cannot set up session $s"
    exec 3>&-
    wait $pid || palev_fail "the host exited $?"
    palev_session_stop "$s"
}
session_run a 50
session_run b 80
me=$(ls "$work/relayd")
[ "$(echo "$me" | wc -l)" = 1 ] || palev_fail "the relayd wrote no host directory: $(ls -R "$work/relayd" | head)"
# the second host: the same traces, another hostname of the same length in the metadata
other=$(echo "$me" | tr '[:alnum:]' 'z')
[ "$other" = "$me" ] && other=$(echo "$me" | tr '[:alnum:]' 'y')
cp -r "$work/relayd/$me" "$work/relayd/$other"
find "$work/relayd/$other" -name metadata | while read -r m; do
    /usr/bin/python3 -c 'import sys; p, a, b = sys.argv[1:4]; d = open(p, "rb").read()
open(p, "wb").write(d.replace(f"hostname = \"{a}\";".encode(), f"hostname = \"{b}\";".encode()))' "$m" "$me" "$other"
done

"$pt" summary -m "$man" "$work/relayd" > "$work/summary.txt" 2> "$work/summary.err" ||
    palev_fail "summary exited $?: $(cat "$work/summary.err")"
"$pt" activities -m "$man" --format tsv "$work/relayd" > "$work/act.tsv" 2>> "$work/summary.err" ||
    palev_fail "activities exited $?: $(cat "$work/summary.err")"
/usr/bin/python3 - "$work/relayd" "$work/summary.txt" "$work/act.tsv" <<'PY' || exit 1
import os, sys
import bt2
root, summary, act = sys.argv[1:4]
per_host, work = {}, 0
for d, _, files in os.walk(root):
    if "metadata" not in files:
        continue
    for msg in bt2.TraceCollectionMessageIterator(d):
        if type(msg) is bt2._EventMessageConst:
            host = str(msg.event.stream.trace.environment["hostname"])
            per_host[host] = per_host.get(host, 0) + 1
            work += msg.event.name == "Palev_TraceGolden:WorkStop"
rows = {}
section = None
for line in open(summary):
    if not line.startswith(" "):
        section = line.strip()
    elif section == "hosts" and not line.split()[0] == "host":
        f = line.split()
        rows[f[0]] = (int(f[1]), int(f[2]))
want = {h: (2, n) for h, n in per_host.items()}
ok = rows == want
print(f"hosts: {rows}, oracle (traces, events): {want}")
got_work = [l.split("\t") for l in open(act) if l.startswith("Palev_TraceGolden:Work\t")]
ok &= bool(got_work) and int(got_work[0][1]) == work
print(f"Work instances over the fleet: {got_work[0][1] if got_work else None}, oracle {work}")
sys.exit(0 if ok and len(per_host) == 2 else 1)
PY
echo "fleet: 2 hosts, 4 traces, figures equal to the oracle's"
