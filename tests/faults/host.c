/* SPDX-License-Identifier: MIT */
/* The fault tests' host: threads fire Palev_Faults events whose fields check each other (see
 * check_trace.py) while the test breaks things around it. Prints what it fired and how long it
 * took; exits 0 unless a thread or a forked child failed.
 *
 * usage: fault_host [--threads N] [--seconds S | --count C] [--pace-us U] [--fork] [--big]
 *   --seconds S  fire for S seconds (default 2); --count C: exactly C Ticks per thread
 *   --stop-file F  stop as soon as file F exists (within S seconds at most)
 *   --pace-us U  pause U microseconds after each Tick (default 0: as fast as possible)
 *   --fork       halfway, fork: the child starts its own threads, fires for the same time and
 *                exits 0; the parent keeps firing, then waits for the child
 *   --big        each thread also fires, once, a 64 KiB string (65 536 characters, UTF-16 and
 *                ANSI), a 100 000-element integer array and a 100 000-element double array
 *   --es-big     each thread also records, once, two EventSource events with a 1 MiB payload:
 *                JSON text with whitespace (compacted by the library) and a json_pack format
 *   --atfork     wire liblttng-ust's fork hooks with pthread_atfork(), reached through the
 *                liblttng-ust the probe provider loaded (what libpaleventing could do itself)
 *   --exit-firing  when the time is up, exit(0) from main while the threads go on firing, each
 *                Tick followed by an EventSource event {"thread":t,"seq":n} (as a runtime's
 *                GC and pool threads run on while exit() runs) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* nanosleep, pthread */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "Palev_Faults-events.h"

#define MAX_THREADS 16
#define BIG_STRING 65536
#define BIG_ARRAY 100000
#define ES_TEXT (1024 * 1024)

static struct {
    unsigned threads;
    double seconds;
    uint64_t count;         /* 0: run for `seconds` */
    long pace_us;
    int fork, big, atfork, es_big, exit_firing;
    const char *stop_file;
} opt = { 2, 2.0, 0, 0, 0, 0, 0, 0, 0, NULL };

static atomic_int stop;

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The values check_trace.py recomputes from (Thread, Seq). */
static uint64_t check_of(uint32_t t, uint64_t seq)
{
    return (seq * 0x9E3779B97F4A7C15u) ^ ((uint64_t)t << 40) ^ 0xFA17u;
}

/* "t<t>/<seq> é日😀" as UTF-16 */
static void text_of(char16_t *out, uint32_t t, uint64_t seq)
{
    static const char16_t tail[] = { u' ', 0x00E9, 0x65E5, 0xD83D, 0xDE00, 0 };
    char ascii[48];
    int n = snprintf(ascii, sizeof(ascii), "t%" PRIu32 "/%" PRIu64, t, seq);

    for (int k = 0; k < n; k++)
        out[k] = (char16_t)ascii[k];
    memcpy(out + n, tail, sizeof(tail));
}

static void tick(uint32_t t, uint64_t seq)
{
    char16_t text[64];
    uint32_t values[8];
    uint16_t n = (uint16_t)(seq % 8);

    for (uint16_t k = 0; k < n; k++)
        values[k] = (uint32_t)(seq + k);
    text_of(text, t, seq);
    FireEventTick(t, seq, check_of(t, seq), text, n, values);
}

