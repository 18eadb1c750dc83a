/* SPDX-License-Identifier: MIT */
/* Lowering: manifest fields to C parameters and LTTng trace fields (docs/manifest.md, types). */
#include "lower.h"

#include <string.h>

static int is_int(const pg_field *f)
{
    return f->type && f->type->kind == PG_K_INT;
}

struct scope {
    const pg_field *arr;    /* enclosing array of structs */
    const char *arr_src;    /* expression of its base pointer */
    const char *arr_prefix; /* prefix of the scope holding it (for its count=) */
    const char *prefix;     /* how fields of this scope are reached */
};

static void add_leaf(pg_ctx *cx, const pg_field *f, const struct scope *sc, pg_vec *leaves)
{
    pg_leaf *l = pg_zalloc(cx, sizeof(*l));
    const pg_field *arr = sc->arr;

    l->f = f;
    l->arr = arr;
    l->prefix = sc->prefix;
    l->arr_src = sc->arr_src;
    l->arr_prefix = sc->arr_prefix;
    l->src = pg_printf(cx, "%s%s", sc->prefix, f->cname);
    if (arr) {
        l->rec = f->count.present ? PG_REC_NESTED : is_int(f) ? PG_REC_INTS : PG_REC_JSON;
        if (l->rec == PG_REC_INTS && arr->count.is_const)
            l->fixed = 1, l->fixed_len = arr->count.value;
    } else if (f->count.present) {
        l->rec = is_int(f) ? PG_REC_INTS : PG_REC_JSON;
        if (l->rec == PG_REC_INTS && f->count.is_const)
            l->fixed = 1, l->fixed_len = f->count.value;
    } else {
        switch (f->type->kind) {
        case PG_K_INT: l->rec = PG_REC_INT; break;
        case PG_K_FLOAT: l->rec = PG_REC_FLOAT; break;
        case PG_K_BINARY:
            l->rec = PG_REC_BYTES;
            if (!f->type->counted && f->length.is_const)
                l->fixed = 1, l->fixed_len = f->length.value;
            break;
        default: l->rec = PG_REC_STRING; break;
        }
    }
    pg_vec_push(cx, leaves, l);
}

/* Fields of a struct parameter are reached as "S->M", of a struct held by value as "S->In.M".
 * Members of an array of structs are gathered by offset, not reached by expression. */
static void walk(pg_ctx *cx, const pg_vec *fields, const struct scope *sc, pg_vec *leaves)
{
    PG_VEC_EACH(const pg_field, f, *fields) {
        struct scope inner = *sc;

        if (!f->is_struct) {
            if (f->type)
                add_leaf(cx, f, sc, leaves);
            continue;
        }
        if (f->count.present) {
            inner.arr = f;
            inner.arr_src = pg_printf(cx, "%s%s", sc->prefix, f->cname);
            inner.arr_prefix = sc->prefix;
            inner.prefix = "";
        } else {
            inner.prefix = pg_printf(cx, "%s%s%s", sc->prefix, f->cname, f->parent ? "." : "->");
        }
        walk(cx, &f->members, &inner, leaves);
    }
}

void pg_template_leaves(pg_ctx *cx, const pg_template *t, pg_vec *leaves)
{
    struct scope top = { NULL, NULL, NULL, "" };

    if (t)
        walk(cx, &t->fields, &top, leaves);
}

/* The C type of one element of an array, or of a scalar. */
static const char *value_type(const pg_field *f, int in_struct)
{
    switch (f->type->kind) {
    case PG_K_INT: return f->type->is_pointer ? "const void *" : f->type->ctype;
    case PG_K_FLOAT: return f->type->ctype;
    case PG_K_UTF16: return "const char16_t *";
    case PG_K_ANSI: return "const char *";
    case PG_K_GUID: return in_struct ? "palev_guid" : "const palev_guid *";
    case PG_K_SYSTEMTIME: return in_struct ? "palev_systemtime" : "const palev_systemtime *";
    case PG_K_BINARY:
    case PG_K_SID: return "const void *";
    }
    return "void *";
}

static void put_decl(pg_ctx *cx, pg_buf *b, const char *type, const char *name)
{
    size_t n = strlen(type);

    pg_buf_printf(cx, b, "%s%s%s", type, n && type[n - 1] == '*' ? "" : " ", name);
}

char *pg_param_decl(pg_ctx *cx, const pg_field *f, const char *name, int in_struct)
{
    pg_buf b = { 0 };

    if (f->is_struct) {
        /* callers declare structs: their type name needs the provider and template */
    } else if (f->count.present) {
        const char *elem;

        switch (f->type->kind) {
        case PG_K_GUID: elem = "palev_guid"; break;
        case PG_K_SYSTEMTIME: elem = "palev_systemtime"; break;
        default: elem = value_type(f, 1); break;
        }
        if (elem[strlen(elem) - 1] == '*')
            put_decl(cx, &b, pg_printf(cx, "%sconst *", elem), name);
        else
            put_decl(cx, &b, pg_printf(cx, "const %s *", elem), name);
    } else {
        put_decl(cx, &b, value_type(f, in_struct), name);
    }
    return b.data ? b.data : pg_strdup(cx, "");
}

