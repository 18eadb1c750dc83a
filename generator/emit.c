/* SPDX-License-Identifier: MIT */
/* The emitters of one provider: <P>-tp.h, <P>-probe.c, <P>-events.h, <P>-events.c. */
#include "ctext.h"
#include "usdt.h"

#include <string.h>

static pg_file *new_file(pg_ctx *cx, pg_vec *files, const char *name)
{
    pg_file *f = pg_zalloc(cx, sizeof(*f));

    f->name = pg_strdup(cx, name);
    pg_vec_push(cx, files, f);
    return f;
}

/* Events without a template, or with an empty one, share one class without arguments. */
static const char *tp_args(pg_ctx *cx, const pg_event *e, const char *const *arg_types)
{
    if (e->args)
        return pg_printf(cx, "LTTNG_UST_TP_ARGS(const %s *, a)", arg_types[e->args->index]);
    return "LTTNG_UST_TP_ARGS()";
}

static int records(const pg_template *t)
{
    return t->used && t->leaves.len;
}

static int any_records(const pg_provider *p)
{
    PG_VEC_EACH(const pg_template, t, p->templates)
        if (records(t))
            return 1;
    return 0;
}

static const char *storage_type(const pg_field *f)
{
    return f->type->kind == PG_K_INT || f->type->kind == PG_K_FLOAT ? f->type->ctype : "uint8_t";
}

/* ---- <P>-tp.h ---------------------------------------------------------------------------------- */

static void emit_arg_members(pg_ctx *cx, pg_buf *b, const pg_template *t)
{
    PG_VEC_EACH(const pg_leaf, l, t->leaves) {
        const char *n = l->f->tname;

        switch (l->rec) {
        case PG_REC_INT:
        case PG_REC_FLOAT:
            pg_buf_printf(cx, b, "    %s f_%s;\n", l->f->type->ctype, n);
            break;
        case PG_REC_STRING:
        case PG_REC_JSON:
            pg_buf_printf(cx, b, "    const char *f_%s;\n", n);
            break;
        default:
            pg_buf_printf(cx, b, "    const %s *f_%s;\n", storage_type(l->f), n);
            if (!l->fixed)
                pg_buf_printf(cx, b, "    uint32_t n_%s;\n", n);
            break;
        }
    }
}

static void emit_arg_struct(pg_ctx *cx, pg_buf *b, const pg_template *t, const char *arg_type)
{
    pg_put_comment(cx, b, "Template \"%s\": the values its emit functions prepare for the probe.", t->tid);
    pg_buf_printf(cx, b, "\nstruct %s {\n", t->args_name);
    emit_arg_members(cx, b, t);
    pg_buf_printf(cx, b, "};\ntypedef struct %s %s;\n\n", t->args_name, arg_type);
}

static void emit_enum_value(pg_ctx *cx, pg_buf *b, const pg_enum *en, const pg_enum_value *v)
{
    pg_buf_puts(cx, b, "        lttng_ust_field_enum_value(");
    pg_put_c_string(cx, b, v->entry->label);
    if (!en->is_signed && v->value > INT64_MAX)
        pg_buf_printf(cx, b, ", UINT64_C(%llu))\n", (unsigned long long)v->value);
    else if ((int64_t)v->value == INT64_MIN)
        pg_buf_puts(cx, b, ", INT64_MIN)\n");
    else
        pg_buf_printf(cx, b, ", %lldLL)\n", (long long)(int64_t)v->value);
}

static void emit_enums(pg_ctx *cx, pg_buf *b, const pg_provider *p)
{
    PG_VEC_EACH(const pg_map, m, p->maps) {
        PG_VEC_EACH(const pg_enum, en, m->enums) {
            if (!en->values.len)
                continue;
            pg_put_comment(cx, b, "valueMap \"%s\", as a%s %u-bit integer holds it", m->name,
                           en->is_signed ? " signed" : "n unsigned", en->bits);
            pg_buf_printf(cx, b, "\nLTTNG_UST_TRACEPOINT_ENUM(%s, %s,\n    LTTNG_UST_TP_ENUM_VALUES(\n",
                          p->lttng_name, en->ident);
            PG_VEC_EACH(const pg_enum_value, v, en->values)
                emit_enum_value(cx, b, en, v);
            pg_buf_puts(cx, b, "    )\n)\n\n");
        }
    }
    if (p->uses_bool_enum)
        pg_buf_printf(cx, b, "/* win:Boolean */\nLTTNG_UST_TRACEPOINT_ENUM(%s, palev_bool,\n"
                      "    LTTNG_UST_TP_ENUM_VALUES(\n"
                      "        lttng_ust_field_enum_value(\"false\", 0)\n"
                      "        lttng_ust_field_enum_value(\"true\", 1)\n    )\n)\n\n",
                      p->lttng_name);
}

