/* SPDX-License-Identifier: MIT */
/* The checker: resolve every reference, derive names, and report all errors with their lines. */
#include "model.h"
#include "check.h"
#include "lttng_names.h"
#include "pcm_own.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static pg_named *find_named(const pg_vec *v, const char *name)
{
    PG_VEC_EACH(pg_named, n, *v)
        if (n->name && strcmp(n->name, name) == 0)
            return n;
    return NULL;
}

/* Names and values of levels, tasks, opcodes, keywords: present, well-formed, unique. */
static void check_named(pg_ctx *cx, const pg_vec *v, const char *what, uint64_t max, int need_value)
{
    const char *value_attr = strcmp(what, "keyword") ? "value" : "mask";

    for (size_t i = 0; i < v->len; i++) {
        pg_named *n = v->items[i];

        if (!n->name) {
            pg_error(cx, n->loc, "<%s> has no name", what);
            continue;
        }
        if (!n->value_str && need_value)
            pg_error(cx, n->loc, "%s \"%s\" has no %s", what, n->name, value_attr);
        else if (n->value_str)
            n->value_ok = pg_parse_u64(cx, n->value_str, n->value_loc,
                                    pg_printf(cx, "%s of %s \"%s\"", value_attr, what, n->name), max,
                                    &n->value);
        for (size_t j = 0; j < i; j++) {
            pg_named *o = v->items[j];

            if (o->name && strcmp(o->name, n->name) == 0)
                pg_error(cx, n->loc, "%s \"%s\" is defined twice (first at %s:%u)", what, n->name,
                         o->loc.file, o->loc.line);
        }
    }
}

/* Keywords are named in lists ("GC,JIT") by collectors: a name is one word. Two keywords with one
 * mask are legal but select the same events: worth a warning. */
static void check_keywords(pg_ctx *cx, pg_provider *p)
{
    check_named(cx, &p->keywords, "keyword", UINT64_MAX, 1);
    for (size_t i = 0; i < p->keywords.len; i++) {
        pg_named *k = p->keywords.items[i];

        if (k->name && strpbrk(k->name, " \t\r\n,"))
            pg_error(cx, k->loc, "keyword name \"%s\" has a space or a comma: collectors take keyword "
                     "names in comma-separated lists", k->name);
        if (k->value_ok && k->value == 0)
            pg_error(cx, k->value_loc, "keyword \"%s\" has an empty mask", k->name ? k->name : "");
        for (size_t j = 0; j < i && k->value_ok; j++) {
            pg_named *o = p->keywords.items[j];

            if (o->value_ok && o->value == k->value && k->name && o->name && strcmp(o->name, k->name))
                pg_warning(cx, k->value_loc, "keywords \"%s\" and \"%s\" (at %s:%u) have the same mask "
                           "0x%llx: each selects the events of both", k->name, o->name,
                           o->loc.file, o->loc.line, (unsigned long long)k->value);
        }
    }
}

static int channel_value_used(const pg_provider *p, const pg_named *self, uint64_t v)
{
    PG_VEC_EACH(const pg_named, c, p->channels)
        if (c != self && c->value_ok && c->value == v)
            return 1;
    return 0;
}

/* Channels: a chid (or name) each, unique; values as written, else the builtin's for an imported
 * well-known channel, else the next free number from 16 (as mc.exe numbers them). */
static void check_channels(pg_ctx *cx, pg_provider *p)
{
    uint64_t next = 16;

    PG_VEC_EACH(pg_named, c, p->channels) {
        if (!c->chid)
            c->chid = c->name;
        if (!c->chid) {
            pg_error(cx, c->loc, "channel has neither chid nor name");
            continue;
        }
        for (size_t i = 0; p->channels.items[i] != c; i++) {
            const pg_named *o = p->channels.items[i];

            if (o->chid && strcmp(o->chid, c->chid) == 0)
                pg_error(cx, c->loc, "channel \"%s\" is defined twice (first at %s:%u)", c->chid,
                         o->loc.file, o->loc.line);
        }
        if (!c->value_str)
            continue;
        c->value_ok = pg_parse_u64(cx, c->value_str, c->value_loc,
                                pg_printf(cx, "value of channel \"%s\"", c->chid), 255, &c->value);
        if (c->value_ok && channel_value_used(p, c, c->value))
            pg_error(cx, c->value_loc, "channel value %llu is used twice",
                     (unsigned long long)c->value);
    }
    PG_VEC_EACH(pg_named, c, p->channels) {
        if (!c->chid || c->value_str)
            continue;
        if (!c->imported || !c->name || !pg_builtin_channel(c->name, &c->value)) {
            while (channel_value_used(p, c, next))
                next++;
            c->value = next++;
        }
        c->value_ok = 1;
    }
}

