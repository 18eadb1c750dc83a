/* SPDX-License-Identifier: MIT */
/* Live code ranges: CodeLoad and CodeUnload events, the set of what is live (a hash table by
 * start and a list, changed under one mutex), the CodeRundown of it that a session starting
 * later gets from a watcher thread, which reads the list as an RCU reader (loads and unloads
 * never wait for it) and also frees, after grace periods, what it and stack walks may still
 * read. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <urcu-bp.h>

#include "internal.h"
#include "Paleventing-events.h"

#define CODE_MAX_BYTES (1u << 31)     /* as perfmap.c: what a code range may span */

/* How often the watcher looks at whether a session started recording CodeRundown. */
#define POLL_NS 100000000L
/* The rundown pauses after BATCH ranges so that the consumer daemon keeps up. */
#define BATCH 2048
#define BATCH_PAUSE_NS 1000000L
#define SLOTS_MIN 256

#define RUNDOWN_STATE \
    PALEV_TP_STATE_ENABLED(lttng_ust_tracepoint_Paleventing___CodeRundown.state)

/* A live range, immutable once in the set (a patch puts a new one in its place). Out of the
 * set, its `next` still leads the rundown on, and it is freed after a grace period. */
struct range {
    struct palev__deferred deferred;    /* first: palev__rcu_free() */
    struct range *prev, *next;          /* the list, in load order; next: RCU-published */
    uintptr_t start;
    uint64_t size;
    uint32_t version;
    uint8_t kind;
    struct palev__unwind_rule *rule;    /* owned; NULL when none */
    char name[];
};

static struct {
    pthread_mutex_t lock;
    int ready;                  /* the set exists: a process that can trace or logs to perf */
    int traced;                 /* the process can trace: watcher, rundowns, unwind table */
    struct range list;          /* sentinel of the list */
    struct range **slots;       /* open addressing, linear probing, by start */
    size_t cap, used;
    int rundown;                /* a rundown is reading the list: what leaves it waits */
} set = {
    .lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP,
    .list = { { NULL }, &set.list, &set.list, 0, 0, 0, 0, NULL },
};
static pthread_once_t set_once = PTHREAD_ONCE_INIT;
static pthread_once_t watcher_once = PTHREAD_ONCE_INIT;
static struct palev__deferred *garbage;     /* freed by the watcher after a grace period */
static int watcher_running;

/* ---- RCU ------------------------------------------------------------------------------------- */

/* Pushed without a lock: any thread, any time. Without a watcher (it could not start), the
 * grace period is waited for here. */
void palev__rcu_free(struct palev__deferred *block)
{
    struct palev__deferred *head = __atomic_load_n(&garbage, __ATOMIC_RELAXED);

    if (!__atomic_load_n(&watcher_running, __ATOMIC_RELAXED)) {
        urcu_bp_synchronize_rcu();
        free(block);
        return;
    }
    do
        block->next = head;
    while (!__atomic_compare_exchange_n(&garbage, &head, block, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED));
}

static void reclaim(void)
{
    struct palev__deferred *g = __atomic_exchange_n(&garbage, NULL, __ATOMIC_ACQUIRE);

    if (!g)
        return;
    urcu_bp_synchronize_rcu();
    while (g) {
        struct palev__deferred *next = g->next;

        free(g);
        g = next;
    }
}

/* ---- the set: under set.lock ------------------------------------------------------------------ */

static size_t slot_of(uintptr_t start, size_t cap)
{
    uint64_t h = (uint64_t)start * 0x9E3779B97F4A7C15ull;

    return (size_t)(h ^ (h >> 32)) & (cap - 1);
}

static size_t find_slot(uintptr_t start)
{
    size_t i = slot_of(start, set.cap);

    while (set.slots[i] && set.slots[i]->start != start)
        i = (i + 1) & (set.cap - 1);
    return i;
}

/* Grows (or shrinks) to `cap` slots; on failure the table stays as it is. */
static int resize(size_t cap)
{
    struct range **old = set.slots;
    size_t old_cap = set.cap;

    set.slots = calloc(cap, sizeof(*set.slots));
    if (!set.slots) {
        set.slots = old;
        return -ENOMEM;
    }
    set.cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i])
            set.slots[find_slot(old[i]->start)] = old[i];
    free(old);
    return 0;
}

/* Backward-shift deletion: no tombstones, probes stay short. */
static void delete_slot(size_t i)
{
    size_t j = i;

    set.slots[i] = NULL;
    for (;;) {
        size_t home;

        j = (j + 1) & (set.cap - 1);
        if (!set.slots[j])
            break;
        home = slot_of(set.slots[j]->start, set.cap);
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            set.slots[i] = set.slots[j];
            set.slots[j] = NULL;
            i = j;
        }
    }
    set.used--;
    if (set.cap > SLOTS_MIN && set.used * 8 < set.cap)
        resize(set.cap / 2);
}

