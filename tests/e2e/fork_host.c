/* SPDX-License-Identifier: MIT */
/* A host forking while its other threads define and undefine dynamic events; fork.sh records it
 * in a real session and fork_check.py reads back what each child wrote.
 * usage: fork_host busy FORKS   2 threads define, write and undefine in a loop while the main
 *                               thread forks FORKS times; each child defines Dyn_ForkChild:Hello
 *                               and writes it once { round, pid }, then exits 0
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

static atomic_int stop;
static atomic_ulong rounds[2];

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

/* The child: define and write at once. */
static int child(unsigned round)
{
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

static int scenario_busy(unsigned forks)
{
    pthread_t th[2];
    void *ret;
    int failed = 0;

    for (unsigned i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, busy, (void *)(uintptr_t)i);
    while (atomic_load(&rounds[0]) < 3 || atomic_load(&rounds[1]) < 3)
        usleep(1000);
    for (unsigned r = 0; r < forks && !failed; r++) {
        pid_t pid = fork();

        if (pid == 0)
            exit(child(r));
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
    fprintf(stderr, "fork_host: %lu + %lu define/undefine rounds meanwhile\n",
            atomic_load(&rounds[0]), atomic_load(&rounds[1]));
    return failed;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 3 && strcmp(argv[1], "busy") == 0)
        return scenario_busy((unsigned)atoi(argv[2]));
    fprintf(stderr, "usage: fork_host busy FORKS\n");
    return 2;
}
