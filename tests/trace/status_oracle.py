#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The oracle of palev-trace status --format tsv (docs/palev-trace.md "Status"), computed from the
# trace with python bt2: one "process" row per (host, vpid) in order of first event, then one
# "provider" row per provider of that process in order of first event (or ProviderStatus), the
# first ProviderStatus of a provider giving its status and reason.
# usage: status_oracle.py TRACE > expected.tsv
import sys

import bt2


def field(s):
    out = []
    for ch in s.encode():
        if ch == 0x5c:
            out.append("\\\\")
        elif ch == 0x09:
            out.append("\\t")
        elif ch == 0x0a:
            out.append("\\n")
        elif ch < 0x20 or ch == 0x7f:
            out.append("\\x%02x" % ch)
        else:
            out.append(chr(ch))
    return "".join(out).encode("latin-1").decode("utf-8")


procs = {}  # (host, vpid) -> dict
for msg in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(msg) is not bt2._EventMessageConst:
        continue
    ev = msg.event
    ctx = ev.common_context_field
    host = str(ev.stream.trace.environment["hostname"])
    vpid, vtid, procname = int(ctx["vpid"]), int(ctx["vtid"]), str(ctx["procname"])
    p = procs.setdefault((host, vpid), {"name": None, "main": False, "events": 0, "provs": {}})
    p["events"] += 1
    if p["name"] is None or (not p["main"] and vtid == vpid):
        p["name"], p["main"] = procname, vtid == vpid
    provider = ev.name.split(":")[0] if ":" in ev.name else ""
    r = p["provs"].setdefault(provider, {"status": "none", "reason": None, "events": 0})
    r["events"] += 1
    if ev.name == "Paleventing:ProviderStatus":
        who = str(ev.payload_field["provider"])
        s = p["provs"].setdefault(who, {"status": "none", "reason": None, "events": 0})
        if s["status"] == "none":
            loaded = ev.payload_field["loaded"]
            labels = getattr(loaded, "labels", None)
            ok = ("true" in labels) if labels else int(loaded) != 0
            s["status"] = "loaded" if ok else "not-loaded"
            s["reason"] = str(ev.payload_field["reason"])

print("kind\thost\tpid\tprocname\tprovider\tstatus\tevents\treason")
for (host, vpid), p in procs.items():
    print("process\t%s\t%d\t%s\t-\t-\t%d\t-" % (field(host), vpid, field(p["name"]), p["events"]))
    for provider, r in p["provs"].items():
        reason = "-" if r["reason"] is None else field(r["reason"])
        print("provider\t%s\t%d\t%s\t%s\t%s\t%d\t%s" % (field(host), vpid, field(p["name"]), field(provider),
                                                         r["status"], r["events"], reason))
