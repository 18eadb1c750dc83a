/* SPDX-License-Identifier: MIT */
/* palev-bench-stacks: what call stacks and code rundowns cost, ratios taken in one run inside a
 * real session (tests/bench/stacks.sh sets it up and passes its name).
 *   S1  an event fired 16 frames deep, Paleventing:Stack recorded, against the same event with
 *       Stack not recorded, and against the event followed by an event shaped as Stack (same
 *       names, 16 frames) with no walk: what the walk itself costs (PALEV_STACK=fp or unwind)
 *   S2  the rundown of 100 000 code ranges: how long, and the longest palev_code_load() and
 *       event a host thread saw meanwhile, against the same calls with no rundown running
 *   S3  a host that never records: CPU time of the rundown watcher per second
 *   S4  registering code: palev_code_load() + palev_code_unload() with nobody recording the
 *       code events and no perf output (target <= 200 ns per call), with an unwind rule, a
 *       patch, and the same pair while a session records CodeLoad and CodeUnload; against a
 *       malloc() + free() of the name's size, what keeping a name costs a runtime itself */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <paleventing.h>

#include "Palev_StackBench-events.h"

#define DEPTH 16
#define ROUNDS 7
#define ITERS 20000
#define RANGES 100000
#define PAIRS 200000

static const char *session;
static volatile int sink;

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int lttng(const char *verb, const char *event)
{
    char cmd[512];

    snprintf(cmd, sizeof(cmd), "lttng %s -u -s %s -c ch %s >/dev/null 2>&1", verb, session,
             event);
    return system(cmd) == 0 ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return v[n / 2];
}

/* ---- S1: the walk ---------------------------------------------------------------------------- */

__attribute__((noinline)) static void deep(int depth, unsigned v)
{
    if (depth > 1)
        deep(depth - 1, v);
    else
        FireEventFire(v);
    sink++;
}

static const uint64_t fake[DEPTH] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

__attribute__((noinline)) static void deep_frames(int depth, unsigned v)
{
    if (depth > 1) {
        deep_frames(depth - 1, v);
    } else {
        FireEventFire(v);
        FireEventFrames("Palev_StackBench", "Fire", DEPTH, fake, 0, NULL);
    }
    sink++;
}

/* ns per event, fired DEPTH frames below this function */
__attribute__((noinline)) static double time_fire(void (*fn)(int, unsigned))
{
    uint64_t t0 = now_ns();

    for (unsigned i = 0; i < ITERS; i++)
        fn(DEPTH - 2, i); /* with this loop and main: 16 frames */
    return (double)(now_ns() - t0) / ITERS;
}

/* The same walk while 1000 ranges described by palev_code_load_unwind() are live: each frame's
 * return address is looked up in their table (none is in them: what every native frame pays). */
static void row_walk_described(void)
{
    static const palev_code_unwind unwind = { .cfa_offset = 32, .saved_fp = 16 };
    static char ranges[1000 * 256];
    double plain[ROUNDS], described[ROUNDS], ratio[ROUNDS];

    lttng("enable-event", "Paleventing:Stack");
    for (int r = 0; r < ROUNDS; r++) {
        plain[r] = time_fire(deep);
        for (int i = 0; i < 1000; i++)
            palev_code_load_unwind(ranges + i * 256, 200, "Bench.described", &unwind);
        described[r] = time_fire(deep);
        palev_code_unload_area(ranges, sizeof(ranges));
        ratio[r] = described[r] / plain[r];
    }
    lttng("disable-event", "Paleventing:Stack");
    printf("S1   same, 1000 JIT ranges with unwind rules live %8.0f ns | none: %.0f ns | %5.2f | "
           "+%.0f ns per event for 16 lookups (and an RCU read-side section)\n",
           median(described, ROUNDS), median(plain, ROUNDS), median(ratio, ROUNDS),
           median(described, ROUNDS) - median(plain, ROUNDS));
}

static void row_walk(const char *mode)
{
    double off[ROUNDS], on[ROUNDS], same[ROUNDS], diff[ROUNDS], walk[ROUNDS], ratio[ROUNDS];
    double m;

    time_fire(deep); /* warm-up, and each thread's stack bounds looked up */
    for (int r = 0; r < ROUNDS; r++) {
        lttng("disable-event", "Paleventing:Stack");
        off[r] = time_fire(deep);
        same[r] = time_fire(deep_frames);
        lttng("enable-event", "Paleventing:Stack");
        on[r] = time_fire(deep);
        diff[r] = on[r] - off[r];
        walk[r] = on[r] - same[r];
        ratio[r] = on[r] / same[r];
    }
    lttng("disable-event", "Paleventing:Stack");
    m = median(walk, ROUNDS);
    printf("S1   event 16 frames deep + Stack (%-6s)       %8.0f ns | event alone %.0f ns: "
           "+%.0f ns/event\n", mode, median(on, ROUNDS), median(off, ROUNDS),
           median(diff, ROUNDS));
    printf("S1   event 16 frames deep + Stack (%-6s)       %8.0f ns | event + Stack-shaped "
           "event, no walk %6.0f ns | %5.2f | walk +%.0f ns (target <= 150 ns with fp: %s)\n",
           mode, median(on, ROUNDS), median(same, ROUNDS), median(ratio, ROUNDS), m,
           strcmp(mode, "fp") ? "n/a" : m <= 150 ? "met" : "MISSED");
    if (strcmp(mode, "fp") == 0)
        row_walk_described();
}

