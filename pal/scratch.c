/* SPDX-License-Identifier: MIT */
/* The scratch arena of generated emit functions: its blocks, strings converted into it, integer
 * members gathered into typed arrays. Arrays as JSON text: scratch_json.c. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SID_MAX_SUBAUTHORITIES 15
/* Gathered integers are handed to LTTng as typed arrays: align them for any integer type. */
#define GATHER_ALIGN 8

void *(*palev__malloc)(size_t size) = malloc;

struct block {
    struct block *next;
    max_align_t data[];
};

PALEV_API void (palev_scratch_init)(palev_scratch *sc, void *stack, size_t size)
{
    *sc = (palev_scratch){ .base = stack, .size = stack ? size : 0 };
}

PALEV_API void (palev_scratch_fini)(palev_scratch *sc)
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
char *palev__scratch_block_new(palev_scratch *sc, size_t min, size_t *size)
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
void palev__scratch_block_adopt(palev_scratch *sc, char *data, size_t size, size_t used)
{
    if (size - used > sc->size - sc->used) {
        sc->base = data;
        sc->size = size;
        sc->used = used;
    }
}

/* `n` bytes aligned to `align` (a power of two) from the current block, else from a new heap
 * block. */
static void *take(palev_scratch *sc, size_t n, size_t align)
{
    size_t pad, size;
    char *data;

    if (sc->base) {
        pad = (size_t)(-(uintptr_t)(sc->base + sc->used) & (align - 1)); /* no division */
        if (palev__scratch_room(sc) >= pad && palev__scratch_room(sc) - pad >= n) {
            data = sc->base + sc->used + pad;
            sc->used += pad + n;
            return data;
        }
    }
    data = palev__scratch_block_new(sc, n, &size);
    if (data)
        palev__scratch_block_adopt(sc, data, size, n);
    return data;
}

/* Copy n bytes as a string; when the heap is exhausted keep the prefix that fits. */
static const char *copy_str(palev_scratch *sc, const char *src, size_t n)
{
    char *p = n < SIZE_MAX ? take(sc, n + 1, 1) : NULL;

    if (!p) {
        if (palev__scratch_room(sc) == 0)
            return "";
        sc->truncated = 1;
        n = n < palev__scratch_room(sc) - 1 ? n : palev__scratch_room(sc) - 1;
        p = sc->base + sc->used;
        sc->used += n + 1;
    }
    memcpy(p, src, n);
    p[n] = '\0';
    return p;
}

/* ---- strings ---------------------------------------------------------------------------- */

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

size_t palev__format_guid(char *buf, size_t size, const palev_guid *g)
{
    return (size_t)snprintf(buf, size,
                            "%08" PRIx32 "-%04" PRIx16 "-%04" PRIx16 "-%02x%02x-"
                            "%02x%02x%02x%02x%02x%02x",
                            g->data1, g->data2, g->data3, g->data4[0], g->data4[1], g->data4[2],
                            g->data4[3], g->data4[4], g->data4[5], g->data4[6], g->data4[7]);
}

size_t palev__format_systemtime(char *buf, size_t size, const palev_systemtime *t)
{
    return (size_t)snprintf(buf, size, "%04u-%02u-%02uT%02u:%02u:%02u.%03u", (unsigned)t->year,
                            (unsigned)t->month, (unsigned)t->day, (unsigned)t->hour,
                            (unsigned)t->minute, (unsigned)t->second,
                            (unsigned)t->milliseconds);
}

/* Like ConvertSidToStringSid: the 48-bit authority in decimal when it fits 32 bits, else hex. */
size_t palev__format_sid(char *buf, size_t size, const unsigned char *sid)
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

    return g ? copy_str(sc, buf, palev__format_guid(buf, sizeof(buf), g)) : "";
}

PALEV_API const char *palev_scratch_systemtime(palev_scratch *sc, const palev_systemtime *t)
{
    char buf[64];

    return t ? copy_str(sc, buf, palev__format_systemtime(buf, sizeof(buf), t)) : "";
}

PALEV_API const char *palev_scratch_sid(palev_scratch *sc, const void *sid)
{
    char buf[PALEV__SID_TEXT_MAX];

    return sid ? copy_str(sc, buf, palev__format_sid(buf, sizeof(buf), sid)) : "";
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

    *ptr = palev__read_ptr(e + n->ptr_offset);
    if (!*ptr || palev__read_uint(e + n->cnt_offset, n->cnt_size, &cnt))
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
    if (palev__scratch_room(sc) <= pad || (palev__scratch_room(sc) - pad) / elem_size == 0)
        return NULL;
    *got = (palev__scratch_room(sc) - pad) / elem_size;
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
