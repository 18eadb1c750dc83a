/* SPDX-License-Identifier: MIT */
/* palev-trace COMMAND [options] TRACE...: arguments, the command table, exit codes. */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"

extern const pt_command pt_cmd_status;  /* cmd_status.c */

static const pt_command *const commands[] = {
    &pt_cmd_summary, &pt_cmd_activities, &pt_cmd_counters, &pt_cmd_export, &pt_cmd_report, &pt_cmd_top,
    &pt_cmd_stacks, &pt_cmd_status,
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct option long_options[] = {
    { "manifest", required_argument, NULL, 'm' },
    { "no-manifests", no_argument, NULL, 'M' },
    { "by", required_argument, NULL, 'b' },
    { "top", required_argument, NULL, 't' },
    { "output", required_argument, NULL, 'o' },
    { "format", required_argument, NULL, 'f' },
    { "seconds", required_argument, NULL, 's' },
    { "event", required_argument, NULL, 'e' },
    { "folded", no_argument, NULL, 'F' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* Which command option each getopt letter needs (0: every command takes it). */
static const struct { int letter; unsigned option; const char *name; } option_owner[] = {
    { 'b', PT_OPT_BY, "--by" }, { 't', PT_OPT_TOP, "--top" },
    { 'o', PT_OPT_OUTPUT, "-o" }, { 'f', PT_OPT_FORMAT, "--format" }, { 's', PT_OPT_LIVE, "--seconds" },
    { 'e', PT_OPT_EVENT, "--event" }, { 'F', PT_OPT_FOLDED, "--folded" },
};

static void usage(FILE *out)
{
    fputs("usage: palev-trace COMMAND [options] TRACE...\n\n"
          "Answers, exports and pictures from an LTTng trace of paleventing providers.\n"
          "TRACE is the directory lttng (or palev-collect, or lttng-relayd) wrote; every CTF trace\n"
          "below it is read, several hosts and sessions included.\n\ncommands:\n", out);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-11s %s\n", commands[i]->name, commands[i]->help);
    fputs("\noptions of every command:\n"
          "  -m, --manifest FILE  the ETW manifest of a provider in the trace (repeatable); the\n"
          "                       manifests in TRACE/palev-manifests/ are read without asking\n"
          "      --no-manifests   ignore TRACE/palev-manifests/: work on event names and fields\n"
          "  -h, --help           this help (palev-trace COMMAND --help: the command's)\n"
          "\nexit status: 0 ok; 1 bad trace or data (not a trace, damaged, empty, events\n"
          "discarded, manifest not matching the trace: said on stderr, and what could be read is\n"
          "still reported); 2 usage error.\n", out);
}

static void command_usage(const pt_command *c, FILE *out)
{
    fprintf(out, "usage: palev-trace %s %s\n  %s\n", c->name, c->args, c->help);
    fputs("  -m, --manifest FILE  a provider's manifest (repeatable); --no-manifests: none\n", out);
    if (c->options & PT_OPT_BY)
        fputs("      --by FIELD       split each task by this field of its Start event\n", out);
    if (c->options & PT_OPT_TOP)
        fputs("      --top N          the N longest instances (default 10, 0: none)\n", out);
    if (c->options & PT_OPT_FORMAT)
        fputs("      --format NAME    the output format (see the synopsis above)\n", out);
    if (c->options & PT_OPT_LIVE)
        fputs("      --seconds N      stop after N seconds (default: when the session ends)\n", out);
    if (c->options & PT_OPT_OUTPUT)
        fputs("  -o, --output FILE    where to write (required)\n", out);
    if (c->options & PT_OPT_EVENT)
        fputs("      --event NAME     only this event's stacks (\"provider:event\" or \"event\")\n", out);
    if (c->options & PT_OPT_FOLDED)
        fputs("      --folded         folded lines (flamegraph.pl, speedscope), every stack\n", out);
}

static const pt_command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i]->name, name) == 0)
            return commands[i];
    return NULL;
}

static int option_allowed(const pt_command *c, int letter)
{
    for (size_t i = 0; i < sizeof(option_owner) / sizeof(option_owner[0]); i++)
        if (option_owner[i].letter == letter && !(c->options & option_owner[i].option)) {
            fprintf(stderr, "palev-trace %s: %s is not an option of this command\n", c->name,
                    option_owner[i].name);
            return 0;
        }
    return 1;
}

static int parse_count(const char *s, unsigned *out)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || v > 1000000 || s[0] == '-')
        return -1;
    *out = (unsigned)v;
    return 0;
}

