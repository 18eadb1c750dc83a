#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The independent oracle of palev-trace's golden test: reads the trace with python bt2 and the
# manifest with ElementTree, pairs Start/Stop per thread itself, and checks what palev-trace said.
# usage: oracle.py activities TRACE MANIFEST TSV [BY_FIELD BY_TSV]
#        oracle.py summary TRACE SUMMARY_TXT
#        oracle.py export TRACE EXPORT_JSON MANIFEST
import json
import math
import sys
import xml.etree.ElementTree as ET

import bt2

NS = {"e": "http://schemas.microsoft.com/win/2004/08/events"}
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def events(trace):
    """(name, ts_ns, vpid, vtid, payload dict) of every event, in time order."""
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._EventMessageConst:
            ev = msg.event
            ctx = ev.common_context_field
            yield (ev.name, msg.default_clock_snapshot.ns_from_origin,
                   int(ctx["vpid"]) if ctx and "vpid" in ctx else -1,
                   int(ctx["vtid"]) if ctx and "vtid" in ctx else -1, ev.payload_field)


def roles(manifest):
    """{"Provider:Event": (task, "start"|"stop")} from the manifest's opcodes win:Start/win:Stop."""
    root = ET.parse(manifest).getroot()
    out = {}
    for prov in root.iterfind(".//e:provider", NS):
        lttng = prov.get("name").replace("-", "_")
        for ev in prov.iterfind(".//e:event", NS):
            op = ev.get("opcode", "")
            if op in ("win:Start", "win:Stop") and ev.get("task"):
                out[f"{lttng}:{ev.get('symbol')}"] = (f"{lttng}:{ev.get('task')}",
                                                     "start" if op == "win:Start" else "stop")
    return out


def label(field):
    if isinstance(field, bt2._EnumerationFieldConst) and field.labels:
        return field.labels[0]
    return str(field)


def pair(trace, manifest, by=None):
    """Durations per task (and per (task, by value)), unmatched starts and stops per task."""
    role = roles(manifest)
    stacks, durs, ustart, ustop = {}, {}, {}, {}
    for name, ts, vpid, vtid, payload in events(trace):
        if name not in role:
            continue
        task, kind = role[name]
        stack = stacks.setdefault((vpid, vtid), [])
        if kind == "start":
            stack.append((task, ts, label(payload[by]) if by and by in payload else None))
            continue
        for i in range(len(stack) - 1, -1, -1):
            if stack[i][0] == task:
                t, start, byv = stack.pop(i)
                durs.setdefault((task, None), []).append(ts - start)
                if byv is not None:
                    durs.setdefault((task, byv), []).append(ts - start)
                break
        else:
            ustop[task] = ustop.get(task, 0) + 1
    for stack in stacks.values():
        for task, _, _ in stack:
            ustart[task] = ustart.get(task, 0) + 1
    return durs, ustart, ustop


def exact_percentile(sorted_values, p):
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def check_row(key, row, d, ustart, ustop):
    d = sorted(d)
    task = key[0]
    check(int(row["count"]) == len(d), f"{key}: count {row['count']}, oracle {len(d)}")
    check(int(row["total_ns"]) == sum(d), f"{key}: total {row['total_ns']}, oracle {sum(d)}")
    check(int(row["min_ns"]) == d[0], f"{key}: min {row['min_ns']}, oracle {d[0]}")
    check(int(row["max_ns"]) == d[-1], f"{key}: max {row['max_ns']}, oracle {d[-1]}")
    check(abs(float(row["mean_ns"]) - sum(d) / len(d)) <= 0.5 + 1e-9 * sum(d),
          f"{key}: mean {row['mean_ns']}, oracle {sum(d) / len(d)}")
    for p in (50, 90, 99):
        exact, got = exact_percentile(d, p), int(row[f"p{p}_ns"])
        # log-linear buckets: never below the true value, at most 1/64 above it
        check(exact <= got <= exact + exact / 64 + 1, f"{key}: p{p} {got}, oracle {exact}")
    if key[1] is None:
        check(int(row["unmatched_start"]) == ustart.get(task, 0),
              f"{task}: unmatched starts {row['unmatched_start']}, oracle {ustart.get(task, 0)}")
        check(int(row["unmatched_stop"]) == ustop.get(task, 0),
              f"{task}: unmatched stops {row['unmatched_stop']}, oracle {ustop.get(task, 0)}")


