/* SPDX-License-Identifier: MIT */
/* The generator's context: its arena, growable arrays and strings, and its diagnostics. */
#include "model.h"
#include "utf.h"

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

/* ---- string index: common/map.h's table, its arrays in the arena --------------------------- */

static void *index_zalloc(void *cx, size_t n)
{
    return pg_zalloc(cx, n);
}

void *pg_index_get(const pg_index *ix, const char *key)
{
    size_t len = strlen(key);

    return pcm_map_get(ix, pcm_fnv1a64(key, len), key, len);
}

void *pg_index_put(pg_ctx *cx, pg_index *ix, const char *key, void *value)
{
    /* Arrays left behind by growth are freed with the arena. */
    const pcm_map_alloc arena = { index_zalloc, NULL, cx };
    size_t len = strlen(key);
    uint64_t hash = pcm_fnv1a64(key, len);
    pcm_map_slot *s = pcm_map_reserve(ix, &arena, hash, key, len);

    if (s->value)
        return s->value;
    pcm_map_fill(ix, s, hash, key, len, value);
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

void pg_diag(pg_ctx *cx, pg_severity sev, pg_loc loc, const char *fmt, ...)
{
    const char *kind = sev == PG_ERROR ? "error" : "warning";
    pg_buf line = { 0 };
    va_list ap;

    if (sev == PG_ERROR)
        cx->errors++;
    else
        cx->warnings++;
    if (cx->quiet)
        return;
    if (loc.line)
        pg_buf_printf(cx, &line, "%s:%u: %s: ", loc.file, loc.line, kind);
    else
        pg_buf_printf(cx, &line, "%s: %s: ", loc.file, kind);
    va_start(ap, fmt);
    pg_buf_vprintf(cx, &line, fmt, ap);
    va_end(ap);
    terminal_safe(line.data);
    if (cx->sink)
        cx->sink(cx->sink_data, line.data);
    else
        fprintf(stderr, "%s\n", line.data);
}

unsigned pg_error_count(const pg_ctx *cx)
{
    return cx->errors;
}

void pg_buf_put_utf8(pg_ctx *cx, pg_buf *b, uint32_t cp)
{
    char u[4];

    pg_buf_putn(cx, b, u, pcm_utf8_encode(cp, u));
}
