/* SPDX-License-Identifier: MIT */
/* palev-trace report: one self-contained HTML page (inline CSS and SVG, no script, no network):
 * the summary, per task a duration histogram and the instances over time, events per second,
 * counters as line charts, the longest instances; with perf's samples beside the trace, where
 * the CPU went (and where threads waited) as flame graphs, functions and per task. */
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "counters.h"
#include "cpu.h"
#include "stacks.h"
#include "stats.h"
#include "summary.h"
#include "svg.h"

#define MAX_SERIES 48   /* counter series drawn; more are counted and said */
#define SERIES_WIDTH0 1000
#define TOP_STACKS 5    /* call paths shown per event */
#define TOP_FUNCTIONS 15
#define TOP_DURING 3    /* functions shown per task */

typedef struct report_opts {
    pt_input in;
    const char *output;
    const char *by;
    unsigned top;
} report_opts;

typedef struct task_stats {
    pt_hist hist;
    pt_series timeline;         /* instances by start time: count and longest per bin */
    pt_top top;
    unsigned *watch;            /* with CPU samples: the CPU of top's instances (pt_cpu_watch) */
    pt_hist *by;                /* per --by value, PT_BY_MAX of them */
} task_stats;


typedef struct report {
    const report_opts *o;
    pt_reader *r;
    pt_summary sum;
    pt_stacks *stacks;
    pt_cpu *cpu;                /* perf's samples beside the trace, or NULL */
    pt_pairer pairer;
    task_stats *tasks;
    unsigned ntasks;
    pt_series events;
    pt_series_set counters;
    int64_t t0, now;
    int started;
    FILE *out;
} report;

static const char *weight_text(const report *rp, int measure, uint64_t w, char *buf, size_t size);

static task_stats *task(report *rp, unsigned i)
{
    if (i >= rp->ntasks) {
        rp->tasks = pt_xrealloc(rp->tasks, (i + 1) * sizeof(*rp->tasks));
        for (unsigned k = rp->ntasks; k <= i; k++) {
            memset(&rp->tasks[k], 0, sizeof(rp->tasks[k]));
            pt_series_init(&rp->tasks[k].timeline, rp->t0, SERIES_WIDTH0);
            pt_top_init(&rp->tasks[k].top, rp->o->top);
        }
        rp->ntasks = i + 1;
    }
    return &rp->tasks[i];
}

static void on_stop(pt_thread *th, unsigned pos, const pt_event *ev, void *data)
{
    report *rp = data;
    const pt_frame *f = &th->stack[pos];
    task_stats *t = task(rp, f->task);
    uint64_t d = (uint64_t)(ev->ts - f->start);
    pt_hist_add(&t->hist, d);
    pt_series_add(&t->timeline, f->start, (double)d);
    if (f->by >= 0) {
        if (!t->by)
            t->by = pt_xcalloc(PT_BY_MAX, sizeof(*t->by));
        pt_hist_add(&t->by[f->by], d);
    }
    pt_inst in = { .start = f->start, .end = ev->ts, .vpid = th->vpid, .vtid = th->vtid,
                   .task = f->task, .by = f->by, .trace = th->trace };
    if (pt_top_would_keep(&t->top, ev->ts - f->start)) {   /* what it was: its Start's and Stop's fields */
        in.start_fields = f->fields;
        in.stop_fields = pt_fields_text(pt_payload(ev));
        pt_top_add(&t->top, &in);
        free(in.stop_fields);
    }
}

static void counter_value(const pt_sample *x, void *data)
{
    report *rp = data;
    pt_series_set_add(&rp->counters, x, rp->t0, rp->now);
}

static void on_event(const pt_event *ev, void *data)
{
    report *rp = data;
    if (!rp->started) {
        rp->t0 = ev->ts;
        rp->started = 1;
        pt_series_init(&rp->events, rp->t0, SERIES_WIDTH0);
    }
    rp->now = ev->ts;
    pt_series_add(&rp->events, ev->ts, 1);
    pt_summary_event(&rp->sum, ev);
    pt_pairer_event(&rp->pairer, ev);
    pt_counter_values(ev, counter_value, rp);
    pt_stacks_event(rp->stacks, ev);
    if (rp->cpu)
        pt_cpu_event(rp->cpu, ev);
}

