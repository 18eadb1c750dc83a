/* SPDX-License-Identifier: MIT */
/* palev-trace activities: Start/Stop pairs per thread -> durations per task (and --by value). */
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "stats.h"

typedef struct acts_opts {
    pt_input in;
    const char *by;
    unsigned top;
    unsigned tsv;               /* --format text|tsv: the choice's index, 1 for tsv */
} acts_opts;

typedef struct group {
    unsigned task;
    int by;
    pt_hist hist;
} group;

typedef struct acts {
    const acts_opts *o;
    pt_pairer pairer;
    pt_map groups;              /* (task, by) -> group */
    group **list;
    unsigned ngroups;
    pt_top *top;                /* per task */
    unsigned ntop;
    int tsv;
} acts;

static group *group_of(acts *a, unsigned task, int by)
{
    uint64_t key = ((uint64_t)task << 32) | (uint32_t)(by + 1);
    group *g = pt_map_get(&a->groups, key);
    if (g)
        return g;
    g = pt_xcalloc(1, sizeof(*g));
    g->task = task;
    g->by = by;
    pt_map_put(&a->groups, key, g);
    PT_APPEND(a->list, a->ngroups, g);
    return g;
}

static pt_top *top_of(acts *a, unsigned task)
{
    if (task >= a->ntop) {
        a->top = pt_xrealloc(a->top, (task + 1) * sizeof(*a->top));
        for (unsigned i = a->ntop; i <= task; i++)
            pt_top_init(&a->top[i], a->o->top);
        a->ntop = task + 1;
    }
    return &a->top[task];
}

static void on_stop(pt_thread *th, unsigned pos, const pt_event *ev, void *data)
{
    acts *a = data;
    const pt_frame *o = &th->stack[pos];
    uint64_t d = (uint64_t)(ev->ts - o->start);
    pt_hist_add(&group_of(a, o->task, -1)->hist, d);
    if (o->by >= 0)
        pt_hist_add(&group_of(a, o->task, o->by)->hist, d);
    pt_inst in = { .start = o->start, .end = ev->ts, .vpid = th->vpid, .vtid = th->vtid,
                   .task = o->task, .by = o->by, .trace = th->trace };
    pt_top_add(top_of(a, o->task), &in);
}

static void on_event(const pt_event *ev, void *data)
{
    pt_pairer_event(&((acts *)data)->pairer, ev);
}

static int group_order(const void *x, const void *y)
{
    const group *a = *(group *const *)x, *b = *(group *const *)y;
    if (a->task != b->task)
        return a->task < b->task ? -1 : 1;
    return (a->by > b->by) - (a->by < b->by);
}

static void print_group(const acts *a, pt_reader *r, const group *g, double span)
{
    char c[6][32], name[300];
    const pt_hist *h = &g->hist;
    pt_text t = { 0 };
    if (g->by < 0)
        snprintf(name, sizeof(name), "%s", pt_term(&t, pt_task_name(r, g->task)));
    else
        snprintf(name, sizeof(name), "  %s=%s", pt_term(&t, a->o->by), pt_term(&t, a->pairer.by_values[g->by]));
    pt_text_free(&t);
    if (a->tsv) {
        printf("%s\t%llu\t%.0f\t%.0f\t%llu\t%llu\t%llu\t%llu\t%llu\t%.4f", name, (unsigned long long)h->count,
               h->sum, h->count ? h->sum / (double)h->count : 0.0, (unsigned long long)h->min,
               (unsigned long long)pt_hist_percentile(h, 50), (unsigned long long)pt_hist_percentile(h, 90),
               (unsigned long long)pt_hist_percentile(h, 99), (unsigned long long)h->max,
               span > 0 ? 100.0 * h->sum / span : 0.0);
    } else {
        printf("%-30s %8llu %12s %11s %11s %11s %11s %11s %6.1f%%", name, (unsigned long long)h->count,
               pt_fmt_ns(h->sum, c[0], 32), pt_fmt_ns(h->count ? h->sum / (double)h->count : 0, c[1], 32),
               pt_fmt_ns((double)pt_hist_percentile(h, 50), c[2], 32),
               pt_fmt_ns((double)pt_hist_percentile(h, 90), c[3], 32),
               pt_fmt_ns((double)pt_hist_percentile(h, 99), c[4], 32), pt_fmt_ns((double)h->max, c[5], 32),
               span > 0 ? 100.0 * h->sum / span : 0.0);
    }
}

static void print_unmatched(const acts *a, int task)
{
    if (task < 0) {
        puts(a->tsv ? "\t\t" : "");
        return;
    }
    uint64_t s = (unsigned)task < a->pairer.ntasks ? a->pairer.unmatched_start[task] : 0;
    uint64_t e = (unsigned)task < a->pairer.ntasks ? a->pairer.unmatched_stop[task] : 0;
    printf(a->tsv ? "\t%llu\t%llu\n" : "  %llu/%llu\n", (unsigned long long)s, (unsigned long long)e);
}

