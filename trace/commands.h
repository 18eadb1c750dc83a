/* SPDX-License-Identifier: MIT */
/* palev-trace's command table: one file per command, each a pt_command. */
#ifndef PALEV_TRACE_COMMANDS_H
#define PALEV_TRACE_COMMANDS_H

#include "core.h"

/* The options a command may take (pt_command.options says which). */
enum {
    PT_OPT_BY = 1 << 0,         /* --by FIELD */
    PT_OPT_TOP = 1 << 1,        /* --top N */
    PT_OPT_OUTPUT = 1 << 2,     /* -o FILE */
    PT_OPT_FORMAT = 1 << 3,     /* --format NAME */
    PT_OPT_LIVE = 1 << 4,       /* --seconds N */
    PT_OPT_EVENT = 1 << 8,      /* --event NAME (stacks) */
    PT_OPT_FOLDED = 1 << 9,     /* --folded (stacks) */
};

typedef struct pt_opts {
    pt_input in;
    const char *by;
    unsigned top;
    const char *output;
    const char *format;
    unsigned seconds;           /* top: stop after this many seconds (0: until interrupted) */
    const char *event;          /* stacks, export --format speedscope: one event's stacks */
    int folded;                 /* stacks: folded lines */
} pt_opts;

typedef struct pt_command {
    const char *name;
    const char *args;           /* synopsis after the name */
    const char *help;           /* one line */
    unsigned options;
    unsigned min_inputs, max_inputs;    /* TRACE arguments (max 0: any number) */
    int (*run)(const pt_opts *o);
} pt_command;

extern const pt_command pt_cmd_summary, pt_cmd_activities, pt_cmd_counters, pt_cmd_export,
    pt_cmd_report, pt_cmd_top;
extern const pt_command pt_cmd_stacks;  /* cmd_stacks.c */

/* Opens and reads the inputs through sink; prints nothing but errors. Returns an exit code. */
int pt_read_all(const pt_opts *o, const pt_sink *sink, pt_reader **out);
/* The exit code after a read: data problems (discarded events, manifest errors, no events) are
 * said on stderr once and give PT_EXIT_DATA. */
int pt_verdict(pt_reader *r, int read_rc);
/* export --format speedscope (cmd_stacks.c): the stacks of the trace as speedscope JSON. */
int pt_export_speedscope(const pt_opts *o);
/* "2026-11-25 17:08:47.462606733 UTC" */
const char *pt_fmt_time(int64_t ns, char *buf, size_t size);

#endif /* PALEV_TRACE_COMMANDS_H */
