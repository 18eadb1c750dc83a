/* SPDX-License-Identifier: MIT */
/* Constant-memory statistics: a log-linear histogram, a top-N heap, self-coarsening time series. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static unsigned bucket_of(uint64_t v)
{
    if (v < 128)
        return (unsigned)v;
    unsigned shift = 63u - (unsigned)__builtin_clzll(v) - 6u;   /* >= 1 */
    return 128u + (shift - 1u) * 64u + (unsigned)((v >> shift) - 64u);
}

static void bucket_range(unsigned b, uint64_t *lo, uint64_t *hi)
{
    if (b < 128) {
        *lo = *hi = b;
        return;
    }
    unsigned shift = (b - 128u) / 64u + 1u;
    uint64_t sub = (b - 128u) % 64u + 64u;
    *lo = sub << shift;
    *hi = ((sub + 1u) << shift) - 1u;
}

void pt_hist_add(pt_hist *h, uint64_t v)
{
    unsigned b = bucket_of(v);
    uint64_t **chunk = &h->chunks[b / 64];
    if (!*chunk)
        *chunk = pt_xcalloc(64, sizeof(uint64_t));
    (*chunk)[b % 64]++;
    if (!h->count || v < h->min)
        h->min = v;
    if (!h->count || v > h->max)
        h->max = v;
    h->count++;
    h->sum += (double)v;
}

static uint64_t bucket_count(const pt_hist *h, unsigned b)
{
    return h->chunks[b / 64] ? h->chunks[b / 64][b % 64] : 0;
}

uint64_t pt_hist_percentile(const pt_hist *h, double p)
{
    if (!h->count)
        return 0;
    uint64_t rank = (uint64_t)((p / 100.0) * (double)h->count + 0.9999999), seen = 0, lo, hi;
    if (rank < 1)
        rank = 1;
    for (unsigned b = 0; b < PT_HIST_BUCKETS; b++) {
        if ((seen += bucket_count(h, b)) < rank)
            continue;
        bucket_range(b, &lo, &hi);
        return hi > h->max ? h->max : hi < h->min ? h->min : hi;
    }
    return h->max;
}

int pt_hist_next(const pt_hist *h, int after, uint64_t *lo, uint64_t *hi, uint64_t *count)
{
    for (unsigned b = (unsigned)(after + 1); b < PT_HIST_BUCKETS; b++) {
        if (!h->chunks[b / 64]) {
            b |= 63u;
            continue;
        }
        if ((*count = bucket_count(h, b))) {
            bucket_range(b, lo, hi);
            return (int)b;
        }
    }
    return -1;
}

void pt_hist_free(pt_hist *h)
{
    for (unsigned i = 0; i < PT_HIST_BUCKETS / 64; i++)
        free(h->chunks[i]);
    memset(h, 0, sizeof(*h));
}

/* ---- top N -------------------------------------------------------------------------------- */

static int64_t dur(const pt_inst *i)
{
    return i->end - i->start;
}

void pt_top_init(pt_top *t, unsigned cap)
{
    t->heap = cap ? pt_xcalloc(cap, sizeof(*t->heap)) : NULL;
    t->cap = cap;
    t->n = 0;
}

static void sift_down(pt_top *t, unsigned i)
{
    for (;;) {
        unsigned l = 2 * i + 1, r = l + 1, m = i;
        if (l < t->n && dur(&t->heap[l]) < dur(&t->heap[m]))
            m = l;
        if (r < t->n && dur(&t->heap[r]) < dur(&t->heap[m]))
            m = r;
        if (m == i)
            return;
        pt_inst tmp = t->heap[i];
        t->heap[i] = t->heap[m];
        t->heap[m] = tmp;
        i = m;
    }
}

/* The top's own copy of an instance's fields. */
static pt_inst kept(const pt_inst *in)
{
    pt_inst k = *in;
    k.start_fields = in->start_fields ? pt_xstrdup(in->start_fields) : NULL;
    k.stop_fields = in->stop_fields ? pt_xstrdup(in->stop_fields) : NULL;
    return k;
}