static void emit_tp_field(pg_ctx *cx, pg_buf *b, const pg_provider *p, const pg_leaf *l)
{
    const pg_field *f = l->f;
    const char *n = f->tname, *hex = f->hex ? "_hex" : "";

    pg_buf_puts(cx, b, "        ");
    switch (l->rec) {
    case PG_REC_INT:
        if (f->type->is_bool)
            pg_buf_printf(cx, b, "lttng_ust_field_enum(%s, palev_bool, int32_t, %s, a->f_%s)", p->lttng_name, n, n);
        else if (f->en)
            pg_buf_printf(cx, b, "lttng_ust_field_enum(%s, %s, %s, %s, a->f_%s)", p->lttng_name,
                          f->en->ident, f->type->ctype, n, n);
        else
            pg_buf_printf(cx, b, "lttng_ust_field_integer%s(%s, %s, a->f_%s)", hex, f->type->ctype, n, n);
        break;
    case PG_REC_FLOAT:
        pg_buf_printf(cx, b, "lttng_ust_field_float(%s, %s, a->f_%s)", f->type->ctype, n, n);
        break;
    case PG_REC_STRING:
    case PG_REC_JSON:
        pg_buf_printf(cx, b, "lttng_ust_field_string(%s, a->f_%s)", n, n);
        break;
    default:
        if (l->rec == PG_REC_BYTES)
            hex = "_hex";
        if (l->fixed)
            pg_buf_printf(cx, b, "lttng_ust_field_array%s(%s, %s, a->f_%s, %llu)", hex, storage_type(f), n,
                          n, (unsigned long long)l->fixed_len);
        else
            pg_buf_printf(cx, b, "lttng_ust_field_sequence%s(%s, %s, a->f_%s, uint32_t, a->n_%s)", hex,
                          storage_type(f), n, n, n);
        break;
    }
    pg_buf_puts(cx, b, "\n");
}

static void emit_tp_fields(pg_ctx *cx, pg_buf *b, const pg_provider *p, const pg_template *t)
{
    PG_VEC_EACH(const pg_leaf, l, t->leaves)
        emit_tp_field(cx, b, p, l);
}

/* LTTng connects a call site to a probe when their names and their stringified TP_ARGS match.
 * Every tracepoint takes a pointer to an argument struct, through a typedef whose name carries a
 * hash of the struct's members and the class's fields: a probe provider built from another
 * version of the manifest then fails to connect (LTTng warns) instead of reading arguments of
 * another layout. The struct itself keeps a plain name, the one debuggers show. The typedefs'
 * names, by template index. */
static const char *const *name_arg_types(pg_ctx *cx, const pg_provider *p)
{
    const char **types = pg_zalloc(cx, (p->templates.len + 1) * sizeof(*types));

    PG_VEC_EACH(const pg_template, t, p->templates) {
        pg_buf layout = { 0 };

        emit_arg_members(cx, &layout, t);
        emit_tp_fields(cx, &layout, p, t);
        types[t->index] = pg_printf(cx, "%s_%08x", t->args_name, pg_fnv1a(layout.data, layout.len));
    }
    return types;
}

static void emit_class(pg_ctx *cx, pg_buf *b, const pg_provider *p, const pg_template *t,
                       const char *arg_type)
{
    pg_buf_printf(cx, b, "LTTNG_UST_TRACEPOINT_EVENT_CLASS(%s, %s,\n"
                  "    LTTNG_UST_TP_ARGS(const %s *, a),\n    LTTNG_UST_TP_FIELDS(\n",
                  p->lttng_name, t->class_name, arg_type);
    emit_tp_fields(cx, b, p, t);
    pg_buf_puts(cx, b, "    )\n)\n\n");
}

static void describe_event(pg_ctx *cx, pg_buf *b, const pg_event *e)
{
    pg_put_comment(cx, b, "%s: id %llu, version %llu, level %llu (%s), keywords 0x%llx%s%s%s%s%s%s",
                   e->lttng_name, (unsigned long long)e->value, (unsigned long long)e->version,
                   (unsigned long long)(e->level ? e->level->value : 0),
                   e->level ? e->level->name : "LogAlways", (unsigned long long)e->keywords,
                   e->task ? ", task " : "", e->task ? e->task->name : "",
                   e->opcode ? ", opcode " : "", e->opcode ? e->opcode->name : "",
                   e->tmpl ? ", template " : "", e->tmpl ? e->tmpl->tid : "");
    pg_buf_puts(cx, b, "\n");
}

