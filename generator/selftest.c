/* SPDX-License-Identifier: MIT */
/* selftest: a host firing every event once with known values, and what babeltrace2 must show. */
#include "bttext.h"
#include "ctext.h"
#include "json.h"

#include <stdio.h>
#include <string.h>

/* One event being written: static objects go to pre, the call's arguments to args, and the
 * expected fields (babeltrace2's text, in trace order) to expect. */
struct gen {
    const pg_provider *p;
    const pg_template *t;
    pg_buf pre, args, expect;
    unsigned id;        /* suffix for static objects */
    unsigned seed;      /* varies values between fields and events */
};

/* ---- babeltrace2's text forms ------------------------------------------------------------------ */

/* A string field between its quotes, each byte escaped as babeltrace2 escapes it (common/). */
static void bt_escaped(pg_ctx *cx, pg_buf *b, const char *s, const char *(*escape)(unsigned char))
{
    pg_buf_putn(cx, b, "\"", 1);
    for (const char *c = s; *c; c++) {
        const char *e = escape((unsigned char)*c);

        if (e)
            pg_buf_puts(cx, b, e);
        else
            pg_buf_putn(cx, b, c, 1);
    }
    pg_buf_putn(cx, b, "\"", 1);
}

static void bt_string(pg_ctx *cx, pg_buf *b, const char *s)
{
    bt_escaped(cx, b, s, pcm_bt_string_escape);
}

/* An enum label: a string, '?' escaped too (pcm_bt_label_escape()). */
static void bt_label(pg_ctx *cx, pg_buf *b, const char *s)
{
    bt_escaped(cx, b, s, pcm_bt_label_escape);
}

static void expect_field(pg_ctx *cx, struct gen *g, const char *name, const char *value)
{
    pg_buf_printf(cx, &g->expect, "%s%s = %s", g->expect.len ? ", " : "", name, value);
}

/* ---- sample values ------------------------------------------------------------------------------ */

/* A sample value: its C expression and its text as recorded (UTF-8, JSON element, number). */
struct sample {
    char *c;
    char *text;     /* as babeltrace2 shows a scalar, or as the JSON element */
};

/* Scope of a field, to find what its count=/length= siblings hold. */
static const pg_vec *scope_of(const struct gen *g, const pg_field *f)
{
    return f->parent ? &f->parent->members : &g->t->fields;
}

static int counts_structs(const struct gen *g, const pg_field *f)
{
    PG_VEC_EACH(const pg_field, o, *scope_of(g, f))
        if (o->is_struct && o->count.field == f)
            return 1;
    return 0;
}

static int in_struct_array(const pg_field *f)
{
    for (const pg_field *p = f->parent; p; p = p->parent)
        if (p->count.present)
            return 1;
    return 0;
}

/* Counts and lengths: element i of an array of structs holds i+1 items and strings of i+4 units;
 * elsewhere arrays of structs have 2 elements, other arrays 3, and lengths are 5. */
static uint64_t ref_value(const struct gen *g, const pg_field *f, int elem)
{
    if (elem >= 0 && in_struct_array(f))
        return f->used_as_count ? (uint64_t)elem + 1 : (uint64_t)elem + 4;
    if (f->used_as_count)
        return counts_structs(g, f) ? 2 : 3;
    return 5;
}

static uint64_t ref_of(const struct gen *g, const pg_ref *r, int elem)
{
    return r->is_const ? r->value : ref_value(g, r->field, elem);
}

/* The enum value the selftest fires, chosen by pg_lower. */
static const pg_enum_value *enum_entry(const pg_field *f)
{
    return f->en->sample;
}

