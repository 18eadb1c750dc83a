#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# perf's SDT events against the LTTng trace of the same minivm run: per event, as many perf
# samples as LTTng events, and every integer argument (perf records all 12, so also those past
# arg5 that bpftrace 0.17 cannot read) equal to the LTTng field of that name, as multisets; the
# GCStart call stacks start in the emit function and go through JIT code that perf names from
# minivm's perf map ("...[jit]").
# usage: perf_check.py USDT_ARGS PERF_SCRIPT_OUTPUT TRACE_DIR MIN_JIT_SHARE EVENT...
import collections
import re
import sys

import bt2

sys.path.insert(0, sys.path[0])
from bpftrace_check import bits, probes  # noqa: E402


def ints(args):
    return [(i, n, t) for i, n, t in args if t.endswith('_t')]


def read_perf(path, p):
    """{event: Counter(args)}, the pid, and [stack] of GCStart (each a list of symbols)."""
    seen, pids, stacks = collections.defaultdict(collections.Counter), set(), []
    head = re.compile(r'^\s*\S+\s+(\d+)\s+sdt_Palev_Runtime:(\w+):\s+\(\w+\)(.*)$')
    cur = None
    for line in open(path):
        m = head.match(line)
        if m:
            pid, ev, rest = int(m.group(1)), m.group(2), m.group(3)
            vals = dict(kv.split('=') for kv in rest.split())
            pids.add(pid)
            seen[ev][tuple(int(vals['arg%d' % (i + 1)]) & ((1 << bits(t)) - 1)
                           for i, _, t in ints(p[ev]))] += 1
            cur = [] if ev == 'GCStart' else None
            if cur is not None:
                stacks.append(cur)
        elif cur is not None and line.strip():
            cur.append(line.split(None, 1)[1].strip() if len(line.split(None, 1)) > 1 else '?')
    return seen, pids, stacks


def read_trace(path, pid, p, events):
    seen = collections.defaultdict(collections.Counter)
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is not bt2._EventMessageConst:
            continue
        ev = msg.event
        name = ev.name.split(':', 1)[1]
        if name in events and int(ev.common_context_field['vpid']) == pid:
            f = ev.payload_field
            seen[name][tuple(int(f[n]) & ((1 << bits(t)) - 1) for _, n, t in ints(p[name]))] += 1
    return seen


def main(args_file, perf_out, trace, min_share, events):
    p = probes(args_file)
    perf, pids, stacks = read_perf(perf_out, p)
    if len(pids) != 1:
        sys.exit('FAIL: perf samples from processes %s, want exactly one' % sorted(pids))
    lt = read_trace(trace, pids.pop(), p, events)
    bad = 0
    for ev in events:
        names = [n for _, n, _ in ints(p[ev])]
        n = sum(perf[ev].values())
        if perf[ev] != lt[ev] or n == 0:
            bad += 1
            print('FAIL: %s: %d perf samples, %d LTTng events; fields %s; only perf: %s; only LTTng: %s'
                  % (ev, n, sum(lt[ev].values()), names, list((perf[ev] - lt[ev]).items())[:3],
                     list((lt[ev] - perf[ev]).items())[:3]))
        else:
            print('%s: %d perf samples = LTTng events, integer arguments equal (%s)'
                  % (ev, n, ', '.join(names)))
    top = sum(1 for s in stacks if s and s[0] == 'palev_emit_Palev_Runtime_GCStart')
    jit = sum(1 for s in stacks if any(f.endswith('[jit]') for f in s))
    print('GCStart stacks: %d, %d start in palev_emit_Palev_Runtime_GCStart, %d (%.0f%%) hold JIT '
          'frames named from the perf map' % (len(stacks), top, jit, 100.0 * jit / max(len(stacks), 1)))
    if not stacks or top != len(stacks):
        bad += 1
        print('FAIL: GCStart stacks without the emit function on top: %s' %
              [s[:3] for s in stacks if not s or s[0] != 'palev_emit_Palev_Runtime_GCStart'][:3])
    if jit < min_share / 100.0 * len(stacks):
        bad += 1
        print('FAIL: fewer than %d%% of the GCStart stacks name JIT code; one: %s'
              % (min_share, stacks[0] if stacks else None))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5:]))
