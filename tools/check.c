/* SPDX-License-Identifier: MIT */
/* After the run: a provider not loaded (ProviderStatus, with the reason), or nothing recorded
 * from the manifests' providers, worded from what palev-trace status reads in the trace.
 * Statements of fact only: a process that started before the session has no ProviderStatus in
 * it, and is not said to have failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "pcm_own.h"

static const char hint[] = "with PALEV_DEBUG=1 in its environment, the program says on stderr what "
                           "paleventing loaded, from where, and why not";

/* A provider row of palev-trace status --format tsv (docs/palev-trace.md): kind host pid
 * procname provider status events reason, fields escaped (no tab or newline inside). */
typedef struct row {
    const char *pid, *procname, *provider, *status, *reason;
    unsigned long long events;
} row;

typedef struct status {
    row *rows;
    size_t n;
    int any_status;             /* some process recorded a ProviderStatus */
} status;

static int split(char *line, char *field[8])
{
    int n = 0;
    for (char *p = line; n < 8; n++) {
        field[n] = p;
        p = strchr(p, '\t');
        if (!p)
            return n + 1;
        *p++ = '\0';
    }
    return n;
}

/* The provider rows; the text stays in out. */
static void parse(char *out, status *st)
{
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        char *f[8];
        if (split(line, f) != 8 || strcmp(f[0], "provider") != 0)
            continue;
        st->rows = realloc(st->rows, (st->n + 1) * sizeof(*st->rows));
        if (!st->rows)
            abort();
        st->rows[st->n++] = (row){ f[2], f[3], f[4], f[5], f[7], strtoull(f[6], NULL, 10) };
        st->any_status |= strcmp(f[5], "none") != 0;
    }
}

static int is_ours(const pc_ctx *c, const char *provider)
{
    for (size_t i = 0; i < c->providers.n; i++)
        if (strcmp(c->providers.v[i], provider) == 0)
            return 1;
    return 0;
}

/* Some event of the provider was enabled (the manifests' list holds "provider:..."). */
static int enabled(const pc_ctx *c, const char *provider)
{
    size_t n = strlen(provider);
    for (const char *p = c->events; *p;) {
        if (strncmp(p, provider, n) == 0 && p[n] == ':')
            return 1;
        p += strcspn(p, ",");
        p += *p == ',';
    }
    return 0;
}

/* The lines to say, in order; returns how many. */
static size_t diagnose(const pc_ctx *c, const status *st, pc_buf *out)
{
    const char *prog = strrchr(c->o.command[0], '/') ? strrchr(c->o.command[0], '/') + 1 : c->o.command[0];
    char pid[24];
    pc_strv missing = { 0 };
    unsigned long long cmd_events = 0;
    int cmd_status = 0;
    size_t lines = 0;
    snprintf(pid, sizeof(pid), "%d", (int)c->pid);
    for (size_t i = 0; i < st->n; i++) {
        const row *r = &st->rows[i];
        if (strcmp(r->pid, pid) == 0) {
            cmd_events += is_ours(c, r->provider) ? r->events : 0;
            cmd_status |= strcmp(r->status, "none") != 0;
        }
        if (strcmp(r->status, "not-loaded") != 0)
            continue;
        pc_buf_printf(out, "provider %s was not loaded in %s (pid %s): %s\n", r->provider, r->procname, r->pid,
                      r->reason);
        lines++;
        size_t k = 0;
        while (k < missing.n && strcmp(missing.v[k], r->provider))
            k++;
        if (k == missing.n)
            pc_strv_push(&missing, r->provider);
    }
    for (size_t i = 0; i < c->providers.n; i++) {
        const char *q = c->providers.v[i];
        unsigned long long events = 0;
        int registered = 0;
        for (size_t k = 0; k < st->n; k++)
            if (strcmp(st->rows[k].provider, q) == 0) {
                events += st->rows[k].events;
                registered |= strcmp(st->rows[k].status, "none") != 0;
            }
        if (events || !enabled(c, q))
            continue;
        lines++;
        if (registered)
            pc_buf_printf(out, "%s recorded no event of %s\n", prog, q);
        else if (st->any_status)
            pc_buf_printf(out, "%s recorded no event of %s, and no process registered it (built from another "
                          "manifest?)\n", prog, q);
        else
            pc_buf_printf(out, "%s recorded no event of %s, and no " PCM_OWN_EVENT("ProviderStatus") ": it does not use "
                          "paleventing, or libpaleventing could not load its own lib" PCM_OWN_PROVIDER "-lttng.so "
                          "either\n", prog, q);
    }
    /* The program started after the session: its status was recorded, unless the library could
     * not load the provider it records it with. */
    if (cmd_events && !cmd_status) {
        pc_buf_printf(out, "%s (pid %s) recorded events but no " PCM_OWN_EVENT("ProviderStatus") ": libpaleventing could "
                      "not load its own lib" PCM_OWN_PROVIDER "-lttng.so, which belongs beside libpaleventing.so\n", prog, pid);
        lines++;
    }
    for (size_t k = 0; k < missing.n; k++, lines++)
        pc_buf_printf(out, "install lib%s-lttng.so beside the program, or name its directory in "
                      "PALEV_PROVIDER_PATH\n", missing.v[k]);
    pc_strv_free(&missing);
    return lines;
}

