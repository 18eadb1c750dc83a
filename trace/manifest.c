/* SPDX-License-Identifier: MIT */
/* Manifests for palev-trace, read with palev-gen's own parser and checker (never a second way). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* What one reader loaded: the manifests live in a generator context of their own, so two readers
 * in one process share nothing and closing one leaves the other's manifests alone. */
struct pt_manifests {
    pg_ctx gen;                 /* the arena every manifest lives in, and the diagnostics */
    pg_options opt;             /* the provider renames: the command line's, then the files' */
    size_t ncommand_line;       /* the first renames are the command line's: they win */
    pg_vec paths;               /* -m manifests, to load once every rename is known */
    pg_vec dirs;                /* palev-manifests/ directories, to load after them */
    pg_vec all;                 /* every manifest loaded */
    pt_map providers, events;   /* every provider by LTTng name; events by "Provider:Event" */
    pg_manifest **explicit_list;    /* the manifests given with -m: each must describe the trace */
    unsigned nexplicit;
    char why[512];              /* what pt__manifest_mismatch() returns */
};

pt_manifests *pt__manifest_new(void)
{
    pt_manifests *ms = pt_xcalloc(1, sizeof(*ms));
    pg_ctx_init(&ms->gen);
    ms->opt.renames_may_miss = 1;   /* one table serves every manifest: checked once, at the end */
    return ms;
}

void pt__manifest_free(pt_manifests *ms)
{
    if (!ms)
        return;
    free(ms->explicit_list);
    pt_map_free(&ms->providers);
    pt_map_free(&ms->events);
    pg_ctx_fini(&ms->gen);
    free(ms);
}

int pt_provider_names_check(const char *command, const pt_input *in)
{
    pg_ctx cx;
    pg_options opt = { 0 };
    pg_buf why = { 0 };
    int rc = 0;
    pg_ctx_init(&cx);
    for (unsigned i = 0; i < in->nprovider_names && !rc; i++)
        if ((rc = pg_options_rename(&cx, &opt, in->provider_names[i], &why)))
            fprintf(stderr, "palev-trace %s: --provider-name %s\n", command, why.data);
    pg_ctx_fini(&cx);
    return rc;
}

int pt__manifest_renames(pt_manifests *ms, const char *const *specs, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        pg_buf why = { 0 };
        if (pg_options_rename(&ms->gen, &ms->opt, specs[i], &why)) {
            fprintf(stderr, "palev-trace: error: --provider-name %s\n", why.data);
            return -1;
        }
    }
    ms->ncommand_line = ms->opt.rename_from.len;
    return 0;
}

void pt__manifest_add(pt_manifests *ms, const char *path)
{
    pg_vec_push(&ms->gen, &ms->paths, pg_strdup(&ms->gen, path));
}

static int renamed_on_command_line(const pt_manifests *ms, const char *spec)
{
    size_t n = strcspn(spec, "=");
    for (size_t i = 0; i < ms->ncommand_line; i++) {
        const char *from = ms->opt.rename_from.items[i];
        if (strlen(from) == n && strncmp(from, spec, n) == 0)
            return 1;
    }
    return 0;
}

/* DIR/provider-names: one ETWNAME=LTTNGNAME per line, as palev-collect writes it; '#' comments
 * and blank lines. A provider the command line renames keeps that name. */
