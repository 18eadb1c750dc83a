/* SPDX-License-Identifier: MIT */
/* Arrays LTTng cannot type (floats, strings, GUIDs, ...) as compact JSON text in the scratch arena
 * (scratch.c), closed and valid even when memory runs out. */
#include <string.h>

#include "internal.h"
#include "json.h"

/* "[]" and its NUL: the least a JSON array needs. */
#define JSON_MIN_ROOM 3

/* A JSON text growing contiguously at the end of the arena. Two bytes stay reserved for the
 * closing ']' and the NUL, so that when the heap runs out the text is cut after the last whole
 * element and still closed: a truncated array remains valid JSON. */
struct json {
    palev_scratch *sc;
    char *p;
    size_t len, cap;
    int in_heap_block;      /* p is the start of a heap block of cap bytes, not the current one */
    int failed;
};

static int json_grow(struct json *j, size_t min)
{
    size_t size;
    char *data = palev__scratch_block_new(j->sc, min < SIZE_MAX / 2 ? 2 * min : min, &size);

    if (!data)
        return -1;
    if (j->len)
        memcpy(data, j->p, j->len);
    j->p = data;
    j->cap = size;
    j->in_heap_block = 1;
    return 0;
}

static void json_put(struct json *j, const char *s, size_t n)
{
    if (j->failed)
        return;
    if (n > SIZE_MAX - 2 - j->len || (j->len + n + 2 > j->cap && json_grow(j, j->len + n + 2))) {
        j->failed = 1;
        return;
    }
    memcpy(j->p + j->len, s, n);
    j->len += n;
}

static void json_puts(struct json *j, const char *s)
{
    json_put(j, s, strlen(s));
}

/* One code point of a string, escaped where JSON needs it (common/json.c). */
static void json_code_point(struct json *j, uint32_t cp)
{
    char buf[PCM_JSON_ESCAPE_MAX];
    size_t n = pcm_json_escape(cp, buf);

    json_put(j, buf, n ? n : pcm_utf8_encode(cp, buf));
}

/* The one number rule of the project's JSON (common/json.c): 9 digits for a float, 17 for a
 * double, '.' whatever the locale, null for NaN and the infinities. */
static void json_number(struct json *j, double v, int digits)
{
    char buf[PCM_JSON_NUMBER_MAX];

    json_put(j, buf, pcm_json_number(buf, v, digits));
}

/* An element's length; an unsupported len_size reads as 0 rather than past the element. */
static size_t elem_len(const palev_array_desc *d, const unsigned char *e)
{
    uint64_t v;

    if (d->len_size == 0)
        return d->len_const;
    palev__read_uint(e + d->len_offset, d->len_size, &v);
    return v > SIZE_MAX ? SIZE_MAX : (size_t)v;
}

typedef void json_elem_fn(struct json *j, const palev_array_desc *d, const unsigned char *e);

static void json_elem_float(struct json *j, const palev_array_desc *d, const unsigned char *e)
{
    float v;

    memcpy(&v, e + d->offset, sizeof(v));
    json_number(j, v, PCM_JSON_FLOAT_DIGITS);
}

static void json_elem_double(struct json *j, const palev_array_desc *d, const unsigned char *e)
{
    double v;

    memcpy(&v, e + d->offset, sizeof(v));
    json_number(j, v, PCM_JSON_DOUBLE_DIGITS);
}

/* A string element's code points, whichever its encoding (common/utf.c decodes both). */
typedef int32_t next_fn(const void *s, size_t len, size_t *i);

static int32_t next_utf16(const void *s, size_t len, size_t *i)
{
    return pcm_utf16_next(s, len, i);
}

static int32_t next_utf8(const void *s, size_t len, size_t *i)
{
    return pcm_utf8_next(s, len, i);
}

static void json_string(struct json *j, const palev_array_desc *d, const unsigned char *e,
                        next_fn *next)
{
    const void *s = palev__read_ptr(e + d->offset);
    size_t len = elem_len(d, e), i = 0;
    int32_t cp;

    json_puts(j, "\"");
    while (s && (cp = next(s, len, &i)) >= 0)
        json_code_point(j, (uint32_t)cp);
    json_puts(j, "\"");
}

