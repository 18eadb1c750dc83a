/* SPDX-License-Identifier: MIT */
/* Call sites of the raw baselines, linked like generated ones (dynamic linkage, hidden
 * definitions, no -llttng-ust) and their probe provider dlopened at start-up, as libpaleventing
 * does for generated providers: the comparison differs only in the code the call sites run. */
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#define LTTNG_UST_TRACEPOINT_HIDDEN_DEFINITION
#include "raw-tp.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define RAW_PROBE "libpalev_bench_raw-lttng.so"

static int raw_loaded = -1;

int bench_raw_loaded(void)
{
    return raw_loaded;
}

/* Next to the executable, like the generated providers; never dlclosed. */
static void __attribute__((constructor)) load_raw_probe(void)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    char *slash;

    if (n <= 0)
        return;
    path[n] = '\0';
    slash = strrchr(path, '/');
    if (!slash || (size_t)(slash + 1 - path) + sizeof(RAW_PROBE) > sizeof(path))
        return;
    memcpy(slash + 1, RAW_PROBE, sizeof(RAW_PROBE));
    if (dlopen(path, RTLD_NOW | RTLD_NODELETE))
        raw_loaded = 0;
    else
        fprintf(stderr, "palev-bench: cannot load %s: %s\n", path, dlerror());
}
