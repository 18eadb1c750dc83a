/* SPDX-License-Identifier: MIT */
/* palev-bench: the cost of tracing, every row measured in one run against its baseline, as
 * medians of interleaved rounds, printed as one table (tests/bench/run.sh sets up the session). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <paleventing.h>

#include "bench.h"

extern char **environ;

#define MAX_ROUNDS 101
#define MAX_ROWS 32
#define ALLOC_ITERS 1000
#define GEN_RUNS 5
/* A name no EventSource event of the benchmark contains: the filtered-out case. */
#define NAME_FILTER "PALEV_EVENTNAME_FILTER=NoSuchEventName"

/* ---- options ----------------------------------------------------------------------------- */

static struct {
    int rounds;
    uint64_t off_iters;     /* iterations of a disabled loop */
    uint64_t on_iters;      /* events of an enabled loop */
    uint64_t thread_iters;  /* events per thread, row 8 */
    const char *enable_cmd; /* shell command that makes a session listen to EventSource */
    const char *track_cmd;  /* shell command that adds a pid (appended) to the session */
    const char *gen;        /* palev-gen, for row 7 */
    const char *manifest;   /* its input, for row 7 */
    const char *child;      /* internal: run one part in a child process */
    const char *loop;       /* run only this loop (for perf) */
    int expect_session;     /* fail unless the session records the enabled events */
    const char *usdt_cmd;   /* row 9: shell command attaching a USDT consumer to the pid after it */
} opt = { 11, 20000000, 40000, 200000, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL };

/* Events this process fired while their tracepoint was enabled: what the trace must hold. */
static uint64_t fired;

/* ---- timing ------------------------------------------------------------------------------ */

