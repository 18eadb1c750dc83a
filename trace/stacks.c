/* SPDX-License-Identifier: MIT */
/* The call stacks of a trace: Paleventing:Stack events named frame by frame, counted per distinct
 * stack and event, printed as text, folded lines (flamegraph.pl, speedscope) or speedscope JSON. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "stacks_read.h"
#include "stacks.h"
#include "symbols.h"

#define MAX_FRAMES 1024
#define NAME_MAX_LEN 512
#define SEP '\x1f'     /* between frame names in a key: never in a symbol or a method name */

/* One distinct stack of one event: key = "provider:event" SEP frame0 SEP frame1 ... (innermost
 * first). */
struct stack {
    char *key;
    uint64_t count;
};

struct agg {
    struct ps_symbols *syms;
    const char *event;          /* --event, or NULL */
    struct stack *slots;        /* open addressing, power-of-two size */
    size_t nslots, used;
    uint64_t total;
    uint64_t seen;              /* Stack events seen by the first pass */
    int quiet;                  /* no error message when there is no Stack event */
    char *key;                  /* scratch for the key being built */
    size_t key_cap;
};

/* ---- counting -------------------------------------------------------------------------------- */

static int rehash(struct agg *a)
{
    size_t n = a->nslots ? a->nslots * 2 : 1024;
    struct stack *slots = calloc(n, sizeof(*slots));

    if (!slots)
        return -ENOMEM;
    for (size_t i = 0; i < a->nslots; i++) {
        size_t j;

        if (!a->slots[i].key)
            continue;
        for (j = pt_hash_str(a->slots[i].key) & (n - 1); slots[j].key; j = (j + 1) & (n - 1))
            ;
        slots[j] = a->slots[i];
    }
    free(a->slots);
    a->slots = slots;
    a->nslots = n;
    return 0;
}

static int count(struct agg *a, const char *key)
{
    size_t j;

    if ((a->used + 1) * 2 > a->nslots && rehash(a))
        return -ENOMEM;
    for (j = pt_hash_str(key) & (a->nslots - 1); a->slots[j].key; j = (j + 1) & (a->nslots - 1))
        if (strcmp(a->slots[j].key, key) == 0)
            break;
    if (!a->slots[j].key && !(a->slots[j].key = strdup(key)))
        return -ENOMEM;
    a->used += a->slots[j].count++ == 0;
    a->total++;
    return 0;
}

static int key_append(struct agg *a, size_t *len, const char *s, int sep)
{
    size_t n = strlen(s);

    if (*len + n + 2 > a->key_cap) {
        size_t cap = (*len + n + 2) * 2;
        char *k = realloc(a->key, cap);

        if (!k)
            return -ENOMEM;
        a->key = k;
        a->key_cap = cap;
    }
    if (sep)
        a->key[(*len)++] = SEP;
    memcpy(a->key + *len, s, n + 1);
    *len += n;
    return 0;
}

static int wanted(const struct agg *a, const char *provider, const char *event)
{
    size_t n = strlen(provider);

    if (!a->event)
        return 1;
    if (strcmp(a->event, event) == 0)
        return 1;
    return strncmp(a->event, provider, n) == 0 && a->event[n] == ':' &&
           strcmp(a->event + n + 1, event) == 0;
}

static int on_stack(struct agg *a, const struct ps_event *e)
{
    static uint64_t frames[MAX_FRAMES];
    const char *provider = ps_str(e, "provider"), *event = ps_str(e, "event");
    char name[NAME_MAX_LEN];
    size_t n, len = 0;
    int ret;

    if (!provider || !event || !wanted(a, provider, event))
        return 0;
    n = ps_u64_array(e, "frames", frames, MAX_FRAMES);
    if ((ret = key_append(a, &len, provider, 0)) || (ret = key_append(a, &len, ":", 0)) ||
        (ret = key_append(a, &len, event, 0)))
        return ret;
    for (size_t i = 0; i < n; i++)
        if ((ret = key_append(a, &len, ps_symbols_name(a->syms, e->vpid, e->ns, frames[i], name,
                                                       sizeof(name)), 1)))
            return ret;
    return count(a, a->key);
}

