/* SPDX-License-Identifier: MIT */
/* Constant-memory statistics: log-linear histograms, top-N instances, time series, pairing. */
#ifndef PALEV_TRACE_STATS_H
#define PALEV_TRACE_STATS_H

#include "core.h"

/* ---- log-linear histogram (HDR-like) ------------------------------------------------------ */
/* Values below 128 are exact; above, 64 buckets per power of two: a percentile is at most 1/64
 * (1.6%) above the true value, never below it. Memory: 512 bytes per power of two in use. */
#define PT_HIST_BUCKETS 3776
typedef struct pt_hist {
    uint64_t count, min, max;
    double sum;
    uint64_t *chunks[PT_HIST_BUCKETS / 64];
} pt_hist;

void pt_hist_add(pt_hist *h, uint64_t v);
/* The value at percentile p (0..100, nearest rank), or 0 when empty. */
uint64_t pt_hist_percentile(const pt_hist *h, double p);
void pt_hist_free(pt_hist *h);
/* Iterates the non-empty buckets: returns the next index > after (start with -1), or -1. */
int pt_hist_next(const pt_hist *h, int after, uint64_t *lo, uint64_t *hi, uint64_t *count);

/* ---- top N -------------------------------------------------------------------------------- */
typedef struct pt_inst {
    int64_t start, end;
    int64_t vpid, vtid;
    unsigned task;
    int by;                     /* index of the --by value, or -1 */
    const pt_trace *trace;
    char *start_fields, *stop_fields;   /* pt_fields_text() of its Start and Stop, or NULL: the
                                           top keeps copies of the ones it keeps */
} pt_inst;

typedef struct pt_top {
    pt_inst *heap;              /* a min-heap on duration */
    unsigned n, cap;
} pt_top;
void pt_top_init(pt_top *t, unsigned cap);
void pt_top_add(pt_top *t, const pt_inst *in);
/* 1 when an instance that long would be kept now (worth formatting its fields). */
int pt_top_would_keep(const pt_top *t, int64_t duration);
/* Sorts the kept instances, longest first (the heap is gone afterwards). */
void pt_top_sort(pt_top *t);
void pt_top_free(pt_top *t);

/* ---- time series in constant memory --------------------------------------------------------- */
/* Bins from t0 of a width that doubles (merging neighbours) whenever the series outgrows them.
 * Sums are long doubles: samples of +-1e308 add up without overflowing a double. A sample that
 * is not finite is counted in `nonfinite`, and is no point of the series. */
#define PT_SERIES_BINS 256
typedef struct pt_series {
    int64_t t0, width;
    unsigned used;              /* bins in use */
    uint64_t count[PT_SERIES_BINS];
    long double sum[PT_SERIES_BINS];
    double max[PT_SERIES_BINS], last[PT_SERIES_BINS];
    double vmin, vmax, vlast, vfirst;
    long double vsum;
    uint64_t n, nonfinite;
    int64_t first_ts, last_ts;
} pt_series;
void pt_series_init(pt_series *s, int64_t t0, int64_t width);
void pt_series_add(pt_series *s, int64_t ts, double v);
/* The mean of the finite samples (NaN without any). */
double pt_series_mean(const pt_series *s);

/* ---- activities: Start/Stop pairs per thread ------------------------------------------------ */
typedef struct pt_frame {
    int64_t start;
    unsigned task;
    int by;                     /* index of the --by value, -1 without --by (PT_BY_ABSENT inside) */
    unsigned mark;              /* the user's: 0 at the Start, set by ops.start if it likes */
    char *fields;               /* keep_fields: pt_fields_text() of the Start (the pairer's) */
} pt_frame;

typedef struct pt_thread {
    int64_t vpid, vtid;
    const pt_trace *trace;
    pt_frame *stack;
    unsigned depth, cap;
} pt_thread;

/* What the pairer tells its user (any may be NULL). */
typedef struct pt_pair_ops {
    /* A Start was pushed: th->stack[th->depth - 1]. */
    void (*start)(pt_thread *th, const pt_event *ev, void *data);
    /* A Stop matched th->stack[pos] (still on the stack; entries above it stay open). */
    void (*stop)(pt_thread *th, unsigned pos, const pt_event *ev, void *data);
    void (*unmatched_stop)(const pt_event *ev, void *data);
    void *data;
} pt_pair_ops;

/* A stack deeper than this drops its oldest Start (counted as unmatched): memory stays bounded. */
#define PT_PAIR_MAX_DEPTH 256

typedef struct pt_pairer {
    pt_map threads;
    pt_thread **all;
    unsigned nthreads;
    const char *by_field;       /* --by FIELD, or NULL */
    char **by_values;           /* labels of the --by values seen (at most PT_BY_MAX, then "other") */
    unsigned nby;
    uint64_t by_found, by_missing;  /* instances whose Start or Stop has the field, or neither */
    uint64_t *unmatched_start, *unmatched_stop, *dropped;  /* per task */
    unsigned ntasks;
    pt_pair_ops ops;
    int keep_fields;            /* each open frame keeps its Start's fields as text (set it after init) */
} pt_pairer;
#define PT_BY_MAX 64

/* --by FIELD: the value of the Start's field, else of the Stop's (the natural place for an
 * outcome), else "-". */
void pt_pairer_init(pt_pairer *p, const char *by_field, const pt_pair_ops *ops);
/* Feeds an event (ignored unless its class is a Start or a Stop). */
void pt_pairer_event(pt_pairer *p, const pt_event *ev);
/* At the end: counts the Starts still open as unmatched; says on stderr when --by FIELD was in
 * no Start or Stop event of a paired instance. */
void pt_pairer_finish(pt_pairer *p);
void pt_pairer_free(pt_pairer *p);

#endif /* PALEV_TRACE_STATS_H */
