/* SPDX-License-Identifier: MIT */
/* What the liblttng-ust a probe provider brought in needs from its host, which does not link it:
 * fork hooks, and tracepoints that stay usable while the process exits. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>

#include "internal.h"

/* The host does not link liblttng-ust, so it cannot call lttng_ust_before_fork() and friends
 * around fork() itself, and without them a child that does not exec records its events under
 * its parent's vpid. Once a provider has loaded liblttng-ust, the hooks are reached through it
 * and registered with pthread_atfork(). Not when liblttng-ust-fork.so is preloaded (it calls
 * them already, from its own fork()), nor with PALEV_FORK_HOOKS=0, for a host that registers
 * them itself: called twice, lttng_ust_before_fork() deadlocks. */
typedef void fork_hook(sigset_t *);

static fork_hook *before, *after_parent, *after_child;
static __thread sigset_t saved;

static void on_prepare(void)
{
    before(&saved);
}

static void on_parent(void)
{
    after_parent(&saved);
}

static void on_child(void)
{
    after_child(&saved);
}

static void install_fork_hooks(void *ust)
{
    if (!palev__config()->fork_hooks)
        return;
    if (dlopen("liblttng-ust-fork.so.1", RTLD_NOW | RTLD_NOLOAD)) {
        palev__debug("fork hooks: liblttng-ust-fork.so is loaded and calls them");
        return;
    }
    before = (fork_hook *)dlsym(ust, "lttng_ust_before_fork");
    after_parent = (fork_hook *)dlsym(ust, "lttng_ust_after_fork_parent");
    after_child = (fork_hook *)dlsym(ust, "lttng_ust_after_fork_child");
    if (!before || !after_parent || !after_child) {
        palev__debug("fork hooks: not found in liblttng-ust");
        return;
    }
    if (pthread_atfork(on_prepare, on_parent, on_child))
        palev__debug("fork hooks: pthread_atfork failed");
}

/* At exit, each module with tracepoint call sites (P-events.c, libpaleventing's own) dlcloses
 * liblttng-ust-tracepoint and zeroes the function pointers its call sites go through, while the
 * host's other threads may still fire: they would call address 0. A runtime's GC, JIT and pool
 * threads do run while exit() runs. lttng_ust_tp_disable_destructors() tells every module to
 * leave them; nothing is lost, providers are never unloaded anyway. */
static void keep_tracepoints_at_exit(void)
{
    void *tp = dlopen("liblttng-ust-tracepoint.so.1", RTLD_NOW | RTLD_NOLOAD);
    void (*disable)(void) = NULL;

    if (tp)
        *(void **)&disable = dlsym(tp, "lttng_ust_tp_disable_destructors");
    if (disable)
        disable();
    else
        palev__debug("lttng_ust_tp_disable_destructors not found: threads firing during exit() "
                     "may crash");
}

static void install(void)
{
    void *ust = dlopen("liblttng-ust.so.1", RTLD_NOW | RTLD_NOLOAD);

    if (!ust)
        return;
    keep_tracepoints_at_exit();
    install_fork_hooks(ust);
}

void palev__ust_loaded(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;

    pthread_once(&once, install);
}
