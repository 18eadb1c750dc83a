/* SPDX-License-Identifier: MIT */
/* Which events palev-collect enables: what palev-gen enable-list selects from each manifest for
 * the keywords and level, plus paleventing's own events and -e's. */
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "pcm_own.h"

/* The statedump says which shared objects each process has loaded, also when the session starts
 * after the process; ProviderStatus says what became of each provider. */
static const char *const own_events[] = {
    PCM_OWN_EVENT("EventSource"), PCM_OWN_EVENT("ProviderStatus"), "lttng_ust_statedump:*", NULL,
};
/* The code the runtime generated and the libraries it opened: what names the frames of call
 * stacks (--stacks) and of perf's samples (--cpu). */
static const char *const code_events[] = {
    PCM_OWN_EVENT("CodeLoad"), PCM_OWN_EVENT("CodeUnload"), PCM_OWN_EVENT("CodeRundown"), "lttng_ust_dl:*", NULL,
};

static void chomp(pc_buf *b)
{
    while (b->len && (b->data[b->len - 1] == '\n' || b->data[b->len - 1] == ' '))
        b->data[--b->len] = '\0';
}

/* palev-gen ARGS... [--provider-name R]... MANIFEST with its stdout in out (trailing newline
 * removed) and its stderr shown or not; returns its exit status. */
static int gen_renamed(const pc_ctx *c, const char *const *args, const pc_strv *renames, const char *manifest,
                       pc_buf *out, int quiet)
{
    size_t n = 1, max = 12 + 2 * (renames ? renames->n : 0);
    const char **argv = calloc(max, sizeof(*argv));
    if (!argv)
        abort();
    argv[0] = c->gen;
    while (*args && n < 10)
        argv[n++] = *args++;
    for (size_t i = 0; renames && i < renames->n; i++) {
        argv[n++] = "--provider-name";
        argv[n++] = renames->v[i];
    }
    argv[n++] = manifest;
    argv[n] = NULL;
    pc_cmd cmd = { .argv = argv, .out = out ? PC_CAPTURE : PC_DISCARD, .out_buf = out,
                   .err = quiet ? PC_DISCARD : PC_INHERIT };
    int rc = pc_run(&cmd);
    if (out && out->data)
        chomp(out);
    free(argv);
    return rc;
}

static int gen(const pc_ctx *c, const char *const *args, const char *manifest, pc_buf *out, int quiet)
{
    return gen_renamed(c, args, NULL, manifest, out, quiet);
}

/* The --provider-name renames of the manifest's providers (palev-gen refuses one naming a
 * provider the manifest lacks). */
static void renames_of(const pc_ctx *c, const char *manifest, pc_strv *out)
{
    const char *args[] = { "providers", NULL };
    for (size_t i = 0; i < c->o.renames.n; i++) {
        pc_strv one = { 0 };
        pc_strv_push(&one, c->o.renames.v[i]);
        if (c->o.manifests.n == 1 || gen_renamed(c, args, &one, manifest, NULL, 1) == 0)
            pc_strv_push(out, c->o.renames.v[i]);
        pc_strv_free(&one);
    }
}

/* Every rename names a provider of some manifest. */
static int check_renames(const pc_ctx *c)
{
    const char *args[] = { "providers", NULL };
    for (size_t i = 0; i < c->o.renames.n && c->o.manifests.n > 1; i++) {
        pc_strv one = { 0 };
        size_t k = 0;
        pc_strv_push(&one, c->o.renames.v[i]);
        while (k < c->o.manifests.n && gen_renamed(c, args, &one, c->o.manifests.v[k], NULL, 1))
            k++;
        pc_strv_free(&one);
        if (k == c->o.manifests.n)
            return pc_fail(PC_EXIT_USAGE, "--provider-name %s: no manifest has that provider", c->o.renames.v[i]);
    }
    return 0;
}

/* The manifest's events for these keywords (NULL: every keyword) and the level, under their
 * renamed providers; palev-gen explains unknown keywords. */
static int enable_list(const pc_ctx *c, const char *manifest, const pc_strv *renames, const char *keywords,
                       pc_buf *out)
{
    const char *args[6] = { "enable-list" };
    size_t n = 1;
    if (c->o.level) {
        args[n++] = "--level";
        args[n++] = c->o.level;
    }
    if (keywords) {
        args[n++] = "--keywords";
        args[n++] = keywords;
    }
    int rc = gen_renamed(c, args, renames, manifest, out, 0);
    return rc ? pc_fail(PC_EXIT_USAGE, "palev-gen enable-list failed (exit %d): nothing recorded", rc) : 0;
}