static void emit_tp_h(pg_ctx *cx, pg_buf *b, const pg_manifest *m, const pg_provider *p)
{
    const char *P = p->lttng_name;
    const char *const *arg_types = name_arg_types(cx, p);

    pg_put_banner(cx, b, m, pg_printf(cx, "LTTng-UST tracepoints of provider %s: one class per template, one event per ETW event.", P));
    pg_buf_printf(cx, b, "#undef LTTNG_UST_TRACEPOINT_PROVIDER\n#define LTTNG_UST_TRACEPOINT_PROVIDER %s\n"
                  "#undef LTTNG_UST_TRACEPOINT_INCLUDE\n#define LTTNG_UST_TRACEPOINT_INCLUDE \"./%s-tp.h\"\n"
                  "#ifndef LTTNG_UST_COMPAT_API_VERSION\n#define LTTNG_UST_COMPAT_API_VERSION 1\n#endif\n\n",
                  P, P);
    pg_buf_printf(cx, b, "#ifndef PALEV_%s_TP_TYPES_H\n#define PALEV_%s_TP_TYPES_H\n"
                  "#include <stddef.h>\n#include <stdint.h>\n\n", P, P);
    if (any_records(p))
        pg_buf_puts(cx, b, "/* Tracepoints take their values in an argument struct, named in LTTNG_UST_TP_ARGS by a typedef\n"
                    " * carrying a hash of its layout: LTTng connects a call site to a probe only when these match,\n"
                    " * so a probe provider built from another version of the manifest does not connect. */\n\n");
    PG_VEC_EACH(const pg_template, t, p->templates)
        if (records(t))
            emit_arg_struct(cx, b, t, arg_types[t->index]);
    pg_buf_printf(cx, b, "#endif\n\n#if !defined(PALEV_%s_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)\n"
                  "#define PALEV_%s_TP_H\n\n#include <lttng/tracepoint.h>\n\n", P, P);
    emit_enums(cx, b, p);
    PG_VEC_EACH(const pg_template, t, p->templates)
        if (records(t))
            emit_class(cx, b, p, t, arg_types[t->index]);
    if (p->uses_empty_class)
        pg_buf_printf(cx, b, "LTTNG_UST_TRACEPOINT_EVENT_CLASS(%s, palev_empty,\n    LTTNG_UST_TP_ARGS(),\n"
                      "    LTTNG_UST_TP_FIELDS()\n)\n\n", P);
    PG_VEC_EACH(const pg_event, e, p->events) {
        describe_event(cx, b, e);
        pg_buf_printf(cx, b, "LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(%s, %s, %s, %s,\n    %s)\n"
                      "LTTNG_UST_TRACEPOINT_LOGLEVEL(%s, %s, LTTNG_UST_TRACEPOINT_LOGLEVEL_%s)\n\n",
                      P, e->class_name, P, e->lttng_name, tp_args(cx, e, arg_types), P, e->lttng_name,
                      pg_loglevel_name(e->loglevel));
    }
    pg_buf_puts(cx, b, "#endif\n\n#include <lttng/tracepoint-event.h>\n");
}

/* ---- <P>-probe.c ------------------------------------------------------------------------------- */

static void emit_probe_c(pg_ctx *cx, const pg_manifest *m, const pg_provider *p, const char *layout,
                         pg_vec *files)
{
    pg_file *file = new_file(cx, files, pg_printf(cx, "%s-probe.c", p->lttng_name));

    pg_put_banner(cx, &file->text, m, pg_printf(cx, "Probe provider of %s: build into lib%s-lttng.so, the only "
                                         "object linking liblttng-ust.", p->lttng_name, p->lttng_name));
    pg_buf_printf(cx, &file->text, "#define LTTNG_UST_TRACEPOINT_CREATE_PROBES\n#include \"%s-tp.h\"\n\n",
                  p->lttng_name);
    pg_buf_printf(cx, &file->text, "/* What %s-tp.h this was built from: libpaleventing looks for it before loading this file,\n"
                  " * and skips a probe provider built from another version of the manifest. */\n"
                  "extern const char palev_layout_%s[];\n"
                  "__attribute__((visibility(\"default\"), used))\n"
                  "const char palev_layout_%s[] = \"%s\";\n", p->lttng_name, p->lttng_name, p->lttng_name,
                  layout);
}

/* ---- <P>-events.h ------------------------------------------------------------------------------ */

/* The positional initialiser of an event's palev_event_descriptor. */
#define DESCRIPTOR_FIELDS "id, version, channel, level, opcode, task, keywords"
static const char *descriptor_init(pg_ctx *cx, const pg_event *e)
{
    return pg_printf(cx, "{ %llu, %llu, %llu, %llu, %llu, %llu, UINT64_C(0x%llx) }",
                     (unsigned long long)e->value, (unsigned long long)e->version,
                     (unsigned long long)(e->channel ? e->channel->value : 0),
                     (unsigned long long)(e->level ? e->level->value : 0),
                     (unsigned long long)(e->opcode ? e->opcode->value : 0),
                     (unsigned long long)(e->task ? e->task->value : 0),
                     (unsigned long long)e->keywords);
}