/* ---- the page ------------------------------------------------------------------------------- */

static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d232b;background:#f4f6f8}"
    "header{background:#1d3557;color:#fff;padding:18px 32px}header h1{margin:0;font-size:22px}"
    "header p{margin:4px 0 0;opacity:.85}main{padding:8px 32px 40px;max-width:1200px}"
    "h2{font-size:18px;margin:28px 0 10px;border-bottom:2px solid #1d3557;padding-bottom:4px}"
    "h3{font-size:15px;margin:18px 0 6px}"
    ".cards{display:flex;flex-wrap:wrap;gap:12px;margin-top:16px}.card{background:#fff;border-radius:6px;"
    "padding:10px 16px;box-shadow:0 1px 2px #0002;min-width:130px}.card b{display:block;font-size:20px}"
    ".card span{color:#5a6472;font-size:12px}.warn{background:#fff1f0;border-left:4px solid #d62828;padding:8px 12px}"
    ".ok{color:#2a7f3e}table{border-collapse:collapse;background:#fff;box-shadow:0 1px 2px #0002;margin:6px 0}"
    "th,td{padding:4px 10px;text-align:right;border-bottom:1px solid #e3e7ec;white-space:nowrap}"
    "th{background:#e9eef4;font-weight:600}td:first-child,th:first-child{text-align:left}"
    "tr.split td:first-child{padding-left:26px;color:#5a6472}"
    ".charts{display:flex;flex-wrap:wrap;gap:14px}.chart{background:#fff;box-shadow:0 1px 2px #0002;padding:6px 8px}"
    ".chart p{margin:0 0 2px;font-size:12px;color:#5a6472}"
    ".chart svg{display:block}svg .axis{stroke:#333;stroke-width:1}svg .grid{stroke:#ddd;stroke-width:.5}svg .tick{font-size:10px;fill:#555}"
    "svg .bucket{fill:#457b9d}svg .pause{fill:#e76f51}svg .series{fill:none;stroke:#2a9d8f;stroke-width:1.6}"
    "footer{color:#5a6472;font-size:12px;padding:0 32px 24px}"
    "ol.stack{margin:0;padding-left:22px;text-align:left;font:12px/1.35 monospace}"
    ".flamebox{overflow-x:auto;max-width:100%}svg.flame text{fill:#1d232b}svg.flame .key{fill:#5a6472}"
    "svg.flame g.f:hover rect{stroke:#1d232b;stroke-width:.8}td.fn{font-family:monospace;text-align:left}"
    "td.fields,th.fields{text-align:left;white-space:normal;font:12px/1.35 monospace;max-width:380px;"
    "overflow-wrap:anywhere}";

static void h(report *rp, const char *s)
{
    pt_html_text(rp->out, s);
}

static void header(report *rp)
{
    int64_t first = 0, last = 0;
    char a[64], d[32];
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<link rel=\"icon\" href=\"data:,\"><title>palev-trace report: ", rp->out);
    h(rp, rp->o->in.paths[0]);
    fprintf(rp->out, "</title>\n<style>%s</style></head><body>\n<header><h1>Trace report</h1><p>", css);
    h(rp, rp->o->in.paths[0]);
    if (pt_span(rp->r, &first, &last))
        fprintf(rp->out, " &middot; %s &middot; %s", pt_fmt_time(first, a, sizeof(a)),
                pt_fmt_ns((double)(last - first), d, sizeof(d)));
    fputs("</p></header>\n<main>\n", rp->out);
}

static void card(report *rp, const char *value, const char *label)
{
    fprintf(rp->out, "<div class=\"card\"><b>%s</b><span>%s</span></div>", value, label);
}

