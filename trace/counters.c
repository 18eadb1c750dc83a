/* SPDX-License-Identifier: MIT */
/* Counter samples: numbers of EventSource JSON payloads and of all-numeric typed events. */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "counters.h"

enum { UNKNOWN = 0, PLAIN, TYPED, EVENTSOURCE };

static int plain_number(const bt_field_class *fc)
{
    bt_field_class_type t = bt_field_class_get_type(fc);
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_REAL))
        return 1;
    return bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_INTEGER) &&
           !bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ENUMERATION) &&
           bt_field_class_integer_get_preferred_display_base(fc) == BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_DECIMAL;
}

static int kind_of(const pt_event *ev)
{
    if (ev->cls->is_eventsource)
        return EVENTSOURCE;
    if (ev->cls->role != PT_ROLE_NONE)
        return PLAIN;
    const bt_field_class *p = bt_event_class_borrow_payload_field_class_const(bt_event_borrow_class_const(ev->bt));
    uint64_t n = p ? bt_field_class_structure_get_member_count(p) : 0, numbers = 0;
    for (uint64_t i = 0; i < n; i++) {
        const bt_field_class_structure_member *m = bt_field_class_structure_borrow_member_by_index_const(p, i);
        if (bt_field_class_structure_member_get_name(m)[0] == '_')
            continue;
        if (!plain_number(bt_field_class_structure_member_borrow_field_class_const(m)))
            return PLAIN;
        numbers++;
    }
    return numbers ? TYPED : PLAIN;
}

static unsigned typed(const pt_event *ev, pt_counter_fn fn, void *data)
{
    const bt_field *p = pt_payload(ev);
    const bt_field_class *pc = bt_field_borrow_class_const(p);
    uint64_t n = bt_field_class_structure_get_member_count(pc);
    unsigned k = 0;
    for (uint64_t i = 0; i < n; i++) {
        const char *name = bt_field_class_structure_member_get_name(
            bt_field_class_structure_borrow_member_by_index_const(pc, i));
        pt_value v;
        double d;
        char series[512];
        if (name[0] == '_' || pt_field_value(bt_field_structure_borrow_member_field_by_index_const(p, i), &v) ||
            !pt_value_number(&v, &d) || !isfinite(d))
            continue;   /* a NaN or infinite sample is no point of a series */
        snprintf(series, sizeof(series), "%s/%s", ev->cls->name, name);
        fn(series, ev->cls->name, name, d, data);
        k++;
    }
    return k;
}

static unsigned json_numbers(json_t *obj, const char *prefix, const char *event, int depth,
                             pt_counter_fn fn, void *data)
{
    const char *key;
    json_t *v;
    unsigned k = 0;
    json_object_foreach(obj, key, v) {
        char name[512], series[1024];
        snprintf(name, sizeof(name), "%s%s%s", prefix, prefix[0] ? "." : "", key);
        if (json_is_number(v)) {
            snprintf(series, sizeof(series), "%s/%s", event, name);
            fn(series, event, name, json_number_value(v), data);
            k++;
        } else if (json_is_object(v) && depth < 4) {
            k += json_numbers(v, name, event, depth + 1, fn, data);
        }
    }
    return k;
}

static unsigned eventsource(const pt_event *ev, pt_counter_fn fn, void *data)
{
    pt_value src, name, payload;
    char event[512];
    if (pt_field_value(pt_member(ev, "Payload"), &payload) || payload.kind != PT_V_STR || !payload.s ||
        payload.s[0] != '{')
        return 0;
    pt_field_value(pt_member(ev, "EventSourceName"), &src);
    pt_field_value(pt_member(ev, "EventName"), &name);
    json_t *root = json_loads(payload.s, JSON_DECODE_ANY, NULL);
    unsigned k = 0;
    if (json_is_object(root)) {
        snprintf(event, sizeof(event), "%s/%s", src.kind == PT_V_STR ? src.s : "?",
                 name.kind == PT_V_STR ? name.s : "?");
        k = json_numbers(root, "", event, 0, fn, data);
    }
    json_decref(root);
    return k;
}

unsigned pt_counter_values(const pt_event *ev, pt_counter_fn fn, void *data)
{
    pt_class *c = ev->cls;
    if (c->counter == UNKNOWN)
        c->counter = kind_of(ev);
    if (c->counter == TYPED)
        return typed(ev, fn, data);
    if (c->counter == EVENTSOURCE)
        return eventsource(ev, fn, data);
    return 0;
}