static void emit_event_stubs(pg_ctx *cx, pg_buf *b, const pg_provider *p, const pg_event *e)
{
    const char *on = pg_usdt_check(cx, e);

    describe_event(cx, b, e);
    pg_usdt_emit_h_event(cx, b, p, e);
    pg_buf_printf(cx, b, "extern struct lttng_ust_tracepoint %s\n"
                  "    __attribute__((visibility(\"hidden\")));\n", e->tp_name);
    pg_put_signature(cx, b, pg_printf(cx, "void %s", e->emit_fn), NULL, 0, e->tmpl);
    pg_buf_puts(cx, b, "\n    __attribute__((cold, noinline, visibility(\"hidden\")));\n\n");
    pg_buf_printf(cx, b, "static inline int %s(void)\n{\n    return %s != 0;\n}\n\n",
                  e->enabled_name, on);
    pg_put_signature(cx, b, pg_printf(cx, "static inline void %s", e->fire_name), NULL, 0, e->tmpl);
    pg_buf_printf(cx, b, "\n{\n    if (%s)\n        %s(%s);\n}\n\n", on, e->emit_fn, pg_args(cx, e->tmpl));
    /* The macro is what callers get: see the comment emit_events_h writes once. */
    if (*pg_args(cx, e->tmpl))
        pg_buf_printf(cx, b, "#define %s(...) \\\n    (%s ? %s(__VA_ARGS__) : (void)0)\n\n",
                      e->fire_name, on, e->emit_fn);
    else    /* no fields: no variadic macro, which C11 and C++17 want one argument for */
        pg_buf_printf(cx, b, "#define %s() \\\n    (%s ? %s() : (void)0)\n\n",
                      e->fire_name, on, e->emit_fn);
    pg_buf_printf(cx, b, "static inline palev_event_descriptor %s(void)\n{\n"
                  "    /* " DESCRIPTOR_FIELDS " */\n    palev_event_descriptor d = %s;\n\n"
                  "    return d;\n}\n\n", e->descriptor_name, descriptor_init(cx, e));
}

/* Said once for every event of the file. */
static void explain_stubs(pg_ctx *cx, pg_buf *b)
{
    pg_buf_puts(cx, b, "/* Per event: EventEnabled<Event>() is true while a session records the event. FireEvent<Event>(...)\n"
                " * records it: a macro over an inline function of the same name; the macro tests the tracepoint's\n"
                " * state before any argument is evaluated (a function's arguments are computed first, loads\n"
                " * included), and (FireEvent<Event>)(...) calls the function, whose address can be taken. Both\n"
                " * call palev_emit_<provider>_<Event>() in <provider>-events.c, which prepares the values and\n"
                " * fires the tracepoint. EventDescriptor<Event>() is the event's ETW identity. A parameter is\n"
                " * its field's name with '_' after (<Field>_, and <Field>_Length_ for a counted type's length),\n"
                " * which the host's macros and typedefs, named like the fields, do not meet; struct members\n"
                " * keep the fields' names. */\n\n");
}

static void emit_events_h(pg_ctx *cx, const pg_manifest *m, const pg_provider *p, pg_vec *files)
{
    pg_file *file = new_file(cx, files, pg_printf(cx, "%s-events.h", p->lttng_name));
    pg_buf *b = &file->text;
    const char *P = p->lttng_name;

    pg_put_banner(cx, b, m, pg_printf(cx, "Events of provider %s: inline EventEnabled<Event>() and FireEvent<Event>().", P));
    pg_buf_printf(cx, b, "#ifndef PALEV_%s_EVENTS_H\n#define PALEV_%s_EVENTS_H\n\n"
                  "#include <paleventing-gen.h>\n#include <lttng/tracepoint-types.h>\n\n"
                  "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", P, P);
    pg_buf_printf(cx, b, "#define PALEV_%s_EVENT_COUNT %zu\n\n", P, p->events.len);
    pg_put_comment(cx, b, "ETW provider \"%s\", registered with libpaleventing by %s-events.c.", p->name, P);
    pg_buf_printf(cx, b, "\nextern const palev_provider palev_provider_%s __attribute__((visibility(\"hidden\")));\n\n",
                  P);
    if (!pg_usdt_emit_provider_enabled(cx, b, p))
        pg_buf_printf(cx, b, "/* Would an ETW session at this level and keyword mask receive an event of %s that a\n"
                      " * running LTTng session has enabled? See palev_provider_is_enabled(). */\n"
                      "static inline int ProviderEnabled%s(uint8_t level, uint64_t keywords)\n{\n"
                      "    return palev_provider_is_enabled(&palev_provider_%s, level, keywords);\n}\n\n",
                      P, P, P);
    pg_usdt_emit_h_prelude(cx, b, p);
    PG_VEC_EACH(const pg_template, t, p->templates)
        if (t->used)
            pg_put_struct_types(cx, b, t);
    explain_stubs(cx, b);
    PG_VEC_EACH(const pg_event, e, p->events)
        emit_event_stubs(cx, b, p, e);
    pg_buf_printf(cx, b, "#ifdef __cplusplus\n}\n#endif\n\n#endif /* PALEV_%s_EVENTS_H */\n", P);
}

/* ---- <P>-events.c ------------------------------------------------------------------------------ */

/* One prepare function being written: counts and lengths taken from fields are computed once,
 * into locals declared at the top; the statements go to body. */
struct prep {
    pg_buf decls, body;
    pg_vec keys;            /* C expressions already given a local */
    pg_vec names;           /* their locals */
};

