/* SPDX-License-Identifier: MIT */
/* A host forking while its other threads use the library's locks; fork.sh records it in a real
 * session and fork_check.py reads back what each child wrote.
 * usage: fork_host busy FORKS   2 threads define, write and undefine in a loop while the main
 *                               thread forks FORKS times; each child defines Dyn_ForkChild:Hello
 *                               and writes it once { round, pid }, then exits 0
 *        fork_host all FORKS    the same while other threads use every other lock too: code
 *                               loaded, described, patched, unloaded one by one and by area
 *                               (with the jitdump on when PALEV_PERFMAP asks), walkers added and
 *                               removed, events written with their stacks (when a session
 *                               records Paleventing:Stack), LIVE ranges kept live (each
 *                               pass over the set walks them); each child also loads
 *                               Fork.Child.ROUND
 * Prints "child ROUND PID" per child. Exit code: 0, or 1 with the reason on stderr (a child that
 * has not exited 5 s after its fork is killed and counted as hung: the test never hangs). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "paleventing.h"

#define CHILD_SECONDS 5
#define LIVE 2000

static atomic_int stop;
static atomic_ulong rounds[2];
static atomic_ulong other_rounds[2];    /* code, walkers */
static char child_code[16];

/* Define 3 events of one provider in one call, write each, undefine the provider: the define
 * lock is held most of the time (an undefine waits for a grace period under it). */
static void *busy(void *arg)
{
    static const palev_field fields[] = { { "n", PALEV_TYPE_UINT64, 0 } };
    unsigned id = (unsigned)(uintptr_t)arg;
    char prov[32];
    palev_event_def defs[3];
    palev_event *ev[3];

    snprintf(prov, sizeof(prov), "Dyn_ForkBusy%u", id);
    for (unsigned i = 0; i < 3; i++)
        defs[i] = (palev_event_def){ prov, i == 0 ? "A" : i == 1 ? "B" : "C", 4, 0, fields, 1 };
    while (!atomic_load(&stop)) {
        unsigned long n = atomic_fetch_add(&rounds[id], 1);

        if (palev_event_define_many(defs, 3, ev, NULL) != 0)
            return (void *)1;
        for (unsigned i = 0; i < 3; i++)
            PALEV_EVENT_WRITE(ev[i], (uint64_t)n);
        if (palev_event_undefine_provider(prov) != 0)
            return (void *)1;
    }
    return NULL;
}

/* ---- the other locks (fork_host all) ------------------------------------------------------ */

/* Code loaded plain and described, patched, unloaded one by one and by area: the live set's,
 * the unwind table's and the jitdump's locks, and what waits for grace periods. */
static void *code_churn(void *arg)
{
    static const palev_code_unwind u = { .cfa_offset = 32, .saved_fp = 16 };
    static char code[16 * 64];

    (void)arg;
    while (!atomic_load(&stop)) {
        for (unsigned i = 0; i < 16; i++) {
            char *c = code + i * 64;

            palev_code_load(c, 32, "Fork.Busy");
            palev_code_load_unwind(c + 32, 16, "Fork.BusyUnwind", &u);
            palev_code_patch(c, 0, NULL);
            if (i % 2)
                palev_code_unload(c);
        }
        palev_code_unload_area(code, sizeof(code));
        atomic_fetch_add(&other_rounds[0], 1);
        /* The live set's lock held most of the time, the jitdump a few MB: passes over the
         * LIVE ranges that unload nothing, records nothing. */
        for (unsigned i = 0; i < 200 && !atomic_load(&stop); i++)
            palev_code_unload_area(code, 1);
    }
    return NULL;
}

static size_t no_frames(void *ctx, palev_stack_frame *frames, size_t max)
{
    (void)ctx, (void)frames, (void)max;
    return 0;
}

/* The walkers' lock, and a grace period waited for on each removal. */
static void *walker_churn(void *arg)
{
    while (!atomic_load(&stop)) {
        if (palev_stack_add_walker(no_frames, arg) != 0 ||
            palev_stack_remove_walker(no_frames, arg) != 0)
            return (void *)1;
        atomic_fetch_add(&other_rounds[1], 1);
    }
    return NULL;
}

static void *(*const others[])(void *) = { code_churn, walker_churn };
#define OTHERS (sizeof(others) / sizeof(others[0]))

/* ---- the children ------------------------------------------------------------------------ */