static int read_provider_names(pt_manifests *ms, const char *dir)
{
    char path[4096], *line = NULL;
    size_t cap = 0;
    unsigned lineno = 0;
    int rc = 0;
    snprintf(path, sizeof(path), "%s/provider-names", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    while (!rc && getline(&line, &cap, f) >= 0) {
        char *s = line, *end;
        pg_buf why = { 0 };
        lineno++;
        s += strspn(s, " \t");
        for (end = s + strlen(s); end > s && strchr(" \t\r\n", end[-1]); end--)
            ;
        *end = '\0';
        for (char *c = s; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7F)
                *c = '?';   /* no name has one; an error message quoting the line stays text */
        if (!*s || *s == '#' || renamed_on_command_line(ms, s))
            continue;
        if (pg_options_rename(&ms->gen, &ms->opt, s, &why)) {
            fprintf(stderr, "palev-trace: error: %s:%u: %s\n", path, lineno, why.data);
            rc = -1;
        }
    }
    free(line);
    fclose(f);
    return rc;
}

int pt__manifest_add_dir(pt_manifests *ms, const char *dir)
{
    pg_vec_push(&ms->gen, &ms->dirs, pg_strdup(&ms->gen, dir));
    return read_provider_names(ms, dir);
}

static int load_one(pt_manifests *ms, const char *path, int is_explicit)
{
    unsigned before = pg_error_count(&ms->gen);
    pg_manifest *m = pg_parse_file(&ms->gen, path);
    if (pg_error_count(&ms->gen) != before || !m || pg_check(&ms->gen, m, &ms->opt)) {
        fprintf(stderr, "palev-trace: error: %s: not a valid manifest (see the errors above)\n", path);
        return -1;
    }
    pg_vec_push(&ms->gen, &ms->all, m);
    if (is_explicit) {
        PT_APPEND(ms->explicit_list, ms->nexplicit, m);
    }
    PG_VEC_EACH(pg_provider, p, m->providers) {
        uint64_t h = pt_hash_str(p->lttng_name);
        if (pt_map_get(&ms->providers, h))
            continue;   /* the same provider stored twice (fleets): the first one describes it */
        pt_map_put(&ms->providers, h, p);
        PG_VEC_EACH(pg_event, e, p->events) {
            char key[520];
            snprintf(key, sizeof(key), "%s:%s", p->lttng_name, e->lttng_name);
            pt_map_put(&ms->events, pt_hash_str(key), e);
        }
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_dir(pt_manifests *ms, const char *dir)
{
    DIR *d = opendir(dir);
    char **names = NULL;
    size_t n = 0;
    int rc = 0;
    if (!d)
        return 0;
    for (struct dirent *de; (de = readdir(d));) {
        size_t len = strlen(de->d_name);
        if (len > 4 && strcmp(de->d_name + len - 4, ".man") == 0) {
            PT_APPEND(names, n, pt_xstrdup(de->d_name));
        }
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof(*names), by_name);   /* the same order on every machine */
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        if (load_one(ms, path, 0))
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

/* A rename the command line gave that no manifest read uses is a mistake worth saying. */
static int check_renames_used(const pt_manifests *ms)
{
    int rc = 0;
    for (size_t i = 0; i < ms->ncommand_line; i++) {
        const char *from = ms->opt.rename_from.items[i];
        int found = 0;
        PG_VEC_EACH(const pg_manifest, m, ms->all)
            PG_VEC_EACH(const pg_provider, p, m->providers)
                found |= p->name && strcmp(p->name, from) == 0;
        if (!found) {
            fprintf(stderr, "palev-trace: error: --provider-name %s=%s: no provider \"%s\" in the "
                    "manifests read\n", from, (const char *)ms->opt.rename_to.items[i], from);
            rc = -1;
        }
    }
    return rc;
}

int pt__manifest_load_all(pt_manifests *ms)
{
    int rc = 0;
    PG_VEC_EACH(const char, path, ms->paths)
        if (load_one(ms, path, 1))
            return -1;
    PG_VEC_EACH(const char, dir, ms->dirs)
        if (load_dir(ms, dir))
            rc = -1;
    return rc ? rc : check_renames_used(ms);
}

unsigned pt__manifest_count(const pt_manifests *ms)
{
    return (unsigned)ms->all.len;
}

const pg_provider *pt__manifest_provider(const pt_manifests *ms, const char *lttng_provider)
{
    pg_provider *p = pt_map_get(&ms->providers, pt_hash_str(lttng_provider));
    return p && strcmp(p->lttng_name, lttng_provider) == 0 ? p : NULL;
}

const pg_event *pt__manifest_event(const pt_manifests *ms, const char *name)
{
    const char *colon = strchr(name, ':');
    pg_event *e = pt_map_get(&ms->events, pt_hash_str(name));
    if (!e || !colon || strcmp(e->lttng_name, colon + 1) != 0 ||
        strncmp(e->provider->lttng_name, name, (size_t)(colon - name)) != 0 ||
        e->provider->lttng_name[colon - name] != '\0')
        return NULL;
    return e;
}

/* 1 when some field (or struct member) of the template records a trace field of this name. */
static int has_tname(const pg_vec *fields, const char *name)
{
    PG_VEC_EACH(pg_field, f, *fields) {
        if (f->is_struct ? has_tname(&f->members, name) : strcmp(f->tname, name) == 0)
            return 1;
    }
    return 0;
}

const char *pt__manifest_mismatch(pt_manifests *ms, const pg_event *e, const bt_field_class *payload)
{
    uint64_t n = payload ? bt_field_class_structure_get_member_count(payload) : 0;
    for (uint64_t i = 0; i < n; i++) {
        const char *name = bt_field_class_structure_member_get_name(
            bt_field_class_structure_borrow_member_by_index_const(payload, i));
        if (name[0] == '_')
            continue;   /* a sequence's hidden length */
        if (!e->tmpl || !has_tname(&e->tmpl->fields, name)) {
            snprintf(ms->why, sizeof(ms->why), "the trace's field \"%s\" is not in the manifest's "
                     "event (%s:%u)", name, e->loc.file, e->loc.line);
            return ms->why;
        }
    }
    return NULL;
}

unsigned pt__manifest_check_used(const pt_manifests *ms, int (*seen)(const char *provider, void *data),
                                 void *data)
{
    unsigned errors = 0;
    for (unsigned i = 0; i < ms->nexplicit; i++) {
        const pg_manifest *m = ms->explicit_list[i];
        int used = 0;
        PG_VEC_EACH(pg_provider, p, m->providers)
            used |= seen(p->lttng_name, data);
        if (used)
            continue;
        fprintf(stderr, "palev-trace: error: %s does not describe this trace: no event of its "
                "provider%s", m->path, m->providers.len == 1 ? "" : "s");
        PG_VEC_EACH(pg_provider, p, m->providers)
            fprintf(stderr, " %s", p->lttng_name);
        fputs(" is in it\n", stderr);
        errors++;
    }
    return errors;
}