static int pass_code(void *ctx, const struct ps_event *e)
{
    struct agg *a = ctx;

    a->seen += strcmp(e->name, "Paleventing:Stack") == 0;
    return ps_symbols_feed(a->syms, e);
}

static int pass_stacks(void *ctx, const struct ps_event *e)
{
    return strcmp(e->name, "Paleventing:Stack") == 0 ? on_stack(ctx, e) : 0;
}

static void agg_free(struct agg *a)
{
    for (size_t i = 0; i < a->nslots; i++)
        free(a->slots[i].key);
    free(a->slots);
    free(a->key);
    ps_symbols_free(a->syms);
}

/* Two passes: what the trace says about code first (a rundown may come after the first stacks),
 * then the stacks, each named with the code live at its time. */
static int collect(struct agg *a, const char *trace, FILE *err)
{
    uint64_t discarded = 0;
    int ret;

    if (!(a->syms = ps_symbols_new()))
        return -ENOMEM;
    ret = ps_read(trace, pass_code, a, &discarded);
    if (ret == 0 && a->seen)
        ret = ps_read(trace, pass_stacks, a, NULL);
    if (ret) {  /* no trace there: the reader said so */
        if (ret != -ENOENT)
            fprintf(err, "palev-trace: %s: %s\n", trace, strerror(-ret));
        return ret;
    }
    if (discarded && !a->quiet)
        fprintf(err, "palev-trace: warning: LTTng discarded %llu events of %s: stacks may be "
                "missing (larger channel buffers)\n", (unsigned long long)discarded, trace);
    if (a->total == 0 && !a->quiet) {
        fprintf(err, "palev-trace: %s: no Paleventing:Stack event%s%s (record them with "
                "`lttng enable-event -u Paleventing:Stack`)\n", trace, a->event ? " for " : "",
                a->event ? a->event : "");
        return -ENOENT;
    }
    return 0;
}

/* ---- the stacks, sorted ---------------------------------------------------------------------- */

static size_t event_len(const char *key)
{
    const char *sep = strchr(key, SEP);

    return sep ? (size_t)(sep - key) : strlen(key);
}

static int same_event(const char *a, const char *b)
{
    size_t len = event_len(a);

    return event_len(b) == len && strncmp(a, b, len) == 0;
}

/* By event, then most frequent first, then by text: the output is stable. */
static int by_event_count(const void *x, const void *y)
{
    const struct stack *a = x, *b = y;
    size_t la = event_len(a->key), lb = event_len(b->key);
    int c = strncmp(a->key, b->key, la < lb ? la : lb);

    if (c || la != lb)
        return c ? c : la < lb ? -1 : 1;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return strcmp(a->key, b->key);
}

/* The distinct stacks, packed at the front of the table and sorted; returns how many. */
static size_t sorted(struct agg *a)
{
    size_t n = 0;

    for (size_t i = 0; i < a->nslots; i++)
        if (a->slots[i].key)
            a->slots[n++] = a->slots[i];
    for (size_t i = n; i < a->nslots; i++)
        a->slots[i] = (struct stack){ 0 };
    qsort(a->slots, n, sizeof(*a->slots), by_event_count);
    return n;
}

/* The frames of a key, innermost first; returns how many (at most max). */
static size_t split(char *key, char **frames, size_t max)
{
    size_t n = 0;
    char *p = strchr(key, SEP);

    while (p && n < max) {
        *p++ = '\0';
        frames[n++] = p;
        p = strchr(p, SEP);
    }
    return n;
}

/* ---- text and folded ------------------------------------------------------------------------- */

static uint64_t event_total(const struct stack *s, size_t n, size_t i)
{
    uint64_t t = 0;

    for (size_t j = i; j < n && same_event(s[j].key, s[i].key); j++)
        t += s[j].count;
    return t;
}

