/* SPDX-License-Identifier: MIT */
/* palev-collect: record what an ETW session with these keywords and this level would get from the
 * manifests' providers (palev-gen enable-list), plus paleventing's own events, while COMMAND
 * runs; then say on stderr when a provider was not loaded or nothing was recorded. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli.h"
#include "collect.h"
#include "pcm_own.h"

static const char usage_text[] =
    "usage: palev-collect -m MANIFEST [-m MANIFEST]... [--provider-name ETWNAME=LTTNGNAME]...\n"
    "                     [-e EVENT]... [--keywords K] [--level N]\n"
    "                     [--eventsource-filter S] [--stacks] [--live] [--relayd-ports C,D,L]\n"
    "                     [-o DIR [--replace]] [--all-processes] [--no-check | --strict]\n"
    "                     [--cpu[=HZ]] [--off-cpu] [--call-graph fp|dwarf]\n"
    "                     -- COMMAND [ARG...]\n"
    "  -m MANIFEST             a manifest whose providers the program fires (repeatable)\n"
    "  --provider-name ETWNAME=LTTNGNAME\n"
    "                          the program was built with this provider renamed (palev-gen's and\n"
    "                          palev_add_provider's option; repeatable); kept in\n"
    "                          DIR/palev-manifests/provider-names\n"
    "  -e EVENT                also these LTTng events, wildcards allowed (repeatable): typed events\n"
    "                          the program defines at run time, e.g. -e 'MiniVM_*'\n"
    "  --keywords K            keyword names (any case, \"GC\" or \"GCKeyword\") or a hex mask;\n"
    "                          default: every keyword\n"
    "  --level N               ETW level: 1 Critical .. 5 Verbose; default 0, every level\n"
    "  --eventsource-filter S  passed to COMMAND as PALEV_EVENTSOURCE_FILTER (EventSource names)\n"
    "  --stacks                a call stack after every recorded event, and the JIT code described\n"
    "                          (" PCM_OWN_EVENT("Stack") ", CodeLoad, CodeUnload, CodeRundown, lttng_ust_dl:*):\n"
    "                          palev-trace stacks names every frame\n"
    "  --live                  stream through an lttng-relayd on 127.0.0.1 and print the events as\n"
    "                          they arrive (a relayd is started, and stopped after, if none listens)\n"
    "  --relayd-ports C,D,L    the relayd's control, data and live ports on 127.0.0.1 (default\n"
    "                          5342,5343,5344: lttng's own)\n"
    "  -o DIR                  where the trace goes: a new or empty directory (default: a new\n"
    "                          ./palev-trace-DATE-TIME[-N]); the manifests used are copied to\n"
    "                          DIR/palev-manifests/\n"
    "  --replace               DIR may hold a trace, which is then replaced (only when everything\n"
    "                          in DIR belongs to a trace: anything else is never removed)\n"
    "  --all-processes         record every process of the user, not only COMMAND and the processes\n"
    "                          it starts\n"
    "  --no-check              do not read the trace after the run\n"
    "  --strict                exit 3 instead of COMMAND's 0 when the check after the run finds\n"
    "                          a provider not loaded or nothing recorded (or perf did not record)\n"
    "  --cpu[=HZ]              also CPU samples of COMMAND's threads with call stacks (perf, HZ\n"
    "                          default 999, CLOCK_MONOTONIC): DIR/perf/perf.data, as CTF in\n"
    "                          DIR/perf/ctf/; PALEV_PERFMAP=3 names JIT code for perf, and\n"
    "                          CodeLoad, CodeUnload, CodeRundown, lttng_ust_dl:* for palev-trace\n"
    "  --off-cpu               --cpu and where threads block (sched:sched_switch with call stacks;\n"
    "                          root or CAP_PERFMON)\n"
    "  --call-graph fp|dwarf   perf's call stacks: frame pointers (default) or DWARF (perf report\n"
    "                          only: the CTF conversion keeps no DWARF stacks)\n"
    "Environment: PALEV_GEN, the palev-gen to use (default: beside palev-collect, else on PATH).\n"
    "Exit status: COMMAND's; 2 for usage errors, unknown keywords and missing tools; 1 when tracing\n"
    "could not be set up; 127 when COMMAND is not found, 126 when it cannot run (said before\n"
    "anything is set up); 3 with --strict (above).\n";

/* ---- options ------------------------------------------------------------------------------ */

enum {
    OPT_KEYWORDS = 256, OPT_LEVEL, OPT_ES_FILTER, OPT_LIVE, OPT_PORTS, OPT_STACKS, OPT_NO_CHECK, OPT_REPLACE,
    OPT_ALL, OPT_STRICT, OPT_RENAME, OPT_CPU, OPT_OFF_CPU, OPT_CALL_GRAPH,
};

