/* SPDX-License-Identifier: MIT */
/* The generator's context: its arena, growable arrays and strings, and its diagnostics. */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The arena: large zeroed blocks handed out by bumping a pointer, never reused, all freed in one
 * walk: what pg_zalloc() returns is zeroed. A request bigger than a block gets a block of its own. */
#define ARENA_BLOCK (256 * 1024)

struct pg_arena_block {
    struct pg_arena_block *next;
    size_t size, used;
    max_align_t data[];
};

void pg_ctx_init(pg_ctx *cx)
{
    *cx = (pg_ctx){ 0 };
}

void pg_ctx_fini(pg_ctx *cx)
{
    while (cx->arena) {
        struct pg_arena_block *next = cx->arena->next;

        free(cx->arena);
        cx->arena = next;
    }
    pg_ctx_init(cx);
}

static void out_of_memory(void)
{
    fputs("palevgen: out of memory\n", stderr);
    exit(3);
}

void *pg_zalloc(pg_ctx *cx, size_t size)
{
    size_t align = sizeof(max_align_t), need = (size + align - 1) / align * align;
    struct pg_arena_block *b = cx->arena;
    void *p;

    if (!need)
        need = align;
    if (!b || b->size - b->used < need) {
        size_t block = need > ARENA_BLOCK ? need : ARENA_BLOCK;

        b = calloc(1, sizeof(*b) + block);
        if (!b)
            out_of_memory();
        b->size = block;
        b->next = cx->arena;
        cx->arena = b;
    }
    p = (char *)b->data + b->used;
    b->used += need;
    return p;
}

/* ---- string index: open addressing, FNV-1a -------------------------------------------------- */

uint32_t pg_fnv1a(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t h = 2166136261u;

    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

static size_t hash(const char *s)
{
    return pg_fnv1a(s, strlen(s));
}

static size_t slot(const pg_index *ix, const char *key)
{
    size_t i = hash(key) & (ix->cap - 1);

    while (ix->keys[i] && strcmp(ix->keys[i], key) != 0)
        i = (i + 1) & (ix->cap - 1);
    return i;
}

void *pg_index_get(const pg_index *ix, const char *key)
{
    return ix->cap ? ix->values[slot(ix, key)] : NULL;
}

static void grow(pg_ctx *cx, pg_index *ix)
{
    pg_index bigger = { pg_zalloc(cx, ix->cap * 2 * sizeof(char *) + 16 * sizeof(char *)),
                        pg_zalloc(cx, ix->cap * 2 * sizeof(void *) + 16 * sizeof(void *)),
                        ix->cap ? ix->cap * 2 : 16, 0 };

    for (size_t i = 0; i < ix->cap; i++)
        if (ix->keys[i])
            pg_index_put(cx, &bigger, ix->keys[i], ix->values[i]);
    *ix = bigger;
}

void *pg_index_put(pg_ctx *cx, pg_index *ix, const char *key, void *value)
{
    size_t i;

    if ((ix->len + 1) * 2 > ix->cap)
        grow(cx, ix);
    i = slot(ix, key);
    if (ix->keys[i])
        return ix->values[i];
    ix->keys[i] = key;
    ix->values[i] = value;
    ix->len++;
    return NULL;
}

char *pg_strndup(pg_ctx *cx, const char *s, size_t n)
{
    char *d = pg_zalloc(cx, n + 1);

    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *pg_strdup(pg_ctx *cx, const char *s)
{
    return s ? pg_strndup(cx, s, strlen(s)) : NULL;
}

char *pg_printf(pg_ctx *cx, const char *fmt, ...)
{
    va_list ap, ap2;
    char small[256];
    char *s;
    int n;

    /* one allocation of the exact size: most results fit the stack buffer */
    va_start(ap, fmt);
    va_copy(ap2, ap);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0, small[0] = '\0';
    if ((size_t)n < sizeof(small)) {
        s = pg_strndup(cx, small, (size_t)n);
    } else {
        s = pg_zalloc(cx, (size_t)n + 1);
        vsnprintf(s, (size_t)n + 1, fmt, ap2);
    }
    va_end(ap2);
    return s;
}

void pg_vec_push(pg_ctx *cx, pg_vec *v, void *item)
{
    /* Grown arrays stay in the arena too, so one pg_ctx_fini() releases the whole model. */
    if (v->len == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 8;
        void **items = pg_zalloc(cx, cap * sizeof(*items));

        if (v->len)
            memcpy(items, v->items, v->len * sizeof(*items));
        v->items = items;
        v->cap = cap;
    }
    v->items[v->len++] = item;
}

/* Buffers grow inside the arena too: one pg_ctx_fini() releases everything, even buffers an
 * error path forgot. The old block stays until then; growth is geometric, so at most 2x. */
static void buf_reserve(pg_ctx *cx, pg_buf *b, size_t extra)
{
    size_t cap;
    char *data;

    if (b->len + extra + 1 <= b->cap)
        return;
    cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    data = pg_zalloc(cx, cap);
    if (b->len)
        memcpy(data, b->data, b->len);
    b->data = data;
    b->cap = cap;
}

void pg_buf_putn(pg_ctx *cx, pg_buf *b, const char *s, size_t n)
{
    buf_reserve(cx, b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void pg_buf_puts(pg_ctx *cx, pg_buf *b, const char *s)
{
    pg_buf_putn(cx, b, s, strlen(s));
}

void pg_buf_vprintf(pg_ctx *cx, pg_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    int n;

    va_copy(ap2, ap);
    n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return;
    buf_reserve(cx, b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void pg_buf_printf(pg_ctx *cx, pg_buf *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    pg_buf_vprintf(cx, b, fmt, ap);
    va_end(ap);
}

/* Manifest text quoted in a diagnostic stays on its line and sends the terminal nothing but
 * text: control characters (XML lets only tab, newline and carriage return through) become '?'. */
static void terminal_safe(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7F)
            *s = '?';
}

static void __attribute__((format(printf, 4, 0)))
diag(pg_ctx *cx, pg_loc loc, const char *kind, const char *fmt, va_list ap)
{
    pg_buf line = { 0 };

    if (cx->quiet)
        return;
    if (loc.line)
        pg_buf_printf(cx, &line, "%s:%u: %s: ", loc.file, loc.line, kind);
    else
        pg_buf_printf(cx, &line, "%s: %s: ", loc.file, kind);
    pg_buf_vprintf(cx, &line, fmt, ap);
    terminal_safe(line.data);
    if (cx->sink)
        cx->sink(cx->sink_data, line.data);
    else
        fprintf(stderr, "%s\n", line.data);
}

void pg_error(pg_ctx *cx, pg_loc loc, const char *fmt, ...)
{
    va_list ap;

    cx->errors++;
    va_start(ap, fmt);
    diag(cx, loc, "error", fmt, ap);
    va_end(ap);
}

void pg_warning(pg_ctx *cx, pg_loc loc, const char *fmt, ...)
{
    va_list ap;

    cx->warnings++;
    va_start(ap, fmt);
    diag(cx, loc, "warning", fmt, ap);
    va_end(ap);
}

unsigned pg_error_count(const pg_ctx *cx)
{
    return cx->errors;
}

void pg_buf_put_utf8(pg_ctx *cx, pg_buf *b, uint32_t cp)
{
    char u[4];
    size_t n;

    if (cp < 0x80) {
        u[0] = (char)cp, n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | cp >> 12), u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    } else {
        u[0] = (char)(0xF0 | cp >> 18), u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), u[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    }
    pg_buf_putn(cx, b, u, n);
}
