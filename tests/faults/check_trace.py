#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Reads a trace of tests/faults/host.c with babeltrace2's Python bindings and checks every
# Palev_Faults event field by field: a Tick's Check, Text and Values follow from (Thread, Seq); the
# big events hold exactly their patterns. Prints one summary line; exits 1 when the trace cannot
# be read to the end, when any event is malformed or repeated, or when a --min/--max/--discarded
# expectation fails.
# usage: check_trace.py TRACEDIR [--pid PID] [--min NAME=N]... [--max NAME=N]...
#                       [--discarded any|none|some]
import argparse
import collections
import json
import os
import sys

import bt2

M64 = (1 << 64) - 1
BIG_STRING = 65536
BIG_ARRAY = 100000


def check_of(t, seq):
    return ((seq * 0x9E3779B97F4A7C15) & M64) ^ (t << 40) ^ 0xFA17


def text_of(t, seq):
    return f"t{t}/{seq} é日😀"


def pattern(t):
    return "".join(chr(ord("a") + (k * 7 + t) % 26) for k in range(BIG_STRING))


def problem_tick(f, seen, pid):
    t, seq = int(f["Thread"]), int(f["Seq"])
    if (pid, t, seq) in seen:
        return f"Tick process {pid} thread {t} seq {seq} recorded twice"
    seen.add((pid, t, seq))
    n = int(f["N"])
    values = [int(v) for v in f["Values"]]
    if int(f["Check"]) != check_of(t, seq):
        return f"Tick thread {t} seq {seq}: Check {int(f['Check']):#x}"
    if str(f["Text"]) != text_of(t, seq):
        return f"Tick thread {t} seq {seq}: Text {str(f['Text'])!r}"
    if n != seq % 8 or values != [(seq + k) & 0xFFFFFFFF for k in range(n)]:
        return f"Tick thread {t} seq {seq}: N {n} Values {values}"
    return None


def problem_big(name, f, patterns):
    if name == "BigString":
        units, nbytes, wide, narrow = int(f["Units"]), int(f["Bytes"]), str(f["Wide"]), str(f["Narrow"])
        if units != BIG_STRING or nbytes != BIG_STRING or len(wide) != BIG_STRING:
            return f"BigString: Units {units} Bytes {nbytes} len(Wide) {len(wide)}"
        t = (ord(wide[0]) - ord("a")) % 26
        if t not in patterns:
            patterns[t] = pattern(t)
        if wide != patterns[t] or narrow != patterns[t]:
            return "BigString: the text differs from the pattern"
    elif name == "BigArray":
        n, values = int(f["N"]), [int(v) for v in f["Values"]]
        t = values[0] if values else 0
        if n != BIG_ARRAY or values != [(k * 2654435761 + t) & 0xFFFFFFFF for k in range(n)]:
            return f"BigArray: N {n}, {len(values)} values"
    elif name == "BigDoubles":
        n, text = int(f["N"]), str(f["Values"])
        if n != BIG_ARRAY or text != "[" + ",".join(f"{k + 0.5:.17g}" for k in range(n)) + "]":
            return f"BigDoubles: N {n}, text of {len(text)} bytes: {text[:40]}..."
    return None


ES_TEXT = 1024 * 1024


def problem_eventsource(f, patterns):
    """EventSource events of the host: Payload {"thread":t,"text":<1 MiB pattern>}, compact;
    "Exit" events (--exit-firing) {"thread":t,"seq":n}."""
    payload = str(f["Payload"])
    if str(f["EventName"]) == "Exit":
        try:
            value = json.loads(payload)
            ok = sorted(value) == ["seq", "thread"] and int(f["EventID"]) == 3000
        except (ValueError, TypeError):
            ok = False
        return None if ok else f"EventSource Exit: Payload {payload!r}"
    try:
        value = json.loads(payload)
        t, text = value["thread"], value["text"]
    except (ValueError, KeyError, TypeError) as e:
        return f"EventSource {f['EventName']}: Payload is not the host's JSON ({e})"
    if (t, "es") not in patterns:
        patterns[(t, "es")] = "".join(chr(ord("a") + (k * 7 + t) % 26) for k in range(ES_TEXT))
    if text != patterns[(t, "es")] or payload != json.dumps(value, separators=(",", ":")):
        return f"EventSource {f['EventName']}: the text differs, or the payload is not compact"
    if str(f["EventSourceName"]) != "Palev.Faults":
        return f"EventSource: EventSourceName {f['EventSourceName']}"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--pid", type=int, action="append", default=[])
    ap.add_argument("--min", action="append", default=[])
    ap.add_argument("--max", action="append", default=[])
    ap.add_argument("--discarded", choices=["any", "none", "some"], default="any")
    ap.add_argument("--fired", type=int, help="Ticks the host fired: recorded + discarded must match")
    a = ap.parse_args()

    counts = collections.Counter()
    pids = collections.Counter()
    discarded, discard_msgs, problems = 0, 0, []
    seen, patterns = set(), {}
    # A session that recorded nothing writes no trace at all.
    written = any("metadata" in files for _, _, files in os.walk(a.trace))
    try:
        for msg in bt2.TraceCollectionMessageIterator(a.trace) if written else []:
            if type(msg) is bt2._DiscardedEventsMessageConst:
                discard_msgs += 1
                # babeltrace2 2.0 derives the count from the packets' 64-bit discarded-events
                # counters and may see one go backwards (a wrapped, huge count compensated by
                # the next one): the total is right modulo 2^64
                discarded = (discarded + (msg.count or 0)) & M64
                continue
            if type(msg) is not bt2._EventMessageConst:
                continue
            ev = msg.event
            provider, _, name = ev.name.partition(":")
            if provider != "Palev_Faults" and ev.name != "Paleventing:EventSource":
                continue
            pid = int(ev.common_context_field["vpid"]) if ev.common_context_field else 0
            if a.pid and pid not in a.pid:
                continue
            counts[name] += 1
            pids[pid] += 1
            f = ev.payload_field
            if name == "EventSource":
                p = problem_eventsource(f, patterns)
            elif name == "Tick":
                p = problem_tick(f, seen, pid)
            else:
                p = problem_big(name, f, patterns)
            if p:
                problems.append(p)
    except (bt2._Error, RuntimeError) as e:
        print(f"FAIL: babeltrace2 cannot read the trace: {e}")
        return 1
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or \
        ("no events" if written else "no trace written (no events)")
    print(f"{summary}; from {len(pids)} process(es); {discarded} discarded "
          f"({discard_msgs} discarded-events notice(s)); {len(problems)} malformed")
    status = 0
    for p in problems[:10]:
        print(f"FAIL: {p}")
        status = 1
    for spec, cmp, word in [(s, lambda c, n: c >= n, "at least") for s in a.min] + \
                           [(s, lambda c, n: c <= n, "at most") for s in a.max]:
        name, _, n = spec.partition("=")
        if not cmp(counts[name], int(n)):
            print(f"FAIL: {counts[name]} {name} events, expected {word} {n}")
            status = 1
    if a.fired is not None and counts["Tick"] + discarded != a.fired:
        print(f"FAIL: {counts['Tick']} recorded + {discarded} discarded != {a.fired} fired")
        status = 1
    if a.discarded == "none" and discard_msgs:
        print("FAIL: events were discarded")
        status = 1
    if a.discarded == "some" and not discard_msgs:
        print("FAIL: no discarded events reported")
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