/* palev-trace beside palev-collect (installed), or in the build tree (build/bin, build/trace). */
static char *find_palev_trace(void)
{
    const char *places[] = { "", "/../trace" };
    for (size_t i = 0; i < 2; i++) {
        char *p = pc_printf("%s%s/palev-trace", pc_self_dir(), places[i]);
        if (pc_is_executable(p))
            return p;
        free(p);
    }
    return NULL;
}

/* palev-trace status --format tsv on the LTTng traces (not perf's); 0 when it read them all (its
 * warnings, lost events say, are shown as they are). */
static int read_status(const char *tool, const pc_strv *traces, pc_buf *out)
{
    const char **argv = calloc(traces->n + 6, sizeof(*argv));
    if (!argv)
        abort();
    const char *head[] = { tool, "status", "--format", "tsv", "--no-manifests" };
    for (size_t i = 0; i < 5; i++)
        argv[i] = head[i];
    for (size_t i = 0; i < traces->n; i++)
        argv[5 + i] = traces->v[i];
    pc_buf err = { 0 };
    pc_cmd cmd = { .argv = argv, .out = PC_CAPTURE, .out_buf = out, .err = PC_CAPTURE, .err_buf = &err };
    int rc = pc_run(&cmd);
    int read = out->data && strncmp(out->data, "kind\thost\tpid\t", 14) == 0;
    if (err.len)
        fputs(err.data, stderr);
    if (!read)
        pc_warn("palev-trace status could not read the trace (exit %d): not checked", rc);
    pc_buf_free(&err);
    free(argv);
    return read ? 0 : -1;
}

int pc_check_trace(pc_ctx *c)
{
    pc_buf out = { 0 }, report = { 0 };
    status st = { 0 };
    char *tool = find_palev_trace();
    int problems = 1;
    if (!tool) {
        pc_warn("palev-trace is not installed beside palev-collect (%s): the trace was not checked", pc_self_dir());
        return 1;
    }
    /* Nothing registered with the session: lttng wrote no trace, there is nothing to read. */
    pc_strv traces = { 0 };
    pc_outdir_traces(c, &traces);
    if (!traces.n || read_status(tool, &traces, &out) == 0) {
        if (out.data)
            parse(out.data, &st);
        problems = diagnose(c, &st, &report) > 0;
    }
    if (problems && report.len) {
        for (char *line = strtok(report.data, "\n"); line; line = strtok(NULL, "\n"))
            pc_warn("%s", line);
        pc_warn("%s", hint);
    }
    free(st.rows);
    pc_strv_free(&traces);
    pc_buf_free(&out);
    pc_buf_free(&report);
    free(tool);
    return problems;
}