static const struct option long_options[] = {
    { "keywords", required_argument, NULL, OPT_KEYWORDS },
    { "level", required_argument, NULL, OPT_LEVEL },
    { "eventsource-filter", required_argument, NULL, OPT_ES_FILTER },
    { "live", no_argument, NULL, OPT_LIVE },
    { "relayd-ports", required_argument, NULL, OPT_PORTS },
    { "stacks", no_argument, NULL, OPT_STACKS },
    { "no-check", no_argument, NULL, OPT_NO_CHECK },
    { "replace", no_argument, NULL, OPT_REPLACE },
    { "all-processes", no_argument, NULL, OPT_ALL },
    { "strict", no_argument, NULL, OPT_STRICT },
    { "provider-name", required_argument, NULL, OPT_RENAME },
    { "cpu", optional_argument, NULL, OPT_CPU },
    { "off-cpu", no_argument, NULL, OPT_OFF_CPU },
    { "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* "palev-collect: message", the usage, and PC_EXIT_USAGE (common/cli.c). */
#define usage_error(...) pcm_usage_error("palev-collect", usage_text, PC_EXIT_USAGE, __VA_ARGS__)

/* The name of the option getopt_long stopped at, as the user wrote it. */
static const char *option_name(int val)
{
    static char shortname[3] = "-?";
    for (const struct option *o = long_options; o->name; o++)
        if (o->val == val) {
            static char longname[40];
            snprintf(longname, sizeof(longname), "--%s", o->name);
            return longname;
        }
    shortname[1] = (char)val;
    return shortname;
}

static int set_ports(pc_opts *o, const char *arg)
{
    unsigned p[3];
    char end;
    if (sscanf(arg, "%5u,%5u,%5u%c", &p[0], &p[1], &p[2], &end) != 3 || !p[0] || !p[1] || !p[2] ||
        p[0] > 65535 || p[1] > 65535 || p[2] > 65535 || strspn(arg, "0123456789,") != strlen(arg))
        return usage_error("--relayd-ports wants three port numbers CONTROL,DATA,LIVE, not \"%s\"", arg);
    o->control_port = p[0];
    o->data_port = p[1];
    o->live_port = p[2];
    return 0;
}

/* ETWNAME=LTTNGNAME, each side checked by palev-gen. */
static int add_rename(pc_opts *o, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1] || strchr(arg, '\n'))
        return usage_error("--provider-name wants ETWNAME=LTTNGNAME, not \"%s\"", arg);
    pc_strv_push(&o->renames, arg);
    return 0;
}

/* --cpu[=HZ]: perf's default rate 999 Hz (not a multiple of the kernel's tick). */
static int set_cpu(pc_opts *o, const char *arg)
{
    char *end;
    unsigned long hz = arg ? strtoul(arg, &end, 10) : 999;
    if (arg && (!*arg || *end || arg[0] == '-' || hz < 1 || hz > 100000))
        return usage_error("--cpu wants a rate in Hz, 1 to 100000, not \"%s\"", arg);
    o->cpu_hz = (unsigned)hz;
    return 0;
}

/* One option; returns 0, -1 for --help, or the exit status of a usage error. */
static int set_option(pc_opts *o, int letter, const char *arg)
{
    switch (letter) {
    case 'm': pc_strv_push(&o->manifests, arg); return 0;
    case 'e': pc_strv_push(&o->extra, arg); return 0;
    case 'o': o->out = arg; return 0;
    case OPT_KEYWORDS: o->keywords = *arg ? arg : NULL; return 0;
    case OPT_LEVEL: o->level = *arg ? arg : NULL; return 0;
    case OPT_ES_FILTER: o->es_filter = *arg ? arg : NULL; return 0;
    case OPT_LIVE: o->live = 1; return 0;
    case OPT_STACKS: o->stacks = 1; return 0;
    case OPT_NO_CHECK: o->check = 0; return 0;
    case OPT_REPLACE: o->replace = 1; return 0;
    case OPT_ALL: o->all_processes = 1; return 0;
    case OPT_STRICT: o->strict = 1; return 0;
    case OPT_PORTS: return set_ports(o, arg);
    case OPT_RENAME: return add_rename(o, arg);
    case OPT_CPU: return set_cpu(o, arg);
    case OPT_OFF_CPU: o->off_cpu = 1; return 0;
    case OPT_CALL_GRAPH:
        if (strcmp(arg, "fp") && strcmp(arg, "dwarf"))
            return usage_error("--call-graph is fp or dwarf, not \"%s\"", arg);
        o->call_graph = arg;
        return 0;
    case 'h': fputs(usage_text, stdout); return -1;
    default: return PC_EXIT_USAGE;
    }
}

