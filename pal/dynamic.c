/* SPDX-License-Identifier: MIT */
/* Dynamic events: the registry (lock-free lookup), LTTng-UST registration, define and undefine
 * calls. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The inline rcu_dereference/rcu_assign_pointer (a load and a release store; small enough for
 * LGPL section 5), not liburcu's exported wrappers: nothing here needs a liburcu library (only
 * the code areas and their unwind table link liburcu-bp). */
#define _LGPL_SOURCE
#include <urcu/pointer.h>
#include <urcu/system.h>

#include "dynamic.h"
#include "hash.h"

/* The inline check of paleventing.h reads the state where LTTng-UST 2.13 keeps it. */
_Static_assert(offsetof(struct palev_event, tp) == 0, "tp first");
_Static_assert(offsetof(struct lttng_ust_tracepoint, state) == PALEV_EVENT_STATE_OFFSET,
               "PALEV_EVENT_STATE_OFFSET is where struct lttng_ust_tracepoint keeps its state");

struct palev__ust_api palev__ust;

/* A registered probe, on the list of its state: live (its events defined) or gone (undefined,
 * kept so that stale handles stay valid). */
struct probe_rec {
    struct probe_rec *next;
    struct palev__probe p;      /* last: its events and call sites follow it */
};

/* Two locks. define_lock serialises define and undefine calls, LTTng-UST calls included (an
 * undefine waits for a grace period); lock guards the table and the lists, and is never held
 * while calling into LTTng-UST, so a fork handler that cannot wait for LTTng-UST's locks can
 * still take it (fork.c). Order: define_lock, lock, then the providers' registry. */
static struct {
    pthread_mutex_t define_lock;
    pthread_mutex_t lock;
    struct table *table;        /* RCU-published (registry below) */
    int ust_state;              /* UST_* (atomic: ust_find()) */
    struct probe_rec *live, *gone;
} reg = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, NULL, 0, NULL, NULL };

/* The handle a failed definition gives: never enabled, no field. */
static struct palev_event event_off;

/* What an undefined event's slot holds: a name length no lookup has, so probing steps over it. */
static struct palev_event event_gone = { .name_len = SIZE_MAX };

/* liblttng-ust's unregistration, looked up with the registration (ust_find()). */
static struct {
    void (*probe_unregister)(struct lttng_ust_registered_probe *);
    int (*module_unregister)(struct lttng_ust_tracepoint *const *start);
} ust_gone;

/* ---- the registry --------------------------------------------------------------------- */

/* Open addressing, linear probing, at most half full: common/hash.h's hash and probing, in a
 * layout of its own rather than common/map.h's table, whose readers would need a lock (its slots
 * are written in place and its arrays freed when it grows). Readers take no lock: a slot's event is
 * published with rcu_assign_pointer() after its hash, and a rebuilt table replaces the old one
 * with rcu_assign_pointer() once filled. An undefined event's slot becomes event_gone (a
 * tombstone, reused by a later definition): a slot once used is never empty again, so no probe
 * chain breaks under a reader. A retired table is kept (not freed), so a reader still probing it
 * stays safe without waiting for grace periods. A rebuild leaves the table at most a third full
 * and comes only when it is half full again, so the retired tables cost at most about 100 bytes
 * per definition ever made. */
struct slot {
    uint64_t hash;
    struct palev_event *ev;
};

struct table {
    size_t mask;                /* slots - 1 */
    size_t fill;                /* slots used: events and tombstones */
    size_t live;                /* events */
    struct table *retired;      /* the table it replaced */
    struct slot slot[];
};

/* The names hashed in two parts, without building "provider:name" (common/hash.c). */
static uint64_t hash_names(const char *provider, size_t plen, const char *name, size_t nlen)
{
    return pcm_hash_bytes(pcm_hash_bytes(PCM_HASH_SEED, provider, plen), name, nlen);
}

