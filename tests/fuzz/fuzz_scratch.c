/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the scratch arena of generated emit functions (pal/scratch.c) with
 * fuzzer-chosen descriptors, lengths and allocation failures over a fuzzer-owned memory block.
 * Every pointer the library is given points inside that block, and every read the library may
 * make stays inside it, so AddressSanitizer reports any access beyond what the contract allows.
 * Results are checked against the contract: NUL-terminated, valid UTF-8 or valid JSON (parsed
 * with jansson), complete unless the arena says truncated, and intact until palev_scratch_fini(). */
#include "internal.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)
#define MAX_OPS 12
#define MAX_COUNT 300

/* ---- fuzzer input ----------------------------------------------------------------------- */

struct rd {
    const uint8_t *p;
    size_t n;
};

static uint64_t take_bytes(struct rd *r, size_t k)
{
    uint64_t v = 0;

    for (size_t i = 0; i < k && r->n; i++, r->p++, r->n--)
        v |= (uint64_t)*r->p << (8 * i);
    return v;
}
#define U8(r) ((uint8_t)take_bytes(r, 1))
#define U16(r) ((uint16_t)take_bytes(r, 2))
#define U32(r) ((uint32_t)take_bytes(r, 4))

/* ---- allocation failures ---------------------------------------------------------------- */

static struct {
    uint32_t mask;      /* allocation k fails when bit k % 32 is set ... */
    unsigned count;     /* ... counting from here */
} fail;

static void *fuzz_malloc(size_t size)
{
    unsigned k = fail.count++;

    if (fail.mask & (1u << (k % 32)))
        return NULL;
    return malloc(size);
}

/* ---- the memory the descriptors point into ---------------------------------------------- */

static unsigned char *mem;
static size_t memlen;

static int in_mem(size_t off, size_t n)
{
    return off <= memlen && n <= memlen - off;
}

/* How far a string reader may look: up to `len` units or the first NUL unit, whichever is first.
 * 1 when all of that is inside the block. */
static int units_in_mem(const unsigned char *s, size_t unit, size_t len)
{
    size_t off = (size_t)(s - mem);

    for (size_t k = 0; k < len; k++) {
        if (!in_mem(off + k * unit, unit))
            return 0;
        if (unit == 1 ? s[k] == 0 : (s[2 * k] | s[2 * k + 1]) == 0)
            return 1;
    }
    return 1;
}

/* A pointer into the block made from 32 fuzzer bits: 0xFFFFFFFF is NULL. */
static const unsigned char *ptr_from(uint32_t v, size_t align)
{
    size_t off;

    if (v == UINT32_MAX || memlen == 0)
        return NULL;
    off = v % memlen;
    off -= off % align;
    return mem + off;
}

/* ---- results, checked again before palev_scratch_fini() ---------------------------------- */

static struct result {
    const void *p;
    void *copy;
    size_t n;
} results[MAX_OPS];
static size_t nresults;

static void keep(const void *p, size_t n)
{
    const unsigned char *b = p;

    if (!p || (b >= mem && b < mem + memlen) || nresults == MAX_OPS)
        return;     /* a string returned as is lives in the caller's memory */
    results[nresults].p = p;
    results[nresults].n = n;
    results[nresults].copy = malloc(n ? n : 1);
    memcpy(results[nresults].copy, p, n);
    nresults++;
}

static void check_kept(void)
{
    for (size_t i = 0; i < nresults; i++) {
        CHECK(memcmp(results[i].p, results[i].copy, results[i].n) == 0);
        free(results[i].copy);
    }
    nresults = 0;
}

/* ---- checks ----------------------------------------------------------------------------- */

