/* SPDX-License-Identifier: MIT */
/* Fork hooks: keep the liblttng-ust a probe provider brought in consistent across fork(). */
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

static void install(void)
{
    void *ust;

    if (!palev__config()->fork_hooks)
        return;
    ust = dlopen("liblttng-ust.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!ust)
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

void palev__fork_hooks(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;

    pthread_once(&once, install);
}
