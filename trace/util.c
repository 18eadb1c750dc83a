/* SPDX-License-Identifier: MIT */
/* palev-trace's small services: memory that cannot fail silently, the hash table, numbers and
 * escaped text written out (the table, hashes, JSON rules and UTF-8 from common/), output files
 * renamed into place when complete. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"
#include "json.h"
#include "utf.h"
#include "util.h"

/* ---- memory ------------------------------------------------------------------------------------ */

static void out_of_memory(void)
{
    fputs("palev-trace: error: out of memory\n", stderr);
    exit(1);
}

void *pt_xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
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

void *pt_xgrow(void *p, size_t *cap, size_t need, size_t size)
{
    size_t n = *cap ? *cap : 8;
    if (need <= *cap)
        return p;
    while (n < need)
        n *= 2;
    if (n > SIZE_MAX / size)
        out_of_memory();
    *cap = n;
    return pt_xrealloc(p, n * size);
}

char *pt_xstrdup(const char *s)
{
    return pt_xstrndup(s, strlen(s));
}

char *pt_xstrndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *p = pt_xmalloc(len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *pt_xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        out_of_memory();    /* only an impossible format fails: treated as the worst case */
    char *s = pt_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* ---- the hash table: common/map.c, its arrays on the heap ------------------------------------- */

uint64_t pt_hash_str(const char *s)
{
    return pcm_fnv1a64_str(s);
}

uint64_t pt_hash_bytes(const void *p, size_t n)
{
    return pcm_hash_bytes(PCM_HASH_SEED, p, n);
}

static void *map_zalloc(void *ctx, size_t n)
{
    (void)ctx;
    return pt_xcalloc(1, n);
}

static void map_release(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static const pcm_map_alloc heap = { map_zalloc, map_release, NULL };

/* pt_xcalloc() never returns NULL, so neither does pcm_map_reserve(). */
static pt_map_slot *put(pt_map *m, uint64_t hash, const void *key, size_t len, void *value)
{
    pt_map_slot *s = pcm_map_reserve(m, &heap, hash, key, len);
    char *copy = NULL;

    if (s->value) {
        s->value = value;
        return s;
    }
    if (key) {
        copy = pt_xmalloc(len + 1);
        memcpy(copy, key, len);
        copy[len] = '\0';
    }
    pcm_map_fill(m, s, hash, copy, len, value);
    return s;
}

void *pt_map_get(const pt_map *m, uint64_t key)
{
    return pcm_map_get(m, key, NULL, 0);
}

void pt_map_put(pt_map *m, uint64_t key, void *value)
{
    put(m, key, NULL, 0, value);
}

void *pt_map_get_bytes(const pt_map *m, const void *key, size_t len)
{
    return pcm_map_get(m, pt_hash_bytes(key, len), key, len);
}

const void *pt_map_put_bytes(pt_map *m, const void *key, size_t len, void *value)
{
    return put(m, pt_hash_bytes(key, len), key, len, value)->key;
}

void *pt_map_get_str(const pt_map *m, const char *key)
{
    return pcm_map_get(m, pt_hash_str(key), key, strlen(key));
}

const char *pt_map_put_str(pt_map *m, const char *key, void *value)
{
    return put(m, pt_hash_str(key), key, strlen(key), value)->key;
}

void pt_map_free(pt_map *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free((void *)m->slots[i].key);
    pcm_map_clear(m, &heap);
}

void pt_map_free_values(pt_map *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->slots[i].value);
    pt_map_free(m);
}

void *pt_memo_get(pt_memo *m, const void *key)
{
    if (key == m->last_key && m->last)
        return m->last;
    void *v = pt_map_get(&m->map, (uint64_t)(uintptr_t)key);
    if (v) {
        m->last_key = key;
        m->last = v;
    }
    return v;
}

void *pt_memo_put(pt_memo *m, const void *key, void *value)
{
    pt_map_put(&m->map, (uint64_t)(uintptr_t)key, value);
    m->last_key = key;
    m->last = value;
    return value;
}

void pt_memo_free(pt_memo *m)
{
    pt_map_free_values(&m->map);
    m->last_key = NULL;
    m->last = NULL;
}

/* ---- numbers and times ----------------------------------------------------------------------------- */

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

const char *pt_fmt_time(int64_t ns, char *buf, size_t size)
{
    time_t secs = (time_t)(ns / 1000000000);
    struct tm tm;
    char day[32];
    gmtime_r(&secs, &tm);
    strftime(day, sizeof(day), "%Y-%m-%d %H:%M:%S", &tm);
    snprintf(buf, size, "%s.%09lld UTC", day, (long long)(ns % 1000000000));
    return buf;
}

void pt_put_u64(FILE *out, uint64_t v)
{
    char buf[20];

    fwrite(buf, 1, pcm_u64_text(buf, v), out);
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
    char buf[PCM_JSON_NUMBER_MAX];

    fwrite(buf, 1, pcm_json_number(buf, v, PCM_JSON_DOUBLE_DIGITS), out);
}

/* ---- escaped text: common/utf.c says what is UTF-8, common/json.c how JSON escapes --------------- */

/* How the terminal text of the sequence at s is written: NULL when as it is (n bytes). */
static const char *term_escape(const unsigned char *s, size_t *n, char *buf)
{
    static const char *const named[32] = { ['\n'] = "\\n", ['\t'] = "\\t", ['\r'] = "\\r" };
    *n = pcm_utf8_len(s);
    if (*n == 0) {
        *n = 1;     /* not UTF-8: the byte itself, as a number */
    } else if (*n == 1 && s[0] >= 0x20 && s[0] != 0x7F && s[0] != '\\') {
        return NULL;
    } else if (*n == 2 && s[0] == 0xC2 && s[1] < 0xA0) {
        sprintf(buf, "\\u%04x", s[1]);    /* a C1 control: U+0080 .. U+009F */
        return buf;
    } else if (*n > 1) {
        return NULL;
    }
    if (s[0] == '\\')
        return "\\\\";
    if (s[0] < 0x20 && named[s[0]])
        return named[s[0]];
    sprintf(buf, "\\x%02x", s[0]);
    return buf;
}

const char *pt_term(pt_text *t, const char *str)
{
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    char buf[8];
    size_t n, len = 0, cap = 0, i;
    char *out = NULL;
    for (i = 0; s[i]; i += n)
        if (term_escape(s + i, &n, buf))
            break;
    if (!s[i])
        return (const char *)s;     /* nothing to escape: the usual case */
    for (i = 0; s[i]; i += n) {
        const char *e = term_escape(s + i, &n, buf);
        size_t k = e ? strlen(e) : n;
        out = pt_xgrow(out, &cap, len + k + 1, 1);
        memcpy(out + len, e ? e : (const char *)s + i, k);
        len += k;
    }
    out[len] = '\0';
    t->items = pt_xgrow(t->items, &t->cap, t->n + 1, sizeof(*t->items));
    t->items[t->n++] = out;
    return out;
}

void pt_text_free(pt_text *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->items[i]);
    free(t->items);
    memset(t, 0, sizeof(*t));
}

