#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# minivm's events in one trace are plausible and agree with each other: collections pair up and
# add up, code addresses fall inside the code the method loads announced (threaded or native),
# native code is where the perf map says, exceptions are caught or reported unhandled exactly
# once, threads start and stop, work items flow through the queue.
# usage: sample_minivm_check.py TRACE_DIR PID [--jit off|hot|all] [--perfmap /tmp/perf-PID.map]
#        (the trace needs the vpid and vtid contexts; --jit is the minivm option of the run)
import argparse
import collections
import json
import os
import sys

import bt2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bt2events import events  # noqa: E402

INSN_SIZE = 16          # sizeof(struct insn): code size = instructions * 16
THREADED, NATIVE = 0, 1  # MethodLoad.Tier (CodeTierMap)
TICK_BYTES = 100 * 1024  # allocation tick threshold
# Frames popped between throw and catch in the workload: Tasks.faults catches what Faults.deep
# throws 6 frames down; 4094 frames of Faults.forever fit under main and warmup (4096 at most).
FRAMES_UNWOUND = {'Workload.ParseError': 6, 'StackOverflowError': 4094}
failures = []


def check(cond, what):
    if not cond and len(failures) < 40:
        failures.append(what)
    return cond


def plain(f):
    if isinstance(f, bt2._StringFieldConst):
        return str(f)
    if isinstance(f, bt2._ArrayFieldConst):
        return [plain(x) for x in f]
    if isinstance(f, bt2._RealFieldConst):
        return float(f)
    return int(f)


def read(path, pid):
    """[(name, fields, vtid)] of process pid, in time order."""
    out = []
    for ev in events(path, pid, discarded="ignore"):
        ctx = ev.common_context_field
        fields = {k: plain(v) for k, v in ev.payload_field.items()}
        out.append((ev.name.split(':', 1)[1] if ev.name.startswith('Palev_Runtime:') else ev.name,
                    fields, int(ctx['vtid'])))
    return out


def by_name(evs):
    d = collections.defaultdict(list)
    for i, (name, f, tid) in enumerate(evs):
        d[name].append((i, f, tid))
    return d


def check_gc(d):
    starts, ends = d['GCStart'], d['GCEnd']
    stats = {f['Count']: f for _, f, _ in d['GCHeapStats']}
    tables = {f['Count']: f for _, f, _ in d['GCGenerationTable']}
    end_at = {f['Count']: (i, f) for i, f, _ in ends}
    check(len(starts) > 10, f'only {len(starts)} collections')
    check([f['Count'] for _, f, _ in starts] == list(range(1, len(starts) + 1)),
          'GC counts are not 1, 2, 3, ...')
    prev_after = None
    for i, s, tid in starts:
        c = s['Count']
        if not check(c in end_at and end_at[c][0] > i, f'GC {c}: no GCEnd after its GCStart'):
            continue
        e = end_at[c][1]
        h, t = stats.get(c), tables.get(c)
        check(e['Generation'] == s['Generation'], f'GC {c}: generations differ')
        check((s['Generation'] == 0) == (s['Reason'] == 0),
              f'GC {c}: reason {s["Reason"]} for generation {s["Generation"]}')
        check(s['HeapBytes'] == e['HeapBytesBefore'],
              f'GC {c}: GCStart.HeapBytes != GCEnd.HeapBytesBefore')
        check(e['HeapBytesAfter'] <= e['HeapBytesBefore'], f'GC {c}: heap grew in the collection')
        check(0 < e['PauseNs'] < 10**9, f'GC {c}: implausible pause {e["PauseNs"]} ns')
        check(prev_after is None or s['HeapBytes'] >= prev_after,
              f'GC {c}: heap shrank between collections')
        prev_after = e['HeapBytesAfter']
        if check(h is not None and t is not None, f'GC {c}: no GCHeapStats/GCGenerationTable'):
            check_gc_stats(c, s, e, h, t)


