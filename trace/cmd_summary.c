/* SPDX-License-Identifier: MIT */
/* palev-trace summary: span, hosts, processes, events per name with rates, EventSource names,
 * lost events, providers a process did not load. */
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "summary.h"

static void on_event(const pt_event *ev, void *data)
{
    pt_summary_event(data, ev);
}

/* ---- printing ------------------------------------------------------------------------------- */

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
    pt_text t = { 0 };
    printf("  %-20s %6u %10llu %12s %10.0f %10llu\n", pt_term(&t, host), traces, (unsigned long long)events,
           pt_fmt_ns((double)(t1 - t0), d, sizeof(d)), pt_rate(events, t0, t1), (unsigned long long)lost);
    pt_text_free(&t);
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
        pt_text x = { 0 };
        printf("  %-20s %10llu  %s\n", pt_term(&x, t->hostname), (unsigned long long)t->events, pt_term(&x, t->path));
        pt_text_free(&x);
    }
}

static void print_processes(const pt_summary *s, pt_reader *r)
{
    int64_t t0 = 0, t1 = 0;
    pt_text t = { 0 };
    pt_span(r, &t0, &t1);
    printf("\nprocesses\n  %-16s %8s %-16s %10s %12s %12s\n", "host", "vpid", "procname", "events",
           "first", "last");
    for (unsigned i = 0; i < s->procs.n; i++) {
        const pt_proc *p = s->procs.list[i];
        char vpid[24], a[32], b[32];
        snprintf(vpid, sizeof(vpid), p->vpid < 0 ? "-" : "%lld", (long long)p->vpid);
        printf("  %-16s %8s %-16s %10llu %12s %12s\n", pt_term(&t, p->trace->hostname), vpid,
               pt_term(&t, pt_proc_name(p)), (unsigned long long)p->events,
               pt_fmt_ns((double)(p->first - t0), a, sizeof(a)), pt_fmt_ns((double)(p->last - t0), b, sizeof(b)));
    }
    if (s->procs.n == 1 && s->procs.list[0]->vpid < 0)
        puts("  (no vpid context: lttng add-context -u -t vpid -t vtid -t procname tells processes apart)");
    pt_text_free(&t);
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
        pt_text t = { 0 };
        if (i == 0 || strcmp(sorted[i]->provider, sorted[i - 1]->provider) != 0) {
            uint64_t total = 0;
            for (unsigned k = i; k < n && strcmp(sorted[k]->provider, sorted[i]->provider) == 0; k++)
                total += sorted[k]->count;
            printf("  %-48s %10llu %12.1f\n", pt_term(&t, sorted[i]->provider), (unsigned long long)total,
                   pt_rate(total, t0, t1));
        }
        printf("    %-46s %10llu %12.1f\n", pt_term(&t, sorted[i]->event), (unsigned long long)sorted[i]->count,
               pt_rate(sorted[i]->count, t0, t1));
        pt_text_free(&t);
    }
    free(sorted);
}

static void print_eventsource(pt_summary *s)
{
    pt_text t = { 0 };
    if (!s->nes)
        return;
    pt_summary_sort(s);
    printf("\nEventSource events (Paleventing:EventSource)\n  %-32s %-32s %10s\n", "source", "name", "count");
    for (unsigned i = 0; i < s->nes; i++)
        printf("  %-32s %-32s %10llu\n", pt_term(&t, s->es_list[i]->source), pt_term(&t, s->es_list[i]->name),
               (unsigned long long)s->es_list[i]->count);
    pt_text_free(&t);
}

static void print_lost(pt_reader *r)
{
    int any = 0;
    pt_text x = { 0 };
    puts("\nlost events");
    for (unsigned i = 0; i < pt_missing_count(r); i++) {
        const pt_missing *m = pt_missing_at(r, i);
        printf("  %s: %llu packets (%llu bytes) MISSING: the trace's index lists them but the stream "
               "file does not hold them (emptied, cut short or deleted after recording).\n",
               pt_term(&x, m->stream), (unsigned long long)m->packets, (unsigned long long)m->bytes);
        any = 1;
    }
    for (unsigned i = 0; i < pt_trace_count(r); i++) {
        const pt_trace *t = pt_trace_at(r, i);
        if (t->discarded_events)
            printf("  %s (%s): %llu events DISCARDED: the tracer's ring buffer was full. Record again "
                   "with bigger sub-buffers (lttng enable-channel -u --subbuf-size=8M --num-subbuf=8) or "
                   "fewer events (enable fewer events, or a --loglevel).\n", pt_term(&x, t->hostname),
                   pt_term(&x, t->path), (unsigned long long)t->discarded_events);
        if (t->discarded_packets)
            printf("  %s (%s): %llu packets LOST: the consumer could not write them (slow disk or "
                   "network, or tracefile rotation overwrote them). Record to a faster disk, with "
                   "more sub-buffers, or without --tracefile-count.\n", pt_term(&x, t->hostname),
                   pt_term(&x, t->path), (unsigned long long)t->discarded_packets);
        any |= t->discarded_events || t->discarded_packets;
    }
    if (!any)
        puts("  none: the trace holds every event the tracer recorded");
    pt_text_free(&x);
}

static void print_not_loaded(const pt_summary *s)
{
    pt_text t = { 0 };
    if (!s->status_events)
        return;
    puts("\nproviders not loaded (Paleventing:ProviderStatus)");
    for (unsigned i = 0; i < s->nnl; i++)
        printf("  %s vpid %lld: %s not loaded: %s\n", pt_term(&t, s->nl[i].trace->hostname),
               (long long)s->nl[i].vpid, pt_term(&t, s->nl[i].provider), pt_term(&t, s->nl[i].reason));
    if (!s->nnl)
        printf("  none: every provider of the %llu ProviderStatus events loaded\n",
               (unsigned long long)s->status_events);
    pt_text_free(&t);
}

static int print_all(pt_reader *r, void *data)
{
    pt_summary *s = data;
    print_span(r);
    print_hosts(r);
    print_processes(s, r);
    print_events(r);
    print_eventsource(s);
    print_not_loaded(s);
    print_lost(r);
    uint64_t dropped = s->dropped_rows + s->procs.dropped;
    if (dropped)
        printf("\n(%llu rows beyond %d per table not kept)\n", (unsigned long long)dropped, PT_MAX_ROWS);
    return 0;
}

static int summarize(const pt_input *in)
{
    pt_summary s = { 0 };
    pt_sink sink = { .event = on_event, .data = &s };
    int rc = pt_read_print(in, &sink, print_all);
    pt_summary_free(&s);
    return rc;
}

const pt_command pt_cmd_summary = {
    .name = "summary", .synopsis = "[options] TRACE...",
    .help = "span, hosts, processes, events and rates, EventSource names, losses",
    .min_inputs = 1, .run = summarize,
};
