/* SPDX-License-Identifier: MIT */
/* palev-trace's command skeleton: a command is one file (cmd_NAME.c) defining a pt_command and
 * one line in main.c's list. Each command keeps its options in a struct of its own and describes
 * them in a table of its own; the options every command takes (the inputs: -m, --no-manifests,
 * ...) are parsed into its pt_input by pt_parse_args() (args.c), which also writes --help. */
#ifndef PALEV_TRACE_COMMAND_H
#define PALEV_TRACE_COMMAND_H

#include "core.h"

typedef struct pt_command pt_command;

struct pt_command {
    const char *name;
    const char *synopsis;       /* after "palev-trace NAME " */
    const char *help;           /* one line, for palev-trace --help */
    unsigned min_inputs, max_inputs;    /* TRACE arguments (max 0: any number) */
    /* argv[0] is the command's name. Returns the exit status (PT_EXIT_*). */
    int (*main)(const pt_command *self, int argc, char **argv);
};

/* How an option's argument is stored. */
typedef enum pt_opt_type {
    PT_OPT_FLAG,                /* int *: set to 1 */
    PT_OPT_STRING,              /* const char **: the argument */
    PT_OPT_COUNT,               /* unsigned *: a decimal count, 0 .. 1000000 */
    PT_OPT_ID,                  /* unsigned *: a decimal id, 1 .. 4294967295 (a pid) */
    PT_OPT_LIST,                /* const char ***, with count: the arguments of every use */
} pt_opt_type;

typedef struct pt_option {
    const char *name;           /* --name */
    char letter;                /* -l, or 0 */
    pt_opt_type type;
    void *value;
    unsigned *count;            /* PT_OPT_LIST: how many */
    const char *arg;            /* the argument in the help ("FILE"); NULL for a flag */
    const char *help;
    int required;               /* the command cannot run without it */
} pt_option;

#define PT_OPTIONS_END { NULL, 0, PT_OPT_FLAG, NULL, NULL, NULL, NULL, 0 }

/* Returned by pt_parse_args() when the command is to run (any other value is the exit status). */
#define PT_RUN (-1)

/* Parses argv against the options every command takes (into in, TRACE arguments included) and
 * the command's own table (opts, which may be NULL). --help prints the command's usage on stdout
 * and returns PT_EXIT_OK; a usage error is said on stderr with the usage and gives PT_EXIT_USAGE.
 * Otherwise returns PT_RUN. pt_input_free() releases what it stored in `in`. */
int pt_parse_args(const pt_command *c, const pt_option *opts, int argc, char **argv, pt_input *in);
void pt_input_free(pt_input *in);
/* The options every command takes, as --help lists them. */
void pt_input_usage(FILE *out);

#endif /* PALEV_TRACE_COMMAND_H */