static int same_names(const struct palev_event *ev, const char *provider, size_t plen,
                      const char *name, size_t nlen)
{
    return ev->name_len == nlen && ev->provider_len == plen &&
           memcmp(ev->tp.event_name, name, nlen) == 0 &&
           memcmp(ev->tp.provider_name, provider, plen) == 0;
}

static struct palev_event *find(const struct table *t, const char *provider, const char *name)
{
    size_t plen = strlen(provider), nlen = strlen(name);
    uint64_t h = hash_names(provider, plen, name, nlen);

    for (size_t i = pcm_slot_first(h, t->mask);; i = pcm_slot_next(i, t->mask)) {
        struct palev_event *ev = rcu_dereference(t->slot[i].ev);

        if (!ev)
            return NULL;
        if (t->slot[i].hash == h && same_names(ev, provider, plen, name, nlen))
            return ev;
    }
}

PALEV_API palev_event *palev_event_lookup(const char *provider, const char *name)
{
    const struct table *t;

    if (!provider || !name)
        return NULL;
    t = rcu_dereference(reg.table);
    return t ? find(t, provider, name) : NULL;
}

static struct table *table_new(size_t slots)
{
    struct table *t = palev__malloc(sizeof(*t) + slots * sizeof(struct slot));

    if (t) {
        memset(t, 0, sizeof(*t) + slots * sizeof(struct slot));
        t->mask = slots - 1;
    }
    return t;
}

/* Into the first free slot or tombstone of its chain (its name is in no slot). */
static void table_put(struct table *t, struct palev_event *ev)
{
    size_t i = pcm_slot_first(ev->hash, t->mask);

    while (t->slot[i].ev && t->slot[i].ev != &event_gone)
        i = pcm_slot_next(i, t->mask);
    t->fill += !t->slot[i].ev;
    t->live++;
    t->slot[i].hash = ev->hash;
    rcu_assign_pointer(t->slot[i].ev, ev);
}

/* Under the lock: the slot of `ev` becomes a tombstone. */
static void table_remove(struct table *t, const struct palev_event *ev)
{
    size_t i = pcm_slot_first(ev->hash, t->mask);

    while (t->slot[i].ev != ev)
        i = pcm_slot_next(i, t->mask);
    rcu_assign_pointer(t->slot[i].ev, &event_gone);
    t->live--;
}

/* Under the lock: room for `more` events. When they would make the table more than half full
 * (tombstones included), a new one at most a third full, without tombstones, is published. */
static int table_room(size_t more)
{
    struct table *old = reg.table, *t;
    size_t slots = 1024, live = old ? old->live : 0;

    if (old && (old->fill + more) * 2 <= old->mask + 1)
        return 0;
    while ((live + more) * 3 > slots)
        slots *= 2;
    if (!(t = table_new(slots)))
        return -ENOMEM;
    for (size_t i = 0; old && i <= old->mask; i++)
        if (old->slot[i].ev && old->slot[i].ev != &event_gone)
            table_put(t, old->slot[i].ev);
    t->retired = old;
    rcu_assign_pointer(reg.table, t);
    return 0;
}

/* Same level, keywords and fields as the definition already made? */
static int same_definition(const struct palev_event *ev, uint8_t level, uint64_t keywords,
                           const palev_field *fields, size_t count)
{
    if (ev->level != level || ev->keywords != keywords || ev->field_count != count)
        return 0;
    for (size_t i = 0; i < count; i++)
        if (ev->fields[i].type != fields[i].type || ev->fields[i].flags != fields[i].flags ||
            strcmp(ev->fields[i].name, fields[i].name) != 0)
            return 0;
    return 1;
}

/* ---- LTTng-UST, through dlsym --------------------------------------------------------- */

static void *sym(void *lib, const char *name, int *missing)
{
    void *p = lib ? dlsym(lib, name) : NULL;

    if (!p) {
        palev__debug("dynamic events: %s not found in liblttng-ust: nothing will be recorded",
                     name);
        *missing = 1;
    }
    return p;
}