/* Character k of the big strings: 'a' + (k * 7 + t) % 26, so a shifted or cut copy shows. */
static int fire_big(uint32_t t)
{
    char16_t *wide = malloc((BIG_STRING + 1) * sizeof(*wide));
    char *narrow = malloc(BIG_STRING + 1);
    uint32_t *ints = malloc(BIG_ARRAY * sizeof(*ints));
    double *doubles = malloc(BIG_ARRAY * sizeof(*doubles));

    if (!wide || !narrow || !ints || !doubles) {
        fprintf(stderr, "fault_host: out of memory\n");
        return -1;
    }
    for (uint32_t k = 0; k < BIG_STRING; k++)
        wide[k] = (char16_t)(narrow[k] = (char)('a' + (k * 7 + t) % 26));
    wide[BIG_STRING] = 0;
    narrow[BIG_STRING] = '\0';
    for (uint32_t k = 0; k < BIG_ARRAY; k++) {
        ints[k] = k * 2654435761u + t;
        doubles[k] = k + 0.5;
    }
    FireEventBigString(BIG_STRING, wide, BIG_STRING, narrow);
    FireEventBigArray(BIG_ARRAY, ints);
    FireEventBigDoubles(BIG_ARRAY, doubles);
    free(wide);
    free(narrow);
    free(ints);
    free(doubles);
    return 0;
}

/* {"thread":t,"text":"<1 MiB>"} with whitespace, and the same through json_pack(). */
static int fire_es_big(uint32_t t)
{
    char *text = malloc(ES_TEXT + 1), *json = malloc(ES_TEXT + 64);
    int a, b;

    if (!text || !json) {
        fprintf(stderr, "fault_host: out of memory\n");
        return -1;
    }
    for (uint32_t k = 0; k < ES_TEXT; k++)
        text[k] = (char)('a' + (k * 7 + t) % 26);
    text[ES_TEXT] = '\0';
    snprintf(json, ES_TEXT + 64, "{ \"thread\" : %" PRIu32 " ,\n  \"text\" : \"%s\" }", t, text);
    a = palev_eventsource_write("Palev.Faults", (int32_t)(1000 + t), "BigText", json);
    b = palev_eventsource_write_pack("Palev.Faults", (int32_t)(2000 + t), "BigPack", "{s:i,s:s}",
                                     "thread", (int)t, "text", text);
    free(text);
    free(json);
    if (a || b) {
        fprintf(stderr, "fault_host: palev_eventsource_write: %s; _pack: %s\n", palev_strerror(a),
                palev_strerror(b));
        return -1;
    }
    return 0;
}

struct worker {
    pthread_t tid;
    uint32_t t;
    uint64_t fired;
    int failed;
};

static void *run(void *arg)
{
    struct worker *w = arg;
    const struct timespec pause = { 0, opt.pace_us * 1000 };

    if (opt.big && fire_big(w->t))
        w->failed = 1;
    if (opt.es_big && fire_es_big(w->t))
        w->failed = 1;
    while (opt.count ? w->fired < opt.count : !atomic_load(&stop)) {
        if (opt.exit_firing)
            palev_eventsource_write_pack("Palev.Faults", 3000, "Exit", "{s:i,s:i}", "thread",
                                         (int)w->t, "seq", (int)w->fired);
        tick(w->t, w->fired++);
        if (opt.pace_us)
            nanosleep(&pause, NULL);
    }
    return NULL;
}

/* Start the threads (numbered from `first`), fire for the time asked (or until each fired its
 * count), stop and join them. Returns 0, or 1 when a thread failed. */
static int fire_all(uint32_t first, const char *who, int fork_halfway);