/* U+FFFD for a byte that is not UTF-8. */
static void put_replacement(FILE *out)
{
    char u[4];

    fwrite(u, 1, pcm_utf8_encode(PCM_REPLACEMENT_CHAR, u), out);
}

void pt_json_string(FILE *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)(str ? str : ""), *run = s;
    char esc[PCM_JSON_ESCAPE_MAX];
    putc_unlocked('"', out);
    for (;;) {
        size_t n = pcm_json_plain(*s) ? 1 : *s >= 0x80 ? pcm_utf8_len(s) : 0;
        if (n) {
            s += n;     /* safe bytes are written in runs: one fwrite per string, usually */
            continue;
        }
        fwrite(run, 1, (size_t)(s - run), out);
        if (!*s)
            break;
        if (*s < 0x80)
            fwrite(esc, 1, pcm_json_escape(*s, esc), out);
        else
            put_replacement(out);
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
        size_t n = pcm_utf8_len(s);
        if (n == 0) {
            put_replacement(out);
            s++;
        } else if (esc[*s]) {
            fputs(esc[*s++], out);
        } else {
            fwrite(s, 1, n, out);
            s += n;
        }
    }
}

/* ---- output files ------------------------------------------------------------------------------- */

int pt_output_open(pt_output *o, const char *path)
{
    memset(o, 0, sizeof(*o));
    o->tmp = pt_xasprintf("%s.XXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
        fprintf(stderr, "palev-trace: error: %s: cannot create it: %s\n", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(o->tmp);
        }
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);   /* as fopen() would have made it, not mkstemp()'s 0600 */
    o->path = pt_xstrdup(path);
    setvbuf(o->f, NULL, _IOFBF, 1 << 20);
    return 0;
}

static void output_free(pt_output *o)
{
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof(*o));
}

int pt_output_commit(pt_output *o)
{
    int rc = 0;
    errno = 0;
    if (fflush(o->f) != 0 || ferror(o->f)) {
        fprintf(stderr, "palev-trace: error: %s: cannot write it: %s\n", o->path, strerror(errno ? errno : EIO));
        rc = -1;
    }
    if (fclose(o->f) != 0 && rc == 0) {
        fprintf(stderr, "palev-trace: error: %s: cannot write it: %s\n", o->path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && rename(o->tmp, o->path) != 0) {
        fprintf(stderr, "palev-trace: error: %s: cannot put it in place: %s\n", o->path, strerror(errno));
        rc = -1;
    }
    if (rc)
        unlink(o->tmp);
    output_free(o);
    return rc;
}

void pt_output_abort(pt_output *o)
{
    if (o->f) {
        fclose(o->f);
        unlink(o->tmp);
    }
    output_free(o);
}

int pt_close_stdout(void)
{
    errno = 0;
    int err = fflush(stdout) != 0 ? errno : 0, failed = err || ferror(stdout);
    if (fclose(stdout) != 0 && !failed)
        err = errno, failed = 1;
    if (!failed)
        return 0;
    if (err)
        fprintf(stderr, "palev-trace: error: cannot write the output: %s\n", strerror(err));
    else    /* an earlier write failed; why is no longer known */
        fputs("palev-trace: error: cannot write the output: a write to the standard output failed\n", stderr);
    return -1;
}