/* Where liblttng-ust stands: not looked for yet, being looked for, found, absent. */
enum { UST_UNKNOWN, UST_LOOKING, UST_FOUND, UST_ABSENT };

/* Under the define lock. Probe first, then the call sites: once both are in, LTTng-UST syncs
 * the sessions' enablers and a session already recording a matching wildcard connects the probe
 * at once. While a session is active, each lttng_ust_probe_register() walks every event of
 * every probe of the process (and each new event costs a round trip with the session daemon):
 * one call per provider and define call, not per event. Before liblttng-ust is found the probe
 * waits, unregistered: ust_find() registers it then. */
static void ust_register(struct palev__probe *p)
{
    if (p->tried || __atomic_load_n(&reg.ust_state, __ATOMIC_ACQUIRE) != UST_FOUND)
        return;
    p->tried = 1;
    p->reg = palev__ust.probe_register(&p->desc);
    if (!p->reg) {
        palev__debug("provider %s: lttng_ust_probe_register of %u events failed: not recorded",
                     p->desc.provider_name, p->desc.nr_events);
        return;
    }
    if (palev__ust.module_register(p->tps, (int)p->desc.nr_events) != 0)
        palev__debug("provider %s: lttng_ust_tracepoint_module_register of %u events failed: "
                     "not recorded", p->desc.provider_name, p->desc.nr_events);
}

/* liblttng-ust is in the process only if a probe provider brought it (libPaleventing-lttng.so,
 * loaded at start unless PALEV_LTTNG=0; later with PALEV_LOAD=background). Looked for by one
 * thread at a time holding none of the library's locks: dlopen and dlsym take the dynamic
 * loader's lock, which a thread loading a probe provider holds while it may need the define
 * lock (palev__dyn_ust_loaded()), so no thread may wait for that lock while holding ours. Once
 * found, the probes defined meanwhile are registered. */
