/* SPDX-License-Identifier: MIT */
/* Dynamic events: checking a definition (and the provider names no provider may take), and
 * building the LTTng-UST descriptors of its event. */
#include <errno.h>
#include <float.h>
#include <stdio.h>
#include <string.h>

#include "dynamic.h"
#include "lttng_names.h"

#define K_HEX PALEV_FIELD_HEX
#define K_ARRAY PALEV_FIELD_ARRAY

/* Per type: bytes of a value, signedness, the flags it takes, how it is written. */
static const struct type_info {
    uint8_t size;
    uint8_t is_signed;
    uint8_t flags_ok;
    uint8_t wk;
} types[] = {
    [PALEV_TYPE_INT8] = { 1, 1, K_HEX | K_ARRAY, PALEV__WK_INT },
    [PALEV_TYPE_UINT8] = { 1, 0, K_HEX | K_ARRAY, PALEV__WK_INT },
    [PALEV_TYPE_INT16] = { 2, 1, K_HEX | K_ARRAY, PALEV__WK_INT },
    [PALEV_TYPE_UINT16] = { 2, 0, K_HEX | K_ARRAY, PALEV__WK_INT },
    [PALEV_TYPE_INT32] = { 4, 1, K_HEX | K_ARRAY, PALEV__WK_INT },
    [PALEV_TYPE_UINT32] = { 4, 0, K_HEX | K_ARRAY, PALEV__WK_INT },
    [PALEV_TYPE_INT64] = { 8, 1, K_HEX | K_ARRAY, PALEV__WK_INT },
    [PALEV_TYPE_UINT64] = { 8, 0, K_HEX | K_ARRAY, PALEV__WK_INT },
    [PALEV_TYPE_FLOAT] = { 4, 1, K_ARRAY, PALEV__WK_FLOAT },
    [PALEV_TYPE_DOUBLE] = { 8, 1, K_ARRAY, PALEV__WK_DOUBLE },
    [PALEV_TYPE_BOOL] = { 1, 0, 0, PALEV__WK_INT },
    [PALEV_TYPE_STRING] = { 0, 0, 0, PALEV__WK_STRING },
    [PALEV_TYPE_STRING16] = { 0, 0, 0, PALEV__WK_STRING },
    [PALEV_TYPE_GUID] = { 0, 0, 0, PALEV__WK_STRING },
    [PALEV_TYPE_POINTER] = { sizeof(void *), 0, 0, PALEV__WK_INT },
    [PALEV_TYPE_BYTES] = { 1, 0, 0, PALEV__WK_SEQ },
};
#define TYPE_COUNT (sizeof(types) / sizeof(types[0]))

/* ---- names and fields --------------------------------------------------------------------- */

static int ident_ok(const char *s)
{
    static const char alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_";
    static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789";

    return s && s[0] && strchr(alpha, s[0]) && s[strspn(s, alnum)] == '\0';
}

static int check_names(const char *provider, const char *name)
{
    if (!ident_ok(provider) || !ident_ok(name)) {
        palev__debug("event not defined: provider=\"%s\", name=\"%s\", reason=\"names are "
                     "[A-Za-z_][A-Za-z0-9_]*\"", provider ? provider : "(null)",
                     name ? name : "(null)");
        return -EINVAL;
    }
    if (strlen(provider) + 1 + strlen(name) > PALEV_EVENT_MAX_NAME) {
        palev__debug("event not defined: provider=\"%s\", reason=\"provider:name longer than %d "
                     "characters\"", provider, PALEV_EVENT_MAX_NAME);
        return -ENAMETOOLONG;
    }
    return 0;
}

/* LTTng's own namespace (common/lttng_names.h): generated providers (provider.c) obey the same
 * rule. */
const char *palev__provider_reserved(const char *name)
{
    return pcm_lttng_reserved(name) ? "LTTng's own namespace (" PCM_LTTNG_RESERVED_PREFIX "*)" : NULL;
}

int palev__dyn_check_provider(const char *provider)
{
    if (!ident_ok(provider)) {
        palev__debug("provider not undefined: provider=\"%s\", reason=\"names are "
                     "[A-Za-z_][A-Za-z0-9_]*\"", provider ? provider : "(null)");
        return -EINVAL;
    }
    return 0;
}

static int check_field(const palev_field *f)
{
    const struct type_info *t;

    if (!ident_ok(f->name))
        return -EINVAL;
    if (strlen(f->name) > PALEV_FIELD_MAX_NAME)
        return -ENAMETOOLONG;
    if (f->type == 0 || f->type >= TYPE_COUNT)
        return -EINVAL;
    t = &types[f->type];
    return (f->flags & ~t->flags_ok) ? -EINVAL : 0;
}