def check_gc_stats(c, s, e, h, t):
    check(h['TotalHeapBytes'] == e['HeapBytesAfter'], f'GC {c}: TotalHeapBytes != HeapBytesAfter')
    check(h['TotalHeapBytes'] == h['Gen0Bytes'] + h['Gen1Bytes'],
          f'GC {c}: generations do not add up')
    check(h['FreedBytes'] == e['HeapBytesBefore'] - e['HeapBytesAfter'],
          f'GC {c}: FreedBytes != before - after')
    check(e['PauseNs'] == h['MarkNs'] + h['SweepNs'], f'GC {c}: PauseNs != MarkNs + SweepNs')
    check(h['TotalHeapBytes'] <= h['HeapLimitBytes'], f'GC {c}: heap above its limit')
    check(0.0 <= h['SurvivalRate'] <= 1.0, f'GC {c}: survival rate {h["SurvivalRate"]}')
    check(t['GenerationCount'] == 2 and t['Generations_Collected'] == [1, s['Generation']],
          f'GC {c}: generation table says collected {t.get("Generations_Collected")}')
    before, after = t['Generations_BytesBefore'], t['Generations_BytesAfter']
    check(sum(before) == e['HeapBytesBefore'] and sum(after) == e['HeapBytesAfter'],
          f'GC {c}: generation table does not add up')
    check(after[1] == h['Gen1Bytes'], f'GC {c}: old generation differs between events')
    if s['Generation'] == 0:
        check(after[1] == before[1] + h['PromotedBytes'],
              f'GC {c}: a minor collection changed the old generation beyond its promotions')


def check_gc_rare(d, evs):
    reasons = {f['Reason'] for _, f, _ in d['GCStart']}
    check(reasons == {0, 1, 2, 3}, f'GC reasons seen: {sorted(reasons)}, want all four')
    ends = {f['Count']: f for _, f, _ in d['GCEnd']}
    for _, p, _ in d['GCHeapPressure']:
        check(p['PercentUsed'] >= 75 and ends[p['Count']]['HeapBytesAfter'] == p['HeapBytes'],
              'GCHeapPressure does not match its collection')
    check(len(d['GCOutOfMemory']) == 1, 'expected one GCOutOfMemory')
    for i, o, tid in d['GCOutOfMemory']:
        check(o['RequestedBytes'] > o['HeapLimitBytes'] - o['HeapBytes'],
              'GCOutOfMemory: the request would have fit')
        nxt = next((e for e in evs[i + 1:] if e[2] == tid and e[0] == 'ExceptionThrown'), None)
        check(nxt is not None and nxt[1]['Kind'] == 4,
              'GCOutOfMemory not followed by an OutOfMemory exception')
    for _, a, _ in d['GCAllocationTick']:
        check(a['AllocationAmount'] >= TICK_BYTES and a['AllocationAmount'] >= a['ObjectSize'],
              f'allocation tick of {a["AllocationAmount"]} bytes')


def check_load(m, loads, started):
    """One MethodLoad: after its MethodJittingStarted; threaded code first, then native code."""
    mid, tier, name = m['MethodID'], m['Tier'], m['MethodName']
    check(tier not in loads[mid], f'method {name} loaded twice with tier {tier}')
    check(tier == THREADED or THREADED in loads[mid], f'method {name}: native code before threaded')
    loads[mid][tier] = m
    j = started.get(mid)
    check(j is not None and j['MethodName'] == name and j['BytecodeSize'] == m['BytecodeSize'],
          f'method {name}: no matching MethodJittingStarted')
    check(m['MethodStartAddress'] != 0 and m['MethodSize'] > 0, f'method {name}: no code')
    if tier == THREADED:
        check(m['MethodSize'] == m['InstructionCount'] * INSN_SIZE,
              f'method {name}: size {m["MethodSize"]} for {m["InstructionCount"]} instructions')


def check_methods(d, evs, jit):
    started, loads = {}, collections.defaultdict(dict)
    for name, f, _ in evs:
        if name == 'MethodJittingStarted':
            started[f['MethodID']] = f
        elif name == 'MethodLoad':
            check_load(f, loads, started)
    native = sum(1 for m in loads.values() if NATIVE in m)
    want = {'off': native == 0, 'hot': 0 < native < len(loads), 'all': native == len(loads)}
    check(want.get(jit, True), f'--jit={jit}: {native} of {len(loads)} methods got native code')
    failed = [f for _, f, _ in d['MethodCompileFailed']]
    check(len(failed) == 1 and failed[0]['MethodName'] == 'underflow' and failed[0]['Reason'] == 0,
          'expected Workload.Broken.underflow to fail with StackUnderflow')
    mods = d['ModuleLoad']
    if check(len(mods) == 1 and len(d['ModuleUnload']) == 1,
             'expected one ModuleLoad and one ModuleUnload'):
        mod, unl = mods[0][1], d['ModuleUnload'][0][1]
        check(all(m['ModuleID'] == mod['ModuleID'] for t in loads.values() for m in t.values()),
              'methods of another module')
        check(unl['ModuleGuid'] == mod['ModuleGuid'] and unl['MethodsCompiled'] == len(loads),
              'ModuleUnload disagrees with ModuleLoad')
        check(mod['ModuleGuid'] != '00000000-0000-0000-0000-000000000000', 'zero module GUID')
    return loads


