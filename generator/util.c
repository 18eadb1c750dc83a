/* SPDX-License-Identifier: MIT */
/* palev-gen utilities: the model arena, growable arrays and strings, diagnostics. */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each allocation is prefixed by a link to the previous one, so the arena frees in one walk. */
struct arena_block {
    struct arena_block *next;
    max_align_t align[];
};

static struct arena_block *arena_head;

static void out_of_memory(void)
{
    fputs("palev-gen: out of memory\n", stderr);
    exit(3);
}

void *pg_alloc(size_t size)
{
    struct arena_block *b = calloc(1, sizeof(*b) + size);

    if (!b)
        out_of_memory();
    b->next = arena_head;
    arena_head = b;
    return b->align;
}

void pg_arena_free(void)
{
    while (arena_head) {
        struct arena_block *next = arena_head->next;

        free(arena_head);
        arena_head = next;
    }
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
    va_list ap;
    pg_buf b = { 0 };
    char *s;

    va_start(ap, fmt);
    pg_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    s = pg_strndup(b.data ? b.data : "", b.len);
    pg_buf_free(&b);
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

void pg_buf_free(pg_buf *b)
{
    b->data = NULL;
    b->len = b->cap = 0;
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
