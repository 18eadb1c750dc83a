/* SPDX-License-Identifier: MIT */
/* Dynamic events: the write path, and the probe that fills LTTng-UST's ring buffer. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include <urcu/system.h>

#include "dynamic.h"

static const palev_guid zero_guid;

/* ---- preparing values: every conversion once, whatever the number of sessions ------------- */

static const char *float_array(palev_scratch *sc, const struct palev__dfield *f,
                               const palev_value *v)
{
    palev_array_desc d = {
        .kind = f->type == PALEV_TYPE_FLOAT ? PALEV_ELEM_FLOAT : PALEV_ELEM_DOUBLE,
        .stride = f->size,
    };

    return palev_scratch_json_array(sc, &d, v->v.p, v->len);
}

static const char *text_of(palev_scratch *sc, const struct palev__dfield *f, const palev_value *v)
{
    switch (f->type) {
    case PALEV_TYPE_STRING:
        return palev_scratch_ansi(sc, v->v.s, v->len);
    case PALEV_TYPE_STRING16:
        return palev_scratch_utf16(sc, v->v.s16, v->len);
    case PALEV_TYPE_GUID:
        return palev_scratch_guid(sc, v->v.guid ? v->v.guid : &zero_guid);
    default:
        return float_array(sc, f, v);
    }
}

static void prepare(palev_scratch *sc, const struct palev__dfield *f, const palev_value *v,
                    struct palev__prep *p)
{
    switch (f->wk) {
    case PALEV__WK_INT:
        p->v.u = f->type == PALEV_TYPE_BOOL ? v->v.u != 0 : v->v.u;
        break;
    case PALEV__WK_FLOAT:
        p->v.f = (float)v->v.d;
        break;
    case PALEV__WK_DOUBLE:
        p->v.d = v->v.d;
        break;
    case PALEV__WK_STRING:
        p->p = text_of(sc, f, v);
        p->n = strlen(p->p) + 1;
        break;
    default:
        /* Sequences hold at most UINT32_MAX elements: more are cut there. */
        p->n = v->v.p ? (v->len > UINT32_MAX ? UINT32_MAX : v->len) : 0;
        p->p = v->v.p;
        break;
    }
}

/* The call site's part of lttng_ust_tracepoint(): every probe connected to the event, under
 * LTTng-UST's tracepoint RCU, so that a session going away (or an undefine) waits for us. */
typedef void probe_fn(void *data, const struct palev_event *ev, const struct palev__prep *v);

static void call_probes(const struct palev_event *ev, const struct palev__prep *prep)
{
    struct lttng_ust_tracepoint_probe *probes;

    palev__ust.rcu_read_lock();
    probes = palev__ust.rcu_dereference(CMM_LOAD_SHARED(ev->tp.probes));
    if (probes) {
        do {
            ((probe_fn *)(void *)probes->func)(probes->data, ev, prep);
        } while ((++probes)->func);
        /* Its call stack while a session records Paleventing:Stack (docs/stacks.md), in the same
         * read-side section: once palev_event_undefine_provider() has returned (its grace
         * period waits for this section), neither the event nor its stack is recorded. */
        palev__stack_after_event(ev->tp.provider_name, ev->tp.event_name);
    }
    palev__ust.rcu_read_unlock();
}

static int fire(const struct palev_event *ev, const palev_value *values)
{
    struct palev__prep prep[PALEV_EVENT_MAX_FIELDS];
    char stack[PALEV_SCRATCH_STACK_SIZE];
    palev_scratch sc;

    palev_scratch_init(&sc, stack, sizeof(stack));
    for (size_t i = 0; i < ev->field_count; i++)
        prepare(&sc, &ev->fields[i], &values[i], &prep[i]);
    call_probes(ev, prep);
    palev_scratch_fini(&sc);
    return 0;
}

__attribute__((noinline)) static int write_values(const palev_event *ev, const palev_value *values, size_t count)
{
    if (count != ev->field_count || (count && !values))
        return -EINVAL;
    return fire(ev, values);
}

#define ENABLED(ev) __builtin_expect(CMM_LOAD_SHARED((ev)->tp.state), 0)

PALEV_API int palev_event_write(const palev_event *ev, const palev_value *values, size_t count)
{
    if (__builtin_expect(!ev, 0))
        return -EINVAL;
    if (!ENABLED(ev))
        return 0;
    return write_values(ev, values, count);
}