/* The raw value of an integer field, as 64 bits. */
static uint64_t int_value(const struct gen *g, const pg_field *f, unsigned k, int elem)
{
    const pg_intype *t = f->type;

    if (f->used_as_count || f->used_as_length)
        return ref_value(g, f, elem);
    if (t->is_bool)
        return k % 2;
    if (t->is_pointer)
        return UINT64_C(0x7F0000001000) + 16 * k;
    if (f->en && enum_entry(f))
        return enum_entry(f)->value;
    if (!strcmp(t->name, "FILETIME"))
        return UINT64_C(133000000000000000) + k;
    if (t->is_signed && !f->hex) {
        static const int64_t base[] = { 0, -1, -1000, 0, -100000, 0, 0, 0, -5000000000LL };

        return (uint64_t)(base[t->size] - (int64_t)(t->size == 1 ? k % 100 : k));
    }
    /* Hex values of signed types stay positive: the C literal must fit. */
    switch (t->size) {
    case 1: return (f->hex ? 0x10 : 200) + k % 50;
    case 2: return (f->hex ? 0x1000 : 60000) + k % 5000;
    case 4: return (f->hex ? (t->is_signed ? 0x40DE0000 : UINT64_C(0xC0DE0000)) : UINT64_C(3000000000)) + k;
    default:
        if (f->hex)
            return (t->is_signed ? UINT64_C(0x7EEDFACE00000000) : UINT64_C(0xFEEDFACE00000000)) + k;
        return UINT64_C(10000000000000000000) + k;
    }
}

static char *int_c(pg_ctx *cx, const pg_field *f, uint64_t v)
{
    const pg_intype *t = f->type;

    if (t->is_pointer)
        return pg_printf(cx, "(const void *)(uintptr_t)UINT64_C(0x%llx)", (unsigned long long)v);
    if (t->is_signed) {
        int64_t s = (int64_t)v;

        if (s == INT64_MIN)
            return pg_strdup(cx, "INT64_MIN");
        return t->size == 8 ? pg_printf(cx, "INT64_C(%lld)", (long long)s) : pg_printf(cx, "%lld", (long long)s);
    }
    return t->size == 8 ? pg_printf(cx, "UINT64_C(%llu)", (unsigned long long)v)
                        : pg_printf(cx, "%lluU", (unsigned long long)v);
}

/* An integer as babeltrace2 prints it; scalar leaves may be enums. */
static char *int_text(pg_ctx *cx, const pg_field *f, uint64_t v, int scalar)
{
    const char *num = f->type->is_signed && (int64_t)v < 0 ? pg_printf(cx, "%lld", (long long)(int64_t)v)
                                                          : pg_printf(cx, "%llu", (unsigned long long)v);

    if (scalar && f->type->is_bool)
        return pg_printf(cx, "( \"%s\" : container = %s )", v ? "true" : "false", num);
    if (scalar && f->en) {
        const pg_enum_value *e = enum_entry(f);
        pg_buf b = { 0 };

        if (!e || e->value != v)
            return pg_printf(cx, "( <unknown> : container = %s )", num);
        pg_buf_puts(cx, &b, "( ");
        bt_label(cx, &b, e->entry->label);
        pg_buf_printf(cx, &b, " : container = %s )", num);
        return pg_strdup(cx, b.data);
    }
    if (f->hex)
        return pg_printf(cx, "0x%llX", (unsigned long long)v);
    return pg_strdup(cx, num);
}

/* UTF-16 samples: free ones have 2-, 3- and 4-byte UTF-8 (a surrogate pair); sized ones are built
 * from BMP characters so that a length never splits a pair. */
static struct sample utf16_sample(pg_ctx *cx, unsigned k, uint64_t len)
{
    static const uint32_t free_tail[] = { ' ', 0xE9, 0x65E5, 0x672C, 0x1F600 };
    static const uint32_t cycle[] = { 0xE9, 0x65E5, 'a' };
    char head[24];
    pg_buf c = { 0 }, t = { 0 };
    uint64_t units = 0;
    struct sample s;

