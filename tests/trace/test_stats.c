/* SPDX-License-Identifier: MIT */
/* Unit tests of palev-trace's constant-memory statistics: histogram percentiles against exact
 * ones, top-N, self-coarsening series, and the Start/Stop pairing rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The top keeps its own copies of the fields of what it keeps, and frees those it lets go
 * (ASan and valgrind see a leak or a double free). */
static void top_keeps_copies_of_the_fields_of_the_longest(void **state)
{
    pt_top t;
    char start[32], stop[32];
    (void)state;
    pt_top_init(&t, 3);
    for (int i = 0; i < 20; i++) {
        int64_t d = (i * 7) % 20;   /* every duration 0..19 once */
        pt_inst in = { .start = 0, .end = d, .start_fields = start, .stop_fields = stop };
        snprintf(start, sizeof(start), "Id=%lld", (long long)d);
        snprintf(stop, sizeof(stop), "Outcome=%lld", (long long)d);
        assert_int_equal(pt_top_would_keep(&t, d), t.n < 3 || d > t.heap[0].end);
        pt_top_add(&t, &in);
    }
    memset(start, 0, sizeof(start));
    pt_top_sort(&t);
    assert_int_equal(t.n, 3);
    for (unsigned i = 0; i < 3; i++) {
        snprintf(start, sizeof(start), "Id=%u", 19 - i);
        snprintf(stop, sizeof(stop), "Outcome=%u", 19 - i);
        assert_string_equal(t.heap[i].start_fields, start);
        assert_string_equal(t.heap[i].stop_fields, stop);
    }
    pt_top_free(&t);
}

/* Every percentile is the exact one or above it by at most 1/64; count, min, max, sum exact. */
static void check_percentiles(uint64_t *v, size_t n)
{
    pt_hist h = { 0 };
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        pt_hist_add(&h, v[i]);
        sum += (double)v[i];
    }
    qsort(v, n, sizeof(*v), cmp_u64);
    assert_int_equal(h.count, n);
    assert_int_equal(h.min, v[0]);
    assert_int_equal(h.max, v[n - 1]);
    assert_true(h.sum == sum);
    for (double p = 1; p <= 100; p += 0.5) {
        size_t rank = (size_t)(p / 100.0 * (double)n + 0.9999999);
        uint64_t exact = v[(rank ? rank : 1) - 1], got = pt_hist_percentile(&h, p);
        assert_true(got >= exact);
        assert_true(got - exact <= exact / 64);
    }
    pt_hist_free(&h);
}

static void hist_small_values_are_exact(void **state)
{
    uint64_t v[1000];
    (void)state;
    for (size_t i = 0; i < 1000; i++)
        v[i] = next() % 128;
    check_percentiles(v, 1000);
}

static void hist_wide_values(void **state)
{
    static uint64_t v[200000];
    (void)state;
    for (size_t i = 0; i < 200000; i++)
        v[i] = next() >> (next() % 64);     /* every magnitude up to 2^64 - 1 */
    check_percentiles(v, 200000);
}

static void hist_buckets_cover_each_value_once(void **state)
{
    pt_hist h = { 0 };
    uint64_t lo, hi, n, total = 0, prev_hi = 0;
    int b = -1, first = 1;
    (void)state;
    for (int i = 0; i < 5000; i++)
        pt_hist_add(&h, next() >> 20);
    while ((b = pt_hist_next(&h, b, &lo, &hi, &n)) >= 0) {
        assert_true(lo <= hi);
        assert_true(first || lo > prev_hi);     /* ascending, disjoint */
        first = 0;
        prev_hi = hi;
        total += n;
    }
    assert_int_equal(total, 5000);
    pt_hist_free(&h);
}

static void top_keeps_the_longest(void **state)
{
    pt_top t;
    (void)state;
    pt_top_init(&t, 5);
    for (int i = 0; i < 1000; i++) {
        pt_inst in = { .start = i, .end = i + (i * 7919) % 1000 };
        pt_top_add(&t, &in);
    }
    pt_top_sort(&t);
    assert_int_equal(t.n, 5);
    for (unsigned i = 0; i < 5; i++)
        assert_int_equal(t.heap[i].end - t.heap[i].start, 999 - i);
    pt_top_free(&t);
}

