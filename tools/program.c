/* SPDX-License-Identifier: MIT */
/* The program palev-collect runs: forked and held on a handshake until the session is ready for
 * it, then exec'd in palev-collect's place in the terminal (its stdin, its process group, the
 * signal dispositions palev-collect was started with), and waited for. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect.h"

/* In the child: wait for the byte that releases it (EOF: palev-collect gave up), then exec. */
static void child(const pc_ctx *c, int go, int report)
{
    char b;
    ssize_t n;
    int e;
    pc_signals_restore();
    if (c->o.es_filter)
        setenv("PALEV_EVENTSOURCE_FILTER", c->o.es_filter, 1);
    while ((n = read(go, &b, 1)) < 0 && errno == EINTR)
        ;
    if (n != 1)
        _exit(PC_EXIT_SETUP);
    execvp(c->o.command[0], c->o.command);
    e = errno;
    if (write(report, &e, sizeof(e)) < 0)
        _exit(127);
    _exit(e == ENOENT ? 127 : 126);
}

int pc_program_fork(pc_ctx *c)
{
    int go[2], report[2];
    if (pipe2(go, O_CLOEXEC))
        return pc_fail(PC_EXIT_SETUP, "cannot create a pipe: %s", strerror(errno));
    if (pipe2(report, O_CLOEXEC)) {
        close(go[0]);
        close(go[1]);
        return pc_fail(PC_EXIT_SETUP, "cannot create a pipe: %s", strerror(errno));
    }
    fflush(NULL);
    c->pid = fork();
    if (c->pid == 0) {
        close(go[1]);
        close(report[0]);
        child(c, go[0], report[1]);
    }
    close(go[0]);
    close(report[1]);
    if (c->pid < 0) {
        close(go[1]);
        close(report[0]);
        c->pid = 0;
        return pc_fail(PC_EXIT_SETUP, "cannot fork: %s", strerror(errno));
    }
    c->go_fd = go[1];
    c->report_fd = report[0];
    return 0;
}

/* Lets it exec; 0 once it runs the program, else the errno of the failed exec. */
int pc_program_release(pc_ctx *c)
{
    int e = 0;
    ssize_t n = write(c->go_fd, "g", 1);
    close(c->go_fd);
    c->go_fd = -1;
    if (n == 1 && read(c->report_fd, &e, sizeof(e)) != sizeof(e))
        e = 0;
    close(c->report_fd);
    c->report_fd = -1;
    return e;
}

/* Until it exits. Ctrl-C and the like reach it from the terminal; a signal sent to
 * palev-collect alone is passed on to it. */
void pc_program_wait(pc_ctx *c)
{
    int st = 0, pass_on;
    for (;;) {
        pid_t r = waitpid(c->pid, &st, WNOHANG);
        if (r == c->pid || (r < 0 && errno != EINTR))
            break;
        int sig = pc_signal_take(&pass_on);
        if (sig && pass_on)
            kill(c->pid, sig);
        else if (!sig)
            ppoll(NULL, 0, NULL, pc_signals_waitmask());
    }
    c->status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

/* A program held on its handshake that will never run: it exits without exec. */
void pc_program_abandon(pc_ctx *c)
{
    if (c->go_fd < 0)
        return;
    close(c->go_fd);
    close(c->report_fd);
    c->go_fd = c->report_fd = -1;
    pc_wait(c->pid);
}
