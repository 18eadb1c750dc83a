/* SPDX-License-Identifier: MIT */
/* Fixed work for tests/bench/collect_cpu.sh, timed by itself from main's start to its end:
 * "cpu_work: W s wall, C s CPU" (CLOCK_MONOTONIC; user + system time of the process). First every
 * thread computes on its own (CPU-bound: what CPU sampling costs), then the threads pass a token
 * round a ring of pipes, each computing one unit before passing it on (a context switch per
 * hand-over: what off-CPU recording costs). A unit is about 30 us of integer work here.
 * usage: cpu_work [THREADS [COMPUTE_UNITS [RING_ROUNDS]]]   (defaults 4, 8000, 2000) */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64

static unsigned threads = 4, units = 8000, rounds = 2000;
static int ring[MAX_THREADS][2];
static volatile uint64_t sink;

/* One unit: about 10 microseconds of integer work, the same on every run. */
static uint64_t unit(uint64_t x)
{
    for (int i = 0; i < 20000; i++)
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x;
}

static void *worker(void *arg)
{
    unsigned me = (unsigned)(uintptr_t)arg;
    uint64_t x = me;
    for (unsigned i = 0; i < units; i++)
        x = unit(x);
    for (unsigned r = 0; r < rounds; r++) {
        char token;
        if (read(ring[me][0], &token, 1) != 1)
            break;
        x = unit(x);
        if (write(ring[(me + 1) % threads][1], &token, 1) != 1)
            break;
    }
    sink += x;
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    pthread_t t[MAX_THREADS];
    double start = now();
    if (argc > 1)
        threads = (unsigned)atoi(argv[1]);
    if (argc > 2)
        units = (unsigned)atoi(argv[2]);
    if (argc > 3)
        rounds = (unsigned)atoi(argv[3]);
    if (threads < 1 || threads > MAX_THREADS) {
        fprintf(stderr, "cpu_work: 1 to %d threads\n", MAX_THREADS);
        return 2;
    }
    for (unsigned i = 0; i < threads; i++)
        if (pipe(ring[i])) {
            perror("cpu_work: pipe");
            return 1;
        }
    for (unsigned i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i);
    if (write(ring[0][1], "t", 1) != 1)
        return 1;
    for (unsigned i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    double wall = now() - start;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("cpu_work: %.6f s wall, %.6f s CPU\n", wall,
           (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
    return 0;
}