/* One varargs argument (or two, for arrays) into a palev_value, by the field's argument kind
 * (decided at definition). */
static void arg_value(const struct palev__dfield *f, va_list *ap, palev_value *v)
{
    v->len = PALEV_NUL_TERMINATED;
    switch (f->arg) {
    case PALEV__ARG_INT:
        v->v.i = va_arg(*ap, int);
        break;
    case PALEV__ARG_UINT:
        v->v.u = va_arg(*ap, unsigned);
        break;
    case PALEV__ARG_U64:
        v->v.u = va_arg(*ap, uint64_t);
        break;
    case PALEV__ARG_DOUBLE:
        v->v.d = va_arg(*ap, double);
        break;
    case PALEV__ARG_PTR:
        v->v.p = va_arg(*ap, const void *);
        break;
    default:    /* PALEV__ARG_ARRAY: the elements and their count */
        v->v.p = va_arg(*ap, const void *);
        v->len = va_arg(*ap, size_t);
        break;
    }
}

/* Not cold (GCC would optimise it for size): only out of line, behind the state check. */
__attribute__((noinline)) static int write_args(const palev_event *ev, va_list *ap)
{
    palev_value values[PALEV_EVENT_MAX_FIELDS];

    for (size_t i = 0; i < ev->field_count; i++)
        arg_value(&ev->fields[i], ap, &values[i]);
    return fire(ev, values);
}

PALEV_API int palev_event_writef(const palev_event *ev, ...)
{
    va_list ap;
    int ret;

    if (__builtin_expect(!ev, 0))
        return -EINVAL;
    if (!ENABLED(ev))
        return 0;
    va_start(ap, ev);
    ret = write_args(ev, &ap);
    va_end(ap);
    return ret;
}

/* ---- the probe: one call per session (or trigger) recording the event ----------------------- */

/* What the filter interpreter reads, as generated probes lay it out: 8 bytes per integer
 * (sign-extended) or float (as double), a pointer per string, (length, pointer) per sequence. */
static size_t filter_stack(char *stack, const struct palev_event *ev, const struct palev__prep *v)
{
    char *at = stack;

    for (size_t i = 0; i < ev->field_count; i++) {
        const struct palev__dfield *f = &ev->fields[i];
        int64_t s;
        double d;
        unsigned long n;

        switch (f->wk) {
        case PALEV__WK_INT:
            s = f->is_signed && f->size < 8 ? (int64_t)(v[i].v.u << (64 - 8 * f->size)) >>
                                                  (64 - 8 * f->size)
                                            : v[i].v.i;
            at = (char *)memcpy(at, &s, 8) + 8;
            break;
        case PALEV__WK_FLOAT:
        case PALEV__WK_DOUBLE:
            d = f->wk == PALEV__WK_FLOAT ? v[i].v.f : v[i].v.d;
            at = (char *)memcpy(at, &d, 8) + 8;
            break;
        case PALEV__WK_STRING:
            at = (char *)memcpy(at, &v[i].p, sizeof(void *)) + sizeof(void *);
            break;
        default:
            n = (unsigned long)v[i].n;
            at = (char *)memcpy(at, &n, sizeof(n)) + sizeof(n);
            at = (char *)memcpy(at, &v[i].p, sizeof(void *)) + sizeof(void *);
            break;
        }
    }
    return (size_t)(at - stack);
}

/* Payload size and largest alignment, field by field as the writes below lay them out. */
static size_t payload_size(const struct palev_event *ev, const struct palev__prep *v,
                           size_t *largest)
{
    size_t len = 0, align = 1;

    for (size_t i = 0; i < ev->field_count; i++) {
        const struct palev__dfield *f = &ev->fields[i];
        size_t a = PALEV__RB_ALIGN(f->size ? f->size : 1);

        if (f->wk == PALEV__WK_STRING) {
            len += v[i].n;
            continue;
        }
        if (f->wk == PALEV__WK_SEQ) {
            len += lttng_ust_ring_buffer_align(len, PALEV__RB_ALIGN(4)) + 4;
            align = align < PALEV__RB_ALIGN(4) ? PALEV__RB_ALIGN(4) : align;
        }
        len += lttng_ust_ring_buffer_align(len, a);
        len += f->wk == PALEV__WK_SEQ ? f->size * v[i].n : f->size;
        align = align < a ? a : align;
    }
    *largest = align;
    return len;
}

