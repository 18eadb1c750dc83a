/* SPDX-License-Identifier: MIT */
/* palev-gen utilities: the model arena, growable arrays and strings, diagnostics. */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The arena: large zeroed blocks handed out by bumping a pointer, all freed in one walk. A
 * request bigger than a block gets a block of its own. */
#define ARENA_BLOCK (256 * 1024)

struct arena_block {
    struct arena_block *next;
    size_t size, used;
    max_align_t data[];
};

static struct arena_block *arena_head;

static void out_of_memory(void)
{
    fputs("palev-gen: out of memory\n", stderr);
    exit(3);
}

void *pg_alloc(size_t size)
{
    size_t align = sizeof(max_align_t), need = (size + align - 1) / align * align;
    struct arena_block *b = arena_head;
    void *p;

    if (!need)
        need = align;
    if (!b || b->size - b->used < need) {
        size_t block = need > ARENA_BLOCK ? need : ARENA_BLOCK;

        b = calloc(1, sizeof(*b) + block);
        if (!b)
            out_of_memory();
        b->size = block;
        b->next = arena_head;
        arena_head = b;
    }
    p = (char *)b->data + b->used;
    b->used += need;
    return p;
}

void pg_arena_free(void)
{
    while (arena_head) {
        struct arena_block *next = arena_head->next;

        free(arena_head);
        arena_head = next;
    }
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

static void grow(pg_index *ix)
{
    pg_index bigger = { pg_alloc(ix->cap * 2 * sizeof(char *) + 16 * sizeof(char *)),
                        pg_alloc(ix->cap * 2 * sizeof(void *) + 16 * sizeof(void *)),
                        ix->cap ? ix->cap * 2 : 16, 0 };

    for (size_t i = 0; i < ix->cap; i++)
        if (ix->keys[i])
            pg_index_put(&bigger, ix->keys[i], ix->values[i]);
    *ix = bigger;
}

void *pg_index_put(pg_index *ix, const char *key, void *value)
{
    size_t i;

    if ((ix->len + 1) * 2 > ix->cap)
        grow(ix);
    i = slot(ix, key);
    if (ix->keys[i])
        return ix->values[i];
    ix->keys[i] = key;
    ix->values[i] = value;
    ix->len++;
    return NULL;
}

char *pg_strndup(const char *s, size_t n)
{
    char *d = pg_alloc(n + 1);

    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *pg_strdup(const char *s)
{
    return s ? pg_strndup(s, strlen(s)) : NULL;
}

char *pg_printf(const char *fmt, ...)
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
        s = pg_strndup(small, (size_t)n);
    } else {
        s = pg_alloc((size_t)n + 1);
        vsnprintf(s, (size_t)n + 1, fmt, ap2);
    }
    va_end(ap2);
    return s;
}

void pg_vec_push(pg_vec *v, void *item)
{
    /* Grown arrays stay in the arena too, so one pg_arena_free() releases the whole model. */
    if (v->len == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 8;
        void **items = pg_alloc(cap * sizeof(*items));

        if (v->len)
            memcpy(items, v->items, v->len * sizeof(*items));
        v->items = items;
        v->cap = cap;
    }
    v->items[v->len++] = item;
}

/* Buffers grow inside the arena too: one pg_arena_free() releases everything, even buffers an
 * error path forgot. The old block stays until then; growth is geometric, so at most 2x. */
static void buf_reserve(pg_buf *b, size_t extra)
{
    size_t cap;
    char *data;

    if (b->len + extra + 1 <= b->cap)
        return;
    cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    data = pg_alloc(cap);
    if (b->len)
        memcpy(data, b->data, b->len);
    b->data = data;
    b->cap = cap;
}

void pg_buf_putn(pg_buf *b, const char *s, size_t n)
{
    buf_reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void pg_buf_puts(pg_buf *b, const char *s)
{
    pg_buf_putn(b, s, strlen(s));
}

void pg_buf_vprintf(pg_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    int n;

    va_copy(ap2, ap);
    n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return;
    buf_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void pg_buf_printf(pg_buf *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    pg_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

static unsigned errors;
static int quiet;

static void diag(pg_loc loc, const char *kind, const char *fmt, va_list ap)
{
    if (quiet)
        return;
    if (loc.line)
        fprintf(stderr, "%s:%u: %s: ", loc.file, loc.line, kind);
    else
        fprintf(stderr, "%s: %s: ", loc.file, kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void pg_error(pg_loc loc, const char *fmt, ...)
{
    va_list ap;

    errors++;
    va_start(ap, fmt);
    diag(loc, "error", fmt, ap);
    va_end(ap);
}

void pg_warning(pg_loc loc, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    diag(loc, "warning", fmt, ap);
    va_end(ap);
}

unsigned pg_error_count(void)
{
    return errors;
}

void pg_diag_reset(void)
{
    errors = 0;
}

void pg_diag_quiet(int q)
{
    quiet = q;
}

void pg_buf_put_utf8(pg_buf *b, uint32_t cp)
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
    pg_buf_putn(b, u, n);
}