static void series_coarsens_and_keeps_totals(void **state)
{
    static pt_series s;
    double sum = 0;
    (void)state;
    pt_series_init(&s, 1000, 1);
    for (int64_t i = 0; i < 100000; i++) {
        pt_series_add(&s, 1000 + i * 37, (double)(i % 100));
        sum += (double)(i % 100);
    }
    assert_true(s.used <= PT_SERIES_BINS);
    assert_true(s.width * PT_SERIES_BINS > 99999 * 37);
    uint64_t count = 0;
    double bins = 0;
    for (unsigned i = 0; i < s.used; i++) {
        count += s.count[i];
        bins += s.sum[i];
    }
    assert_int_equal(count, 100000);
    assert_true(bins == sum && s.vsum == sum);
    assert_true(s.vmin == 0 && s.vmax == 99 && s.vlast == 99 && s.vfirst == 0);
}

/* ---- pairing --------------------------------------------------------------------------------- */

static pt_class cls[4];     /* A start, A stop, B start, B stop */
static pt_trace trace0;
static int64_t durations[16];
static unsigned ndur;

static void on_stop(pt_thread *th, unsigned pos, const pt_event *ev, void *data)
{
    (void)data;
    durations[ndur++] = ev->ts - th->stack[pos].start;
}

static void feed(pt_pairer *p, int which, int64_t ts, int64_t vtid)
{
    pt_event ev = { .cls = &cls[which], .trace = &trace0, .ts = ts, .vpid = 1, .vtid = vtid };
    pt_pairer_event(p, &ev);
}

static void pairs_innermost_per_thread_and_counts_the_rest(void **state)
{
    pt_pairer p;
    pt_pair_ops ops = { .stop = on_stop };
    (void)state;
    for (int i = 0; i < 4; i++) {
        cls[i].role = i % 2 ? PT_ROLE_STOP : PT_ROLE_START;
        cls[i].task_index = (unsigned)i / 2;
    }
    ndur = 0;
    pt_pairer_init(&p, NULL, &ops);
    feed(&p, 1, 5, 10);                     /* A stop without start */
    feed(&p, 0, 10, 10);                    /* A(10 ... */
    feed(&p, 0, 20, 10);                    /*   A(20 ... nested */
    feed(&p, 0, 25, 11);                    /* other thread: A(25 */
    feed(&p, 2, 30, 10);                    /*     B(30 */
    feed(&p, 1, 40, 10);                    /*   ... 40) pairs with A(20, B stays open */
    feed(&p, 3, 50, 10);                    /*     ... 50) B */
    feed(&p, 1, 60, 10);                    /* ... 60) A(10 */
    feed(&p, 3, 70, 11);                    /* B stop on thread 11: unmatched */
    pt_pairer_finish(&p);
    assert_int_equal(ndur, 3);
    assert_int_equal(durations[0], 20);
    assert_int_equal(durations[1], 20);
    assert_int_equal(durations[2], 50);
    assert_int_equal(p.unmatched_stop[0], 1);
    assert_int_equal(p.unmatched_stop[1], 1);
    assert_int_equal(p.unmatched_start[0], 1);  /* A(25 on thread 11 */
    assert_int_equal(p.unmatched_start[1], 0);
    pt_pairer_free(&p);
}

static void deep_stacks_stay_bounded(void **state)
{
    pt_pairer p;
    (void)state;
    pt_pairer_init(&p, NULL, NULL);
    for (int i = 0; i < 10000; i++)
        feed(&p, 0, i, 1);
    assert_int_equal(p.all[0]->depth, PT_PAIR_MAX_DEPTH);
    pt_pairer_finish(&p);
    assert_int_equal(p.unmatched_start[0], 10000);
    assert_int_equal(p.dropped[0], 10000 - PT_PAIR_MAX_DEPTH);
    pt_pairer_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hist_small_values_are_exact),
        cmocka_unit_test(hist_wide_values),
        cmocka_unit_test(hist_buckets_cover_each_value_once),
        cmocka_unit_test(top_keeps_the_longest),
        cmocka_unit_test(top_keeps_copies_of_the_fields_of_the_longest),
        cmocka_unit_test(series_coarsens_and_keeps_totals),
        cmocka_unit_test(pairs_innermost_per_thread_and_counts_the_rest),
        cmocka_unit_test(deep_stacks_stay_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
