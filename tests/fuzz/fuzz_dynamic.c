/* SPDX-License-Identifier: MIT */
/* libFuzzer target: dynamic event definitions (names, types, flags, counts), one by one or several
 * in one palev_event_define_many() call, against an independent validity rule, then writes of
 * fuzzed values through the real probe into a stand-in ring buffer that checks every byte written
 * lands inside the size the probe reserved and that the whole reservation is filled; and
 * palev_event_undefine_provider() of fuzzed names, checked against the handles given out. */
#include "dynamic.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

/* ---- input reader ----------------------------------------------------------------------- */

struct in {
    const uint8_t *p;
    size_t n;
};

static uint8_t byte(struct in *in)
{
    if (!in->n)
        return 0;
    in->n--;
    return *in->p++;
}

/* A NUL-terminated string of up to `max` bytes from the input, in `buf`. */
static const char *text(struct in *in, char *buf, size_t max)
{
    size_t len = byte(in) % (max + 1);

    for (size_t i = 0; i < len; i++)
        buf[i] = (char)byte(in);
    buf[len] = '\0';
    return buf;
}

/* ---- the oracle: what palev_event_define() must say --------------------------------------- */

static int ident(const char *s)
{
    if (!s[0] || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return 0;
    return 1;
}

static int type_ok(const palev_field *f)
{
    int integer = f->type >= PALEV_TYPE_INT8 && f->type <= PALEV_TYPE_UINT64;
    int fp = f->type == PALEV_TYPE_FLOAT || f->type == PALEV_TYPE_DOUBLE;

    if (f->type < PALEV_TYPE_INT8 || f->type > PALEV_TYPE_BYTES || (f->flags & ~3u))
        return 0;
    if ((f->flags & PALEV_FIELD_HEX) && !integer)
        return 0;
    return !(f->flags & PALEV_FIELD_ARRAY) || integer || fp;
}

/* An LTTng sequence (integer array, BYTES): recorded after a hidden "_<name>_length" field. */
static int sequence(const palev_field *f)
{
    return f->type == PALEV_TYPE_BYTES ||
           ((f->flags & PALEV_FIELD_ARRAY) && f->type >= PALEV_TYPE_INT8 &&
            f->type <= PALEV_TYPE_UINT64);
}

/* The names of field f as trace readers may see them (every leading '_' gone): its own, and
 * its hidden length field's. */
static void seen_as(const palev_field *f, char *own, char *length)
{
    char full[PALEV_FIELD_MAX_NAME + 16];
    const char *p = f->name;

    while (*p == '_')
        p++;
    strcpy(own, p);
    length[0] = '\0';
    if (sequence(f)) {
        snprintf(full, sizeof(full), "_%s_length", f->name);
        for (p = full; *p == '_'; p++)
            ;
        strcpy(length, p);
    }
}

/* Two fields whose names meet as readers see them. */
static int meet(const palev_field *a, const palev_field *b)
{
    char a1[PALEV_FIELD_MAX_NAME + 16], a2[PALEV_FIELD_MAX_NAME + 16];
    char b1[PALEV_FIELD_MAX_NAME + 16], b2[PALEV_FIELD_MAX_NAME + 16];

    seen_as(a, a1, a2);
    seen_as(b, b1, b2);
    return strcmp(a1, b1) == 0 || (b2[0] && strcmp(a1, b2) == 0) ||
           (a2[0] && strcmp(a2, b1) == 0);
}

static int reserved_name(const char *prov)
{
    return strncmp(prov, "lttng_", 6) == 0 || strcmp(prov, "Paleventing") == 0;
}

static int expected(const char *prov, const char *name, const palev_field *f, size_t n)
{
    if (!ident(prov) || !ident(name))
        return -EINVAL;
    if (strlen(prov) + 1 + strlen(name) > PALEV_EVENT_MAX_NAME)
        return -ENAMETOOLONG;
    if (n > PALEV_EVENT_MAX_FIELDS)
        return -E2BIG;
    for (size_t i = 0; i < n; i++) {
        if (!ident(f[i].name) || !type_ok(&f[i]))
            return -EINVAL;
        if (strlen(f[i].name) > PALEV_FIELD_MAX_NAME)
            return -ENAMETOOLONG;
        for (size_t k = 0; k < i; k++)
            if (meet(&f[k], &f[i]))
                return -EINVAL;
    }
    return reserved_name(prov) ? -EBUSY : 0;
}

/* ---- a stand-in ring buffer --------------------------------------------------------------- */

static size_t reserved, written, commits;
static volatile uint8_t sink;

static int reserve(struct lttng_ust_ring_buffer_ctx *ctx)
{
    reserved = ctx->data_size;
    written = 0;
    return 0;
}

static void put(struct lttng_ust_ring_buffer_ctx *ctx, const void *src, size_t len)
{
    (void)ctx;
    for (size_t i = 0; i < len; i++)
        sink = (uint8_t)(sink + ((const uint8_t *)src)[i]); /* ASan sees every byte read */
    written += len;
    CHECK(written <= reserved);
}

static void write_bytes(struct lttng_ust_ring_buffer_ctx *ctx, const void *src, size_t len,
                        size_t align)
{
    (void)align;    /* packed on x86, as the probe computes it */
    put(ctx, src, len);
}

static void write_str(struct lttng_ust_ring_buffer_ctx *ctx, const char *src, size_t len)
{
    CHECK(len >= 1 && strlen(src) == len - 1);
    put(ctx, src, len);
}

static void commit(struct lttng_ust_ring_buffer_ctx *ctx)
{
    (void)ctx;
    CHECK(written == reserved);
    commits++;
}

static struct lttng_ust_channel_buffer_ops ops = {
    .struct_size = sizeof(ops), .event_reserve = reserve, .event_commit = commit,
    .event_write = write_bytes, .event_strcpy = write_str,
};
static struct lttng_ust_session session = { .struct_size = sizeof(session), .active = 1 };
static struct lttng_ust_channel_common chan_common = {
    .struct_size = sizeof(chan_common), .enabled = 1, .session = &session };
static struct lttng_ust_channel_buffer chan = {
    .struct_size = sizeof(chan), .parent = &chan_common, .ops = &ops };
static struct lttng_ust_event_recorder recorder = { .struct_size = sizeof(recorder), .chan = &chan };
static struct lttng_ust_event_common common = {
    .struct_size = sizeof(common), .type = LTTNG_UST_EVENT_TYPE_RECORDER, .child = &recorder,
    .enabled = 1 };
static struct lttng_ust_tracepoint_probe probes[2];

static void nop(void)
{
}

static void *deref(void *p)
{
    return p;
}

/* ---- the target ------------------------------------------------------------------------- */

/* Events are never freed: past this many, only names already defined are used. */
#define MAX_DEFINED 20000
static size_t defined;

static void fill_value(struct in *in, const palev_field *f, palev_value *v, char *buf,
                       char16_t *buf16, uint8_t *arr)
{
    size_t n = byte(in) % 48;

    memset(v, 0, sizeof(*v));
    for (size_t i = 0; i < 8; i++)
        v->v.u = v->v.u << 8 | byte(in);
    if (f->type == PALEV_TYPE_STRING) {
        v->v.s = text(in, buf, 64);
        v->len = byte(in) & 1 ? PALEV_NUL_TERMINATED : strlen(buf) / 2;
    } else if (f->type == PALEV_TYPE_STRING16) {
        for (size_t i = 0; i < n; i++)
            buf16[i] = (char16_t)(byte(in) << 8 | byte(in));
        buf16[n] = 0;
        v->v.s16 = buf16;
        v->len = byte(in) & 1 ? PALEV_NUL_TERMINATED : n;
    } else if (f->type == PALEV_TYPE_GUID) {
        v->v.guid = byte(in) & 1 ? NULL : (const palev_guid *)(const void *)arr;
    } else if ((f->flags & PALEV_FIELD_ARRAY) || f->type == PALEV_TYPE_BYTES) {
        for (size_t i = 0; i < 48 * 8; i++)
            arr[i] = byte(in);
        v->v.p = n ? arr : NULL;
        v->len = n;     /* elements of at most 8 bytes: inside arr */
    } else if (f->type == PALEV_TYPE_FLOAT || f->type == PALEV_TYPE_DOUBLE) {
        memcpy(&v->v.d, &v->v.u, sizeof(double));
    }
}

static void write_event(struct in *in, palev_event *ev, const palev_field *f, size_t n)
{
    static char bufs[PALEV_EVENT_MAX_FIELDS][65];
    static char16_t bufs16[PALEV_EVENT_MAX_FIELDS][49];
    static uint8_t arrs[PALEV_EVENT_MAX_FIELDS][48 * 8] __attribute__((aligned(16)));
    palev_value v[PALEV_EVENT_MAX_FIELDS];
    size_t before = commits;

    for (size_t i = 0; i < n; i++)
        fill_value(in, &f[i], &v[i], bufs[i], bufs16[i], arrs[i]);
    /* After the define: its first call looked liblttng-ust up (absent here) and cleared these. */
    palev__ust.rcu_read_lock = nop;
    palev__ust.rcu_read_unlock = nop;
    palev__ust.rcu_dereference = deref;
    probes[0] = (struct lttng_ust_tracepoint_probe){ (void (*)(void))palev__dyn_probe, &common };
    ev->tp.probes = probes;
    ev->tp.state = 1;
    CHECK(palev_event_write(ev, v, n) == 0);
    CHECK(commits == before + 1);
    CHECK(palev_event_write(ev, v, n + 1) == -EINVAL);
    ev->tp.state = 0;
}

/* One fuzzed definition and the storage of its names. */
struct def {
    char prov[300], name[300], names[PALEV_EVENT_MAX_FIELDS + 2][220];
    palev_field f[PALEV_EVENT_MAX_FIELDS + 2];
    palev_event_def d;
    int want;
};

static void read_def(struct in *in, struct def *b)
{
    size_t n = byte(in) % (PALEV_EVENT_MAX_FIELDS + 3);
    uint8_t level, keywords;

    text(in, b->prov, byte(in) & 1 ? 255 : 12);
    text(in, b->name, byte(in) & 1 ? 255 : 12);
    for (size_t i = 0; i < n; i++) {
        b->f[i].name = text(in, b->names[i], byte(in) & 1 ? 210 : 6);
        b->f[i].type = byte(in) % 20;
        b->f[i].flags = byte(in) % 5;
    }
    b->want = expected(b->prov, b->name, b->f, n);
    level = byte(in);
    keywords = byte(in) % 3;
    b->d = (palev_event_def){ b->prov, b->name, level, keywords, b->f, n };
}

/* What palev_event_define() may answer for a definition the oracle calls `want`: that, or
 * -EEXIST for a name defined before with other fields. */
static int answer_ok(const struct def *b, int got)
{
    return got == b->want || (b->want == 0 && got == -EEXIST);
}

/* Events are never freed: past MAX_DEFINED, new names are not defined any more. */
static int too_many(const struct def *b)
{
    return b->want == 0 && !palev_event_lookup(b->prov, b->name) && defined >= MAX_DEFINED;
}

/* The last handles given out, live until their provider is undefined (then removed). */
#define KEPT 64
static struct kept {
    char prov[256], name[256];
    palev_event *ev;
} kept[KEPT];
static size_t kept_next;

static void keep(const struct def *b, palev_event *ev)
{
    struct kept *k = &kept[kept_next++ % KEPT];

    strcpy(k->prov, b->prov);
    strcpy(k->name, b->name);
    k->ev = ev;
}

/* Undefine a fuzzed provider name: -EINVAL, -EBUSY, or 0 exactly when a kept handle is of it;
 * after 0, its kept handles are not found, never enabled, and write nothing. */
static void undefine(struct in *in)
{
    char prov[300];
    int got, had = 0;

    text(in, prov, byte(in) & 1 ? 255 : 12);
    got = palev_event_undefine_provider(prov);
    for (size_t i = 0; i < KEPT; i++)
        had |= kept[i].ev && strcmp(kept[i].prov, prov) == 0;
    if (!ident(prov)) {
        CHECK(got == -EINVAL);
        return;
    }
    if (reserved_name(prov)) {
        CHECK(got == -EBUSY);
        return;
    }
    CHECK(got == 0 || got == -ENOENT);
    CHECK(!had || got == 0);
    for (size_t i = 0; got == 0 && i < KEPT; i++) {
        if (!kept[i].ev || strcmp(kept[i].prov, prov) != 0)
            continue;
        CHECK(palev_event_lookup(prov, kept[i].name) == NULL);
        CHECK(!palev_event_enabled(kept[i].ev));
        CHECK(palev_event_write(kept[i].ev, NULL, 0) == 0);
        kept[i].ev = NULL;
    }
}

static void one_def(struct in *in, struct def *b)
{
    palev_event *ev = NULL;
    int got;

    read_def(in, b);
    if (too_many(b))
        return;
    got = palev_event_define(b->prov, b->name, b->d.level, b->d.keywords, b->f, b->d.field_count,
                             &ev);
    CHECK(ev != NULL && answer_ok(b, got));
    if (got != 0) {
        CHECK(!palev_event_enabled(ev));
        return;
    }
    defined++;
    CHECK(palev_event_lookup(b->prov, b->name) == ev);
    keep(b, ev);
    write_event(in, ev, b->f, b->d.field_count);
}

/* palev_event_define_many() of k definitions: each answered as palev_event_define() would,
 * a name defined twice in the call given one handle, the first failure returned. */
#define MAX_BATCH 4
static void many_defs(struct in *in, struct def *b, size_t k)
{
    palev_event_def defs[MAX_BATCH];
    palev_event *ev[MAX_BATCH];
    int err[MAX_BATCH], first = 0, got;

    for (size_t i = 0; i < k; i++) {
        read_def(in, &b[i]);
        if (too_many(&b[i]))
            return;
        defs[i] = b[i].d;
    }
    got = palev_event_define_many(defs, k, ev, err);
    for (size_t i = 0; i < k; i++) {
        CHECK(ev[i] != NULL && answer_ok(&b[i], err[i]));
        first = first ? first : err[i];
        if (err[i] != 0) {
            CHECK(!palev_event_enabled(ev[i]));
            continue;
        }
        defined++;
        CHECK(palev_event_lookup(b[i].prov, b[i].name) == ev[i]);
        keep(&b[i], ev[i]);
        for (size_t j = 0; j < i; j++)
            CHECK(err[j] != 0 || strcmp(b[j].prov, b[i].prov) || strcmp(b[j].name, b[i].name) ||
                  ev[j] == ev[i]);
    }
    CHECK(got == first);
    for (size_t i = 0; i < k; i++)
        if (err[i] == 0)
            write_event(in, ev[i], b[i].f, b[i].d.field_count);
}

/* The first byte: with its high bit, an undefine; else 0 (and 4, 8, ...) palev_event_define(),
 * else a define call of that many. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct def defs[MAX_BATCH];
    struct in in = { data, size };
    uint8_t op = byte(&in);
    size_t k = op % MAX_BATCH;

    if (op & 0x80)
        undefine(&in);
    else if (k == 0)
        one_def(&in, &defs[0]);
    else
        many_defs(&in, defs, k);
    return 0;
}
