/* SPDX-License-Identifier: MIT */
/* palev-trace summary: span, hosts, processes, events per name with rates, EventSource names,
 * lost events, providers a process did not load. */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "summary.h"

static void count_process(pt_summary *s, const pt_event *ev)
{
    uint64_t key = ((uint64_t)ev->trace->index << 40) ^ (uint64_t)ev->vpid;
    pt_proc *p = pt_map_get(&s->procs, key);
    if (!p) {
        if (s->nprocs == PT_MAX_ROWS) {
            s->dropped_rows++;
            return;
        }
        p = pt_xcalloc(1, sizeof(*p));
        p->trace = ev->trace;
        p->vpid = ev->vpid;
        p->first = ev->ts;
        pt_map_put(&s->procs, key, p);
        s->proc_list = pt_xrealloc(s->proc_list, (s->nprocs + 1) * sizeof(*s->proc_list));
        s->proc_list[s->nprocs++] = p;
    }
    if (!p->procname[0] && ev->procname)
        snprintf(p->procname, sizeof(p->procname), "%s", ev->procname);
    p->events++;
    p->last = ev->ts;
}

static const char *member_text(const pt_event *ev, const char *name, char *buf, size_t size)
{
    pt_value v;
    return pt_field_value(pt_member(ev, name), &v) == 0 ? pt_value_text(&v, buf, size) : "?";
}

static void count_eventsource(pt_summary *s, const pt_event *ev)
{
    char b1[64], b2[64], key[1024];
    const char *src = member_text(ev, "EventSourceName", b1, sizeof(b1));
    const char *name = member_text(ev, "EventName", b2, sizeof(b2));
    snprintf(key, sizeof(key), "%s\x1f%s", src, name);
    uint64_t h = pt_hash_str(key);
    pt_es_name *e = pt_map_get(&s->es, h);
    if (!e) {
        if (s->nes == PT_MAX_ROWS) {
            s->dropped_rows++;
            return;
        }
        e = pt_xcalloc(1, sizeof(*e));
        e->source = pt_xstrdup(src);
        e->name = pt_xstrdup(name);
        pt_map_put(&s->es, h, e);
        s->es_list = pt_xrealloc(s->es_list, (s->nes + 1) * sizeof(*s->es_list));
        s->es_list[s->nes++] = e;
    }
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
    count_process(s, ev);
    if (ev->cls->is_eventsource)
        count_eventsource(s, ev);
    else if (strcmp(ev->cls->name, "Paleventing:ProviderStatus") == 0)
        provider_status(s, ev);
}

static void on_event(const pt_event *ev, void *data)
{
    pt_summary_event(data, ev);
}

/* ---- printing ------------------------------------------------------------------------------- */

double pt_rate(uint64_t n, int64_t first, int64_t last)
{
    return last > first ? (double)n * 1e9 / (double)(last - first) : 0.0;
}

static void print_span(pt_reader *r)
{
    int64_t first = 0, last = 0;
    char a[64], b[64], d[32];
    uint64_t events = 0;
    for (unsigned i = 0; i < pt_trace_count(r); i++)
        events += pt_trace_at(r, i)->events;
    if (!pt_span(r, &first, &last)) {
        puts("events     none");
        return;
    }
    printf("time span  %s .. %s (%s)\n", pt_fmt_time(first, a, sizeof(a)),
           pt_fmt_time(last, b, sizeof(b)), pt_fmt_ns((double)(last - first), d, sizeof(d)));
    printf("events     %llu (%.0f/s)\n", (unsigned long long)events, pt_rate(events, first, last));
    printf("manifests  %u%s\n", pt_manifest_count(r),
           pt_manifest_count(r) ? "" : " (event names and fields only: give -m MANIFEST for tasks and opcodes)");
}