def read_tsv(path, by):
    rows = {}
    with open(path, encoding="utf-8") as f:
        head = f.readline().rstrip("\n").split("\t")
        task = None
        for line in f:
            row = dict(zip(head, line.rstrip("\n").split("\t")))
            name = row["task"]
            if name.startswith("  "):
                rows[(task, name.strip().split("=", 1)[1])] = row
            else:
                task = name
                rows[(task, None)] = row
    return rows


def activities(trace, manifest, tsv, by=None):
    durs, ustart, ustop = pair(trace, manifest, by)
    rows = read_tsv(tsv, by)
    want = {k for k in durs if by or k[1] is None} | {(t, None) for t in ustart} | {(t, None) for t in ustop}
    check(set(rows) == want, f"tasks {sorted(rows, key=str)}, oracle {sorted(want, key=str)}")
    for key in want & set(rows):
        if key in durs:
            check_row(key, rows[key], durs[key], ustart, ustop)
    n = sum(len(v) for k, v in durs.items() if k[1] is None)
    print(f"activities{' --by ' + by if by else ''}: {len(rows)} rows, {n} instances equal to the oracle's")


def summary(trace, text):
    counts, first, last = {}, None, None
    for name, ts, _, _, _ in events(trace):
        counts[name] = counts.get(name, 0) + 1
        first = ts if first is None else first
        last = ts
    got, provider = {}, None
    section = None
    for line in open(text, encoding="utf-8"):
        if not line.startswith(" "):
            section = line.strip()
            continue
        if section == "events per provider and event":
            parts = line.split()
            if line.startswith("    "):
                got[f"{provider}:{parts[0]}"] = int(parts[1])
            elif parts[0] != "event":
                provider = parts[0]
    check(got == counts, f"summary counts {got}, oracle {counts}")
    total = sum(counts.values())
    check(f"events     {total} (" in open(text, encoding="utf-8").read(), f"summary total != {total}")
    print(f"summary: {len(counts)} event names, {total} events equal to the oracle's")


def value(field):
    """A field as palev-trace's export writes it: enum labels and hex integers as strings."""
    if isinstance(field, bt2._EnumerationFieldConst):
        return field.labels[0] if field.labels else int(field)
    if isinstance(field, bt2._IntegerFieldConst):
        base = field.cls.preferred_display_base
        return f"0x{int(field):X}" if base == 16 else int(field)
    if isinstance(field, bt2._RealFieldConst):
        return float(field)
    if isinstance(field, bt2._StringFieldConst):
        return str(field)
    if isinstance(field, bt2._StructureFieldConst):
        return {k: value(v) for k, v in field.items()}
    if isinstance(field, bt2._ArrayFieldConst):
        return [value(v) for v in field]
    return str(field)


def key(rec):
    return (rec["ph"], rec["name"], round(float(rec["ts"]) * 1000), json.dumps(rec.get("args"), sort_keys=True))


