/* SPDX-License-Identifier: MIT */
/* After the run: a provider not loaded (ProviderStatus, with the reason), or nothing recorded
 * from the manifests' providers. Statements of fact only: a process that started before the
 * session has no ProviderStatus in it, and is not said to have failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"

static const char hint[] = "with PALEV_DEBUG=1 in its environment, the program says on stderr what "
                           "paleventing loaded, from where, and why not";

/* babeltrace2's text output, read as the shell version of palev-collect did. */
static const char script[] =
    "BEGIN { n = split(providers, p, \" \"); for (i = 1; i <= n; i++) ours[p[i]] = 0 }\n"
    "{\n"
    "    name = $4; sub(/:$/, \"\", name); prov = name; sub(/:.*/, \"\", prov)\n"
    "    if (prov in ours) ours[prov]++\n"
    "    if (index($0, \"vpid = \" cmdpid \",\")) {\n"
    "        if (prov in ours) cmdevents++\n"
    "        if (name == \"Paleventing:ProviderStatus\") cmdstatus++\n"
    "    }\n"
    "    if (name != \"Paleventing:ProviderStatus\") next\n"
    "    pid = $0; sub(/.*vpid = /, \"\", pid); sub(/,.*/, \"\", pid)\n"
    "    proc = $0; sub(/.*procname = \"/, \"\", proc); sub(/\".*/, \"\", proc)\n"
    "    who = $0; sub(/.*provider = \"/, \"\", who); sub(/\".*/, \"\", who)\n"
    "    why = $0; sub(/.*reason = \"/, \"\", why); sub(/\" }$/, \"\", why)\n"
    "    registered[who] = 1\n"
    "    statuses++\n"
    "    if ($0 ~ /loaded = \\( \"false\"/) {\n"
    "        printf \"provider %s was not loaded in %s (pid %s): %s\\n\", who, proc, pid, why\n"
    "        missing[who] = 1\n"
    "    }\n"
    "}\n"
    "END {\n"
    "    for (q in ours) {\n"
    "        if (ours[q] > 0 || enabled !~ (\"(^|,)\" q \":\")) continue\n"
    "        if (q in registered)\n"
    "            printf \"%s recorded no event of %s\\n\", prog, q\n"
    "        else if (statuses)\n"
    "            printf \"%s recorded no event of %s, and no process registered it (built \" \\\n"
    "                   \"from another manifest?)\\n\", prog, q\n"
    "        else\n"
    "            printf \"%s recorded no event of %s, and no Paleventing:ProviderStatus: \" \\\n"
    "                   \"it does not use paleventing, or libpaleventing could not load its \" \\\n"
    "                   \"own libPaleventing-lttng.so either\\n\", prog, q\n"
    "    }\n"
    "    if (cmdevents && !cmdstatus)\n"
    "        printf \"%s (pid %s) recorded events but no Paleventing:ProviderStatus: \" \\\n"
    "               \"libpaleventing could not load its own libPaleventing-lttng.so, which \" \\\n"
    "               \"belongs beside libpaleventing.so\\n\", prog, cmdpid\n"
    "    for (q in missing)\n"
    "        printf \"install lib%s-lttng.so beside the program, or name its directory in \" \\\n"
    "               \"PALEV_PROVIDER_PATH\\n\", q\n"
    "}\n";

int pc_check_trace(pc_ctx *c)
{
    pc_buf providers = { 0 }, report = { 0 };
    for (size_t i = 0; i < c->providers.n; i++)
        pc_buf_printf(&providers, " %s", c->providers.v[i]);
    const char *prog = strrchr(c->o.command[0], '/');
    char pid[24];
    snprintf(pid, sizeof(pid), "%d", (int)c->pid);
    const char *argv[] = { "/bin/sh", "-c",
                     "babeltrace2 \"$1\" 2>/dev/null | awk -v providers=\"$2\" -v enabled=\"$3\" "
                     "-v prog=\"$4\" -v cmdpid=\"$5\" \"$6\"",
                     "sh", c->out, providers.data ? providers.data : "", c->events,
                     (prog ? prog + 1 : c->o.command[0]), pid, script, NULL };
    pc_cmd cmd = { .argv = argv, .out = PC_CAPTURE, .out_buf = &report, .err = PC_INHERIT };
    pc_run(&cmd);
    int problems = report.len > 0;
    if (problems) {
        for (char *line = strtok(report.data, "\n"); line; line = strtok(NULL, "\n"))
            pc_warn("%s", line);
        pc_warn("%s", hint);
    }
    pc_buf_free(&providers);
    pc_buf_free(&report);
    return problems;
}
