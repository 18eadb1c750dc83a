/* SPDX-License-Identifier: MIT */
/* perf's CTF conversion decoded: per event class, where its perf_* fields are, found once. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "samples.h"

/* Where a class's fields are (member indexes of its payload, -1 when absent). */
typedef struct decoder {
    int skip;                   /* not a sample this reads (dummy:HG, other tracepoints) */
    pt_sample_kind kind;
    int period_ns;
    int64_t ip, tid, pid, period, chain, prev_state, prev_comm;
} decoder;

typedef struct reading {
    const pt_perf_sink *sink;
    unsigned pid;               /* --pid: only this process's samples (0: all) */
    pt_memo decoders;           /* bt_event_class * -> decoder */
    uint64_t *chain;            /* scratch: one sample's callchain */
    size_t cap;
    uint64_t samples;
} reading;

unsigned pt_sample_trace_count(const pt_reader *r)
{
    return pt__perf_dir_count(r);
}

const char *pt_sample_trace_path(const pt_reader *r, unsigned i)
{
    return pt__perf_dirs(r)[i];
}

/* A sampling event: "cpu-clock", "cycles:ppp" (a name and perf's modifiers), not a tracepoint
 * ("subsystem:event") nor perf's "dummy". */
static int is_cpu_event(const char *name)
{
    const char *colon = strchr(name, ':');
    if (strncmp(name, "dummy", 5) == 0)
        return 0;
    return !colon || strspn(colon + 1, "ukhHGpPSDIWe") == strlen(colon + 1);
}

static decoder *decoder_of(reading *rd, const bt_event_class *ec)
{
    decoder *d = pt_memo_get(&rd->decoders, ec);
    if (d)
        return d;
    const bt_field_class *p = bt_event_class_borrow_payload_field_class_const(ec);
    const char *name = bt_event_class_get_name(ec);
    d = pt_xcalloc(1, sizeof(*d));
    *d = (decoder){ .kind = PT_SAMPLE_CPU,
                    .ip = pt__member_index(p, "perf_ip"), .tid = pt__member_index(p, "perf_tid"),
                    .pid = pt__member_index(p, "perf_pid"), .period = pt__member_index(p, "perf_period"),
                    .chain = pt__member_index(p, "perf_callchain"),
                    .prev_state = pt__member_index(p, "prev_state"),
                    .prev_comm = pt__member_index(p, "prev_comm") };
    if (name && strcmp(name, "sched:sched_switch") == 0)
        d->kind = PT_SAMPLE_SWITCH;
    d->period_ns = name && (strncmp(name, "cpu-clock", 9) == 0 || strncmp(name, "task-clock", 10) == 0);
    d->skip = !name || d->tid < 0 || d->pid < 0 ||
              (d->kind == PT_SAMPLE_SWITCH ? d->prev_state < 0 : d->period < 0 || !is_cpu_event(name));
    return pt_memo_put(&rd->decoders, ec, d);
}

static int64_t int_at(const bt_field *payload, int64_t index)
{
    if (index < 0)
        return -1;
    const bt_field *f = bt_field_structure_borrow_member_field_by_index_const(payload, (uint64_t)index);
    if (bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
        return bt_field_integer_signed_get_value(f);
    if (bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
        return (int64_t)bt_field_integer_unsigned_get_value(f);
    return -1;
}

/* The callchain into the scratch array; its length. */
static size_t chain_of(reading *rd, const bt_field *payload, int64_t index)
{
    if (index < 0)
        return 0;
    const bt_field *a = bt_field_structure_borrow_member_field_by_index_const(payload, (uint64_t)index);
    if (!bt_field_class_type_is(bt_field_get_class_type(a), BT_FIELD_CLASS_TYPE_ARRAY))
        return 0;
    uint64_t n = bt_field_array_get_length(a);
    rd->chain = pt_xgrow(rd->chain, &rd->cap, n ? n : 1, sizeof(*rd->chain));
    for (uint64_t i = 0; i < n; i++)
        rd->chain[i] = bt_field_integer_unsigned_get_value(bt_field_array_borrow_element_field_by_index_const(a, i));
    return n;
}

static void on_event(reading *rd, const bt_message *msg)
{
    const bt_event *ev = bt_message_event_borrow_event_const(msg);
    const decoder *d = decoder_of(rd, bt_event_borrow_class_const(ev));
    if (d->skip)
        return;
    const bt_field *p = bt_event_borrow_payload_field_const(ev);
    const bt_clock_snapshot *cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
    const bt_clock_class *cc = bt_clock_snapshot_borrow_clock_class_const(cs);
    pt_perf_sample s = { .kind = d->kind, .pid = int_at(p, d->pid), .tid = int_at(p, d->tid), .prev_state = -1 };
    if (rd->pid && s.pid != (int64_t)rd->pid)
        return;     /* --pid: another process */
    int64_t ns = 0, seconds = 0;
    uint64_t cycles = 0;
    bt_clock_snapshot_get_ns_from_origin(cs, &ns);
    bt_clock_class_get_offset(cc, &seconds, &cycles);
    s.raw = seconds || cycles ? ns - (seconds * 1000000000 + (int64_t)(cycles * 1000000000 /
                                      bt_clock_class_get_frequency(cc))) : ns;
    s.ip = (uint64_t)int_at(p, d->ip);
    s.period = d->period >= 0 ? (uint64_t)int_at(p, d->period) : 1;
    s.period_ns = d->period_ns;
    if (d->kind == PT_SAMPLE_SWITCH) {
        s.prev_state = int_at(p, d->prev_state);
        if (d->prev_comm >= 0)
            s.prev_comm = bt_field_string_get_value(
                bt_field_structure_borrow_member_field_by_index_const(p, (uint64_t)d->prev_comm));
    }
    s.nchain = chain_of(rd, p, d->chain);
    s.chain = rd->chain;
    rd->samples++;
    if (rd->sink->sample)
        rd->sink->sample(&s, rd->sink->data);
}

static void on_message(const bt_message *msg, void *data)
{
    reading *rd = data;
    uint64_t count = 0;
    switch (bt_message_get_type(msg)) {
    case BT_MESSAGE_TYPE_EVENT:
        on_event(rd, msg);
        break;
    case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
        if (bt_message_discarded_events_get_count(msg, &count) != BT_PROPERTY_AVAILABILITY_AVAILABLE)
            count = 1;
        if (rd->sink->discarded)
            rd->sink->discarded(count, rd->sink->data);
        break;
    default:
        break;
    }
}

int pt_run_samples(pt_reader *r, const pt_perf_sink *sink)
{
    reading rd = { .sink = sink, .pid = pt__pid(r) };
    int rc = 0;
    if (!pt__perf_dir_count(r))
        return 0;
    int st = pt__run_graph(r, pt__perf_dirs(r), pt__perf_dir_count(r), 0, on_message, &rd);
    if (st) {
        char what[160];
        snprintf(what, sizeof(what), st < 0 ? "cannot read perf's samples" :
                 "perf's samples are damaged: reading stopped after %llu samples (what follows covers "
                 "those only)", (unsigned long long)rd.samples);
        pt__bt_error(what);
        rc = PT_EXIT_DATA;
    }
    pt_memo_free(&rd.decoders);
    free(rd.chain);
    return rc;
}