static void print_text(struct agg *a, size_t n, long top, FILE *out)
{
    static char *frames[MAX_FRAMES];
    uint64_t total = 0;
    long rank = 0;

    for (size_t i = 0; i < n; i++) {
        char *key = a->slots[i].key;
        size_t len = event_len(key), nf;

        if (i == 0 || !same_event(a->slots[i - 1].key, key)) {
            size_t distinct = 0;

            total = event_total(a->slots, n, i);
            for (size_t j = i; j < n && same_event(a->slots[j].key, key); j++)
                distinct++;
            fprintf(out, "%s%.*s: %llu stack%s, %zu distinct\n", i ? "\n" : "", (int)len, key,
                    (unsigned long long)total, total == 1 ? "" : "s", distinct);
            rank = 0;
        }
        if (++rank > top)
            continue;
        nf = split(key, frames, MAX_FRAMES);
        fprintf(out, "  #%ld  %llu (%.1f%%)\n", rank, (unsigned long long)a->slots[i].count,
                100.0 * (double)a->slots[i].count / (double)total);
        for (size_t f = 0; f < nf; f++)
            fprintf(out, "      %s\n", frames[f]);
        if (nf == 0)
            fprintf(out, "      (no frame)\n");
        key[len] = SEP; /* restored: the event name is compared again on the next stack */
    }
}

/* flamegraph.pl's folded format: "root;...;leaf count", the event as the root frame. Semicolons
 * inside names (none in C symbols) would split frames: they become ':'. */
static void print_folded(struct agg *a, size_t n, FILE *out)
{
    static char *frames[MAX_FRAMES];

    for (size_t i = 0; i < n; i++) {
        char *key = a->slots[i].key;
        size_t len = event_len(key), nf = split(key, frames, MAX_FRAMES);

        for (char *c = key; *c; c++)
            *c = *c == ';' ? ':' : *c;
        fputs(key, out);
        for (size_t f = nf; f > 0; f--) {
            for (char *c = frames[f - 1]; *c; c++)
                *c = *c == ';' ? ':' : *c;
            fprintf(out, ";%s", frames[f - 1]);
        }
        fprintf(out, " %llu\n", (unsigned long long)a->slots[i].count);
        key[len] = SEP;
    }
}

/* ---- the commands ---------------------------------------------------------------------------- */

int ps_stacks_print(const struct ps_stacks_opts *o, FILE *out, FILE *err)
{
    struct agg a = { .event = o->event };
    int ret = collect(&a, o->trace, err);

    if (ret == 0) {
        size_t n = sorted(&a);

        if (o->folded)
            print_folded(&a, n, out);
        else
            print_text(&a, n, o->top, out);
    }
    agg_free(&a);
    return ret ? 1 : 0;
}

/* ---- speedscope ------------------------------------------------------------------------------ */

/* Distinct frame names, in order of first use: speedscope's shared frame table. */
struct names {
    char **items;
    size_t n, cap;
};

static long name_index(struct names *t, const char *s)
{
    for (size_t i = 0; i < t->n; i++)    /* few distinct names per trace */
        if (strcmp(t->items[i], s) == 0)
            return (long)i;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        char **p = realloc(t->items, cap * sizeof(*p));

        if (!p)
            return -1;
        t->items = p;
        t->cap = cap;
    }
    t->items[t->n] = (char *)s;
    return (long)t->n++;
}

static void json_profile(struct agg *a, size_t from, size_t to, struct names *t, FILE *out)
{
    static char *frames[MAX_FRAMES];
    char *key = a->slots[from].key;
    size_t len = event_len(key);
    uint64_t total = 0;

    fprintf(out, "{\"type\":\"sampled\",\"name\":");
    key[len] = '\0';
    pt_json_string(out, key);
    key[len] = SEP;
    fprintf(out, ",\"unit\":\"none\",\"startValue\":0,\"samples\":[");
    for (size_t i = from; i < to; i++) {
        size_t nf = split(a->slots[i].key, frames, MAX_FRAMES);

        fprintf(out, "%s[", i > from ? "," : "");
        for (size_t f = nf; f > 0; f--)   /* speedscope: root first */
            fprintf(out, "%s%ld", f < nf ? "," : "", name_index(t, frames[f - 1]));
        fputc(']', out);
        total += a->slots[i].count;
    }
    fprintf(out, "],\"weights\":[");
    for (size_t i = from; i < to; i++)
        fprintf(out, "%s%llu", i > from ? "," : "", (unsigned long long)a->slots[i].count);
    fprintf(out, "],\"endValue\":%llu}", (unsigned long long)total);
}