/* A count or length: a constant, or a local holding the field's value (negative counts as 0). */
static const char *count_expr(pg_ctx *cx, struct prep *pr, const pg_ref *r, const char *prefix)
{
    const char *e;

    if (r->is_const)
        return pg_printf(cx, "%llu", (unsigned long long)r->value);
    e = pg_printf(cx, "%s%s", prefix, r->field->cname);
    for (size_t i = 0; i < pr->keys.len; i++)
        if (!strcmp(pr->keys.items[i], e))
            return pr->names.items[i];
    pg_vec_push(cx, &pr->keys, (void *)e);
    pg_vec_push(cx, &pr->names, pg_printf(cx, "palev_n%zu", pr->names.len));
    pg_buf_printf(cx, &pr->decls, "    const size_t %s = %s > 0 ? (size_t)%s : 0;\n",
                  (const char *)pr->names.items[pr->names.len - 1], e, e);
    return pr->names.items[pr->names.len - 1];
}

static const char *length_expr(pg_ctx *cx, struct prep *pr, const pg_leaf *l)
{
    if (l->f->type->counted)
        return pg_printf(cx, "%s%s", l->prefix, l->f->len_cname);
    if (l->f->length.present)
        return count_expr(cx, pr, &l->f->length, l->prefix);
    return "PALEV_NUL_TERMINATED";
}

#define ARRAY_DESC_FIELDS "/* kind, len_size, stride, offset, len_offset, len_const */"

static const char *elem_kind(const pg_field *f)
{
    switch (f->type->kind) {
    case PG_K_FLOAT: return f->type->size == 4 ? "PALEV_ELEM_FLOAT" : "PALEV_ELEM_DOUBLE";
    case PG_K_UTF16: return "PALEV_ELEM_UTF16";
    case PG_K_ANSI: return "PALEV_ELEM_ANSI";
    case PG_K_GUID: return "PALEV_ELEM_GUID";
    case PG_K_SYSTEMTIME: return "PALEV_ELEM_SYSTEMTIME";
    case PG_K_SID: return "PALEV_ELEM_SID";
    default: return "PALEV_ELEM_BINARY";
    }
}

static const char *elem_ctype(const pg_field *f)
{
    switch (f->type->kind) {
    case PG_K_FLOAT: return f->type->ctype;
    case PG_K_GUID: return "palev_guid";
    case PG_K_SYSTEMTIME: return "palev_systemtime";
    default: return "const void *";
    }
}

/* Scalars: integers are copied, strings converted in the scratch arena, NULL made harmless. */
static void prep_scalar(pg_ctx *cx, struct prep *pr, const pg_leaf *l)
{
    const pg_field *f = l->f;
    const char *n = f->tname, *s = l->src, *amp = f->parent ? "&" : "";
    pg_buf *b = &pr->body;

    pg_buf_printf(cx, b, "    palev_a->f_%s = ", n);
    switch (f->type->kind) {
    case PG_K_INT:
        pg_buf_printf(cx, b, f->type->is_bool ? "%s != 0;\n" : f->type->is_pointer ? "(uintptr_t)%s;\n" : "%s;\n", s);
        break;
    case PG_K_FLOAT:
        pg_buf_printf(cx, b, "%s;\n", s);
        break;
    case PG_K_ANSI:
        if (!f->type->counted && !f->length.present)
            pg_buf_printf(cx, b, "%s ? %s : \"\";\n", s, s);
        else
            pg_buf_printf(cx, b, "palev_scratch_ansi(palev_sc, %s, %s);\n", s, length_expr(cx, pr, l));
        break;
    case PG_K_UTF16:
        pg_buf_printf(cx, b, "palev_scratch_utf16(palev_sc, %s, %s);\n", s, length_expr(cx, pr, l));
        break;
    case PG_K_GUID:
        pg_buf_printf(cx, b, "palev_scratch_guid(palev_sc, %s%s);\n", amp, s);
        break;
    case PG_K_SYSTEMTIME:
        pg_buf_printf(cx, b, "palev_scratch_systemtime(palev_sc, %s%s);\n", amp, s);
        break;
    case PG_K_SID:
        pg_buf_printf(cx, b, "palev_scratch_sid(palev_sc, %s);\n", s);
        break;
    case PG_K_BINARY:
        if (l->fixed) {
            pg_buf_printf(cx, b, "%s ? (const uint8_t *)%s : (const uint8_t *)palev_zeros;\n", s, s);
        } else {
            pg_buf_printf(cx, b, "(const uint8_t *)%s;\n", s);
            pg_buf_printf(cx, b, "    palev_a->n_%s = palev_a->f_%s ? (uint32_t)%s : 0;\n", n, n,
                          length_expr(cx, pr, l));
        }
        break;
    }
}

