/* SPDX-License-Identifier: MIT */
/* The scratch arena of generated emit functions, and the conversions that fill it. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Longest SID text: "S-1-0x" + 12 hex digits, then 15 times "-" and 10 digits. */
#define SID_TEXT_MAX 192
#define SID_MAX_SUBAUTHORITIES 15
/* "[]" and its NUL: the least a JSON array needs. */
#define JSON_MIN_ROOM 3
/* Gathered integers are handed to LTTng as typed arrays: align them for any integer type. */
#define GATHER_ALIGN 8

void *(*palev__malloc)(size_t size) = malloc;

struct block {
    struct block *next;
    max_align_t data[];
};

PALEV_API void palev_scratch_init(palev_scratch *sc, void *stack, size_t size)
{
    *sc = (palev_scratch){ .base = stack, .size = stack ? size : 0 };
}

PALEV_API void palev_scratch_fini(palev_scratch *sc)
{
    struct block *b = sc->heap;

    while (b) {
        struct block *next = b->next;

        free(b);
        b = next;
    }
    *sc = (palev_scratch){ 0 };
}

/* ---- blocks ----------------------------------------------------------------------------- */

/* A heap block of at least `min` bytes, freed by palev_scratch_fini(). NULL, with the arena marked
 * truncated, when the heap is exhausted. */
static char *block_new(palev_scratch *sc, size_t min, size_t *size)
{
    size_t sz = min > PALEV_SCRATCH_STACK_SIZE ? min : PALEV_SCRATCH_STACK_SIZE;
    struct block *b = NULL;

    if (sz <= SIZE_MAX - sizeof(*b))
        b = palev__malloc(sizeof(*b) + sz);
    if (!b) {
        sc->truncated = 1;
        return NULL;
    }
    b->next = sc->heap;
    sc->heap = b;
    *size = sz;
    return (char *)b->data;
}

/* A new block whose first `used` bytes are taken becomes the current one only when it has more
 * room left: a large result in its own block must not strand the rest of the stack block. */
static void block_adopt(palev_scratch *sc, char *data, size_t size, size_t used)
{
    if (size - used > sc->size - sc->used) {
        sc->base = data;
        sc->size = size;
        sc->used = used;
    }
}

static size_t room(const palev_scratch *sc)
{
    return sc->size - sc->used;
}

/* `n` bytes aligned to `align` (a power of two) from the current block, else from a new heap
 * block. */
static void *take(palev_scratch *sc, size_t n, size_t align)
{
    size_t pad, size;
    char *data;

    if (sc->base) {
        pad = (size_t)(-(uintptr_t)(sc->base + sc->used) & (align - 1)); /* no division */
        if (room(sc) >= pad && room(sc) - pad >= n) {
            data = sc->base + sc->used + pad;
            sc->used += pad + n;
            return data;
        }
    }
    data = block_new(sc, n, &size);
    if (data)
        block_adopt(sc, data, size, n);
    return data;
}

/* Copy n bytes as a string; when the heap is exhausted keep the prefix that fits. */
static const char *copy_str(palev_scratch *sc, const char *src, size_t n)
{
    char *p = n < SIZE_MAX ? take(sc, n + 1, 1) : NULL;

    if (!p) {
        if (room(sc) == 0)
            return "";
        sc->truncated = 1;
        n = n < room(sc) - 1 ? n : room(sc) - 1;
        p = sc->base + sc->used;
        sc->used += n + 1;
    }
    memcpy(p, src, n);
    p[n] = '\0';
    return p;
}

/* ---- strings ---------------------------------------------------------------------------- */

/* One pass into what is left of the current block; only a string that does not fit is measured
 * (by that same pass) and converted again into a heap block of the right size. */
PALEV_API const char *palev_scratch_utf16(palev_scratch *sc, const char16_t *s, size_t len)
{
    char *p = sc->base ? sc->base + sc->used : NULL;
    size_t need, size;
    char *data;

    if (!s)
        return "";
    need = palev__utf16_to_utf8(p, room(sc), s, len);
    if (need < room(sc)) {
        sc->used += need + 1;
        return p;
    }
    if (need == 0)
        return "";
    data = block_new(sc, need + 1, &size);
    if (!data) {
        /* The first pass left the longest prefix that fits, cut at a code point boundary. */
        if (room(sc) == 0)
            return "";
        sc->used += strlen(p) + 1;
        return p;
    }
    palev__utf16_to_utf8(data, need + 1, s, len);
    block_adopt(sc, data, size, need + 1);
    return data;
}