static void json_elem_utf16(struct json *j, const palev_array_desc *d, const unsigned char *e)
{
    json_string(j, d, e, next_utf16);
}

static void json_elem_ansi(struct json *j, const palev_array_desc *d, const unsigned char *e)
{
    json_string(j, d, e, next_utf8);
}

/* GUID, SYSTEMTIME and SID texts need no escaping. */
static void json_quoted(struct json *j, const char *s, size_t n)
{
    json_puts(j, "\"");
    json_put(j, s, n);
    json_puts(j, "\"");
}

static void json_elem_guid(struct json *j, const palev_array_desc *d, const unsigned char *e)
{
    palev_guid g;
    char buf[40];

    memcpy(&g, e + d->offset, sizeof(g));
    json_quoted(j, buf, palev__format_guid(buf, sizeof(buf), &g));
}

static void json_elem_systemtime(struct json *j, const palev_array_desc *d,
                                 const unsigned char *e)
{
    palev_systemtime t;
    char buf[64];

    memcpy(&t, e + d->offset, sizeof(t));
    json_quoted(j, buf, palev__format_systemtime(buf, sizeof(buf), &t));
}

static void json_elem_sid(struct json *j, const palev_array_desc *d, const unsigned char *e)
{
    const unsigned char *sid = palev__read_ptr(e + d->offset);
    char buf[PALEV__SID_TEXT_MAX];

    json_quoted(j, buf, sid ? palev__format_sid(buf, sizeof(buf), sid) : 0);
}

/* A length of PALEV_NUL_TERMINATED means nothing for bytes: it gives "". */
static void json_elem_binary(struct json *j, const palev_array_desc *d, const unsigned char *e)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *b = palev__read_ptr(e + d->offset);
    size_t len = b && elem_len(d, e) != PALEV_NUL_TERMINATED ? elem_len(d, e) : 0;

    json_puts(j, "\"");
    for (size_t k = 0; k < len && !j->failed; k++) {
        char pair[2] = { hex[b[k] >> 4], hex[b[k] & 0xF] };

        json_put(j, pair, 2);
    }
    json_puts(j, "\"");
}

static json_elem_fn *const json_elems[] = {
    [PALEV_ELEM_FLOAT] = json_elem_float,
    [PALEV_ELEM_DOUBLE] = json_elem_double,
    [PALEV_ELEM_UTF16] = json_elem_utf16,
    [PALEV_ELEM_ANSI] = json_elem_ansi,
    [PALEV_ELEM_GUID] = json_elem_guid,
    [PALEV_ELEM_SYSTEMTIME] = json_elem_systemtime,
    [PALEV_ELEM_SID] = json_elem_sid,
    [PALEV_ELEM_BINARY] = json_elem_binary,
};

/* Takes the text's bytes from the arena: in place in the current block, or in its heap block. */
static const char *json_finish(struct json *j)
{
    j->p[j->len++] = ']';
    j->p[j->len] = '\0';
    if (j->in_heap_block)
        palev__scratch_block_adopt(j->sc, j->p, j->cap, j->len + 1);
    else
        j->sc->used += j->len + 1;
    return j->p;
}

/* An unknown element kind gives "[]": the event is still recorded, without a guessed payload. */
PALEV_API const char *palev_scratch_json_array(palev_scratch *sc, const palev_array_desc *d,
                                               const void *base, size_t count)
{
    struct json j = { .sc = sc, .p = sc->base ? sc->base + sc->used : NULL, .cap = palev__scratch_room(sc) };
    json_elem_fn *elem = d && d->kind < sizeof(json_elems) / sizeof(json_elems[0])
                             ? json_elems[d->kind] : NULL;

    if (j.cap < JSON_MIN_ROOM && json_grow(&j, JSON_MIN_ROOM))
        return "[]";
    json_put(&j, "[", 1);
    for (size_t i = 0; base && elem && i < count; i++) {
        size_t mark = j.len;

        if (i > 0)
            json_put(&j, ",", 1);
        elem(&j, d, (const unsigned char *)base + i * d->stride);
        if (j.failed) {
            j.len = mark;
            break;
        }
    }
    return json_finish(&j);
}

