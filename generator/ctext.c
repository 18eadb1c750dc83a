/* SPDX-License-Identifier: MIT */
/* The C text the emitters share: declarations and signatures from the lowered model, and the one
 * escaping function for each place manifest text reaches (C string literals, C comments). */
#include "ctext.h"

#include <stdarg.h>
#include <string.h>

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
            pg_vec_push(cx, params, pg_printf(cx, "uint16_t %s", f->len_cname));
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
                pg_buf_printf(cx, &b, ", %s", f->len_cname);
        }
    }
    return b.data ? b.data : pg_strdup(cx, "");
}

static void put_struct_type(pg_ctx *cx, pg_buf *b, const pg_template *t, const pg_field *s)
{
    PG_VEC_EACH(const pg_field, m, s->members)
        if (m->is_struct)
            put_struct_type(cx, b, t, m);
    pg_put_comment(cx, b, "One element of %s \"%s\" in template \"%s\".",
                   s->count.present ? "the array" : "struct", s->name, t->tid);
    pg_buf_printf(cx, b, "\ntypedef struct %s {\n", s->struct_type);
    PG_VEC_EACH(const pg_field, m, s->members) {
        pg_buf_puts(cx, b, "    ");
        if (m->is_struct && m->count.present)
            put_decl(cx, b, pg_printf(cx, "const %s *", m->struct_type), m->cname);
        else if (m->is_struct)
            put_decl(cx, b, m->struct_type, m->cname);
        else if (s->count.present && m->count.present && m->count.is_const)   /* held in the element */
            put_decl(cx, b, value_type(m, 1), pg_printf(cx, "%s[%llu]", m->cname,
                                                        (unsigned long long)m->count.value));
        else
            pg_buf_puts(cx, b, pg_param_decl(cx, m, m->cname, 1));
        pg_buf_puts(cx, b, ";\n");
        if (!m->is_struct && m->type && m->type->counted)
            pg_buf_printf(cx, b, "    uint16_t %s;\n", m->len_cname);
    }
    pg_buf_printf(cx, b, "} %s;\n\n", s->struct_type);
}

void pg_put_struct_types(pg_ctx *cx, pg_buf *b, const pg_template *t)
{
    PG_VEC_EACH(const pg_field, f, t->fields)
        if (f->is_struct)
            put_struct_type(cx, b, t, f);
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

/* Inside a comment only two things matter: its end and line splicing. "*\/" and "/\*" keep
 * comments from ending or nesting (-Wcomment), "?\?" breaks trigraphs (C11 compilers read
 * "??/" as a backslash), a backslash at the end gets a space after it so that no newline can
 * follow it, and control characters become spaces: the comment stays on its line. */
void pg_put_comment_text(pg_ctx *cx, pg_buf *b, const char *s)
{
    const unsigned char *c = (const unsigned char *)s;

    for (; *c; c++) {
        if ((c[0] == '*' && c[1] == '/') || (c[0] == '/' && c[1] == '*') || (c[0] == '?' && c[1] == '?'))
            pg_buf_printf(cx, b, "%c\\", *c);
        else if (*c < 0x20 || *c == 0x7F)
            pg_buf_putn(cx, b, " ", 1);
        else
            pg_buf_putn(cx, b, (const char *)c, 1);
    }
    if (c > (const unsigned char *)s && c[-1] == '\\')
        pg_buf_putn(cx, b, " ", 1);
}

void pg_put_banner(pg_ctx *cx, pg_buf *b, const pg_manifest *m, const char *purpose)
{
    pg_put_comment(cx, b, "Generated by palev-gen from %s. Do not edit.", m->basename);
    pg_buf_puts(cx, b, "\n");
    pg_put_comment(cx, b, "%s", purpose);
    pg_buf_puts(cx, b, "\n");
}

void pg_put_comment(pg_ctx *cx, pg_buf *b, const char *fmt, ...)
{
    pg_buf text = { 0 };
    va_list ap;

    va_start(ap, fmt);
    pg_buf_vprintf(cx, &text, fmt, ap);
    va_end(ap);
    pg_buf_puts(cx, b, "/* ");
    pg_put_comment_text(cx, b, text.data ? text.data : "");
    pg_buf_puts(cx, b, " */");
}
