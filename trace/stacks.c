/* SPDX-License-Identifier: MIT */
/* The call stacks of a trace: Paleventing:Stack events kept by address while the trace is read
 * (one entry per process, code epoch, event and addresses), named frame by frame at the end and
 * counted per event and distinct named stack. */
#include <stdlib.h>
#include <string.h>

#include "stacks.h"

/* A distinct stack as recorded: its key is [process, epoch, nframes, nlines, frames..., lines...]
 * then the event's name (nlines: the frames with a line, from the first); `ts` is the first time
 * it was seen (any time of the same epoch names it alike). */
typedef struct raw {
    const uint64_t *key;
    size_t len;
    uint64_t count;
    int64_t ts;
} raw;

struct pt_stacks {
    const char *event;          /* the wanted event, or NULL */
    pt_symbols *syms;
    pt_map raw_by_key;
    raw **raws;
    size_t nraws, cap_raws;
    uint64_t total;
    uint64_t *frames;           /* scratch: one event's frames */
    uint64_t *lines;            /* scratch: their lines */
    unsigned char *key;         /* scratch: one event's key */
    size_t key_cap;
    pt_map named_by_key;        /* length-prefixed names -> pt_stack */
    pt_map events;              /* event names -> their one copy */
    pt_stack **named;
    size_t nnamed, cap_named;
};

pt_stacks *pt_stacks_new(const char *event)
{
    pt_stacks *s = pt_xcalloc(1, sizeof(*s));
    s->event = event;
    s->syms = pt_symbols_new();
    s->frames = pt_xcalloc(PT_STACK_MAX_FRAMES, sizeof(*s->frames));
    s->lines = pt_xcalloc(PT_STACK_MAX_FRAMES, sizeof(*s->lines));
    return s;
}

void pt_stacks_free(pt_stacks *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nraws; i++)
        free(s->raws[i]);
    for (size_t i = 0; i < s->nnamed; i++) {
        free(s->named[i]->frames);
        free(s->named[i]);
    }
    pt_map_free(&s->raw_by_key);
    pt_map_free(&s->named_by_key);
    pt_map_free_values(&s->events);
    pt_symbols_free(s->syms);
    free(s->raws);
    free(s->named);
    free(s->frames);
    free(s->lines);
    free(s->key);
    free(s);
}

uint64_t pt_stacks_total(const pt_stacks *s)
{
    return s->total;
}

/* --event takes "provider:event" or "event". */
static int wanted(const pt_stacks *s, const char *provider, const char *event)
{
    size_t n = strlen(provider);
    if (!s->event || strcmp(s->event, event) == 0)
        return 1;
    return strncmp(s->event, provider, n) == 0 && s->event[n] == ':' && strcmp(s->event + n + 1, event) == 0;
}

static void on_stack(pt_stacks *s, const pt_event *ev)
{
    const char *provider = pt_member_str(ev, "provider"), *event = pt_member_str(ev, "event");
    if (!provider || !event || !wanted(s, provider, event))
        return;
    uint64_t process = pt_process_key(ev);
    size_t n = pt_member_u64_array(ev, "frames", s->frames, PT_STACK_MAX_FRAMES);
    size_t nl = pt_member_u64_array(ev, "lines", s->lines, n);    /* none in older traces */
    while (nl > 0 && s->lines[nl - 1] == 0)
        nl--;
    size_t lp = strlen(provider), le = strlen(event), at = (4 + n + nl) * 8, len = at + lp + 1 + le;
    s->key = pt_xgrow(s->key, &s->key_cap, len, 1);
    uint64_t head[4] = { process, pt_symbols_epoch(s->syms, process), n, nl };
    memcpy(s->key, head, sizeof(head));
    memcpy(s->key + 32, s->frames, n * 8);
    memcpy(s->key + 32 + n * 8, s->lines, nl * 8);
    memcpy(s->key + at, provider, lp);
    s->key[at + lp] = ':';
    memcpy(s->key + at + lp + 1, event, le);
    raw *r = pt_map_get_bytes(&s->raw_by_key, s->key, len);
    if (!r) {
        r = pt_xcalloc(1, sizeof(*r));
        r->key = pt_map_put_bytes(&s->raw_by_key, s->key, len, r);    /* 8-aligned: malloc'd */
        r->len = len;
        r->ts = ev->ts;
        s->raws = pt_xgrow(s->raws, &s->cap_raws, s->nraws + 1, sizeof(*s->raws));
        s->raws[s->nraws++] = r;
    }
    r->count++;
    s->total++;
}