static double clock_ns(clockid_t clock)
{
    struct timespec ts;

    clock_gettime(clock, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Wall time, for whole processes (row 7) and threads (row 8). */
static double now_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

/* CPU time of the calling thread, for the loops: time other processes take from this thread on
 * a shared machine does not count (their cache and frequency effects still do). */
static double cpu_ns(void)
{
    return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One variant of a comparison: a loop, how many iterations, whether they reach the trace. */
struct variant {
    bench_loop fn;
    uint64_t iters;
    int recorded;
    double ns;      /* median ns per iteration */
    double allocs;  /* heap allocations per iteration */
    double samples[MAX_ROUNDS]; /* ns per iteration, round by round */
};

static double time_loop(const struct variant *v)
{
    double t0 = cpu_ns();

    v->fn(v->iters);
    return (cpu_ns() - t0) / (double)v->iters;
}

/* The variants of one comparison, in rounds: each round runs every variant once, the order
 * reversed every other round, so that drift and noise hit all of them alike. Then the
 * allocations of each, counted over ALLOC_ITERS more iterations after the warm-up. */
static void measure(struct variant *v, int nv)
{
    double sorted[MAX_ROUNDS];

    for (int k = 0; k < nv; k++) {
        v[k].fn(v[k].iters / 10 + 1);
        fired += v[k].recorded ? v[k].iters / 10 + 1 : 0;
    }
    for (int r = 0; r < opt.rounds; r++) {
        for (int j = 0; j < nv; j++) {
            int k = r % 2 ? nv - 1 - j : j;

            v[k].samples[r] = time_loop(&v[k]);
            fired += v[k].recorded ? v[k].iters : 0;
        }
    }
    for (int k = 0; k < nv; k++) {
        uint64_t before = bench_allocs();

        v[k].fn(ALLOC_ITERS);
        v[k].allocs = (double)(bench_allocs() - before) / ALLOC_ITERS;
        fired += v[k].recorded ? ALLOC_ITERS : 0;
        memcpy(sorted, v[k].samples, sizeof(sorted));
        v[k].ns = median(sorted, opt.rounds);
    }
}

/* ---- the table --------------------------------------------------------------------------- */

struct row {
    char id[4];
    char what[64];
    char value[24];
    char allocs[12];
    char base[48];
    char base_value[24];
    char base_allocs[12];
    char ratio[12];
    char target[40];
};

static struct row rows[MAX_ROWS];
static int nrows;

static struct row *row_new(const char *id, const char *what, const char *base)
{
    struct row *r = &rows[nrows < MAX_ROWS - 1 ? nrows++ : nrows];

    memset(r, 0, sizeof(*r));
    snprintf(r->id, sizeof(r->id), "%s", id);
    snprintf(r->what, sizeof(r->what), "%s", what);
    snprintf(r->base, sizeof(r->base), "%s", base);
    return r;
}

static void fmt_allocs(char *buf, size_t size, double a)
{
    if (a == 0)
        snprintf(buf, size, "0");
    else
        snprintf(buf, size, "%.2f", a);
}

static void fmt_ns(char *buf, size_t size, double ns)
{
    snprintf(buf, size, ns < 10 ? "%.2f ns" : ns < 100 ? "%.1f ns" : "%.0f ns", ns);
}

/* A row comparing variant a with baseline b, ns/op; target "<= X" on the ratio when max > 0. */
static struct row *row_ns(const char *id, const char *what, const struct variant *a,
                          const char *base, const struct variant *b, double max_ratio)
{
    struct row *r = row_new(id, what, base);
    double ratios[MAX_ROUNDS], ratio;

    /* Each round's own ratio: a and b ran next to each other, under the same conditions. */
    for (int i = 0; i < opt.rounds; i++)
        ratios[i] = a->samples[i] / b->samples[i];
    ratio = median(ratios, opt.rounds);

    fmt_ns(r->value, sizeof(r->value), a->ns);
    fmt_allocs(r->allocs, sizeof(r->allocs), a->allocs);
    fmt_ns(r->base_value, sizeof(r->base_value), b->ns);
    fmt_allocs(r->base_allocs, sizeof(r->base_allocs), b->allocs);
    snprintf(r->ratio, sizeof(r->ratio), "%.2f", ratio);
    if (max_ratio > 0)
        snprintf(r->target, sizeof(r->target), "<= %.2fx: %s", max_ratio,
                 ratio <= max_ratio ? "met" : "MISSED");
    return r;
}

/* A row whose variant was not measured, with the reason. */
static void row_skipped(const char *id, const char *what, const char *why)
{
    struct row *r = row_new(id, what, why);

    snprintf(r->value, sizeof(r->value), "-");
}

static void print_rule(void)
{
    printf("%.*s\n", 4 + 60 + 10 + 7 + 44 + 10 + 7 + 7 + 20 + 8,
           "------------------------------------------------------------------------------------"
           "------------------------------------------------------------------------------------"
           "--------------------------------------------------------------------------------");
}

/* Rows in the order of their numbers (they are measured in another order). */
static void sort_rows(void)
{
    for (int i = 1; i < nrows; i++) {
        struct row r = rows[i];
        int j = i;

        for (; j > 0 && strcmp(rows[j - 1].id, r.id) > 0; j--)
            rows[j] = rows[j - 1];
        rows[j] = r;
    }
}

static void print_table(void)
{
    sort_rows();
    print_rule();
    printf("%-4s %-59s %9s %6s | %-43s %9s %6s | %6s | %s\n", "row", "measured", "value",
           "alloc", "baseline", "value", "alloc", "ratio", "target");
    print_rule();
    for (int i = 0; i < nrows; i++) {
        const struct row *r = &rows[i];

        printf("%-4s %-59s %9s %6s | %-43s %9s %6s | %6s |%s%s\n", r->id, r->what, r->value,
               r->allocs, r->base, r->base_value, r->base_allocs, r->ratio, r->target[0] ? " " : "",
               r->target);
    }
    print_rule();
    printf("value: median of %d interleaved rounds; ns: CPU time of the calling thread per call; "
           "row 7: wall ms per run, median of %d; row 8: wall-clock million events/s\n"
           "alloc: heap allocations per call, counted by the malloc interposer; ratio: median of "
           "the rounds' value / baseline\n", opt.rounds, GEN_RUNS);
}

/* ---- rows 1-4: typed events -------------------------------------------------------------- */

static void row1_disabled(void)
{
    struct variant v[3] = {
        { .fn = bench_empty, .iters = opt.off_iters },
        { .fn = bench_fire_off, .iters = opt.off_iters },
        { .fn = bench_raw_off, .iters = opt.off_iters },
    };

    if (bench_off_enabled()) {
        row_skipped("1", "disabled events", "a session enables the *Off events: skipped");
        return;
    }
    measure(v, 3);
    row_ns("1", "FireEventSmallOff() disabled (4 int + 1 string)", &v[1],
           "empty loop iteration", &v[0], 1.10);
    row_ns("1", "raw lttng_ust_tracepoint() disabled, same fields", &v[2],
           "empty loop iteration", &v[0], 0);
    row_ns("1", "FireEventSmallOff() disabled", &v[1], "raw lttng_ust_tracepoint() disabled",
           &v[2], 0);
}

/* Variant a against baseline b, both recorded by the session. */
static void row_enabled(const char *id, const char *what, bench_loop a, const char *base,
                        bench_loop b, double max_ratio)
{
    struct variant v[2] = {
        { .fn = a, .iters = opt.on_iters, .recorded = 1 },
        { .fn = b, .iters = opt.on_iters, .recorded = 1 },
    };

    measure(v, 2);
    row_ns(id, what, &v[0], base, &v[1], max_ratio);
}

static void rows_enabled(int enabled)
{
    if (!enabled) {
        row_skipped("2-4", "enabled events", "no session records Palev_Bench: skipped");
        return;
    }
    row_enabled("2", "FireEventSmall(): 4 int + 1 UTF-8 string", bench_fire_small,
                "raw lttng_ust_tracepoint(), same fields", bench_raw_small, 1.05);
    {
        struct variant v[3] = {
            { .fn = bench_fire_text16, .iters = opt.on_iters, .recorded = 1 },
            { .fn = bench_fire_text8, .iters = opt.on_iters, .recorded = 1 },
            { .fn = bench_raw_text8, .iters = opt.on_iters, .recorded = 1 },
        };
        struct row *r;
        double per_char;

        measure(v, 3);
        r = row_ns("3", "FireEventText16(): 4 int + 3 x 32-char UTF-16", &v[0],
                   "FireEventText8(): 4 int + 3 x 32-char UTF-8", &v[1], 0);
        /* 3 strings of 32 characters: 96 UTF-16 units converted per event. */
        per_char = fmin(fmax((v[0].ns - v[1].ns) / 96, -99), 99);
        snprintf(r->target, sizeof(r->target), "<=1.15x, <=0.2 ns/ch: %.2f %s", per_char,
                 v[0].ns / v[1].ns <= 1.15 && per_char <= 0.2 ? "met" : "MISSED");
        row_ns("3", "FireEventText8(): 4 int + 3 x 32-char UTF-8", &v[1],
               "raw lttng_ust_tracepoint(), same fields", &v[2], 0);
    }
    row_enabled("4", "FireEventWide15(): 15 fields via the argument struct", bench_fire_wide,
                "raw: hand-filled struct, same 15 fields", bench_raw_wide, 0);
    row_enabled("4", "FireEventItems(): 8 structs x 4 int members", bench_fire_items,
                "raw: 4 sequences gathered by hand", bench_raw_items, 0);
}

/* ---- row 5: EventSource ------------------------------------------------------------------ */

/* The part of row 5 with nobody listening, before the session enables EventSource. */
static void row5_quiet(void)
{
    struct variant v[4] = {
        { .fn = bench_raw_json_off, .iters = opt.off_iters / 4 },
        { .fn = bench_es_pack, .iters = opt.off_iters / 4 },
        { .fn = bench_es_write, .iters = opt.off_iters / 4 },
        { .fn = bench_es_is_enabled, .iters = opt.off_iters / 4 },
    };

    if (palev_eventsource_is_enabled("Bench.Source", "Tick")) {
        row_skipped("5", "EventSource, nobody listening", "a session already listens: skipped");
        return;
    }
    measure(v, 4);
    for (int k = 1; k < 4; k++) {
        static const char *const what[4] = { NULL,
            "write_pack() \"{s:i, s:s}\", no session listening",
            "write() ready JSON, no session listening",
            "is_enabled(), no session listening" };
        struct row *r = row_ns("5", what[k], &v[k], "raw 1-string tracepoint, disabled", &v[0],
                               0);

        snprintf(r->target, sizeof(r->target), "< 2 ns: %s", v[k].ns < 2 ? "met" : "MISSED");
    }
}

static int run_shell(const char *cmd)
{
    char *argv[] = { (char *)"sh", (char *)"-c", (char *)cmd, NULL };
    pid_t pid;
    int status;

    if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) != 0)
        return -1;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

/* A session that tracks only the processes it is told about (run.sh) records this process and
 * its child, and nobody else's Paleventing:EventSource events. */
static void track(pid_t pid)
{
    char cmd[512];

    if (!opt.track_cmd)
        return;
    snprintf(cmd, sizeof(cmd), "%s %ld", opt.track_cmd, (long)pid);
    if (run_shell(cmd) != 0)
        fprintf(stderr, "palev-bench: failed: %s\n", cmd);
}

/* " allocs sample..." as the child prints it, into v. */
static int parse_child_line(const char *p, struct variant *v)
{
    double sorted[MAX_ROUNDS];
    char *end;

    v->allocs = strtod(p, &end);
    if (end == p)
        return -1;
    for (int r = 0; r < opt.rounds; r++) {
        p = end;
        v->samples[r] = strtod(p, &end);
        if (end == p)
            return -1;
    }
    memcpy(sorted, v->samples, sizeof(sorted));
    v->ns = median(sorted, opt.rounds);
    return 0;
}

/* Run this program again as a child with `env_add` in its environment and the option --child
 * `part`; read back its results, one "name ns allocs" line per variant. */
static int run_child(const char *part, const char *env_add, struct variant *v, int nv,
                     const char *const *names)
{
    char rounds[16];
    char *argv[] = { (char *)"palev-bench", (char *)"--child", (char *)part, (char *)"--rounds",
                     rounds, NULL };
    char **env;
    size_t n = 0;
    int fd[2], status, got = 0;
    posix_spawn_file_actions_t fa;
    pid_t pid;
    FILE *in;
    char line[4096];

    snprintf(rounds, sizeof(rounds), "%d", opt.rounds);
    while (environ[n])
        n++;
    env = calloc(n + 2, sizeof(*env));
    if (!env || pipe(fd) != 0) {
        free(env);
        return -ENOMEM;
    }
    memcpy(env, environ, n * sizeof(*env));
    env[n] = (char *)env_add;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    if (posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, env) != 0)
        pid = -1;
    else
        track(pid);
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    close(fd[1]);
    in = fdopen(fd[0], "r");
    while (in && fgets(line, sizeof(line), in)) {
        for (int k = 0; k < nv; k++) {
            if (strncmp(line, names[k], strlen(names[k])) == 0 && line[strlen(names[k])] == ' ')
                got += parse_child_line(line + strlen(names[k]), &v[k]) == 0;
        }
    }
    if (in)
        fclose(in);
    else
        close(fd[0]);
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return -ECHILD;
    return got == nv ? 0 : -EPROTO;
}

static const char *const filtered_names[3] = { "raw_json_off", "es_pack", "es_write" };

/* In the child: the session listens to EventSource, PALEV_EVENTNAME_FILTER rejects the name. */
static int child_filtered(void)
{
    struct variant v[3] = {
        { .fn = bench_raw_json_off, .iters = opt.off_iters / 4 },
        { .fn = bench_es_pack, .iters = opt.off_iters / 4 },
        { .fn = bench_es_write, .iters = opt.off_iters / 4 },
    };

    /* The parent adds this process to the session right after starting it. */
    for (int i = 0; i < 500 && !bench_raw_json_enabled(); i++)
        usleep(10000);
    if (!bench_raw_json_enabled())
        return 1;
    measure(v, 3);
    for (int k = 0; k < 3; k++) {
        printf("%s %.6f", filtered_names[k], v[k].allocs);
        for (int r = 0; r < opt.rounds; r++)
            printf(" %.6f", v[k].samples[r]);
        printf("\n");
    }
    return 0;
}

/* The session enables EventSource (opt.enable_cmd); the state reaches this process a moment
 * later. */
static int eventsource_listen(void)
{
    if (!opt.enable_cmd)
        return 0;
    if (run_shell(opt.enable_cmd) != 0) {
        fprintf(stderr, "palev-bench: failed: %s\n", opt.enable_cmd);
        return 0;
    }
    for (int i = 0; i < 500; i++) {
        if (palev_eventsource_is_enabled("Bench.Source", "Tick"))
            return 1;
        usleep(10000);
    }
    return 0;
}

static void row5_listening(void)
{
    struct variant f[3] = { { .fn = NULL } };
    int ret;

    if (!eventsource_listen()) {
        row_skipped("5", "EventSource, session listening", "no session listens: skipped");
        return;
    }
    ret = run_child("filtered", NAME_FILTER, f, 3, filtered_names);
    if (ret == 0) {
        struct row *r = row_ns("5", "write_pack(), listening, filtered out by name", &f[1],
                               "raw 1-string tracepoint, disabled", &f[0], 0);

        snprintf(r->target, sizeof(r->target), "< 3 ns: %s", f[1].ns < 3 ? "met" : "MISSED");
        r = row_ns("5", "write() ready JSON, listening, filtered out by name", &f[2],
                   "raw 1-string tracepoint, disabled", &f[0], 0);
        snprintf(r->target, sizeof(r->target), "< 3 ns: %s", f[2].ns < 3 ? "met" : "MISSED");
    } else {
        row_skipped("5", "EventSource filtered out by name", "child process failed");
    }
    row_enabled("5", "write_pack() \"{s:i, s:s}\", recorded", bench_es_pack,
                "raw 1-string tracepoint, same JSON", bench_raw_json, 0);
    row_enabled("5", "write() ready JSON, recorded", bench_es_write,
                "raw 1-string tracepoint, same JSON", bench_raw_json, 0);
}

/* ---- row 6: allocations of typed events -------------------------------------------------- */

static void row6_allocs(void)
{
    double worst = 0;
    struct row *r;

    for (int i = 0; i < nrows; i++) {
        if (rows[i].id[0] >= '1' && rows[i].id[0] <= '4' && rows[i].value[0] != '-') {
            double a = atof(rows[i].allocs), b = atof(rows[i].base_allocs);

            worst = a > worst ? a : worst;
            worst = b > worst ? b : worst;
        }
    }
    r = row_new("6", "heap allocations per typed event (rows 1-4), most", "");
    fmt_allocs(r->allocs, sizeof(r->allocs), worst);
    snprintf(r->value, sizeof(r->value), "-");
    snprintf(r->target, sizeof(r->target), "0: %s", worst == 0 ? "met" : "MISSED");
}

/* ---- row 7: palev-gen -------------------------------------------------------------------- */

static double spawn_wait_ms(char *const argv[])
{
    double t0 = now_ns();
    pid_t pid;
    int status;

    if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0)
        return -1;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return (now_ns() - t0) / 1e6;
}