static int set_option(const pt_command *c, pt_opts *o, int letter, const char *arg)
{
    if (!option_allowed(c, letter))
        return -1;
    switch (letter) {
    case 'm':
        o->in.manifests = realloc(o->in.manifests, (o->in.nmanifests + 1) * sizeof(char *));
        o->in.manifests[o->in.nmanifests++] = arg;
        return 0;
    case 'M': o->in.no_auto_manifests = 1; return 0;
    case 'b': o->by = arg; return 0;
    case 'o': o->output = arg; return 0;
    case 'f': o->format = arg; return 0;
    case 'e': o->event = arg; return 0;
    case 'F': o->folded = 1; return 0;
    case 't':
    case 's':
        if (parse_count(arg, letter == 't' ? &o->top : &o->seconds) == 0)
            return 0;
        fprintf(stderr, "palev-trace %s: %s wants a count, not \"%s\"\n", c->name,
                letter == 't' ? "--top" : "--seconds", arg);
        return -1;
    default: return -1;
    }
}

static int parse(const pt_command *c, int argc, char **argv, pt_opts *o, int *help)
{
    int letter;
    optind = 1;
    while ((letter = getopt_long(argc, argv, "m:o:h", long_options, NULL)) != -1) {
        if (letter == 'h')
            *help = 1;
        else if (letter == '?' || set_option(c, o, letter, optarg))
            return -1;
    }
    o->in.paths = (const char **)argv + optind;
    o->in.npaths = (unsigned)(argc - optind);
    if (*help)
        return 0;
    if (o->in.npaths < c->min_inputs || (c->max_inputs && o->in.npaths > c->max_inputs)) {
        fprintf(stderr, "palev-trace %s: %s\n", c->name,
                o->in.npaths < c->min_inputs ? "no TRACE given" : "too many TRACE arguments");
        return -1;
    }
    if ((c->options & PT_OPT_OUTPUT) && !o->output) {
        fprintf(stderr, "palev-trace %s: -o FILE is required\n", c->name);
        return -1;
    }
    return 0;
}

/* babeltrace2 2.0.4's CTF decoder asserts (abort()) on some damaged packets: the babeltrace2
 * command dies the same way. Say what happened and exit as for any bad trace. */
static void on_abort(int sig)
{
    static const char msg[] = "palev-trace: error: the trace is damaged: babeltrace2's CTF decoder "
                              "stopped on an internal assertion (babeltrace2 itself aborts on this "
                              "trace too)\n";
    (void)sig;
    if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
        _exit(PT_EXIT_DATA);
    _exit(PT_EXIT_DATA);
}

int main(int argc, char **argv)
{
    struct sigaction sa = { .sa_handler = on_abort };
    sigaction(SIGABRT, &sa, NULL);
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? PT_EXIT_USAGE : PT_EXIT_OK;
    }
    const pt_command *c = find_command(argv[1]);
    if (!c) {
        fprintf(stderr, "palev-trace: unknown command \"%s\" (palev-trace --help lists them)\n", argv[1]);
        return PT_EXIT_USAGE;
    }
    pt_opts o = { .top = 10 };
    int help = 0, rc;
    if (parse(c, argc - 1, argv + 1, &o, &help)) {
        command_usage(c, stderr);
        rc = PT_EXIT_USAGE;
    } else if (help) {
        command_usage(c, stdout);
        rc = PT_EXIT_OK;
    } else {
        rc = c->run(&o);
    }
    free(o.in.manifests);
    return rc;
}

/* ---- shared by the commands ---------------------------------------------------------------- */

int pt_read_all(const pt_opts *o, const pt_sink *sink, pt_reader **out)
{
    int rc = pt_open(&o->in, out);
    if (rc)
        return rc;
    return pt_run(*out, sink);
}

int pt_verdict(pt_reader *r, int read_rc)
{
    uint64_t lost = 0, lost_packets = 0, events = 0;
    for (unsigned i = 0; i < pt_trace_count(r); i++) {
        lost += pt_trace_at(r, i)->discarded_events;
        lost_packets += pt_trace_at(r, i)->discarded_packets;
        events += pt_trace_at(r, i)->events;
    }
    if (lost || lost_packets)
        fprintf(stderr, "palev-trace: warning: the trace lost %llu events and %llu packets: "
                "figures are lower bounds (palev-trace summary says where; record again with "
                "bigger sub-buffers or fewer events)\n", (unsigned long long)lost,
                (unsigned long long)lost_packets);
    if (!events && !read_rc)
        fputs("palev-trace: error: the trace holds no event\n", stderr);
    if (read_rc || lost || lost_packets || !events || pt_manifest_errors(r))
        return PT_EXIT_DATA;
    return PT_EXIT_OK;
}

const char *pt_fmt_time(int64_t ns, char *buf, size_t size)
{
    time_t secs = (time_t)(ns / 1000000000);
    struct tm tm;
    char day[32];
    gmtime_r(&secs, &tm);
    strftime(day, sizeof(day), "%Y-%m-%d %H:%M:%S", &tm);
    snprintf(buf, size, "%s.%09lld UTC", day, (long long)(ns % 1000000000));
    return buf;
}