/* The rundown follows `next` only, without the lock: a range is published there once whole,
 * and an unlinked one keeps its `next`, so the rundown goes on from it to ranges loaded later. */
static void list_append(struct range *r)
{
    r->prev = set.list.prev;
    r->next = &set.list;
    rcu_assign_pointer(set.list.prev->next, r);
    set.list.prev = r;
}

static void list_unlink(struct range *r)
{
    CMM_STORE_SHARED(r->prev->next, r->next);
    r->next->prev = r->prev;
}

/* A range out of the set, after the unlock. `later`: set.rundown, read under the lock that took
 * it out: a rundown under way may be reading it, so it is freed after a grace period; otherwise
 * none can reach it (a rundown starts reading after setting set.rundown under the lock) and it is
 * freed at once, by the thread that allocated it. The rule is read by nobody without the lock. */
static void range_free(struct range *r, int later)
{
    if (!r)
        return;
    free(r->rule);
    r->rule = NULL;
    if (later)
        palev__rcu_free(&r->deferred);
    else
        free(r);
}

/* Puts r in the set; returns the range it replaces (same start), out of the set, or NULL. */
static int insert(struct range *r, struct range **replaced)
{
    size_t i;

    *replaced = NULL;
    /* Linear probing needs an empty slot to end a search. */
    if ((set.used + 1) * 2 > set.cap && resize(set.cap * 2) != 0 && set.used + 2 > set.cap)
        return -ENOMEM;
    i = find_slot(r->start);
    if (set.slots[i]) {
        list_unlink(set.slots[i]);
        *replaced = set.slots[i];
    } else {
        set.used++;
    }
    set.slots[i] = r;
    list_append(r);
    return 0;
}

static struct range *take(uintptr_t start)
{
    size_t i = find_slot(start);
    struct range *r = set.slots[i];

    if (r) {
        delete_slot(i);
        list_unlink(r);
    }
    return r;
}

/* ---- fork (fork.c) ---------------------------------------------------------------------------- */

void palev__code_fork_prepare(void)
{
    pthread_mutex_lock(&set.lock);
}

void palev__code_fork_parent(void)
{
    pthread_mutex_unlock(&set.lock);
}

/* The watcher is not in the child (a rundown it had under way held no lock, and urcu-bp forgets
 * its reader): the next code load starts a watcher of the child's own, which frees what waits
 * for a grace period. */
void palev__code_fork_child(void)
{
    set.rundown = 0;
    watcher_running = 0;
    watcher_once = (pthread_once_t)PTHREAD_ONCE_INIT;
    pthread_mutex_unlock(&set.lock);
}

/* A process that can trace keeps the set for rundowns; one that only logs to perf keeps it for
 * palev_code_patch(). */
static void set_create(void)
{
    palev__fork_init();
    set.traced = palev_provider_register(&palev_provider_Paleventing) == 0;
    if (!set.traced && !palev_perfmap_is_enabled())
        return;
    set.slots = calloc(SLOTS_MIN, sizeof(*set.slots));
    if (!set.slots) {
        palev__debug("no live code set (out of memory): no CodeRundown in this process");
        return;
    }
    set.cap = SLOTS_MIN;
    set.ready = 1;
}

int palev__code_set_ready(void)
{
    pthread_once(&set_once, set_create);
    return set.ready;
}

/* ---- the rundown ----------------------------------------------------------------------------- */