static void row7_generate(void)
{
    char base[] = "/tmp/palev-bench-gen-XXXXXX", dir[64];
    double ms[GEN_RUNS];
    struct row *r;
    const char *slash = strrchr(opt.manifest, '/');
    char what[64];

    if (!mkdtemp(base)) {
        row_skipped("7", "palev-gen generate", "mkdtemp failed");
        return;
    }
    for (int k = 0; k < GEN_RUNS; k++) {
        char *argv[] = { (char *)opt.gen, (char *)"generate", (char *)"-o", dir,
                         (char *)opt.manifest, NULL };

        snprintf(dir, sizeof(dir), "%s/run%d", base, k);
        ms[k] = spawn_wait_ms(argv);
        if (ms[k] < 0)
            break;
    }
    {
        char *argv[] = { (char *)"/bin/rm", (char *)"-rf", base, NULL };

        spawn_wait_ms(argv);
    }
    snprintf(what, sizeof(what), "palev-gen generate %s", slash ? slash + 1 : opt.manifest);
    for (int k = 0; k < GEN_RUNS; k++) {
        if (ms[k] < 0) {
            row_skipped("7", what, "palev-gen failed");
            return;
        }
    }
    r = row_new("7", what, "target");
    snprintf(r->value, sizeof(r->value), "%.1f ms", median(ms, GEN_RUNS));
    snprintf(r->base_value, sizeof(r->base_value), "100 ms");
    snprintf(r->ratio, sizeof(r->ratio), "%.2f", median(ms, GEN_RUNS) / 100);
    snprintf(r->target, sizeof(r->target), "< 100 ms: %s", median(ms, GEN_RUNS) < 100 ? "met" :
             "MISSED");
    snprintf(r->allocs, sizeof(r->allocs), "-");
}