/* Well-formed UTF-8 (Unicode table 3-7), written independently of the library's decoder. */
static int valid_utf8(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t n = strlen(str);

    for (size_t i = 0; i < n;) {
        unsigned c = s[i], lo = 0x80, hi = 0xBF;
        size_t extra;

        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF)
            extra = 1;
        else if (c >= 0xE0 && c <= 0xEF)
            extra = 2;
        else if (c >= 0xF0 && c <= 0xF4)
            extra = 3;
        else
            return 0;
        lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : lo;
        hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : hi;
        if (i + extra >= n || s[i + 1] < lo || s[i + 1] > hi)
            return 0;
        for (size_t k = 2; k <= extra; k++)
            if (s[i + k] < 0x80 || s[i + k] > 0xBF)
                return 0;
        i += extra + 1;
    }
    return 1;
}

/* `got` equals `want`, or is a prefix of it when the arena was truncated. */
static void check_text(const palev_scratch *sc, const char *got, const char *want, size_t wantlen)
{
    size_t n = strlen(got);

    CHECK(n <= wantlen && memcmp(got, want, n) == 0);
    CHECK(n == wantlen || sc->truncated);
    keep(got, n + 1);
}

static void check_arena(const palev_scratch *sc)
{
    CHECK(sc->used <= sc->size);
    CHECK(sc->base || sc->size == 0);
}

/* ---- operations ------------------------------------------------------------------------- */

static void op_utf16(palev_scratch *sc, struct rd *r)
{
    const unsigned char *s = ptr_from(U32(r), 2);
    uint16_t l = U16(r);
    size_t len = l == UINT16_MAX ? PALEV_NUL_TERMINATED : l;
    const char *got;
    char *want;
    size_t need;

    if (s && !units_in_mem(s, 2, len))
        return;
    got = palev_scratch_utf16(sc, (const char16_t *)s, len);
    CHECK(got && valid_utf8(got));
    need = palev_utf16_to_utf8(NULL, 0, (const char16_t *)s, len);
    want = malloc(need + 1);
    palev_utf16_to_utf8(want, need + 1, (const char16_t *)s, len);
    check_text(sc, got, want, need);
    free(want);
}

static void op_ansi(palev_scratch *sc, struct rd *r)
{
    const unsigned char *s = ptr_from(U32(r), 1);
    uint16_t l = U16(r);
    size_t len = l == UINT16_MAX ? PALEV_NUL_TERMINATED : l, n;
    const char *got;

    if (s && !units_in_mem(s, 1, len))
        return;
    got = palev_scratch_ansi(sc, (const char *)s, len);
    CHECK(got);
    for (n = 0; s && n < len && s[n]; n++)
        ;
    check_text(sc, got, s ? (const char *)s : "", n);
}

static void op_guid(palev_scratch *sc, struct rd *r)
{
    const unsigned char *p = ptr_from(U32(r), _Alignof(palev_guid));
    const palev_guid *g = (const palev_guid *)p;
    char want[64];
    const char *got;

    if (p && !in_mem((size_t)(p - mem), sizeof(*g)))
        return;
    got = palev_scratch_guid(sc, g);
    if (!g) {
        CHECK(*got == '\0');
        return;
    }
    snprintf(want, sizeof(want), "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             (unsigned)g->data1, g->data2, g->data3, g->data4[0], g->data4[1], g->data4[2],
             g->data4[3], g->data4[4], g->data4[5], g->data4[6], g->data4[7]);
    check_text(sc, got, want, 36);
}

static void op_systemtime(palev_scratch *sc, struct rd *r)
{
    const unsigned char *p = ptr_from(U32(r), _Alignof(palev_systemtime));
    const palev_systemtime *t = (const palev_systemtime *)p;
    char want[80];
    const char *got;
    int n;

    if (p && !in_mem((size_t)(p - mem), sizeof(*t)))
        return;
    got = palev_scratch_systemtime(sc, t);
    if (!t) {
        CHECK(*got == '\0');
        return;
    }
    n = snprintf(want, sizeof(want), "%04u-%02u-%02uT%02u:%02u:%02u.%03u", t->year, t->month,
                 t->day, t->hour, t->minute, t->second, t->milliseconds);
    check_text(sc, got, want, (size_t)n);
}

