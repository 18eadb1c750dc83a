/* SPDX-License-Identifier: MIT */
/* palev-trace helpers: allocation that cannot fail silently, a pointer map, JSON/HTML escaping. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

static void out_of_memory(void)
{
    fputs("palev-trace: error: out of memory\n", stderr);
    exit(PT_EXIT_DATA);
}

void *pt_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

void *pt_xrealloc(void *p, size_t size)
{
    p = realloc(p, size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

char *pt_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(pt_xcalloc(n, 1), s, n);
}

const char *pt_fmt_ns(double ns, char *buf, size_t size)
{
    static const struct { double div; const char *unit; } units[] = {
        { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" },
    };
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (ns >= units[i].div) {
            snprintf(buf, size, "%.3f %s", ns / units[i].div, units[i].unit);
            return buf;
        }
    snprintf(buf, size, "%.0f ns", ns);
    return buf;
}

/* Length of the valid UTF-8 sequence at s, or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
    size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3
             : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 2 && s[0] < 0xC2)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if (n == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0)))
        return 0;   /* overlong, or a UTF-16 surrogate */
    if (n == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || s[0] > 0xF4 || (s[0] == 0xF4 && s[1] >= 0x90)))
        return 0;
    return n;
}

void pt_json_string(FILE *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)(str ? str : ""), *run = s;
    putc_unlocked('"', out);
    for (;;) {
        size_t n = *s >= 0x20 && *s < 0x80 && *s != '"' && *s != '\\' ? 1 : *s >= 0x80 ? utf8_len(s) : 0;
        if (n) {
            s += n;     /* safe bytes are written in runs: one fwrite per string, usually */
            continue;
        }
        fwrite(run, 1, (size_t)(s - run), out);
        if (!*s)
            break;
        if (*s == '"' || *s == '\\') {
            putc_unlocked('\\', out);
            putc_unlocked(*s, out);
        } else if (*s < 0x20) {
            fprintf(out, "\\u%04x", *s);
        } else {
            fputs("\xEF\xBF\xBD", out);
        }
        run = ++s;
    }
    putc_unlocked('"', out);
}

void pt_html_text(FILE *out, const char *str)
{
    static const char *const esc[256] = {
        ['<'] = "&lt;", ['>'] = "&gt;", ['&'] = "&amp;", ['"'] = "&quot;", ['\''] = "&#39;",
    };
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    while (*s) {
        size_t n = utf8_len(s);
        if (n == 0) {
            fputs("\xEF\xBF\xBD", out);
            s++;
        } else if (esc[*s]) {
            fputs(esc[*s++], out);
        } else {
            fwrite(s, 1, n, out);
            s += n;
        }
    }
}

void pt_put_u64(FILE *out, uint64_t v)
{
    char buf[24], *p = buf + sizeof(buf);
    do
        *--p = (char)('0' + v % 10);
    while ((v /= 10));
    fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), out);
}

void pt_put_i64(FILE *out, int64_t v)
{
    if (v < 0) {
        putc_unlocked('-', out);
        pt_put_u64(out, (uint64_t)0 - (uint64_t)v);
    } else {
        pt_put_u64(out, (uint64_t)v);
    }
}

void pt_put_double(FILE *out, double v)
{
    if (!isfinite(v))
        fputs("null", out);     /* JSON has no NaN or infinity */
    else if (v > -9007199254740992.0 && v < 9007199254740992.0 && v == (double)(int64_t)v)
        pt_put_i64(out, (int64_t)v);    /* integral: exact, and 10x faster than printf */
    else
        fprintf(out, "%.17g", v);
}

/* ---- map ---------------------------------------------------------------------------------- */

static size_t slot_of(const pt_map *m, uint64_t key)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 20) & (m->cap - 1);
    while (m->values[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

void *pt_map_get(const pt_map *m, uint64_t key)
{
    return m->cap ? m->values[slot_of(m, key)] : NULL;
}

static void grow(pt_map *m)
{
    pt_map old = *m;
    m->cap = old.cap ? old.cap * 2 : 64;
    m->keys = pt_xcalloc(m->cap, sizeof(*m->keys));
    m->values = pt_xcalloc(m->cap, sizeof(*m->values));
    m->len = 0;
    for (size_t i = 0; i < old.cap; i++)
        if (old.values[i])
            pt_map_put(m, old.keys[i], old.values[i]);
    free(old.keys);
    free(old.values);
}

void pt_map_put(pt_map *m, uint64_t key, void *value)
{
    if ((m->len + 1) * 2 > m->cap)
        grow(m);
    size_t i = slot_of(m, key);
    if (!m->values[i])
        m->len++;
    m->keys[i] = key;
    m->values[i] = value;
}

void pt_map_free(pt_map *m)
{
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof(*m));
}

uint64_t pt_hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
    return h;
}