/* The declarations of a template's parameters, one string each. */
static void param_list(pg_ctx *cx, const pg_template *t, pg_vec *params)
{
    if (!t)
        return;
    PG_VEC_EACH(const pg_field, f, t->fields) {
        pg_buf b = { 0 };

        if (f->is_struct)
            put_decl(cx, &b, pg_printf(cx, "const %s *", f->struct_type), f->cname);
        else if (f->type)
            pg_buf_puts(cx, &b, pg_param_decl(cx, f, f->cname, 0));
        else
            continue;
        pg_vec_push(cx, params, b.data);
        if (!f->is_struct && f->type->counted)
            pg_vec_push(cx, params, pg_printf(cx, "uint16_t %s_Length", f->cname));
    }
}

/* Past this many columns a prototype takes one parameter per line. */
#define SIGNATURE_COLUMNS 100

void pg_put_signature(pg_ctx *cx, pg_buf *b, const char *head, const char *const *lead, size_t n_lead,
                      const pg_template *t)
{
    pg_vec params = { 0 };
    size_t width = strlen(head) + 2;    /* "head(...)" */
    int wrap;

    for (size_t i = 0; i < n_lead; i++)
        pg_vec_push(cx, &params, (void *)lead[i]);
    param_list(cx, t, &params);
    if (!params.len)
        pg_vec_push(cx, &params, pg_strdup(cx, "void"));
    PG_VEC_EACH(const char, p, params)
        width += strlen(p) + (p_i ? 2 : 0);
    wrap = width > SIGNATURE_COLUMNS;
    pg_buf_printf(cx, b, "%s(%s", head, wrap ? "\n    " : "");
    PG_VEC_EACH(const char, p, params)
        pg_buf_printf(cx, b, "%s%s", !p_i ? "" : wrap ? ",\n    " : ", ", p);
    pg_buf_puts(cx, b, ")");
}

char *pg_args(pg_ctx *cx, const pg_template *t)
{
    pg_buf b = { 0 };

    if (t) {
        PG_VEC_EACH(const pg_field, f, t->fields) {
            if (!f->is_struct && !f->type)
                continue;
            pg_buf_printf(cx, &b, "%s%s", b.len ? ", " : "", f->cname);
            if (!f->is_struct && f->type->counted)
                pg_buf_printf(cx, &b, ", %s_Length", f->cname);
        }
    }
    return b.data ? b.data : pg_strdup(cx, "");
}

static void emit_struct_type(pg_ctx *cx, pg_buf *b, const pg_template *t, const pg_field *s)
{
    PG_VEC_EACH(const pg_field, m, s->members)
        if (m->is_struct)
            emit_struct_type(cx, b, t, m);
    pg_buf_printf(cx, b, "/* One element of %s \"%s\" in template \"", s->count.present ? "the array" : "struct", s->name);
    pg_put_comment_text(cx, b, t->tid);
    pg_buf_puts(cx, b, "\". */\n");
    pg_buf_printf(cx, b, "typedef struct %s {\n", s->struct_type);
    PG_VEC_EACH(const pg_field, m, s->members) {
        pg_buf_puts(cx, b, "    ");
        if (m->is_struct && m->count.present)
            put_decl(cx, b, pg_printf(cx, "const %s *", m->struct_type), m->cname);
        else if (m->is_struct)
            put_decl(cx, b, m->struct_type, m->cname);
        else
            pg_buf_puts(cx, b, pg_param_decl(cx, m, m->cname, 1));
        pg_buf_puts(cx, b, ";\n");
        if (!m->is_struct && m->type && m->type->counted)
            pg_buf_printf(cx, b, "    uint16_t %s_Length;\n", m->cname);
    }
    pg_buf_printf(cx, b, "} %s;\n\n", s->struct_type);
}

void pg_emit_struct_types(pg_ctx *cx, pg_buf *b, const pg_template *t)
{
    PG_VEC_EACH(const pg_field, f, t->fields)
        if (f->is_struct)
            emit_struct_type(cx, b, t, f);
}

void pg_put_c_string(pg_ctx *cx, pg_buf *b, const char *s)
{
    pg_buf_putn(cx, b, "\"", 1);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            pg_buf_printf(cx, b, "\\%c", *c);
        else if (*c < 0x20 || *c >= 0x7F || *c == '?')
            pg_buf_printf(cx, b, "\\%03o", *c);
        else
            pg_buf_putn(cx, b, (const char *)c, 1);
    }
    pg_buf_putn(cx, b, "\"", 1);
}

void pg_put_comment_text(pg_ctx *cx, pg_buf *b, const char *s)
{
    for (const char *c = s; *c; c++) {
        if (c[0] == '*' && c[1] == '/')
            pg_buf_puts(cx, b, "*\\/"), c++;
        else if (*c == '\n' || *c == '\r')
            pg_buf_putn(cx, b, " ", 1);
        else
            pg_buf_putn(cx, b, c, 1);
    }
}

int pg_template_needs_scratch(const pg_template *t)
{
    PG_VEC_EACH(const pg_leaf, l, t->leaves) {
        const pg_intype *ty = l->f->type;

        /* NUL-terminated ANSI strings are recorded in place */
        if (l->rec == PG_REC_STRING && ty->kind == PG_K_ANSI && !ty->counted && !l->f->length.present)
            continue;
        if (l->rec == PG_REC_STRING || l->rec == PG_REC_JSON || l->rec == PG_REC_NESTED || l->arr)
            return 1;
    }
    return 0;
}