static void prep_array(pg_ctx *cx, struct prep *pr, const pg_leaf *l)
{
    const pg_field *f = l->f;
    const char *n = f->tname, *s = l->src, *t = storage_type(f);
    /* integer arrays are passed as stored, but for pointers (const void *const *) */
    const char *v = f->type->is_pointer ? pg_printf(cx, "(const %s *)%s", t, s) : s;
    pg_buf *b = &pr->body;

    if (l->rec == PG_REC_JSON) {
        const char *len = length_expr(cx, pr, l), *cnt = count_expr(cx, pr, &f->count, l->prefix);

        pg_buf_printf(cx, b, "    {\n        " ARRAY_DESC_FIELDS "\n        palev_array_desc palev_d = { %s, 0, sizeof(%s), 0, 0, %s };\n\n"
                      "        palev_a->f_%s = palev_scratch_json_array(palev_sc, &palev_d, %s, %s);\n    }\n",
                      elem_kind(f), elem_ctype(f), len, n, s, cnt);
    } else if (l->fixed) {
        pg_buf_printf(cx, b, "    palev_a->f_%s = %s ? %s : (const %s *)palev_zeros;\n", n, s, v, t);
    } else {
        pg_buf_printf(cx, b, "    palev_a->f_%s = %s;\n", n, v);
        pg_buf_printf(cx, b, "    palev_a->n_%s = palev_a->f_%s ? (uint32_t)%s : 0;\n", n, n,
                      count_expr(cx, pr, &f->count, l->prefix));
    }
}

/* Where a JSON element's length is: a counted type's _Length member, a sibling member, or fixed. */
static void json_member_length(pg_ctx *cx, const pg_field *f, const char *S, const char **size,
                               const char **off, const char **fixed)
{
    *size = "0", *off = "0", *fixed = "PALEV_NUL_TERMINATED";
    if (f->type->counted) {
        *size = "2";
        *off = pg_printf(cx, "offsetof(%s, %s)", S, f->len_cname);
    } else if (f->length.present && !f->length.is_const) {
        *size = pg_printf(cx, "sizeof(((const %s *)0)->%s)", S, f->length.field->cname);
        *off = pg_printf(cx, "offsetof(%s, %s)", S, f->length.field->cname);
    } else if (f->length.present) {
        *fixed = pg_printf(cx, "%llu", (unsigned long long)f->length.value);
    }
}

/* Members of an array of structs, gathered into one typed sequence (or JSON array) each. */
static void prep_member(pg_ctx *cx, struct prep *pr, const pg_leaf *l)
{
    const pg_field *f = l->f;
    const char *n = f->tname, *t = storage_type(f), *S = l->arr->struct_type;
    const char *cnt = count_expr(cx, pr, &l->arr->count, l->arr_prefix), *base = l->arr_src;
    pg_buf *b = &pr->body;

    if (l->rec == PG_REC_JSON) {
        const char *lsize, *loff, *lconst;

        json_member_length(cx, f, S, &lsize, &loff, &lconst);
        pg_buf_printf(cx, b, "    {\n        " ARRAY_DESC_FIELDS "\n        palev_array_desc palev_d = { %s, %s, sizeof(%s), offsetof(%s, %s), %s, %s };\n\n"
                      "        palev_a->f_%s = palev_scratch_json_array(palev_sc, &palev_d, %s, %s);\n    }\n",
                      elem_kind(f), lsize, S, S, f->cname, loff, lconst, n, base, cnt);
    } else if (l->rec == PG_REC_NESTED) {
        pg_buf_printf(cx, b, "    {\n        size_t palev_total = 0;\n\n"
                      "        palev_a->f_%s = (const %s *)palev_scratch_gather_nested(palev_sc, %s, %s, sizeof(%s),\n"
                      "            offsetof(%s, %s), offsetof(%s, %s), sizeof(((const %s *)0)->%s), sizeof(%s), &palev_total);\n"
                      "        palev_a->n_%s = (uint32_t)palev_total;\n    }\n", n, t, base, cnt, S, S,
                      f->cname, S, f->count.field->cname, S, f->count.field->cname, t, n);
    } else {
        /* one integer of each element, or its whole array of per_struct integers */
        const char *size = f->count.present ? pg_printf(cx, "sizeof(((const %s *)0)->%s)", S, f->cname)
                                            : pg_printf(cx, "sizeof(%s)", t);

        pg_buf_printf(cx, b, "    palev_a->f_%s = (const %s *)palev_scratch_gather(palev_sc, %s, %s, sizeof(%s),\n"
                      "        offsetof(%s, %s), %s);\n", n, t, base, cnt, S, S, f->cname, size);
        if (l->fixed)
            pg_buf_printf(cx, b, "    if (!palev_a->f_%s)\n        palev_a->f_%s = (const %s *)palev_zeros;\n", n, n, t);
        else if (l->per_struct > 1)
            pg_buf_printf(cx, b, "    palev_a->n_%s = palev_a->f_%s ? (uint32_t)(%s * %lluU) : 0;\n", n, n, cnt,
                          (unsigned long long)l->per_struct);
        else
            pg_buf_printf(cx, b, "    palev_a->n_%s = palev_a->f_%s ? (uint32_t)%s : 0;\n", n, n, cnt);
    }
}

