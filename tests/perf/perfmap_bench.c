/* SPDX-License-Identifier: MIT */
/* Cost of palev_code_load() under the PALEV_PERFMAP in the environment, in ns per call. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "paleventing.h"

#define ROUNDS 5
#define CODE_SIZE 256
/* A name as long as a typical managed method's. */
#define NAME "Contoso.Orders.OrderProcessor::ComputeTotal(int32,float64)[Tier1]"

/* CPU time of this thread, kernel time included (the write() calls): what logging costs the
 * JIT thread, and steadier than wall time on a busy machine. */
static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

typedef int log_fn(const void *code, size_t size, const char *name);

/* The baseline for the disabled case: a call that does nothing, made the same way. */
__attribute__((noinline)) static int empty_log(const void *code, size_t size, const char *name)
{
    __asm__ volatile("" : : "r"(code), "r"(size), "r"(name));
    return 0;
}

/* Distinct addresses, as a JIT would log; the code bytes are what a jitdump copies. */
static double round_ns(log_fn *volatile fn, const unsigned char *code, long n)
{
    double t0 = now_ns();

    for (long i = 0; i < n; i++)
        if (fn(code + (i & 1023), CODE_SIZE, NAME) != 0)
            return -1;
    return (now_ns() - t0) / (double)n;
}

static double median_ns(log_fn *fn, const unsigned char *code, long n)
{
    double ns[ROUNDS];

    for (int r = 0; r < ROUNDS; r++)
        if ((ns[r] = round_ns(fn, code, n)) < 0)
            return -1;
    qsort(ns, ROUNDS, sizeof(ns[0]), cmp_double);
    return ns[ROUNDS / 2];
}

int main(int argc, char **argv)
{
    static unsigned char code[1024 + CODE_SIZE];
    int on = palev_perfmap_is_enabled();
    long n = argc > 1 ? atol(argv[1]) : on ? 100000 : 100000000;
    const char *mode = getenv("PALEV_PERFMAP");
    double ns = median_ns(palev_code_load, code, n);

    if (ns < 0) {
        fprintf(stderr, "palev_code_load failed\n");
        return 1;
    }
    printf("PALEV_PERFMAP=%s: %.1f ns per palev_code_load (median of %d rounds of %ld, "
           "%d code bytes, %zu-byte name)", mode ? mode : "(unset)", ns, ROUNDS, n, CODE_SIZE,
           sizeof(NAME) - 1);
    if (!on)
        printf("; an empty call: %.1f ns", median_ns(empty_log, code, n));
    printf("\n");
    /* the files are the host's to keep or not; a benchmark leaves none behind */
    if (on) {
        char path[4096];
        const char *dir = getenv("PALEV_PERFMAP_DIR");

        snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
        unlink(path);
        snprintf(path, sizeof(path), "%s/jit-%d.dump", dir && *dir ? dir : "/tmp", (int)getpid());
        unlink(path);
    }
    return 0;
}
