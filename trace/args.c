/* SPDX-License-Identifier: MIT */
/* Command lines: the options every command takes, a command's own table, --help from both; a
 * command run from its table: parse, work, free. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"

/* The options every command takes: all of them describe the inputs. A new one is a line here
 * and a member of pt_input (which begins every command's options struct: the offsets hold). */
static const pt_option input_options[] = {
    { .name = "manifest", .letter = 'm', .type = PT_OPT_LIST, .at = offsetof(pt_input, manifests),
      .count_at = offsetof(pt_input, nmanifests), .arg = "FILE",
      .help = "a provider's manifest (repeatable); TRACE/palev-manifests/*.man are read without asking" },
    { .name = "no-manifests", .type = PT_OPT_FLAG, .at = offsetof(pt_input, no_auto_manifests),
      .help = "ignore TRACE/palev-manifests/: work on event names and fields" },
    { .name = "provider-name", .type = PT_OPT_LIST, .at = offsetof(pt_input, provider_names),
      .count_at = offsetof(pt_input, nprovider_names), .arg = "ETWNAME=LTTNGNAME",
      .help = "a provider built renamed (repeatable; palev-collect records them in "
              "TRACE/palev-manifests/provider-names)" },
    { .name = "pid", .type = PT_OPT_ID, .at = offsetof(pt_input, pid), .arg = "PID",
      .help = "only the events of the process(es) whose vpid is PID (the vpid context)" },
    PT_OPTIONS_END,
};

static size_t count_options(const pt_option *opts)
{
    size_t n = 0;
    while (opts && opts[n].name)
        n++;
    return n;
}

/* "  -o, --output FILE    help", or the help on a line of its own after a long left column. */
static void option_usage(FILE *out, const pt_option *o)
{
    char left[64];
    if (o->letter)
        snprintf(left, sizeof(left), "-%c, --%s%s%s", o->letter, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    else
        snprintf(left, sizeof(left), "    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    if (strlen(left) > 20)
        fprintf(out, "  %s\n  %-20s %s%s\n", left, "", o->help, o->required ? " (required)" : "");
    else
        fprintf(out, "  %-20s %s%s\n", left, o->help, o->required ? " (required)" : "");
}

static void usage(const pt_command *c, const pt_option *all, size_t n, FILE *out)
{
    fprintf(out, "usage: palev-trace %s %s\n  %s\n", c->name, c->synopsis, c->help);
    for (size_t i = 0; i < n; i++)
        option_usage(out, &all[i]);
    fputs("  -h, --help           this help\n", out);
}

/* "-o" or "--top": how the user names the option, shortest first. */
static const char *spelled(const pt_option *o, char *buf, size_t size)
{
    if (o->letter)
        snprintf(buf, size, "-%c", o->letter);
    else
        snprintf(buf, size, "--%s", o->name);
    return buf;
}

static int parse_number(const char *s, unsigned long min, unsigned long max, unsigned *out)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || v < min || v > max || s[0] == '-')
        return -1;
    *out = (unsigned)v;
    return 0;
}

/* The index of arg among choices ("text|tsv"), or -1. */
static int choice_index(const char *choices, const char *arg)
{
    size_t len = strlen(arg);
    int i = 0;
    for (const char *p = choices; *p; i++) {
        size_t n = strcspn(p, "|");
        if (n == len && strncmp(p, arg, n) == 0)
            return i;
        p += n + (p[n] == '|');
    }
    return -1;
}

/* "text or tsv", "a, b or c". */
static void say_choices(FILE *out, const char *choices)
{
    for (const char *p = choices; *p;) {
        size_t n = strcspn(p, "|");
        const char *next = p + n + (p[n] == '|');
        fprintf(out, "%.*s%s", (int)n, p, !*next ? "" : strchr(next, '|') ? ", " : " or ");
        p = next;
    }
}

static int store(const pt_command *c, const pt_option *o, const char *arg, pt_input *opts)
{
    char name[64];
    void *value = (char *)opts + o->at;
    int i;
    switch (o->type) {
    case PT_OPT_FLAG:
        *(int *)value = 1;
        return 0;
    case PT_OPT_STRING:
        *(const char **)value = arg;
        return 0;
    case PT_OPT_COUNT:
    case PT_OPT_ID:
        if (o->type == PT_OPT_COUNT ? parse_number(arg, 0, 1000000, value) == 0
                                    : parse_number(arg, 1, 4294967295ul, value) == 0)
            return 0;
        fprintf(stderr, "palev-trace %s: %s wants %s, not \"%s\"\n", c->name, spelled(o, name, sizeof(name)),
                o->type == PT_OPT_COUNT ? "a count" : "a number above 0", arg);
        return -1;
    case PT_OPT_LIST: {
        const char ***list = value;
        unsigned *count = (unsigned *)((char *)opts + o->count_at);
        *list = pt_xrealloc((void *)*list, (*count + 1) * sizeof(**list));
        (*list)[(*count)++] = arg;
        return 0;
    }
    case PT_OPT_CHOICE:
        if ((i = choice_index(o->choices, arg)) >= 0) {
            *(unsigned *)value = (unsigned)i;
            return 0;
        }
        fprintf(stderr, "palev-trace %s: %s is ", c->name, spelled(o, name, sizeof(name)));
        say_choices(stderr, o->choices);
        fprintf(stderr, ", not \"%s\"\n", arg);
        return -1;
    }
    return -1;
}