static int parse_args(pc_opts *o, int argc, char **argv)
{
    int letter, rc;
    *o = (pc_opts){ .check = 1, .control_port = 5342, .data_port = 5343, .live_port = 5344 };
    opterr = 0;
    while ((letter = getopt_long(argc, argv, "+:m:e:o:h", long_options, NULL)) != -1) {
        if (letter == ':')
            return usage_error("%s needs a value", option_name(optopt));
        if (letter == '?')
            return usage_error("unknown option \"%s\"", argv[optind - 1]);
        if ((rc = set_option(o, letter, optarg)))
            return rc;
    }
    if (optind >= argc)
        return usage_error("%s", "no COMMAND to run");
    if (!o->manifests.n)
        return usage_error("%s", "no manifest: give the program's with -m");
    if (o->strict && !o->check)
        return usage_error("%s", "--strict fails a run on what the check finds: not with --no-check");
    if (o->off_cpu && !o->cpu_hz)
        o->cpu_hz = 999;
    if (o->call_graph && !o->cpu_hz)
        return usage_error("%s", "--call-graph is for perf's call stacks: give --cpu or --off-cpu");
    if (!o->call_graph)
        o->call_graph = "fp";
    o->command = argv + optind;
    return 0;
}

/* ---- before the run ----------------------------------------------------------------------- */

static int find_tools(pc_ctx *c)
{
    const char *tools[] = { "lttng", c->o.live ? "lttng-relayd" : NULL, c->o.live ? "babeltrace2" : NULL };
    for (size_t i = 0; i < 3 && tools[i]; i++) {
        char *path = pc_which(tools[i]);
        if (!path)
            return pc_fail(PC_EXIT_USAGE, "missing tool: %s (Debian: apt-get install lttng-tools babeltrace2)",
                           tools[i]);
        free(path);
    }
    const char *env = getenv("PALEV_GEN");
    if (env && *env) {
        c->gen = pc_is_executable(env) ? pc_strdup(env) : NULL;
    } else {
        char *beside = pc_printf("%s/palev-gen", pc_self_dir());
        char *build = pc_printf("%s/../generator/palev-gen", pc_self_dir());
        c->gen = pc_is_executable(beside) ? pc_strdup(beside)
                 : pc_is_executable(build) ? pc_strdup(build) : pc_which("palev-gen");
        free(beside);
        free(build);
    }
    if (!c->gen)
        return pc_fail(PC_EXIT_USAGE, "missing tool: palev-gen (install paleventing, or set PALEV_GEN)");
    for (size_t i = 0; i < c->o.manifests.n; i++)
        if (access(c->o.manifests.v[i], R_OK))
            return pc_fail(PC_EXIT_USAGE, "cannot read the manifest %s", c->o.manifests.v[i]);
    return 0;
}

/* The program must exist before any session does: execvp's search, its exit statuses (127: not
 * found, 126: found, not executable). */
static int find_program(pc_ctx *c)
{
    const char *name = c->o.command[0];
    char *path = pc_which(name);
    if (path) {
        free(path);
        return 0;
    }
    if (errno == EACCES)
        return pc_fail(126, "cannot run %s: not an executable file: nothing recorded", name);
    if (strchr(name, '/'))
        return pc_fail(127, "cannot run %s: no such file: nothing recorded", name);
    return pc_fail(127, "cannot run %s: command not found: nothing recorded", name);
}

static int create_session(pc_ctx *c)
{
    char *events = pc_event_list(c);
    int rc = pc_session_create(c, events);
    free(events);
    if (rc)
        return rc;
    pc_buf list = { 0 };
    for (size_t i = 0; i < c->providers.n; i++)
        pc_buf_printf(&list, " %s", c->providers.v[i]);
    pc_say("session %s records %zu events of%s and paleventing's own", c->session, pc_event_count(c),
           list.data ? list.data : "");
    pc_buf_free(&list);
    return 0;
}

static int relayd_if_live(pc_ctx *c)
{
    return c->o.live ? pc_relayd_ensure(c) : 0;
}

/* The program's descendants, when its child could set up the filter. */
static int follow(pc_ctx *c)
{
    int fd = c->listener;
    c->listener = -1;
    return fd >= 0 ? pc_follow_start(c, fd) : 0;
}

static int viewer_if_live(pc_ctx *c)
{
    return c->o.live ? pc_viewer_start(c) : 0;
}