static void summary_cards(report *rp, uint64_t events, uint64_t lost)
{
    int64_t first = 0, last = 0;
    char buf[64];
    pt_span(rp->r, &first, &last);
    fputs("<h2 id=\"summary\">Summary</h2>\n<div class=\"cards\">", rp->out);
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)events);
    card(rp, buf, "events");
    card(rp, pt_fmt_ns((double)(last - first), buf, sizeof(buf)), "time span");
    snprintf(buf, sizeof(buf), "%.0f", pt_rate(events, first, last));
    card(rp, buf, "events per second");
    snprintf(buf, sizeof(buf), "%u", pt_trace_count(rp->r));
    card(rp, buf, "traces");
    snprintf(buf, sizeof(buf), "%u", rp->sum.procs.n);
    card(rp, buf, "processes");
    snprintf(buf, sizeof(buf), "%u", pt_task_count(rp->r));
    card(rp, buf, "activity tasks");
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)lost);
    card(rp, buf, "events lost");
    fputs("</div>\n", rp->out);
    if (lost)
        fprintf(rp->out, "<p class=\"warn\">%llu events were discarded: the tracer's buffers were full. Figures "
                "below are lower bounds. Record again with bigger sub-buffers or fewer events.</p>\n",
                (unsigned long long)lost);
}

static void process_table(report *rp)
{
    char a[32], b[32];
    fputs("<h3>Processes</h3>\n<table><tr><th>host</th><th>vpid</th><th>process</th><th>events</th>"
          "<th>first</th><th>last</th></tr>\n", rp->out);
    for (unsigned i = 0; i < rp->sum.procs.n && i < 200; i++) {
        const pt_proc *p = rp->sum.procs.list[i];
        fputs("<tr><td>", rp->out);
        h(rp, p->trace->hostname);
        fprintf(rp->out, "</td><td>%lld</td><td>", (long long)p->vpid);
        h(rp, pt_proc_name(p));
        fprintf(rp->out, "</td><td>%llu</td><td>%s</td><td>%s</td></tr>\n", (unsigned long long)p->events,
                pt_fmt_ns((double)(p->first - rp->t0), a, 32), pt_fmt_ns((double)(p->last - rp->t0), b, 32));
    }
    fputs("</table>\n", rp->out);
}

static void stats_row(report *rp, const char *cls, const char *name, const pt_hist *hs, double span,
                      int64_t ustart, int64_t ustop)
{
    char c[6][32];
    fprintf(rp->out, "<tr%s><td>", cls);
    h(rp, name);
    fprintf(rp->out, "</td><td>%llu</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
            "<td>%.1f%%</td>", (unsigned long long)hs->count, pt_fmt_ns(hs->sum, c[0], 32),
            pt_fmt_ns(hs->count ? hs->sum / (double)hs->count : 0, c[1], 32),
            pt_fmt_ns((double)pt_hist_percentile(hs, 50), c[2], 32), pt_fmt_ns((double)pt_hist_percentile(hs, 90), c[3], 32),
            pt_fmt_ns((double)pt_hist_percentile(hs, 99), c[4], 32), pt_fmt_ns((double)hs->max, c[5], 32),
            span > 0 ? 100.0 * hs->sum / span : 0.0);
    if (ustart >= 0)
        fprintf(rp->out, "<td>%lld / %lld</td></tr>\n", (long long)ustart, (long long)ustop);
    else
        fputs("<td></td></tr>\n", rp->out);
}

/* Tasks with the most instances first: the collections before the one-off Runtime and Thread. */
static int most_instances(const void *a, const void *b, void *arg)
{
    const report *rp = arg;
    uint64_t x = rp->tasks[*(const unsigned *)a].hist.count, y = rp->tasks[*(const unsigned *)b].hist.count;
    return (x < y) - (x > y);
}

static unsigned *task_order(report *rp)
{
    unsigned n = pt_task_count(rp->r), *order = pt_xcalloc(n, sizeof(*order));
    for (unsigned t = 0; t < n; t++) {
        task(rp, t);
        order[t] = t;
    }
    qsort_r(order, n, sizeof(*order), most_instances, rp);
    return order;
}