/* ---- S2: a rundown of 100 000 ranges --------------------------------------------------------- */

struct probe {
    volatile int stop;
    uint64_t worst, calls;
    long waits;                 /* voluntary context switches: the thread blocked */
};

/* A host thread loading, unloading and firing all along: its slowest call, and how often it
 * blocked (waited on a lock, slept): preemption by other threads on a busy machine is not that. */
static void *host_thread(void *arg)
{
    struct probe *p = arg;
    static char code[64];
    struct rusage a, b;

    getrusage(RUSAGE_THREAD, &a);
    while (!p->stop) {
        uint64_t t0 = now_ns(), d;

        palev_code_load(code, sizeof(code), "Bench.hot");
        palev_code_unload(code);
        FireEventFire(1);
        d = now_ns() - t0;
        p->worst = d > p->worst ? d : p->worst;
        p->calls++;
    }
    getrusage(RUSAGE_THREAD, &b);
    p->waits = b.ru_nvcsw - a.ru_nvcsw;
    return NULL;
}

static uint64_t watch(struct probe *p, unsigned ms)
{
    pthread_t th;

    *p = (struct probe){ 0 };
    pthread_create(&th, NULL, host_thread, p);
    usleep(ms * 1000);
    p->stop = 1;
    pthread_join(th, NULL);
    return p->worst;
}

static void row_rundown(void)
{
    static char ranges[RANGES * 16];
    struct probe quiet, busy;
    uint64_t t0, loads;

    static char names[RANGES][24];

    for (unsigned i = 0; i < RANGES; i++)
        snprintf(names[i], sizeof(names[i]), "Bench.Method%u", i);
    t0 = now_ns();
    for (unsigned i = 0; i < RANGES; i++)
        palev_code_load(ranges + (size_t)i * 16, 16, names[i]);
    loads = now_ns() - t0;
    watch(&quiet, 1500);
    /* The watcher notices within 100 ms, then takes its time: the host thread runs meanwhile. */
    lttng("enable-event", "Paleventing:CodeRundown");
    watch(&busy, 1500);
    printf("S2   palev_code_load() x 100000 (live set insert)  %8.0f ns | per call\n",
           (double)loads / RANGES);
    printf("S2   host thread load+unload+event, rundown running %8llu calls | same 1.5 s, no "
           "rundown %llu calls | %5.2f | blocked %ld vs %ld times (voluntary context switches); "
           "slowest call %.1f vs %.1f ms (preemption on this machine)\n",
           (unsigned long long)busy.calls, (unsigned long long)quiet.calls,
           (double)busy.calls / (double)quiet.calls, busy.waits, quiet.waits,
           (double)busy.worst / 1e6, (double)quiet.worst / 1e6);
}

/* ---- S3: a host that never records ----------------------------------------------------------- */

/* The CPU clock of this process's thread named "palev-rundown" (Linux: ~tid << 3 | 6). */
static int watcher_clock(clockid_t *clk)
{
    char path[300], comm[32];
    struct dirent *d;
    DIR *dir = opendir("/proc/self/task");
    int ret = -ENOENT;

    while (dir && (d = readdir(dir))) {
        FILE *f;

        snprintf(path, sizeof(path), "/proc/self/task/%s/comm", d->d_name);
        if (!(f = fopen(path, "r")))
            continue;
        if (fgets(comm, sizeof(comm), f) && strncmp(comm, "palev-rundown", 13) == 0) {
            *clk = (clockid_t)((~(unsigned)atoi(d->d_name) << 3) | 6);
            ret = 0;
        }
        fclose(f);
    }
    if (dir)
        closedir(dir);
    return ret;
}

/* The baseline: a thread that only sleeps 100 ms at a time, as the watcher does. */
static void *sleeper(void *arg)
{
    (void)arg;
    for (;;) {
        struct timespec ts = { 0, 100000000L };

        nanosleep(&ts, NULL);
    }
    return NULL;
}

