/* SPDX-License-Identifier: MIT */
/* palev-trace counters: the numbers of counter events (counters.h says which) as series:
 * samples, min, mean, max, last, and the change per second from the first sample to the last. */
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "counters.h"
#include "stats.h"

#define MAX_SERIES 10000

typedef struct counters_opts {
    pt_input in;
    unsigned tsv;               /* --format text|tsv: the choice's index, 1 for tsv */
} counters_opts;

typedef struct counters {
    pt_series_set set;
    int64_t now;
    int tsv;
} counters;

static void on_value(const pt_sample *x, void *data)
{
    counters *c = data;
    pt_series_set_add(&c->set, x, c->now, c->now);    /* a series' bins from its first sample */
}

static void on_event(const pt_event *ev, void *data)
{
    counters *c = data;
    c->now = ev->ts;
    pt_counter_values(ev, on_value, c);
}

static int by_name(const void *a, const void *b)
{
    return strcmp((*(pt_named_series *const *)a)->name, (*(pt_named_series *const *)b)->name);
}

/* The text table's first column: as wide as the longest series name, 52 at least. */
static int name_width(const char *const *names, unsigned n)
{
    size_t w = 52;
    for (unsigned i = 0; i < n; i++) {
        size_t len = strlen(names[i]);
        w = len > w ? len : w;
    }
    return w < 1024 ? (int)w : 1024;
}

static void print_row(const counters *c, const char *name, const pt_series *s, int w)
{
    double span = (double)(s->last_ts - s->first_ts) / 1e9;
    double rate = span > 0 ? (s->vlast - s->vfirst) / span : 0;
    if (c->tsv && s->n)
        printf("%s\t%llu\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%llu\n", name, (unsigned long long)s->n, s->vmin,
               pt_series_mean(s), s->vmax, s->vlast, rate, (unsigned long long)s->nonfinite);
    else if (c->tsv)
        printf("%s\t0\t\t\t\t\t\t%llu\n", name, (unsigned long long)s->nonfinite);
    else if (s->n)
        printf("%-*s %8llu %12.6g %12.6g %12.6g %12.6g %12.6g\n", w, name, (unsigned long long)s->n, s->vmin,
               pt_series_mean(s), s->vmax, s->vlast, rate);
    else
        printf("%-*s %8d %12s %12s %12s %12s %12s\n", w, name, 0, "-", "-", "-", "-", "-");
}

/* Samples that are no number a series can hold: said per series, never dropped silently. */
static void print_nonfinite(const counters *c, const char *const *names)
{
    for (unsigned i = 0; i < c->set.n && !c->tsv; i++)
        if (c->set.list[i]->s.nonfinite)
            printf("(%s: %llu samples not finite (NaN, infinite, or beyond a double's range) left out of "
                   "min, mean, max and last)\n", names[i], (unsigned long long)c->set.list[i]->s.nonfinite);
}

static int print_all(pt_reader *r, void *data)
{
    counters *c = data;
    const pt_series_set *set = &c->set;
    pt_text t = { 0 };
    (void)r;
    const char **names = pt_xcalloc(set->n, sizeof(*names));
    if (set->n)
        qsort(set->list, set->n, sizeof(*set->list), by_name);
    for (unsigned i = 0; i < set->n; i++)
        names[i] = pt_term(&t, set->list[i]->name);
    int w = name_width(names, set->n);
    if (c->tsv)
        puts("series\tsamples\tmin\tmean\tmax\tlast\trate_per_s\tnonfinite");
    else
        printf("%-*s %8s %12s %12s %12s %12s %12s\n", w, "series", "samples", "min", "mean", "max", "last", "change/s");
    for (unsigned i = 0; i < set->n; i++)
        print_row(c, names[i], &set->list[i]->s, w);
    if (!set->n && !c->tsv)
        puts("(no counter: no EventSource payload with numbers, no event whose fields are all numbers)");
    print_nonfinite(c, names);
    if (set->dropped)
        printf("(%llu samples of series beyond the first %d not kept)\n", (unsigned long long)set->dropped, MAX_SERIES);
    free(names);
    pt_text_free(&t);
    return 0;
}

static int count(const pt_input *in)
{
    counters c = { .set = { .max = MAX_SERIES, .width = 1000 }, .tsv = (int)((const counters_opts *)in)->tsv };
    pt_sink sink = { .event = on_event, .data = &c };
    int rc = pt_read_print(in, &sink, print_all);
    pt_series_set_free(&c.set);
    return rc;
}

static const pt_option options[] = {
    { .name = "format", .type = PT_OPT_CHOICE, .at = offsetof(counters_opts, tsv), .choices = "text|tsv",
      .arg = "text|tsv", .help = "tsv: full precision, for scripts" },
    PT_OPTIONS_END,
};

const pt_command pt_cmd_counters = {
    .name = "counters", .synopsis = "[--format text|tsv] [options] TRACE...",
    .help = "counter series: min, mean, max, last, change per second",
    .min_inputs = 1, .options = options, .size = sizeof(counters_opts), .run = count,
};