def tier_at(loads, mid, addr):
    """The tier of the code of method mid that holds addr, or None."""
    for tier, m in loads.get(mid, {}).items():
        if m['MethodStartAddress'] <= addr < m['MethodStartAddress'] + m['MethodSize']:
            return tier
    return None


def inside(loads, mid, addr, counts=None):
    tier = tier_at(loads, mid, addr)
    if counts is not None and tier is not None:
        counts[tier] += 1
    return tier is not None


def check_perfmap(path, loads):
    """Every native MethodLoad is the perf map line of "Namespace.Name[jit]", and only they are."""
    lines = {}
    with open(path) as f:
        for line in f:
            start, size, name = line.rstrip('\n').split(' ', 2)
            check(name not in lines, f'perf map: {name} twice')
            lines[name] = (int(start, 16), int(size, 16))
    native = [t[NATIVE] for t in loads.values() if NATIVE in t]
    for m in native:
        name = f'{m["MethodNamespace"]}.{m["MethodName"]}[jit]'
        check(lines.get(name) == (m['MethodStartAddress'], m['MethodSize']),
              f'perf map: {name} is {lines.get(name)}, MethodLoad says '
              f'({m["MethodStartAddress"]:#x}, {m["MethodSize"]})')
    check(len(lines) == len(native), f'perf map: {len(lines)} lines, {len(native)} native loads')
    return len(lines)


def check_exceptions(evs, loads, in_tier):
    pending = {}
    thrown = outcome = 0
    for name, f, _ in evs:
        if name == 'ExceptionThrown':
            t = f['ManagedThreadID']
            check(t not in pending, f'thread {t}: a throw while another was in flight')
            pending[t] = f
            thrown += 1
            check(f['ThrowAddress'] == 0 or inside(loads, f['MethodID'], f['ThrowAddress'], in_tier),
                  f'throw address {f["ThrowAddress"]:#x} outside method {f["MethodID"]}')
        elif name in ('ExceptionCatch', 'ExceptionUnhandled'):
            t = f['ManagedThreadID']
            p = pending.pop(t, None)
            outcome += 1
            if not check(p is not None and p['ExceptionType'] == f['ExceptionType'],
                         f'thread {t}: {name} of {f["ExceptionType"]} without a throw before it'):
                continue
            if name == 'ExceptionCatch':
                check(inside(loads, f['MethodID'], f['HandlerAddress'], in_tier),
                      f'handler address {f["HandlerAddress"]:#x} outside method {f["MethodID"]}')
                want = FRAMES_UNWOUND.get(f['ExceptionType'])
                check(want is None or f['FramesUnwound'] == want,
                      f'{f["ExceptionType"]} caught after {f["FramesUnwound"]} frames, want {want}')
    check(not pending and thrown == outcome and thrown > 100,
          f'{thrown} throws, {outcome} catches/unhandled')
    return thrown


def check_threads(d, evs, workers):
    starts = {f['ManagedThreadID']: (i, f, tid) for i, f, tid in d['ThreadStart']}
    stops = {f['ManagedThreadID']: (i, f, tid) for i, f, tid in d['ThreadStop']}
    check(starts.keys() == stops.keys(), 'ThreadStart and ThreadStop do not pair up')
    kinds = collections.Counter(f['Kind'] for _, f, _ in starts.values())
    check(kinds == {0: 1, 1: workers, 2: 1},
          f'thread kinds {dict(kinds)}, want 1 main, {workers} workers, 1 sampler')
    done = collections.Counter(f['ManagedThreadID'] for _, f, _ in d['ThreadPoolWorkItemDone'])
    for mid, (i, s, tid) in starts.items():
        if mid not in stops:
            continue
        j, e, etid = stops[mid]
        check(j > i and s['OSThreadID'] == tid == etid == e['OSThreadID'] and
              s['Kind'] == e['Kind'], f'thread {mid}: start/stop disagree')
        check(e['Kind'] != 1 or e['WorkItemsExecuted'] == done[mid],
              f'worker {mid}: {e["WorkItemsExecuted"]} items executed, '
              f'{done[mid]} WorkItemDone events')
    os_of = {mid: s['OSThreadID'] for mid, (_, s, _) in starts.items()}
    for name, f, tid in evs:
        if 'ManagedThreadID' in f and f['ManagedThreadID'] in os_of:
            check(os_of[f['ManagedThreadID']] == tid,
                  f'{name} of thread {f["ManagedThreadID"]} came from OS thread {tid}')


