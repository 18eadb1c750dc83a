/* SPDX-License-Identifier: MIT */
/* fork() without exec: every lock of the library held across it, taken by one pthread_atfork()
 * handler in the one order every thread takes them in, which also calls liburcu-bp's and
 * liblttng-ust's fork hooks. */
#include <dlfcn.h>
#include <pthread.h>

#include <urcu-bp.h>

#include "internal.h"

/* A child forked while another thread held a lock of the library would find it held forever
 * (that thread does not exist in the child): the first define, code load or walker change
 * hangs. So the prepare handler takes every lock, the parent handler releases them and the child
 * handler releases or resets them; the child starts with a consistent library and can define,
 * load code and write at once. No other file registers a fork handler: with several, the order
 * in which they take their locks would depend on which file was used first.
 *
 * The order, the same as any thread takes them (a thread holding one takes only later ones;
 * docs/architecture.md, "Locks"):
 *
 *    1  probe providers being loaded by other threads: waited for, holding nothing
 *    2  dynamic events' define lock: held across LTTng-UST calls (registrations, and
 *       unregistrations that wait for a grace period of LTTng-UST's tracepoint RCU)
 *    3  dynamic events' registry lock
 *    4  the providers' registry lock
 *    5  the EventSource verdict cache's lock
 *    6  the process-wide stack walkers' lock
 *    7  the jitdump's lock
 *    8  the live code set's lock
 *    9  the unwind table's lock (libunwind's registration lock is taken only under it)
 *   10  liburcu-bp's locks (urcu_bp_before_fork()): under 9 a grace period may be waited for,
 *       and any thread may register as a reader while firing an event (a stack walk)
 *   11  liblttng-ust's locks (lttng_ust_before_fork()): under 2 and in any event written
 *
 * Under 6, 7 and 9 nothing takes another lock of the library or calls into LTTng-UST; under 8
 * palev_code_unload_area() records its CodeUnload events (11: later). Read-side sections wait
 * for nothing the order has: stack walks (liburcu-bp, inside LTTng-UST's tracepoint RCU for
 * dynamic events) take none of 2-9, and their module loads (dladdr, libpaleventing-unwind.so)
 * happen at start-up, so a grace period waited for under 2 or 9 always ends. 1 comes first
 * because the loading thread may need 2-4 and LTTng-UST's locks to finish.
 *
 * 1, 2 and 11 only when this handler calls liblttng-ust's hooks: with liblttng-ust-fork.so
 * preloaded or PALEV_FORK_HOOKS=0, liblttng-ust's locks are already held when it runs, so it
 * takes only the locks nobody holds while calling into LTTng-UST (3-10), and the child resets
 * the define lock. */
static int hooks_ours;
static __thread int took_ust;

/* 5-10: taken in this order, released in the reverse one. */
static const struct {
    void (*prepare)(void);
    void (*parent)(void);
    void (*child)(void);
} leaves[] = {
    { palev__verdict_fork_prepare, palev__verdict_fork_parent, palev__verdict_fork_child },
    { palev__stack_fork_prepare, palev__stack_fork_parent, palev__stack_fork_child },
    { palev__jitdump_fork_prepare, palev__jitdump_fork_parent, palev__perfmap_fork_child },
    { palev__code_fork_prepare, palev__code_fork_parent, palev__code_fork_child },
    { palev__unwind_fork_prepare, palev__unwind_fork_parent, palev__unwind_fork_child },
    { urcu_bp_before_fork, urcu_bp_after_fork_parent, urcu_bp_after_fork_child },
};
#define LEAVES (sizeof(leaves) / sizeof(leaves[0]))

static void prepare(void)
{
    for (;;) {
        if (hooks_ours)
            palev__registry_fork_wait();
        palev__dyn_fork_prepare(hooks_ours);
        if (palev__registry_fork_prepare(hooks_ours) == 0)
            break;
        /* A provider began to load meanwhile: let it finish first. */
        palev__dyn_fork_parent(hooks_ours);
    }
    for (size_t i = 0; i < LEAVES; i++)
        leaves[i].prepare();
    took_ust = hooks_ours && palev__ust_before_fork();
}

static void parent(void)
{
    if (took_ust)
        palev__ust_after_fork_parent();
    for (size_t i = LEAVES; i-- > 0;)
        leaves[i].parent();
    palev__registry_fork_parent();
    palev__dyn_fork_parent(hooks_ours);
}

static void child(void)
{
    if (took_ust)
        palev__ust_after_fork_child();
    for (size_t i = LEAVES; i-- > 0;)
        leaves[i].child();
    palev__registry_fork_child(hooks_ours);
    palev__dyn_fork_child(hooks_ours);
}

static void install(void)
{
    hooks_ours = palev__config()->fork_hooks &&
                 !dlopen("liblttng-ust-fork.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (pthread_atfork(prepare, parent, child))
        palev__debug("fork: pthread_atfork failed: a child forked while another thread holds a "
                     "lock of the library may hang");
}

int palev__fork_hooks_ours(void)
{
    palev__fork_init();
    return hooks_ours;
}

/* pthread_once is itself safe across fork() in glibc: a child forked during install() runs it
 * again. */
void palev__fork_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;

    pthread_once(&once, install);
}