/* ---- row 8: threads ---------------------------------------------------------------------- */

struct worker {
    pthread_t tid;
    pthread_barrier_t *go;
    double start, end;  /* wall time */
    double cpu;         /* CPU time of the loop */
    uint64_t allocs;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    uint64_t before = bench_allocs();
    double cpu0;

    pthread_barrier_wait(w->go);
    w->start = now_ns();
    cpu0 = cpu_ns();
    bench_fire_small(opt.thread_iters);
    w->cpu = cpu_ns() - cpu0;
    w->end = now_ns();
    w->allocs = bench_allocs() - before;
    return NULL;
}

struct threads_result {
    double rate;    /* million events per second, wall time, all threads */
    double cpu;     /* CPU ns per event, all threads */
    double allocs;  /* per event */
};

/* `n` threads, released together, each firing opt.thread_iters enabled events. */
static struct threads_result threads_run(int n)
{
    struct worker w[2];
    pthread_barrier_t go;
    double start = 0, end = 0, cpu = 0;
    uint64_t allocs = 0, events = (uint64_t)n * opt.thread_iters;

    pthread_barrier_init(&go, NULL, (unsigned)n);
    for (int k = 0; k < n; k++) {
        w[k].go = &go;
        pthread_create(&w[k].tid, NULL, worker_main, &w[k]);
    }
    for (int k = 0; k < n; k++) {
        pthread_join(w[k].tid, NULL);
        start = k == 0 || w[k].start < start ? w[k].start : start;
        end = w[k].end > end ? w[k].end : end;
        cpu += w[k].cpu;
        allocs += w[k].allocs;
    }
    pthread_barrier_destroy(&go);
    fired += events;
    return (struct threads_result){ (double)events / (end - start) * 1e3, cpu / (double)events,
                                    (double)allocs / (double)events };
}