/* ---- events ----------------------------------------------------------------------------------- */

static pg_named *resolve(pg_ctx *cx, const pg_vec *defined, enum pg_builtin_kind kind, const char *name,
                         pg_loc loc, const char *what)
{
    pg_named *found;

    if (!name)
        return NULL;
    found = find_named(defined, name);
    if (!found)
        found = pg_builtin_find(cx, kind, name, loc);
    if (!found)
        pg_error(cx, loc, "%s \"%s\" is not defined", what, name);
    return found;
}

static void resolve_opcode(pg_ctx *cx, pg_provider *p, pg_event *e)
{
    if (!e->opcode_name)
        return;
    if (e->task && !e->task->builtin)
        e->opcode = find_named(&e->task->opcodes, e->opcode_name);
    if (!e->opcode)
        e->opcode = resolve(cx, &p->opcodes, PG_BUILTIN_OPCODE, e->opcode_name, e->opcode_loc, "opcode");
}

static void resolve_keywords(pg_ctx *cx, pg_provider *p, pg_event *e)
{
    char *list, *save = NULL;

    if (!e->keywords_attr)
        return;
    list = pg_strdup(cx, e->keywords_attr);
    for (char *k = strtok_r(list, " \t\r\n", &save); k; k = strtok_r(NULL, " \t\r\n", &save)) {
        pg_named *kw = resolve(cx, &p->keywords, PG_BUILTIN_KEYWORD, k, e->keywords_loc, "keyword");

        if (kw)
            e->keywords |= kw->value;
    }
}

static void resolve_channel(pg_ctx *cx, pg_provider *p, pg_event *e)
{
    if (!e->channel_name)
        return;
    PG_VEC_EACH(pg_named, c, p->channels)
        if ((c->chid && strcmp(c->chid, e->channel_name) == 0) ||
            (c->name && strcmp(c->name, e->channel_name) == 0))
            e->channel = c;
    if (!e->channel)
        pg_error(cx, e->channel_loc, "channel \"%s\" is not defined", e->channel_name);
}

static void resolve_template(pg_ctx *cx, pg_provider *p, pg_event *e)
{
    if (!e->template_name)
        return;
    e->tmpl = pg_index_get(&p->template_index, e->template_name);
    if (e->tmpl)
        e->tmpl->used = 1;
    else
        pg_error(cx, e->template_loc, "template \"%s\" is not defined", e->template_name);
}

static void check_event(pg_ctx *cx, pg_provider *p, pg_event *e)
{
    uint64_t level = 0;
    const char *name = e->symbol ? pg_printf(cx, " \"%s\"", e->symbol) : "";

    if (!e->value_str)
        pg_error(cx, e->loc, "event%s has no value", name);
    else
        e->id_ok = pg_parse_u64(cx, e->value_str, e->value_loc, pg_printf(cx, "value of event%s", name), 65535,
                             &e->value);
    if (e->version_str)
        e->id_ok &= pg_parse_u64(cx, e->version_str, e->version_loc, pg_printf(cx, "version of event%s", name),
                              255, &e->version);
    e->level = resolve(cx, &p->levels, PG_BUILTIN_LEVEL, e->level_name, e->level_loc, "level");
    e->task = resolve(cx, &p->tasks, PG_BUILTIN_TASK, e->task_name, e->task_loc, "task");
    resolve_opcode(cx, p, e);
    resolve_keywords(cx, p, e);
    resolve_channel(cx, p, e);
    resolve_template(cx, p, e);
    if (e->level)
        level = e->level->value;
    e->loglevel = pg_lttng_loglevel(level);
}

/* A name for an event without symbol: <Task><Opcode>[_V<version>], else Event<id>[_V<version>];
 * by_id 2 always spells the version, as the last resort against a symbol of the same name. */
static char *derive_name(pg_ctx *cx, const pg_event *e, int by_id)
{
    pg_buf b = { 0 };

    if (!by_id && e->task && e->task->value)
        pg_buf_puts(cx, &b, pg_make_ident(cx, e->task->name));
    if (b.len && e->opcode && e->opcode->value)
        pg_buf_puts(cx, &b, pg_make_ident(cx, e->opcode->name));
    if (!b.len)
        pg_buf_printf(cx, &b, "Event%llu", (unsigned long long)e->value);
    if (e->version || by_id == 2)
        pg_buf_printf(cx, &b, "_V%llu", (unsigned long long)e->version);
    return b.data;
}

