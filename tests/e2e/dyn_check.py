#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Check what dyn_host recorded, read with the bt2 module (exact values, not babeltrace2's text).
# usage: dyn_check.py SCENARIO TRACEDIR PID [ARG]; prints what differs and exits 1, else "ok ...".
# The expected values are computed here from the inputs dyn_host.c uses, not from its output.
import math
import os
import struct
import sys

import bt2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bt2events  # noqa: E402


def events(trace, pid):
    """[(name, payload, log level)] of process PID; discarded events fail."""
    return [(ev.name, ev.payload_field, ev.cls.log_level)
            for ev in bt2events.events(trace, pid, discarded="fail")]


def value(f):
    """A bt2 field as a plain Python value."""
    if isinstance(f, bt2._StringFieldConst):
        return str(f)
    if isinstance(f, (bt2._EnumerationFieldConst,)):
        return (int(f), list(f.labels))
    if isinstance(f, bt2._BoolFieldConst):
        return bool(f)
    if isinstance(f, (bt2._SignedIntegerFieldConst, bt2._UnsignedIntegerFieldConst)):
        return int(f)
    if isinstance(f, bt2._RealFieldConst):
        return float(f)
    if isinstance(f, bt2._ArrayFieldConst):
        return [value(x) for x in f]
    raise TypeError(type(f))


def fields(payload):
    return {k: value(payload[k]) for k in payload.keys()}


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def json_floats(values, single):
    """palev_scratch_json_array's text: %.9g for float, %.17g for double, no spaces."""
    fmt = "%.9g" if single else "%.17g"
    return "[" + ",".join("null" if not math.isfinite(v) else fmt % v for v in values) + "]"


def utf16_to_utf8(units):
    """Unpaired surrogates become U+FFFD, the rest decodes as UTF-16."""
    out, i = [], 0
    while i < len(units):
        u = units[i]
        if 0xD800 <= u < 0xDC00 and i + 1 < len(units) and 0xDC00 <= units[i + 1] < 0xE000:
            out.append(chr(0x10000 + ((u - 0xD800) << 10) + (units[i + 1] - 0xDC00)))
            i += 2
            continue
        out.append("\ufffd" if 0xD800 <= u < 0xE000 else chr(u))
        i += 1
    return "".join(out)


GUID = "01234567-89ab-cdef-0102-0304050607ff"


def expected_types():
    w = utf16_to_utf8([ord("h"), 0xE9, 0x4E2D, 0xD83D, 0xDE00, ord("!"), 0xD800, ord("x")])
    first = {
        "i8": -128, "u8": 255, "i16": -32768, "u16": 65535, "i32": -2**31, "u32": 2**32 - 1,
        "i64": -2**63, "u64": 2**64 - 1, "x32": 0xDEADBEEF, "x64": 0x0123456789ABCDEF,
        "f": f32(0.1), "d": 1.0 / 3.0, "b": (1, ["true"]), "s": "caf\u00e9 \U0001F600 \"q\"",
        "w": w, "g": GUID, "p": 0x7FFF12345678, "_bytes_length": 5,
        "bytes": [0, 1, 0x7F, 0x80, 0xFF], "_ai16_length": 4, "ai16": [-32768, -1, 0, 32767],
        "_au64_length": 2, "au64": [0, 2**64 - 1], "af": json_floats([1.5, -0.25], True),
        "ad": json_floats([3.141592653589793, -1e300, 5e-324], False), "last": 42,
    }
    second = {k: 0 for k in first}
    second.update({"f": 0.0, "d": 0.0, "b": (0, ["false"]), "s": "abc", "w": "",
                   "g": "00000000-0000-0000-0000-000000000000", "bytes": [], "ai16": [],
                   "au64": [], "af": "[]", "ad": "[]", "last": -1})
    third = {"i8": -1, "u8": 1, "i16": -2, "u16": 2, "i32": -3, "u32": 3, "i64": -4, "u64": 4,
             "x32": 0x10, "x64": 0x20, "f": 2.5, "d": -2.5, "b": (1, ["true"]), "s": "va",
             "w": "va16", "g": GUID, "p": 0x10, "_bytes_length": 2, "bytes": [0, 1],
             "_ai16_length": 1, "ai16": [-32768], "_au64_length": 1, "au64": [0],
             "af": "[1.5]", "ad": "[]", "last": 99}
    return [first, second, third]


