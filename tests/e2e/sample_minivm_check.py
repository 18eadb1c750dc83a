#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# minivm's events in one trace are plausible and agree with each other: collections pair up and
# add up, code addresses fall inside the code the method loads announced, exceptions are caught
# or reported unhandled exactly once, threads start and stop, work items flow through the queue.
# usage: sample_minivm_check.py TRACE_DIR PID   (the trace needs the vpid and vtid contexts)
import collections
import json
import sys

import bt2

INSN_SIZE = 16          # sizeof(struct insn): code size = instructions * 16
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
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is not bt2._EventMessageConst:
            continue
        ev = msg.event
        ctx = ev.common_context_field
        if int(ctx['vpid']) != pid:
            continue
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


def check_methods(d):
    started = {f['MethodID']: f for _, f, _ in d['MethodJittingStarted']}
    loads = {}
    for _, m, _ in d['MethodLoad']:
        mid = m['MethodID']
        check(mid not in loads, f'method {m["MethodName"]} loaded twice')
        loads[mid] = m
        j = started.get(mid)
        check(j is not None and j['MethodName'] == m['MethodName'] and
              j['BytecodeSize'] == m['BytecodeSize'],
              f'method {m["MethodName"]}: no matching MethodJittingStarted')
        check(m['MethodSize'] == m['InstructionCount'] * INSN_SIZE and m['MethodStartAddress'] != 0,
              f'method {m["MethodName"]}: size {m["MethodSize"]} for '
              f'{m["InstructionCount"]} instructions')
    failed = [f for _, f, _ in d['MethodCompileFailed']]
    check(len(failed) == 1 and failed[0]['MethodName'] == 'underflow' and failed[0]['Reason'] == 0,
          'expected Workload.Broken.underflow to fail with StackUnderflow')
    mods = d['ModuleLoad']
    if check(len(mods) == 1 and len(d['ModuleUnload']) == 1,
             'expected one ModuleLoad and one ModuleUnload'):
        mod, unl = mods[0][1], d['ModuleUnload'][0][1]
        check(all(m['ModuleID'] == mod['ModuleID'] for m in loads.values()),
              'methods of another module')
        check(unl['ModuleGuid'] == mod['ModuleGuid'] and unl['MethodsCompiled'] == len(loads),
              'ModuleUnload disagrees with ModuleLoad')
        check(mod['ModuleGuid'] != '00000000-0000-0000-0000-000000000000', 'zero module GUID')
    return loads


def inside(loads, mid, addr):
    m = loads.get(mid)
    if m is None:
        return False
    return m['MethodStartAddress'] <= addr < m['MethodStartAddress'] + m['MethodSize']


def check_exceptions(evs, loads):
    pending = {}
    thrown = outcome = 0
    for name, f, _ in evs:
        if name == 'ExceptionThrown':
            t = f['ManagedThreadID']
            check(t not in pending, f'thread {t}: a throw while another was in flight')
            pending[t] = f
            thrown += 1
            check(f['ThrowAddress'] == 0 or inside(loads, f['MethodID'], f['ThrowAddress']),
                  f'throw address {f["ThrowAddress"]:#x} outside method {f["MethodID"]}')
        elif name in ('ExceptionCatch', 'ExceptionUnhandled'):
            t = f['ManagedThreadID']
            p = pending.pop(t, None)
            outcome += 1
            if not check(p is not None and p['ExceptionType'] == f['ExceptionType'],
                         f'thread {t}: {name} of {f["ExceptionType"]} without a throw before it'):
                continue
            if name == 'ExceptionCatch':
                check(inside(loads, f['MethodID'], f['HandlerAddress']),
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
    check(stop['MethodsCompiled'] == len(loads), 'RuntimeStop.MethodsCompiled != MethodLoad events')
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
    evs = read(sys.argv[1], int(sys.argv[2]))
    d = by_name(evs)
    check_gc(d)
    check_gc_rare(d, evs)
    loads = check_methods(d)
    thrown = check_exceptions(evs, loads)
    workers = d['RuntimeStart'][0][1]['WorkerThreads'] if d['RuntimeStart'] else 0
    check_threads(d, evs, workers)
    check_pool(evs, d)
    check_totals(d, loads, thrown)
    if failures:
        print('\n'.join('FAIL: ' + f for f in failures), file=sys.stderr)
        return 1
    print(f'{len(evs)} events of minivm consistent: {len(d["GCStart"])} collections, '
          f'{len(loads)} methods, {thrown} exceptions, {len(d["ThreadStart"])} threads, '
          f'{len(d["ThreadPoolEnqueue"])} work items')
    return 0


if __name__ == '__main__':
    sys.exit(main())
