/* SPDX-License-Identifier: MIT */
/* What a trace says about itself: processes and their names, EventSource names, providers not
 * loaded (Paleventing:ProviderStatus). */
#include <stdlib.h>
#include <string.h>

#include "summary.h"

/* ---- processes ----------------------------------------------------------------------------------- */

static void count_name(pt_proc *p, const pt_event *ev)
{
    unsigned i = 0;
    if (ev->vtid >= 0 && ev->vtid == ev->vpid && !p->main_name[0])
        snprintf(p->main_name, sizeof(p->main_name), "%s", ev->procname);
    while (i < p->nnames && strcmp(p->names[i].name, ev->procname) != 0)
        i++;
    if (i == p->nnames) {
        if (i == PT_PROC_NAMES)
            return;     /* a ninth thread name: the first eight hold the process's own */
        snprintf(p->names[i].name, sizeof(p->names[i].name), "%s", ev->procname);
        p->nnames++;
    }
    p->names[i].events++;
}

pt_proc *pt_procs_event(pt_procs *ps, const pt_event *ev)
{
    uint64_t key = pt_process_key(ev);
    pt_proc *p = pt_map_get(&ps->by_key, key);
    if (!p) {
        if (ps->n == PT_MAX_ROWS) {
            ps->dropped++;
            return NULL;
        }
        p = pt_xcalloc(1, sizeof(*p));
        p->trace = ev->trace;
        p->vpid = ev->vpid;
        p->first = ev->ts;
        pt_map_put(&ps->by_key, key, p);
        PT_APPEND(ps->list, ps->n, p);
    }
    if (ev->procname)
        count_name(p, ev);
    p->events++;
    p->last = ev->ts;
    return p;
}

const char *pt_proc_name(const pt_proc *p)
{
    unsigned best = 0;
    if (p->main_name[0])
        return p->main_name;
    for (unsigned i = 1; i < p->nnames; i++)
        if (p->names[i].events > p->names[best].events)
            best = i;
    return p->nnames && p->names[best].name[0] ? p->names[best].name : "-";
}

void pt_procs_free(pt_procs *ps)
{
    for (unsigned i = 0; i < ps->n; i++)
        free(ps->list[i]);
    free(ps->list);
    pt_map_free(&ps->by_key);
    memset(ps, 0, sizeof(*ps));
}

/* ---- EventSource names, providers not loaded --------------------------------------------------- */

static const char *member_text(const pt_event *ev, const char *name, char *buf, size_t size)
{
    pt_value v;
    return pt_field_value(pt_member(ev, name), &v) == 0 ? pt_value_text(&v, buf, size) : "?";
}

static void count_eventsource(pt_summary *s, const pt_event *ev)
{
    char b1[64], b2[64];
    const char *src = member_text(ev, "EventSourceName", b1, sizeof(b1));
    const char *name = member_text(ev, "EventName", b2, sizeof(b2));
    char *key = pt_xasprintf("%s\x1f%s", src, name);
    pt_es_name *e = pt_map_get_str(&s->es, key);
    if (!e) {
        if (s->nes == PT_MAX_ROWS) {
            s->dropped_rows++;
            free(key);
            return;
        }
        e = pt_xcalloc(1, sizeof(*e));
        e->source = pt_xstrdup(src);
        e->name = pt_xstrdup(name);
        pt_map_put_str(&s->es, key, e);
        PT_APPEND(s->es_list, s->nes, e);
    }
    free(key);
    e->count++;
}

/* Paleventing:ProviderStatus { provider, loaded ("true"/"false"), reason }, one per provider. */
static void provider_status(pt_summary *s, const pt_event *ev)
{
    char b[3][64];
    s->status_events++;
    const char *loaded = member_text(ev, "loaded", b[0], sizeof(b[0]));
    if (strcmp(loaded, "false") != 0 && strcmp(loaded, "0") != 0)
        return;
    if (s->nnl == PT_MAX_ROWS) {
        s->dropped_rows++;
        return;
    }
    s->nl = pt_xrealloc(s->nl, (s->nnl + 1) * sizeof(*s->nl));
    pt_not_loaded *n = &s->nl[s->nnl++];
    n->trace = ev->trace;
    n->vpid = ev->vpid;
    n->provider = pt_xstrdup(member_text(ev, "provider", b[1], sizeof(b[1])));
    n->reason = pt_xstrdup(member_text(ev, "reason", b[2], sizeof(b[2])));
}

void pt_summary_event(pt_summary *s, const pt_event *ev)
{
    pt_procs_event(&s->procs, ev);
    if (ev->cls->is_eventsource)
        count_eventsource(s, ev);
    else if (strcmp(ev->cls->name, PCM_OWN_EVENT("ProviderStatus")) == 0)
        provider_status(s, ev);
}

static int es_order(const void *a, const void *b)
{
    const pt_es_name *x = *(pt_es_name *const *)a, *y = *(pt_es_name *const *)b;
    int c = strcmp(x->source, y->source);
    return c ? c : strcmp(x->name, y->name);
}

void pt_summary_sort(pt_summary *s)
{
    if (s->nes)
        qsort(s->es_list, s->nes, sizeof(*s->es_list), es_order);
}

void pt_summary_free(pt_summary *s)
{
    for (unsigned i = 0; i < s->nes; i++) {
        free(s->es_list[i]->source);
        free(s->es_list[i]->name);
        free(s->es_list[i]);
    }
    for (unsigned i = 0; i < s->nnl; i++) {
        free(s->nl[i].provider);
        free(s->nl[i].reason);
    }
    free(s->es_list);
    free(s->nl);
    pt_map_free(&s->es);
    pt_procs_free(&s->procs);
}

double pt_rate(uint64_t n, int64_t first, int64_t last)
{
    return last > first ? (double)n * 1e9 / (double)(last - first) : 0.0;
}