static void row8_threads(void)
{
    double rate[2][MAX_ROUNDS], cpu[2][MAX_ROUNDS], allocs[2] = { 0, 0 };
    double rate_ratio[MAX_ROUNDS], cpu_ratio[MAX_ROUNDS];
    int rounds = opt.rounds < 7 ? opt.rounds : 7;
    struct row *r;

    for (int i = 0; i < rounds; i++) {
        for (int j = 0; j < 2; j++) {
            int k = i % 2 ? 1 - j : j;
            struct threads_result t = threads_run(k + 1);

            rate[k][i] = t.rate;
            cpu[k][i] = t.cpu;
            allocs[k] = t.allocs > allocs[k] ? t.allocs : allocs[k];
        }
    }
    /* Per-round ratios first: median() sorts in place. */
    for (int i = 0; i < rounds; i++) {
        rate_ratio[i] = rate[1][i] / rate[0][i];
        cpu_ratio[i] = cpu[1][i] / cpu[0][i];
    }
    r = row_new("8", "2 threads firing FireEventSmall(): events/s, wall", "1 thread");
    snprintf(r->ratio, sizeof(r->ratio), "%.2f", median(rate_ratio, rounds));
    snprintf(r->value, sizeof(r->value), "%.2f M/s", median(rate[1], rounds));
    snprintf(r->base_value, sizeof(r->base_value), "%.2f M/s", median(rate[0], rounds));
    fmt_allocs(r->allocs, sizeof(r->allocs), allocs[1]);
    fmt_allocs(r->base_allocs, sizeof(r->base_allocs), allocs[0]);
    snprintf(r->target, sizeof(r->target), "ideal 2.00 on 2 idle CPUs");
    r = row_new("8", "2 threads: CPU time per event", "1 thread");
    snprintf(r->ratio, sizeof(r->ratio), "%.2f", median(cpu_ratio, rounds));
    fmt_ns(r->value, sizeof(r->value), median(cpu[1], rounds));
    fmt_ns(r->base_value, sizeof(r->base_value), median(cpu[0], rounds));
    snprintf(r->target, sizeof(r->target), "1.00: no contention");
}