    snprintf(head, sizeof(head), "s%u", k);
    pg_buf_puts(cx, &c, "u\"");
    /* a sized string starts with non-ASCII text, so that even short ones carry some */
    for (size_t i = 0; len && i < 2 && units < len; i++, units++) {
        pg_buf_printf(cx, &c, "\\u%04X", cycle[i]);
        pg_buf_put_utf8(cx, &t, cycle[i]);
    }
    for (const char *h = head; *h && (!len || units < len); h++, units++) {
        pg_buf_putn(cx, &c, h, 1);
        pg_buf_putn(cx, &t, h, 1);
    }
    for (size_t i = 0; len ? units < len : i < sizeof(free_tail) / sizeof(free_tail[0]); i++) {
        uint32_t cp = len ? cycle[i % 3] : free_tail[i];

        pg_buf_printf(cx, &c, cp < 0x80 ? "%c" : cp < 0x10000 ? "\\u%04X" : "\\U%08X", cp);
        pg_buf_put_utf8(cx, &t, cp);
        units += cp < 0x10000 ? 1 : 2;
    }
    pg_buf_puts(cx, &c, "\"");
    s.c = pg_strdup(cx, c.data);
    s.text = pg_strdup(cx, t.data ? t.data : "");
    return s;
}

static struct sample ansi_sample(pg_ctx *cx, unsigned k, uint64_t len)
{
    pg_buf t = { 0 }, c = { 0 };
    struct sample s;

    if (!len) {
        pg_buf_printf(cx, &t, "a%u caf\xC3\xA9", k);
    } else {
        pg_buf_printf(cx, &t, "a%u-", k);
        while (t.len < len)
            pg_buf_putn(cx, &t, &"xyz"[t.len % 3], 1);
        t.len = (size_t)len;
        t.data[t.len] = '\0';
    }
    pg_put_c_string(cx, &c, t.data);
    s.c = pg_strdup(cx, c.data);
    s.text = pg_strdup(cx, t.data);
    return s;
}

static void hex_text(pg_ctx *cx, pg_buf *b, const uint8_t *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pg_buf_printf(cx, b, "%02x", bytes[i]);
}

static char *static_bytes(pg_ctx *cx, struct gen *g, const uint8_t *bytes, size_t n)
{
    char *name = pg_printf(cx, "b%u", g->id++);

    pg_buf_printf(cx, &g->pre, "    static const uint8_t %s[%zu] = { ", name, n);
    for (size_t i = 0; i < n; i++)
        pg_buf_printf(cx, &g->pre, "0x%02x%s", bytes[i], i + 1 < n ? ", " : " };\n");
    return name;
}

static struct sample float_sample(pg_ctx *cx, const pg_field *f, unsigned k)
{
    double v = f->type->size == 4 ? (double)(k % 8) + 0.5 : -(double)(k % 8) - 0.25;
    struct sample s;
    char text[64];

    pcm_bt_real(text, sizeof(text), v);
    s.c = pg_printf(cx, f->type->size == 4 ? "%.2ff" : "%.2f", v);
    s.text = pg_strdup(cx, text);
    return s;
}

/* GUID and SYSTEMTIME travel by pointer as parameters and by value inside structs. */
static struct sample by_value_or_pointer(pg_ctx *cx, struct gen *g, const char *type, char *init, char *text,
                                         int in_struct)
{
    struct sample s = { init, text };

    if (!in_struct) {
        s.c = pg_printf(cx, "&v%u", g->id);
        pg_buf_printf(cx, &g->pre, "    static const %s v%u = %s;\n", type, g->id++, init);
    }
    return s;
}

static struct sample guid_sample(pg_ctx *cx, struct gen *g, unsigned k, int in_struct)
{
    return by_value_or_pointer(cx, g, "palev_guid",
                               pg_printf(cx, "{ 0x%08xU, 0x5678, 0x9abc, { 0xde, 0xf0, 1, 2, 3, 4, 5, %u } }",
                                         0x1234ab00U + k, k % 256),
                               pg_printf(cx, "%08x-5678-9abc-def0-01020304%02x%02x", 0x1234ab00U + k, 5, k % 256),
                               in_struct);
}

static struct sample systemtime_sample(pg_ctx *cx, struct gen *g, unsigned k, int in_struct)
{
    return by_value_or_pointer(cx, g, "palev_systemtime", pg_printf(cx, "{ 2026, 11, 0, 22, 7, 1, 47, %u }", k % 1000),
                               pg_printf(cx, "2026-11-22T07:01:47.%03u", k % 1000), in_struct);
}