static void ust_find(void)
{
    int expect = UST_UNKNOWN, missing = 0;
    void *ust, *tp;

    if (!__atomic_compare_exchange_n(&reg.ust_state, &expect, UST_LOOKING, 0, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        return;
    ust = dlopen("liblttng-ust.so.1", RTLD_NOW | RTLD_NOLOAD);
    tp = dlopen("liblttng-ust-tracepoint.so.1", RTLD_NOW | RTLD_NOLOAD);
    *(void **)&palev__ust.probe_register = sym(ust, "lttng_ust_probe_register", &missing);
    *(void **)&palev__ust.module_register =
        sym(tp, "lttng_ust_tracepoint_module_register", &missing);
    *(void **)&palev__ust.rcu_read_lock = sym(tp, "lttng_ust_tp_rcu_read_lock", &missing);
    *(void **)&palev__ust.rcu_read_unlock = sym(tp, "lttng_ust_tp_rcu_read_unlock", &missing);
    *(void **)&palev__ust.rcu_dereference = sym(tp, "lttng_ust_tp_rcu_dereference_sym", &missing);
    *(void **)&ust_gone.probe_unregister = sym(ust, "lttng_ust_probe_unregister", &missing);
    *(void **)&ust_gone.module_unregister =
        sym(tp, "lttng_ust_tracepoint_module_unregister", &missing);
    __atomic_store_n(&reg.ust_state, missing ? UST_ABSENT : UST_FOUND, __ATOMIC_RELEASE);
    if (missing)
        return;
    pthread_mutex_lock(&reg.define_lock);
    for (struct probe_rec *r = reg.live; r; r = r->next)
        ust_register(&r->p);
    pthread_mutex_unlock(&reg.define_lock);
}

/* A probe provider has just been loaded (provider.c), perhaps bringing liblttng-ust: if it was
 * absent, look again. */
void palev__dyn_ust_loaded(void)
{
    int expect = UST_ABSENT;

    __atomic_compare_exchange_n(&reg.ust_state, &expect, UST_UNKNOWN, 0, __ATOMIC_RELAXED,
                                __ATOMIC_RELAXED);
    ust_find();
}

/* ---- define --------------------------------------------------------------------------- */

/* Not a dynamic provider's name: LTTng's namespace, the library's own provider, or a
 * generated provider registered in this process. */
static int check_provider(const char *provider)
{
    const char *why = palev__provider_reserved(provider);

    if (!why && (strcmp(provider, PCM_OWN_PROVIDER) == 0 || palev__provider_known(provider)))
        why = "the name of a generated provider";
    if (why) {
        palev__debug("event not defined: provider=\"%s\", reason=\"%s\"", provider, why);
        return -EBUSY;
    }
    return 0;
}

/* One definition of a define call, in the order that groups a provider's definitions and, within
 * it, those of one name: by provider, name, then place in the caller's array. */
struct item {
    const palev_event_def *def;
    size_t index;
};

static int by_names(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    int c = strcmp(x->def->provider, y->def->provider);

    if (c == 0)
        c = strcmp(x->def->name, y->def->name);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* A define call: its definitions that passed palev__dyn_check() (sorted), every definition's
 * result, and the probes of its new events until they are published. */
struct batch {
    palev_event **events;
    int *res;
    struct item *items;
    size_t n;
    struct probe_rec *pending;
};

static void fail_items(struct batch *b, size_t from, size_t to, int err)
{
    for (size_t k = from; k < to; k++)
        b->res[b->items[k].index] = err;
}

/* The probe that will hold up to `count` new events of one provider (in a probe_rec). */
static struct palev__probe *probe_new(size_t count)
{
    size_t size = sizeof(struct probe_rec) + count * (sizeof(void *) * 2);
    struct probe_rec *r = palev__malloc(size);
    struct palev__probe *p;

    if (!r)
        return NULL;
    memset(r, 0, size);
    p = &r->p;
    p->events = (const struct lttng_ust_event_desc **)(void *)(p + 1);
    p->tps = (struct lttng_ust_tracepoint **)(void *)(p->events + count);
    p->desc = (struct lttng_ust_probe_desc){
        .struct_size = sizeof(p->desc), .event_desc = p->events,
        .major = LTTNG_UST_PROVIDER_MAJOR, .minor = LTTNG_UST_PROVIDER_MINOR };
    return p;
}

static struct probe_rec *rec_of(struct palev__probe *p)
{
    return caa_container_of(p, struct probe_rec, p);
}

/* The i-th event of a probe (its call site is the event's first member). */
static struct palev_event *event_at(const struct palev__probe *p, unsigned i)
{
    return caa_container_of(p->tps[i], struct palev_event, tp);
}

/* Under the lock, one definition: the event that already holds its name (`*holder`: in the
 * registry, or new in this call), or a new one added to the probe. */
static int define_one(const palev_event_def *d, struct palev__probe *p,
                      struct palev_event **holder)
{
    struct palev_event *ev = *holder;

    if (ev) {
        if (same_definition(ev, d->level, d->keywords, d->fields, d->field_count))
            return 0;
        palev__debug("event not defined: %s:%s exists with other fields, level or keywords",
                     d->provider, d->name);
        return -EEXIST;
    }
    if (!p || !(ev = palev__dyn_build(d, &p->desc)))
        return -ENOMEM;
    ev->hash = hash_names(d->provider, ev->provider_len, d->name, ev->name_len);
    p->desc.provider_name = ev->tp.provider_name;
    p->events[p->desc.nr_events] = &ev->desc;
    p->tps[p->desc.nr_events++] = &ev->tp;
    *holder = ev;
    return 0;
}

/* Under both locks: items [from, to), all of one provider. Existing events are handed out, new
 * ones built as one probe, put on the batch's pending list for define_all() to register with
 * LTTng-UST and then publish. */
static void define_provider(struct batch *b, size_t from, size_t to)
{
    const char *provider = b->items[from].def->provider;
    struct palev__probe *p;
    struct palev_event *holder = NULL;
    int ret = check_provider(provider);

    if (ret) {
        fail_items(b, from, to, ret);
        return;
    }
    p = probe_new(to - from);
    for (size_t k = from; k < to; k++) {
        const palev_event_def *d = b->items[k].def;

        if (k == from || strcmp(d->name, b->items[k - 1].def->name) != 0)
            holder = find(reg.table, d->provider, d->name);
        if ((b->res[b->items[k].index] = define_one(d, p, &holder)) == 0)
            b->events[b->items[k].index] = holder;
    }
    if (!p || p->desc.nr_events == 0) {
        free(p ? rec_of(p) : NULL);
        return;
    }
    rec_of(p)->next = b->pending;
    b->pending = rec_of(p);
}

/* Under both locks: the pending probes' events published for lookup (registered with LTTng-UST
 * first, so a handle found by name is already connected to the sessions), their probes live. */
static void publish(struct batch *b)
{
    struct probe_rec *r, *next;

    for (r = b->pending; r; r = next) {
        next = r->next;
        for (unsigned i = 0; i < r->p.desc.nr_events; i++)
            table_put(reg.table, event_at(&r->p, i));
        r->next = reg.live;
        reg.live = r;
    }
}

static void define_locked(struct batch *b)
{
    size_t from = 0;
    int ret = palev__finished() ? -ECANCELED : table_room(b->n);

    if (ret) {
        fail_items(b, 0, b->n, ret);
        return;
    }
    for (size_t k = 1; k <= b->n; k++) {
        if (k == b->n || strcmp(b->items[k].def->provider, b->items[from].def->provider) != 0) {
            define_provider(b, from, k);
            from = k;
        }
    }
}

/* Every definition checked alone, the valid ones sorted and defined under the locks; the new
 * probes registered with LTTng-UST under the define lock alone (the table has room for them,
 * and no other call can change it before they are published). */
static void define_all(const palev_event_def *defs, size_t count, struct batch *b)
{
    b->n = 0;
    b->pending = NULL;
    for (size_t i = 0; i < count; i++) {
        b->events[i] = &event_off;
        if ((b->res[i] = palev__dyn_check(&defs[i])) == 0)
            b->items[b->n++] = (struct item){ &defs[i], i };
    }
    if (!b->n)
        return;
    qsort(b->items, b->n, sizeof(b->items[0]), by_names);
    palev__fork_init();
    ust_find();
    pthread_mutex_lock(&reg.define_lock);
    pthread_mutex_lock(&reg.lock);
    define_locked(b);
    pthread_mutex_unlock(&reg.lock);
    for (struct probe_rec *r = b->pending; r; r = r->next)
        ust_register(&r->p);
    pthread_mutex_lock(&reg.lock);
    publish(b);
    pthread_mutex_unlock(&reg.lock);
    pthread_mutex_unlock(&reg.define_lock);
    for (size_t i = 0; i < count; i++)
        if (b->res[i])
            b->events[i] = &event_off;
}

/* Small calls (palev_event_define() among them) take no heap for their bookkeeping. */
#define STACK_DEFS 16

PALEV_API int palev_event_define_many(const palev_event_def *defs, size_t count,
                                      palev_event **events, int *errors)
{
    struct item stack_items[STACK_DEFS];
    int stack_res[STACK_DEFS];
    struct batch b = { events, stack_res, stack_items, 0, NULL };
    void *heap = NULL;
    int ret = 0;

    if (count && (!defs || !events))
        return -EINVAL;
    if (count > STACK_DEFS) {
        if (count > SIZE_MAX / (sizeof(struct item) + sizeof(int)) ||
            !(heap = palev__malloc(count * (sizeof(struct item) + sizeof(int))))) {
            for (size_t i = 0; i < count; i++) {
                events[i] = &event_off;
                if (errors)
                    errors[i] = -ENOMEM;
            }
            return -ENOMEM;
        }
        b.items = heap;
        b.res = (int *)(void *)(b.items + count);
    }
    define_all(defs, count, &b);
    for (size_t i = 0; i < count; i++) {
        if (errors)
            errors[i] = b.res[i];
        if (!ret)
            ret = b.res[i];
    }
    free(heap);
    return ret;
}

PALEV_API int palev_event_define(const char *provider, const char *name, uint8_t level,
                                 uint64_t keywords, const palev_field *fields, size_t count,
                                 palev_event **event)
{
    const palev_event_def d = { provider, name, level, keywords, fields, count };

    return event ? palev_event_define_many(&d, 1, event, NULL) : -EINVAL;
}

/* ---- undefine ------------------------------------------------------------------------- */

/* Under the define lock: one probe's events out of LTTng. The call sites go first (LTTng-UST
 * sets their state to 0 and their probe lists to NULL), then the probe:
 * lttng_ust_probe_unregister() waits for a grace period of the tracepoint RCU that the write
 * path reads under, so no probe of these events runs once it returns. Their memory is kept. */
static void unregister_probe(struct palev__probe *p)
{
    if (p->reg) {
        ust_gone.module_unregister(p->tps);
        ust_gone.probe_unregister(p->reg);
        p->reg = NULL;
    }
    for (unsigned i = 0; i < p->desc.nr_events; i++) {
        CMM_STORE_SHARED(p->tps[i]->state, 0);
        CMM_STORE_SHARED(p->tps[i]->probes, NULL);
    }
}

/* Under both locks: every live probe of `provider` out of the lookup table and moved to the
 * gone list (first on it, for palev_event_undefine_provider() to unregister). */
static int undefine_locked(const char *provider)
{
    struct probe_rec **at = &reg.live, *r;
    int found = 0;

    if (palev__finished())
        return -ECANCELED;
    while ((r = *at) != NULL) {
        if (strcmp(r->p.desc.provider_name, provider) != 0) {
            at = &r->next;
            continue;
        }
        for (unsigned i = 0; i < r->p.desc.nr_events; i++)
            table_remove(reg.table, event_at(&r->p, i));
        *at = r->next;
        r->next = reg.gone;
        reg.gone = r;
        found = 1;
    }
    return found ? 0 : -ENOENT;
}

PALEV_API int palev_event_undefine_provider(const char *provider)
{
    struct probe_rec *old;
    int ret = palev__dyn_check_provider(provider);

    if (ret == 0)
        ret = check_provider(provider);
    if (ret)
        return ret;
    pthread_mutex_lock(&reg.define_lock);
    old = reg.gone;
    pthread_mutex_lock(&reg.lock);
    ret = undefine_locked(provider);
    pthread_mutex_unlock(&reg.lock);
    for (struct probe_rec *r = reg.gone; r != old; r = r->next)
        unregister_probe(&r->p);
    pthread_mutex_unlock(&reg.define_lock);
    return ret;
}

/* ---- fork (fork.c) -------------------------------------------------------------------- */

/* The define lock only when the handler may wait for LTTng-UST: its holder may be inside it. */
void palev__dyn_fork_prepare(int ours)
{
    if (ours)
        pthread_mutex_lock(&reg.define_lock);
    pthread_mutex_lock(&reg.lock);
}

void palev__dyn_fork_parent(int ours)
{
    pthread_mutex_unlock(&reg.lock);
    if (ours)
        pthread_mutex_unlock(&reg.define_lock);
}

/* Not ours: another thread may have held the define lock in the middle of an LTTng-UST call.
 * The registry is whole (its lock was taken); only that call's registration, half made or
 * half undone in LTTng-UST, stays as it was in the child. */
void palev__dyn_fork_child(int ours)
{
    int expect = UST_LOOKING;

    /* Forked while another thread looked liblttng-ust up: look again. */
    __atomic_compare_exchange_n(&reg.ust_state, &expect, UST_UNKNOWN, 0, __ATOMIC_RELAXED,
                                __ATOMIC_RELAXED);
    pthread_mutex_unlock(&reg.lock);
    if (ours)
        pthread_mutex_unlock(&reg.define_lock);
    else
        pthread_mutex_init(&reg.define_lock, NULL);
}
