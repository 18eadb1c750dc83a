/* SPDX-License-Identifier: MIT */
/* pg_lower: after checking, decide once what every emitter reads (the trace fields of each
 * template, enum samples, every generated C name), so that the emitters take a const model. */
#include "lower.h"

#include <stdlib.h>
#include <string.h>

/* ---- leaves: manifest fields as LTTng trace fields (docs/manifest.md, types) ------------------ */

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

void pg_leaf_form(const pg_field *f, const pg_field *arr, pg_leaf *l)
{
    l->fixed = 0, l->fixed_len = 0, l->per_struct = 0;
    if (arr) {
        /* an integer array of constant size is held in the struct: gathered with the scalars */
        l->rec = f->count.present && !f->count.is_const ? PG_REC_NESTED : is_int(f) ? PG_REC_INTS
                                                                                   : PG_REC_JSON;
        l->per_struct = f->count.present ? f->count.value : 1;
        if (l->rec == PG_REC_INTS && arr->count.is_const)
            l->fixed = 1, l->fixed_len = arr->count.value * l->per_struct;
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
}

int pg_leaf_is_sequence(const pg_leaf *l)
{
    return (l->rec == PG_REC_BYTES || l->rec == PG_REC_INTS || l->rec == PG_REC_NESTED) && !l->fixed;
}

static void add_leaf(pg_ctx *cx, const pg_field *f, const struct scope *sc, pg_vec *leaves)
{
    pg_leaf *l = pg_zalloc(cx, sizeof(*l));

    l->f = f;
    l->arr = sc->arr;
    l->prefix = sc->prefix;
    l->arr_src = sc->arr_src;
    l->arr_prefix = sc->arr_prefix;
    l->src = pg_printf(cx, "%s%s", sc->prefix, f->cname);
    pg_leaf_form(f, sc->arr, l);
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

static void template_leaves(pg_ctx *cx, pg_template *t)
{
    struct scope top = { NULL, NULL, NULL, "" };

    walk(cx, &t->fields, &top, &t->leaves);
}

/* Does recording the template (its leaves) need the scratch arena? */
static int needs_scratch(const pg_template *t)
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

/* ---- enum samples ------------------------------------------------------------------------------ */

struct ranked {
    uint64_t value;
    size_t index;           /* position in the enum's values */
};

static int by_value(const void *a, const void *b)
{
    uint64_t x = ((const struct ranked *)a)->value, y = ((const struct ranked *)b)->value;

    return x < y ? -1 : x > y;
}

/* The enum value the selftest fires: one only a single label has, negative if there is one (the
 * sign extension of hex map values is then seen in the trace). Sorting finds the values held by
 * one entry alone in O(n log n): a valueMap may have tens of thousands of entries. */
static const pg_enum_value *pick_sample(pg_ctx *cx, const pg_enum *en)
{
    size_t n = en->values.len;
    struct ranked *r = pg_zalloc(cx, n * sizeof(*r));
    char *unique = pg_zalloc(cx, n);
    const pg_enum_value *pick = NULL;

    for (size_t i = 0; i < n; i++)
        r[i] = (struct ranked){ ((const pg_enum_value *)en->values.items[i])->value, i };
    qsort(r, n, sizeof(*r), by_value);
    for (size_t i = 0; i < n; i++)
        unique[r[i].index] = (i == 0 || r[i - 1].value != r[i].value) &&
                             (i + 1 == n || r[i + 1].value != r[i].value);
    PG_VEC_EACH(const pg_enum_value, v, en->values) {
        if (!unique[v_i])
            continue;
        if (!pick)
            pick = v;
        if (en->is_signed && (int64_t)v->value < 0)
            return v;
    }
    return pick;
}

/* ---- names --------------------------------------------------------------------------------------- */

static void name_struct_types(pg_ctx *cx, const pg_provider *p, const pg_template *t, const pg_vec *fields)
{
    PG_VEC_EACH(pg_field, f, *fields) {
        if (!f->is_struct)
            continue;
        f->struct_type = pg_printf(cx, "%s_%s_%s", p->lttng_name, t->ident, f->tname);
        name_struct_types(cx, p, t, &f->members);
    }
}

static void lower_template(pg_ctx *cx, const pg_provider *p, pg_template *t)
{
    template_leaves(cx, t);
    t->needs_scratch = needs_scratch(t);
    t->class_name = pg_printf(cx, "palev_tmpl_%s", t->ident);
    t->prepare_fn = pg_printf(cx, "palev_prepare_%s", t->ident);
    t->args_name = pg_printf(cx, "palev_args_%s_%s", p->lttng_name, t->ident);
    name_struct_types(cx, p, t, &t->fields);
}

static void lower_event(pg_ctx *cx, pg_provider *p, pg_event *e)
{
    const char *P = p->lttng_name, *E = e->lttng_name;

    e->fire_name = pg_printf(cx, "FireEvent%s", e->cname);
    e->enabled_name = pg_printf(cx, "EventEnabled%s", e->cname);
    e->descriptor_name = pg_printf(cx, "EventDescriptor%s", e->cname);
    e->emit_fn = pg_printf(cx, "palev_emit_%s_%s", P, E);
    e->tp_name = pg_printf(cx, "lttng_ust_tracepoint_%s___%s", P, E);
    e->tp_state = pg_printf(cx, "%s.state", e->tp_name);
    e->semaphore = p->usdt ? pg_printf(cx, "%s_%s_semaphore", P, E) : NULL;
    e->args = e->tmpl && e->tmpl->leaves.len ? e->tmpl : NULL;
    e->class_name = e->args ? e->args->class_name : "palev_empty";
    p->uses_empty_class |= !e->args;
}

/* Only scalar bools are enums: arrays and struct members stay integers. */
static int uses_bool_enum(const pg_provider *p)
{
    PG_VEC_EACH(const pg_template, t, p->templates) {
        if (!t->used)
            continue;
        PG_VEC_EACH(const pg_leaf, l, t->leaves)
            if (l->rec == PG_REC_INT && l->f->type->is_bool)
                return 1;
    }
    return 0;
}

static void lower_provider(pg_ctx *cx, pg_provider *p, const pg_options *opt)
{
    p->usdt = opt && opt->usdt;
    PG_VEC_EACH(pg_template, t, p->templates)
        lower_template(cx, p, t);
    PG_VEC_EACH(pg_event, e, p->events)
        lower_event(cx, p, e);
    PG_VEC_EACH(pg_map, map, p->maps)
        PG_VEC_EACH(pg_enum, en, map->enums)
            en->sample = pick_sample(cx, en);
    p->uses_bool_enum = uses_bool_enum(p);
}

unsigned pg_lower(pg_ctx *cx, pg_manifest *m, const pg_options *opt)
{
    unsigned before = pg_error_count(cx);

    PG_VEC_EACH(pg_provider, p, m->providers)
        lower_provider(cx, p, opt);
    pg_check_c_names(cx, m);
    return pg_error_count(cx) - before;
}