/* Each step says why it failed; a signal between two steps ends the set-up too. */
static int setup(pc_ctx *c)
{
    static int (*const steps[])(pc_ctx *) = {
        find_tools, find_program, pc_select_events, pc_outdir_prepare, pc_perf_prepare, pc_sessiond_ensure,
        relayd_if_live,
        pc_program_fork, create_session, follow, pc_perf_start, viewer_if_live, pc_session_start,
    };
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        int rc = steps[i](c), sig = pc_signal_take(NULL);
        if (rc)
            return rc;
        if (sig)
            return pc_fail(128 + sig, "interrupted (%s) before %s ran: nothing recorded", strsignal(sig),
                           c->o.command[0]);
    }
    return 0;
}

/* ---- after the run ------------------------------------------------------------------------ */

/* With perf's CTF beside it, babeltrace2 cannot read DIR as a whole (perf's clock and LTTng's
 * share no UUID: its muxer refuses the pair): the LTTng trace's own directories are named. */
static void say_read(const pc_ctx *c)
{
    pc_strv traces = { 0 };
    char *ctf = c->perf_dir ? pc_printf("%s/ctf", c->perf_dir) : NULL;
    if (ctf && access(ctf, F_OK) == 0)
        pc_outdir_traces(c, &traces);
    if (!traces.n) {
        pc_say("read it with: babeltrace2 %s", c->out);
    } else {
        pc_buf list = { 0 };
        for (size_t i = 0; i < traces.n; i++)
            pc_buf_printf(&list, " %s", traces.v[i]);
        pc_say("read it with: babeltrace2%s, and the CPU samples with: babeltrace2 %s", list.data, ctf);
        pc_buf_free(&list);
    }
    pc_strv_free(&traces);
    free(ctf);
}

static void summary(const pc_ctx *c)
{
    pc_say("%s exited %d", c->o.command[0], c->status);
    if (!c->o.live) {
        pc_say("trace in %s", c->out);
        say_read(c);
    } else if (c->relayd) {
        struct utsname u;
        uname(&u);
        pc_say("trace in %s/%s/ (written by the relayd)", c->out, u.nodename);
    }
}

static int run(pc_ctx *c)
{
    int e, rc, problems;
    pc_say("%s runs as pid %d", c->o.command[0], (int)c->pid);
    e = pc_program_release(c);
    pc_program_wait(c);
    pc_follow_stop(c);
    pc_session_end(c);
    if (c->o.live)
        pc_viewer_stop(c);
    pc_perf_stop(c);
    /* It passed find_program(), yet exec failed (a missing ELF interpreter, say). */
    if (e)
        return pc_fail(c->status, "cannot run %s: %s: nothing recorded", c->o.command[0], strerror(e));
    rc = pc_outdir_keep_manifests(c);
    summary(c);
    if (rc || !c->o.check)
        return rc;
    if (c->o.live && !c->relayd)
        problems = pc_fail(1, "the trace is in the relayd's output directory: not checked");
    else
        problems = pc_check_trace(c);
    /* --strict: a problem fails a run the program itself ended well. */
    if ((problems || c->perf_problem) && c->o.strict && c->status == 0)
        return pc_fail(PC_EXIT_STRICT, "--strict: exit status %d for what the check found (%s exited 0)",
                       PC_EXIT_STRICT, c->o.command[0]);
    return 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Whatever happened: nothing we started outlives us but what must (the follower, while the
 * program's children run), and a directory we created goes again if nothing went into it. */
static void cleanup(pc_ctx *c, int failed)
{
    pc_program_abandon(c);
    pc_stop(c->perf);
    close_fd(&c->perf_ctl);
    close_fd(&c->perf_ack);
    close_fd(&c->listener);
    close_fd(&c->follow_ctl);
    pc_lttng_cleanup(c);
    pc_outdir_release(c, failed);
}

static void free_ctx(pc_ctx *c)
{
    pc_strv_free(&c->o.manifests);
    pc_strv_free(&c->o.extra);
    pc_strv_free(&c->o.renames);
    pc_strv_free(&c->providers);
    free(c->gen);
    free(c->out);
    free(c->events);
    free(c->perf_dir);
}

int main(int argc, char **argv)
{
    pc_ctx c = { .go_fd = -1, .report_fd = -1, .out_fd = -1, .listener = -1, .follow_ctl = -1, .perf_ctl = -1,
                 .perf_ack = -1 };
    int rc;
    setvbuf(stdout, NULL, _IOLBF, 0);
    pc_signals_init();
    rc = parse_args(&c.o, argc, argv);
    if (rc) {
        free_ctx(&c);
        return rc < 0 ? 0 : rc;
    }
    rc = setup(&c);
    if (!rc)
        rc = run(&c);
    cleanup(&c, rc != 0);
    free_ctx(&c);
    return rc ? rc : c.status;
}
