/* SPDX-License-Identifier: MIT */
/* Unwinding JIT code: the rules of live ranges without frame pointers, in a table stack walks
 * read without locks (RCU), and, for PALEV_STACK=unwind, libpaleventing-unwind.so (linked with
 * libunwind) loaded on first use, so that libpaleventing itself never depends on libunwind. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The inline rcu_dereference/rcu_assign_pointer (a load and a release store; small enough for
 * LGPL section 5), as dynamic.c uses them. */
#define _LGPL_SOURCE
#include <urcu/pointer.h>

#include "internal.h"

#define MODULE "libpaleventing-unwind.so"
/* Ranges are found by the 4 KiB granules (pages) they cover, hashed into this many buckets. */
#define GRANULE_SHIFT 12
#define BUCKETS 4096
/* A range covering more granules (1 MiB) goes to one list looked at for every address. */
#define BIG_GRANULES 256

typedef size_t walk_fn(uintptr_t *ip, uintptr_t *top, size_t max, int tops);
typedef size_t dyn_size_fn(void);
typedef void dyn_register_fn(void *di, uintptr_t start, uintptr_t end, uintptr_t segbase,
                             const void *table);
typedef void dyn_cancel_fn(void *di);

static struct {
    walk_fn *walk;
    dyn_size_fn *dyn_size;
    dyn_register_fn *dyn_register;
    dyn_cancel_fn *dyn_cancel;
} module;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
/* Set once a range went to libunwind: walks then step frame by frame (unw_backtrace()'s cache
 * keeps what an address unwound to, even after new code took its place). */
static int dyn_used;

/* ---- the module ------------------------------------------------------------------------------ */

/* Beside libpaleventing.so, where the build and the install put it. */
static void *open_module(void)
{
    char path[PATH_MAX];
    Dl_info info;
    const char *slash;

    if (!dladdr((void *)open_module, &info) || !info.dli_fname ||
        !(slash = strrchr(info.dli_fname, '/')))
        return dlopen(MODULE, RTLD_NOW | RTLD_NODELETE);
    if (snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - info.dli_fname), info.dli_fname,
                 MODULE) >= (int)sizeof(path))
        return NULL;
    return dlopen(path, RTLD_NOW | RTLD_NODELETE);
}

static void load(void)
{
    void *m = open_module();

    if (m) {
        *(void **)&module.walk = dlsym(m, "palev_unwind_walk");
        *(void **)&module.dyn_size = dlsym(m, "palev_unwind_dyn_size");
        *(void **)&module.dyn_register = dlsym(m, "palev_unwind_dyn_register");
        *(void **)&module.dyn_cancel = dlsym(m, "palev_unwind_dyn_cancel");
    }
    if (!module.walk)
        palev__debug("PALEV_STACK=unwind: %s not loaded (%s): frame pointers are walked instead",
                     MODULE, m ? "no palev_unwind_walk" : dlerror());
    if (!module.dyn_size || !module.dyn_register || !module.dyn_cancel)
        module.dyn_register = NULL;
}

void palev__unwind_load(void)
{
    pthread_once(&load_once, load);
}

long palev__unwind_walk(struct palev__native *nat, size_t max, int tops)
{
    palev__unwind_load();
    if (!module.walk)
        return -ENOSYS;
    return (long)module.walk(nat->ip, nat->top, max,
                             tops || __atomic_load_n(&dyn_used, __ATOMIC_RELAXED));
}

/* ---- the table ------------------------------------------------------------------------------- */

/* A range's registration with libunwind: its unw_dyn_info_t (dyn_size() bytes, first), a
 * one-entry search table, the .eh_frame. Freed after a grace period. */
struct dyn {
    struct palev__deferred deferred;
    void *di;
    int32_t table[2];           /* start_ip_offset (from the range's start), fde_offset */
    size_t eh_frame_size;
    _Alignas(16) unsigned char data[];  /* di, then .eh_frame */
};

/* One described range: immutable, referenced from the buckets of its granules, freed after a
 * grace period once out of all of them. Ranges in the table never overlap. */
struct entry {
    struct palev__deferred deferred;
    uintptr_t start, end;
    struct dyn *dyn;                    /* NULL unless registered with libunwind */
    struct palev__unwind_rule rule;     /* the table's copy, then its instructions */
};

/* What walks read: the ranges of a bucket's granules sorted by start, immutable once
 * published. */
struct bucket {
    struct palev__deferred deferred;
    size_t count;
    struct entry *e[];
};

static struct bucket **buckets;         /* [BUCKETS], RCU-published once, never freed */
static struct bucket *big;              /* ranges of more than BIG_GRANULES granules */
static size_t count_hint;               /* ranges in the table, for palev__unwind_any() */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- fork (fork.c) ---------------------------------------------------------------------------- */