PALEV_API const char *palev_scratch_ansi(palev_scratch *sc, const char *s, size_t len)
{
    const char *nul;

    if (!s)
        return "";
    if (len == PALEV_NUL_TERMINATED)
        return s;
    nul = memchr(s, '\0', len);
    return copy_str(sc, s, nul ? (size_t)(nul - s) : len);
}

static size_t format_guid(char *buf, size_t size, const palev_guid *g)
{
    return (size_t)snprintf(buf, size,
                            "%08" PRIx32 "-%04" PRIx16 "-%04" PRIx16 "-%02x%02x-"
                            "%02x%02x%02x%02x%02x%02x",
                            g->data1, g->data2, g->data3, g->data4[0], g->data4[1], g->data4[2],
                            g->data4[3], g->data4[4], g->data4[5], g->data4[6], g->data4[7]);
}

static size_t format_systemtime(char *buf, size_t size, const palev_systemtime *t)
{
    return (size_t)snprintf(buf, size, "%04u-%02u-%02uT%02u:%02u:%02u.%03u", (unsigned)t->year,
                            (unsigned)t->month, (unsigned)t->day, (unsigned)t->hour,
                            (unsigned)t->minute, (unsigned)t->second,
                            (unsigned)t->milliseconds);
}

/* Like ConvertSidToStringSid: the 48-bit authority in decimal when it fits 32 bits, else hex. */
static size_t format_sid(char *buf, size_t size, const unsigned char *sid)
{
    uint64_t authority = 0;
    size_t n;

    if (sid[0] != 1 || sid[1] > SID_MAX_SUBAUTHORITIES)
        return (size_t)snprintf(buf, size, "(invalid SID)");
    for (size_t k = 2; k < 8; k++)
        authority = authority << 8 | sid[k];
    n = (size_t)snprintf(buf, size, authority >> 32 ? "S-%u-0x%012llX" : "S-%u-%llu",
                         (unsigned)sid[0], (unsigned long long)authority);
    for (size_t k = 0; k < sid[1] && n < size; k++) {
        const unsigned char *sub = sid + 8 + 4 * k;
        uint32_t v = sub[0] | (uint32_t)sub[1] << 8 | (uint32_t)sub[2] << 16 |
                     (uint32_t)sub[3] << 24;

        n += (size_t)snprintf(buf + n, size - n, "-%" PRIu32, v);
    }
    return n;
}

PALEV_API const char *palev_scratch_guid(palev_scratch *sc, const palev_guid *g)
{
    char buf[40];

    return g ? copy_str(sc, buf, format_guid(buf, sizeof(buf), g)) : "";
}

PALEV_API const char *palev_scratch_systemtime(palev_scratch *sc, const palev_systemtime *t)
{
    char buf[64];

    return t ? copy_str(sc, buf, format_systemtime(buf, sizeof(buf), t)) : "";
}

PALEV_API const char *palev_scratch_sid(palev_scratch *sc, const void *sid)
{
    char buf[SID_TEXT_MAX];

    return sid ? copy_str(sc, buf, format_sid(buf, sizeof(buf), sid)) : "";
}

/* ---- JSON arrays ------------------------------------------------------------------------ */

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
    char *data = block_new(j->sc, min < SIZE_MAX / 2 ? 2 * min : min, &size);

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

static const char *const json_escapes[0x20] = {
    ['\b'] = "\\b", ['\f'] = "\\f", ['\n'] = "\\n", ['\r'] = "\\r", ['\t'] = "\\t",
};

static void json_code_point(struct json *j, uint32_t cp)
{
    char buf[8];

    if (cp == '"' || cp == '\\') {
        buf[0] = '\\';
        buf[1] = (char)cp;
        json_put(j, buf, 2);
    } else if (cp < 0x20 && json_escapes[cp]) {
        json_puts(j, json_escapes[cp]);
    } else if (cp < 0x20) {
        json_put(j, buf, (size_t)snprintf(buf, sizeof(buf), "\\u%04x", (unsigned)cp));
    } else {
        json_put(j, buf, palev__utf8_encode(cp, buf));
    }
}

/* The decimal point comes from LC_NUMERIC (a comma in many locales): whatever %g printed that
 * is neither digit, sign nor exponent is the decimal point and becomes '.'. */