/* Is field f recorded as an LTTng sequence, after a hidden "_<name>_length" field? */
static int is_sequence(const palev_field *f)
{
    const struct type_info *t = &types[f->type];

    return t->wk == PALEV__WK_SEQ || ((f->flags & K_ARRAY) && t->wk == PALEV__WK_INT);
}

/* LTTng writes each field name into the trace's metadata with a leading '_', which readers
 * strip, and babeltrace2 then refuses an event whose names meet that way (a field "_x" before a
 * field "x", "x_length" beside the array "x" whose length field is "_x_length"): the whole
 * trace becomes unreadable. So names are compared as readers may see them, without any
 * leading '_', the hidden length fields among them; equal there, they are refused. */
static const char *bare(const char *name)
{
    return name + strspn(name, "_");
}

/* Is `a` (bare) the bare name of the hidden length field of sequence `seq`? */
static int is_length_of(const char *a, const char *seq)
{
    const char *s = bare(seq);
    size_t len = strlen(s);

    if (len == 0)       /* "_" or "__": its length field "___length" is "length" bare */
        return strcmp(a, "length") == 0;
    return strncmp(a, s, len) == 0 && strcmp(a + len, "_length") == 0;
}

/* Does field i meet a field before it, or the hidden length field of either? */
static int name_taken(const palev_field *fields, size_t i)
{
    const char *a = bare(fields[i].name);

    for (size_t k = 0; k < i; k++) {
        const char *b = bare(fields[k].name);

        if (strcmp(a, b) == 0 || (is_sequence(&fields[k]) && is_length_of(a, fields[k].name)) ||
            (is_sequence(&fields[i]) && is_length_of(b, fields[i].name)))
            return 1;
    }
    return 0;
}

static int check_fields(const palev_field *fields, size_t count)
{
    int ret;

    if (count > PALEV_EVENT_MAX_FIELDS)
        return -E2BIG;
    if (count && !fields)
        return -EINVAL;
    for (size_t i = 0; i < count; i++) {
        if ((ret = check_field(&fields[i])) != 0) {
            palev__debug("event not defined: field %zu \"%s\" type=%u flags=0x%x: %s", i,
                         fields[i].name ? fields[i].name : "(null)", fields[i].type,
                         fields[i].flags, ret == -EINVAL ? "bad name, type or flags"
                                                         : "name too long");
            return ret;
        }
        if (name_taken(fields, i)) {
            palev__debug("event not defined: field %zu \"%s\" meets another field's name once "
                         "leading '_' are removed, or an array's hidden \"_<array>_length\" "
                         "field", i, fields[i].name);
            return -EINVAL;
        }
    }
    return 0;
}

int palev__dyn_check(const palev_event_def *d)
{
    int ret = check_names(d->provider, d->name);

    return ret ? ret : check_fields(d->fields, d->field_count);
}

/* ---- building the descriptors --------------------------------------------------------- */

/* One LTTng field and the types it needs (a sequence: itself and its element type). */
union utype {
    struct lttng_ust_type_common common;
    struct lttng_ust_type_integer integer;
    struct lttng_ust_type_float fp;
    struct lttng_ust_type_string string;
    struct lttng_ust_type_sequence seq;
    struct lttng_ust_type_enum enumeration;
};

struct ufield {
    struct lttng_ust_event_field field;
    union utype type;
    union utype elem;
};

/* Everything one event needs, in one block: the event, its fields twice (ours and LTTng's, a
 * hidden length field before each sequence), the field pointers, then the names. */
struct layout {
    size_t fields, ufields, uptrs, enum_desc, names, total;
};