/* The option as it was typed, without its "=value". */
static void say_unknown(const pt_command *c, const char *typed, int missing)
{
    size_t len = strcspn(typed, "=");
    if (missing)
        fprintf(stderr, "palev-trace %s: %.*s needs an argument\n", c->name, (int)len, typed);
    else
        fprintf(stderr, "palev-trace %s: %.*s is not an option of this command\n", c->name, (int)len, typed);
}

static int check_required(const pt_command *c, const pt_option *all, size_t n, const unsigned char *seen)
{
    for (size_t i = 0; i < n; i++)
        if (all[i].required && !seen[i]) {
            char name[64];
            fprintf(stderr, "palev-trace %s: %s%s%s is required\n", c->name, spelled(&all[i], name, sizeof(name)),
                    all[i].arg ? " " : "", all[i].arg ? all[i].arg : "");
            return -1;
        }
    return 0;
}

static int check_inputs(const pt_command *c, const pt_input *in)
{
    if (in->npaths >= c->min_inputs && (!c->max_inputs || in->npaths <= c->max_inputs))
        return 0;
    fprintf(stderr, "palev-trace %s: %s\n", c->name,
            in->npaths < c->min_inputs ? "no TRACE given" : "too many TRACE arguments");
    return -1;
}

/* getopt_long's tables for the options; a long-only option's value is 256 + its index. */
static void getopt_tables(const pt_option *all, size_t n, struct option *longs, char *shorts)
{
    char *s = shorts;
    *s++ = ':';     /* a missing argument is ':', not '?' */
    for (size_t i = 0; i < n; i++) {
        longs[i] = (struct option){ all[i].name, all[i].type == PT_OPT_FLAG ? no_argument : required_argument,
                                    NULL, all[i].letter ? all[i].letter : 256 + (int)i };
        if (all[i].letter) {
            *s++ = all[i].letter;
            if (all[i].type != PT_OPT_FLAG)
                *s++ = ':';
        }
    }
    longs[n] = (struct option){ "help", no_argument, NULL, 'h' };
    longs[n + 1] = (struct option){ NULL, 0, NULL, 0 };
    strcpy(s, "h");
}

static const pt_option *option_of(const pt_option *all, size_t n, int v, size_t *index)
{
    for (size_t i = 0; i < n; i++)
        if (v == (all[i].letter ? all[i].letter : 256 + (int)i)) {
            *index = i;
            return &all[i];
        }
    return NULL;
}

/* The options every command takes, then c's own: a new array (free it), n its length. */
static pt_option *all_options(const pt_command *c, size_t *n)
{
    size_t shared = count_options(input_options), own = count_options(c->options);
    pt_option *all = pt_xcalloc(shared + own + 1, sizeof(*all));
    memcpy(all, input_options, shared * sizeof(*all));
    if (own)
        memcpy(all + shared, c->options, own * sizeof(*all));
    *n = shared + own;
    return all;
}

int pt_parse_args(const pt_command *c, int argc, char **argv, pt_input *opts)
{
    size_t n;
    pt_option *all = all_options(c, &n);
    struct option *longs = pt_xcalloc(n + 2, sizeof(*longs));
    char *shorts = pt_xcalloc(2 * n + 3, 1);
    unsigned char *seen = pt_xcalloc(n, 1);
    int v, help = 0, rc = PT_RUN;
    getopt_tables(all, n, longs, shorts);
    opterr = 0;
    optind = 0;
    while (rc == PT_RUN && (v = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        const pt_option *o;
        size_t i;
        if (v == 'h')
            help = 1;
        else if (v == '?' || v == ':') {
            const char *typed = argv[optind - 1];
            char letter[3] = { '-', (char)optopt, 0 };
            say_unknown(c, strncmp(typed, "--", 2) == 0 || !optopt ? typed : letter, v == ':');
            rc = PT_EXIT_USAGE;
        } else if (!(o = option_of(all, n, v, &i)) || store(c, o, optarg, opts))
            rc = PT_EXIT_USAGE;
        else
            seen[i] = 1;
    }
    opts->paths = (const char **)argv + optind;
    opts->npaths = (unsigned)(argc - optind);
    if (rc == PT_RUN && help) {
        usage(c, all, n, stdout);
        rc = PT_EXIT_OK;
    } else if (rc == PT_RUN && (check_inputs(c, opts) || check_required(c, all, n, seen) ||
                                   pt_provider_names_check(c->name, opts))) {
        rc = PT_EXIT_USAGE;
    }
    if (rc == PT_EXIT_USAGE)
        usage(c, all, n, stderr);
    free(all);
    free(longs);
    free(shorts);
    free(seen);
    return rc;
}

void pt_options_free(const pt_command *c, pt_input *opts)
{
    size_t n;
    pt_option *all = all_options(c, &n);
    for (size_t i = 0; i < n; i++)
        if (all[i].type == PT_OPT_LIST) {
            const char ***list = (const char ***)((char *)opts + all[i].at);
            free((void *)*list);
            *list = NULL;
            *(unsigned *)((char *)opts + all[i].count_at) = 0;
        }
    free(all);
}

int pt_command_main(const pt_command *c, int argc, char **argv)
{
    size_t size = c->size ? c->size : sizeof(pt_input);
    pt_input *opts = pt_xcalloc(1, size);
    if (c->defaults)
        memcpy(opts, c->defaults, size);
    int rc = pt_parse_args(c, argc, argv, opts);
    if (rc == PT_RUN)
        rc = c->run(opts);
    pt_options_free(c, opts);
    free(opts);
    return rc;
}

void pt_input_usage(FILE *out)
{
    for (const pt_option *o = input_options; o->name; o++)
        option_usage(out, o);
}