/* ---- rows 1u, 2u, 9: a --usdt build ------------------------------------------------------ */

#ifdef PALEV_BENCH_USDT
static void row1u_disabled(void)
{
    struct variant v[3] = {
        { .fn = bench_empty, .iters = opt.off_iters },
        { .fn = bench_usdt_fire_off, .iters = opt.off_iters },
        { .fn = bench_fire_off, .iters = opt.off_iters },
    };

    if (bench_off_enabled() || bench_usdt_off_enabled()) {
        row_skipped("1u", "disabled events, --usdt build", "a session or tool enables *Off: skipped");
        return;
    }
    measure(v, 3);
    row_ns("1u", "FireEventSmallOff() disabled, --usdt build", &v[1], "empty loop iteration", &v[0],
           1.10);
    row_ns("1u", "FireEventSmallOff() disabled, --usdt build", &v[1],
           "FireEventSmallOff() disabled, no USDT", &v[2], 0);
}

static void row2u_enabled(int enabled)
{
    if (!enabled || !bench_usdt_small_enabled()) {
        row_skipped("2u", "enabled events, --usdt build", "no session records Palev_BenchUsdt: skipped");
        return;
    }
    row_enabled("2u", "FireEventSmall() recorded, --usdt build, no tool", bench_usdt_fire_small,
                "FireEventSmall() recorded, no USDT", bench_fire_small, 1.02);
}

/* opt.usdt_cmd (bpftrace counting hits of Palev_BenchUsdt:SmallOff) attached to this process:
 * returns its pid once the probe's semaphore is up, else -1. */
static pid_t usdt_attach(void)
{
    char cmd[1024];
    char *argv[] = { (char *)"sh", (char *)"-c", cmd, NULL };
    pid_t pid;

    snprintf(cmd, sizeof(cmd), "exec %s %ld", opt.usdt_cmd, (long)getpid());
    if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) != 0)
        return -1;
    for (int i = 0; i < 3000 && !bench_usdt_off_enabled(); i++) {
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return -1;
        usleep(10000);
    }
    if (bench_usdt_off_enabled())
        return pid;
    kill(pid, SIGINT);
    waitpid(pid, NULL, 0);
    return -1;
}

static void row9_usdt_hit(int enabled)
{
    struct variant v[2] = {
        { .fn = bench_usdt_fire_off, .iters = opt.on_iters },
        { .fn = bench_usdt_fire_small, .iters = opt.on_iters, .recorded = 1 },
    };
    pid_t pid;

    if (!opt.usdt_cmd || !enabled || !bench_usdt_small_enabled()) {
        row_skipped("9", "USDT hit under bpftrace", "no --usdt-cmd or no session: skipped");
        return;
    }
    pid = usdt_attach();
    if (pid < 0) {
        row_skipped("9", "USDT hit under bpftrace", "the tool did not attach (root? uprobes?)");
        return;
    }
    measure(v, 2);
    row_ns("9", "USDT hit: FireEventSmallOff(), bpftrace count()", &v[0],
           "LTTng record: FireEventSmall(), --usdt build", &v[1], 0);
    kill(pid, SIGINT);
    waitpid(pid, NULL, 0);
}
#else
static void row1u_disabled(void)
{
    row_skipped("1u", "--usdt build", "built without sys/sdt.h: skipped");
}