/* The bytes a SID reader needs: revision and count, then 6 + 4 * count when it looks valid. */
static size_t sid_size(const unsigned char *s, size_t avail)
{
    if (avail < 2)
        return 2;
    return s[0] == 1 && s[1] <= 15 ? 8 + 4 * (size_t)s[1] : 2;
}

static void op_sid(palev_scratch *sc, struct rd *r)
{
    const unsigned char *s = ptr_from(U32(r), 1);
    const char *got;

    if (s && !in_mem((size_t)(s - mem), sid_size(s, memlen - (size_t)(s - mem))))
        return;
    got = palev_scratch_sid(sc, s);
    CHECK(got);
    if (s && !sc->truncated)
        CHECK(strncmp(got, "S-1-", 4) == 0 || strcmp(got, "(invalid SID)") == 0);
    keep(got, strlen(got) + 1);
}

/* ---- JSON arrays ------------------------------------------------------------------------ */

static const size_t inline_size[] = {
    [PALEV_ELEM_FLOAT] = sizeof(float), [PALEV_ELEM_DOUBLE] = sizeof(double),
    [PALEV_ELEM_GUID] = sizeof(palev_guid), [PALEV_ELEM_SYSTEMTIME] = sizeof(palev_systemtime),
};

static int is_pointer_kind(unsigned kind)
{
    return kind == PALEV_ELEM_UTF16 || kind == PALEV_ELEM_ANSI || kind == PALEV_ELEM_SID ||
           kind == PALEV_ELEM_BINARY;
}

static size_t elem_len(const palev_array_desc *d, const unsigned char *e)
{
    uint64_t v = 0;

    if (d->len_size == 0)
        return d->len_const;
    if (d->len_size == 1 || d->len_size == 2 || d->len_size == 4 || d->len_size == 8)
        memcpy(&v, e + d->len_offset, d->len_size);     /* little endian host */
    return v > SIZE_MAX ? SIZE_MAX : (size_t)v;
}

/* Every byte the library may read for element e is in the block. */
static int elem_in_mem(const palev_array_desc *d, const unsigned char *e)
{
    size_t at = (size_t)(e - mem);
    const unsigned char *s;
    size_t len;

    if (d->len_size && !in_mem(at + d->len_offset, d->len_size))
        return 0;
    if (d->kind < sizeof(inline_size) / sizeof(inline_size[0]) && inline_size[d->kind])
        return in_mem(at + d->offset, inline_size[d->kind]);
    if (!is_pointer_kind(d->kind))
        return 1;
    if (!in_mem(at + d->offset, sizeof(void *)))
        return 0;
    memcpy(&s, e + d->offset, sizeof(s));
    if (!s)
        return 1;
    /* overlapping elements: another element's pointer or length may have overwritten this one */
    if (s < mem || s >= mem + memlen || (d->kind == PALEV_ELEM_UTF16 && (s - mem) % 2))
        return 0;
    len = elem_len(d, e);
    switch (d->kind) {
    case PALEV_ELEM_UTF16: return units_in_mem(s, 2, len);
    case PALEV_ELEM_ANSI: return units_in_mem(s, 1, len);
    case PALEV_ELEM_SID: return in_mem((size_t)(s - mem), sid_size(s, memlen - (size_t)(s - mem)));
    default: return len == PALEV_NUL_TERMINATED || in_mem((size_t)(s - mem), len);
    }
}

/* Writes a pointer into the block at each element's pointer slot (taken from the 4 bytes
 * there), then checks that every element can be read; 0 when one cannot. */
static int prepare_elems(const palev_array_desc *d, unsigned char *base, size_t count)
{
    for (size_t i = 0; is_pointer_kind(d->kind) && i < count; i++) {
        unsigned char *slot = base + i * d->stride + d->offset;
        uint32_t v;
        const unsigned char *p;

        if (!in_mem((size_t)(slot - mem), sizeof(p)))
            return 0;
        memcpy(&v, slot, sizeof(v));
        p = ptr_from(v, d->kind == PALEV_ELEM_UTF16 ? 2 : 1);
        memcpy(slot, &p, sizeof(p));
    }
    for (size_t i = 0; i < count; i++)
        if (!elem_in_mem(d, base + i * d->stride))
            return 0;
    return 1;
}

