/* SPDX-License-Identifier: MIT */
/* generate --usdt: every event also a USDT probe <P>:<Event> (sys/sdt.h) with a semaphore. */
#include "usdt.h"

#include <string.h>

/* sys/sdt.h takes at most 12 arguments on x86-64. */
#define USDT_MAX_ARGS 12

/* One probe argument: the C expression the emit function passes, the field it comes from, its
 * type as tools read it. */
typedef struct usdt_arg {
    const char *expr;
    const char *name;
    const char *type;       /* for the comment in <P>-events.h */
    const char *brief;      /* for usdt-args: one word */
    unsigned float_bits;    /* a float passed as its bits: 32 or 64 */
} usdt_arg;

static usdt_arg *add_arg(pg_ctx *cx, pg_vec *args, const char *expr, const char *name, const char *type,
                         const char *brief)
{
    usdt_arg *a = pg_zalloc(cx, sizeof(*a));

    a->expr = expr, a->name = name, a->type = type, a->brief = brief;
    pg_vec_push(cx, args, a);
    return a;
}

/* Arguments a leaf takes: arrays are a pointer and a count, everything else one value. */
static size_t leaf_width(const pg_leaf *l)
{
    return l->rec == PG_REC_INT || l->rec == PG_REC_FLOAT || l->rec == PG_REC_STRING ||
                   l->rec == PG_REC_JSON ? 1 : 2;
}

static const char *elem_type(const pg_field *f)
{
    return f->type->kind == PG_K_INT ? f->type->ctype : "uint8_t";
}

static const char *int_type(pg_ctx *cx, const pg_field *f)
{
    if (f->type->is_bool)
        return "int32_t (0 or 1)";
    if (f->map)
        return pg_printf(cx, "%s (valueMap %s)", f->type->ctype, f->map->name);
    return f->type->ctype;
}

/* The values the prepare function left in palev_a, as the LTTng fields record them. Floats go as
 * their IEEE-754 bits: bpftrace and BCC do not parse sys/sdt.h's float operands ("8f@"). */
static void leaf_args(pg_ctx *cx, const pg_leaf *l, pg_vec *args)
{
    const char *n = l->f->tname, *v = pg_printf(cx, "palev_a.f_%s", n);
    unsigned bits = l->f->type->size * 8;

    switch (l->rec) {
    case PG_REC_INT:
        add_arg(cx, args, v, n, int_type(cx, l->f), l->f->type->is_bool ? "int32_t" : l->f->type->ctype);
        break;
    case PG_REC_FLOAT:
        add_arg(cx, args, pg_printf(cx, "palev_usdt_bits%u(%s)", bits, v), n,
                pg_printf(cx, "uint%u_t (IEEE-754 bits of a %s)", bits, bits == 32 ? "float" : "double"),
                pg_printf(cx, "float%u-bits", bits))->float_bits = bits;
        break;
    case PG_REC_STRING:
        add_arg(cx, args, v, n, "const char * (UTF-8)", "string");
        break;
    case PG_REC_JSON:
        add_arg(cx, args, v, n, "const char * (JSON array)", "json");
        break;
    default:
        add_arg(cx, args, v, n, pg_printf(cx, "const %s *", elem_type(l->f)), pg_printf(cx, "%s*", elem_type(l->f)));
        add_arg(cx, args, l->fixed ? pg_printf(cx, "%lluU", (unsigned long long)l->fixed_len) :
                                 pg_printf(cx, "palev_a.n_%s", n),
                pg_printf(cx, "%s_count", n), "uint32_t (elements)", "uint32_t");
        break;
    }
}

/* The probe's arguments in field order; when they do not fit in 12, the fields that fit in 11
 * and then a pointer to the whole argument struct. */
static void event_args(pg_ctx *cx, const pg_event *e, pg_vec *args)
{
    size_t need = 0, used = 0;

    if (!e->args)
        return;
    PG_VEC_EACH(const pg_leaf, l, e->args->leaves)
        need += leaf_width(l);
    PG_VEC_EACH(const pg_leaf, l, e->args->leaves) {
        if (need > USDT_MAX_ARGS && used + leaf_width(l) > USDT_MAX_ARGS - 1)
            break;
        leaf_args(cx, l, args);
        used += leaf_width(l);
    }
    if (need > USDT_MAX_ARGS)
        add_arg(cx, args, "&palev_a", "args", pg_printf(cx, "const struct %s * (every field, %s-tp.h)",
                e->args->args_name, e->provider->lttng_name), "struct*");
}

