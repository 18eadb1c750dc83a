/* SPDX-License-Identifier: MIT */
/* Manifests for palev-trace, read with palev-gen's own parser and checker (never a second way). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Every provider of every loaded manifest, by LTTng name; events by "Provider:Event". */
static pt_map providers, events;
static unsigned manifest_count;
/* The arena and diagnostics of the generator's parser and checker (zeroed: initialised). */
static pg_ctx gen;
/* The manifests given with -m: each must describe some provider of the trace. */
static pg_manifest **explicit_list;
static unsigned nexplicit;

static int load_one(const char *path, int is_explicit)
{
    unsigned before = pg_error_count(&gen);
    pg_manifest *m = pg_parse_file(&gen, path);
    pg_options opt = { 0 };
    if (pg_error_count(&gen) != before || !m || pg_check(&gen, m, &opt)) {
        fprintf(stderr, "palev-trace: error: %s: not a valid manifest (see the errors above)\n", path);
        return -1;
    }
    manifest_count++;
    if (is_explicit) {
        explicit_list = pt_xrealloc(explicit_list, (nexplicit + 1) * sizeof(*explicit_list));
        explicit_list[nexplicit++] = m;
    }
    PG_VEC_EACH(pg_provider, p, m->providers) {
        uint64_t h = pt_hash_str(p->lttng_name);
        if (pt_map_get(&providers, h))
            continue;   /* the same provider stored twice (fleets): the first one describes it */
        pt_map_put(&providers, h, p);
        PG_VEC_EACH(pg_event, e, p->events) {
            char key[520];
            snprintf(key, sizeof(key), "%s:%s", p->lttng_name, e->lttng_name);
            pt_map_put(&events, pt_hash_str(key), e);
        }
    }
    return 0;
}

int pt__manifest_load(const char *path)
{
    return load_one(path, 1);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int pt__manifest_load_dir(const char *dir)
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
            names = pt_xrealloc(names, (n + 1) * sizeof(*names));
            names[n++] = pt_xstrdup(de->d_name);
        }
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof(*names), by_name);   /* the same order on every machine */
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        if (load_one(path, 0))
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

unsigned pt__manifest_count(void)
{
    return manifest_count;
}

const pg_provider *pt__manifest_provider(const char *lttng_provider)
{
    pg_provider *p = pt_map_get(&providers, pt_hash_str(lttng_provider));
    return p && strcmp(p->lttng_name, lttng_provider) == 0 ? p : NULL;
}

const pg_event *pt__manifest_event(const char *name)
{
    const char *colon = strchr(name, ':');
    pg_event *e = pt_map_get(&events, pt_hash_str(name));
    if (!e || !colon || strcmp(e->lttng_name, colon + 1) != 0)
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

const char *pt__manifest_mismatch(const pg_event *e, const bt_field_class *payload)
{
    static char why[512];
    uint64_t n = payload ? bt_field_class_structure_get_member_count(payload) : 0;
    for (uint64_t i = 0; i < n; i++) {
        const char *name = bt_field_class_structure_member_get_name(
            bt_field_class_structure_borrow_member_by_index_const(payload, i));
        if (name[0] == '_')
            continue;   /* a sequence's hidden length */
        if (!e->tmpl || !has_tname(&e->tmpl->fields, name)) {
            snprintf(why, sizeof(why), "the trace's field \"%s\" is not in the manifest's event "
                     "(%s:%u)", name, e->loc.file, e->loc.line);
            return why;
        }
    }
    return NULL;
}

unsigned pt__manifest_check_used(int (*seen)(const char *provider, void *data), void *data)
{
    unsigned errors = 0;
    for (unsigned i = 0; i < nexplicit; i++) {
        int used = 0;
        PG_VEC_EACH(pg_provider, p, explicit_list[i]->providers)
            used |= seen(p->lttng_name, data);
        if (used)
            continue;
        fprintf(stderr, "palev-trace: error: %s does not describe this trace: no event of its "
                "provider%s", explicit_list[i]->path, explicit_list[i]->providers.len == 1 ? "" : "s");
        PG_VEC_EACH(pg_provider, p, explicit_list[i]->providers)
            fprintf(stderr, " %s", p->lttng_name);
        fputs(" is in it\n", stderr);
        errors++;
    }
    return errors;
}

void pt__manifest_free(void)
{
    free(explicit_list);
    explicit_list = NULL;
    nexplicit = 0;
    pt_map_free(&providers);
    pt_map_free(&events);
    pg_ctx_fini(&gen);
    manifest_count = 0;
}
