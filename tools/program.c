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
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect.h"

/* In the child: the filter that lets its descendants be followed, then wait for the byte that
 * releases it (EOF: palev-collect gave up), then exec. */
static void child(const pc_ctx *c, int go, int report, int follow)
{
    char b;
    ssize_t n;
    int e;
    pc_signals_restore();
    if (c->o.es_filter)
        setenv("PALEV_EVENTSOURCE_FILTER", c->o.es_filter, 1);
    /* With perf: JIT code named in perf's map and described in a jitdump (perf inject --jit),
     * unless the user chose otherwise. */
    if (c->o.cpu_hz && !getenv("PALEV_PERFMAP")) {
        setenv("PALEV_PERFMAP", "3", 1);
        if (!getenv("PALEV_PERFMAP_DIR"))
            setenv("PALEV_PERFMAP_DIR", c->perf_dir, 1);
    }
    if (follow >= 0)
        pc_follow_child(follow);
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

/* The listener of the child's filter; without it only the program itself is recorded. */
static void receive_listener(pc_ctx *c, int sock)
{
    int fd = pc_follow_receive(sock);
    if (fd >= 0) {
        c->listener = fd;
        return;
    }
    pc_warn("cannot follow the processes %s starts (seccomp: %s): only its own events are recorded "
            "(--all-processes records every process of the user)", c->o.command[0], strerror(-fd));
}

int pc_program_fork(pc_ctx *c)
{
    int go[2] = { -1, -1 }, report[2] = { -1, -1 }, follow[2] = { -1, -1 };
    if (pipe2(go, O_CLOEXEC) || pipe2(report, O_CLOEXEC) ||
        (!c->o.all_processes && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, follow))) {
        int e = errno;
        for (int i = 0; i < 2; i++) {
            if (go[i] >= 0)
                close(go[i]);
            if (report[i] >= 0)
                close(report[i]);
        }
        return pc_fail(PC_EXIT_SETUP, "cannot create a pipe: %s", strerror(e));
    }
    fflush(NULL);
    c->pid = fork();
    if (c->pid == 0) {
        close(go[1]);
        close(report[0]);
        if (follow[0] >= 0)
            close(follow[0]);
        child(c, go[0], report[1], follow[1]);
    }
    close(go[0]);
    close(report[1]);
    if (follow[1] >= 0)
        close(follow[1]);
    if (c->pid < 0) {
        close(go[1]);
        close(report[0]);
        if (follow[0] >= 0)
            close(follow[0]);
        c->pid = 0;
        return pc_fail(PC_EXIT_SETUP, "cannot fork: %s", strerror(errno));
    }
    c->go_fd = go[1];
    c->report_fd = report[0];
    if (follow[0] >= 0) {
        receive_listener(c, follow[0]);
        close(follow[0]);
    }
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

/* The parent of a process, from /proc (0 when it is gone). */
static pid_t parent_of(pid_t pid)
{
    char path[64];
    int ppid = 0;
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    /* "pid (comm) state ppid ...": comm may hold spaces and parentheses; the last ')' ends it. */
    char line[1024];
    if (fgets(line, sizeof(line), f)) {
        char *end = strrchr(line, ')');
        if (!end || sscanf(end + 1, " %*c %d", &ppid) != 1)
            ppid = 0;
    }
    fclose(f);
    return (pid_t)ppid;
}

static int in_tree(pid_t pid, pid_t root)
{
    for (int depth = 0; pid > 1 && depth < 4096; depth++, pid = parent_of(pid))
        if (pid == root)
            return 1;
    return 0;
}

/* Whether a signal palev-collect received should be passed on: the terminal's (Ctrl-C, Ctrl-\,
 * a hang-up) went to the whole foreground process group, the program included; the program's
 * own tree knows what it sent. Anything else was sent to palev-collect by a process (kill PID,
 * a service manager, a script stopping its background job) and the program has not seen it. */
static int pass_on(const pc_ctx *c, pid_t sender)
{
    return sender > 0 && !in_tree(sender, c->pid);
}

/* Until it exits, with the signals it should see passed on to it. */
void pc_program_wait(pc_ctx *c)
{
    int st = 0;
    pid_t sender;
    for (;;) {
        pid_t r = waitpid(c->pid, &st, WNOHANG);
        if (r == c->pid || (r < 0 && errno != EINTR))
            break;
        int sig = pc_signal_take(&sender);
        if (sig && pass_on(c, sender))
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
