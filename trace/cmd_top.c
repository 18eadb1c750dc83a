/* SPDX-License-Identifier: MIT */
/* palev-trace top: a live view of an lttng-relayd session, refreshed every second: events per
 * second per event, activities of the last second, latest counter values. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "command.h"
#include "counters.h"
#include "stats.h"

#define ROWS 20

typedef struct last_value {
    char *name;
    double value;
} last_value;

typedef struct top {
    pt_reader *r;
    pt_pairer pairer;
    uint64_t *per_class;        /* events of the last second, by class index */
    unsigned nclass;
    pt_hist *acts;              /* activities ended in the last second, by task */
    unsigned ntasks;
    pt_map counter_by_name;
    last_value **counters;
    unsigned ncounters;
    uint64_t seconds, total;
    int tty;
} top;

static void on_stop(pt_thread *th, unsigned pos, const pt_event *ev, void *data)
{
    top *t = data;
    unsigned task = th->stack[pos].task;
    if (task >= t->ntasks) {
        t->acts = pt_xrealloc(t->acts, (task + 1) * sizeof(*t->acts));
        memset(&t->acts[t->ntasks], 0, (task + 1 - t->ntasks) * sizeof(*t->acts));
        t->ntasks = task + 1;
    }
    pt_hist_add(&t->acts[task], (uint64_t)(ev->ts - th->stack[pos].start));
}

static void on_value(const pt_sample *x, void *data)
{
    top *t = data;
    last_value *c = pt_map_get_str(&t->counter_by_name, x->series);
    if (!x->finite)
        return;
    if (!c) {
        if (t->ncounters == 1000)
            return;
        c = pt_xcalloc(1, sizeof(*c));
        c->name = pt_xstrdup(x->series);
        pt_map_put_str(&t->counter_by_name, x->series, c);
        PT_APPEND(t->counters, t->ncounters, c);
    }
    c->value = x->value;
}

static void on_event(const pt_event *ev, void *data)
{
    top *t = data;
    if (ev->cls->index >= t->nclass) {
        unsigned n = ev->cls->index + 16;
        t->per_class = pt_xrealloc(t->per_class, n * sizeof(*t->per_class));
        memset(&t->per_class[t->nclass], 0, (n - t->nclass) * sizeof(*t->per_class));
        t->nclass = n;
    }
    t->per_class[ev->cls->index]++;
    t->total++;
    pt_pairer_event(&t->pairer, ev);
    pt_counter_values(ev, on_value, t);
}

static int busiest(const void *a, const void *b, void *arg)
{
    const uint64_t *n = arg;
    uint64_t x = n[(*(const pt_class *const *)a)->index], y = n[(*(const pt_class *const *)b)->index];
    return (x < y) - (x > y);
}

static void print_events(top *t)
{
    unsigned n = pt_class_count(t->r), shown = 0;
    pt_class **c = pt_xcalloc(n, sizeof(*c));
    for (unsigned i = 0; i < n; i++)
        c[i] = pt_class_at(t->r, i);
    qsort_r(c, n, sizeof(*c), busiest, t->per_class);
    printf("%-48s %10s %12s\n", "event", "per second", "total");
    for (unsigned i = 0; i < n && shown < ROWS; i++) {
        uint64_t k = c[i]->index < t->nclass ? t->per_class[c[i]->index] : 0;
        if (!k)
            continue;
        pt_text x = { 0 };
        printf("%-48s %10llu %12llu\n", pt_term(&x, c[i]->name), (unsigned long long)k, (unsigned long long)c[i]->count);
        pt_text_free(&x);
        shown++;
    }
    if (!shown)
        puts("(no event in the last second)");
    free(c);
}

static void print_activities(top *t)
{
    int any = 0;
    for (unsigned i = 0; i < t->ntasks; i++) {
        char mean[32], max[32];
        const pt_hist *h = &t->acts[i];
        if (!h->count)
            continue;
        if (!any++)
            printf("\n%-48s %10s %12s %12s\n", "activities ended in the last second", "count", "mean", "max");
        pt_text x = { 0 };
        printf("%-48s %10llu %12s %12s\n", pt_term(&x, pt_task_name(t->r, i)), (unsigned long long)h->count,
               pt_fmt_ns(h->sum / (double)h->count, mean, sizeof(mean)), pt_fmt_ns((double)h->max, max, sizeof(max)));
        pt_text_free(&x);
    }
}

static void print_counters(top *t)
{
    for (unsigned i = 0; i < t->ncounters && i < ROWS; i++) {
        if (i == 0)
            printf("\n%-61s %12s\n", "counters", "latest");
        pt_text x = { 0 };
        printf("%-61s %12.6g\n", pt_term(&x, t->counters[i]->name), t->counters[i]->value);
        pt_text_free(&x);
    }
}

static void on_tick(void *data)
{
    top *t = data;
    time_t now = time(NULL);
    struct tm tm;
    char when[16];
    t->seconds++;
    localtime_r(&now, &tm);
    strftime(when, sizeof(when), "%H:%M:%S", &tm);
    fputs(t->tty ? "\033[H\033[2J" : "\n", stdout);
    printf("palev-trace top  %s  second %llu  %llu events\n\n", when, (unsigned long long)t->seconds,
           (unsigned long long)t->total);
    print_events(t);
    print_activities(t);
    print_counters(t);
    fflush(stdout);
    if (t->nclass)
        memset(t->per_class, 0, t->nclass * sizeof(*t->per_class));
    for (unsigned i = 0; i < t->ntasks; i++)
        pt_hist_free(&t->acts[i]);
}

static void top_free(top *t)
{
    for (unsigned i = 0; i < t->ntasks; i++)
        pt_hist_free(&t->acts[i]);
    for (unsigned i = 0; i < t->ncounters; i++) {
        free(t->counters[i]->name);
        free(t->counters[i]);
    }
    free(t->acts);
    free(t->counters);
    free(t->per_class);
    pt_map_free(&t->counter_by_name);
    pt_pairer_free(&t->pairer);
}

static int watch(const pt_input *in)
{
    top t = { .tty = isatty(STDOUT_FILENO) };
    pt_pair_ops ops = { .stop = on_stop, .data = &t };
    pt_sink sink = { .event = on_event, .tick = on_tick, .data = &t };
    pt_pairer_init(&t.pairer, NULL, &ops);
    int rc = pt_read_all(in, &sink, &t.r);
    if (pt_ran(t.r))
        on_tick(&t);    /* what the last second brought */
    top_free(&t);
    pt_close(t.r);
    return rc;
}

/* --seconds is the input's own limit: top's options are the inputs'. */
static const pt_option options[] = {
    { .name = "seconds", .type = PT_OPT_COUNT, .at = offsetof(pt_input, live_seconds), .arg = "N",
      .help = "stop after N seconds (default: when the session ends)" },
    PT_OPTIONS_END,
};

const pt_command pt_cmd_top = {
    .name = "top", .synopsis = "[--seconds N] [options] net://RELAYD[:PORT]/host/HOSTNAME/SESSION",
    .help = "a live view through lttng-relayd, refreshed every second",
    .min_inputs = 1, .max_inputs = 1, .options = options, .run = watch,
};
