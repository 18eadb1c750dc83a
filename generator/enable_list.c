/* SPDX-License-Identifier: MIT */
/* enable-list: the LTTng events an ETW session with a keyword mask and a level would receive. */
#include "model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int parse_number(const char *s, uint64_t *out)
{
    char *end;

    errno = 0;
    *out = strtoull(s, &end, 16);
    return !errno && *s && !*end && *s != '-';
}

/* The length of a keyword name without ETW's "Keyword" suffix ("GCKeyword" -> 2), ignoring case. */
static size_t stem_len(const char *name)
{
    static const char suffix[] = "keyword";
    size_t len = strlen(name), n = sizeof(suffix) - 1;

    return len > n && strcasecmp(name + len - n, suffix) == 0 ? len - n : len;
}

/* Keywords as people say them: any case, with or without the suffix ("gc" is "GCKeyword"). */
static int same_keyword(const char *keyword, const char *asked)
{
    size_t n = stem_len(keyword);

    return n == stem_len(asked) && strncasecmp(keyword, asked, n) == 0;
}

/* How many of p's keywords answer to `name`; their masks are or-ed into *mask. */
static int find_keyword(const pg_provider *p, const char *name, uint64_t *mask)
{
    int found = 0;

    PG_VEC_EACH(const pg_named, k, p->keywords)
        if (k->name && same_keyword(k->name, name)) {
            *mask |= k->value;
            found++;
        }
    return found;
}

/* The unknown keyword's error: which manifest was read and each provider's keywords. */
static int unknown_keyword(pg_ctx *cx, const pg_manifest *m, const pg_provider *only, const char *name,
                           pg_buf *err)
{
    pg_buf_printf(cx, err, "unknown keyword \"%s\" in %s (not a hex mask either)", name, m->path);
    PG_VEC_EACH(const pg_provider, p, m->providers) {
        const char *sep = ":";

        if (only && p != only)
            continue;
        pg_buf_printf(cx, err, "; %s keywords", p->lttng_name);
        PG_VEC_EACH(const pg_named, k, p->keywords)
            if (k->name) {
                pg_buf_printf(cx, err, "%s %s", sep, k->name);
                sep = ",";
            }
        if (*sep == ':')
            pg_buf_puts(cx, err, ": none");
    }
    return 2;
}

/* The first name of the list that is no keyword of the providers asked about, or NULL when all
 * are: then the list is names, not a hex mask, even when it reads like one ("Add", "Face"). */
static const char *unknown_name(pg_ctx *cx, const pg_manifest *m, const pg_provider *only, const char *spec)
{
    char *list = pg_strdup(cx, spec), *save = NULL;

    for (char *k = strtok_r(list, ", ", &save); k; k = strtok_r(NULL, ", ", &save)) {
        uint64_t ignored = 0;
        int found = 0;

        PG_VEC_EACH(const pg_provider, p, m->providers)
            found |= (!only || p == only) && find_keyword(p, k, &ignored);
        if (!found)
            return k;
    }
    return NULL;
}

/* What a --keywords value means for provider p: a hex mask applies as is; names ("GC,JIT") are
 * looked up in p's own keywords, since two providers may give one name different masks. Unset
 * means every keyword. */
static uint64_t mask_for(pg_ctx *cx, const pg_provider *p, const char *spec, int names)
{
    char *list, *save = NULL;
    uint64_t mask;

    if (!spec)
        return UINT64_MAX;
    if (!names && parse_number(spec, &mask))
        return mask;
    mask = 0;
    list = pg_strdup(cx, spec);
    for (char *k = strtok_r(list, ", ", &save); k; k = strtok_r(NULL, ", ", &save))
        find_keyword(p, k, &mask);
    return mask;
}

/* ETW's rule: (level <= L or L == 0) and (keywords == 0 or keywords & mask). */
static int selected(const pg_event *e, uint64_t level, uint64_t mask)
{
    uint64_t l = e->level ? e->level->value : 0;

    return (level == 0 || l <= level) && (e->keywords == 0 || (e->keywords & mask) != 0);
}

/* --level: a number from 0 to 255. */
static int parse_level(pg_ctx *cx, const char *level, uint64_t *lvl, pg_buf *err)
{
    char *end;

    errno = 0;
    *lvl = level ? strtoull(level, &end, 10) : 0;
    if (level && (errno || !*level || *end || *lvl > 255 || *level == '-')) {
        pg_buf_printf(cx, err, "--level wants a number from 0 to 255, not \"%s\"", level);
        return 2;
    }
    return 0;
}

int pg_enable_list(pg_ctx *cx, const pg_manifest *m, const pg_enable_query *q, pg_vec *events, pg_buf *err)
{
    const pg_provider *only = NULL;
    uint64_t lvl, mask;
    const char *unknown;

    if (q->provider) {
        PG_VEC_EACH(const pg_provider, p, m->providers)
            if (strcmp(p->name, q->provider) == 0 || strcmp(p->lttng_name, q->provider) == 0)
                only = p;
        if (!only) {
            pg_buf_printf(cx, err, "no provider \"%s\" in %s", q->provider, m->path);
            return 2;
        }
    }
    if (parse_level(cx, q->level, &lvl, err))
        return 2;
    unknown = q->keywords ? unknown_name(cx, m, only, q->keywords) : NULL;
    if (unknown && !parse_number(q->keywords, &mask))
        return unknown_keyword(cx, m, only, unknown, err);
    PG_VEC_EACH(const pg_provider, p, m->providers) {
        if (only && p != only)
            continue;
        mask = mask_for(cx, p, q->keywords, q->keywords && !unknown);
        PG_VEC_EACH(const pg_event, e, p->events)
            if (selected(e, lvl, mask))
                pg_vec_push(cx, events, (void *)e);
    }
    return 0;
}
