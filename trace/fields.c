/* SPDX-License-Identifier: MIT */
/* Reading an event's fields: scalars as values, any field as JSON (enum labels as strings). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const bt_field *pt_payload(const pt_event *ev)
{
    return bt_event_borrow_payload_field_const(ev->bt);
}

const bt_field *pt_member(const pt_event *ev, const char *name)
{
    const bt_field *p = pt_payload(ev);
    return p && bt_field_get_class_type(p) == BT_FIELD_CLASS_TYPE_STRUCTURE
         ? bt_field_structure_borrow_member_field_by_name_const(p, name) : NULL;
}

int64_t pt__member_index(const bt_field_class *st, const char *name)
{
    uint64_t n = st ? bt_field_class_structure_get_member_count(st) : 0;
    for (uint64_t i = 0; i < n; i++)
        if (strcmp(bt_field_class_structure_member_get_name(
                bt_field_class_structure_borrow_member_by_index_const(st, i)), name) == 0)
            return (int64_t)i;
    return -1;
}

static int field_u64(const bt_field *f, uint64_t *out)
{
    pt_value v;
    if (pt_field_value(f, &v) != 0 || (v.kind != PT_V_UINT && v.kind != PT_V_SINT))
        return -1;
    *out = v.kind == PT_V_UINT ? v.u : (uint64_t)v.i;
    return 0;
}

int pt_member_u64(const pt_event *ev, const char *name, uint64_t *out)
{
    return field_u64(pt_member(ev, name), out);
}

const char *pt_member_str(const pt_event *ev, const char *name)
{
    const bt_field *f = pt_member(ev, name);
    return f && bt_field_get_class_type(f) == BT_FIELD_CLASS_TYPE_STRING ? bt_field_string_get_value(f) : NULL;
}

size_t pt_member_u64_array(const pt_event *ev, const char *name, uint64_t *out, size_t max)
{
    const bt_field *f = pt_member(ev, name);
    size_t n = 0;
    if (!f || !bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_ARRAY))
        return 0;
    uint64_t len = bt_field_array_get_length(f);
    for (uint64_t i = 0; i < len && n < max; i++)
        if (field_u64(bt_field_array_borrow_element_field_by_index_const(f, i), &out[n]) == 0)
            n++;
    return n;
}

static const char *enum_label(const bt_field *f, int is_signed)
{
    bt_field_class_enumeration_mapping_label_array labels = NULL;
    uint64_t n = 0;
    if (is_signed)
        bt_field_enumeration_signed_get_mapping_labels(f, &labels, &n);
    else
        bt_field_enumeration_unsigned_get_mapping_labels(f, &labels, &n);
    return n ? labels[0] : NULL;
}

static void int_value(const bt_field *f, bt_field_class_type t, pt_value *v)
{
    const bt_field_class *fc = bt_field_borrow_class_const(f);
    int is_signed = bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER);
    v->kind = is_signed ? PT_V_SINT : PT_V_UINT;
    if (is_signed)
        v->i = bt_field_integer_signed_get_value(f);
    else
        v->u = bt_field_integer_unsigned_get_value(f);
    v->hex = bt_field_class_integer_get_preferred_display_base(fc) ==
             BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL;
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ENUMERATION)) {
        v->is_enum = 1;
        v->s = enum_label(f, is_signed);
    }
}

int pt_field_value(const bt_field *f, pt_value *v)
{
    memset(v, 0, sizeof(*v));
    if (!f)
        return -1;
    bt_field_class_type t = bt_field_get_class_type(f);
    if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_INTEGER)) {
        int_value(f, t, v);
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_REAL)) {
        v->kind = PT_V_REAL;
        v->d = t == BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL
             ? bt_field_real_single_precision_get_value(f) : bt_field_real_double_precision_get_value(f);
    } else if (t == BT_FIELD_CLASS_TYPE_STRING) {
        v->kind = PT_V_STR;
        v->s = bt_field_string_get_value(f);
    } else if (t == BT_FIELD_CLASS_TYPE_BOOL) {
        v->kind = PT_V_BOOL;
        v->u = bt_field_bool_get_value(f);
    } else {
        return -1;
    }
    return 0;
}

int pt_value_number(const pt_value *v, double *out)
{
    switch (v->kind) {
    case PT_V_SINT: *out = (double)v->i; return 1;
    case PT_V_UINT: *out = (double)v->u; return 1;
    case PT_V_REAL: *out = v->d; return 1;
    default: return 0;
    }
}

const char *pt_value_text(const pt_value *v, char *buf, size_t size)
{
    if (v->is_enum && v->s)
        return v->s;
    switch (v->kind) {
    case PT_V_SINT: snprintf(buf, size, "%" PRId64, v->i); break;
    case PT_V_UINT: snprintf(buf, size, v->hex ? "0x%" PRIX64 : "%" PRIu64, v->u); break;
    case PT_V_REAL: snprintf(buf, size, "%g", v->d); break;
    case PT_V_BOOL: snprintf(buf, size, "%s", v->u ? "true" : "false"); break;
    case PT_V_STR: return v->s ? v->s : "";
    default: snprintf(buf, size, "?"); break;
    }
    return buf;
}

static void json_scalar(FILE *out, const pt_value *v)
{
    char buf[64];
    if ((v->is_enum && v->s) || v->kind == PT_V_STR || (v->hex && v->kind != PT_V_REAL) ||
        (v->kind == PT_V_REAL && !isfinite(v->d)))
        pt_json_string(out, pt_value_text(v, buf, sizeof(buf)));
    else if (v->kind == PT_V_REAL)
        pt_put_double(out, v->d);
    else if (v->kind == PT_V_SINT)
        pt_put_i64(out, v->i);
    else if (v->kind == PT_V_UINT)
        pt_put_u64(out, v->u);
    else
        fputs(pt_value_text(v, buf, sizeof(buf)), out);
}

static void json_struct(FILE *out, const bt_field *f)
{
    const bt_field_class *fc = bt_field_borrow_class_const(f);
    uint64_t n = bt_field_class_structure_get_member_count(fc);
    putc_unlocked('{', out);
    for (uint64_t i = 0; i < n; i++) {
        const char *name = bt_field_class_structure_member_get_name(
            bt_field_class_structure_borrow_member_by_index_const(fc, i));
        if (i)
            putc_unlocked(',', out);
        pt_json_string(out, name);
        putc_unlocked(':', out);
        pt_field_json(out, bt_field_structure_borrow_member_field_by_index_const(f, i));
    }
    putc_unlocked('}', out);
}

void pt_field_json(FILE *out, const bt_field *f)
{
    pt_value v;
    if (pt_field_value(f, &v) == 0) {
        json_scalar(out, &v);
        return;
    }
    bt_field_class_type t = f ? bt_field_get_class_type(f) : BT_FIELD_CLASS_TYPE_STRUCTURE;
    if (!f) {
        fputs("null", out);
    } else if (t == BT_FIELD_CLASS_TYPE_STRUCTURE) {
        json_struct(out, f);
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY)) {
        uint64_t n = bt_field_array_get_length(f);
        putc_unlocked('[', out);
        for (uint64_t i = 0; i < n; i++) {
            if (i)
                putc_unlocked(',', out);
            pt_field_json(out, bt_field_array_borrow_element_field_by_index_const(f, i));
        }
        putc_unlocked(']', out);
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_VARIANT)) {
        pt_field_json(out, bt_field_variant_borrow_selected_option_field_const(f));
    } else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_OPTION)) {
        const bt_field *in = bt_field_option_borrow_field_const(f);
        if (in)
            pt_field_json(out, in);
        else
            fputs("null", out);
    } else {
        fputs("null", out);
    }
}

/* ---- fields as text ---------------------------------------------------------------------------- */

