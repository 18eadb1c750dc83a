/* SPDX-License-Identifier: MIT */
/* --cpu and --off-cpu: perf record on the program's process tree beside the LTTng session, on
 * the same clock (CLOCK_MONOTONIC), into DIR/perf/perf.data, converted after the run to a CTF
 * trace in DIR/perf/ctf/ that libbabeltrace2 reads without perf. perf missing or refused: said,
 * with the fix; the LTTng trace is recorded all the same. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect.h"

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

static const char still[] = "the LTTng trace is still recorded";

/* ---- what perf may do here ---------------------------------------------------------------- */

static int paranoid(void)
{
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int level = 2;
    if (f) {
        if (fscanf(f, "%d", &level) != 1)
            level = 2;
        fclose(f);
    }
    return level;
}

/* Root, or CAP_PERFMON or CAP_SYS_ADMIN in our effective set. */
static int privileged(void)
{
    char line[128];
    unsigned long long caps = 0;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "CapEff: %llx", &caps) == 1)
            break;
    if (f)
        fclose(f);
    return geteuid() == 0 || (caps >> CAP_PERFMON_BIT & 1) || (caps >> CAP_SYS_ADMIN_BIT & 1);
}

static int tracefs_readable(void)
{
    return access("/sys/kernel/tracing/events/sched/sched_switch/id", R_OK) == 0 ||
           access("/sys/kernel/debug/tracing/events/sched/sched_switch/id", R_OK) == 0;
}

/* sched:sched_switch needs raw tracepoint samples: root, CAP_PERFMON, or paranoid -1 and a
 * readable tracefs. */
static int off_cpu_refused(void)
{
    return !privileged() && (paranoid() > -1 || !tracefs_readable());
}

/* Why perf failed, with the fix, when our privileges explain it; NULL otherwise. */
static char *refusal(int off_cpu)
{
    int level = paranoid();
    if (!privileged() && level > 2)
        return pc_printf("kernel.perf_event_paranoid is %d: only root may use perf here; run palev-collect "
                         "as root, or as root: sysctl -w kernel.perf_event_paranoid=2 (user-space samples of "
                         "your own programs)", level);
    if (off_cpu && off_cpu_refused())
        return pc_printf("sched:sched_switch needs root or CAP_PERFMON here (kernel.perf_event_paranoid is %d, "
                         "tracefs %sreadable): run palev-collect as root, or as root: sysctl -w "
                         "kernel.perf_event_paranoid=-1 and mount -o remount,mode=755 /sys/kernel/tracing",
                         level, tracefs_readable() ? "" : "not ");
    return NULL;
}

/* ---- perf record -------------------------------------------------------------------------- */

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* perf record -p PID, events disabled (-D -1) until palev-collect says "enable" on its control
 * pipe; its "ack" says the counters are on the program, which has not exec'd yet. */
static pid_t spawn_record(pc_ctx *c, int off_cpu, int *ctl, int *ack)
{
    int to[2] = { -1, -1 }, from[2] = { -1, -1 };
    if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC)) {
        close_fd(&to[0]);
        close_fd(&to[1]);
        return -1;
    }
    char *data = pc_printf("%s/perf.data", c->perf_dir), *log = pc_printf("%s/perf.log", c->perf_dir);
    char *event = pc_printf("cpu-clock/freq=%u,name=cpu-clock/", c->o.cpu_hz);
    char *control = pc_printf("fd:%d,%d", to[0], from[1]), *pid = pc_printf("%d", (int)c->pid);
    const char *argv[24] = { "perf", "record", "-k", "CLOCK_MONOTONIC", "--call-graph", c->o.call_graph,
                             "-e", event };
    size_t n = 8;
    if (off_cpu) {
        argv[n++] = "-c";       /* every switch: -c sets the period of events without their own */
        argv[n++] = "1";
        argv[n++] = "-e";
        argv[n++] = "sched:sched_switch";
    }
    const char *tail[] = { "-D", "-1", "--control", control, "-o", data, "-p", pid, NULL };
    for (size_t i = 0; tail[i]; i++)
        argv[n++] = tail[i];
    argv[n] = NULL;
    const int keep[] = { to[0], from[1], -1 };
    pc_cmd cmd = { .argv = argv, .log = log, .keep_fds = keep };
    pid_t p = pc_spawn(&cmd, NULL, NULL);
    close(to[0]);
    close(from[1]);
    *ctl = to[1];
    *ack = from[0];
    free(data);
    free(log);
    free(event);
    free(control);
    free(pid);
    return p;
}