static void activity_table(report *rp, double span, const unsigned *order)
{
    fputs("<h2 id=\"activities\">Activities</h2>\n<p>Start/Stop pairs of each task, per thread, innermost "
          "first. Unmatched starts and stops are counted, never guessed.</p>\n<table><tr><th>task</th><th>count</th>"
          "<th>total</th><th>mean</th><th>p50</th><th>p90</th><th>p99</th><th>max</th><th>of wall time</th>"
          "<th>unmatched start / stop</th></tr>\n", rp->out);
    for (unsigned i = 0; i < pt_task_count(rp->r); i++) {
        unsigned t = order[i];
        task_stats *ts = task(rp, t);
        stats_row(rp, "", pt_task_name(rp->r, t), &ts->hist, span,
                  t < rp->pairer.ntasks ? (int64_t)rp->pairer.unmatched_start[t] : 0,
                  t < rp->pairer.ntasks ? (int64_t)rp->pairer.unmatched_stop[t] : 0);
        for (unsigned b = 0; ts->by && b < rp->pairer.nby; b++) {
            char name[300];
            if (!ts->by[b].count || strcmp(rp->pairer.by_values[b], "-") == 0)
                continue;
            snprintf(name, sizeof(name), "%s = %s", rp->o->by, rp->pairer.by_values[b]);
            stats_row(rp, " class=\"split\"", name, &ts->by[b], span, -1, -1);
        }
    }
    fputs("</table>\n", rp->out);
}

static void top_table(report *rp, unsigned t)
{
    pt_top *top = &task(rp, t)->top;
    char d[32], s[32];
    if (!top->n)
        return;
    if (!task(rp, t)->watch)     /* watch_longest() sorted it already, and numbered it so */
        pt_top_sort(top);
    fprintf(rp->out, "<table class=\"top\"><tr><th>the %u longest</th><th>started at</th><th>host</th><th>vpid</th>"
            "<th>vtid</th>", top->n);
    if (rp->o->by) {
        fputs("<th>", rp->out);
        h(rp, rp->o->by);
        fputs("</th>", rp->out);
    }
    if (task(rp, t)->watch)
        fputs("<th>CPU in it</th>", rp->out);
    fputs("<th class=\"fields\">its Start</th><th class=\"fields\">its Stop</th></tr>\n", rp->out);
    for (unsigned i = 0; i < top->n; i++) {
        const pt_inst *in = &top->heap[i];
        fprintf(rp->out, "<tr><td>%s</td><td>%s</td><td>", pt_fmt_ns((double)(in->end - in->start), d, 32),
                pt_fmt_ns((double)(in->start - rp->t0), s, 32));
        h(rp, in->trace->hostname);
        fprintf(rp->out, "</td><td>%lld</td><td>%lld</td>", (long long)in->vpid, (long long)in->vtid);
        if (rp->o->by) {
            fputs("<td>", rp->out);
            h(rp, in->by >= 0 ? rp->pairer.by_values[in->by] : "-");
            fputs("</td>", rp->out);
        }
        if (task(rp, t)->watch) {
            uint64_t n, w = pt_cpu_watched(rp->cpu, task(rp, t)->watch[i], &n);
            fprintf(rp->out, "<td>%s (%llu)</td>", weight_text(rp, PT_ON_CPU, w, s, sizeof(s)), (unsigned long long)n);
        }
        fputs("<td class=\"fields\">", rp->out);
        h(rp, in->start_fields ? in->start_fields : "");
        fputs("</td><td class=\"fields\">", rp->out);
        h(rp, in->stop_fields ? in->stop_fields : "");
        fputs("</td></tr>\n", rp->out);
    }
    fputs("</table>\n", rp->out);
}