static void print_top(const acts *a, pt_reader *r, unsigned task, int64_t t0)
{
    pt_top *t = task < a->ntop ? &a->top[task] : NULL;
    if (!t || !t->n || a->tsv)
        return;
    pt_text x = { 0 };
    pt_top_sort(t);
    printf("\n  the %u longest %s\n  %12s %14s %-12s %8s %8s%s%s\n", t->n, pt_term(&x, pt_task_name(r, task)),
           "duration", "start", "host", "vpid", "vtid", a->o->by ? "  " : "", a->o->by ? pt_term(&x, a->o->by) : "");
    for (unsigned i = 0; i < t->n; i++) {
        const pt_inst *in = &t->heap[i];
        char d[32], s[32];
        printf("  %12s %14s %-12s %8lld %8lld%s%s\n", pt_fmt_ns((double)(in->end - in->start), d, 32),
               pt_fmt_ns((double)(in->start - t0), s, 32), pt_term(&x, in->trace->hostname), (long long)in->vpid,
               (long long)in->vtid, in->by >= 0 ? "  " : "", in->by >= 0 ? pt_term(&x, a->pairer.by_values[in->by]) : "");
    }
    pt_text_free(&x);
}

/* A --by group of the Starts without the field: the task's own row says it all. */
static int is_unsplit(const acts *a, const group *g)
{
    return g->by >= 0 && strcmp(a->pairer.by_values[g->by], "-") == 0;
}

static uint64_t instances(const acts *a, unsigned task)
{
    for (unsigned i = 0; i < a->ngroups; i++)
        if (a->list[i]->task == task && a->list[i]->by < 0)
            return a->list[i]->hist.count;
    return 0;
}

/* Tasks with the most instances first (the collections before the one-off Runtime). */
static int most_instances(const void *x, const void *y, void *arg)
{
    uint64_t a = instances(arg, *(const unsigned *)x), b = instances(arg, *(const unsigned *)y);
    return (a < b) - (a > b);
}

static int print_all(pt_reader *r, void *data)
{
    acts *a = data;
    int64_t t0 = 0, t1 = 0;
    pt_pairer_finish(&a->pairer);
    pt_span(r, &t0, &t1);
    double span = (double)(t1 - t0);
    if (a->ngroups)
        qsort(a->list, a->ngroups, sizeof(*a->list), group_order);
    if (a->tsv)
        puts("task\tcount\ttotal_ns\tmean_ns\tmin_ns\tp50_ns\tp90_ns\tp99_ns\tmax_ns\twall_pct\tunmatched_start\tunmatched_stop");
    else
        printf("%-30s %8s %12s %11s %11s %11s %11s %11s %7s  %s\n", "task", "count", "total", "mean",
               "p50", "p90", "p99", "max", "wall", "unmatched start/stop");
    unsigned n = pt_task_count(r), *order = pt_xcalloc(n, sizeof(*order));
    for (unsigned t = 0; t < n; t++)
        order[t] = t;
    qsort_r(order, n, sizeof(*order), most_instances, a);
    for (unsigned k = 0; k < n; k++) {
        unsigned t = order[k];
        int any = 0;
        for (unsigned i = 0; i < a->ngroups; i++)
            if (a->list[i]->task == t && !is_unsplit(a, a->list[i])) {
                print_group(a, r, a->list[i], span);
                print_unmatched(a, a->list[i]->by < 0 ? (int)t : -1);
                any = 1;
            }
        if (!any) {
            group empty = { .task = t, .by = -1 };
            print_group(a, r, &empty, span);
            print_unmatched(a, (int)t);
        }
    }
    if (!pt_task_count(r))
        puts("(no activity: no event is a win:Start or win:Stop of a task, nor named *Start/*Stop/*End)");
    else if (!a->tsv)
        puts("(wall: total time / trace span; threads run at once, so the sum may pass 100%)");
    for (unsigned k = 0; k < n; k++)
        print_top(a, r, order[k], t0);
    free(order);
    return 0;
}

static void acts_free(acts *a)
{
    for (unsigned i = 0; i < a->ngroups; i++) {
        pt_hist_free(&a->list[i]->hist);
        free(a->list[i]);
    }
    for (unsigned i = 0; i < a->ntop; i++)
        pt_top_free(&a->top[i]);
    free(a->list);
    free(a->top);
    pt_map_free(&a->groups);
    pt_pairer_free(&a->pairer);
}

static int activities(const pt_input *in)
{
    const acts_opts *o = (const acts_opts *)in;
    acts a = { .o = o, .tsv = (int)o->tsv };
    pt_pair_ops ops = { .stop = on_stop, .data = &a };
    pt_sink sink = { .event = on_event, .data = &a };
    pt_pairer_init(&a.pairer, o->by, &ops);
    int rc = pt_read_print(in, &sink, print_all);
    acts_free(&a);
    return rc;
}

static const pt_option options[] = {
    { .name = "by", .type = PT_OPT_STRING, .at = offsetof(acts_opts, by), .arg = "FIELD",
      .help = "split each task by this field of its Start (else Stop) event" },
    { .name = "top", .type = PT_OPT_COUNT, .at = offsetof(acts_opts, top), .arg = "N",
      .help = "the N longest instances of each task (default 10, 0: none)" },
    { .name = "format", .type = PT_OPT_CHOICE, .at = offsetof(acts_opts, tsv), .choices = "text|tsv",
      .arg = "text|tsv", .help = "tsv: integer nanoseconds, for scripts" },
    PT_OPTIONS_END,
};

static const acts_opts defaults = { .top = 10 };

const pt_command pt_cmd_activities = {
    .name = "activities", .synopsis = "[--by FIELD] [--top N] [--format text|tsv] [options] TRACE...",
    .help = "Start/Stop durations per task: count, total, percentiles, the longest",
    .min_inputs = 1, .options = options, .size = sizeof(acts_opts), .defaults = &defaults, .run = activities,
};