/* "enable", then "ack" back within 15 s; 0 when perf records, else its exit status (or -1). */
static int handshake(pid_t perf, int ctl, int ack)
{
    char buf[16] = "";
    int st;
    /* A perf that failed at once has closed its end (EPIPE): its exit status says why. */
    if (write(ctl, "enable\n", 7) != 7) {
        for (int i = 0; i < 150; i++) {
            if (waitpid(perf, &st, WNOHANG) == perf)
                return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            pc_pause(100);
        }
        pc_stop(perf);
        return -1;
    }
    for (int i = 0; i < 150; i++) {
        struct pollfd p = { .fd = ack, .events = POLLIN };
        if (poll(&p, 1, 100) > 0) {
            ssize_t n = read(ack, buf, sizeof(buf) - 1);
            if (n > 0 && strncmp(buf, "ack", 3) == 0)
                return 0;
            if (n == 0)     /* perf closed its end: it is exiting, and poll() no longer waits */
                pc_pause(100);
        }
        if (waitpid(perf, &st, WNOHANG) == perf)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    pc_stop(perf);
    return -1;
}

/* One attempt; 0 when perf records. The control pipes stay open while it does: perf 6.1 loses
 * track of its poll descriptors when the control pipe is closed under it ("Thread and evlist
 * pollfd index mismatch", and a perf.data without its size). */
static int try_record(pc_ctx *c, int off_cpu)
{
    int ctl = -1, ack = -1;
    pid_t p = spawn_record(c, off_cpu, &ctl, &ack);
    int rc = p > 0 ? handshake(p, ctl, ack) : -1;
    if (rc == 0) {
        c->perf = p;
        c->perf_ctl = ctl;
        c->perf_ack = ack;
    } else {
        close_fd(&ctl);
        close_fd(&ack);
    }
    return rc;
}

static void say_recording(const pc_ctx *c, int off_cpu)
{
    pc_say("perf records %sthe CPU samples of pid %d and its children (%u Hz, %s call stacks) into %s/perf.data",
           off_cpu ? "where threads block (sched:sched_switch) and " : "", (int)c->pid, c->o.cpu_hz,
           c->o.call_graph, c->perf_dir);
}

/* DIR/perf, before the program is forked: its jitdump goes there (PALEV_PERFMAP_DIR). */
int pc_perf_prepare(pc_ctx *c)
{
    if (!c->o.cpu_hz)
        return 0;
    c->perf_dir = pc_printf("%s/perf", c->out);
    if (mkdir(c->perf_dir, 0777))
        return pc_fail(PC_EXIT_SETUP, "cannot create %s: %s", c->perf_dir, strerror(errno));
    return 0;
}

int pc_perf_start(pc_ctx *c)
{
    char *path;
    if (!c->o.cpu_hz)
        return 0;
    if (!(path = pc_which("perf"))) {
        c->perf_problem = 1;
        pc_warn("--cpu: perf is not installed (Debian: apt-get install linux-perf): no CPU samples; %s", still);
        return 0;
    }
    free(path);
    int rc = try_record(c, c->o.off_cpu);
    char *why = rc ? refusal(c->o.off_cpu) : NULL;
    /* Off-CPU refused where CPU samples are not: the samples alone. */
    if (rc && c->o.off_cpu && off_cpu_refused() && (rc = try_record(c, 0)) == 0) {
        c->perf_problem = 1;
        pc_warn("--off-cpu: %s; CPU samples only", why);
        say_recording(c, 0);
    } else if (rc) {
        c->perf_problem = 1;
        if (why)
            pc_warn("--cpu: perf may not record: %s; %s", why, still);
        else if (rc < 0)
            pc_warn("--cpu: perf record did not answer (see %s/perf.log): no CPU samples; %s", c->perf_dir, still);
        else
            pc_warn("--cpu: perf record exited %d (see %s/perf.log): no CPU samples; %s", rc, c->perf_dir, still);
    } else {
        say_recording(c, c->o.off_cpu);
    }
    free(why);
    return 0;
}

/* ---- after the run ------------------------------------------------------------------------ */

/* perf ARGS..., its output appended to perf.log; 0 when it succeeded. */
static int perf_tool(const pc_ctx *c, const char *const *args)
{
    const char *argv[12] = { "perf" };
    size_t n = 1;
    while (*args && n < 11)
        argv[n++] = *args++;
    argv[n] = NULL;
    char *log = pc_printf("%s/perf.log", c->perf_dir);
    pc_cmd cmd = { .argv = argv, .log = log };
    int rc = pc_run(&cmd);
    free(log);
    return rc;
}

/* A jitdump the program wrote (PALEV_PERFMAP=2 or 3) into the perf directory. */
static int has_jitdump(const pc_ctx *c)
{
    DIR *d = opendir(c->perf_dir);
    int found = 0;
    for (struct dirent *de; d && !found && (de = readdir(d));)
        found = strncmp(de->d_name, "jit-", 4) == 0 && strstr(de->d_name, ".dump");
    if (d)
        closedir(d);
    return found;
}

/* perf data convert writes a CTF stream per CPU that had samples; with none at all it leaves a
 * metadata file babeltrace2 rejects ("byte_order = unknown"): nothing to read, removed. */
static int converted_samples(const char *ctf)
{
    DIR *d = opendir(ctf);
    int streams = 0;
    for (struct dirent *de; d && (de = readdir(d));)
        streams += strncmp(de->d_name, "perf_stream_", 12) == 0;
    if (d)
        closedir(d);
    if (!streams) {
        char *meta = pc_printf("%s/metadata", ctf);
        unlink(meta);
        rmdir(ctf);
        free(meta);
    }
    return streams;
}

/* perf stops (SIGINT, as perf record expects), writes perf.data; then the CTF conversion, and
 * perf.jit.data when the program described its JIT code. */
void pc_perf_stop(pc_ctx *c)
{
    int st, reaped = 0;
    if (c->perf <= 0)
        return;
    kill(c->perf, SIGINT);
    for (int i = 0; i < 600 && !(reaped = waitpid(c->perf, &st, WNOHANG) == c->perf); i++)
        pc_pause(100);
    if (!reaped)
        pc_stop(c->perf);
    c->perf = 0;
    close_fd(&c->perf_ctl);
    close_fd(&c->perf_ack);
    char *data = pc_printf("%s/perf.data", c->perf_dir), *ctf = pc_printf("%s/ctf", c->perf_dir);
    char *jit = pc_printf("%s/perf.jit.data", c->perf_dir);
    const char *convert[] = { "data", "convert", "--to-ctf", ctf, "-i", data, NULL };
    const char *inject[] = { "inject", "--jit", "-i", data, "-o", jit, NULL };
    if (perf_tool(c, convert)) {
        c->perf_problem = 1;
        pc_warn("--cpu: perf data convert --to-ctf failed (see %s/perf.log): %s holds the samples for perf "
                "report, palev-trace cannot read them", c->perf_dir, data);
    } else if (!converted_samples(ctf)) {
        pc_warn("--cpu: perf recorded no sample (a run shorter than one sampling period per thread?)");
    } else {
        pc_say("CPU samples: %s (perf report -i %s), and as CTF in %s", data, data, ctf);
    }
    if (has_jitdump(c) && perf_tool(c, inject) == 0)
        pc_say("JIT code named from the program's jitdump: perf report -i %s", jit);
    free(data);
    free(ctf);
    free(jit);
}