static void task_sections(report *rp, int64_t t1, const unsigned *order)
{
    for (unsigned i = 0; i < pt_task_count(rp->r); i++) {
        unsigned t = order[i];
        task_stats *ts = task(rp, t);
        fputs("<h3 class=\"task\">", rp->out);
        h(rp, pt_task_name(rp->r, t));
        fprintf(rp->out, "</h3>\n");
        if (!ts->hist.count) {
            fputs("<p>No complete instance.</p>\n", rp->out);
            continue;
        }
        fputs("<div class=\"charts\"><div class=\"chart\"><p>How long: instances per duration (log scale)</p>\n", rp->out);
        pt_svg_histogram(rp->out, &ts->hist);
        fputs("</div><div class=\"chart\"><p>When: the longest instance started in each interval</p>\n", rp->out);
        pt_svg_timeline(rp->out, &ts->timeline, rp->t0, t1);
        fputs("</div></div>\n", rp->out);
        top_table(rp, t);
    }
}

static int by_count(const void *a, const void *b)
{
    uint64_t x = (*(pt_class *const *)a)->count, y = (*(pt_class *const *)b)->count;
    return (x < y) - (x > y);
}

static void event_section(report *rp, int64_t t1)
{
    unsigned n = pt_class_count(rp->r);
    pt_class **sorted = pt_xcalloc(n, sizeof(*sorted));
    for (unsigned i = 0; i < n; i++)
        sorted[i] = pt_class_at(rp->r, i);
    qsort(sorted, n, sizeof(*sorted), by_count);
    fputs("<h2 id=\"events\">Events</h2>\n<div class=\"chart\"><p>Events per second</p>\n", rp->out);
    pt_svg_line(rp->out, &rp->events, rp->t0, t1, 1, "/s");
    fputs("</div>\n<table><tr><th>event</th><th>count</th><th>per second</th></tr>\n", rp->out);
    for (unsigned i = 0; i < n; i++) {
        fputs("<tr><td>", rp->out);
        h(rp, sorted[i]->name);
        fprintf(rp->out, "</td><td>%llu</td><td>%.1f</td></tr>\n", (unsigned long long)sorted[i]->count,
                pt_rate(sorted[i]->count, rp->t0, t1));
    }
    fputs("</table>\n", rp->out);
    free(sorted);
}

static void eventsource_table(report *rp)
{
    if (!rp->sum.nes)
        return;
    fputs("<h3>EventSource events</h3>\n<table><tr><th>source</th><th>name</th><th>count</th></tr>\n", rp->out);
    for (unsigned i = 0; i < rp->sum.nes; i++) {
        fputs("<tr><td>", rp->out);
        h(rp, rp->sum.es_list[i]->source);
        fputs("</td><td>", rp->out);
        h(rp, rp->sum.es_list[i]->name);
        fprintf(rp->out, "</td><td>%llu</td></tr>\n", (unsigned long long)rp->sum.es_list[i]->count);
    }
    fputs("</table>\n", rp->out);
}

static void counter_section(report *rp, int64_t t1)
{
    if (!rp->counters.n)
        return;
    fputs("<h2 id=\"counters\">Counters</h2>\n<div class=\"charts\">\n", rp->out);
    for (unsigned i = 0; i < rp->counters.n; i++) {
        const pt_series *s = &rp->counters.list[i]->s;
        fputs("<div class=\"chart\"><p><b>", rp->out);
        h(rp, rp->counters.list[i]->name);
        if (s->n)
            fprintf(rp->out, "</b> &middot; min %.6g &middot; mean %.6g &middot; max %.6g &middot; last %.6g "
                    "&middot; %llu samples", s->vmin, pt_series_mean(s), s->vmax, s->vlast, (unsigned long long)s->n);
        else
            fputs("</b> &middot; no finite sample", rp->out);
        if (s->nonfinite)
            fprintf(rp->out, " &middot; <span class=\"nonfinite\">%llu not finite (NaN, infinite or beyond a "
                    "double's range): not drawn</span>", (unsigned long long)s->nonfinite);
        fputs("</p>\n", rp->out);
        pt_svg_line(rp->out, s, rp->t0, t1, 0, "");
        fputs("</div>\n", rp->out);
    }
    fputs("</div>\n", rp->out);
    if (rp->counters.dropped)
        fprintf(rp->out, "<p>(%llu samples of series beyond the first %d not drawn)</p>\n",
                (unsigned long long)rp->counters.dropped, MAX_SERIES);
}

/* ---- where the CPU went ----------------------------------------------------------------------- */

