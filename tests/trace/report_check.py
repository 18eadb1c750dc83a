#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Checks the DOM Chromium rendered from palev-trace's report of the golden trace: headings and
# figures a reader looks for, and one SVG bar per non-empty display bin of each task's duration
# histogram, the bins computed here from the durations the python bt2 oracle pairs itself.
# usage: report_check.py DOM TRACE MANIFEST
import sys
from html.parser import HTMLParser

sys.path.insert(0, __import__("os").path.dirname(__file__))
import oracle  # noqa: E402


class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.h, self.cur_h3, self.bars, self.text = [], {}, None, {}, []
        self.in_hist = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.stack.append(tag)
        if tag == "svg" and a.get("class") == "histogram":
            self.in_hist = True
        if tag == "rect" and self.in_hist and a.get("class") == "bucket":
            self.bars[self.cur_h3] = self.bars.get(self.cur_h3, 0) + 1

    def handle_endtag(self, tag):
        if tag == "svg":
            self.in_hist = False
        if self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if self.stack and self.stack[-1] in ("h1", "h2", "h3"):
            self.h.setdefault(self.stack[-1], []).append(data.strip())
            if self.stack[-1] == "h3":
                self.cur_h3 = data.strip()
        self.text.append(data)


def display_bin(v):
    """The 4 leading bits of v (values below 8: v itself)."""
    shift = 0 if v < 8 else v.bit_length() - 4
    return (v >> shift) << shift


def main():
    dom_path, trace, manifest = sys.argv[1:4]
    dom = Dom()
    dom.feed(open(dom_path, encoding="utf-8").read())
    fails = []
    for level, want in (("h1", ["Trace report"]), ("h2", ["Summary", "Activities", "Events", "Counters"]),
                        ("h3", ["Palev_TraceGolden:Phase", "Palev_TraceGolden:Work", "Processes"])):
        for w in want:
            if w not in dom.h.get(level, []):
                fails.append(f"no <{level}>{w}</{level}> (has {dom.h.get(level)})")
    durs, _, _ = oracle.pair(trace, manifest)
    for (task, by), d in durs.items():
        if by is not None:
            continue
        want = len({display_bin(x) for x in d})
        got = dom.bars.get(task, 0)
        if got != want:
            fails.append(f"{task}: {got} histogram bars, {want} non-empty bins in the oracle's durations")
        else:
            print(f"{task}: {got} histogram bars = the oracle's non-empty bins ({len(d)} instances)")
    text = " ".join(dom.text)
    events = sum(1 for _ in oracle.events(trace))
    for w in (f"{events} events", "Kind = Small", "Golden.Source/Counters/queue_length",
              "Palev_TraceGolden:Tick/alloc_bytes", "golden_host"):
        if w not in " ".join(text.split()):
            fails.append(f"the page does not say \"{w}\"")
    for f in fails:
        print("FAIL:", f)
    sys.exit(1 if fails else 0)


main()
