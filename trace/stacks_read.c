/* SPDX-License-Identifier: MIT */
/* The events of a trace for stacks.c and symbols.c, read through palev-trace's core (core.h):
 * every trace under the directory, in time order; processes told apart by trace and vpid. */
#include <errno.h>
#include <string.h>

#include "core.h"
#include "stacks_read.h"

struct adapter {
    ps_event_fn *fn;
    void *ctx;
    int err;
    uint64_t discarded;
};

/* ---- fields ---------------------------------------------------------------------------------- */

static const bt_field *payload(const struct ps_event *e, const char *name)
{
    const bt_field *s = bt_event_borrow_payload_field_const(e->ev);

    if (!s || bt_field_get_class_type(s) != BT_FIELD_CLASS_TYPE_STRUCTURE)
        return NULL;
    return bt_field_structure_borrow_member_field_by_name_const(s, name);
}

static int integer(const bt_field *f, uint64_t *out)
{
    pt_value v;

    if (!f || pt_field_value(f, &v) != 0)
        return -ENOENT;
    if (v.kind == PT_V_UINT)
        *out = v.u;
    else if (v.kind == PT_V_SINT)
        *out = (uint64_t)v.i;
    else
        return -EINVAL;
    return 0;
}

int ps_u64(const struct ps_event *e, const char *name, uint64_t *out)
{
    return integer(payload(e, name), out);
}

const char *ps_str(const struct ps_event *e, const char *name)
{
    const bt_field *f = payload(e, name);

    if (!f || bt_field_get_class_type(f) != BT_FIELD_CLASS_TYPE_STRING)
        return NULL;
    return bt_field_string_get_value(f);
}

size_t ps_u64_array(const struct ps_event *e, const char *name, uint64_t *out, size_t max)
{
    const bt_field *f = payload(e, name);
    size_t n = 0, len;

    if (!f || !bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_ARRAY))
        return 0;
    len = bt_field_array_get_length(f);
    for (size_t i = 0; i < len && n < max; i++)
        if (integer(bt_field_array_borrow_element_field_by_index_const(f, i), &out[n]) == 0)
            n++;
    return n;
}

/* ---- reading --------------------------------------------------------------------------------- */

/* Two hosts (or sessions) may reuse a pid: the trace's index goes above it. */
static int64_t process_key(const pt_event *ev)
{
    return (int64_t)((uint64_t)ev->trace->index << 32 | (uint32_t)ev->vpid);
}

static void on_event(const pt_event *ev, void *data)
{
    struct adapter *a = data;
    struct ps_event e = { .name = ev->cls->name, .ns = ev->ts, .ev = ev->bt };

    if (a->err)
        return;
    e.vpid = process_key(ev);
    a->err = a->fn(a->ctx, &e);
}

static void on_discarded(pt_trace *t, int packets, uint64_t count, void *data)
{
    (void)t;
    if (!packets)
        ((struct adapter *)data)->discarded += count;
}

int ps_read(const char *path, ps_event_fn *fn, void *ctx, uint64_t *discarded)
{
    struct adapter a = { .fn = fn, .ctx = ctx };
    const pt_sink sink = { .event = on_event, .discarded = on_discarded, .data = &a };
    pt_input in = { .paths = &path, .npaths = 1, .no_auto_manifests = 1 };
    pt_reader *r = NULL;
    int ret = -ENOENT;

    if (pt_open(&in, &r) == 0) {
        pt_run(r, &sink);   /* damage is said on stderr; what was read counts */
        ret = a.err ? a.err : pt_ran(r) ? 0 : -EIO;
    }
    if (discarded)
        *discarded = a.discarded;
    pt_close(r);
    return ret;
}
