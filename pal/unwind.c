/* SPDX-License-Identifier: MIT */
/* PALEV_STACK=unwind: libpaleventing-unwind.so (linked with libunwind) loaded on first use, so
 * that libpaleventing itself never depends on libunwind. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define MODULE "libpaleventing-unwind.so"

typedef size_t walk_fn(uintptr_t *ip, uintptr_t *top, size_t max, int tops);

static walk_fn *walk;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

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
    void *module = open_module();

    if (module)
        *(void **)&walk = dlsym(module, "palev_unwind_walk");
    if (!walk)
        palev__debug("PALEV_STACK=unwind: %s not loaded (%s): frame pointers are walked instead",
                     MODULE, module ? "no palev_unwind_walk" : dlerror());
}

long palev__unwind_walk(struct palev__native *nat, size_t max, int tops)
{
    pthread_once(&load_once, load);
    if (!walk)
        return -ENOSYS;
    return (long)walk(nat->ip, nat->top, max, tops);
}