/* S-1-5-21-<k>-298: revision 1, 3 sub-authorities, authority 5. */
static struct sample sid_sample(pg_ctx *cx, struct gen *g, unsigned k)
{
    uint8_t sid[] = { 1, 3, 0, 0, 0, 0, 0, 5, 21, 0, 0, 0, (uint8_t)k, 0, 0, 0, 42, 1, 0, 0 };
    struct sample s;

    s.c = static_bytes(cx, g, sid, sizeof(sid));
    s.text = pg_printf(cx, "S-1-5-21-%u-298", k % 256);
    return s;
}

/* Binary: the C array and, as text, its lowercase hex (a JSON element's form). */
static struct sample binary_sample(pg_ctx *cx, struct gen *g, unsigned k, uint64_t len)
{
    size_t n = (size_t)len;
    uint8_t *bytes = pg_zalloc(cx, n ? n : 1);
    pg_buf t = { 0 };
    struct sample s;

    for (size_t i = 0; i < n; i++)
        bytes[i] = (uint8_t)(k + 37 * i);
    s.c = static_bytes(cx, g, bytes, n);
    hex_text(cx, &t, bytes, n);
    s.text = pg_strdup(cx, t.data ? t.data : "");
    return s;
}

/* A value of a non-integer field; text is what the trace shows (string fields) or, for binary,
 * the lowercase hex of a JSON element. in_struct: GUID/SYSTEMTIME by value, not by pointer. */
static struct sample value_sample(pg_ctx *cx, struct gen *g, const pg_field *f, unsigned k, uint64_t len,
                                  int in_struct)
{
    struct sample none = { NULL, NULL };

    switch (f->type->kind) {
    case PG_K_FLOAT: return float_sample(cx, f, k);
    case PG_K_UTF16: return utf16_sample(cx, k, len);
    case PG_K_ANSI: return ansi_sample(cx, k, len);
    case PG_K_GUID: return guid_sample(cx, g, k, in_struct);
    case PG_K_SYSTEMTIME: return systemtime_sample(cx, g, k, in_struct);
    case PG_K_SID: return sid_sample(cx, g, k);
    case PG_K_BINARY: return binary_sample(cx, g, k, len);
    case PG_K_INT: break;
    }
    return none;
}

/* The length a string or binary sample must have: 0 means free (NUL-terminated). */
static uint64_t sample_len(const struct gen *g, const pg_field *f, int elem)
{
    if (f->type->counted)
        return f->type->kind == PG_K_BINARY ? 6 : 7;
    if (f->length.present)
        return ref_of(g, &f->length, elem);
    return f->type->kind == PG_K_BINARY ? 4 : 0;
}

/* ---- JSON elements, as libpaleventing writes them (common/json.c's rule) ------------------------ */

static void json_element(pg_ctx *cx, pg_buf *b, const pg_field *f, const struct sample *s)
{
    if (f->type->kind == PG_K_FLOAT) {
        char num[PCM_JSON_NUMBER_MAX];
        double v;

        sscanf(s->text, "%lf", &v);
        pg_buf_putn(cx, b, num, pcm_json_number(num, v, f->type->size == 4 ? PCM_JSON_FLOAT_DIGITS
                                                                          : PCM_JSON_DOUBLE_DIGITS));
        return;
    }
    /* Samples hold no characters JSON escapes. */
    pg_buf_printf(cx, b, "\"%s\"", s->text);
}

static void expect_json(pg_ctx *cx, struct gen *g, const char *name, const pg_buf *json)
{
    pg_buf t = { 0 };

    bt_string(cx, &t, json->data ? json->data : "[]");
    expect_field(cx, g, name, t.data);
}

static void expect_ints(pg_ctx *cx, struct gen *g, const pg_leaf *l, const pg_buf *items, size_t n)
{
    if (!l->fixed)
        expect_field(cx, g, pg_printf(cx, "_%s_length", l->f->tname), pg_printf(cx, "%zu", n));
    expect_field(cx, g, l->f->tname, n ? pg_printf(cx, "[ %s ]", items->data) : "[ ]");
}

static void append_item(pg_ctx *cx, pg_buf *items, size_t i, const char *text)
{
    pg_buf_printf(cx, items, "%s[%zu] = %s", i ? ", " : "", i, text);
}