void pt_stacks_event(pt_stacks *s, const pt_event *ev)
{
    if (strcmp(ev->cls->name, PCM_OWN_EVENT("Stack")) == 0)
        on_stack(s, ev);
    else
        pt_symbols_event(s->syms, ev);
}

/* ---- naming ---------------------------------------------------------------------------------------- */

static const char *event_name(pt_stacks *s, const char *name, size_t len)
{
    char *copy = pt_xstrndup(name, len), *known = pt_map_get_str(&s->events, copy);
    if (known) {
        free(copy);
        return known;
    }
    pt_map_put_str(&s->events, copy, copy);
    return copy;
}

/* The named stack of a raw one: names looked up, then counted with every stack named alike. */
static void name_raw(pt_stacks *s, const raw *r, const char **names, unsigned char **key, size_t *cap)
{
    uint64_t process = r->key[0], n = r->key[2], nl = r->key[3];
    const uint64_t *frames = r->key + 4, *lines = frames + n;
    const char *event = (const char *)(lines + nl);
    size_t elen = r->len - (4 + n + nl) * 8, len = 4 + elen;
    for (uint64_t i = 0; i < n; i++) {
        names[i] = pt_symbols_frame_name(s->syms, process, frames[i], r->ts, i < nl ? (uint32_t)lines[i] : 0);
        len += 4 + strlen(names[i]);
    }
    *key = pt_xgrow(*key, cap, len, 1);
    unsigned char *p = *key;
    for (uint64_t i = 0; i <= n; i++) {     /* the event, then each name: length and bytes */
        const char *t = i ? names[i - 1] : event;
        uint32_t tl = i ? (uint32_t)strlen(t) : (uint32_t)elen;
        memcpy(p, &tl, 4);
        memcpy(p + 4, t, tl);
        p += 4 + tl;
    }
    pt_stack *st = pt_map_get_bytes(&s->named_by_key, *key, len);
    if (!st) {
        st = pt_xcalloc(1, sizeof(*st));
        st->event = event_name(s, event, elen);
        st->frames = pt_xcalloc(n ? n : 1, sizeof(*st->frames));
        memcpy(st->frames, names, n * sizeof(*names));
        st->nframes = (unsigned)n;
        pt_map_put_bytes(&s->named_by_key, *key, len, st);
        s->named = pt_xgrow(s->named, &s->cap_named, s->nnamed + 1, sizeof(*s->named));
        s->named[s->nnamed++] = st;
    }
    st->count += r->count;
}

/* By event, then most frequent first, then by frames: the output is stable. */
static int by_event_count(const void *x, const void *y)
{
    const pt_stack *a = *(pt_stack *const *)x, *b = *(pt_stack *const *)y;
    int c = strcmp(a->event, b->event);
    if (c)
        return c;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    for (unsigned i = 0; i < a->nframes && i < b->nframes; i++)
        if ((c = strcmp(a->frames[i], b->frames[i])))
            return c;
    return (a->nframes > b->nframes) - (a->nframes < b->nframes);
}

void pt_stacks_finish(pt_stacks *s)
{
    const char **names = pt_xcalloc(PT_STACK_MAX_FRAMES, sizeof(*names));
    unsigned char *key = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < s->nraws; i++)
        name_raw(s, s->raws[i], names, &key, &cap);
    free(names);
    free(key);
    if (s->nnamed)
        qsort(s->named, s->nnamed, sizeof(*s->named), by_event_count);
}

size_t pt_stacks_count(const pt_stacks *s)
{
    return s->nnamed;
}

const pt_stack *pt_stacks_at(const pt_stacks *s, size_t i)
{
    return s->named[i];
}

size_t pt_stacks_run(const pt_stacks *s, size_t i)
{
    size_t j = i + 1;
    while (j < s->nnamed && s->named[j]->event == s->named[i]->event)
        j++;
    return j - i;
}
