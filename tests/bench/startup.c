/* SPDX-License-Identifier: MIT */
/* palev-bench-startup: how long a traced host takes to reach main(), against an empty program
 * and a hand-written LTTng-UST tracepoint program, medians of interleaved rounds in one run;
 * then the same with no session daemon reachable (as root: a private mount namespace hides
 * LTTng's sockets).
 * usage: palev-bench-startup [--rounds N] [--label TEXT] [--found-only] [DIR]
 *   DIR: where startup-stock, startup-pal and startup-raw are (default: beside this program);
 *   --label: said in the title of the first table (what sessions were recording);
 *   --found-only: only that table, not the one without a session daemon.
 * Not a pass/fail test: it fails only when a program cannot run. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_ROUNDS 201

struct variant {
    const char *label;
    const char *program;
    const char *env[3];     /* extra environment, NULL-terminated */
    int wait;               /* the host waits for its providers and reports when (ready) */
    double main[MAX_ROUNDS], exit[MAX_ROUNDS], ready[MAX_ROUNDS];
};

static struct variant variants[] = {
    { "empty program, no tracing", "startup-stock", { NULL }, 0, { 0 }, { 0 }, { 0 } },
    { "paleventing, PALEV_LTTNG=0", "startup-pal", { "PALEV_LTTNG=0", NULL }, 0, { 0 }, { 0 },
      { 0 } },
    { "paleventing (2 probe providers)", "startup-pal", { NULL }, 0, { 0 }, { 0 }, { 0 } },
    { "paleventing, PALEV_LOAD=background", "startup-pal", { "PALEV_LOAD=background", NULL }, 1,
      { 0 }, { 0 }, { 0 } },
    { "paleventing, LTTNG_UST_REGISTER_TIMEOUT=0", "startup-pal",
      { "LTTNG_UST_REGISTER_TIMEOUT=0", NULL }, 0, { 0 }, { 0 }, { 0 } },
    { "raw LTTng-UST tracepoint program", "startup-raw", { NULL }, 0, { 0 }, { 0 }, { 0 } },
    { "raw, LTTNG_UST_REGISTER_TIMEOUT=0", "startup-raw", { "LTTNG_UST_REGISTER_TIMEOUT=0", NULL },
      0, { 0 }, { 0 }, { 0 } },
};
#define VARIANTS (sizeof(variants) / sizeof(variants[0]))
enum { STOCK, PAL_OFF, PAL, PAL_BG, PAL_NOWAIT, RAW, RAW_NOWAIT };

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int read_time(int fd, double *ms)
{
    int64_t ns;

    if (read(fd, &ns, sizeof(ns)) != (ssize_t)sizeof(ns))
        return -1;
    *ms = (double)ns / 1e6;
    return 0;
}

/* One start of a variant: ms from posix_spawn() to main(), to palev_provider_wait() returning
 * (wait variants), to the exit reaped. */
static int run_once(const char *dir, struct variant *v, int round)
{
    static char wait_var[] = "PALEV_BENCH_WAIT=1";
    char path[PATH_MAX], fdvar[32];
    char *argv[2], *envp[256];
    size_t n = 0;
    int fds[2], status;
    double t0, at;
    pid_t pid;

    snprintf(path, sizeof(path), "%s/%s", dir, v->program);
    if (pipe2(fds, O_CLOEXEC) != 0 || fcntl(fds[1], F_SETFD, 0) != 0)
        return -1;
    snprintf(fdvar, sizeof(fdvar), "PALEV_BENCH_FD=%d", fds[1]);
    for (char **e = environ; *e && n < 240; e++)
        envp[n++] = *e;
    for (size_t i = 0; v->env[i]; i++)
        envp[n++] = (char *)v->env[i];
    envp[n++] = fdvar;
    if (v->wait)
        envp[n++] = wait_var;
    envp[n] = NULL;
    argv[0] = path;
    argv[1] = NULL;
    t0 = now_ms();
    if (posix_spawn(&pid, path, NULL, NULL, argv, envp) != 0) {
        fprintf(stderr, "palev-bench-startup: cannot start %s\n", path);
        return -1;
    }
    close(fds[1]);
    if (read_time(fds[0], &at) == 0)
        v->main[round] = at - t0;
    if (v->wait && read_time(fds[0], &at) == 0)
        v->ready[round] = at - t0;
    close(fds[0]);
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "palev-bench-startup: %s failed (status 0x%x)\n", path, status);
        return -1;
    }
    v->exit[round] = now_ms() - t0;
    return 0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double s[MAX_ROUNDS];

    memcpy(s, v, (size_t)n * sizeof(*s));
    qsort(s, (size_t)n, sizeof(*s), cmp);
    return s[n / 2];
}

