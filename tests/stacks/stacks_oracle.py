#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The stack tests' oracle, independent of palev-trace: reads a trace with bt2 and names every frame
# of every Paleventing:Stack event of one process, from CodeLoad/CodeRundown/CodeUnload (by time),
# and from the statedump's bin_info (and lttng_ust_dl:dlopen) plus `nm` of each binary; a frame
# the Stack event gives a line (its `lines`) reads "name:line".
# Prints one line per Stack event: "provider:event: innermost < ... < outermost".
# usage: stacks_oracle.py TRACE VPID
import bisect
import os
import re
import subprocess
import sys

import bt2

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../e2e"))
from bt2events import messages  # noqa: E402

INTERPRETED = 2


def field(ev, name):
    v = ev.payload_field[name]
    return str(v) if isinstance(v, bt2._StringFieldConst) else int(v)


class Symbols:
    """Function symbols of one ELF file by address, from nm."""

    def __init__(self, path):
        out = subprocess.run(["nm", "--defined-only", path], capture_output=True, text=True).stdout
        syms = []
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TtWi":
                syms.append((int(parts[0], 16), parts[2]))
        syms.sort()
        self.addrs = [a for a, _ in syms]
        self.names = [n for _, n in syms]

    def name(self, off):
        """GCC's cold part of a function ("f.cold") is that function."""
        i = bisect.bisect_right(self.addrs, off) - 1
        return re.sub(r"\.cold(\.\d+)?$", "", self.names[i]) if i >= 0 else None


def main():
    trace, vpid = sys.argv[1], int(sys.argv[2])
    code = []       # [start, size, name, kind, from_ns, until_ns]
    bins = []       # (baddr, memsz, path, is_pic)
    stacks = []     # (ns, provider, event, frames)
    for msg in messages(trace, vpid, discarded="ignore"):
        ev = msg.event
        ns = msg.default_clock_snapshot.ns_from_origin
        if ev.name in ("lttng_ust_statedump:bin_info", "lttng_ust_dl:dlopen"):
            bins.append((field(ev, "baddr"), field(ev, "memsz"), field(ev, "path"),
                         ev.name == "lttng_ust_dl:dlopen" or field(ev, "is_pic")))
        elif ev.name in ("Paleventing:CodeLoad", "Paleventing:CodeRundown"):
            since = ns if ev.name.endswith("CodeLoad") else -1
            code.append([field(ev, "start"), field(ev, "size"), field(ev, "name"),
                         field(ev, "kind"), since, None])
        elif ev.name == "Paleventing:CodeUnload":
            for c in code:
                if c[0] == field(ev, "start") and c[5] is None:
                    c[5] = ns
        elif ev.name == "Paleventing:Stack":
            frames = [int(f) for f in ev.payload_field["frames"]]
            lines = [int(n) for n in ev.payload_field["lines"]]
            stacks.append((ns, field(ev, "provider"), field(ev, "event"), frames, lines))
    syms = {}

    def code_name(addr, ns, interpreted):
        best = None
        for start, size, name, kind, since, until in code:
            if (kind == INTERPRETED) != interpreted or not start <= addr < start + size:
                continue
            if since <= ns and (until is None or ns < until) and (best is None or since > best[0]):
                best = (since, name)
        return best and best[1]

    def native_name(addr):
        for baddr, memsz, path, pic in bins:
            if baddr <= addr < baddr + memsz:
                if path not in syms:
                    syms[path] = Symbols(path)
                return syms[path].name(addr - baddr if pic else addr)
        return None

    for ns, provider, event, frames, lines in stacks:
        names = [code_name(a, ns, True) or code_name(a - 1, ns, False) or native_name(a - 1)
                 or "0x%x" % a for a in frames]
        for i, line in enumerate(lines):
            if line:
                names[i] += ":%d" % line
        print("%s:%s: %s" % (provider, event, " < ".join(names)))


main()
