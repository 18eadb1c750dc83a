/* SPDX-License-Identifier: MIT */
/* Counter samples: numbers of EventSource JSON payloads and of all-numeric typed events. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"

enum { UNKNOWN = 0, PLAIN, TYPED, EVENTSOURCE };

/* Stands for a JSON number beyond a double's range: a string no payload holds. */
#define OUT_OF_RANGE "\x1fpalev-trace: out of range\x1f"
#define OUT_OF_RANGE_JSON "\"\\u001fpalev-trace: out of range\\u001f\""

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

/* a "/" b, in buf when it fits (the usual case: no allocation per sample), else on the heap. */
static char *join(char *buf, size_t size, const char *a, const char *sep, const char *b)
{
    size_t la = strlen(a), ls = strlen(sep), lb = strlen(b);
    char *s = la + ls + lb < size ? buf : pt_xmalloc(la + ls + lb + 1);
    memcpy(s, a, la);
    memcpy(s + la, sep, ls);
    memcpy(s + la + ls, b, lb + 1);
    return s;
}

static void emit(pt_counter_fn fn, void *data, const char *event, const char *field, double v)
{
    char buf[256], *series = join(buf, sizeof(buf), event, "/", field);
    pt_sample s = { series, event, field, v, isfinite(v) };
    fn(&s, data);
    if (series != buf)
        free(series);
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
        if (name[0] == '_' || pt_field_value(bt_field_structure_borrow_member_field_by_index_const(p, i), &v) ||
            !pt_value_number(&v, &d))
            continue;
        emit(fn, data, ev->cls->name, name, d);
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
        char buf[256], *name = join(buf, sizeof(buf), prefix, prefix[0] ? "." : "", key);
        if (json_is_number(v)) {
            emit(fn, data, event, name, json_number_value(v));
            k++;
        } else if (json_is_string(v) && strcmp(json_string_value(v), OUT_OF_RANGE) == 0) {
            emit(fn, data, event, name, HUGE_VAL);
            k++;
        } else if (json_is_object(v) && depth < 4) {
            k += json_numbers(v, name, event, depth + 1, fn, data);
        }
        if (name != buf)
            free(name);
    }
    return k;
}

/* The payload with each number beyond a double's range replaced by the OUT_OF_RANGE string:
 * jansson refuses a whole document for one of them. NULL when there is none. */
static char *mark_out_of_range(const char *json)
{
    char *out = NULL;
    size_t len = 0, cap = 0;
    const char *done = json, *s = json;
    while (*s) {
        if (*s == '"') {    /* a string: skipped, escapes included */
            for (s++; *s && *s != '"'; s++)
                if (*s == '\\' && s[1])
                    s++;
            s += *s == '"';
            continue;
        }
        if (*s != '-' && (*s < '0' || *s > '9')) {
            s++;
            continue;
        }
        const char *end = s + strspn(s, "+-.0123456789eE");
        char *num = pt_xstrndup(s, (size_t)(end - s));
        errno = 0;
        double v = strtod(num, NULL);
        free(num);
        if (errno == ERANGE && isinf(v)) {
            size_t k = (size_t)(s - done), m = strlen(OUT_OF_RANGE_JSON);
            out = pt_xgrow(out, &cap, len + k + m + 1, 1);
            memcpy(out + len, done, k);
            memcpy(out + len + k, OUT_OF_RANGE_JSON, m);
            len += k + m;
            done = end;
        }
        s = end;
    }
    if (!out)
        return NULL;
    out = pt_xgrow(out, &cap, len + strlen(done) + 1, 1);
    strcpy(out + len, done);
    return out;
}

static unsigned eventsource(const pt_event *ev, pt_counter_fn fn, void *data)
{
    pt_value src, name, payload;
    if (pt_field_value(pt_member(ev, "Payload"), &payload) || payload.kind != PT_V_STR || !payload.s ||
        payload.s[0] != '{')
        return 0;
    pt_field_value(pt_member(ev, "EventSourceName"), &src);
    pt_field_value(pt_member(ev, "EventName"), &name);
    char *marked = mark_out_of_range(payload.s);
    json_t *root = json_loads(marked ? marked : payload.s, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, NULL);
    unsigned k = 0;
    if (json_is_object(root)) {
        char buf[256], *event = join(buf, sizeof(buf), src.kind == PT_V_STR ? src.s : "?", "/",
                                     name.kind == PT_V_STR ? name.s : "?");
        k = json_numbers(root, "", event, 0, fn, data);
        if (event != buf)
            free(event);
    }
    json_decref(root);
    free(marked);
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

void pt_series_set_add(pt_series_set *set, const pt_sample *x, int64_t t0, int64_t ts)
{
    pt_named_series *s = pt_map_get_str(&set->by_name, x->series);
    if (!s) {
        if (set->n == set->max) {
            set->dropped++;
            return;
        }
        s = pt_xcalloc(1, sizeof(*s));
        s->name = pt_xstrdup(x->series);
        pt_series_init(&s->s, t0, set->width);
        pt_map_put_str(&set->by_name, x->series, s);
        PT_APPEND(set->list, set->n, s);
    }
    pt_series_add(&s->s, ts, x->value);
}

void pt_series_set_free(pt_series_set *set)
{
    for (unsigned i = 0; i < set->n; i++) {
        free(set->list[i]->name);
        free(set->list[i]);
    }
    free(set->list);
    pt_map_free(&set->by_name);
    memset(set, 0, sizeof(*set));
}