static void drop(pt_inst *in)
{
    free(in->start_fields);
    free(in->stop_fields);
}

int pt_top_would_keep(const pt_top *t, int64_t duration)
{
    return t->cap && (t->n < t->cap || duration > dur(&t->heap[0]));
}

void pt_top_add(pt_top *t, const pt_inst *in)
{
    if (!t->cap)
        return;
    if (t->n == t->cap) {
        if (dur(in) <= dur(&t->heap[0]))
            return;
        drop(&t->heap[0]);
        t->heap[0] = kept(in);
        sift_down(t, 0);
        return;
    }
    unsigned i = t->n++;
    t->heap[i] = kept(in);
    while (i && dur(&t->heap[(i - 1) / 2]) > dur(&t->heap[i])) {
        pt_inst tmp = t->heap[i];
        t->heap[i] = t->heap[(i - 1) / 2];
        t->heap[(i - 1) / 2] = tmp;
        i = (i - 1) / 2;
    }
}

static int longest_first(const void *a, const void *b)
{
    int64_t da = dur(a), db = dur(b);
    if (da != db)
        return da > db ? -1 : 1;
    const pt_inst *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

void pt_top_sort(pt_top *t)
{
    if (t->n)
        qsort(t->heap, t->n, sizeof(*t->heap), longest_first);
}

void pt_top_free(pt_top *t)
{
    for (unsigned i = 0; i < t->n; i++)
        drop(&t->heap[i]);
    free(t->heap);
    memset(t, 0, sizeof(*t));
}

/* ---- series ------------------------------------------------------------------------------- */

void pt_series_init(pt_series *s, int64_t t0, int64_t width)
{
    memset(s, 0, sizeof(*s));
    s->t0 = t0;
    s->width = width > 0 ? width : 1;
}

static void coarsen(pt_series *s)
{
    for (unsigned i = 0; i < PT_SERIES_BINS / 2; i++) {
        unsigned a = 2 * i, b = a + 1;
        s->count[i] = s->count[a] + s->count[b];
        s->sum[i] = s->sum[a] + s->sum[b];
        s->max[i] = s->count[b] && (!s->count[a] || s->max[b] > s->max[a]) ? s->max[b] : s->max[a];
        s->last[i] = s->count[b] ? s->last[b] : s->last[a];
    }
    memset(&s->count[PT_SERIES_BINS / 2], 0, sizeof(s->count) / 2);
    memset(&s->sum[PT_SERIES_BINS / 2], 0, sizeof(s->sum) / 2);
    memset(&s->max[PT_SERIES_BINS / 2], 0, sizeof(s->max) / 2);
    memset(&s->last[PT_SERIES_BINS / 2], 0, sizeof(s->last) / 2);
    s->width *= 2;
    s->used = (s->used + 1) / 2;
}

void pt_series_add(pt_series *s, int64_t ts, double v)
{
    if (!isfinite(v)) {
        s->nonfinite++;
        return;
    }
    int64_t off = ts > s->t0 ? ts - s->t0 : 0;
    while (off / s->width >= PT_SERIES_BINS)
        coarsen(s);
    unsigned b = (unsigned)(off / s->width);
    if (!s->count[b] || v > s->max[b])
        s->max[b] = v;
    s->count[b]++;
    s->sum[b] += v;
    s->last[b] = v;
    if (b + 1 > s->used)
        s->used = b + 1;
    if (!s->n || v < s->vmin)
        s->vmin = v;
    if (!s->n || v > s->vmax)
        s->vmax = v;
    if (!s->n) {
        s->first_ts = ts;
        s->vfirst = v;
    }
    s->last_ts = ts;
    s->vsum += v;
    s->vlast = v;
    s->n++;
}

double pt_series_mean(const pt_series *s)
{
    return s->n ? (double)(s->vsum / (long double)s->n) : NAN;
}