def check_types(evs, _arg):
    got = [fields(p) for n, p, _ in evs if n == "Dyn_Types:All"]
    want = expected_types()
    if got != want:
        for g, w in zip(got, want):
            for k in w:
                if g.get(k) != w[k]:
                    print(f"field {k}: got {g.get(k)!r}, want {w[k]!r}")
        sys.exit(f"FAIL: Dyn_Types:All: {len(got)} events, want {len(want)}")
    return f"{len(got)} events, {len(want[0])} fields each"


PATHS = ["/index", "/api/users", "/api/orders", "/health"]


def check_filter(evs, arg):
    """arg: which filter the session used (status, path, wpath)."""
    allv = [(100 + 13 * i, PATHS[i % 4]) for i in range(40)]
    keep = {"status": lambda s, p: s >= 500, "path": lambda s, p: p.startswith("/api/"),
            "wpath": lambda s, p: p == "/health",
            "both": lambda s, p: s >= 300 and p == "/index"}[arg]
    want = [{"status": s, "path": p, "wpath": p} for s, p in allv if keep(s, p)]
    got = [fields(p) for n, p, _ in evs if n == "Dyn_Http:Request"]
    if got != want:
        sys.exit(f"FAIL: filter {arg}: got {got}, want {want}")
    return f"{len(got)} of 40 events kept"


LEVELS = {"Always": 0, "Critical": 2, "Error": 3, "Warning": 4, "Info": 6, "Verbose": 14,
          "Custom": 14}


def check_loglevel(evs, arg):
    """arg: the highest LTTng level kept (--loglevel), or "only14" (--loglevel-only=DEBUG)."""
    names = ["Always", "Critical", "Error", "Warning", "Info", "Verbose", "Custom"]
    if arg == "only14":
        keep = [n for n in names if LEVELS[n] == 14]
    else:
        keep = [n for n in names if LEVELS[n] <= int(arg)]
    got = [(n, fields(p)["level"], int(lvl)) for n, p, lvl in evs if n.startswith("Dyn_Level:")]
    want = [("Dyn_Level:" + n, names.index(n), LEVELS[n]) for n in keep]
    if got != want:
        sys.exit(f"FAIL: loglevel {arg}: got {got}, want {want}")
    return f"{len(got)} of 7 events kept"


def check_late(evs, _arg):
    got = [(n, fields(p)) for n, p, _ in evs if n.startswith("Dyn_Late:")]
    if got != [("Dyn_Late:First", {"n": 1})]:
        sys.exit(f"FAIL: late: got {got}")
    return "recorded at once"


def check_threads(evs, _arg):
    seen = {}
    for n, p, _ in evs:
        if not n.startswith("Dyn_Threads:E"):
            continue
        f = fields(p)
        if "Dyn_Threads:E%d" % f["event"] != n:
            sys.exit(f"FAIL: threads: {n} holds event {f['event']}")
        seen.setdefault((f["thread"], f["event"]), []).append(f["k"])
    want = {(t, e): list(range(100)) for t in range(7) for e in range(20)}
    if seen != want:
        sys.exit(f"FAIL: threads: {len(seen)} (thread, event) pairs, want {len(want)}")
    return f"{sum(len(v) for v in seen.values())} events, each thread's in order"


def check_many(evs, arg):
    """arg: the providers' prefix (Dyn_Many: defined one by one, Dyn_ManyB: by provider)."""
    prefix = arg or "Dyn_Many"
    got = sorted((n, fields(p)["p"], fields(p)["e"]) for n, p, _ in evs
                 if n.split(":")[0].rstrip("0123456789") == prefix)
    want = sorted(("%s%d:Ev%d" % (prefix, p, e), p, e) for p in range(1000) for e in range(10))
    if got != want:
        sys.exit(f"FAIL: many: {len(got)} events, want {len(want)}")
    return f"{len(got)} events of 10000 definitions"


