/* SPDX-License-Identifier: MIT */
/* palev-trace counters: the numbers of counter events (counters.h says which) as series:
 * samples, min, mean, max, last, and the change per second from the first sample to the last. */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "counters.h"
#include "stats.h"

#define MAX_SERIES 10000

typedef struct series {
    char *name;
    pt_series s;
} series;

typedef struct counters {
    pt_map by_name;
    series **list;
    unsigned n;
    uint64_t dropped;
    int64_t now;
    int tsv;
} counters;

static void on_value(const char *name, const char *event, const char *field, double v, void *data)
{
    counters *c = data;
    uint64_t h = pt_hash_str(name);
    series *s = pt_map_get(&c->by_name, h);
    (void)event;
    (void)field;
    if (!s) {
        if (c->n == MAX_SERIES) {
            c->dropped++;
            return;
        }
        s = pt_xcalloc(1, sizeof(*s));
        s->name = pt_xstrdup(name);
        pt_series_init(&s->s, c->now, 1000);
        pt_map_put(&c->by_name, h, s);
        c->list = pt_xrealloc(c->list, (c->n + 1) * sizeof(*c->list));
        c->list[c->n++] = s;
    }
    pt_series_add(&s->s, c->now, v);
}

static void on_event(const pt_event *ev, void *data)
{
    counters *c = data;
    c->now = ev->ts;
    pt_counter_values(ev, on_value, c);
}

static int by_name(const void *a, const void *b)
{
    return strcmp((*(series *const *)a)->name, (*(series *const *)b)->name);
}

/* The text table's first column: as wide as the longest series name, 52 at least. */
static int name_width(const counters *c)
{
    size_t w = 52;

    for (unsigned i = 0; i < c->n; i++) {
        size_t len = strlen(c->list[i]->name);

        w = len > w ? len : w;
    }
    return w < 1024 ? (int)w : 1024;
}

static void print_all(counters *c)
{
    int w = name_width(c);

    qsort(c->list, c->n, sizeof(*c->list), by_name);
    if (c->tsv)
        puts("series\tsamples\tmin\tmean\tmax\tlast\trate_per_s");
    else
        printf("%-*s %8s %12s %12s %12s %12s %12s\n", w, "series", "samples", "min", "mean", "max", "last", "change/s");
    for (unsigned i = 0; i < c->n; i++) {
        const pt_series *s = &c->list[i]->s;
        double span = (double)(s->last_ts - s->first_ts) / 1e9;
        double rate = span > 0 ? (s->vlast - s->vfirst) / span : 0;

        if (c->tsv)
            printf("%s\t%llu\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\n", c->list[i]->name,
                   (unsigned long long)s->n, s->vmin, s->vsum / (double)s->n, s->vmax, s->vlast, rate);
        else
            printf("%-*s %8llu %12.6g %12.6g %12.6g %12.6g %12.6g\n", w, c->list[i]->name,
                   (unsigned long long)s->n, s->vmin, s->vsum / (double)s->n, s->vmax, s->vlast, rate);
    }
    if (!c->n && !c->tsv)
        puts("(no counter: no EventSource payload with numbers, no event whose fields are all numbers)");
    if (c->dropped)
        printf("(%llu samples of series beyond the first %d not kept)\n", (unsigned long long)c->dropped, MAX_SERIES);
}

static int run(const pt_opts *o)
{
    counters c = { 0 };
    pt_reader *r = NULL;
    pt_sink sink = { .event = on_event, .data = &c };
    const char *format = o->format ? o->format : "text";
    if (strcmp(format, "text") != 0 && strcmp(format, "tsv") != 0) {
        fprintf(stderr, "palev-trace counters: --format is text or tsv, not \"%s\"\n", format);
        return PT_EXIT_USAGE;
    }
    c.tsv = strcmp(format, "tsv") == 0;
    int rc = pt_read_all(o, &sink, &r);
    if (pt_ran(r)) {
        print_all(&c);
        fflush(stdout);
        rc = pt_verdict(r, rc);
    }
    for (unsigned i = 0; i < c.n; i++) {
        free(c.list[i]->name);
        free(c.list[i]);
    }
    free(c.list);
    pt_map_free(&c.by_name);
    pt_close(r);
    return rc;
}

const pt_command pt_cmd_counters = {
    .name = "counters", .args = "[--format text|tsv] [options] TRACE...",
    .help = "counter series: min, mean, max, last, change per second",
    .options = PT_OPT_FORMAT, .min_inputs = 1, .run = run,
};