static void write_field(struct lttng_ust_channel_buffer *chan, struct lttng_ust_ring_buffer_ctx *ctx,
                        const struct palev__dfield *f, const struct palev__prep *v)
{
    union {
        uint8_t u8;
        uint16_t u16;
        uint32_t u32;
        uint64_t u64;
    } t;

    switch (f->wk) {
    case PALEV__WK_INT:
        if (f->size == 1)
            t.u8 = (uint8_t)v->v.u;
        else if (f->size == 2)
            t.u16 = (uint16_t)v->v.u;
        else if (f->size == 4)
            t.u32 = (uint32_t)v->v.u;
        else
            t.u64 = v->v.u;
        chan->ops->event_write(ctx, &t, f->size, PALEV__RB_ALIGN(f->size));
        break;
    case PALEV__WK_FLOAT:
        chan->ops->event_write(ctx, &v->v.f, 4, PALEV__RB_ALIGN(4));
        break;
    case PALEV__WK_DOUBLE:
        chan->ops->event_write(ctx, &v->v.d, 8, PALEV__RB_ALIGN(8));
        break;
    case PALEV__WK_STRING:
        chan->ops->event_strcpy(ctx, v->p, v->n);
        break;
    default:
        t.u32 = (uint32_t)v->n;
        chan->ops->event_write(ctx, &t.u32, 4, PALEV__RB_ALIGN(4));
        chan->ops->event_write(ctx, v->p, f->size * v->n, PALEV__RB_ALIGN(f->size));
        break;
    }
}

static void record(struct lttng_ust_event_common *e, const struct palev_event *ev,
                   const struct palev__prep *v, struct lttng_ust_probe_ctx *pctx)
{
    struct lttng_ust_event_recorder *rec = e->child;
    struct lttng_ust_channel_buffer *chan = rec->chan;
    struct lttng_ust_ring_buffer_ctx ctx;
    size_t align, len = payload_size(ev, v, &align);

    lttng_ust_ring_buffer_ctx_init(&ctx, rec, len, (int)align, pctx);
    if (chan->ops->event_reserve(&ctx) < 0)
        return;     /* buffer full (discard mode): LTTng counts it */
    for (size_t i = 0; i < ev->field_count; i++)
        write_field(chan, &ctx, &ev->fields[i], &v[i]);
    chan->ops->event_commit(&ctx);
}

/* The checks a generated probe makes before its filter: the session and channel are active. */
static int gate(struct lttng_ust_event_common *e)
{
    if (e->type == LTTNG_UST_EVENT_TYPE_RECORDER) {
        struct lttng_ust_event_recorder *rec = e->child;
        struct lttng_ust_channel_common *chan = rec->chan->parent;

        if (!CMM_ACCESS_ONCE(chan->session->active) || !CMM_ACCESS_ONCE(chan->enabled))
            return 0;
    }
    return CMM_ACCESS_ONCE(e->enabled) != 0;
}

void palev__dyn_probe(void *tp_data, const struct palev_event *ev, const struct palev__prep *v)
{
    struct lttng_ust_event_common *e = tp_data;
    struct lttng_ust_probe_ctx pctx = { .struct_size = sizeof(pctx),
                                        .ip = __builtin_return_address(0) };
    char stack[2 * sizeof(unsigned long) * PALEV_EVENT_MAX_FIELDS];
    int prepared = 0;

    if (!gate(e))
        return;
    if (CMM_ACCESS_ONCE(e->eval_filter)) {
        filter_stack(stack, ev, v);
        prepared = 1;
        if (e->run_filter(e, stack, &pctx, NULL) != LTTNG_UST_EVENT_FILTER_ACCEPT)
            return;
    }
    if (e->type == LTTNG_UST_EVENT_TYPE_RECORDER) {
        record(e, ev, v, &pctx);
    } else if (e->type == LTTNG_UST_EVENT_TYPE_NOTIFIER) {
        struct lttng_ust_event_notifier *n = e->child;
        struct lttng_ust_notification_ctx nctx = { .struct_size = sizeof(nctx),
                                                   .eval_capture = CMM_ACCESS_ONCE(n->eval_capture) };

        if (!prepared && nctx.eval_capture)
            filter_stack(stack, ev, v);
        n->notification_send(n, stack, &pctx, &nctx);
    }
}