/* ---- arguments ------------------------------------------------------------------------------------ */

static void arg(pg_ctx *cx, struct gen *g, const char *c)
{
    pg_buf_printf(cx, &g->args, "%s%s", g->args.len ? ", " : "", c);
}

/* C declaration of one array element named name (an array declarator is fine). */
static char *elem_decl(pg_ctx *cx, const pg_field *f, const char *name)
{
    switch (f->type->kind) {
    case PG_K_INT:
        return f->type->is_pointer ? pg_printf(cx, "const void *const %s", name)
                                   : pg_printf(cx, "const %s %s", f->type->ctype, name);
    case PG_K_FLOAT: return pg_printf(cx, "const %s %s", f->type->ctype, name);
    case PG_K_UTF16: return pg_printf(cx, "const char16_t *const %s", name);
    case PG_K_ANSI: return pg_printf(cx, "const char *const %s", name);
    case PG_K_GUID: return pg_printf(cx, "const palev_guid %s", name);
    case PG_K_SYSTEMTIME: return pg_printf(cx, "const palev_systemtime %s", name);
    default: return pg_printf(cx, "const void *const %s", name);
    }
}

/* A scalar leaf: its C value, its length for counted types (else NULL), its expected field. */
struct value {
    char *c;
    char *len;
};

static struct value scalar(pg_ctx *cx, struct gen *g, const pg_field *f, int in_struct)
{
    unsigned k = g->seed++;
    uint64_t len = f->type->kind == PG_K_INT ? 0 : sample_len(g, f, -1);
    struct value v = { NULL, NULL };

    if (f->type->counted)
        v.len = pg_printf(cx, "%lluU", (unsigned long long)len);
    if (f->type->kind == PG_K_INT) {
        uint64_t x = int_value(g, f, k, -1);

        expect_field(cx, g, f->tname, int_text(cx, f, x, 1));
        v.c = int_c(cx, f, x);
    } else if (f->type->kind == PG_K_BINARY) {
        struct sample s = value_sample(cx, g, f, k, len, in_struct);
        pg_buf items = { 0 };
        pg_leaf l = { .f = f, .fixed = !f->type->counted && f->length.is_const };

        for (size_t i = 0; i < len; i++)
            append_item(cx, &items, i, pg_printf(cx, "0x%X", (unsigned)(uint8_t)(k + 37 * i)));
        expect_ints(cx, g, &l, &items, (size_t)len);
        v.c = s.c;
    } else {
        struct sample s = value_sample(cx, g, f, k, len, in_struct);
        pg_buf t = { 0 };

        if (f->type->kind == PG_K_FLOAT)
            pg_buf_puts(cx, &t, s.text);
        else
            bt_string(cx, &t, s.text);
        expect_field(cx, g, f->tname, t.data);
        v.c = s.c;
    }
    return v;
}

/* An array field outside arrays of structs. */
static char *array(pg_ctx *cx, struct gen *g, const pg_field *f)
{
    size_t n = (size_t)ref_of(g, &f->count, -1);
    char *name = pg_printf(cx, "a%u", g->id++);
    pg_buf init = { 0 }, items = { 0 }, json = { 0 };
    unsigned k0 = g->seed++;

    for (size_t i = 0; i < n; i++) {
        unsigned k = k0 + 11 * (unsigned)i;

        if (f->type->kind == PG_K_INT) {
            uint64_t v = int_value(g, f, k, -1);

            pg_buf_printf(cx, &init, "%s%s", i ? ", " : "", int_c(cx, f, v));
            append_item(cx, &items, i, int_text(cx, f, v, 0));
        } else {
            struct sample s = value_sample(cx, g, f, k, sample_len(g, f, -1), 1);

            pg_buf_printf(cx, &init, "%s%s", i ? ", " : "", s.c);
            pg_buf_puts(cx, &json, i ? "," : "[");
            json_element(cx, &json, f, &s);
        }
    }
    pg_buf_printf(cx, &g->pre, "    static %s = { %s };\n", elem_decl(cx, f, pg_printf(cx, "%s[%zu]", name, n)),
                  n ? init.data : "0");
    if (f->type->kind == PG_K_INT) {
        pg_leaf l = { .f = f, .fixed = f->count.is_const };

        expect_ints(cx, g, &l, &items, n);
    } else {
        pg_buf_puts(cx, &json, n ? "]" : "[]");
        expect_json(cx, g, f->tname, &json);
    }
    return name;
}