def check_spin(trace, pid, arg):
    """Every event whole; at least ARG of them. Streamed: these traces are large."""
    n = 0
    for ev in bt2events.events(trace, pid, discarded="ignore"):
        if ev.name != "Dyn_Spin:Tick":
            continue
        p = ev.payload_field
        if str(p["s"]) != "spin" or str(p["w"]) != "writer\U0001F600":
            sys.exit(f"FAIL: spin: a broken event {p}")
        n += 1
    if n < int(arg):
        sys.exit(f"FAIL: spin: {n} events, want at least {arg}")
    return f"{n} whole events"


def check_minivm(evs, _arg):
    """MiniVM_Counters:Tick and the RuntimeCounters EventSource JSON come from one snapshot:
    every typed field must equal its JSON member, event for event."""
    import json
    names = {"gc_count": "gc-count", "heap_bytes": "heap-bytes",
             "heap_limit_bytes": "heap-limit-bytes",
             "alloc_rate_bytes_per_sec": "allocation-rate-bytes-per-sec",
             "methods_compiled": "methods-compiled", "exceptions_thrown": "exceptions-thrown",
             "work_items_completed": "work-items-completed", "queue_length": "queue-length",
             "lock_handoffs": "lock-handoffs", "interval_ms": "interval-ms"}
    ticks = [fields(p) for n, p, _ in evs if n == "MiniVM_Counters:Tick"]
    js = [json.loads(str(p["Payload"])) for n, p, _ in evs
          if n == "Paleventing:EventSource" and str(p["EventName"]) == "RuntimeCounters"]
    if len(ticks) < 2 or len(ticks) != len(js):
        sys.exit(f"FAIL: minivm: {len(ticks)} Tick events, {len(js)} RuntimeCounters")
    for t, j in zip(ticks, js):
        for typed, member in names.items():
            if t[typed] != j[member]:
                sys.exit(f"FAIL: minivm: {typed} = {t[typed]}, JSON {member} = {j[member]}")
    apps = [n for n, _, _ in evs if n.startswith("MiniVM_App:")]
    if not apps:
        sys.exit("FAIL: minivm: no MiniVM_App event (std.emit)")
    return f"{len(ticks)} Tick events equal to their JSON twins, {len(apps)} std.emit events"


def check_errors(evs, _arg):
    """Only the two valid events written, the trace readable after every refused definition."""
    got = [(name, fields(p)) for name, p, _ in evs]
    want = [("Dyn_Err:Empty", {}),
            ("Dyn_Err:Apart", {"x": 1, "_y": 2, "_a_length": 2, "a": [7, 8], "__a_length_": 3})]
    if got != want:
        sys.exit(f"FAIL: errors: got {got}\nwant {want}")
    return "the refused definitions left the trace readable: Empty, Apart"


def check_batch(evs, _arg):
    """palev_event_define_many() with a wildcard recording first: the valid definitions record
    their values, in order; the refused ones (Bad-Name, Paleventing:Batch, TooMany) nothing."""
    got = [(n, fields(p)) for n, p, _ in evs if n.startswith(("Dyn_Batch", "Paleventing:Batch"))]
    want = [("Dyn_Batch:All", f) for f in expected_types()]
    want += [("Dyn_Batch:Http", {"status": 503, "path": "/batch"}),
             ("Dyn_BatchB:Second", {"n": 65535}), ("Dyn_Batch:Empty", {}),
             ("Dyn_BatchB:Third", {"status": -1, "path": "third"})]
    if got != want:
        sys.exit(f"FAIL: batch: got {got}, want {want}")
    return f"{len(got)} events of the 5 defined; nothing from the 4 refused"


CHECKS = {"types": check_types, "filter": check_filter, "loglevel": check_loglevel,
          "late": check_late, "threads": check_threads, "many": check_many, "batch": check_batch,
          "errors": check_errors,
          "minivm": check_minivm}

if __name__ == "__main__":
    what, trace, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
    arg = sys.argv[4] if len(sys.argv) > 4 else ""
    if what == "spin":
        print("ok", what, arg, check_spin(trace, pid, arg))
    else:
        print("ok", what, arg, CHECKS[what](events(trace, pid), arg))
