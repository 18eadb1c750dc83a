/* SPDX-License-Identifier: MIT */
/* palev-trace stacks, and export --format speedscope: the command-table side of stacks.c. */
#include <stdio.h>

#include "commands.h"
#include "stacks.h"

static struct ps_stacks_opts stacks_opts(const pt_opts *o)
{
    return (struct ps_stacks_opts){ .trace = o->in.paths[0], .event = o->event,
                                    .folded = o->folded, .top = (long)o->top };
}

static int run(const pt_opts *o)
{
    struct ps_stacks_opts so = stacks_opts(o);

    return ps_stacks_print(&so, stdout, stderr) ? PT_EXIT_DATA : PT_EXIT_OK;
}

int pt_export_speedscope(const pt_opts *o)
{
    struct ps_stacks_opts so = stacks_opts(o);

    if (o->in.npaths != 1) {
        fputs("palev-trace export: --format speedscope reads one TRACE\n", stderr);
        return PT_EXIT_USAGE;
    }
    return ps_stacks_speedscope(&so, o->output, stderr) ? PT_EXIT_DATA : PT_EXIT_OK;
}

const pt_command pt_cmd_stacks = {
    .name = "stacks", .args = "[--event NAME] [--folded] [--top N] TRACE",
    .help = "the most frequent call stacks of each event, every frame named (Paleventing:Stack)",
    .options = PT_OPT_EVENT | PT_OPT_FOLDED | PT_OPT_TOP, .min_inputs = 1, .max_inputs = 1,
    .run = run,
};
