/* SPDX-License-Identifier: MIT */
/* pg_lower: after checking, compute once what every emitter reads, so that they take a const model. */
#include "lower.h"

#include <stdlib.h>
#include <string.h>

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
    pg_template_leaves(cx, t, &t->leaves);
    t->needs_scratch = pg_template_needs_scratch(t);
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
    e->semaphore = pg_printf(cx, "%s_%s_semaphore", P, E);
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

static void lower_names(pg_ctx *cx, pg_provider *p)
{
    PG_VEC_EACH(pg_template, t, p->templates)
        lower_template(cx, p, t);
    PG_VEC_EACH(pg_event, e, p->events)
        lower_event(cx, p, e);
    PG_VEC_EACH(pg_map, map, p->maps)
        PG_VEC_EACH(pg_enum, en, map->enums)
            en->sample = pick_sample(cx, en);
    p->uses_bool_enum = uses_bool_enum(p);
}

/* ---- layouts ----------------------------------------------------------------------------------- */

/* LTTng connects a call site to a probe when their names and their stringified TP_ARGS match.
 * Every tracepoint takes a pointer to an argument struct, through a typedef whose name carries a
 * hash of the struct's layout and fields: a probe provider built from another version of the
 * manifest then fails to connect (LTTng warns) instead of reading arguments of another layout.
 * The struct itself keeps a plain name, the one debuggers show. */
static void name_arg_structs(pg_ctx *cx, const pg_provider *p)
{
    PG_VEC_EACH(pg_template, t, p->templates) {
        pg_buf layout = { 0 };

        pg_emit_tp_template(cx, p, t, &layout);
        t->args_type = pg_printf(cx, "%s_%08x", t->args_name, pg_fnv1a(layout.data, layout.len));
    }
}

/* The probe provider and the call sites must come from one <P>-tp.h: the hash of its exact text
 * names it. The text is rendered here, once, and written as is by pg_emit_provider, so what is
 * hashed cannot differ from what is compiled (a description of the inputs would have to follow
 * every change of the emitter). */
static void name_layout(pg_ctx *cx, const pg_manifest *m, pg_provider *p)
{
    pg_emit_tp_h(cx, m, p, &p->tp_h);
    p->layout = pg_printf(cx, "palev-layout:%s:%08x", p->lttng_name, pg_fnv1a(p->tp_h.data, p->tp_h.len));
}

unsigned pg_lower(pg_ctx *cx, pg_manifest *m)
{
    unsigned before = pg_error_count(cx);

    PG_VEC_EACH(pg_provider, p, m->providers)
        lower_names(cx, p);
    pg_check_c_names(cx, m);
    if (pg_error_count(cx) != before)
        return pg_error_count(cx) - before;
    PG_VEC_EACH(pg_provider, p, m->providers) {
        name_arg_structs(cx, p);
        name_layout(cx, m, p);
    }
    return 0;
}