/* The child: define and write at once (and load code, in the `all` scenario). */
static int child(unsigned round, int all)
{
    char name[32];
    static const palev_field fields[] = { { "round", PALEV_TYPE_UINT32, 0 },
                                          { "pid", PALEV_TYPE_INT32, 0 } };
    palev_event *ev;
    int ret;

    alarm(CHILD_SECONDS * 2);
    if ((ret = palev_event_define("Dyn_ForkChild", "Hello", 4, 0, fields, 2, &ev)) != 0) {
        fprintf(stderr, "fork_host: child %u: define: %s\n", round, palev_strerror(ret));
        return 1;
    }
    if (!palev_event_enabled(ev)) {
        fprintf(stderr, "fork_host: child %u: Dyn_ForkChild:Hello not enabled\n", round);
        return 1;
    }
    snprintf(name, sizeof(name), "Fork.Child.%u", round);
    if (all && (ret = palev_code_load(child_code, sizeof(child_code), name)) != 0) {
        fprintf(stderr, "fork_host: child %u: code load: %s\n", round, palev_strerror(ret));
        return 1;
    }
    return PALEV_EVENT_WRITE(ev, round, (int)getpid()) != 0;
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wait for the child at most CHILD_SECONDS; a child still running then is killed: hung. */
static int reap(pid_t pid, unsigned round)
{
    double deadline = now() + CHILD_SECONDS;
    int status;
    pid_t got;

    while ((got = waitpid(pid, &status, WNOHANG)) == 0 && now() < deadline)
        usleep(1000);
    if (got == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        fprintf(stderr, "fork_host: child %u (pid %d) hung: killed after %d s\n", round,
                (int)pid, CHILD_SECONDS);
        return 1;
    }
    if (got < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "fork_host: child %u (pid %d) failed: status 0x%x\n", round, (int)pid,
                status);
        return 1;
    }
    return 0;
}

/* LIVE ranges: a pass over the live set, under its lock, walks them all. */
static int others_start(pthread_t *th)
{
    static char live[LIVE * 16];
    int ret;

    for (unsigned i = 0; i < LIVE; i++)
        if ((ret = palev_code_load(live + i * 16, 16, "Fork.Live")) != 0) {
            fprintf(stderr, "fork_host: code load: %s\n", palev_strerror(ret));
            return 1;
        }
    for (unsigned i = 0; i < OTHERS; i++)
        pthread_create(&th[i], NULL, others[i], &other_rounds[i]);
    return 0;
}

static int others_stop(pthread_t *th)
{
    void *ret;
    int failed = 0;

    for (unsigned i = 0; i < OTHERS; i++) {
        pthread_join(th[i], &ret);
        failed |= ret != NULL;
    }
    if (failed)
        fprintf(stderr, "fork_host: a walker could not be added or removed\n");
    fprintf(stderr, "fork_host: %lu code rounds, %lu walker rounds meanwhile\n",
            atomic_load(&other_rounds[0]), atomic_load(&other_rounds[1]));
    return failed;
}

static int scenario(unsigned forks, int all)
{
    pthread_t th[2], other[OTHERS];
    void *ret;
    int failed = 0;

    if (all && others_start(other) != 0)
        return 1;
    for (unsigned i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, busy, (void *)(uintptr_t)i);
    while (atomic_load(&rounds[0]) < 3 || atomic_load(&rounds[1]) < 3)
        usleep(1000);
    for (unsigned r = 0; r < forks && !failed; r++) {
        pid_t pid = fork();

        /* _exit: a leak check at exit (AddressSanitizer) would count what the parent's other
         * threads held in the middle of their calls, which the child never gets back. */
        if (pid == 0)
            _exit(child(r, all));
        if (pid < 0) {
            fprintf(stderr, "fork_host: fork: %s\n", strerror(errno));
            failed = 1;
            break;
        }
        printf("child %u %d\n", r, (int)pid);
        failed |= reap(pid, r);
        usleep(2000);
    }
    atomic_store(&stop, 1);
    for (unsigned i = 0; i < 2; i++) {
        pthread_join(th[i], &ret);
        if (ret) {
            fprintf(stderr, "fork_host: busy thread %u: a define or undefine failed\n", i);
            failed = 1;
        }
    }
    if (all)
        failed |= others_stop(other);
    fprintf(stderr, "fork_host: %lu + %lu define/undefine rounds meanwhile\n",
            atomic_load(&rounds[0]), atomic_load(&rounds[1]));
    return failed;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 3 && strcmp(argv[1], "busy") == 0)
        return scenario((unsigned)atoi(argv[2]), 0);
    if (argc == 3 && strcmp(argv[1], "all") == 0)
        return scenario((unsigned)atoi(argv[2]), 1);
    fprintf(stderr, "usage: fork_host busy|all FORKS\n");
    return 2;
}
