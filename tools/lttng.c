/* SPDX-License-Identifier: MIT */
/* palev-collect's LTTng side, driven through lttng's command line (its stable interface): the
 * daemons it starts only when none runs, the session, the live viewer. */
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect.h"

/* ---- daemons ------------------------------------------------------------------------------ */

/* Any process named lttng-sessiond (what pgrep -x lttng-sessiond says). */
static int sessiond_running(void)
{
    DIR *d = opendir("/proc");
    int found = 0;
    for (struct dirent *de; d && !found && (de = readdir(d));) {
        char path[300], comm[32] = "";
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
        FILE *f = fopen(path, "r");
        if (f && fgets(comm, sizeof(comm), f))
            found = strcmp(comm, "lttng-sessiond\n") == 0;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

static int exited(pid_t pid)
{
    int st;
    return waitpid(pid, &st, WNOHANG) == pid;
}

/* --sig-parent: the daemon says when it is ready. */
int pc_sessiond_ensure(pc_ctx *c)
{
    const char *argv[] = { "lttng-sessiond", "--no-kernel", "--sig-parent", NULL };
    pc_cmd cmd = { .argv = argv, .out = PC_DISCARD, .err = PC_DISCARD, .detach = 1 };
    if (sessiond_running())
        return 0;
    pid_t pid = pc_spawn(&cmd, NULL, NULL);
    for (int i = 0; pid > 0 && i < 100 && !pc_signal_usr1(); i++) {
        if (exited(pid)) {
            pid = -1;
            break;
        }
        pc_pause(100);
    }
    if (pid <= 0 || !pc_signal_usr1()) {
        if (pid > 0)
            pc_stop(pid);
        return pc_fail(PC_EXIT_SETUP, "lttng-sessiond did not start");
    }
    c->sessiond = pid;
    pc_say("started lttng-sessiond (pid %d), stopped at the end", (int)pid);
    return 0;
}

static int listening(unsigned port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

int pc_relayd_ensure(pc_ctx *c)
{
    const pc_opts *o = &c->o;
    if (listening(o->live_port)) {
        pc_say("using the lttng-relayd on 127.0.0.1:%u (the trace goes to its output directory)", o->live_port);
        return 0;
    }
    char *ports[3] = { pc_printf("--control-port=tcp://127.0.0.1:%u", o->control_port),
                       pc_printf("--data-port=tcp://127.0.0.1:%u", o->data_port),
                       pc_printf("--live-port=tcp://127.0.0.1:%u", o->live_port) };
    char *output = pc_printf("--output=%s", c->out), *log = pc_printf("%s/relayd.log", c->out);
    const char *argv[] = { "lttng-relayd", ports[0], ports[1], ports[2], output, NULL };
    pc_cmd cmd = { .argv = argv, .log = log, .detach = 1 };
    int rc = 0;
    pid_t pid = pc_spawn(&cmd, NULL, NULL);
    for (int i = 0; pid > 0 && i < 100 && !listening(o->live_port) && !exited(pid); i++)
        pc_pause(100);
    if (pid > 0 && listening(o->live_port)) {
        c->relayd = pid;
        pc_say("started lttng-relayd (pid %d) on 127.0.0.1, writing to %s", (int)pid, c->out);
    } else {
        if (pid > 0)
            pc_stop(pid);
        rc = pc_fail(PC_EXIT_SETUP, "lttng-relayd did not start (see %s)", log);
    }
    for (int i = 0; i < 3; i++)
        free(ports[i]);
    free(output);
    free(log);
    return rc;
}

/* ---- the session -------------------------------------------------------------------------- */

/* lttng COMMAND ARGS... for the session (args NULL-terminated), its stdout discarded, its stderr
 * shown; 0 when it succeeded. start, stop and destroy name it as their argument, others with -s. */
static int lttng(const pc_ctx *c, const char *const *args)
{
    static const char *const positional[] = { "start", "stop", "destroy" };
    const char *argv[24] = { "lttng" };
    size_t n = 1;
    int named = 0;
    for (size_t i = 0; i < 3; i++)
        named |= strcmp(args[0], positional[i]) == 0;
    while (*args && n < 20)
        argv[n++] = *args++;
    if (!named)
        argv[n++] = "-s";
    argv[n++] = c->session;
    pc_cmd run = { .argv = argv, .out = PC_DISCARD, .err = PC_INHERIT };
    return pc_run(&run);
}
#define LTTNG(c, ...) lttng((c), (const char *const[]){ __VA_ARGS__, NULL })

static int create(pc_ctx *c)
{
    const char *argv[6] = { "lttng", "create", c->session };
    char *a = NULL, *b = NULL;
    if (c->o.live) {
        argv[3] = "--live=200000";
        argv[4] = b = pc_printf("--set-url=net://127.0.0.1:%u:%u", c->o.control_port, c->o.data_port);
    } else {
        argv[3] = a = pc_printf("--output=%s", c->out);
    }
    pc_cmd cmd = { .argv = argv, .out = PC_DISCARD, .err = PC_INHERIT };
    int rc = pc_run(&cmd);
    free(a);
    free(b);
    return rc;
}

/* The events: the manifests' and paleventing's own, listed by the caller. The program's process
 * (forked, not yet exec'd) is tracked from the start; follow.c adds its descendants. With
 * --all-processes, every process of our user: other users' have nothing to do with the program,
 * and a session destroyed while one of theirs registers can leave a stream nobody can read. */
int pc_session_create(pc_ctx *c, const char *events)
{
    char who[32];
    snprintf(c->session, sizeof(c->session), "palev-collect-%d", (int)getpid());
    if (create(c)) {
        c->session[0] = '\0';
        return pc_fail(PC_EXIT_SETUP, "lttng create failed");
    }
    if (c->o.all_processes)
        snprintf(who, sizeof(who), "--vuid=%d", (int)getuid());
    else
        snprintf(who, sizeof(who), "--vpid=%d", (int)c->pid);
    if (LTTNG(c, "track", "-u", who) ||
        LTTNG(c, "enable-channel", "-u", "--subbuf-size=4M", "--num-subbuf=4", "ch") ||
        LTTNG(c, "add-context", "-u", "-c", "ch", "-t", "vpid", "-t", "vtid", "-t", "procname") ||
        LTTNG(c, "enable-event", "-u", "-c", "ch", events))
        return pc_fail(PC_EXIT_SETUP, "cannot enable the events in session %s", c->session);
    return 0;
}

int pc_session_start(pc_ctx *c)
{
    return LTTNG(c, "start") ? pc_fail(PC_EXIT_SETUP, "lttng start failed") : 0;
}

void pc_session_end(pc_ctx *c)
{
    if (!c->session[0])
        return;
    LTTNG(c, "stop");
    LTTNG(c, "destroy");
    c->session[0] = '\0';
}

/* ---- the live viewer ---------------------------------------------------------------------- */

/* babeltrace2 attaches to a live session at its most recent data: it must have attached before
 * the session starts, or the command's first events go by unseen. The relayd's session list
 * ("-" starts an entry, "key: value" lines) says how many viewers each session has. */
static int viewer_attached(const pc_ctx *c)
{
    char *param = pc_printf("url=\"net://127.0.0.1:%u\"", c->o.live_port);
    const char *argv[] = { "babeltrace2", "query", "src.ctf.lttng-live", "sessions", "-p", param, NULL };
    pc_buf out = { 0 };
    pc_cmd cmd = { .argv = argv, .out = PC_CAPTURE, .out_buf = &out, .err = PC_DISCARD };
    int found = 0, ours = 0, clients = 0;
    if (pc_run(&cmd) == 0 && out.data) {
        for (char *line = strtok(out.data, "\n"); line; line = strtok(NULL, "\n")) {
            char key[32], value[200];
            if (line[0] == '-') {
                found |= ours && clients > 0;
                ours = clients = 0;
                line++;
            }
            if (sscanf(line, " %31s %199s", key, value) != 2)
                continue;
            if (strcmp(key, "client-count:") == 0)
                clients = atoi(value);
            else if (strcmp(key, "session-name:") == 0)
                ours = strcmp(value, c->session) == 0;
        }
        found |= ours && clients > 0;
    }
    pc_buf_free(&out);
    free(param);
    return found;
}

int pc_viewer_start(pc_ctx *c)
{
    struct utsname u;
    uname(&u);
    char *url = pc_printf("net://127.0.0.1:%u/host/%s/%s", c->o.live_port, u.nodename, c->session);
    const char *argv[] = { "babeltrace2", "--input-format=lttng-live", url, NULL };
    pc_cmd cmd = { .argv = argv, .out = PC_INHERIT, .err = PC_INHERIT };
    int rc = 0;
    pc_say("live: babeltrace2 --input-format=lttng-live %s", url);
    c->viewer = pc_spawn(&cmd, NULL, NULL);
    for (int i = 0; i < 300 && !rc; i++) {
        if (c->viewer <= 0 || exited(c->viewer)) {
            c->viewer = 0;
            rc = pc_fail(PC_EXIT_SETUP, "babeltrace2 could not attach to %s", url);
        } else if (viewer_attached(c)) {
            break;
        } else if (i == 299) {
            pc_warn("the viewer did not attach within 30 s; the first events may not be shown");
        } else {
            pc_pause(100);
        }
    }
    free(url);
    return rc;
}

/* The viewer ends by itself once the destroyed session's last data reached it. */
void pc_viewer_stop(pc_ctx *c)
{
    for (int i = 0; c->viewer > 0 && i < 100; i++) {
        if (exited(c->viewer)) {
            c->viewer = 0;
            return;
        }
        pc_pause(100);
    }
    pc_stop(c->viewer);
    c->viewer = 0;
}

void pc_lttng_cleanup(pc_ctx *c)
{
    if (c->session[0]) {
        const char *argv[] = { "lttng", "destroy", c->session, NULL };
        pc_run_quiet(argv);
        c->session[0] = '\0';
    }
    pc_stop(c->viewer);
    pc_stop(c->relayd);
    pc_stop(c->sessiond);
    c->viewer = c->relayd = c->sessiond = 0;
}
