/* SPDX-License-Identifier: MIT */
/* fork() without exec: every lock of the library held across it, taken in one order by one
 * pthread_atfork() handler, which also calls liblttng-ust's fork hooks once it is loaded. */
#include <dlfcn.h>
#include <pthread.h>

#include "internal.h"

/* A child forked while another thread held a lock of the library would find it held forever
 * (that thread does not exist in the child): the first define or registration hangs. So the
 * prepare handler takes every lock, the parent handler releases them and the child handler
 * releases or resets them; the child starts with a consistent library and can define and write
 * at once.
 *
 * The order, the same as any thread takes them: the dynamic events' define lock (held across
 * LTTng-UST calls), their registry lock, the providers' registry lock, the EventSource verdict
 * cache; then liblttng-ust's own locks (lttng_ust_before_fork()), last, because a define or a
 * probe provider being loaded needs them to finish. That is possible only when this handler is
 * the one calling liblttng-ust's hooks: with liblttng-ust-fork.so preloaded or
 * PALEV_FORK_HOOKS=0, liblttng-ust's locks are already held when it runs, so it takes only
 * the locks nobody holds while calling into LTTng-UST, and the child resets the others. */
static int hooks_ours;
static __thread int took_ust;

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
    palev__verdict_fork_prepare();
    took_ust = hooks_ours && palev__ust_before_fork();
}

static void parent(void)
{
    if (took_ust)
        palev__ust_after_fork_parent();
    palev__verdict_fork_parent();
    palev__registry_fork_parent();
    palev__dyn_fork_parent(hooks_ours);
}

static void child(void)
{
    if (took_ust)
        palev__ust_after_fork_child();
    palev__verdict_fork_child();
    palev__registry_fork_child(hooks_ours);
    palev__dyn_fork_child(hooks_ours);
}

static void install(void)
{
    hooks_ours = palev__config()->fork_hooks &&
                 !dlopen("liblttng-ust-fork.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (pthread_atfork(prepare, parent, child))
        palev__debug("fork: pthread_atfork failed: a child forked while another thread defines "
                     "events may hang");
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
