/* SPDX-License-Identifier: MIT */
/* Live code ranges: CodeLoad and CodeUnload events, a lock-free set (liburcu) of what is live, and
 * the CodeRundown of it that a session starting later gets from a watcher thread. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <urcu-bp.h>
#include <urcu/rculfhash.h>

#include "internal.h"
#include "Paleventing-events.h"

/* How often the watcher looks at whether a session started recording CodeRundown. */
#define POLL_NS 100000000L
/* The rundown pauses this long after each batch, so the consumer daemon keeps up. */
#define BATCH 2048
#define BATCH_PAUSE_NS 1000000L

#define RUNDOWN_STATE \
    PALEV_TP_STATE_ENABLED(lttng_ust_tracepoint_Paleventing___CodeRundown.state)

struct range {
    struct cds_lfht_node node;
    struct rcu_head rcu;
    uintptr_t start;
    uint64_t size;
    uint8_t kind;
    char name[];
};

static struct cds_lfht *live;
static pthread_once_t live_once = PTHREAD_ONCE_INIT;
static pthread_once_t watcher_once = PTHREAD_ONCE_INIT;
static unsigned long rundowns;  /* completed, for tests (PALEV_DEBUG says so too) */

/* ---- the set --------------------------------------------------------------------------------- */

static unsigned long hash_start(uintptr_t start)
{
    uint64_t h = (uint64_t)start * 0x9E3779B97F4A7C15ull;

    return (unsigned long)(h ^ (h >> 29));
}

static int match_start(struct cds_lfht_node *node, const void *key)
{
    return caa_container_of(node, struct range, node)->start == *(const uintptr_t *)key;
}

static void free_range(struct rcu_head *head)
{
    free(caa_container_of(head, struct range, rcu));
}

/* Only in a process that can trace (the Paleventing probe provider is loaded): otherwise no
 * session can ever ask for a rundown. A host forking without exec: liburcu's threads are paused
 * around fork(), as it asks. */
static void live_create(void)
{
    if (palev_provider_register(&palev_provider_Paleventing) != 0)
        return;
    live = cds_lfht_new(1024, 1024, 0, CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING, NULL);
    if (!live) {
        palev__debug("no live code set (out of memory): no CodeRundown in this process");
        return;
    }
    /* prepare handlers run in reverse order: call_rcu's first, then urcu-bp's (and through it
     * the hash table's resize worker); the others in this order. */
    pthread_atfork(urcu_bp_before_fork, urcu_bp_after_fork_parent, urcu_bp_after_fork_child);
    pthread_atfork(call_rcu_before_fork, call_rcu_after_fork_parent, call_rcu_after_fork_child);
}

static void live_replace(struct range *r)
{
    struct cds_lfht_node *old;

    urcu_bp_read_lock();
    old = cds_lfht_add_replace(live, hash_start(r->start), match_start, &r->start, &r->node);
    urcu_bp_read_unlock();
    if (old)
        urcu_bp_call_rcu(&caa_container_of(old, struct range, node)->rcu, free_range);
}

/* Removes the range starting at `start`; its size, or -ENOENT. */
static int64_t live_remove(uintptr_t start)
{
    struct cds_lfht_iter it;
    struct cds_lfht_node *node;
    int64_t size = -ENOENT;

    if (!live)
        return size;
    urcu_bp_read_lock();
    cds_lfht_lookup(live, hash_start(start), match_start, &start, &it);
    node = cds_lfht_iter_get_node(&it);
    if (node && cds_lfht_del(live, node) == 0) {
        struct range *r = caa_container_of(node, struct range, node);

        size = (int64_t)r->size;
        urcu_bp_call_rcu(&r->rcu, free_range);
    }
    urcu_bp_read_unlock();
    return size;
}

/* ---- the rundown ----------------------------------------------------------------------------- */

static void pause_ns(long ns)
{
    struct timespec ts = { 0, ns };

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* One CodeRundown per live range, read without a lock: threads loading and unloading code go
 * on meanwhile (what they change may or may not be seen; CodeLoad/CodeUnload say it anyway). */
static void rundown(void)
{
    struct cds_lfht_iter it;
    struct range *r;
    unsigned long n = 0;

    urcu_bp_read_lock();
    cds_lfht_for_each_entry(live, &it, r, node) {
        FireEventCodeRundown(r->start, r->size, r->kind, r->name, 0);
        if (++n % BATCH == 0)
            pause_ns(BATCH_PAUSE_NS);
    }
    urcu_bp_read_unlock();
    __atomic_fetch_add(&rundowns, 1, __ATOMIC_RELAXED);
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

    if (!live || sem_init(&started, 0, 0) != 0)
        return;
    sigfillset(&all);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (pthread_create(&thread, &attr, watch, &started) == 0) {
        pthread_setname_np(thread, "palev-rundown");
        while (sem_wait(&started) != 0 && errno == EINTR)
            ;
    } else {
        palev__debug("no code rundown: the watcher thread could not be created");
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    sem_destroy(&started);
}

unsigned long palev__code_rundowns(void)
{
    return __atomic_load_n(&rundowns, __ATOMIC_RELAXED);
}

/* ---- load and unload ------------------------------------------------------------------------- */

int palev__code_publish(const void *code, size_t size, int kind, const char *name, size_t len)
{
    struct range *r;

    FireEventCodeLoad((uintptr_t)code, size, (uint8_t)kind, name, 0);
    pthread_once(&live_once, live_create);
    if (!live)
        return 0;
    r = palev__malloc(sizeof(*r) + len + 1);
    if (!r)
        return -ENOMEM;
    cds_lfht_node_init(&r->node);
    r->start = (uintptr_t)code;
    r->size = size;
    r->kind = (uint8_t)kind;
    memcpy(r->name, name, len);
    r->name[len] = '\0';
    live_replace(r);
    pthread_once(&watcher_once, watcher_start);
    return 0;
}

PALEV_API int palev_code_unload(const void *code)
{
    int64_t size;

    if (!code)
        return -EINVAL;
    size = live_remove((uintptr_t)code);
    FireEventCodeUnload((uintptr_t)code, size < 0 ? 0 : (uint64_t)size);
    return size < 0 ? (int)size : 0;
}