static void row2u_enabled(int enabled)
{
    (void)enabled;
}

static void row9_usdt_hit(int enabled)
{
    (void)enabled;
}
#endif

/* ---- profiling one loop ------------------------------------------------------------------ */

static const struct {
    const char *name;
    bench_loop fn;
} loops[] = {
    { "empty", bench_empty }, { "fire_off", bench_fire_off }, { "raw_off", bench_raw_off },
    { "fire_small", bench_fire_small }, { "raw_small", bench_raw_small },
    { "fire_text16", bench_fire_text16 }, { "fire_text8", bench_fire_text8 },
    { "raw_text8", bench_raw_text8 }, { "fire_wide", bench_fire_wide },
    { "raw_wide", bench_raw_wide }, { "fire_items", bench_fire_items },
    { "raw_items", bench_raw_items }, { "es_pack", bench_es_pack }, { "es_write", bench_es_write },
    { "es_is_enabled", bench_es_is_enabled }, { "raw_json", bench_raw_json },
    { "raw_json_off", bench_raw_json_off }, { "dyn_writef", bench_dyn_writef },
    { "dyn_write", bench_dyn_write },
};

/* --loop NAME N: only that loop, N iterations, and its time per iteration (for perf). */
static int run_one(const char *name, uint64_t n)
{
    for (size_t k = 0; k < sizeof(loops) / sizeof(loops[0]); k++) {
        if (strcmp(loops[k].name, name) == 0) {
            struct variant v = { .fn = loops[k].fn, .iters = n };

            /* Dynamic events exist once defined; a session's wildcard reaches them soon after. */
            if (strncmp(name, "dyn_", 4) == 0 && bench_dyn_define() == 0)
                for (int i = 0; i < 300 && !bench_dyn_enabled(); i++)
                    usleep(10000);
            printf("%s: %.2f ns per iteration\n", name, time_loop(&v));
            return 0;
        }
    }
    fprintf(stderr, "palev-bench: no loop \"%s\"\n", name);
    return 2;
}

/* ---- row 10: dynamic events --------------------------------------------------------------- */

static const char *const lookup_child_names[2] = { "empty", "lookup" };

/* In the child (PALEV_LTTNG=0: registration with LTTng is not what is measured): lookups by
 * name among 10 000 defined events. */
static int child_lookup(void)
{
    struct variant v[2] = {
        { .fn = bench_empty, .iters = opt.off_iters / 10 },
        { .fn = bench_lookup, .iters = opt.off_iters / 10 },
    };

    if (bench_lookup_define() != 0)
        return 1;
    measure(v, 2);
    for (int k = 0; k < 2; k++) {
        printf("%s %.6f", lookup_child_names[k], v[k].allocs);
        for (int r = 0; r < opt.rounds; r++)
            printf(" %.6f", v[k].samples[r]);
        printf("\n");
    }
    return 0;
}

static void row9_lookup(void)
{
    struct variant v[2] = { { .fn = NULL } };
    struct row *r;

    if (run_child("lookup", "PALEV_LTTNG=0", v, 2, lookup_child_names) != 0) {
        row_skipped("10", "palev_event_lookup()", "child process failed");
        return;
    }
    r = row_ns("10", "palev_event_lookup(), 10 000 events defined", &v[1],
               "empty loop iteration", &v[0], 0);
    snprintf(r->target, sizeof(r->target), "< 30 ns: %s", v[1].ns < 30 ? "met" : "MISSED");
}

/* Waits for the session's enabler to reach the event defined just now (it is at once). */
static int dyn_records(void)
{
    for (int i = 0; i < 300 && !bench_dyn_enabled(); i++)
        usleep(10000);
    return bench_dyn_enabled();
}