def export(trace, path, manifest):
    doc = json.load(open(path, encoding="utf-8"))
    recs = doc["traceEvents"]
    role = roles(manifest)
    evs = list(events(trace))
    t0 = evs[0][1]
    # every B has its E on the same track, names nest, timestamps never go back on a track
    stacks, last = {}, {}
    for r in recs:
        if r["ph"] == "M":
            continue
        track = (r["pid"], r["tid"])
        ts = float(r["ts"])
        check(ts >= last.get(track, 0), f"ts goes back on track {track}: {r}")
        last[track] = ts
        if r["ph"] == "B":
            stacks.setdefault(track, []).append(r["name"])
        elif r["ph"] == "E":
            st = stacks.get(track, [])
            check(st and st[-1] == r["name"], f"E without its B on {track}: {r}")
            if st:
                st.pop()
    check(all(not s for s in stacks.values()), f"B without E: {stacks}")
    # the records the trace gives, args as babeltrace2 decodes the fields
    want, got = [], []
    durs, ustart, ustop = pair(trace, manifest)
    for name, ts, vpid, vtid, payload in evs:
        prov, ev = name.split(":", 1)
        rel = ts - t0
        args = value(payload)
        if name in role:
            task = role[name][0].split(":", 1)[1]
            if role[name][1] == "start":
                want.append(("B", task, rel, json.dumps(args, sort_keys=True)))
            continue
        if name == "Palev_TraceGolden:Tick":
            want.append(("C", name, rel, json.dumps({k: float(v) for k, v in args.items()}, sort_keys=True)))
            continue
        want.append(("i", ev, rel, json.dumps(args, sort_keys=True)))
        if name == "Paleventing:EventSource":
            p = json.loads(args["Payload"])
            nums = {k: float(v) for k, v in p.items() if isinstance(v, (int, float))}
            if nums:
                want.append(("C", f"{args['EventSourceName']}/{args['EventName']}", rel,
                             json.dumps(nums, sort_keys=True)))
    for r in recs:
        if r["ph"] in ("i", "C") and "unmatched" not in r.get("args", {}):
            if r["ph"] == "C":
                r["args"] = {k: float(v) for k, v in r["args"].items()}
            got.append(key(r))
        elif r["ph"] == "B" and "note" not in r["args"]:
            got.append(key(r))
    check(sorted(got) == sorted(want), f"export records differ from the trace's events: "
          f"missing {sorted(set(want) - set(got))[:3]}, extra {sorted(set(got) - set(want))[:3]}")
    unmatched = sum(1 for r in recs if r["ph"] == "i" and "unmatched" in r.get("args", {}))
    check(unmatched == sum(ustop.values()), f"{unmatched} unmatched stops exported, oracle {sum(ustop.values())}")
    names = [r["args"]["name"] for r in recs if r["ph"] == "M" and r["name"] == "process_name"]
    check(any(n.startswith("golden_host ") for n in names), f"process names {names}")
    print(f"export: {len(recs)} records; {len(got)} B/i/C records equal to the trace's events")


def counters(trace, tsv):
    """Series of Tick's fields and of EventSource numbers, as palev-trace counters prints them."""
    series = {}
    for name, ts, _, _, payload in events(trace):
        args = value(payload)
        if name == "Palev_TraceGolden:Tick":
            for k, v in args.items():
                series.setdefault(f"{name}/{k}", []).append((ts, float(v)))
        elif name == "Paleventing:EventSource" and args["Payload"].startswith("{"):
            for k, v in json.loads(args["Payload"]).items():
                if isinstance(v, (int, float)):
                    series.setdefault(f"{args['EventSourceName']}/{args['EventName']}/{k}", []).append((ts, float(v)))
    rows = {}
    with open(tsv, encoding="utf-8") as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            row = dict(zip(head, line.rstrip("\n").split("\t")))
            rows[row["series"]] = row
    check(set(rows) == set(series), f"counter series {sorted(rows)}, oracle {sorted(series)}")
    for k, pts in series.items():
        if k not in rows:
            continue
        vals = [v for _, v in pts]
        span = (pts[-1][0] - pts[0][0]) / 1e9
        want = {"samples": len(vals), "min": min(vals), "mean": sum(vals) / len(vals), "max": max(vals),
                "last": vals[-1], "rate_per_s": (vals[-1] - vals[0]) / span if span > 0 else 0}
        for col, w in want.items():
            got = float(rows[k][col])
            check(abs(got - w) <= 1e-9 * max(1, abs(w)), f"{k} {col}: {got}, oracle {w}")
    print(f"counters: {len(rows)} series equal to the oracle's")


def main():
    cmd = sys.argv[1]
    if cmd == "activities":
        activities(*sys.argv[2:5])
        if len(sys.argv) > 6:
            activities(sys.argv[2], sys.argv[3], sys.argv[6], sys.argv[5])
    elif cmd == "export":
        export(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == "counters":
        counters(sys.argv[2], sys.argv[3])
    elif cmd == "summary":
        summary(sys.argv[2], sys.argv[3])
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
