/* SPDX-License-Identifier: MIT */
/* palev-trace's command skeleton: a command is one file (cmd_NAME.c) defining a pt_command and
 * one line in main.c's list. A command's file holds what is its own: the struct of its options
 * (a pt_input first), the table describing them, their defaults and its worker. The skeleton
 * (args.c) does the rest for every command: the options every command takes (the inputs: -m,
 * --no-manifests, ...), --help, usage errors, running the worker and freeing what it parsed. */
#ifndef PALEV_TRACE_COMMAND_H
#define PALEV_TRACE_COMMAND_H

#include <stddef.h>

#include "core.h"

/* How an option's argument is stored. */
typedef enum pt_opt_type {
    PT_OPT_FLAG,                /* int: set to 1 */
    PT_OPT_STRING,              /* const char *: the argument */
    PT_OPT_COUNT,               /* unsigned: a decimal count, 0 .. 1000000 */
    PT_OPT_ID,                  /* unsigned: a decimal id, 1 .. 4294967295 (a pid) */
    PT_OPT_LIST,                /* const char **, with count: the arguments of every use */
    PT_OPT_CHOICE,              /* unsigned: the index of the argument among choices */
} pt_opt_type;

/* One option. Where its value goes is an offset in the command's options struct (offsetof), so
 * that one table serves every run; an option not given keeps the default. */
typedef struct pt_option {
    const char *name;           /* --name */
    char letter;                /* -l, or 0 */
    pt_opt_type type;
    size_t at;                  /* offsetof(the options struct, the value's member) */
    size_t count_at;            /* PT_OPT_LIST: offsetof its count (unsigned) */
    const char *choices;        /* PT_OPT_CHOICE: "text|tsv", the default first */
    const char *arg;            /* the argument in the help ("FILE"); NULL for a flag */
    const char *help;
    int required;               /* the command cannot run without it */
} pt_option;

#define PT_OPTIONS_END { 0 }

typedef struct pt_command pt_command;

struct pt_command {
    const char *name;
    const char *synopsis;       /* after "palev-trace NAME " */
    const char *help;           /* one line, for palev-trace --help */
    unsigned min_inputs, max_inputs;    /* TRACE arguments (max 0: any number) */
    const pt_option *options;   /* its own options, PT_OPTIONS_END last; NULL: the inputs' only */
    size_t size;                /* sizeof its options struct, which begins with a pt_input (0: a
                                   pt_input alone) */
    const void *defaults;       /* that struct as it stands before the command line; NULL: zeros */
    /* The worker: `in` is the options struct's pt_input (cast it back to the struct). Returns
     * the exit status (PT_EXIT_*). */
    int (*run)(const pt_input *in);
};

/* Runs command c: argv[0] is its name. Parses argv (pt_parse_args() into the command's options
 * struct, its defaults first), runs the worker, frees what was parsed. Returns the exit status. */
int pt_command_main(const pt_command *c, int argc, char **argv);

/* Returned by pt_parse_args() when the command is to run (any other value is the exit status). */
#define PT_RUN (-1)

/* Parses argv against the options every command takes (into `opts`' pt_input, TRACE arguments
 * included) and c's own table, into the options struct that begins at `opts` (c->size bytes,
 * defaults already in). --help prints the command's usage on stdout and returns PT_EXIT_OK; a
 * usage error is said on stderr with the usage and gives PT_EXIT_USAGE. Otherwise returns
 * PT_RUN. pt_options_free() releases what it stored, whatever it returned. */
int pt_parse_args(const pt_command *c, int argc, char **argv, pt_input *opts);
void pt_options_free(const pt_command *c, pt_input *opts);
/* The options every command takes, as --help lists them. */
void pt_input_usage(FILE *out);

#endif /* PALEV_TRACE_COMMAND_H */
