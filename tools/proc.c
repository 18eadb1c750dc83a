/* SPDX-License-Identifier: MIT */
/* palev-collect's helper commands (lttng, palev-gen, babeltrace2, ...) and its signals. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect.h"

/* ---- signals ------------------------------------------------------------------------------ */

/* The signals that end a run when they reach palev-collect, and the two it waits for. */
static const int handled[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1 };
#define NHANDLED (sizeof(handled) / sizeof(handled[0]))

static struct {
    sigset_t start_mask, wait_mask;
    int installed[NHANDLED];    /* we set a handler (not inherited as ignored) */
    struct sigaction pipe;      /* SIGPIPE as we got it (ours: ignored, a closed pipe is an EPIPE) */
} sigs;

static volatile sig_atomic_t last_signal, last_code, last_pid, got_usr1;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (sig == SIGUSR1) {
        got_usr1 = 1;
    } else if (sig != SIGCHLD) {
        last_signal = sig;
        last_code = si->si_code;
        last_pid = si->si_pid;
    }
}

void pc_signals_init(void)
{
    struct sigaction ignore = { .sa_handler = SIG_IGN };
    sigaction(SIGPIPE, &ignore, &sigs.pipe);
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < NHANDLED; i++)
        sigaddset(&set, handled[i]);
    sigprocmask(SIG_BLOCK, &set, &sigs.start_mask);
    sigs.wait_mask = sigs.start_mask;
    for (size_t i = 0; i < NHANDLED; i++) {
        struct sigaction old, sa = { .sa_sigaction = on_signal };
        sigdelset(&sigs.wait_mask, handled[i]);
        sigaction(handled[i], NULL, &old);
        /* A signal the shell made us ignore (a background job of a script ignores SIGINT and
         * SIGQUIT) stays ignored, for us and for the program. */
        if (old.sa_handler == SIG_IGN && handled[i] != SIGCHLD && handled[i] != SIGUSR1)
            continue;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_SIGINFO | (handled[i] == SIGCHLD ? SA_NOCLDSTOP : 0);
        sigaction(handled[i], &sa, NULL);
        sigs.installed[i] = 1;
    }
}

void pc_signals_restore(void)
{
    sigaction(SIGPIPE, &sigs.pipe, NULL);
    for (size_t i = 0; i < NHANDLED; i++)
        if (sigs.installed[i])
            signal(handled[i], SIG_DFL);
    sigprocmask(SIG_SETMASK, &sigs.start_mask, NULL);
}

const sigset_t *pc_signals_waitmask(void)
{
    return &sigs.wait_mask;
}

void pc_pause(int ms)
{
    struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000 };
    ppoll(NULL, 0, &t, &sigs.wait_mask);
}

/* Signals that arrived while blocked are handled first. */
int pc_signal_take(pid_t *sender)
{
    pc_pause(0);
    int sig = last_signal;
    last_signal = 0;
    if (sender)
        *sender = sig && (last_code == SI_USER || last_code == SI_QUEUE || last_code == SI_TKILL)
                  ? (pid_t)last_pid : 0;
    return sig;
}

int pc_signal_usr1(void)
{
    return got_usr1;
}

/* ---- helper commands ---------------------------------------------------------------------- */

static void child_streams(const pc_cmd *c, const int out[2], const int err[2])
{
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    if (c->log) {
        int fd = open(c->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        dup2(fd >= 0 ? fd : null, 1);
        dup2(fd >= 0 ? fd : null, 2);
        return;
    }
    if (c->out != PC_INHERIT)
        dup2(c->out == PC_CAPTURE ? out[1] : null, 1);
    if (c->err != PC_INHERIT)
        dup2(c->err == PC_CAPTURE ? err[1] : null, 2);
}

static void close_pair(int p[2])
{
    if (p[0] >= 0)
        close(p[0]);
    if (p[1] >= 0)
        close(p[1]);
}

/* In the child: its own process group, its streams, then exec; an exec failure's errno goes
 * back through report (close-on-exec: nothing arrives when exec succeeds). */
static void child(const pc_cmd *c, int out[2], int err[2], int report)
{
    int e;
    if (c->detach)
        setsid();
    else
        setpgid(0, 0);
    child_streams(c, out, err);
    for (const int *fd = c->keep_fds; fd && *fd >= 0; fd++)
        fcntl(*fd, F_SETFD, 0);
    pc_signals_restore();
    execvp(c->argv[0], (char *const *)c->argv);
    e = errno;
    if (write(report, &e, sizeof(e)) < 0)
        _exit(127);
    _exit(127);
}

pid_t pc_spawn(const pc_cmd *c, int *out_fd, int *err_fd)
{
    int out[2] = { -1, -1 }, err[2] = { -1, -1 }, report[2] = { -1, -1 }, e = 0;
    pid_t pid = -1;
    fflush(NULL);
    if ((c->out == PC_CAPTURE && pipe2(out, O_CLOEXEC)) || (c->err == PC_CAPTURE && pipe2(err, O_CLOEXEC)) ||
        pipe2(report, O_CLOEXEC) || (pid = fork()) < 0) {
        e = errno;
        goto fail;
    }
    if (pid == 0)
        child(c, out, err, report[1]);
    close(report[1]);
    report[1] = -1;
    if (read(report[0], &e, sizeof(e)) == sizeof(e)) {
        pc_wait(pid);
        goto fail;
    }
    close(report[0]);
    if (out[1] >= 0)
        close(out[1]);
    if (err[1] >= 0)
        close(err[1]);
    if (out_fd)
        *out_fd = out[0];
    if (err_fd)
        *err_fd = err[0];
    return pid;
fail:
    close_pair(out);
    close_pair(err);
    close_pair(report);
    errno = e;
    return -1;
}

/* Reads the captured streams to their end. */
static void drain(int out_fd, pc_buf *out, int err_fd, pc_buf *err)
{
    struct pollfd p[2] = { { .fd = out_fd, .events = POLLIN }, { .fd = err_fd, .events = POLLIN } };
    pc_buf *bufs[2] = { out, err };
    char chunk[4096];
    while (p[0].fd >= 0 || p[1].fd >= 0) {
        if (poll(p, 2, -1) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0 || !p[i].revents)
                continue;
            ssize_t n = read(p[i].fd, chunk, sizeof(chunk));
            if (n > 0) {
                pc_buf_add(bufs[i], chunk, (size_t)n);
            } else if (n == 0 || errno != EINTR) {
                close(p[i].fd);
                p[i].fd = -1;
            }
        }
    }
}

int pc_run(const pc_cmd *c)
{
    int out_fd = -1, err_fd = -1;
    pid_t pid = pc_spawn(c, &out_fd, &err_fd);
    if (pid < 0)
        return -1;
    if (out_fd >= 0 || err_fd >= 0)
        drain(out_fd, c->out_buf, err_fd, c->err_buf);
    return pc_wait(pid);
}

int pc_run_quiet(const char *const argv[])
{
    pc_cmd c = { .argv = argv, .out = PC_DISCARD, .err = PC_DISCARD };
    return pc_run(&c);
}

int pc_run_shown(const char *const argv[])
{
    pc_cmd c = { .argv = argv, .out = PC_INHERIT, .err = PC_INHERIT };
    return pc_run(&c);
}

int pc_wait(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

void pc_stop(pid_t pid)
{
    int st;
    if (pid <= 0)
        return;
    kill(pid, SIGTERM);
    for (int i = 0; i < 100; i++) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            return;
        nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
}