#define FIELDS_TEXT_MAX 240

char *pt_fields_text(const bt_field *payload)
{
    char *buf = NULL, text[64];
    size_t size = 0;
    FILE *out = open_memstream(&buf, &size);
    if (!out) {
        fputs("palev-trace: error: out of memory\n", stderr);
        exit(PT_EXIT_DATA);
    }
    const bt_field_class *fc = payload ? bt_field_borrow_class_const(payload) : NULL;
    uint64_t n = fc && bt_field_get_class_type(payload) == BT_FIELD_CLASS_TYPE_STRUCTURE
                 ? bt_field_class_structure_get_member_count(fc) : 0;
    for (uint64_t i = 0; i < n && ftell(out) < FIELDS_TEXT_MAX; i++) {
        const bt_field *f = bt_field_structure_borrow_member_field_by_index_const(payload, i);
        pt_value v;
        fprintf(out, "%s%s=", i ? " " : "", bt_field_class_structure_member_get_name(
                    bt_field_class_structure_borrow_member_by_index_const(fc, i)));
        if (pt_field_value(f, &v) == 0)
            fputs(pt_value_text(&v, text, sizeof(text)), out);
        else
            pt_field_json(out, f);
    }
    fclose(out);
    if (size > FIELDS_TEXT_MAX) {     /* cut at a character's start, said with an ellipsis */
        size_t keep = FIELDS_TEXT_MAX;
        while (keep && (buf[keep] & 0xC0) == 0x80)
            keep--;
        buf = pt_xrealloc(buf, keep + 4);
        memcpy(buf + keep, "\xe2\x80\xa6", 4);     /* U+2026 and the NUL */
    }
    return buf;
}
