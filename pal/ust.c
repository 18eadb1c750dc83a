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
 * and called by the library's fork handler (fork.c), after it has taken the library's own locks.
 * Not when liblttng-ust-fork.so is preloaded (it calls them already, from its own fork()), nor
 * with PALEV_FORK_HOOKS=0, for a host that calls them itself: called twice,
 * lttng_ust_before_fork() deadlocks. */
typedef void fork_hook(sigset_t *);

static struct {
    fork_hook *before, *after_parent, *after_child;
} hooks;                        /* set once, before the load that brought liblttng-ust returns */
static __thread sigset_t saved;

int palev__ust_before_fork(void)
{
    fork_hook *before = __atomic_load_n(&hooks.before, __ATOMIC_ACQUIRE);

    if (!before)
        return 0;
    before(&saved);
    return 1;
}

void palev__ust_after_fork_parent(void)
{
    hooks.after_parent(&saved);
}

void palev__ust_after_fork_child(void)
{
    hooks.after_child(&saved);
}

static void install_fork_hooks(void *ust)
{
    fork_hook *before;

    if (!palev__fork_hooks_ours()) {
        palev__debug("fork hooks: called by liblttng-ust-fork.so or by the host "
                     "(PALEV_FORK_HOOKS=0)");
        return;
    }
    before = (fork_hook *)dlsym(ust, "lttng_ust_before_fork");
    hooks.after_parent = (fork_hook *)dlsym(ust, "lttng_ust_after_fork_parent");
    hooks.after_child = (fork_hook *)dlsym(ust, "lttng_ust_after_fork_child");
    if (!before || !hooks.after_parent || !hooks.after_child) {
        palev__debug("fork hooks: not found in liblttng-ust");
        return;
    }
    /* Last, with release semantics: a fork that sees it sees the other two. */
    __atomic_store_n(&hooks.before, before, __ATOMIC_RELEASE);
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