static void json_number(struct json *j, double v, int precision)
{
    char buf[48], out[48];
    size_t n = 0;

    if (!isfinite(v)) {
        json_puts(j, "null");
        return;
    }
    snprintf(buf, sizeof(buf), "%.*g", precision, v);
    for (const char *c = buf; *c; c++) {
        if (strchr("0123456789+-eE", *c))
            out[n++] = *c;
        else if (n == 0 || out[n - 1] != '.')
            out[n++] = '.';
    }
    json_put(j, out, n);
}

static int read_uint(const unsigned char *p, size_t size, uint64_t *v)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;

    switch (size) {
    case 1: memcpy(&u8, p, 1); *v = u8; return 0;
    case 2: memcpy(&u16, p, 2); *v = u16; return 0;
    case 4: memcpy(&u32, p, 4); *v = u32; return 0;
    case 8: memcpy(v, p, 8); return 0;
    default: *v = 0; return -1;
    }
}

static const void *read_ptr(const unsigned char *p)
{
    const void *v;

    memcpy(&v, p, sizeof(v));
    return v;
}

/* An element's length; an unsupported len_size reads as 0 rather than past the element. */
static size_t elem_len(const palev_array_desc *d, const unsigned char *e)
{
    uint64_t v;

    if (d->len_size == 0)
        return d->len_const;
    read_uint(e + d->len_offset, d->len_size, &v);
    return v > SIZE_MAX ? SIZE_MAX : (size_t)v;
}

typedef void json_elem_fn(struct json *j, const palev_array_desc *d, const unsigned char *e);

static void json_elem_float(struct json *j, const palev_array_desc *d, const unsigned char *e)
{
    float v;

    memcpy(&v, e + d->offset, sizeof(v));
    json_number(j, v, 9);
}

static void json_elem_double(struct json *j, const palev_array_desc *d, const unsigned char *e)
{
    double v;

    memcpy(&v, e + d->offset, sizeof(v));
    json_number(j, v, 17);
}

static void json_elem_utf16(struct json *j, const palev_array_desc *d, const unsigned char *e)
{
    const char16_t *s = read_ptr(e + d->offset);
    size_t len = elem_len(d, e), i = 0;
    int32_t cp;

    json_puts(j, "\"");
    while (s && (cp = palev__utf16_next(s, len, &i)) >= 0)
        json_code_point(j, (uint32_t)cp);
    json_puts(j, "\"");
}

static void json_elem_ansi(struct json *j, const palev_array_desc *d, const unsigned char *e)
{
    const unsigned char *s = read_ptr(e + d->offset);
    size_t len = elem_len(d, e), i = 0;
    int32_t cp;

    json_puts(j, "\"");
    while (s && (cp = palev__utf8_next(s, len, &i)) >= 0)
        json_code_point(j, (uint32_t)cp);
    json_puts(j, "\"");
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
    json_quoted(j, buf, format_guid(buf, sizeof(buf), &g));
}

static void json_elem_systemtime(struct json *j, const palev_array_desc *d,
                                 const unsigned char *e)
{
    palev_systemtime t;
    char buf[64];

    memcpy(&t, e + d->offset, sizeof(t));
    json_quoted(j, buf, format_systemtime(buf, sizeof(buf), &t));
}

static void json_elem_sid(struct json *j, const palev_array_desc *d, const unsigned char *e)
{
    const unsigned char *sid = read_ptr(e + d->offset);
    char buf[SID_TEXT_MAX];

    json_quoted(j, buf, sid ? format_sid(buf, sizeof(buf), sid) : 0);
}

/* A length of PALEV_NUL_TERMINATED means nothing for bytes: it gives "". */
static void json_elem_binary(struct json *j, const palev_array_desc *d, const unsigned char *e)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *b = read_ptr(e + d->offset);
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
        block_adopt(j->sc, j->p, j->cap, j->len + 1);
    else
        j->sc->used += j->len + 1;
    return j->p;
}

