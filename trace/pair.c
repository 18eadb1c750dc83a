/* SPDX-License-Identifier: MIT */
/* Activities: ETW Start/Stop events of one task paired per thread, innermost first. */
#include <stdlib.h>
#include <string.h>

#include "stats.h"

void pt_pairer_init(pt_pairer *p, const char *by_field, const pt_pair_ops *ops)
{
    memset(p, 0, sizeof(*p));
    p->by_field = by_field;
    if (ops)
        p->ops = *ops;
}

/* One thread of one process of one trace (a process without vtid is one thread). */
static pt_thread *thread_of(pt_pairer *p, const pt_event *ev)
{
    uint64_t key = ((uint64_t)ev->trace->index << 54) | (((uint64_t)ev->vpid & 0x3FFFFF) << 32) |
                   ((uint64_t)ev->vtid & 0xFFFFFFFF);
    pt_thread *th = pt_map_get(&p->threads, key);
    if (th)
        return th;
    th = pt_xcalloc(1, sizeof(*th));
    th->vpid = ev->vpid;
    th->vtid = ev->vtid;
    th->trace = ev->trace;
    pt_map_put(&p->threads, key, th);
    PT_APPEND(p->all, p->nthreads, th);
    return th;
}

static void ensure_task(pt_pairer *p, unsigned task)
{
    if (task < p->ntasks)
        return;
    unsigned n = task + 8;
    p->unmatched_start = pt_xrealloc(p->unmatched_start, n * sizeof(uint64_t));
    p->unmatched_stop = pt_xrealloc(p->unmatched_stop, n * sizeof(uint64_t));
    p->dropped = pt_xrealloc(p->dropped, n * sizeof(uint64_t));
    for (unsigned i = p->ntasks; i < n; i++)
        p->unmatched_start[i] = p->unmatched_stop[i] = p->dropped[i] = 0;
    p->ntasks = n;
}

#define PT_BY_ABSENT (-2)     /* a frame's --by field: not in its Start, the Stop will tell */

static int by_label(pt_pairer *p, const char *label)
{
    for (unsigned i = 0; i < p->nby; i++)
        if (strcmp(p->by_values[i], label) == 0)
            return (int)i;
    if (p->nby == PT_BY_MAX)
        label = "other";
    for (unsigned i = 0; i < p->nby; i++)
        if (strcmp(p->by_values[i], label) == 0)
            return (int)i;
    p->by_values = pt_xrealloc(p->by_values, (p->nby + 1) * sizeof(char *));
    p->by_values[p->nby] = pt_xstrdup(label);
    return (int)p->nby++;
}

/* The index of the event's --by value ("other" past PT_BY_MAX values), PT_BY_ABSENT without the
 * field. */
static int by_index(pt_pairer *p, const pt_event *ev)
{
    char buf[64];
    pt_value v;
    if (pt_field_value(pt_member(ev, p->by_field), &v) != 0)
        return PT_BY_ABSENT;
    return by_label(p, pt_value_text(&v, buf, sizeof(buf)));
}

/* At the Stop: a --by field the Start lacked is looked up in the Stop. */
static void resolve_by(pt_pairer *p, pt_frame *f, const pt_event *stop)
{
    if (f->by != PT_BY_ABSENT)
        return;
    f->by = by_index(p, stop);
    if (f->by == PT_BY_ABSENT) {
        f->by = by_label(p, "-");
        p->by_missing++;
    } else {
        p->by_found++;
    }
}

static void on_start(pt_pairer *p, pt_thread *th, const pt_event *ev)
{
    if (th->depth == PT_PAIR_MAX_DEPTH) {
        p->dropped[th->stack[0].task]++;
        p->unmatched_start[th->stack[0].task]++;
        free(th->stack[0].fields);
        memmove(th->stack, th->stack + 1, (th->depth - 1) * sizeof(*th->stack));
        th->depth--;
    }
    if (th->depth == th->cap) {
        th->cap = th->cap ? th->cap * 2 : 4;
        th->stack = pt_xrealloc(th->stack, th->cap * sizeof(*th->stack));
    }
    pt_frame *o = &th->stack[th->depth++];
    o->start = ev->ts;
    o->task = ev->cls->task_index;
    o->by = p->by_field ? by_index(p, ev) : -1;
    o->mark = 0;
    o->fields = p->keep_fields ? pt_fields_text(pt_payload(ev)) : NULL;
    if (o->by >= 0)
        p->by_found++;
    if (p->ops.start)
        p->ops.start(th, ev, p->ops.data);
}

static void on_stop(pt_pairer *p, pt_thread *th, const pt_event *ev)
{
    unsigned task = ev->cls->task_index;
    for (unsigned i = th->depth; i-- > 0;) {
        if (th->stack[i].task != task)
            continue;
        resolve_by(p, &th->stack[i], ev);
        if (p->ops.stop)
            p->ops.stop(th, i, ev, p->ops.data);
        free(th->stack[i].fields);
        memmove(&th->stack[i], &th->stack[i + 1], (th->depth - i - 1) * sizeof(*th->stack));
        th->depth--;
        return;
    }
    p->unmatched_stop[task]++;
    if (p->ops.unmatched_stop)
        p->ops.unmatched_stop(ev, p->ops.data);
}

void pt_pairer_event(pt_pairer *p, const pt_event *ev)
{
    if (ev->cls->role == PT_ROLE_NONE)
        return;
    ensure_task(p, ev->cls->task_index);
    pt_thread *th = thread_of(p, ev);
    if (ev->cls->role == PT_ROLE_START)
        on_start(p, th, ev);
    else
        on_stop(p, th, ev);
}

void pt_pairer_finish(pt_pairer *p)
{
    for (unsigned i = 0; i < p->nthreads; i++)
        for (unsigned k = 0; k < p->all[i]->depth; k++)
            p->unmatched_start[p->all[i]->stack[k].task]++;
    if (p->by_field && p->by_missing && !p->by_found) {
        pt_text t = { 0 };
        fprintf(stderr, "palev-trace: warning: --by %s: no Start or Stop event of the %llu activities has a "
                "field \"%s\": nothing is split\n", pt_term(&t, p->by_field), (unsigned long long)p->by_missing,
                pt_term(&t, p->by_field));
        pt_text_free(&t);
    }
}

void pt_pairer_free(pt_pairer *p)
{
    for (unsigned i = 0; i < p->nthreads; i++) {
        for (unsigned k = 0; k < p->all[i]->depth; k++)
            free(p->all[i]->stack[k].fields);
        free(p->all[i]->stack);
        free(p->all[i]);
    }
    for (unsigned i = 0; i < p->nby; i++)
        free(p->by_values[i]);
    free(p->all);
    free(p->by_values);
    free(p->unmatched_start);
    free(p->unmatched_stop);
    free(p->dropped);
    pt_map_free(&p->threads);
    memset(p, 0, sizeof(*p));
}