/* Strings must come back exactly: UTF-16 as palev_utf16_to_utf8() converts it, ANSI as is when
 * it is valid UTF-8 without control characters. */
static void check_json_strings(const palev_array_desc *d, const unsigned char *base, json_t *a)
{
    for (size_t i = 0; i < json_array_size(a); i++) {
        const unsigned char *e = base + i * d->stride, *s;
        const char *got = json_string_value(json_array_get(a, i));
        size_t len = elem_len(d, e), n;
        char *want;

        CHECK(got);
        memcpy(&s, e + d->offset, sizeof(s));
        if (d->kind == PALEV_ELEM_UTF16) {
            n = palev_utf16_to_utf8(NULL, 0, (const char16_t *)s, len);
            want = malloc(n + 1);
            palev_utf16_to_utf8(want, n + 1, (const char16_t *)s, len);
            CHECK(strcmp(got, want) == 0);
            free(want);
        } else if (d->kind == PALEV_ELEM_ANSI && s) {
            for (n = 0; n < len && s[n]; n++)
                ;
            want = strndup((const char *)s, n);
            if (valid_utf8(want))
                CHECK(strcmp(got, want) == 0);
            free(want);
        }
    }
}

static void op_json(palev_scratch *sc, struct rd *r)
{
    palev_array_desc d = { 0 };
    static const uint8_t len_sizes[] = { 0, 1, 2, 4, 8, 3 };
    unsigned char *base;
    size_t count;
    uint16_t l;
    const char *got;
    json_t *a;
    json_error_t err;

    d.kind = U8(r) % 10;
    d.len_size = len_sizes[U8(r) % sizeof(len_sizes)];
    d.stride = U8(r);
    d.offset = U8(r);
    d.len_offset = U8(r);
    l = U16(r);
    d.len_const = l == UINT16_MAX ? PALEV_NUL_TERMINATED : l;
    count = U16(r) % MAX_COUNT;
    base = (unsigned char *)ptr_from(U32(r), 1);
    if (base && !prepare_elems(&d, base, count))
        return;
    got = palev_scratch_json_array(sc, &d, base, count);
    CHECK(got);
    a = json_loads(got, 0, &err);
    CHECK(a && json_is_array(a));
    if (!sc->truncated && base && d.kind >= PALEV_ELEM_FLOAT && d.kind <= PALEV_ELEM_BINARY)
        CHECK(json_array_size(a) == count);
    CHECK(json_array_size(a) <= count);
    if (!base || d.kind < PALEV_ELEM_FLOAT || d.kind > PALEV_ELEM_BINARY)
        CHECK(json_array_size(a) == 0);
    if (base && (d.kind == PALEV_ELEM_UTF16 || d.kind == PALEV_ELEM_ANSI))
        check_json_strings(&d, base, a);
    json_decref(a);
    keep(got, strlen(got) + 1);
}

/* ---- gathering -------------------------------------------------------------------------- */

static void op_gather(palev_scratch *sc, struct rd *r)
{
    const unsigned char *base = ptr_from(U32(r), 1);
    size_t count = U16(r) % MAX_COUNT, stride = U8(r), offset = U8(r), size = U8(r) % 9;
    const unsigned char *got;

    for (size_t i = 0; base && i < count; i++)
        if (!in_mem((size_t)(base - mem) + i * stride + offset, size))
            return;
    got = palev_scratch_gather(sc, base, count, stride, offset, size);
    if (!base || !count || !size) {
        CHECK(!got);
        return;
    }
    CHECK(got || sc->truncated);
    if (!got)
        return;
    CHECK((uintptr_t)got % 8 == 0);
    for (size_t i = 0; i < count; i++)
        CHECK(memcmp(got + i * size, base + i * stride + offset, size) == 0);
    keep(got, count * size);
}