static size_t align_up(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

static void plan(struct layout *l, const char *provider, const char *name,
                 const palev_field *fields, size_t count, size_t *nuf)
{
    size_t names = strlen(provider) + strlen(name) + 2 + strlen(provider) + sizeof("_palev_bool");

    *nuf = count;
    for (size_t i = 0; i < count; i++) {
        names += 2 * strlen(fields[i].name) + sizeof("__length") + 1;
        *nuf += is_sequence(&fields[i]);
    }
    l->fields = align_up(sizeof(struct palev_event));
    l->ufields = l->fields + align_up(count * sizeof(struct palev__dfield));
    l->uptrs = l->ufields + align_up(*nuf * sizeof(struct ufield));
    l->enum_desc = l->uptrs + align_up(*nuf * sizeof(struct lttng_ust_event_field *));
    l->names = l->enum_desc + align_up(sizeof(struct lttng_ust_enum_desc));
    l->total = l->names + names;
}

static char *put_name(char **at, const char *a, const char *b, const char *c)
{
    char *s = *at;
    int n = sprintf(s, "%s%s%s", a, b, c);

    *at += n + 1;
    return s;
}

static void integer_type(union utype *t, unsigned size, int is_signed, unsigned base)
{
    t->integer = (struct lttng_ust_type_integer){
        .parent = { .type = lttng_ust_type_integer },
        .struct_size = sizeof(struct lttng_ust_type_integer),
        .size = size * 8,
        .alignment = (unsigned short)(PALEV__RB_ALIGN(size) * 8),
        .signedness = is_signed != 0,
        .reverse_byte_order = 0,
        .base = base,
    };
}

static void float_type(union utype *t, int is_double)
{
    t->fp = (struct lttng_ust_type_float){
        .parent = { .type = lttng_ust_type_float },
        .struct_size = sizeof(struct lttng_ust_type_float),
        .exp_dig = is_double ? 64 - DBL_MANT_DIG : 32 - FLT_MANT_DIG,
        .mant_dig = is_double ? DBL_MANT_DIG : FLT_MANT_DIG,
        .alignment = (unsigned short)(PALEV__RB_ALIGN(is_double ? 8 : 4) * 8),
    };
}

static void string_type(union utype *t)
{
    t->string = (struct lttng_ust_type_string){
        .parent = { .type = lttng_ust_type_string },
        .struct_size = sizeof(struct lttng_ust_type_string),
        .encoding = lttng_ust_string_encoding_UTF8,
    };
}

static const struct lttng_ust_enum_entry bool_false = {
    .struct_size = sizeof(struct lttng_ust_enum_entry),
    .start = { 0, 0 }, .end = { 0, 0 }, .string = "false",
};
static const struct lttng_ust_enum_entry bool_true = {
    .struct_size = sizeof(struct lttng_ust_enum_entry),
    .start = { 1, 0 }, .end = { 1, 0 }, .string = "true",
};
static const struct lttng_ust_enum_entry *const bool_entries[] = { &bool_false, &bool_true };

/* The LTTng field(s) of one of our fields; returns how many (2 for a sequence). */
static size_t lttng_fields(struct ufield *u, const struct palev__dfield *f, char **names,
                           const struct lttng_ust_enum_desc *bool_desc)
{
    unsigned base = (f->flags & K_HEX) || f->type == PALEV_TYPE_POINTER ||
                    f->type == PALEV_TYPE_BYTES ? 16 : 10;

    u->field = (struct lttng_ust_event_field){ .struct_size = sizeof(u->field), .name = f->name,
                                               .type = &u->type.common };
    switch (f->wk) {
    case PALEV__WK_INT:
        integer_type(&u->type, f->size, f->is_signed, base);
        if (f->type == PALEV_TYPE_BOOL) {
            integer_type(&u->elem, 1, 0, 10);
            u->type.enumeration = (struct lttng_ust_type_enum){
                .parent = { .type = lttng_ust_type_enum },
                .struct_size = sizeof(struct lttng_ust_type_enum),
                .desc = bool_desc, .container_type = &u->elem.common };
        }
        return 1;
    case PALEV__WK_FLOAT:
    case PALEV__WK_DOUBLE:
        float_type(&u->type, f->wk == PALEV__WK_DOUBLE);
        return 1;
    case PALEV__WK_STRING:
        string_type(&u->type);
        return 1;
    default:
        break;
    }
    /* PALEV__WK_SEQ, a sequence: "_<name>_length" (uint32, not filterable), then the elements. */
    integer_type(&u->type, 4, 0, 10);
    u->field.name = put_name(names, "_", f->name, "_length");
    u->field.nofilter = 1;
    integer_type(&u[1].elem, f->size, f->is_signed, base);
    u[1].field = (struct lttng_ust_event_field){ .struct_size = sizeof(u->field), .name = f->name,
                                                 .type = &u[1].type.common };
    u[1].type.seq = (struct lttng_ust_type_sequence){
        .parent = { .type = lttng_ust_type_sequence },
        .struct_size = sizeof(struct lttng_ust_type_sequence),
        .length_name = NULL, .elem_type = &u[1].elem.common, .alignment = 0,
        .encoding = lttng_ust_string_encoding_none };
    return 2;
}

static uint8_t arg_kind(const palev_field *f)
{
    const struct type_info *t = &types[f->type];

    if ((f->flags & K_ARRAY) || t->wk == PALEV__WK_SEQ)
        return PALEV__ARG_ARRAY;
    if (t->wk == PALEV__WK_FLOAT || t->wk == PALEV__WK_DOUBLE)
        return PALEV__ARG_DOUBLE;
    if (t->wk == PALEV__WK_STRING || f->type == PALEV_TYPE_POINTER)
        return PALEV__ARG_PTR;
    if (t->size == 8)
        return PALEV__ARG_U64;
    return t->is_signed ? PALEV__ARG_INT : PALEV__ARG_UINT;
}

static void our_field(struct palev__dfield *d, const palev_field *f, char **names)
{
    const struct type_info *t = &types[f->type];

    d->type = f->type;
    d->flags = f->flags;
    d->wk = t->wk;
    d->size = t->size;
    d->is_signed = t->is_signed;
    d->name = put_name(names, f->name, "", "");
    d->arg = arg_kind(f);
    /* Float arrays: a JSON string (LTTng sequences hold integers only). */
    if ((f->flags & K_ARRAY) && (t->wk == PALEV__WK_FLOAT || t->wk == PALEV__WK_DOUBLE))
        d->wk = PALEV__WK_STRING;
    else if (f->flags & K_ARRAY)
        d->wk = PALEV__WK_SEQ;
}

/* ETW level -> LTTng log level, as palev-gen maps generated events. */
static int lttng_loglevel(uint8_t level)
{
    static const int map[] = { 0, 2, 3, 4, 6, 14 };

    return level < sizeof(map) / sizeof(map[0]) ? map[level] : 14;
}

static void describe(struct palev_event *ev, const struct layout *l, size_t nuf,
                     const struct lttng_ust_probe_desc *probe)
{
    char *base = (char *)ev;

    ev->loglevel = lttng_loglevel(ev->level);
    ev->loglevel_ptr = &ev->loglevel;
    ev->cls = (struct lttng_ust_tracepoint_class){
        .struct_size = sizeof(ev->cls),
        .fields = (const struct lttng_ust_event_field *const *)(base + l->uptrs),
        .nr_fields = nuf, .probe_callback = (void (*)(void))palev__dyn_probe,
        .signature = PALEV__DYN_SIGNATURE, .probe_desc = probe };
    ev->desc = (struct lttng_ust_event_desc){
        .struct_size = sizeof(ev->desc), .event_name = ev->tp.event_name,
        .probe_desc = probe, .tp_class = &ev->cls, .loglevel = &ev->loglevel_ptr };
    ev->tp.struct_size = sizeof(ev->tp);
    ev->tp.signature = PALEV__DYN_SIGNATURE;
}

struct palev_event *palev__dyn_build(const palev_event_def *d,
                                     const struct lttng_ust_probe_desc *probe)
{
    const char *provider = d->provider, *name = d->name;
    const palev_field *fields = d->fields;
    size_t count = d->field_count;
    struct layout l;
    size_t nuf, k = 0;
    struct palev_event *ev;
    struct ufield *uf;
    struct lttng_ust_enum_desc *bool_desc;
    const struct lttng_ust_event_field **uptrs;
    char *names;

    plan(&l, provider, name, fields, count, &nuf);
    if (!(ev = palev__malloc(l.total)))
        return NULL;
    memset(ev, 0, l.total);
    ev->fields = (struct palev__dfield *)((char *)ev + l.fields);
    uf = (struct ufield *)((char *)ev + l.ufields);
    uptrs = (const struct lttng_ust_event_field **)((char *)ev + l.uptrs);
    bool_desc = (struct lttng_ust_enum_desc *)((char *)ev + l.enum_desc);
    names = (char *)ev + l.names;
    ev->tp.provider_name = put_name(&names, provider, "", "");
    ev->tp.event_name = put_name(&names, name, "", "");
    *bool_desc = (struct lttng_ust_enum_desc){
        .struct_size = sizeof(*bool_desc), .name = put_name(&names, provider, "_palev_bool", ""),
        .entries = bool_entries, .nr_entries = 2, .probe_desc = probe };
    ev->level = d->level;
    ev->keywords = d->keywords;
    ev->field_count = count;
    for (size_t i = 0; i < count; i++) {
        our_field(&ev->fields[i], &fields[i], &names);
        k += lttng_fields(&uf[k], &ev->fields[i], &names, bool_desc);
    }
    for (size_t i = 0; i < nuf; i++)
        uptrs[i] = &uf[i].field;
    describe(ev, &l, nuf, probe);
    ev->provider_len = strlen(provider);
    ev->name_len = strlen(name);
    return ev;
}
