#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# ETW's selection rules computed straight from a manifest, independently of palev-gen, for the
# end-to-end tests to compare palev-gen enable-list, LTTng --loglevel and ProviderEnabled<P>() with.
"""usage:
  etw_rule.py MANIFEST select [--keywords MASK|NAME,...] [--level N] [--provider P] [--only LIST]
      the P:Event list an ETW session (level, keywords) receives, comma-separated, manifest order
  etw_rule.py MANIFEST loglevel N [--provider P]
      the P:Event list LTTng --loglevel=N keeps, with ETW levels mapped as docs/manifest.md's table says
  etw_rule.py MANIFEST answers --enabled LIST
      reads lines "P LEVEL MASK ANSWER" (ProviderEnabled<P>(LEVEL, MASK) printed by a host) and
      writes them with ANSWER replaced by what ETW's rule over the enabled events says
Common options: --rename ETWNAME=LTTNGNAME (palev-gen's --provider-name), repeatable.
Names follow docs/manifest.md's "Names" (symbol, else <Task><Opcode>[_V<version>], else Event<id>)."""
import argparse
import re
import sys
import xml.etree.ElementTree as ET

NS = {"e": "http://schemas.microsoft.com/win/2004/08/events"}
WIN_LEVELS = {"win:LogAlways": 0, "win:Critical": 1, "win:Error": 2, "win:Warning": 3,
              "win:Informational": 4, "win:Verbose": 5}
# docs/manifest.md "Levels": ETW level -> LTTng log level; 5 and every custom level -> DEBUG (14).
LTTNG_LEVEL = {0: 0, 1: 2, 2: 3, 3: 4, 4: 6}
LTTNG_DEBUG = 14


class Event:
    def __init__(self, provider, name, level, keywords):
        self.provider, self.name, self.level, self.keywords = provider, name, level, keywords

    def full(self):
        return f"{self.provider}:{self.name}"

    def selected(self, level, mask):
        """ETW: (L == 0 or event level <= L) and (event keywords == 0 or keywords & mask)."""
        return (level == 0 or self.level <= level) and (self.keywords == 0 or self.keywords & mask)


def lttng_provider_name(etw_name, renames):
    if etw_name in renames:
        return renames[etw_name]
    name = re.sub(r"^Microsoft-", "", etw_name)
    name = re.sub(r"^Windows-", "", name)
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


def event_name(ev, tasks, opcodes):
    if ev.get("symbol"):
        return ev.get("symbol")
    version = int(ev.get("version", "0"), 0)
    task = ev.get("task")
    if task:
        opcode = ev.get("opcode", "")
        opcode = "" if opcode in ("", "win:Info") else opcodes.get(opcode, opcode.split(":")[-1])
        return tasks[task] + opcode + (f"_V{version}" if version else "")
    return f"Event{int(ev.get('value'), 0)}"


def read_manifest(path, renames):
    """Every event of the manifest, in order, and each provider's keyword names."""
    events, keyword_names = [], {}
    for prov in ET.parse(path).getroot().iterfind(".//e:events/e:provider", NS):
        pname = lttng_provider_name(prov.get("name"), renames)
        levels = dict(WIN_LEVELS)
        levels.update({l.get("name"): int(l.get("value"), 0) for l in prov.iterfind("e:levels/e:level", NS)})
        kw = {k.get("name"): int(k.get("mask"), 16) for k in prov.iterfind("e:keywords/e:keyword", NS)}
        keyword_names[pname] = kw
        tasks = {t.get("name"): t.get("name") for t in prov.iterfind("e:tasks/e:task", NS)}
        opcodes = {o.get("name"): o.get("name") for o in prov.iterfind(".//e:opcodes/e:opcode", NS)}
        for ev in prov.iterfind("e:events/e:event", NS):
            mask = 0
            for k in ev.get("keywords", "").split():
                mask |= kw[k]
            events.append(Event(pname, event_name(ev, tasks, opcodes), levels[ev.get("level", "win:LogAlways")], mask))
    return events, keyword_names


def parse_mask(text, keyword_names, provider):
    if text is None:
        return (1 << 64) - 1
    try:
        return int(text, 16)
    except ValueError:
        names = keyword_names[provider] if provider else {k: v for d in keyword_names.values() for k, v in d.items()}
        mask = 0
        for k in re.split(r"[, ]+", text.strip()):
            mask |= names[k]
        return mask


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("manifest")
    ap.add_argument("command", choices=["select", "loglevel", "answers"])
    ap.add_argument("loglevel", nargs="?", type=int)
    ap.add_argument("--keywords")
    ap.add_argument("--level", type=lambda s: int(s, 0), default=0)
    ap.add_argument("--provider")
    ap.add_argument("--only")
    ap.add_argument("--enabled", default="")
    ap.add_argument("--rename", action="append", default=[])
    a = ap.parse_args()
    renames = dict(r.split("=", 1) for r in a.rename)
    events, keyword_names = read_manifest(a.manifest, renames)
    if a.provider:
        events = [e for e in events if e.provider == a.provider]
    if a.command == "select":
        mask = parse_mask(a.keywords, keyword_names, a.provider)
        only = set(a.only.split(",")) if a.only else None
        print(",".join(e.full() for e in events
                       if e.selected(a.level, mask) and (only is None or e.full() in only)))
    elif a.command == "loglevel":
        print(",".join(e.full() for e in events if LTTNG_LEVEL.get(e.level, LTTNG_DEBUG) <= a.loglevel))
    else:
        enabled = set(x for x in a.enabled.split(",") if x)
        for line in sys.stdin:
            provider, level, mask, _ = line.split()
            hit = any(e.provider == provider and e.full() in enabled and e.selected(int(level, 0), int(mask, 0))
                      for e in events)
            print(provider, level, mask, int(hit))


if __name__ == "__main__":
    main()