/* Does the manifest know these keyword names? */
static int knows_keywords(const pc_ctx *c, const char *manifest)
{
    const char *args[] = { "enable-list", "--keywords", c->o.keywords, NULL };
    return gen(c, args, manifest, NULL, 1) == 0;
}

static int add_providers(pc_ctx *c, const char *manifest, const pc_strv *renames)
{
    const char *args[] = { "providers", NULL };
    pc_buf out = { 0 };
    int rc = gen_renamed(c, args, renames, manifest, &out, 0);
    if (rc)
        rc = pc_fail(PC_EXIT_USAGE, "palev-gen providers %s failed", manifest);
    for (char *p = out.data ? strtok(out.data, " \n") : NULL; !rc && p; p = strtok(NULL, " \n"))
        pc_strv_push(&c->providers, p);
    pc_buf_free(&out);
    return rc;
}

/* With several manifests, names one of them does not know select only its events without
 * keywords (ETW's rule for them); names that no manifest knows are an error. */
int pc_select_events(pc_ctx *c)
{
    const pc_opts *o = &c->o;
    pc_buf events = { 0 };
    int known = 0, rc = check_renames(c);
    for (size_t i = 0; i < o->manifests.n && !rc; i++) {
        const char *m = o->manifests.v[i], *kw = o->keywords;
        pc_buf list = { 0 };
        pc_strv renames = { 0 };
        renames_of(c, m, &renames);
        if (o->keywords && o->manifests.n > 1) {
            if (knows_keywords(c, m))
                known = 1;
            else
                kw = "0";
        }
        rc = enable_list(c, m, &renames, kw, &list);
        if (!rc)
            rc = add_providers(c, m, &renames);
        if (!rc && !list.len)
            pc_warn("no event of %s has these keywords and level", m);
        if (!rc && list.len)
            pc_buf_printf(&events, "%s%s", events.len ? "," : "", list.data);
        pc_buf_free(&list);
        pc_strv_free(&renames);
    }
    if (!rc && o->keywords && !known && o->manifests.n > 1) {
        const char *args[] = { "enable-list", "--keywords", o->keywords, NULL };
        gen(c, args, o->manifests.v[0], NULL, 0);
        rc = pc_fail(PC_EXIT_USAGE, "no manifest knows the keywords \"%s\": nothing recorded", o->keywords);
    }
    c->events = events.data ? events.data : pc_strdup("");
    return rc;
}

static void add_unique(pc_strv *list, const char *name)
{
    for (size_t i = 0; i < list->n; i++)
        if (strcmp(list->v[i], name) == 0)
            return;
    pc_strv_push(list, name);
}

static void add_csv(pc_strv *list, const char *csv)
{
    char *copy = pc_strdup(csv);
    for (char *e = strtok(copy, ","); e; e = strtok(NULL, ","))
        add_unique(list, e);
    free(copy);
}

/* The manifests' events and ours, each once (a manifest may list Paleventing's own events). */
char *pc_event_list(const pc_ctx *c)
{
    pc_strv all = { 0 };
    pc_buf out = { 0 };
    add_csv(&all, c->events);
    for (size_t i = 0; own_events[i]; i++)
        add_unique(&all, own_events[i]);
    if (c->o.stacks)
        add_unique(&all, PCM_OWN_EVENT("Stack"));
    for (size_t i = 0; (c->o.stacks || c->o.cpu_hz) && code_events[i]; i++)
        add_unique(&all, code_events[i]);
    for (size_t i = 0; i < c->o.extra.n; i++)
        add_csv(&all, c->o.extra.v[i]);
    for (size_t i = 0; i < all.n; i++)
        pc_buf_printf(&out, "%s%s", i ? "," : "", all.v[i]);
    pc_strv_free(&all);
    return out.data ? out.data : pc_strdup("");
}

/* How many events the manifests select (a name two manifests list counts twice). */
size_t pc_event_count(const pc_ctx *c)
{
    size_t n = 0;
    for (const char *p = c->events; *p;) {
        size_t len = strcspn(p, ",");
        n += len > 0;
        p += len + (p[len] == ',');
    }
    return n;
}
