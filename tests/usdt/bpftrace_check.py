#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The USDT probes and the LTTng tracepoints of one run say the same thing: for each probe,
# bpftrace saw as many hits as the trace holds events, and every integer and string argument
# (placed where `palev-gen usdt-args` says) equals the LTTng field of the same name, event by event
# (compared as multisets: bpftrace's per-CPU buffers do not keep the order between threads); an
# array argument (pointer, then count) by its count and the first element read through the pointer.
#   bpftrace_check.py script USDT_ARGS BINARY EVENT...   writes the bpftrace program
#   bpftrace_check.py check USDT_ARGS BPF_OUTPUT TRACE_DIR EVENT...
import collections
import sys

STRLEN = 100    # BPFTRACE_STRLEN the test runs bpftrace with: str() keeps STRLEN - 1 bytes
# bpftrace 0.17 (Debian 12) reads arg0..arg5 of a USDT probe on x86-64 ("x86_64 doesn't support
# arg6"). Later arguments are checked with perf (perf_check.py).
MAX_ARG = 5


def probes(path):
    """{event: [(arg index, field name, type)]} from palev-gen usdt-args."""
    out = {}
    for line in open(path):
        words = line.split()
        name = words[0].split(':', 1)[1]
        out[name] = [(i, *w.split(':', 2)[1:]) for i, w in enumerate(words[1:])]
    return out


def comparable(args):
    """The arguments compared: integers, strings, array pointers (the first element) up to
    MAX_ARG; not struct pointers."""
    return [(i, n, t) for i, n, t in args
            if i <= MAX_ARG and (t == 'string' or t.endswith('_t') or t.endswith('_t*'))]


def bpf_value(i, t):
    """The bpftrace expression of argument i."""
    if t == 'string':
        return 'str(arg%d)' % i
    if t.endswith('*'):     # the first element: what LTTng's array field holds first
        return '*(%s*)arg%d' % (t[:-3], i)
    return 'arg%d' % i


def script(args_file, binary, events):
    p = probes(args_file)
    for ev in events:
        args = comparable(p[ev])
        fmt = '\\t'.join(['%s', '%d'] + ['%s' if t == 'string' else '%lu' for _, _, t in args])
        vals = ', '.join(['"%s"' % ev, 'pid'] + [bpf_value(i, t) for i, _, t in args])
        print('usdt:%s:Palev_Runtime:%s { printf("%s\\n", %s); }' % (binary, ev, fmt, vals))


def bits(t):
    return 64 if t.startswith('uintptr_t') else int(''.join(c for c in t if c.isdigit()))


def norm(value, t):
    """A value as both sides can show it: strings cut where bpftrace cuts, integers masked."""
    if t == 'string':
        return value.encode()[:STRLEN - 1].decode('utf-8', 'replace')
    return int(value) & ((1 << bits(t)) - 1)


def read_bpf(path, p, events):
    seen = collections.defaultdict(collections.Counter)
    pids = set()
    for line in open(path):
        cols = line.rstrip('\n').split('\t')
        if cols[0] not in events:
            continue
        args = comparable(p[cols[0]])
        if len(cols) != len(args) + 2:
            sys.exit('FAIL: malformed bpftrace line: %r' % line)
        pids.add(int(cols[1]))
        seen[cols[0]][tuple(norm(v, t) for v, (_, _, t) in zip(cols[2:], args))] += 1
    return seen, pids


def lttng_value(f, n, t):
    """The LTTng side of argument (n, t): a field, an array's first element or its length."""
    if t.endswith('*'):
        return int(f[n][0]) if len(f[n]) else 0
    if n.endswith('_count') and n[:-6] in f:
        return len(f[n[:-6]])
    return str(f[n]) if t == 'string' else int(f[n])


def read_trace(path, pid, p, events):
    import bt2
    seen = collections.defaultdict(collections.Counter)
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is not bt2._EventMessageConst:
            continue
        ev = msg.event
        name = ev.name.split(':', 1)[1]
        if name not in events or int(ev.common_context_field['vpid']) != pid:
            continue
        f = ev.payload_field
        seen[name][tuple(norm(lttng_value(f, n, t), t) for _, n, t in comparable(p[name]))] += 1
    return seen


def check(args_file, bpf_out, trace, events):
    p = probes(args_file)
    bpf, pids = read_bpf(bpf_out, p, events)
    if len(pids) != 1:
        sys.exit('FAIL: bpftrace saw hits from processes %s, want exactly one' % sorted(pids))
    pid = pids.pop()
    lt = read_trace(trace, pid, p, events)
    bad = 0
    for ev in events:
        nb, nl = sum(bpf[ev].values()), sum(lt[ev].values())
        names = [n for _, n, _ in comparable(p[ev])]
        if bpf[ev] != lt[ev]:
            bad += 1
            only_b = list((bpf[ev] - lt[ev]).items())[:3]
            only_l = list((lt[ev] - bpf[ev]).items())[:3]
            print('FAIL: %s: %d USDT hits, %d LTTng events; fields %s; only USDT: %s; only LTTng: %s'
                  % (ev, nb, nl, names, only_b, only_l))
        elif nb == 0:
            bad += 1
            print('FAIL: %s: no event at all (the workload should fire it)' % ev)
        else:
            print('%s: %d USDT hits = %d LTTng events, %d arguments equal each (%s)'
                  % (ev, nb, nl, len(names), ', '.join(names)))
    return 1 if bad else 0


if __name__ == '__main__':
    if sys.argv[1] == 'script':
        script(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]))