static void emit_prepare(pg_ctx *cx, pg_buf *b, const pg_template *t)
{
    struct prep pr = { 0 };
    const char *lead[] = { pg_printf(cx, "struct %s *palev_a", t->args_name), "palev_scratch *palev_sc" };

    pg_put_signature(cx, b, pg_printf(cx, "static void %s", t->prepare_fn), lead, 2, t);
    pg_buf_puts(cx, b, "\n{\n");
    PG_VEC_EACH(const pg_leaf, l, t->leaves) {
        if (l->arr)
            prep_member(cx, &pr, l);
        else if (l->rec == PG_REC_INTS || l->rec == PG_REC_JSON)
            prep_array(cx, &pr, l);
        else
            prep_scalar(cx, &pr, l);
    }
    /* A NULL struct parameter reads as zeros rather than crashing the host: replaced before
     * anything (the count locals included) reads through it. */
    PG_VEC_EACH(const pg_field, f, t->fields)
        if (f->is_struct && !f->count.present)
            pg_buf_printf(cx, b, "    static %s palev_zero_%s; /* zeros, never written */\n\n    if (!%s)\n        %s = &palev_zero_%s;\n",
                          f->struct_type, f->cname, f->cname, f->cname, f->cname);
    if (pr.decls.len)
        pg_buf_printf(cx, b, "%s\n", pr.decls.data);
    if (!t->needs_scratch)
        pg_buf_puts(cx, b, "    (void)palev_sc;\n");
    pg_buf_puts(cx, b, pr.body.data);
    pg_buf_puts(cx, b, "}\n\n");
}

static void emit_emit_fn(pg_ctx *cx, pg_buf *b, const pg_provider *p, const pg_event *e)
{
    const pg_template *t = e->args;
    int scratch = t && t->needs_scratch;

    pg_put_signature(cx, b, pg_printf(cx, "void %s", e->emit_fn), NULL, 0, e->tmpl);
    pg_buf_puts(cx, b, "\n{\n");
    if (!t) {
        pg_usdt_emit_fire(cx, b, p, e, "");
        pg_buf_printf(cx, b, "    PALEV_STACK_AFTER_EVENT(&palev_provider_%s, %u);\n}\n\n", p->lttng_name, e->index);
        return;
    }
    if (scratch)
        pg_buf_puts(cx, b, "    char palev_stack[PALEV_SCRATCH_STACK_SIZE];\n    palev_scratch palev_sc;\n");
    pg_buf_printf(cx, b, "    struct %s palev_a;\n\n", t->args_name);
    if (scratch)
        pg_buf_puts(cx, b, "    palev_scratch_init(&palev_sc, palev_stack, sizeof(palev_stack));\n");
    pg_buf_printf(cx, b, "    %s(&palev_a, %s, %s);\n", t->prepare_fn, scratch ? "&palev_sc" : "NULL",
                  pg_args(cx, t));
    pg_usdt_emit_fire(cx, b, p, e, ", &palev_a");
    if (scratch)
        pg_buf_puts(cx, b, "    palev_scratch_fini(&palev_sc);\n");
    /* A Stack event after the event, while a session records Paleventing:Stack (docs/stacks.md). */
    pg_buf_printf(cx, b, "    PALEV_STACK_AFTER_EVENT(&palev_provider_%s, %u);\n}\n\n", p->lttng_name, e->index);
}

/* The largest array recorded with a constant size: a NULL pointer there reads as zeros. */
static uint64_t zeros_needed(const pg_provider *p)
{
    uint64_t max = 0;

    PG_VEC_EACH(const pg_template, t, p->templates) {
        if (!t->used)
            continue;
        PG_VEC_EACH(const pg_leaf, l, t->leaves) {
            uint64_t size = l->f->type->kind == PG_K_INT ? l->f->type->size : 1;

            if (l->fixed && l->fixed_len * size > max)
                max = l->fixed_len * size;
        }
    }
    return max;
}

/* Events grouped by keyword bit (group 64: no keywords), so that ProviderEnabled<P>() reads the
 * states of the events a keyword mask can select, not of all events. */
static void emit_keyword_index(pg_ctx *cx, pg_buf *b, const pg_provider *p)
{
    uint32_t start[66], n = 0;

    pg_buf_printf(cx, b, "static const uint32_t palev_keyword_events_%s[] = {", p->lttng_name);
    for (int bit = 0; bit <= 64; bit++) {
        start[bit] = n;
        PG_VEC_EACH(const pg_event, e, p->events) {
            if (bit < 64 ? !(e->keywords >> bit & 1) : e->keywords != 0)
                continue;
            pg_buf_printf(cx, b, "%s%s%u", n ? "," : "", n % 16 ? " " : "\n    ", e->index);
            n++;
        }
    }
    start[65] = n;
    pg_buf_printf(cx, b, "%s};\n\nstatic const uint32_t palev_keyword_start_%s[66] = {", n ? "\n" : " 0 ",
                  p->lttng_name);
    for (int i = 0; i < 66; i++)
        pg_buf_printf(cx, b, "%s%s%u", i ? "," : "", i % 16 ? " " : "\n    ", start[i]);
    pg_buf_puts(cx, b, "\n};\n\n");
}