static void op_gather_nested(palev_scratch *sc, struct rd *r)
{
    static const uint8_t sizes[] = { 1, 2, 4, 8, 3 };
    unsigned char *base = (unsigned char *)ptr_from(U32(r), 1);
    size_t count = U8(r) % 64, stride = U8(r), ptr_offset = U8(r), cnt_offset = U8(r);
    size_t cnt_size = sizes[U8(r) % sizeof(sizes)], elem_size = U8(r) % 9, total = 12345, want = 0;
    unsigned char *expect = NULL;
    const unsigned char *got;

    for (size_t i = 0; base && i < count; i++) {
        unsigned char *e = base + i * stride;
        const unsigned char *p;
        uint32_t v;

        if (!in_mem((size_t)(e - mem) + ptr_offset, sizeof(p)) ||
            !in_mem((size_t)(e - mem) + cnt_offset, cnt_size))
            goto end;
        memcpy(&v, e + ptr_offset, sizeof(v));
        p = ptr_from(v, 1);
        memcpy(e + ptr_offset, &p, sizeof(p));
    }
    /* a second pass: a pointer written above may overlap another element's count */
    for (size_t i = 0; base && i < count; i++) {
        const unsigned char *e = base + i * stride, *p;
        uint64_t c = 0;

        memcpy(&p, e + ptr_offset, sizeof(p));
        if (cnt_size != 3)
            memcpy(&c, e + cnt_offset, cnt_size);
        if (!p || cnt_size == 3)
            continue;
        if (c > memlen || !in_mem((size_t)(p - mem), (size_t)c * elem_size))
            goto end;
        expect = realloc(expect, (want + c) * elem_size + 1);
        memcpy(expect + want * elem_size, p, (size_t)c * elem_size);
        want += c;
    }
    got = palev_scratch_gather_nested(sc, base, count, stride, ptr_offset, cnt_offset, cnt_size,
                                      elem_size, &total);
    CHECK(total <= want || elem_size == 0);
    CHECK((got == NULL) == (total == 0));
    if (elem_size && base)
        CHECK(total == want || sc->truncated);
    if (got) {
        CHECK(memcmp(got, expect, total * elem_size) == 0);
        keep(got, total * elem_size);
    }
end:
    free(expect);
}

typedef void op_fn(palev_scratch *sc, struct rd *r);
static op_fn *const ops[] = { op_utf16, op_ansi, op_guid, op_systemtime, op_sid, op_json,
                              op_json, op_gather, op_gather_nested };

/* Input: header length (2 bytes), the header (arena set-up, then operations and their
 * parameters), then the memory block. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rd r = { data, size };
    size_t hlen = U16(&r), stack_size, mis;
    struct rd h = { r.p, hlen < r.n ? hlen : r.n };
    unsigned char *stack;
    palev_scratch sc;

    r.p += h.n;
    r.n -= h.n;
    /* the block: the rest of the input, then (unless asked not to) a NUL unit at an even offset */
    stack_size = U16(&h) % 9000;
    mis = U8(&h);
    fail.mask = U32(&h);
    fail.count = 0;
    memlen = r.n + ((mis & 0x80) ? 0 : (r.n & 1) + 2);
    mem = calloc(1, memlen ? memlen : 1);
    memcpy(mem, r.p, r.n);
    mis &= 7;
    stack = malloc(stack_size + mis + 1);
    palev__malloc = fuzz_malloc;
    palev_scratch_init(&sc, stack_size ? stack + mis : NULL, stack_size);
    for (int i = 0; i < MAX_OPS && h.n; i++) {
        ops[U8(&h) % (sizeof(ops) / sizeof(ops[0]))](&sc, &h);
        check_arena(&sc);
    }
    check_kept();
    palev_scratch_fini(&sc);
    palev__malloc = malloc;
    free(stack);
    free(mem);
    return 0;
}
