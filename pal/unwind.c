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
/* The address filter: one bit per 64 KiB granule (hashed), 4096 bits. */
#define GRANULE_SHIFT 16
#define FILTER_BITS 4096
/* A range spanning more granules sets every bit: the filter then says "look". */
#define FILTER_MAX_GRANULES 1024

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

long palev__unwind_walk(struct palev__native *nat, size_t max, int tops)
{
    pthread_once(&load_once, load);
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

/* A rule copy, freed with the deferred header in front of it. */
struct rule_block {
    struct palev__deferred deferred;
    _Alignas(8) struct palev__unwind_rule rule;
};

struct entry {
    uintptr_t start, end;
    struct rule_block *rule;                    /* the table's copy (its start: valgrind sees
                                                 * it reachable, not "possibly lost") */
    struct dyn *dyn;                            /* NULL unless registered with libunwind */
};

/* What walks read: sorted by start, immutable once published. */
struct snapshot {
    struct palev__deferred deferred;
    size_t count;
    uint64_t filter[FILTER_BITS / 64];
    struct entry e[];
};

static struct snapshot *current;        /* RCU-published; NULL when empty */
static size_t count_hint;               /* entries of `current`, for palev__unwind_any() */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void before_fork(void)
{
    pthread_mutex_lock(&table_lock);
}

static void after_fork(void)
{
    pthread_mutex_unlock(&table_lock);
}

/* Held around fork(): a child never inherits it locked, nor libunwind's list lock (taken only
 * under it, by registrations). */
static void fork_hooks(void)
{
    pthread_atfork(before_fork, after_fork, after_fork);
}

static unsigned filter_bit(uintptr_t granule)
{
    return (unsigned)((granule ^ (granule >> 12) ^ (granule >> 24)) & (FILTER_BITS - 1));
}

static void filter_add(struct snapshot *s, uintptr_t start, uintptr_t end)
{
    uintptr_t g = start >> GRANULE_SHIFT, last = (end - 1) >> GRANULE_SHIFT;

    if (last - g >= FILTER_MAX_GRANULES) {
        memset(s->filter, 0xff, sizeof(s->filter));
        return;
    }
    for (; g <= last; g++) {
        unsigned b = filter_bit(g);

        s->filter[b / 64] |= (uint64_t)1 << (b % 64);
    }
}

int palev__unwind_any(void)
{
    return __atomic_load_n(&count_hint, __ATOMIC_RELAXED) != 0;
}

const struct palev__unwind_rule *palev__unwind_find(uintptr_t addr, uintptr_t *start)
{
    const struct snapshot *s = rcu_dereference(current);
    unsigned b = filter_bit(addr >> GRANULE_SHIFT);
    size_t lo = 0, hi;

    if (!s || !(s->filter[b / 64] & ((uint64_t)1 << (b % 64))))
        return NULL;
    hi = s->count;
    while (lo < hi) {           /* the first entry starting above addr */
        size_t mid = lo + (hi - lo) / 2;

        if (s->e[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || addr >= s->e[lo - 1].end)
        return NULL;
    *start = s->e[lo - 1].start;
    return &s->e[lo - 1].rule->rule;
}

static struct snapshot *snapshot_new(size_t count)
{
    struct snapshot *s = palev__malloc(sizeof(*s) + count * sizeof(s->e[0]));

    if (s)
        memset(s, 0, sizeof(*s));
    return s;
}

/* Under the lock: what is dropped from the table (an entry's rule and registration) is freed
 * once no walk can read it. */
static void retire(struct entry *e)
{
    if (e->dyn) {
        module.dyn_cancel(e->dyn->di);
        palev__rcu_free(&e->dyn->deferred);
    }
    palev__rcu_free(&e->rule->deferred);
}

/* Under the lock: `next` (or nothing) replaces the current snapshot. */
static void publish(struct snapshot *next)
{
    struct snapshot *old = current;

    if (next) {
        for (size_t i = 0; i < next->count; i++)
            filter_add(next, next->e[i].start, next->e[i].end);
        if (next->count == 0) {
            free(next);
            next = NULL;
        }
    }
    rcu_assign_pointer(current, next);
    __atomic_store_n(&count_hint, next ? next->count : 0, __ATOMIC_RELAXED);
    if (old)
        palev__rcu_free(&old->deferred);
}

/* libunwind's dynamic unwind info for one range (PALEV_STACK=unwind): UNW_INFO_FORMAT_IP_OFFSET,
 * whose search table is relative to the range's start and to the .eh_frame's, wherever malloc
 * put it. NULL when the module is missing or out of memory: walks then stop at the range. */
static struct dyn *dyn_new(uintptr_t start, uintptr_t end, const struct palev__unwind_rule *rule)
{
    size_t di_size, fde_at, eh_size;
    struct dyn *d;

    if (palev__config()->stack != PALEV__STACK_UNWIND)
        return NULL;
    pthread_once(&load_once, load);
    if (!module.dyn_register)
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

static struct rule_block *rule_copy(const struct palev__unwind_rule *rule)
{
    struct rule_block *b = palev__malloc(sizeof(*b) + rule->cfi_size);

    if (b)
        memcpy(&b->rule, rule, sizeof(*rule) + rule->cfi_size);
    return b;
}

int palev__unwind_add(uintptr_t start, uint64_t size, const struct palev__unwind_rule *rule)
{
    uintptr_t end = start + size;
    struct rule_block *copy = rule_copy(rule);
    struct snapshot *next;
    size_t n = 0, old;
    int ret = 0;

    pthread_once(&fork_once, fork_hooks);
    pthread_mutex_lock(&table_lock);
    old = current ? current->count : 0;
    next = copy ? snapshot_new(old + 1) : NULL;
    if (!next) {
        free(copy);
        ret = -ENOMEM;
        goto end;
    }
    /* Sorted by start; ranges the new one overlaps are stale (their memory holds new code). */
    for (size_t i = 0; i < old; i++) {
        struct entry *e = &current->e[i];

        if (e->end <= start || e->start >= end)
            next->e[n++] = *e;
        else
            retire(e);
    }
    next->e[n] = (struct entry){ start, end, copy, dyn_new(start, end, &copy->rule) };
    for (size_t i = n; i > 0 && next->e[i - 1].start > start; i--) {
        struct entry t = next->e[i];

        next->e[i] = next->e[i - 1];
        next->e[i - 1] = t;
    }
    next->count = n + 1;
    publish(next);
end:
    pthread_mutex_unlock(&table_lock);
    return ret;
}

/* Under the lock: the current entries but those starting in [lo, hi). */
static void remove_locked(uintptr_t lo, uintptr_t hi)
{
    struct snapshot *next;
    size_t n = 0, dropped = 0;

    if (!current)
        return;
    for (size_t i = 0; i < current->count; i++)
        dropped += current->e[i].start >= lo && current->e[i].start < hi;
    if (!dropped)
        return;
    next = snapshot_new(current->count - dropped);
    if (!next)
        return;         /* kept: a stale rule only misguides walks through freed code */
    for (size_t i = 0; i < current->count; i++) {
        struct entry *e = &current->e[i];

        if (e->start >= lo && e->start < hi)
            retire(e);
        else
            next->e[n++] = *e;
    }
    next->count = n;
    publish(next);
}

void palev__unwind_remove(uintptr_t start)
{
    palev__unwind_remove_area(start, start + 1);
}

void palev__unwind_remove_area(uintptr_t lo, uintptr_t hi)
{
    if (!palev__unwind_any())
        return;
    pthread_mutex_lock(&table_lock);
    remove_locked(lo, hi);
    pthread_mutex_unlock(&table_lock);
}
