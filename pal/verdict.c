/* SPDX-License-Identifier: MIT */
/* EventSource filters: the verdict per (source, name) cached, for names that cannot change. */
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The inline rcu_dereference/rcu_assign_pointer (a load and a release store; small enough for
 * LGPL section 5), not liburcu's exported wrappers: nothing here needs a liburcu library (only
 * the code areas and their unwind table link liburcu-bp). */
#define _LGPL_SOURCE
#include <urcu/pointer.h>
#include <urcu/system.h>

#include "hash.h"
#include "internal.h"

/* A verdict is cached per pair of pointers, and only for strings in read-only memory (string
 * literals, a runtime's read-only name tables): their bytes cannot change, so the pointers are
 * as good as the text and the hot path compares two pointers instead of scanning two strings.
 * Strings elsewhere (heap, stack) are scanned every time, as before: a buffer reused for another
 * name must get that name's verdict. Entries live in the table itself (no pointer to follow),
 * are published by a release store of their source and never change, so readers take no
 * lock. The table and its home slot (palev_eventsource_slot_()) are inlined into hosts, part of
 * the host ABI: only its probing is common/hash.h's. */
#define SLOTS PALEV_VERDICT_SLOTS_  /* power of two */
#define MAX_FILL (SLOTS / 2)        /* then no more entries: probes stay short */

static palev_eventsource_verdict_ verdicts[SLOTS];
PALEV_API palev_eventsource_verdict_ *const palev_eventsource_verdicts_ = verdicts;
static struct {
    pthread_mutex_t lock;
    size_t fill;
} cache = { PTHREAD_MUTEX_INITIALIZER, 0 };

static int scan(const char *source, const char *name)
{
    const struct palev__config *cfg = palev__config();

    return palev__filter_match(&cfg->source_filter, source) &&
           palev__filter_match(&cfg->name_filter, name);
}

struct range {
    uintptr_t lo, hi;
    int readonly;
};

static int find_segment(struct dl_phdr_info *info, size_t size, void *data)
{
    struct range *r = data;

    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

        if (ph->p_type == PT_LOAD && r->lo >= lo && r->hi <= lo + ph->p_memsz) {
            r->readonly = !(ph->p_flags & PF_W);
            return 1;
        }
    }
    return 0;
}

/* Is the whole string (with its NUL) in a read-only segment of a loaded module? */
static int readonly(const char *s)
{
    struct range r = { (uintptr_t)s, (uintptr_t)s + strlen(s) + 1, 0 };

    dl_iterate_phdr(find_segment, &r);
    return r.readonly;
}

/* Under the lock: a free slot from `at` on (linear probing), or NULL when the pair is there. */
static palev_eventsource_verdict_ *free_slot(const char *source, const char *name, size_t at)
{
    for (size_t k = 0; k < SLOTS; k++, at = pcm_slot_next(at, SLOTS - 1)) {
        palev_eventsource_verdict_ *s = &verdicts[at];

        if (!s->source)
            return s;
        if (s->source == source && s->name == name)
            return NULL;
    }
    return NULL;
}

/* The entry is filled in place, its source stored last with release semantics: a reader that
 * sees the source sees the name and the verdict. An entry never changes afterwards. */
static int insert(const char *source, const char *name, size_t at)
{
    int pass = scan(source, name);
    palev_eventsource_verdict_ *s;

    palev__fork_init();
    pthread_mutex_lock(&cache.lock);
    if (cache.fill < MAX_FILL && (s = free_slot(source, name, at))) {
        s->name = name;
        s->verdict = !readonly(source) || !readonly(name) ? PALEV_VERDICT_SCAN_
                     : pass                               ? PALEV_VERDICT_PASS_
                                                          : PALEV_VERDICT_OUT_;
        rcu_assign_pointer(s->source, source);
        cache.fill++;
    }
    pthread_mutex_unlock(&cache.lock);
    return pass;
}

int palev__filters_pass(const char *source, const char *name)
{
    size_t at = palev_eventsource_slot_(source, name);

    for (size_t k = 0, i = at; k < SLOTS; k++, i = pcm_slot_next(i, SLOTS - 1)) {
        const palev_eventsource_verdict_ *v = &verdicts[i];
        const char *s = rcu_dereference(v->source);

        if (!s)
            break;
        if (s == source && v->name == name)
            return v->verdict == PALEV_VERDICT_SCAN_ ? scan(source, name)
                                                     : v->verdict == PALEV_VERDICT_PASS_;
    }
    if (CMM_LOAD_SHARED(cache.fill) >= MAX_FILL)
        return scan(source, name);
    return insert(source, name, at);
}

/* ---- fork (fork.c) -------------------------------------------------------------------- */

void palev__verdict_fork_prepare(void)
{
    pthread_mutex_lock(&cache.lock);
}

void palev__verdict_fork_parent(void)
{
    pthread_mutex_unlock(&cache.lock);
}

void palev__verdict_fork_child(void)
{
    pthread_mutex_unlock(&cache.lock);
}