const char *pg_usdt_check(pg_ctx *cx, const pg_event *e)
{
    if (!e->provider->usdt)
        return pg_printf(cx, "PALEV_TP_STATE_ENABLED(%s)", e->tp_state);
    return pg_printf(cx, "PALEV_TP_OR_USDT(%s, %s)", e->tp_state, e->semaphore);
}

/* ---- <P>-events.h ------------------------------------------------------------------------------ */

void pg_usdt_emit_h_prelude(pg_ctx *cx, pg_buf *b, const pg_provider *p)
{
    if (!p->usdt)
        return;
    pg_buf_puts(cx, b, "/* generate --usdt: each event is also the USDT probe <provider>:<event>. A tool that attaches\n"
                " * (bpftrace, BCC, perf probe, SystemTap) raises its semaphore; FireEvent<Event>() calls out when\n"
                " * an LTTng session records the event OR the semaphore is up, with one branch\n"
                " * (PALEV_TP_OR_USDT, paleventing-gen.h). */\n\n");
}

int pg_usdt_emit_provider_enabled(pg_ctx *cx, pg_buf *b, const pg_provider *p)
{
    const char *P = p->lttng_name;

    if (!p->usdt)
        return 0;
    pg_buf_printf(cx, b, "int palev_usdt_provider_enabled_%s(uint8_t level, uint64_t keywords)\n"
                  "    __attribute__((visibility(\"hidden\")));\n\n"
                  "/* Would an ETW session at this level and keyword mask receive an event of %s that a\n"
                  " * running LTTng session has enabled (palev_provider_is_enabled()), or that a USDT tool\n"
                  " * attached to (the same rule over the probes' semaphores)? */\n"
                  "static inline int ProviderEnabled%s(uint8_t level, uint64_t keywords)\n{\n"
                  "    return palev_provider_is_enabled(&palev_provider_%s, level, keywords) ||\n"
                  "           palev_usdt_provider_enabled_%s(level, keywords);\n}\n\n", P, P, P, P, P);
    return 1;
}

/* Declares the semaphore and says what the probe's arguments are. */
void pg_usdt_emit_h_event(pg_ctx *cx, pg_buf *b, const pg_provider *p, const pg_event *e)
{
    pg_vec args = { 0 };
    size_t i = 0;

    if (!p->usdt)
        return;
    event_args(cx, e, &args);
    pg_buf_printf(cx, b, "/* USDT probe %s:%s (perf: sdt_%s:%s)%s\n", p->lttng_name, e->lttng_name,
                  p->lttng_name, e->lttng_name, args.len ? ", arguments:" : ", no arguments");
    PG_VEC_EACH(const usdt_arg, a, args) {
        pg_buf_printf(cx, b, " *   arg%zu  %s: ", i++, a->name);
        pg_put_comment_text(cx, b, a->type);    /* names a valueMap */
        pg_buf_puts(cx, b, "\n");
    }
    pg_buf_printf(cx, b, " */\nextern unsigned short %s __attribute__((visibility(\"hidden\")));\n",
                  e->semaphore);
}

/* ---- <P>-events.c ------------------------------------------------------------------------------ */

static int uses_float(pg_ctx *cx, const pg_provider *p, unsigned bits)
{
    PG_VEC_EACH(const pg_event, e, p->events) {
        pg_vec args = { 0 };

        event_args(cx, e, &args);
        PG_VEC_EACH(const usdt_arg, a, args)
            if (a->float_bits == bits)
                return 1;
    }
    return 0;
}

void pg_usdt_emit_c_prelude(pg_ctx *cx, pg_buf *b, const pg_provider *p)
{
    if (!p->usdt)
        return;
    pg_buf_puts(cx, b, "/* USDT probes: the semaphores live in .probes, written data the kernel's uprobe reference\n"
                " * counters find in the file; each probe's note names its semaphore. */\n"
                "#define _SDT_HAS_SEMAPHORES 1\n#include <sys/sdt.h>\n#include <string.h>\n\n");
    PG_VEC_EACH(const pg_event, e, p->events)
        pg_buf_printf(cx, b, "__extension__ unsigned short %s\n"
                      "    __attribute__((used, section(\".probes\"), visibility(\"hidden\")));\n",
                      e->semaphore);
    pg_buf_puts(cx, b, "\n");
    if (uses_float(cx, p, 32))
        pg_buf_puts(cx, b, "static uint32_t palev_usdt_bits32(float v)\n{\n    uint32_t u;\n\n"
                    "    memcpy(&u, &v, sizeof(u));\n    return u;\n}\n\n");
    if (uses_float(cx, p, 64))
        pg_buf_puts(cx, b, "static uint64_t palev_usdt_bits64(double v)\n{\n    uint64_t u;\n\n"
                    "    memcpy(&u, &v, sizeof(u));\n    return u;\n}\n\n");
}