/* One row per host: its traces together (a relayd tree holds a host's sessions side by side). */
static void print_host(pt_reader *r, unsigned first)
{
    const char *host = pt_trace_at(r, first)->hostname;
    uint64_t events = 0, lost = 0;
    int64_t t0 = 0, t1 = 0;
    unsigned traces = 0;
    char d[32];
    for (unsigned i = first; i < pt_trace_count(r); i++) {
        const pt_trace *t = pt_trace_at(r, i);
        if (strcmp(t->hostname, host) != 0 || t->first_ts > t->last_ts)
            continue;
        t0 = traces && t0 < t->first_ts ? t0 : t->first_ts;
        t1 = traces && t1 > t->last_ts ? t1 : t->last_ts;
        events += t->events;
        lost += t->discarded_events;
        traces++;
    }
    printf("  %-20s %6u %10llu %12s %10.0f %10llu\n", host, traces, (unsigned long long)events,
           pt_fmt_ns((double)(t1 - t0), d, sizeof(d)), pt_rate(events, t0, t1), (unsigned long long)lost);
}

static void print_hosts(pt_reader *r)
{
    printf("\nhosts\n  %-20s %6s %10s %12s %10s %10s\n", "host", "traces", "events", "span", "events/s", "lost");
    for (unsigned i = 0; i < pt_trace_count(r); i++) {
        unsigned k = 0;
        while (k < i && strcmp(pt_trace_at(r, k)->hostname, pt_trace_at(r, i)->hostname) != 0)
            k++;
        if (k == i)
            print_host(r, i);
    }
    printf("\ntraces\n  %-20s %10s  %s\n", "host", "events", "directory");
    for (unsigned i = 0; i < pt_trace_count(r); i++) {
        const pt_trace *t = pt_trace_at(r, i);
        printf("  %-20s %10llu  %s\n", t->hostname, (unsigned long long)t->events, t->path);
    }
}

static void print_processes(const pt_summary *s, pt_reader *r)
{
    int64_t t0 = 0, t1 = 0;
    pt_span(r, &t0, &t1);
    printf("\nprocesses\n  %-16s %8s %-16s %10s %12s %12s\n", "host", "vpid", "procname", "events",
           "first", "last");
    for (unsigned i = 0; i < s->nprocs; i++) {
        const pt_proc *p = s->proc_list[i];
        char vpid[24], a[32], b[32];
        snprintf(vpid, sizeof(vpid), p->vpid < 0 ? "-" : "%lld", (long long)p->vpid);
        printf("  %-16s %8s %-16s %10llu %12s %12s\n", p->trace->hostname, vpid,
               p->procname[0] ? p->procname : "-", (unsigned long long)p->events,
               pt_fmt_ns((double)(p->first - t0), a, sizeof(a)), pt_fmt_ns((double)(p->last - t0), b, sizeof(b)));
    }
    if (s->nprocs == 1 && s->proc_list[0]->vpid < 0)
        puts("  (no vpid context: lttng add-context -u -t vpid -t vtid -t procname tells processes apart)");
}

static int by_name(const void *a, const void *b)
{
    return strcmp((*(pt_class *const *)a)->name, (*(pt_class *const *)b)->name);
}

static void print_events(pt_reader *r)
{
    int64_t t0 = 0, t1 = 0;
    unsigned n = pt_class_count(r);
    pt_class **sorted = pt_xcalloc(n, sizeof(*sorted));
    pt_span(r, &t0, &t1);
    for (unsigned i = 0; i < n; i++)
        sorted[i] = pt_class_at(r, i);
    qsort(sorted, n, sizeof(*sorted), by_name);
    printf("\nevents per provider and event\n  %-48s %10s %12s\n", "event", "count", "per second");
    for (unsigned i = 0; i < n; i++) {
        if (i == 0 || strcmp(sorted[i]->provider, sorted[i - 1]->provider) != 0) {
            uint64_t total = 0;
            for (unsigned k = i; k < n && strcmp(sorted[k]->provider, sorted[i]->provider) == 0; k++)
                total += sorted[k]->count;
            printf("  %-48s %10llu %12.1f\n", sorted[i]->provider, (unsigned long long)total, pt_rate(total, t0, t1));
        }
        printf("    %-46s %10llu %12.1f\n", sorted[i]->event, (unsigned long long)sorted[i]->count,
               pt_rate(sorted[i]->count, t0, t1));
    }
    free(sorted);
}