static char *struct_value(pg_ctx *cx, struct gen *g, const pg_field *s, int by_value);
static char *struct_array(pg_ctx *cx, struct gen *g, const pg_field *s);

/* The C expression of a field's sample, and of its length when it is counted (len NULL
 * otherwise): a struct member's (in_struct) or an event argument's. */
static struct value field_value(pg_ctx *cx, struct gen *g, const pg_field *f, int in_struct)
{
    if (f->is_struct && f->count.present)
        return (struct value){ struct_array(cx, g, f), NULL };
    if (f->is_struct)
        return (struct value){ struct_value(cx, g, f, in_struct), NULL };
    if (f->count.present)
        return (struct value){ array(cx, g, f), NULL };
    return scalar(cx, g, f, in_struct);
}

/* Initializers of the members of one struct held by value or pointed to. */
static void member_inits(pg_ctx *cx, struct gen *g, const pg_field *s, pg_buf *init)
{
    PG_VEC_EACH(const pg_field, m, s->members) {
        struct value v;

        pg_buf_printf(cx, init, "%s.%s = ", init->len ? ", " : "", m->cname);
        v = field_value(cx, g, m, 1);
        pg_buf_puts(cx, init, v.c);
        if (v.len)
            pg_buf_printf(cx, init, ", .%s = %s", m->len_cname, v.len);
    }
}

/* A single struct: by value inside another struct, else a pointer to a static one. */
static char *struct_value(pg_ctx *cx, struct gen *g, const pg_field *s, int by_value)
{
    pg_buf init = { 0 };
    char *c;

    member_inits(cx, g, s, &init);
    if (by_value) {
        c = pg_printf(cx, "{ %s }", init.data ? init.data : "0");
    } else {
        c = pg_printf(cx, "&st%u", g->id);
        pg_buf_printf(cx, &g->pre, "    static const %s st%u = { %s };\n",
                      s->struct_type, g->id++, init.data ? init.data : "0");
    }
    return c;
}

/* One member of an array of structs, over all elements: initializers and expected field. */
static void member_column(pg_ctx *cx, struct gen *g, const pg_field *m, size_t n, pg_buf *inits)
{
    pg_buf items = { 0 }, json = { 0 };
    unsigned k0 = g->seed++;
    size_t total = 0;

    for (size_t i = 0; i < n; i++) {
        unsigned k = k0 + 11 * (unsigned)i;

        pg_buf_printf(cx, &inits[i], "%s.%s = ", inits[i].len ? ", " : "", m->cname);
        if (m->count.present) {
            size_t cnt = (size_t)ref_of(g, &m->count, (int)i);
            pg_buf vals = { 0 };

            for (size_t j = 0; j < cnt; j++) {
                uint64_t v = int_value(g, m, k + 3 * (unsigned)j, (int)i);

                pg_buf_printf(cx, &vals, "%s%s", j ? ", " : "", int_c(cx, m, v));
                append_item(cx, &items, total++, int_text(cx, m, v, 0));
            }
            if (m->count.is_const) {    /* held in the element */
                pg_buf_printf(cx, &inits[i], "{ %s }", vals.data);
            } else {
                char *name = pg_printf(cx, "n%u", g->id++);

                pg_buf_printf(cx, &g->pre, "    static %s = { %s };\n",
                              elem_decl(cx, m, pg_printf(cx, "%s[%zu]", name, cnt)), cnt ? vals.data : "0");
                pg_buf_puts(cx, &inits[i], name);
            }
        } else if (m->type->kind == PG_K_INT) {
            uint64_t v = int_value(g, m, k, (int)i);

            pg_buf_puts(cx, &inits[i], int_c(cx, m, v));
            append_item(cx, &items, total++, int_text(cx, m, v, 0));
        } else {
            uint64_t len = sample_len(g, m, (int)i);
            struct sample s = value_sample(cx, g, m, k, len, 1);

            pg_buf_puts(cx, &inits[i], s.c);
            if (m->type->counted)
                pg_buf_printf(cx, &inits[i], ", .%s = %lluU", m->len_cname, (unsigned long long)len);
            pg_buf_puts(cx, &json, i ? "," : "[");
            json_element(cx, &json, m, &s);
        }
    }
    if (m->type->kind == PG_K_INT || m->count.present) {
        pg_leaf l = { .f = m };

        pg_leaf_form(m, m->parent, &l);
        expect_ints(cx, g, &l, &items, total);
    } else {
        pg_buf_puts(cx, &json, n ? "]" : "[]");
        expect_json(cx, g, m->tname, &json);
    }
}

