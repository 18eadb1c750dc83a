/* SPDX-License-Identifier: MIT */
/* A host with a generated provider (Palev_Load, from tests/bench/bench.man) for the background
 * mode (PALEV_LOAD=background); load.sh records it and load_check.py reads the events back.
 * usage: load_host ready   define the dynamic event Dyn_Load:Early { n } at once, wait for the
 *                          providers, then fire Small 3 times (Count 1..3) and Early (n 1..3)
 *        load_host fork    fork at once, while the providers load; parent and child each wait
 *                          and fire Small 3 times (Count 1..3, child 101..103)
 * Prints "wait RET register RET enabled E" (and "child PID" for fork). Exit code 0, or 1 with
 * the reason on stderr (a child not exited 5 s after the parent's wait is killed: hung). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "Palev_Load-events.h"

static int fire(unsigned base)
{
    int wait = palev_provider_wait(10000);
    int reg = palev_provider_register(&palev_provider_Palev_Load);

    printf("wait %d register %d enabled %d\n", wait, reg, EventEnabledSmall());
    fflush(stdout);
    for (unsigned i = 1; i <= 3; i++)
        FireEventSmall(base + i, 10u * i, -(int)i, 0x10u + i, "load");
    return wait != 0 || reg != 0 || !EventEnabledSmall();
}

static int reap(pid_t pid)
{
    struct timespec t0, t;
    int status = 0;
    pid_t got;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        usleep(1000);
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((got = waitpid(pid, &status, WNOHANG)) == 0 && t.tv_sec - t0.tv_sec < 5);
    if (got == 0) {
        kill(pid, SIGKILL);
        fprintf(stderr, "load_host: child %d hung: killed\n", (int)pid);
        return 1;
    }
    return !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

int main(int argc, char **argv)
{
    pid_t pid;
    int failed;

    if (argc == 2 && strcmp(argv[1], "ready") == 0) {
        static const palev_field f[] = { { "n", PALEV_TYPE_UINT32, 0 } };
        palev_event *early;

        /* Before liblttng-ust is there: registered with it once it is. */
        if (palev_event_define("Dyn_Load", "Early", 4, 0, f, 1, &early) != 0 || fire(0))
            return 1;
        for (unsigned i = 1; i <= 3; i++)
            PALEV_EVENT_WRITE(early, i);
        return !palev_event_enabled(early);
    }
    if (argc != 2 || strcmp(argv[1], "fork") != 0) {
        fprintf(stderr, "usage: load_host ready|fork\n");
        return 2;
    }
    pid = fork();
    if (pid == 0) {
        alarm(20);
        return fire(100);
    }
    if (pid < 0)
        return 1;
    printf("child %d\n", (int)pid);
    failed = fire(0);
    return reap(pid) | failed;
}