/* An unknown element kind gives "[]": the event is still recorded, without a guessed payload. */
PALEV_API const char *palev_scratch_json_array(palev_scratch *sc, const palev_array_desc *d,
                                               const void *base, size_t count)
{
    struct json j = { .sc = sc, .p = sc->base ? sc->base + sc->used : NULL, .cap = room(sc) };
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

/* ---- gathering integer members ---------------------------------------------------------- */

#define GATHER(out, src, count, stride, offset, size) \
    for (size_t i = 0; i < (count); i++) \
        memcpy((out) + i * (size), (src) + i * (stride) + (offset), (size))

PALEV_API const void *palev_scratch_gather(palev_scratch *sc, const void *base, size_t count,
                                           size_t stride, size_t offset, size_t size)
{
    const unsigned char *src = base;
    unsigned char *out;

    if (!base || count == 0 || size == 0 || count > SIZE_MAX / size)
        return NULL;
    out = take(sc, count * size, GATHER_ALIGN);
    if (!out)
        return NULL;
    /* Constant sizes: each memcpy becomes a load and a store instead of a call. */
    switch (size) {
    case 1: GATHER(out, src, count, stride, offset, 1); break;
    case 2: GATHER(out, src, count, stride, offset, 2); break;
    case 4: GATHER(out, src, count, stride, offset, 4); break;
    case 8: GATHER(out, src, count, stride, offset, 8); break;
    default: GATHER(out, src, count, stride, offset, size); break;
    }
    return out;
}

struct nested {
    const unsigned char *base;
    size_t stride, ptr_offset, cnt_offset, cnt_size;
};

/* Element count of struct i's array; a NULL array counts as empty whatever its count says. */
static size_t nested_count(const struct nested *n, size_t i, const void **ptr)
{
    const unsigned char *e = n->base + i * n->stride;
    uint64_t cnt;

    *ptr = read_ptr(e + n->ptr_offset);
    if (!*ptr || read_uint(e + n->cnt_offset, n->cnt_size, &cnt))
        return 0;
    return cnt > SIZE_MAX ? SIZE_MAX : (size_t)cnt;
}

/* Room for `want` elements, or when the heap is exhausted for as many as the current block
 * still holds (*got says how many). */
static unsigned char *nested_out(palev_scratch *sc, size_t want, size_t elem_size, size_t *got)
{
    unsigned char *out;
    size_t pad;

    if (want > SIZE_MAX / elem_size)
        want = SIZE_MAX / elem_size;
    out = take(sc, want * elem_size, GATHER_ALIGN);
    *got = out ? want : 0;
    if (out || !sc->base)
        return out;
    pad = (GATHER_ALIGN - (uintptr_t)(sc->base + sc->used) % GATHER_ALIGN) % GATHER_ALIGN;
    if (room(sc) <= pad || (room(sc) - pad) / elem_size == 0)
        return NULL;
    *got = (room(sc) - pad) / elem_size;
    out = (unsigned char *)sc->base + sc->used + pad;
    sc->used += pad + *got * elem_size;
    return out;
}

/* Sum of all counts, saturating: an absurd total then fails to allocate and is truncated. */
static size_t nested_total(const struct nested *n, size_t count)
{
    size_t want = 0;
    const void *ptr;

    for (size_t i = 0; i < count; i++) {
        size_t c = nested_count(n, i, &ptr);

        want = c > SIZE_MAX - want ? SIZE_MAX : want + c;
    }
    return want;
}

/* Concatenates the arrays into `out`, which holds `room_for` elements; returns how many. */
static size_t nested_copy(const struct nested *n, size_t count, unsigned char *out,
                          size_t room_for, size_t elem_size)
{
    size_t done = 0;
    const void *ptr;

    for (size_t i = 0; i < count && done < room_for; i++) {
        size_t c = nested_count(n, i, &ptr);

        c = c < room_for - done ? c : room_for - done;
        if (c > 0)  /* ptr may be NULL when c is 0 */
            memcpy(out + done * elem_size, ptr, c * elem_size);
        done += c;
    }
    return done;
}

PALEV_API const void *palev_scratch_gather_nested(palev_scratch *sc, const void *base, size_t count,
                                                  size_t stride, size_t ptr_offset,
                                                  size_t cnt_offset, size_t cnt_size,
                                                  size_t elem_size, size_t *total)
{
    const struct nested n = { base, stride, ptr_offset, cnt_offset, cnt_size };
    size_t want = 0, room_for = 0, done = 0;
    unsigned char *out = NULL;

    if (base && elem_size > 0)
        want = nested_total(&n, count);
    if (want > 0)
        out = nested_out(sc, want, elem_size, &room_for);
    if (out)
        done = nested_copy(&n, count, out, room_for, elem_size);
    if (total)
        *total = done;
    return done ? out : NULL;
}