static const char *weight_text(const report *rp, int measure, uint64_t w, char *buf, size_t size)
{
    if (measure == PT_ON_CPU && !pt_cpu_stats_of(rp->cpu)->period_ns)
        snprintf(buf, size, "%llu samples", (unsigned long long)w);
    else
        pt_fmt_ns((double)w, buf, size);
    return buf;
}

static double share(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void function_table(report *rp, int measure)
{
    const pt_profile *p = pt_cpu_profile(rp->cpu, measure);
    uint64_t all = p->nodes[0].total;
    size_t n;
    pt_func *f = pt_cpu_functions(rp->cpu, p, 0, &n);
    char a[32], b[32];
    fputs("<h3>Functions</h3>\n<table class=\"functions\"><tr><th>function</th><th>self</th><th>self %</th>"
          "<th>total</th><th>total %</th></tr>\n", rp->out);
    for (size_t i = 0; i < n && i < TOP_FUNCTIONS; i++) {
        fputs("<tr><td class=\"fn\">", rp->out);
        h(rp, pt_cpu_name(rp->cpu, f[i].name));
        fprintf(rp->out, "</td><td>%s</td><td>%.1f%%</td><td>%s</td><td>%.1f%%</td></tr>\n",
                weight_text(rp, measure, f[i].self, a, sizeof(a)), share(f[i].self, all),
                weight_text(rp, measure, f[i].total, b, sizeof(b)), share(f[i].total, all));
    }
    fputs("</table>\n", rp->out);
    free(f);
}

/* The functions with the most self weight during a task's activities, "name 61%, ...". */
static void during_functions(report *rp, const pt_profile *p)
{
    size_t n;
    pt_func *f = pt_cpu_functions(rp->cpu, p, 0, &n);
    for (size_t i = 0; i < n && i < TOP_DURING && f[i].self; i++) {
        fputs(i ? ", " : "", rp->out);
        h(rp, pt_cpu_name(rp->cpu, f[i].name));
        fprintf(rp->out, " %.0f%%", share(f[i].self, p->nodes[0].total));
    }
    free(f);
}

static void task_table(report *rp, int measure, const unsigned *order)
{
    char a[32], b[32];
    int any = 0;
    for (unsigned i = 0; i < pt_task_count(rp->r); i++) {
        const pt_cpu_task *t = pt_cpu_task_at(rp->cpu, order[i]);
        if (!t)
            continue;
        if (!any++)
            fprintf(rp->out, "<h3>During each task's activities</h3>\n<p>A sample counts as during a task when "
                    "one of the task's activities was open in its process, on any thread.</p>\n<table class=\"tasks\">"
                    "<tr><th>task</th><th>%s during</th><th>share</th><th>outside</th><th>share</th>"
                    "<th style=\"text-align:left\">where it went during them (self)</th></tr>\n",
                    measure == PT_ON_CPU ? "CPU" : "blocked");
        uint64_t during = t->during[measure].nodes[0].total, outside = t->outside[measure];
        fputs("<tr><td>", rp->out);
        h(rp, pt_task_name(rp->r, order[i]));
        fprintf(rp->out, "</td><td>%s</td><td>%.1f%%</td><td>%s</td><td>%.1f%%</td><td class=\"fn\">",
                weight_text(rp, measure, during, a, sizeof(a)), share(during, during + outside),
                weight_text(rp, measure, outside, b, sizeof(b)), share(outside, during + outside));
        during_functions(rp, &t->during[measure]);
        fputs("</td></tr>\n", rp->out);
    }
    if (any)
        fputs("</table>\n", rp->out);
}

static void cpu_section(report *rp, int measure, const unsigned *order)
{
    const pt_cpu_stats *st = pt_cpu_stats_of(rp->cpu);
    const pt_profile *p = pt_cpu_profile(rp->cpu, measure);
    char a[32], b[32];
    if (!p->nodes[0].total)
        return;
    if (measure == PT_ON_CPU) {
        fprintf(rp->out, "<h2 id=\"cpu\">Where the CPU went</h2>\n<p>%llu CPU samples of %u process%s, %u thread%s: "
                "%s of CPU", (unsigned long long)st->samples[PT_ON_CPU], st->processes, st->processes == 1 ? "" : "es",
                st->threads, st->threads == 1 ? "" : "s", weight_text(rp, measure, p->nodes[0].total, a, sizeof(a)));
        if (st->period_ns)
            fprintf(rp->out, " (one sample every %s of CPU)", pt_fmt_ns((double)st->period, b, sizeof(b)));
        fputs(", recorded by perf beside the trace. Each frame is as wide as its samples, its callees above it; "
              "hover a frame for its name and share. <code>palev-trace cpu</code> prints the same figures.</p>\n", rp->out);
    } else {
        fprintf(rp->out, "<h2 id=\"offcpu\">Where threads waited</h2>\n<p>%s blocked in %llu blocks "
                "(sched:sched_switch: a thread leaving its CPU asleep, until perf next saw it), the stack where "
                "each blocked; besides, threads waited %s runnable for a CPU. "
                "<code>palev-trace cpu --off-cpu</code> prints the same figures.</p>\n",
                pt_fmt_ns((double)p->nodes[0].total, a, sizeof(a)), (unsigned long long)st->kept[PT_OFF_CPU],
                pt_fmt_ns((double)st->runnable, b, sizeof(b)));
    }
    fputs("<div class=\"chart flamebox\">\n", rp->out);
    pt_svg_flame(rp->out, rp->cpu, p, measure);
    fputs("</div>\n", rp->out);
    function_table(rp, measure);
    task_table(rp, measure, order);
}

/* "Where they come from": per event recorded with stacks, its most frequent call paths. */
static void stacks_section(report *rp)
{
    const pt_stacks *s = rp->stacks;
    if (!pt_stacks_count(s))
        return;
    fputs("<h2>Where they come from</h2>\n<p>The most frequent call paths of each event recorded "
          "with its stack (Paleventing:Stack), innermost frame first.</p>\n", rp->out);
    for (size_t i = 0; i < pt_stacks_count(s);) {
        size_t n = pt_stacks_run(s, i);
        uint64_t total = 0;
        for (size_t j = i; j < i + n; j++)
            total += pt_stacks_at(s, j)->count;
        fputs("<h3 class=\"task\">", rp->out);
        h(rp, pt_stacks_at(s, i)->event);
        fputs("</h3>\n<table class=\"top\"><tr><th>stacks</th><th style=\"text-align:left\">call path</th></tr>\n",
              rp->out);
        for (size_t j = i; j < i + n && j - i < TOP_STACKS; j++) {
            const pt_stack *st = pt_stacks_at(s, j);
            fprintf(rp->out, "<tr><td>%llu (%.1f%%)</td><td><ol class=\"stack\">", (unsigned long long)st->count,
                    100.0 * (double)st->count / (double)total);
            for (unsigned f = 0; f < st->nframes; f++) {
                fputs("<li>", rp->out);
                h(rp, st->frames[f]);
                fputs("</li>", rp->out);
            }
            fputs("</ol></td></tr>\n", rp->out);
        }
        fputs("</table>\n", rp->out);
        i += n;
    }
}

static void write_page(report *rp)
{
    int64_t first = 0, last = 0;
    uint64_t events = 0, lost = 0;
    pt_span(rp->r, &first, &last);
    for (unsigned i = 0; i < pt_trace_count(rp->r); i++) {
        events += pt_trace_at(rp->r, i)->events;
        lost += pt_trace_at(rp->r, i)->discarded_events;
    }
    header(rp);
    summary_cards(rp, events, lost);
    process_table(rp);
    unsigned *order = task_order(rp);
    activity_table(rp, (double)(last - first), order);
    task_sections(rp, last, order);
    if (rp->cpu) {
        cpu_section(rp, PT_ON_CPU, order);
        cpu_section(rp, PT_OFF_CPU, order);
    }
    free(order);
    stacks_section(rp);
    event_section(rp, last);
    eventsource_table(rp);
    counter_section(rp, last);
    fputs("</main>\n<footer>Made by palev-trace from ", rp->out);
    h(rp, rp->o->in.paths[0]);
    fputs(".</footer>\n</body></html>\n", rp->out);
}

static void report_free(report *rp)
{
    for (unsigned i = 0; i < rp->ntasks; i++) {
        pt_hist_free(&rp->tasks[i].hist);
        pt_top_free(&rp->tasks[i].top);
        free(rp->tasks[i].watch);
        for (unsigned b = 0; rp->tasks[i].by && b < PT_BY_MAX; b++)
            pt_hist_free(&rp->tasks[i].by[b]);
        free(rp->tasks[i].by);
    }
    free(rp->tasks);
    pt_series_set_free(&rp->counters);
    pt_summary_free(&rp->sum);
    pt_pairer_free(&rp->pairer);
    pt_stacks_free(rp->stacks);
    pt_cpu_free(rp->cpu);
}

/* The CPU of each longest instance is counted as the samples are read. */
static void watch_longest(report *rp)
{
    for (unsigned t = 0; t < rp->ntasks; t++) {
        task_stats *ts = &rp->tasks[t];
        pt_top_sort(&ts->top);
        ts->watch = pt_xcalloc(ts->top.n, sizeof(*ts->watch));
        for (unsigned i = 0; i < ts->top.n; i++)
            ts->watch[i] = pt_cpu_watch(rp->cpu, ts->top.heap[i].vpid, ts->top.heap[i].start, ts->top.heap[i].end);
    }
}

static int report_to(const pt_input *in)
{
    const report_opts *o = (const report_opts *)in;
    report rp = { .o = o, .stacks = pt_stacks_new(NULL), .counters = { .max = MAX_SERIES, .width = SERIES_WIDTH0 } };
    pt_pair_ops ops = { .stop = on_stop, .data = &rp };
    pt_sink sink = { .event = on_event, .data = &rp };
    pt_output out;
    pt_cpu_opts co = { .per_task = 1 };
    pt_pairer_init(&rp.pairer, o->by, &ops);
    rp.pairer.keep_fields = 1;
    int rc = pt_open(&o->in, &rp.r);
    if (!rc && pt_sample_trace_count(rp.r))
        rp.cpu = pt_cpu_new(&co);
    if (!rc)
        rc = pt_run(rp.r, &sink);
    if (pt_ran(rp.r)) {
        pt_pairer_finish(&rp.pairer);
        pt_stacks_finish(rp.stacks);
        if (rp.cpu)
            watch_longest(&rp);
        if (rp.cpu && pt_cpu_read(rp.cpu, rp.r))
            rc = PT_EXIT_DATA;
        if (pt_output_open(&out, o->output)) {
            rc = PT_EXIT_DATA;
        } else {
            rp.out = out.f;
            write_page(&rp);
            if (pt_output_commit(&out))
                rc = PT_EXIT_DATA;
        }
        rc = pt_verdict(rp.r, rc);
    }
    report_free(&rp);
    pt_close(rp.r);
    return rc;
}

static const pt_option options[] = {
    { .name = "output", .letter = 'o', .type = PT_OPT_STRING, .at = offsetof(report_opts, output), .arg = "FILE",
      .help = "where to write the page", .required = 1 },
    { .name = "by", .type = PT_OPT_STRING, .at = offsetof(report_opts, by), .arg = "FIELD",
      .help = "split each task by this field of its Start (else Stop) event" },
    { .name = "top", .type = PT_OPT_COUNT, .at = offsetof(report_opts, top), .arg = "N",
      .help = "the N longest instances of each task (default 10, 0: none)" },
    PT_OPTIONS_END,
};

static const report_opts defaults = { .top = 10 };

const pt_command pt_cmd_report = {
    .name = "report", .synopsis = "-o FILE.html [--by FIELD] [--top N] [options] TRACE...",
    .help = "one self-contained HTML page of charts and tables",
    .min_inputs = 1, .options = options, .size = sizeof(report_opts), .defaults = &defaults, .run = report_to,
};