/* The tracepoint records only when LTTng enabled it; the probe fires only while its semaphore is
 * up. Either may be what brought the caller here. */
void pg_usdt_emit_fire(pg_ctx *cx, pg_buf *b, const pg_provider *p, const pg_event *e,
                       const char *tp_args)
{
    pg_vec args = { 0 };

    if (!p->usdt) {
        pg_buf_printf(cx, b, "    lttng_ust_do_tracepoint(%s, %s%s);\n", p->lttng_name, e->lttng_name, tp_args);
        return;
    }
    event_args(cx, e, &args);
    pg_buf_printf(cx, b, "    if (PALEV_TP_STATE_ENABLED(%s))\n        lttng_ust_do_tracepoint(%s, %s%s);\n",
                  e->tp_state, p->lttng_name, e->lttng_name, tp_args);
    pg_buf_printf(cx, b, "    if (PALEV_USDT_ACTIVE(%s))\n", e->semaphore);
    if (!args.len) {
        pg_buf_printf(cx, b, "        STAP_PROBE(%s, %s);\n", p->lttng_name, e->lttng_name);
        return;
    }
    pg_buf_printf(cx, b, "        STAP_PROBE%zu(%s, %s", args.len, p->lttng_name, e->lttng_name);
    PG_VEC_EACH(const usdt_arg, a, args)
        pg_buf_printf(cx, b, ",%s%s", a_i % 4 ? " " : "\n            ", a->expr);
    pg_buf_puts(cx, b, ");\n");
}

/* palev_provider_is_enabled()'s rule (pal/keywords.c) with semaphores for states: the events
 * without keywords, then those of each keyword bit asked for, at the level asked for. */
void pg_usdt_emit_c_tail(pg_ctx *cx, pg_buf *b, const pg_provider *p)
{
    const char *P = p->lttng_name;

    if (!p->usdt)
        return;
    pg_buf_printf(cx, b, "\nstatic const unsigned short *const palev_usdt_semaphores_%s[] = {\n", P);
    PG_VEC_EACH(const pg_event, e, p->events)
        pg_buf_printf(cx, b, "    &%s,\n", e->semaphore);
    pg_buf_printf(cx, b, "};\n\nstatic int palev_usdt_group_%s(int group, uint8_t level)\n{\n"
                  "    for (uint32_t k = palev_keyword_start_%s[group]; k < palev_keyword_start_%s[group + 1]; k++) {\n"
                  "        uint32_t i = palev_keyword_events_%s[k];\n\n"
                  "        if ((level == 0 || palev_events_%s[i].level <= level) &&\n"
                  "            *(const volatile unsigned short *)palev_usdt_semaphores_%s[i])\n"
                  "            return 1;\n    }\n    return 0;\n}\n\n", P, P, P, P, P, P);
    pg_buf_printf(cx, b, "int palev_usdt_provider_enabled_%s(uint8_t level, uint64_t keywords)\n{\n"
                  "    if (palev_usdt_group_%s(64, level))\n        return 1;\n"
                  "    for (uint64_t rest = keywords; rest; rest &= rest - 1)\n"
                  "        if (palev_usdt_group_%s(__builtin_ctzll(rest), level))\n            return 1;\n"
                  "    return 0;\n}\n", P, P, P);
}

/* ---- palev-gen usdt-args ----------------------------------------------------------------------- */

void pg_usdt_list(pg_ctx *cx, const pg_manifest *m, pg_buf *out)
{
    PG_VEC_EACH(const pg_provider, p, m->providers) {
        PG_VEC_EACH(const pg_event, e, p->events) {
            pg_vec args = { 0 };
            size_t i = 0;

            event_args(cx, e, &args);
            pg_buf_printf(cx, out, "%s:%s", p->lttng_name, e->lttng_name);
            PG_VEC_EACH(const usdt_arg, a, args)
                pg_buf_printf(cx, out, " arg%zu:%s:%s", i++, a->name, a->brief);
            pg_buf_puts(cx, out, "\n");
        }
    }
}