static void emit_registration(pg_ctx *cx, pg_buf *b, const pg_provider *p, const char *layout)
{
    const char *P = p->lttng_name;

    pg_buf_printf(cx, b, "/* { " DESCRIPTOR_FIELDS " } */\n"
                  "static const palev_event_descriptor palev_events_%s[] = {\n", P);
    PG_VEC_EACH(const pg_event, e, p->events)
        pg_buf_printf(cx, b, "    %s,\n", descriptor_init(cx, e));
    pg_buf_printf(cx, b, "};\n\nstatic const char *const palev_event_names_%s[] = {\n", P);
    PG_VEC_EACH(const pg_event, e, p->events)
        pg_buf_printf(cx, b, "    \"%s\",\n", e->lttng_name);
    pg_buf_printf(cx, b, "};\n\nstatic const int *const palev_event_states_%s[] = {\n", P);
    PG_VEC_EACH(const pg_event, e, p->events)
        pg_buf_printf(cx, b, "    &%s,\n", e->tp_state);
    pg_buf_puts(cx, b, "};\n\n");
    emit_keyword_index(cx, b, p);
    pg_buf_printf(cx, b, "const palev_provider palev_provider_%s = {\n    sizeof(palev_provider), /* struct_size */\n"
                  "    \"%s\", /* name */\n    ", P, P);
    pg_put_c_string(cx, b, p->name);
    pg_buf_printf(cx, b, ", /* etw_name */\n    { 0x%08xU, 0x%04x, 0x%04x, { ", p->guid_d1, p->guid_d2, p->guid_d3);
    for (int i = 0; i < 8; i++)
        pg_buf_printf(cx, b, "0x%02x%s", p->guid_d4[i], i < 7 ? ", " : " } }, /* guid */\n");
    pg_buf_printf(cx, b, "    %zu, /* event_count */\n    palev_events_%s, /* events */\n"
                  "    palev_event_names_%s, /* event_names */\n    palev_event_states_%s, /* event_states */\n"
                  "    palev_keyword_events_%s, /* keyword_events */\n    palev_keyword_start_%s, /* keyword_start */\n"
                  "    \"%s\", /* layout */\n    PALEV_ABI_VERSION, /* abi_version */\n};\n\n",
                  p->events.len, P, P, P, P, P, layout);
    pg_buf_printf(cx, b, "/* Load lib%s-lttng.so at start-up, so a host that never calls palev_init() traces. */\n"
                  "static void __attribute__((constructor)) palev_register_%s(void)\n{\n"
                  "    (void)palev_provider_register(&palev_provider_%s);\n}\n", P, P, P);
}

static void emit_events_c(pg_ctx *cx, const pg_manifest *m, const pg_provider *p, const char *layout,
                          pg_vec *files)
{
    pg_file *file = new_file(cx, files, pg_printf(cx, "%s-events.c", p->lttng_name));
    pg_buf *b = &file->text;
    const char *P = p->lttng_name;
    uint64_t zeros = zeros_needed(p);

    pg_put_banner(cx, b, m, pg_printf(cx, "Call sites of provider %s, linked into the host (never -llttng-ust): "
                               "the probes come from lib%s-lttng.so.", P, P));
    pg_buf_printf(cx, b, "#define LTTNG_UST_TRACEPOINT_DEFINE\n#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE\n"
                  "#define LTTNG_UST_TRACEPOINT_HIDDEN_DEFINITION\n"
                  "/* the stubs' declarations first: in C++ they give the tracepoints C linkage */\n"
                  "#include \"%s-events.h\"\n#include \"%s-tp.h\"\n\n#include <stddef.h>\n\n", P, P);
    if (zeros)
        pg_buf_printf(cx, b, "/* What a NULL fixed-size array records. */\nstatic uint64_t palev_zeros[%llu];\n\n",
                      (unsigned long long)((zeros + 7) / 8));
    pg_usdt_emit_c_prelude(cx, b, p);
    PG_VEC_EACH(const pg_template, t, p->templates)
        if (records(t))
            emit_prepare(cx, b, t);
    PG_VEC_EACH(const pg_event, e, p->events)
        emit_emit_fn(cx, b, p, e);
    emit_registration(cx, b, p, layout);
    pg_usdt_emit_c_tail(cx, b, p);
}

/* The probe provider and the call sites must come from one <P>-tp.h: the hash of its exact text
 * names it (in <P>-probe.c and in the descriptor <P>-events.c registers), so what is hashed
 * cannot differ from what is compiled. */
void pg_emit_provider(pg_ctx *cx, const pg_manifest *m, const pg_provider *p, pg_vec *files)
{
    pg_file *tp_h = new_file(cx, files, pg_printf(cx, "%s-tp.h", p->lttng_name));
    const char *layout;

    emit_tp_h(cx, &tp_h->text, m, p);
    layout = pg_printf(cx, "palev-layout:%s:%08x", p->lttng_name, pg_fnv1a(tp_h->text.data, tp_h->text.len));
    emit_probe_c(cx, m, p, layout, files);
    emit_events_h(cx, m, p, files);
    emit_events_c(cx, m, p, layout, files);
}