static int fork_child(void)
{
    pid_t pid = fork();

    if (pid < 0) {
        fprintf(stderr, "fault_host: fork: %s\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        atomic_store(&stop, 0);
        _exit(fire_all(100, "child", 0));
    }
    return pid;
}

static int fire_all(uint32_t first, const char *who, int fork_halfway)
{
    struct worker w[MAX_THREADS] = { 0 };
    double start = now();
    int failed = 0, status;
    pid_t child = 0;

    for (unsigned i = 0; i < opt.threads; i++) {
        w[i].t = first + i;
        if (pthread_create(&w[i].tid, NULL, run, &w[i]) != 0) {
            fprintf(stderr, "fault_host: cannot create a thread\n");
            return 1;
        }
    }
    printf("%s %d firing\n", who, (int)getpid());
    fflush(stdout);
    if (!opt.count) {
        const struct timespec step = { 0, 10 * 1000 * 1000 };

        while (now() - start < opt.seconds && !(opt.stop_file && access(opt.stop_file, F_OK) == 0)) {
            if (fork_halfway && !child && now() - start >= opt.seconds / 2 &&
                (child = fork_child()) < 0)
                failed = 1;
            nanosleep(&step, NULL);
        }
        if (opt.exit_firing) {
            printf("%s exits while firing\n", who);
            fflush(stdout);
            exit(failed);
        }
        atomic_store(&stop, 1);
    }
    for (unsigned i = 0; i < opt.threads; i++) {
        pthread_join(w[i].tid, NULL);
        failed |= w[i].failed;
        printf("%s thread %" PRIu32 " fired %" PRIu64 "\n", who, w[i].t, w[i].fired);
    }
    printf("%s elapsed_ms %.0f\n", who, (now() - start) * 1000);
    if (child > 0) {
        if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)) {
            fprintf(stderr, "fault_host: the child %d failed (status 0x%x)\n", (int)child, status);
            failed = 1;
        } else {
            printf("child %d exited 0\n", (int)child);
        }
    }
    fflush(stdout);
    return failed;
}

/* ---- liblttng-ust's fork hooks around fork(), without linking liblttng-ust ---------------- */

typedef void fork_hook(sigset_t *set);
static fork_hook *before_fork, *after_fork_parent, *after_fork_child;
/* prepare and parent/child handlers run in the forking thread */
static __thread sigset_t fork_sigset;

static void on_prepare(void)
{
    before_fork(&fork_sigset);
}

static void on_parent(void)
{
    after_fork_parent(&fork_sigset);
}

static void on_child(void)
{
    after_fork_child(&fork_sigset);
}

static int wire_fork_hooks(void)
{
    void *ust = dlopen("liblttng-ust.so.1", RTLD_NOW | RTLD_NOLOAD);

    if (!ust)
        return 0;   /* no provider loaded liblttng-ust: nothing to keep consistent */
    before_fork = (fork_hook *)dlsym(ust, "lttng_ust_before_fork");
    after_fork_parent = (fork_hook *)dlsym(ust, "lttng_ust_after_fork_parent");
    after_fork_child = (fork_hook *)dlsym(ust, "lttng_ust_after_fork_child");
    if (!before_fork || !after_fork_parent || !after_fork_child) {
        fprintf(stderr, "fault_host: liblttng-ust has no fork hooks\n");
        return -1;
    }
    return pthread_atfork(on_prepare, on_parent, on_child) ? -1 : 0;
}

static int parse(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (!strcmp(a, "--fork")) {
            opt.fork = 1;
        } else if (!strcmp(a, "--big")) {
            opt.big = 1;
        } else if (!strcmp(a, "--es-big")) {
            opt.es_big = 1;
        } else if (!strcmp(a, "--exit-firing")) {
            opt.exit_firing = 1;
        } else if (!strcmp(a, "--atfork")) {
            opt.atfork = 1;
        } else if (v && !strcmp(a, "--threads")) {
            opt.threads = (unsigned)atoi(v), i++;
        } else if (v && !strcmp(a, "--seconds")) {
            opt.seconds = atof(v), i++;
        } else if (v && !strcmp(a, "--count")) {
            opt.count = strtoull(v, NULL, 10), i++;
        } else if (v && !strcmp(a, "--stop-file")) {
            opt.stop_file = v, i++;
        } else if (v && !strcmp(a, "--pace-us")) {
            opt.pace_us = atol(v), i++;
        } else {
            fprintf(stderr, "fault_host: bad argument \"%s\"\n", a);
            return -1;
        }
    }
    if (opt.threads < 1 || opt.threads > MAX_THREADS || opt.pace_us < 0 || opt.pace_us >= 1000000)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    if (parse(argc, argv))
        return 2;
    if (opt.atfork && wire_fork_hooks())
        return 1;
    return fire_all(0, "host", opt.fork);
}