static void row9_dynamic(int enabled)
{
    struct variant off[2] = {
        { .fn = bench_empty, .iters = opt.off_iters },
        { .fn = bench_dyn_off, .iters = opt.off_iters },
    };

    if (bench_dyn_define() != 0) {
        row_skipped("10", "dynamic events", "palev_event_define() failed");
        return;
    }
    if (!bench_dyn_off_enabled()) {
        measure(off, 2);
        row_ns("10", "PALEV_EVENT_WRITE() disabled (4 int + 1 string)", &off[1],
               "empty loop iteration", &off[0], 1.10);
    }
    if (!enabled || !dyn_records()) {
        row_skipped("10", "dynamic events, enabled", "no session records Bench_Dyn:Small");
    } else {
        struct variant v[4] = {
            { .fn = bench_dyn_writef, .iters = opt.on_iters, .recorded = 1 },
            { .fn = bench_dyn_write, .iters = opt.on_iters, .recorded = 1 },
            { .fn = bench_fire_small, .iters = opt.on_iters, .recorded = 1 },
            { .fn = bench_es_pack_small, .iters = opt.on_iters / 4, .recorded = 1 },
        };
        struct row *r;

        measure(v, 4);
        row_ns("10", "PALEV_EVENT_WRITE() varargs, 4 int + 1 string", &v[0],
               "FireEventSmall(), same fields", &v[2], 1.25);
        row_ns("10", "palev_event_write() values array, same", &v[1],
               "FireEventSmall(), same fields", &v[2], 1.25);
        r = row_ns("10", "PALEV_EVENT_WRITE() varargs, 4 int + 1 string", &v[0],
                   "write_pack(), the same payload as JSON", &v[3], 0);
        snprintf(r->target, sizeof(r->target), ">=4x, 0 alloc: %s",
                 v[3].ns / v[0].ns >= 4 && v[0].allocs == 0 ? "met" : "MISSED");
    }
    row9_lookup();
}

/* ---- main -------------------------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr,
            "usage: palev-bench [--rounds N] [--quick] [--expect-session] [--enable-cmd CMD]\n"
            "                   [--track-cmd CMD] [--gen PALEV_GEN --manifest MANIFEST]\n"
            "                   [--usdt-cmd CMD]\n"
            "       palev-bench --loop NAME\n"
            "Run inside an LTTng session recording Palev_Bench:* and palev_bench_raw:* except\n"
            "the *Off events (tests/bench/run.sh does it). --enable-cmd: a shell command that\n"
            "makes it listen to Paleventing:EventSource; --track-cmd: one that adds the pid\n"
            "given after it to the session. --usdt-cmd: one that attaches a USDT consumer of\n"
            "Palev_BenchUsdt:SmallOff to the pid given after it (row 9).\n");
    return 2;
}

static int parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

        if (strcmp(a, "--quick") == 0) {
            opt.rounds = 3;
            opt.off_iters = 1000000;
            opt.on_iters = 2000;
            opt.thread_iters = 5000;
            continue;
        }
        if (strcmp(a, "--expect-session") == 0) {
            opt.expect_session = 1;
            continue;
        }
        if (!val)
            return -1;
        if (strcmp(a, "--rounds") == 0)
            opt.rounds = atoi(val);
        else if (strcmp(a, "--enable-cmd") == 0)
            opt.enable_cmd = val;
        else if (strcmp(a, "--track-cmd") == 0)
            opt.track_cmd = val;
        else if (strcmp(a, "--gen") == 0)
            opt.gen = val;
        else if (strcmp(a, "--manifest") == 0)
            opt.manifest = val;
        else if (strcmp(a, "--child") == 0)
            opt.child = val;
        else if (strcmp(a, "--usdt-cmd") == 0)
            opt.usdt_cmd = val;
        else if (strcmp(a, "--loop") == 0)
            opt.loop = val;
        else
            return -1;
        i++;
    }
    if (opt.rounds < 1 || opt.rounds > MAX_ROUNDS || (!opt.gen != !opt.manifest))
        return -1;
    return 0;
}

/* Wait (a little) for the session's enablers to reach this process. */
static int session_records(void)
{
    for (int i = 0; i < 300; i++) {
        if (bench_small_enabled() && bench_raw_small_enabled())
            return 1;
        if (!opt.expect_session)
            return 0;
        usleep(10000);
    }
    return 0;
}

int main(int argc, char **argv)
{
    int enabled;

    if (parse_args(argc, argv) != 0)
        return usage();
    if (opt.child)
        return strcmp(opt.child, "filtered") == 0 ? child_filtered()
               : strcmp(opt.child, "lookup") == 0 ? child_lookup() : usage();
    if (opt.loop)
        return run_one(opt.loop, opt.on_iters * 25);
    if (bench_raw_loaded() != 0) {
        fprintf(stderr, "palev-bench: the raw probe provider is missing\n");
        return 1;
    }
    track(getpid());
    enabled = session_records();
    if (opt.expect_session && !enabled) {
        fprintf(stderr, "palev-bench: no session records Palev_Bench:Small and "
                        "palev_bench_raw:Small\n");
        return 1;
    }
    row1_disabled();
    row1u_disabled();
    row5_quiet();
    rows_enabled(enabled);
    row2u_enabled(enabled);
    row5_listening();
    row6_allocs();
    row9_dynamic(enabled);
    if (opt.gen)
        row7_generate();
    if (enabled)
        row8_threads();
    else
        row_skipped("8", "threads", "no session records Palev_Bench: skipped");
    row9_usdt_hit(enabled);
    print_table();
    printf("events fired into the session: %llu\n", (unsigned long long)fired);
    return 0;
}
