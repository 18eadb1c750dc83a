#!/bin/bash
# SPDX-License-Identifier: MIT
# palev-trace status on a real trace of three processes: minivm with its providers loaded, a copy
# of minivm without its probe provider (Palev_Runtime not loaded, with the reason), and the
# status host's hand-written ProviderStatus events (loaded and not). --format tsv must equal what
# a python bt2 oracle computes from the same trace (status_oracle.py), and say those facts; the
# text form must say them too.
# usage: status.sh PALEV_TRACE STATUS_HOST MINIVM WORKDIR
set -u
pt=$1 status_host=$2 minivm=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
palev_require_sessiond
palev_require_bt2
rm -rf "$work" && mkdir -p "$work/alone" && cp "$minivm" "$work/alone/" || palev_fail "cannot create $work"
cd "$work" || exit 1
printf '.method Exit.main()\n    push 0\n    ret\n.end\n' > exit0.masm
unset PALEV_PROVIDER_PATH PALEV_LTTNG PALEV_DEBUG

# Each host is held on a fifo until the session tracks it: the trace holds these three only.
s=palev-trace-status-$$
lttng create "$s" --output="$work/trace" >/dev/null || palev_fail "lttng create"
PALEV_SESSIONS="$PALEV_SESSIONS $s"
lttng enable-channel -u -s "$s" --subbuf-size=1M --num-subbuf=4 ch >/dev/null &&
    lttng add-context -u -s "$s" -c ch -t vpid -t vtid -t procname >/dev/null &&
    lttng untrack -u -s "$s" --all --vpid >/dev/null &&
    lttng enable-event -u -s "$s" -c ch 'Paleventing:ProviderStatus,Palev_Runtime:*,lttng_ust_statedump:*' >/dev/null &&
    lttng start "$s" >/dev/null || palev_fail "cannot set up session $s"
pids=()
for host in "$minivm" "$work/alone/minivm" "$status_host"; do
    rm -f go && mkfifo go || palev_fail "mkfifo"
    (read -r _ < go; exec "$host" exit0.masm < /dev/null > /dev/null 2>&1) &
    pid=$!
    lttng track -u -s "$s" --vpid="$pid" >/dev/null || palev_fail "lttng track $pid"
    echo go > go
    wait $pid || palev_fail "$host exited $?"
    pids+=("$pid")
done
palev_session_stop "$s"

"$pt" status --format tsv "$work/trace" > got.tsv 2> status.err || palev_fail "status exited $?: $(cat status.err)"
[ ! -s status.err ] || palev_fail "status wrote on stderr: $(cat status.err)"
/usr/bin/python3 "$here/status_oracle.py" "$work/trace" > want.tsv || palev_fail "the oracle exited $?"
diff -u want.tsv got.tsv || palev_fail "palev-trace status differs from the bt2 oracle"
cat got.tsv
lib=$(dirname "$(ldd "$minivm" | sed -n 's/.*libpaleventing.so.0 => \([^ ]*\) .*/\1/p')")
expect() {  # expect PID PROVIDER STATUS REASON-PATTERN: that provider row, with events > 0 unless not loaded
    awk -F'\t' -v pid="$1" -v prov="$2" -v st="$3" -v why="$4" '
        $1 == "provider" && $3 == pid && $5 == prov && $6 == st && $8 ~ why &&
        (st == "not-loaded" || $7 > 0) { found = 1 }
        END { exit !found }' got.tsv || palev_fail "no row: pid $1, $2 $3 ($4)"
}
expect "${pids[0]}" Palev_Runtime loaded "^from $(dirname "$minivm")/libPalev_Runtime-lttng.so$"
expect "${pids[0]}" Paleventing loaded "^from $lib/libPaleventing-lttng.so$"
expect "${pids[1]}" Palev_Runtime not-loaded "^no loadable libPalev_Runtime-lttng.so; tried $work/alone/"
expect "${pids[2]}" Palev_Missing not-loaded '^libPalev_Missing-lttng.so: cannot open shared object file$'
awk -F'\t' -v pid="${pids[1]}" '$1 == "provider" && $3 == pid && $5 == "Palev_Runtime" && $7 == 0 { f = 1 } END { exit !f }' got.tsv ||
    palev_fail "minivm without its provider: Palev_Runtime events recorded"
[ "$(awk -F'\t' '$1 == "process"' got.tsv | wc -l)" = 3 ] || palev_fail "not three processes"
echo "tsv: as the oracle; loaded, not loaded and why, per process"

"$pt" status "$work/trace" > got.txt || palev_fail "status (text) exited $?"
cat got.txt
grep -q -x "minivm (pid ${pids[1]}, host $(uname -n)): [0-9]* events" got.txt &&
    grep -q -E "^  Palev_Runtime +not-loaded +0 events  no loadable libPalev_Runtime-lttng.so; tried $work/alone/" got.txt &&
    grep -q -E "^  Palev_Missing +not-loaded +0 events  libPalev_Missing-lttng.so: cannot open shared object file$" got.txt ||
    palev_fail "the text form does not say it"
"$pt" status --format json "$work/trace" > /dev/null 2> fmt.err
[ $? = 2 ] && grep -q -x 'palev-trace status: --format is text or tsv, not "json"' fmt.err ||
    palev_fail "--format json: not a usage error: $(cat fmt.err)"
echo "text: the same facts; --format json: usage error"