/* The keys stay split (their frames are the names table's strings) until agg_free(). */
static void print_speedscope(struct agg *a, size_t n, const char *trace, FILE *out)
{
    struct names t = { 0 };
    size_t from = 0;

    fprintf(out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
                 "\"exporter\":\"palev-trace\",\"name\":");
    pt_json_string(out, trace);
    fprintf(out, ",\"activeProfileIndex\":0,\"profiles\":[");
    while (from < n) {
        size_t to = from + 1;

        while (to < n && same_event(a->slots[to].key, a->slots[from].key))
            to++;
        fprintf(out, "%s", from ? "," : "");
        json_profile(a, from, to, &t, out);
        from = to;
    }
    fprintf(out, "],\"shared\":{\"frames\":[");
    for (size_t i = 0; i < t.n; i++) {
        fprintf(out, "%s{\"name\":", i ? "," : "");
        pt_json_string(out, t.items[i]);
        fputc('}', out);
    }
    fprintf(out, "]}}\n");
    free(t.items);
}

int ps_stacks_speedscope(const struct ps_stacks_opts *o, const char *path, FILE *err)
{
    struct agg a = { .event = o->event };
    int ret = collect(&a, o->trace, err);
    FILE *f = NULL;

    if (ret == 0 && !(f = fopen(path, "w"))) {
        fprintf(err, "palev-trace: %s: %s\n", path, strerror(errno));
        ret = -errno;
    }
    if (ret == 0) {
        print_speedscope(&a, sorted(&a), o->trace, f);
        if (fclose(f) != 0) {
            fprintf(err, "palev-trace: %s: %s\n", path, strerror(errno));
            ret = -EIO;
        }
    }
    agg_free(&a);
    return ret ? 1 : 0;
}

/* ---- the HTML report's section --------------------------------------------------------------- */

static void html_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", out);
        else if (*s == '>')
            fputs("&gt;", out);
        else if (*s == '&')
            fputs("&amp;", out);
        else if (*s == '"')
            fputs("&quot;", out);
        else
            fputc(*s, out);
    }
}

static void html_stack(FILE *out, char *key, uint64_t count, uint64_t total)
{
    static char *frames[MAX_FRAMES];
    size_t nf = split(key, frames, MAX_FRAMES);

    fprintf(out, "<tr><td>%llu (%.1f%%)</td><td><ol class=\"stack\">",
            (unsigned long long)count, 100.0 * (double)count / (double)total);
    for (size_t f = 0; f < nf; f++) {
        fputs("<li>", out);
        html_text(out, frames[f]);
        fputs("</li>", out);
    }
    fputs("</ol></td></tr>\n", out);
}

void ps_stacks_html(FILE *out, const char *trace, unsigned top)
{
    struct agg a = { .quiet = 1 };
    size_t n, from = 0;

    if (collect(&a, trace, stderr) != 0 || !(n = sorted(&a))) {
        agg_free(&a);
        return;
    }
    fputs("<h2>Where they come from</h2>\n<p>The most frequent call paths of each event recorded "
          "with its stack (Paleventing:Stack), innermost frame first.</p>\n", out);
    while (from < n) {
        size_t len = event_len(a.slots[from].key), to = from + 1;
        uint64_t total = event_total(a.slots, n, from);

        while (to < n && same_event(a.slots[to].key, a.slots[from].key))
            to++;
        fputs("<h3 class=\"task\">", out);
        a.slots[from].key[len] = '\0';
        html_text(out, a.slots[from].key);
        a.slots[from].key[len] = SEP;
        fputs("</h3>\n<table class=\"top\"><tr><th>stacks</th>"
              "<th style=\"text-align:left\">call path</th></tr>\n", out);
        for (size_t i = from; i < to && i - from < top; i++)
            html_stack(out, a.slots[i].key, a.slots[i].count, total);
        fputs("</table>\n", out);
        from = to;
    }
    agg_free(&a);
}