static double minimum(const double *v, int n)
{
    double m = v[0];

    for (int i = 1; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

/* Every variant once per round, in turn, so that a slow moment of the machine hits them all. */
static int measure(const char *dir, int rounds, const char *title)
{
    double m[VARIANTS];

    for (int r = 0; r < rounds; r++)
        for (size_t i = 0; i < VARIANTS; i++)
            if (run_once(dir, &variants[i], r) != 0)
                return -1;
    for (size_t i = 0; i < VARIANTS; i++)
        m[i] = median(variants[i].main, rounds);
    printf("\n%s\n(ms from posix_spawn: median of %d interleaved rounds, and the fastest; "
           "ratios of medians)\n", title, rounds);
    printf("%-44s %9s %9s %9s %9s %10s %10s\n", "", "main()", "min", "exit", "ready",
           "vs empty", "vs raw");
    for (size_t i = 0; i < VARIANTS; i++) {
        struct variant *v = &variants[i];
        char ready[16] = "-";

        if (v->wait)
            snprintf(ready, sizeof(ready), "%.2f", median(v->ready, rounds));
        printf("%-44s %9.2f %9.2f %9.2f %9s %9.2fx %9.2fx\n", v->label, m[i],
               minimum(v->main, rounds), median(v->exit, rounds), ready, m[i] / m[STOCK],
               m[i] / m[RAW]);
    }
    printf("where paleventing's start-up goes (differences of medians, ms):\n"
           "  loading libpaleventing and its libraries          %6.2f  (PALEV_LTTNG=0 - empty)\n"
           "  liblttng-ust: load, constructor, 2 probes         %6.2f  (REGISTER_TIMEOUT=0 - "
           "PALEV_LTTNG=0)\n"
           "  liblttng-ust's constructor waiting for sessiond   %6.2f  (default - "
           "REGISTER_TIMEOUT=0)\n"
           "  raw program: the same wait                        %6.2f\n"
           "  background mode: taken off main()                 %6.2f  (default - background)\n"
           "  background mode: events not recorded for          %6.2f  (ready - main())\n",
           m[PAL_OFF] - m[STOCK], m[PAL_NOWAIT] - m[PAL_OFF], m[PAL] - m[PAL_NOWAIT],
           m[RAW] - m[RAW_NOWAIT], m[PAL] - m[PAL_BG],
           median(variants[PAL_BG].ready, rounds) - m[PAL_BG]);
    return 0;
}

/* As root: a private mount namespace in a child, with LTTng's socket directories hidden under
 * empty tmpfs mounts, so liblttng-ust finds no session daemon. */
static int measure_without_sessiond(const char *dir, int rounds)
{
    const char *hide[3] = { "/var/run/lttng", "/run/lttng", NULL };
    char home[PATH_MAX];
    const char *h = getenv("HOME");
    int status;
    pid_t pid;

    if (geteuid() != 0) {
        printf("\n(no-session-daemon rows: run as root; they hide LTTng's sockets in a private "
               "mount namespace)\n");
        return 0;
    }
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        struct stat st;

        if (h) {
            snprintf(home, sizeof(home), "%s/.lttng", h);
            hide[2] = home;
        }
        if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
            printf("\n(no-session-daemon rows: unshare/mount failed: %s)\n", strerror(errno));
            fflush(stdout);
            _exit(0);
        }
        for (size_t i = 0; i < 3; i++)
            if (hide[i] && stat(hide[i], &st) == 0 && S_ISDIR(st.st_mode) &&
                mount("none", hide[i], "tmpfs", 0, NULL) != 0)
                _exit(1);
        status = measure(dir, rounds, "No session daemon reachable") != 0;
        fflush(stdout);
        _exit(status);
    }
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                   WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    char self[PATH_MAX];
    char title[256];
    const char *dir = NULL, *label = "as found";
    int rounds = 21, found_only = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--label") == 0 && i + 1 < argc)
            label = argv[++i];
        else if (strcmp(argv[i], "--found-only") == 0)
            found_only = 1;
        else
            dir = argv[i];
    }
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "palev-bench-startup: --rounds 1 to %d\n", MAX_ROUNDS);
        return 2;
    }
    if (!dir) {
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

        if (n <= 0)
            return 1;
        self[n] = '\0';
        *strrchr(self, '/') = '\0';
        dir = self;
    }
    unsetenv("PALEV_LTTNG");
    unsetenv("PALEV_LOAD");
    unsetenv("LTTNG_UST_REGISTER_TIMEOUT");
    snprintf(title, sizeof(title), "Session daemon running (%s)", label);
    if (measure(dir, rounds, title) != 0 ||
        (!found_only && measure_without_sessiond(dir, rounds) != 0))
        return 1;
    return 0;
}
