/* SPDX-License-Identifier: MIT */
/* palev-trace COMMAND [options] TRACE...: the list of commands, and nothing else. */
#include <string.h>

#include "command.h"

/* One line per command, in --help's order: cmd_NAME.c defines pt_cmd_NAME. */
#define PT_COMMANDS(X) X(summary) X(activities) X(counters) X(export) X(report) X(top) X(stacks) X(cpu) X(status)

#define DECLARE(name) extern const pt_command pt_cmd_##name;
PT_COMMANDS(DECLARE)
#define ENTRY(name) &pt_cmd_##name,
static const pt_command *const commands[] = { PT_COMMANDS(ENTRY) };
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
    fputs("usage: palev-trace COMMAND [options] TRACE...\n\n"
          "Answers, exports and pictures from an LTTng trace of paleventing providers.\n"
          "TRACE is the directory lttng (or palev-collect, or lttng-relayd) wrote; every CTF trace\n"
          "below it is read, several hosts and sessions included.\n\ncommands:\n", out);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-11s %s\n", commands[i]->name, commands[i]->help);
    fputs("\noptions of every command:\n", out);
    pt_input_usage(out);
    fputs("  -h, --help           this help (palev-trace COMMAND --help: the command's)\n"
          "\nexit status: 0 ok; 1 bad trace or data (not a trace, damaged, empty, events\n"
          "discarded or missing, manifest not matching the trace: said on stderr, and what could\n"
          "be read is still reported), or the output could not be written; 2 usage error.\n", out);
}

int main(int argc, char **argv)
{
    int rc;
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        rc = argc < 2 ? PT_EXIT_USAGE : PT_EXIT_OK;
    } else {
        const pt_command *c = NULL;
        for (size_t i = 0; i < NCOMMANDS && !c; i++)
            if (strcmp(commands[i]->name, argv[1]) == 0)
                c = commands[i];
        if (!c) {
            fprintf(stderr, "palev-trace: unknown command \"%s\" (palev-trace --help lists them)\n", argv[1]);
            return PT_EXIT_USAGE;
        }
        rc = pt_command_main(c, argc - 1, argv + 1);
    }
    if (pt_close_stdout() && rc == PT_EXIT_OK)
        rc = PT_EXIT_DATA;
    return rc;
}