def check_pool(evs, d):
    queued, taken = set(), {}
    for name, f, tid in evs:
        if name == 'ThreadPoolEnqueue':
            check(f['QueueLength'] >= 1, 'enqueue left an empty queue')
            queued.add(f['WorkItemID'])
        elif name == 'ThreadPoolDequeue':
            check(f['WorkItemID'] in queued, f'item {f["WorkItemID"]} dequeued before queued')
            taken[f['WorkItemID']] = tid
        elif name == 'ThreadPoolWorkItemDone':
            check(taken.get(f['WorkItemID']) == tid,
                  f'item {f["WorkItemID"]} done on another thread')
    check(len(queued) == len(taken) == len(d['ThreadPoolWorkItemDone']) > 100, 'work items lost')
    failed = sum(1 for _, f, _ in d['ThreadPoolWorkItemDone'] if f['Succeeded'] == 0)
    unhandled = len(d['ExceptionUnhandled'])
    check(failed == unhandled > 0, f'{failed} failed items, {unhandled} unhandled exceptions')


def check_totals(d, loads, thrown):
    stop = d['RuntimeStop'][0][1] if d['RuntimeStop'] else None
    if not check(stop and d['RuntimeStart'], 'no RuntimeStart/RuntimeStop'):
        return
    check(stop['GCCount'] == len(d['GCStart']), 'RuntimeStop.GCCount != GCStart events')
    check(stop['MethodsCompiled'] == len(loads),
          'RuntimeStop.MethodsCompiled != methods with a MethodLoad')
    check(stop['ExceptionsThrown'] == thrown,
          'RuntimeStop.ExceptionsThrown != ExceptionThrown events')
    last = d['GCHeapStats'][-1][1]['TotalAllocatedBytes'] if d['GCHeapStats'] else 0
    check(stop['TotalAllocatedBytes'] >= last, 'RuntimeStop.TotalAllocatedBytes went back')
    counters = [json.loads(f['Payload']) for _, f, _ in d['Paleventing:EventSource']
                if f['EventName'] == 'RuntimeCounters']
    check(len(counters) >= 5, f'only {len(counters)} RuntimeCounters events')
    for a, b in zip(counters, counters[1:]):
        check(a['gc-count'] <= b['gc-count'] <= stop['GCCount'], 'counters: gc-count went back')
        check(a['exceptions-thrown'] <= b['exceptions-thrown'],
              'counters: exceptions-thrown went back')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('trace')
    ap.add_argument('pid', type=int)
    ap.add_argument('--jit', default='hot')
    ap.add_argument('--perfmap')
    args = ap.parse_args()
    evs = read(args.trace, args.pid)
    d = by_name(evs)
    check_gc(d)
    check_gc_rare(d, evs)
    loads = check_methods(d, evs, args.jit)
    mapped = check_perfmap(args.perfmap, loads) if args.perfmap else 0
    in_tier = collections.Counter()
    thrown = check_exceptions(evs, loads, in_tier)
    # Native code throws and catches too: with --jit=all only it does.
    check(args.jit == 'off' or in_tier[NATIVE] > 0, 'no throw or catch address in native code')
    check(args.jit != 'all' or in_tier[THREADED] == 0,
          f'--jit=all: {in_tier[THREADED]} throw/catch addresses in threaded code')
    workers = d['RuntimeStart'][0][1]['WorkerThreads'] if d['RuntimeStart'] else 0
    check_threads(d, evs, workers)
    check_pool(evs, d)
    check_totals(d, loads, thrown)
    if failures:
        print('\n'.join('FAIL: ' + f for f in failures), file=sys.stderr)
        return 1
    native = sum(1 for t in loads.values() if NATIVE in t)
    print(f'{len(evs)} events of minivm consistent: {len(d["GCStart"])} collections, '
          f'{len(loads)} methods ({native} with native code, {mapped} in the perf map), '
          f'{thrown} exceptions (addresses: {in_tier[NATIVE]} in native code, '
          f'{in_tier[THREADED]} in threaded code), {len(d["ThreadStart"])} threads, '
          f'{len(d["ThreadPoolEnqueue"])} work items')
    return 0


if __name__ == '__main__':
    sys.exit(main())