static void pause_ns(long ns)
{
    struct timespec ts = { 0, ns };

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* One CodeRundown per live range, the list read as an RCU reader: no lock, so threads loading
 * and unloading code never wait for it. Every range live throughout is recorded once (the list
 * only grows at its end, and a range unlinked meanwhile still leads on); what changes meanwhile
 * may or may not be seen (CodeLoad/CodeUnload say it). The lock is taken only to say that a
 * rundown reads (set.rundown): ranges taken out meanwhile are then freed by this thread
 * (reclaim(), never during a rundown), so the read-side section can be left during the pauses
 * with the range it stands on kept, and walker removals waiting for a grace period do not wait
 * for the whole rundown. */
static void rundown(void)
{
    unsigned long n = 0;

    pthread_mutex_lock(&set.lock);
    set.rundown = 1;
    pthread_mutex_unlock(&set.lock);
    urcu_bp_read_lock();
    for (const struct range *r = rcu_dereference(set.list.next); r != &set.list;
         r = rcu_dereference(r->next)) {
        FireEventCodeRundown(r->start, r->size, r->kind, r->name, r->version);
        if (++n % BATCH == 0) {
            urcu_bp_read_unlock();
            pause_ns(BATCH_PAUSE_NS);
            urcu_bp_read_lock();
        }
    }
    urcu_bp_read_unlock();
    pthread_mutex_lock(&set.lock);
    set.rundown = 0;
    pthread_mutex_unlock(&set.lock);
    palev__debug("code rundown: %lu ranges", n);
}

/* A session's start is seen as the CodeRundown tracepoint's state turning on: LTTng sets it when
 * a started session enables the event, and calls nothing in the process that could tell. */
static void *watch(void *arg)
{
    int was = 0;

    sem_post(arg);      /* started: watcher_start() may return */
    for (;;) {
        int on = RUNDOWN_STATE;

        if (on && !was)
            rundown();
        was = on;
        reclaim();
        pause_ns(POLL_NS);
    }
    return NULL;
}

/* Only in a process that loads code and can trace. The thread takes no signal of the host's.
 * Returns once the thread runs: a host forking right after its first code load then finds no
 * thread half-started (glibc's malloc is safe across fork() anyway; AddressSanitizer's
 * allocator is not, and a child of a fork during a thread's start-up could hang in it). */
static void watcher_start(void)
{
    sigset_t all, old;
    pthread_attr_t attr;
    pthread_t thread;
    sem_t started;

    if (!set.traced || sem_init(&started, 0, 0) != 0)
        return;
    sigfillset(&all);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (pthread_create(&thread, &attr, watch, &started) == 0) {
        pthread_setname_np(thread, "palev-rundown");
        while (sem_wait(&started) != 0 && errno == EINTR)
            ;
        __atomic_store_n(&watcher_running, 1, __ATOMIC_RELAXED);
    } else {
        palev__debug("no code rundown: the watcher thread could not be created");
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    sem_destroy(&started);
}

/* ---- load, patch, unload ----------------------------------------------------------------------- */

/* The name copied, line breaks made spaces, as in the perf map (perf reads it line by line). */
static struct range *range_new(const struct palev__code *c, uint32_t version)
{
    struct range *r = palev__malloc(sizeof(*r) + c->len + 1);

    if (!r)
        return NULL;
    r->start = (uintptr_t)c->start;
    r->size = c->size;
    r->version = version;
    r->kind = (uint8_t)c->kind;
    r->rule = NULL;
    for (size_t i = 0; i < c->len; i++)
        r->name[i] = c->name[i] == '\n' || c->name[i] == '\r' ? ' ' : c->name[i];
    r->name[c->len] = '\0';
    return r;
}

/* Without the set, the Paleventing provider is not loaded either: nothing to record. */
int palev__code_publish(struct palev__code *c)
{
    struct range *r, *old = NULL;
    int ret = 0, later;

    if (!palev__code_set_ready()) {
        free(c->rule);
        return 0;
    }
    if (!(r = range_new(c, 0))) {
        free(c->rule);
        return -ENOMEM;
    }
    FireEventCodeLoad(r->start, r->size, r->kind, r->name, 0);
    r->rule = c->rule;
    if (set.traced && c->rule)
        ret = palev__unwind_add(r->start, r->size, c->rule);
    else if (set.traced)
        palev__unwind_remove(r->start);
    pthread_mutex_lock(&set.lock);
    if (insert(r, &old) != 0) {
        ret = -ENOMEM;
        old = r;
    }
    later = set.rundown;
    pthread_mutex_unlock(&set.lock);
    range_free(old, later);
    if (set.traced)
        pthread_once(&watcher_once, watcher_start);
    return ret;
}

int palev__code_lookup(uintptr_t start, uint64_t *size, int *kind, char **name,
                       struct palev__unwind_rule **rule)
{
    const struct range *r;
    int ret = -ENOENT;

    *name = NULL;
    *rule = NULL;
    if (!palev__code_set_ready())
        return ret;
    pthread_mutex_lock(&set.lock);
    r = set.slots[find_slot(start)];
    if (r) {
        size_t rule_size = r->rule ? sizeof(*r->rule) + r->rule->cfi_size : 0;

        *size = r->size;
        *kind = r->kind;
        *name = strdup(r->name);
        *rule = rule_size ? palev__malloc(rule_size) : NULL;
        ret = !*name || (rule_size && !*rule) ? -ENOMEM : 0;
        if (*rule)
            memcpy(*rule, r->rule, rule_size);
    }
    pthread_mutex_unlock(&set.lock);
    if (ret) {
        free(*name);
        free(*rule);
        *name = NULL;
        *rule = NULL;
    }
    return ret;
}

/* The new version takes the old one's place, kind and rule. */
long palev__code_patch(const struct palev__code *c)
{
    struct range *r = NULL, *old;
    struct palev__unwind_rule *moved = NULL;
    long ret = -ENOENT;
    uint8_t kind = 0;
    int later;

    if (!palev__code_set_ready())
        return ret;
    pthread_mutex_lock(&set.lock);
    old = set.slots[find_slot((uintptr_t)c->start)];
    if (old && (r = range_new(c, old->version + 1))) {
        kind = r->kind = old->kind;
        r->rule = old->rule;
        old->rule = NULL;
        /* A new size for the unwind table: the rule's copy is put there after the unlock. */
        if (r->rule && r->size != old->size && set.traced &&
            (moved = palev__malloc(sizeof(*r->rule) + r->rule->cfi_size)))
            memcpy(moved, r->rule, sizeof(*r->rule) + r->rule->cfi_size);
        insert(r, &old);        /* a replacement: never fails */
        ret = r->version;
    } else if (old) {
        ret = -ENOMEM;
        old = NULL;
    }
    later = set.rundown;
    pthread_mutex_unlock(&set.lock);
    range_free(old, later);
    if (moved)
        palev__unwind_add((uintptr_t)c->start, c->size, moved);
    free(moved);
    if (ret > 0)
        FireEventCodeLoad((uintptr_t)c->start, c->size, kind, c->name, (uint32_t)ret);
    return ret;
}

PALEV_API int palev_code_unload(const void *code)
{
    struct range *r = NULL;
    uint64_t size = 0;
    int later = 0;

    if (!code)
        return -EINVAL;
    if (palev__code_set_ready()) {
        pthread_mutex_lock(&set.lock);
        r = take((uintptr_t)code);
        if (r)
            size = r->size;
        later = set.rundown;
        pthread_mutex_unlock(&set.lock);
        if (size && set.traced)
            palev__unwind_remove((uintptr_t)code);
        range_free(r, later);
    }
    FireEventCodeUnload((uintptr_t)code, size);
    return size ? 0 : -ENOENT;
}

/* One pass over the list under the lock: CodeUnload is recorded there too (values only), the
 * ranges freed after it. */
PALEV_API int palev_code_unload_area(const void *start, size_t size)
{
    uintptr_t lo = (uintptr_t)start, hi = lo + size < lo ? UINTPTR_MAX : lo + size;
    struct palev__deferred *freed = NULL;
    int count = 0, later;

    if (!start || size == 0)
        return -EINVAL;
    if (!palev__code_set_ready())
        return 0;
    pthread_mutex_lock(&set.lock);
    for (struct range *r = set.list.next, *next; r != &set.list; r = next) {
        next = r->next;
        if (r->start < lo || r->start >= hi)
            continue;
        take(r->start);
        FireEventCodeUnload(r->start, r->size);
        r->deferred.next = freed;       /* not `next`: the rundown may follow it */
        freed = &r->deferred;
        count += count < INT32_MAX;
    }
    later = set.rundown;
    pthread_mutex_unlock(&set.lock);
    while (freed) {
        struct palev__deferred *next = freed->next;

        range_free((struct range *)freed, later);
        freed = next;
    }
    if (count && set.traced)
        palev__unwind_remove_area(lo, hi);
    return count;
}

/* ---- unwind rules of named native code ------------------------------------------------------- */

/* Only the unwind table: what names the range (its ELF symbols) stays what perf and the trace
 * see. The table is kept where the live set's ranges put theirs: in a process that can trace. */
PALEV_API int palev_code_unwind_range(const void *start, size_t size,
                                      const palev_code_unwind *unwind)
{
    struct palev__unwind_rule *rule;
    int ret;

    if (!start || size == 0 || size > CODE_MAX_BYTES)
        return -EINVAL;
#if !defined(__x86_64__)
    (void)unwind;
    return -ENOTSUP;
#else
    ret = palev__unwind_rule_new(unwind, &rule);
    if (ret)
        return ret;
    if (palev__code_set_ready() && set.traced)
        ret = palev__unwind_add((uintptr_t)start, size, rule);
    free(rule);
    return ret;
#endif
}

PALEV_API int palev_code_unwind_range_remove(const void *start)
{
    if (!start)
        return -EINVAL;
    if (!palev__code_set_ready() || !set.traced)
        return -ENOENT;
    return palev__unwind_remove((uintptr_t)start) ? 0 : -ENOENT;
}