static void name_events(pg_ctx *cx, pg_provider *p)
{
    pg_index names = { 0 };
    pg_event *o;

    PG_VEC_EACH(pg_event, e, p->events) {
        if (!e->symbol)
            continue;
        e->lttng_name = pg_make_ident(cx, e->symbol);
        if ((o = pg_index_put(cx, &names, e->lttng_name, e)))
            pg_error(cx, pg_event_name_loc(e), "event name \"%s\" is used twice (first at %s:%u)",
                     e->lttng_name, pg_event_name_loc(o).file, pg_event_name_loc(o).line);
    }
    PG_VEC_EACH(pg_event, e, p->events) {
        if (e->symbol)
            continue;
        e->derived_name = 1;
        for (int by_id = 0; by_id <= 2; by_id++)
            if (!pg_index_get(&names, e->lttng_name = derive_name(cx, e, by_id)))
                break;
        if ((o = pg_index_put(cx, &names, e->lttng_name, e)))
            pg_error(cx, pg_event_name_loc(e), "event name \"%s\" is used twice (first at %s:%u)",
                     e->lttng_name, pg_event_name_loc(o).file, pg_event_name_loc(o).line);
    }
    PG_VEC_EACH(pg_event, e, p->events) {
        e->cname = e->lttng_name;
        if (strlen(p->lttng_name) + 1 + strlen(e->lttng_name) >= 256)
            pg_error(cx, e->loc, "LTTng name \"%s:%s\" is longer than 255 characters", p->lttng_name,
                     e->lttng_name);
    }
}

static void check_events(pg_ctx *cx, pg_provider *p)
{
    pg_index ids = { 0 };
    pg_event *o;

    for (size_t i = 0; i < p->events.len; i++) {
        pg_event *e = p->events.items[i];

        e->index = (unsigned)i;
        e->provider = p;
        check_event(cx, p, e);
        if (e->id_ok && (o = pg_index_put(cx, &ids, pg_printf(cx, "%llu/%llu", (unsigned long long)e->value,
                                                              (unsigned long long)e->version), e)))
            pg_error(cx, e->value_loc, "event %llu version %llu is defined twice (first at %s:%u)",
                     (unsigned long long)e->value, (unsigned long long)e->version,
                     o->value_loc.file, o->value_loc.line);
    }
    name_events(cx, p);
}

/* ---- providers -------------------------------------------------------------------------------- */

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}", braces optional. */
static int parse_guid(pg_provider *p)
{
    const char *s = p->guid;
    size_t n = strlen(s);
    uint8_t b[16];
    static const int dash[] = { 8, 13, 18, 23 };

    if (n == 38 && s[0] == '{' && s[37] == '}')
        s++, n = 36;
    if (n != 36)
        return 0;
    for (int i = 0; i < 4; i++)
        if (s[dash[i]] != '-')
            return 0;
    for (int i = 0, k = 0; i < 36; i++) {
        int hi, lo;

        if (s[i] == '-')
            continue;
        hi = hexval(s[i]);
        lo = hexval(s[i + 1]);
        if (hi < 0 || lo < 0)
            return 0;
        b[k++] = (uint8_t)(hi << 4 | lo);
        i++;
    }
    p->guid_d1 = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    p->guid_d2 = (uint16_t)(b[4] << 8 | b[5]);
    p->guid_d3 = (uint16_t)(b[6] << 8 | b[7]);
    memcpy(p->guid_d4, b + 8, 8);
    return 1;
}

/* DESIGN decision 2: drop a leading Microsoft- / Windows-, map the rest to an identifier. */
static char *lttng_provider_name(pg_ctx *cx, const pg_provider *p, const pg_options *opt)
{
    const char *n = p->name;

    for (size_t i = 0; opt && i < opt->rename_from.len; i++)
        if (strcmp(opt->rename_from.items[i], n) == 0)
            return pg_strdup(cx, opt->rename_to.items[i]);
    while (!strncmp(n, "Microsoft-", 10) || !strncmp(n, "Windows-", 8))
        n += n[0] == 'M' ? 10 : 8;
    return pg_make_ident(cx, *n ? n : p->name);
}

/* libpaleventing's own provider: only its manifest (PCM_OWN_MANIFEST, by GUID) may take the
 * name, or two providers would register the same LTTng events. */
static int is_paleventing(const pg_provider *p)
{
    static const uint8_t d4[8] = PCM_OWN_GUID_D4;

    return p->guid_ok && p->guid_d1 == PCM_OWN_GUID_D1 && p->guid_d2 == PCM_OWN_GUID_D2 &&
           p->guid_d3 == PCM_OWN_GUID_D3 && memcmp(p->guid_d4, d4, 8) == 0;
}

static int same_guid(const pg_provider *a, const pg_provider *b)
{
    return a->guid_ok && b->guid_ok && a->guid_d1 == b->guid_d1 && a->guid_d2 == b->guid_d2 &&
           a->guid_d3 == b->guid_d3 && memcmp(a->guid_d4, b->guid_d4, 8) == 0;
}