static int es_order(const void *a, const void *b)
{
    const pt_es_name *x = *(pt_es_name *const *)a, *y = *(pt_es_name *const *)b;
    int c = strcmp(x->source, y->source);
    return c ? c : strcmp(x->name, y->name);
}

static void print_eventsource(pt_summary *s)
{
    if (!s->nes)
        return;
    qsort(s->es_list, s->nes, sizeof(*s->es_list), es_order);
    printf("\nEventSource events (Paleventing:EventSource)\n  %-32s %-32s %10s\n", "source", "name", "count");
    for (unsigned i = 0; i < s->nes; i++)
        printf("  %-32s %-32s %10llu\n", s->es_list[i]->source, s->es_list[i]->name,
               (unsigned long long)s->es_list[i]->count);
}

static void print_lost(pt_reader *r)
{
    int any = 0;
    puts("\nlost events");
    for (unsigned i = 0; i < pt_trace_count(r); i++) {
        const pt_trace *t = pt_trace_at(r, i);
        if (t->discarded_events)
            printf("  %s (%s): %llu events DISCARDED: the tracer's ring buffer was full. Record again "
                   "with bigger sub-buffers (lttng enable-channel -u --subbuf-size=8M --num-subbuf=8) or "
                   "fewer events (enable fewer events, or a --loglevel).\n", t->hostname, t->path,
                   (unsigned long long)t->discarded_events);
        if (t->discarded_packets)
            printf("  %s (%s): %llu packets LOST: the consumer could not write them (slow disk or "
                   "network, or tracefile rotation overwrote them). Record to a faster disk, with "
                   "more sub-buffers, or without --tracefile-count.\n", t->hostname, t->path,
                   (unsigned long long)t->discarded_packets);
        any |= t->discarded_events || t->discarded_packets;
    }
    if (!any)
        puts("  none: the trace holds every event the tracer recorded");
}

static void print_not_loaded(const pt_summary *s)
{
    if (!s->status_events)
        return;
    puts("\nproviders not loaded (Paleventing:ProviderStatus)");
    for (unsigned i = 0; i < s->nnl; i++)
        printf("  %s vpid %lld: %s not loaded: %s\n", s->nl[i].trace->hostname,
               (long long)s->nl[i].vpid, s->nl[i].provider, s->nl[i].reason);
    if (!s->nnl)
        printf("  none: every provider of the %llu ProviderStatus events loaded\n",
               (unsigned long long)s->status_events);
}

void pt_summary_free(pt_summary *s)
{
    for (unsigned i = 0; i < s->nprocs; i++)
        free(s->proc_list[i]);
    for (unsigned i = 0; i < s->nes; i++) {
        free(s->es_list[i]->source);
        free(s->es_list[i]->name);
        free(s->es_list[i]);
    }
    for (unsigned i = 0; i < s->nnl; i++) {
        free(s->nl[i].provider);
        free(s->nl[i].reason);
    }
    free(s->proc_list);
    free(s->es_list);
    free(s->nl);
    pt_map_free(&s->procs);
    pt_map_free(&s->es);
}

static int run(const pt_opts *o)
{
    pt_summary s = { 0 };
    pt_reader *r = NULL;
    pt_sink sink = { .event = on_event, .data = &s };
    int rc = pt_read_all(o, &sink, &r);
    if (pt_ran(r)) {
        print_span(r);
        print_hosts(r);
        print_processes(&s, r);
        print_events(r);
        print_eventsource(&s);
        print_not_loaded(&s);
        print_lost(r);
        if (s.dropped_rows)
            printf("\n(%llu rows beyond %d per table not kept)\n", (unsigned long long)s.dropped_rows, PT_MAX_ROWS);
        fflush(stdout);
        rc = pt_verdict(r, rc);
    }
    pt_summary_free(&s);
    pt_close(r);
    return rc;
}

const pt_command pt_cmd_summary = {
    .name = "summary", .args = "[options] TRACE...",
    .help = "span, hosts, processes, events and rates, EventSource names, losses",
    .min_inputs = 1, .run = run,
};