static char *struct_array(pg_ctx *cx, struct gen *g, const pg_field *s)
{
    size_t n = (size_t)ref_of(g, &s->count, -1);
    pg_buf *inits = pg_zalloc(cx, (n + 1) * sizeof(*inits)), all = { 0 };
    char *name = pg_printf(cx, "sa%u", g->id++);

    PG_VEC_EACH(const pg_field, m, s->members)
        member_column(cx, g, m, n, inits);
    for (size_t i = 0; i < n; i++)
        pg_buf_printf(cx, &all, "%s{ %s }", i ? ", " : "", inits[i].data ? inits[i].data : "0");
    pg_buf_printf(cx, &g->pre, "    static const %s %s[%zu] = { %s };\n", s->struct_type,
                  name, n ? n : 1, n ? all.data : "{ 0 }");
    return name;
}

static void event_args(pg_ctx *cx, struct gen *g)
{
    PG_VEC_EACH(const pg_field, f, g->t->fields) {
        struct value v = field_value(cx, g, f, 0);

        arg(cx, g, v.c);
        if (v.len)
            arg(cx, g, v.len);
    }
}

static void emit_event(pg_ctx *cx, struct gen *g, pg_buf *c, pg_buf *expect, const pg_event *e)
{
    g->t = e->tmpl;
    g->pre.len = g->args.len = g->expect.len = 0;
    if (g->t)
        event_args(cx, g);
    pg_buf_printf(cx, c, "static void fire_%s(void)\n{\n%s%s%s(%s);\n}\n\n", e->cname,
                  g->pre.len ? g->pre.data : "", g->pre.len ? "\n    " : "    ", e->fire_name,
                  g->args.len ? g->args.data : "");
    pg_buf_printf(cx, expect, "%s:%s: { %s%s}\n", g->p->lttng_name, e->lttng_name,
                  g->expect.len ? g->expect.data : "", g->expect.len ? " " : "");
}

void pg_emit_selftest(pg_ctx *cx, const pg_manifest *m, const pg_provider *p, pg_vec *files)
{
    pg_file *c = pg_zalloc(cx, sizeof(*c)), *x = pg_zalloc(cx, sizeof(*x));
    struct gen g = { .p = p };

    c->name = pg_printf(cx, "%s-selftest.c", p->lttng_name);
    x->name = pg_printf(cx, "%s-selftest.expect", p->lttng_name);
    pg_put_banner(cx, &c->text, m, pg_printf(cx, "Selftest of provider %s: fires each of its %zu events once "
                  "with known values; %s-selftest.expect holds what babeltrace2 must show.", p->lttng_name,
                  p->events.len, p->lttng_name));
    pg_buf_printf(cx, &c->text, "#include \"%s-events.h\"\n\n#include <stdint.h>\n\n", p->lttng_name);
    PG_VEC_EACH(const pg_event, e, p->events) {
        g.seed = e->index * 7 + 1;
        emit_event(cx, &g, &c->text, &x->text, e);
    }
    pg_buf_puts(cx, &c->text, "int main(void)\n{\n");
    PG_VEC_EACH(const pg_event, e, p->events)
        pg_buf_printf(cx, &c->text, "    fire_%s();\n", e->cname);
    pg_buf_puts(cx, &c->text, "    return 0;\n}\n");
    pg_vec_push(cx, files, c);
    pg_vec_push(cx, files, x);
}