/* Held around fork(): a child never inherits it locked, nor libunwind's list lock (taken only
 * under it, by registrations). */
void palev__unwind_fork_prepare(void)
{
    pthread_mutex_lock(&table_lock);
}

void palev__unwind_fork_parent(void)
{
    pthread_mutex_unlock(&table_lock);
}

void palev__unwind_fork_child(void)
{
    pthread_mutex_unlock(&table_lock);
}

static size_t bucket_of(uintptr_t granule)
{
    uint64_t h = (uint64_t)granule * 0x9E3779B97F4A7C15ull;

    return (size_t)(h >> 52);           /* the top 12 bits: BUCKETS */
}

static int is_big(uintptr_t start, uintptr_t end)
{
    return ((end - 1) >> GRANULE_SHIFT) - (start >> GRANULE_SHIFT) >= BIG_GRANULES;
}

int palev__unwind_any(void)
{
    return __atomic_load_n(&count_hint, __ATOMIC_RELAXED) != 0;
}

/* The range of b holding addr: the last one starting at or below it (ranges do not overlap). */
static inline const struct entry *search(const struct bucket *b, uintptr_t addr)
{
    size_t lo = 0, hi = b ? b->count : 0;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (b->e[mid]->start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && addr < b->e[lo - 1]->end ? b->e[lo - 1] : NULL;
}

/* Most return addresses are on pages no described range covers: one hash and two loads. */
const struct palev__unwind_rule *palev__unwind_find(uintptr_t addr, uintptr_t *start)
{
    struct bucket **all = rcu_dereference(buckets);
    const struct bucket *b, *in_big;
    const struct entry *e;

    if (!all)
        return NULL;
    b = rcu_dereference(all[bucket_of(addr >> GRANULE_SHIFT)]);
    in_big = rcu_dereference(big);
    if (__builtin_expect(!b && !in_big, 1))
        return NULL;
    if (!(e = search(b, addr)) && !(e = search(in_big, addr)))
        return NULL;
    *start = e->start;
    return &e->rule;
}

/* ---- changes, under the lock --------------------------------------------------------------------- */

/* The slot a range is listed in: its granule's bucket, or the big list. */
static struct bucket **slot(uintptr_t granule, int in_big)
{
    return in_big ? &big : &buckets[bucket_of(granule)];
}

/* *at replaced by its ranges without `drop` and with `add` (either may be NULL), sorted. */
static int rebucket(struct bucket **at, const struct entry *drop, struct entry *add)
{
    struct bucket *old = *at, *next;
    size_t n = 0, count = old ? old->count : 0;

    for (size_t i = 0; i < count; i++)
        if (old->e[i] == add)
            add = NULL;                 /* listed already: its range covers two granules here */
    next = palev__malloc(sizeof(*next) + (count + 1) * sizeof(next->e[0]));
    if (!next)
        return -ENOMEM;
    for (size_t i = 0; i < count; i++) {
        if (old->e[i] == drop)
            continue;
        if (add && add->start < old->e[i]->start) {
            next->e[n++] = add;
            add = NULL;
        }
        next->e[n++] = old->e[i];
    }
    if (add)
        next->e[n++] = add;
    next->count = n;
    if (n == 0) {
        free(next);
        next = NULL;
    }
    rcu_assign_pointer(*at, next);
    if (old)
        palev__rcu_free(&old->deferred);
    return 0;
}

/* Every slot of [start, end) has `drop` out and `add` in. */
static int relist(uintptr_t start, uintptr_t end, const struct entry *drop, struct entry *add)
{
    int in_big = is_big(start, end);
    uintptr_t g = start >> GRANULE_SHIFT, last = in_big ? g : (end - 1) >> GRANULE_SHIFT;

    for (; g <= last; g++)
        if (rebucket(slot(g, in_big), drop, add) != 0)
            return -ENOMEM;
    return 0;
}

/* Out of the table: its slots first, then libunwind; freed once no walk can read it. Returns
 * -ENOMEM when a slot could not be rewritten: it then stays listed somewhere, and allocated. */
static int retire(struct entry *e)
{
    if (relist(e->start, e->end, e, NULL) != 0)
        return -ENOMEM;
    if (e->dyn) {
        module.dyn_cancel(e->dyn->di);
        palev__rcu_free(&e->dyn->deferred);
    }
    palev__rcu_free(&e->deferred);
    __atomic_fetch_sub(&count_hint, 1, __ATOMIC_RELAXED);
    return 0;
}

/* The first range of b starting at or above lo (b's ranges are sorted and never overlap). */
static size_t lower_bound(const struct bucket *b, uintptr_t lo)
{
    size_t l = 0, h = b->count;

    while (l < h) {
        size_t mid = l + (h - l) / 2;

        if (b->e[mid]->start < lo)
            l = mid + 1;
        else
            h = mid;
    }
    return l;
}

/* A range of b overlapping [lo, hi) (overlap) or starting in it, or NULL. */
static struct entry *first_in(const struct bucket *b, uintptr_t lo, uintptr_t hi, int overlap)
{
    size_t i;

    if (!b)
        return NULL;
    i = lower_bound(b, lo);
    if (overlap && i > 0 && b->e[i - 1]->end > lo)
        return b->e[i - 1];
    return i < b->count && b->e[i]->start < hi ? b->e[i] : NULL;
}

/* The first range of the table overlapping [lo, hi) (overlap) or starting in it, among the
 * slots of its granules, or NULL. */
static struct entry *first(uintptr_t lo, uintptr_t hi, int overlap)
{
    uintptr_t g = lo >> GRANULE_SHIFT, last = (hi - 1) >> GRANULE_SHIFT;
    struct entry *e = first_in(big, lo, hi, overlap);

    if (last - g >= BUCKETS) {          /* a wide area: every bucket once */
        for (size_t b = 0; !e && b < BUCKETS; b++)
            e = first_in(buckets[b], lo, hi, overlap);
        return e;
    }
    for (; !e && g <= last; g++)
        e = first_in(buckets[bucket_of(g)], lo, hi, overlap);
    return e;
}

/* libunwind's dynamic unwind info for one range (PALEV_STACK=unwind): UNW_INFO_FORMAT_IP_OFFSET,
 * whose search table is relative to the range's start and to the .eh_frame's, wherever malloc
 * put it. NULL when the module is missing or out of memory: walks then stop at the range. Under
 * the table's lock: the module was loaded before it was taken. */
static struct dyn *dyn_new(uintptr_t start, uintptr_t end, const struct palev__unwind_rule *rule)
{
    size_t di_size, fde_at, eh_size;
    struct dyn *d;

    if (palev__config()->stack != PALEV__STACK_UNWIND || !module.dyn_register)
        return NULL;
    di_size = (module.dyn_size() + 15) & ~(size_t)15;
    eh_size = palev__eh_frame(NULL, 0, rule, start, end - start, 0, &fde_at);
    d = palev__malloc(sizeof(*d) + di_size + eh_size);
    if (!d)
        return NULL;
    d->di = d->data;
    d->eh_frame_size = palev__eh_frame(d->data + di_size, eh_size, rule, start, end - start, 0,
                                       &fde_at);
    d->table[0] = 0;
    d->table[1] = (int32_t)fde_at;
    memset(d->di, 0, di_size);
    module.dyn_register(d->di, start, end, (uintptr_t)(d->data + di_size), d->table);
    __atomic_store_n(&dyn_used, 1, __ATOMIC_RELAXED);
    return d;
}

static int table_create(void)
{
    struct bucket **all;

    if (buckets)
        return 0;
    all = calloc(BUCKETS, sizeof(*all));
    if (!all)
        return -ENOMEM;
    rcu_assign_pointer(buckets, all);
    return 0;
}

/* Ranges the new one overlaps are stale (their memory holds new code): dropped first. Out of
 * memory, a range may stay listed in some slots only (walks then stop at it elsewhere). */
int palev__unwind_add(uintptr_t start, uint64_t size, const struct palev__unwind_rule *rule)
{
    uintptr_t end = start + size;
    struct entry *e = palev__malloc(sizeof(*e) + rule->cfi_size), *stale = NULL;
    int ret;

    if (!e)
        return -ENOMEM;
    e->start = start;
    e->end = end;
    memcpy(&e->rule, rule, sizeof(*rule) + rule->cfi_size);
    palev__fork_init();
    /* dlopen() waits for the dynamic loader's lock: never under ours (fork.c). */
    if (palev__config()->stack == PALEV__STACK_UNWIND)
        palev__unwind_load();
    pthread_mutex_lock(&table_lock);
    ret = table_create();
    while (ret == 0 && (stale = first(start, end, 1)))
        ret = retire(stale);
    if (ret != 0)
        goto end;
    e->dyn = dyn_new(start, end, &e->rule);
    __atomic_fetch_add(&count_hint, 1, __ATOMIC_RELAXED);
    if (relist(start, end, NULL, e) != 0) {
        retire(e);
        ret = -ENOMEM;
    }
    e = NULL;
end:
    pthread_mutex_unlock(&table_lock);
    free(e);
    return ret;
}

int palev__unwind_remove(uintptr_t start)
{
    return palev__unwind_remove_area(start, start + 1);
}

int palev__unwind_remove_area(uintptr_t lo, uintptr_t hi)
{
    struct entry *e;
    int count = 0;

    if (!palev__unwind_any() || hi <= lo)
        return 0;
    pthread_mutex_lock(&table_lock);
    while (buckets && (e = first(lo, hi, 0)) && retire(e) == 0)
        count += count < INT32_MAX;
    pthread_mutex_unlock(&table_lock);
    return count;
}