static double cpu_us(clockid_t clk)
{
    struct timespec t;

    clock_gettime(clk, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void row_watcher(void)
{
    clockid_t clk, base;
    pthread_t th;
    double w0, b0, w, b;

    if (watcher_clock(&clk) != 0 || pthread_create(&th, NULL, sleeper, NULL) != 0 ||
        pthread_getcpuclockid(th, &base) != 0) {
        printf("S3   rundown watcher: not running (no probe provider?)\n");
        return;
    }
    usleep(100000);
    w0 = cpu_us(clk);
    b0 = cpu_us(base);
    sleep(3);
    w = (cpu_us(clk) - w0) / 3;
    b = (cpu_us(base) - b0) / 3;
    printf("S3   rundown watcher CPU, host never recording     %8.1f us/s | a thread sleeping "
           "100 ms at a time %6.1f us/s | %5.2f | 10 wake-ups/s, one load each\n", w, b, w / b);
}

/* ---- S4: registering code --------------------------------------------------------------------- */

#define NAME "Contoso.Orders.OrderProcessor::ComputeTotal(int32)[Tier1]"

static char bench_code[4096], patched[64];

enum pair_kind { PAIR_PLAIN, PAIR_UNWIND, PAIR_PATCH, PAIR_MALLOC };

static uint64_t cpu_ns(clockid_t clk)
{
    struct timespec ts;

    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU ns per load+unload pair over 64 addresses, as a JIT reuses its code memory: this
 * thread's (steadier than wall time on a shared machine), and the process's in *process
 * (the rundown thread's frees of what walks may read included). */
__attribute__((noinline)) static double time_pairs(enum pair_kind kind, double *process)
{
    static const palev_code_unwind unwind = { .cfa_offset = 32, .saved_fp = 16 };
    uint64_t p0, t0;

    usleep(150000);             /* the rundown thread frees the previous round's garbage */
    p0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
    t0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);

    for (unsigned i = 0; i < PAIRS; i++) {
        char *c = bench_code + (i % 64) * 64;

        switch (kind) {
        case PAIR_PLAIN:
            palev_code_load(c, 64, NAME);
            palev_code_unload(c);
            break;
        case PAIR_UNWIND:
            palev_code_load_unwind(c, 64, NAME, &unwind);
            palev_code_unload(c);
            break;
        case PAIR_PATCH:
            if (palev_code_patch(patched, 0, NULL) != 0)
                abort();
            break;
        case PAIR_MALLOC: {
            char *volatile copy = malloc(sizeof(NAME) + 40);

            memcpy(copy, NAME, sizeof(NAME));
            free(copy);
            break;
        }
        }
    }
    t0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
    usleep(150000);             /* ...and this round's */
    *process = (double)(cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - p0) / PAIRS;
    return (double)t0 / PAIRS;
}

static double median_pairs(enum pair_kind kind, double *process)
{
    double v[ROUNDS], p[ROUNDS];

    time_pairs(kind, process);
    for (int r = 0; r < ROUNDS; r++)
        v[r] = time_pairs(kind, &p[r]);
    *process = median(p, ROUNDS);
    return median(v, ROUNDS);
}

static void row_register(void)
{
    double plain, unwind, patch, base, traced, p_plain, p_unwind, p_patch, p_base, p_traced;

    palev_code_load(patched, 64, NAME);
    base = median_pairs(PAIR_MALLOC, &p_base);
    plain = median_pairs(PAIR_PLAIN, &p_plain);
    unwind = median_pairs(PAIR_UNWIND, &p_unwind);
    patch = median_pairs(PAIR_PATCH, &p_patch);
    lttng("enable-event", "Paleventing:CodeLoad,Paleventing:CodeUnload");
    usleep(200000);
    traced = median_pairs(PAIR_PLAIN, &p_traced);
    lttng("disable-event", "Paleventing:CodeLoad,Paleventing:CodeUnload");
    printf("S4   load + unload, nobody recording (thread CPU)  %6.0f ns | malloc + free of the "
           "name: %4.0f ns | %5.2f | %.0f ns per call (target <= 200 ns: %s); process CPU "
           "%.0f ns\n", plain, base, plain / base, plain / 2, plain / 2 <= 200 ? "met" : "MISSED",
           p_plain);
    printf("S4   load_unwind + unload, nobody recording        %6.0f ns | load + unload: %4.0f ns "
           "| %5.2f | process CPU %.0f ns (the table republished, freed after a grace period)\n",
           unwind, plain, unwind / plain, p_unwind);
    printf("S4   palev_code_patch(), nobody recording          %6.0f ns | load + unload: %4.0f ns "
           "| %5.2f | process CPU %.0f ns\n", patch, plain, patch / plain, p_patch);
    printf("S4   load + unload, CodeLoad and CodeUnload recorded %4.0f ns | nobody recording: "
           "%4.0f ns | %5.2f | process CPU %.0f ns (two LTTng events)\n", traced, plain,
           traced / plain, p_traced);
    palev_code_unload(patched);
}

int main(int argc, char **argv)
{
    static char code[64];
    const char *mode = getenv("PALEV_STACK");

    if (argc != 3 || (strcmp(argv[1], "walk") != 0 && strcmp(argv[1], "rundown") != 0 &&
                      strcmp(argv[1], "code") != 0)) {
        fprintf(stderr, "usage: palev-bench-stacks walk|rundown|code SESSION\n");
        return 2;
    }
    session = argv[2];
    if (strcmp(argv[1], "walk") == 0) {
        row_walk(mode && strcmp(mode, "unwind") == 0 ? "unwind" : "fp");
        return 0;
    }
    if (strcmp(argv[1], "code") == 0) {
        row_register();
        return 0;
    }
    palev_code_load(code, sizeof(code), "Bench.first"); /* starts the watcher */
    usleep(200000);
    row_watcher();
    row_rundown();
    return 0;
}