static void check_provider(pg_ctx *cx, const pg_manifest *m, pg_provider *p, const pg_options *opt)
{
    if (!p->name || !*p->name) {
        pg_error(cx, p->name ? p->name_loc : p->loc, "provider has no name");
        p->name = pg_strdup(cx, "Provider");
    }
    p->lttng_name = lttng_provider_name(cx, p, opt);
    if (!pg_is_identifier(p->lttng_name) || strlen(p->lttng_name) > 200)
        pg_error(cx, p->name_loc, "provider name \"%s\" is not a usable LTTng provider name",
                 p->lttng_name);
    else if (pcm_lttng_reserved(p->lttng_name))
        pg_error(cx, p->name_loc, "provider \"%s\" would be named \"%s\" in LTTng: names beginning "
                 "with \"" PCM_LTTNG_RESERVED_PREFIX "\" are LTTng's own, and libpaleventing refuses to "
                 "register them (use --provider-name)", p->name, p->lttng_name);
    if (p->guid && !(p->guid_ok = parse_guid(p)))
        pg_error(cx, p->guid_loc, "guid \"%s\" is not a GUID", p->guid);
    else if (strcmp(p->lttng_name, PCM_OWN_PROVIDER) == 0 && !is_paleventing(p))
        pg_error(cx, p->name_loc, "provider \"%s\" would be named \"%s\" in LTTng: that is "
                 "libpaleventing's own provider (use --provider-name)", p->name, p->lttng_name);
    else if (!p->guid)
        pg_warning(cx, p->loc, "provider \"%s\" has no guid: its event descriptors carry the zero GUID",
                   p->name);
    check_named(cx, &p->levels, "level", 255, 1);
    check_named(cx, &p->tasks, "task", 65535, 1);
    PG_VEC_EACH(pg_named, t, p->tasks)
        check_named(cx, &t->opcodes, "opcode", 255, 1);
    check_named(cx, &p->opcodes, "opcode", 255, 1);
    check_keywords(cx, p);
    check_channels(cx, p);
    pg_check_maps(cx, m, p);
    pg_check_templates(cx, p);
    check_events(cx, p);
}
unsigned pg_check(pg_ctx *cx, pg_manifest *m, const pg_options *opt)
{
    unsigned before = pg_error_count(cx);

    if (!m)
        return 1;
    PG_VEC_EACH(pg_string, s, m->strings)
        pg_index_put(cx, &m->string_index, s->id, s);
    if (!m->providers.len)
        pg_error(cx, (pg_loc){ m->path, 1 }, "no event provider found (expected <instrumentation>"
                                         "<events><provider>)");
    for (size_t i = 0; i < m->providers.len; i++) {
        pg_provider *p = m->providers.items[i];

        check_provider(cx, m, p, opt);
        for (size_t j = 0; j < i; j++) {
            pg_provider *o = m->providers.items[j];

            if (strcmp(o->lttng_name, p->lttng_name) == 0)
                pg_error(cx, p->name_loc, "provider \"%s\" would be named \"%s\" in LTTng, as is "
                         "provider \"%s\" at %s:%u (use --provider-name)", p->name, p->lttng_name,
                         o->name, o->name_loc.file, o->name_loc.line);
            if (same_guid(o, p))
                pg_error(cx, p->guid_loc, "provider \"%s\" has the guid %s of provider \"%s\" at %s:%u",
                         p->name, p->guid, o->name, o->guid_loc.file, o->guid_loc.line);
        }
    }
    for (size_t i = 0; opt && !opt->renames_may_miss && i < opt->rename_from.len; i++) {
        int found = 0;

        PG_VEC_EACH(const pg_provider, p, m->providers)
            found |= p->name && strcmp(p->name, opt->rename_from.items[i]) == 0;
        if (!found && m->providers.len)
            pg_error(cx, (pg_loc){ m->path, 0 }, "--provider-name %s=%s: no provider \"%s\" in the "
                     "manifest", (char *)opt->rename_from.items[i], (char *)opt->rename_to.items[i],
                     (char *)opt->rename_from.items[i]);
    }
    /* main.c refuses it as a usage error; other users of the library are checked here */
    if (opt && opt->symbol_prefix && !pg_is_identifier(opt->symbol_prefix))
        pg_error(cx, (pg_loc){ m->path, 0 }, "--symbol-prefix \"%s\" is not a C identifier",
                 opt->symbol_prefix);
    else
        pg_assign_cnames(cx, m, opt ? opt->symbol_prefix : NULL);
    return pg_error_count(cx) - before;
}
