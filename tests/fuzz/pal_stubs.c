/* SPDX-License-Identifier: MIT */
/* What the fuzzers' copy of libpaleventing lacks: the files needing generated tracepoint headers
 * (code.c, stack.c, provider.c) are not built here: nothing fuzzed records code or stacks, and
 * these answer as in a process that registered no generated provider and is not exiting. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>

/* A process with no live code set (PALEV_LTTNG=0, no perf output). */
int palev__code_publish(struct palev__code *c)
{
    free(c->rule);
    return 0;
}

int palev__code_lookup(uintptr_t start, uint64_t *size, int *kind, char **name,
                       struct palev__unwind_rule **rule)
{
    (void)start, (void)size, (void)kind;
    *name = NULL;
    *rule = NULL;
    return -ENOENT;
}

long palev__code_patch(const struct palev__code *c)
{
    (void)c;
    return -ENOENT;
}

int palev__code_set_ready(void)
{
    return 0;
}

void palev__rcu_free(struct palev__deferred *block)
{
    free(block);
}

void palev__stack_after_event(const char *provider, const char *event)
{
    (void)provider, (void)event;
}

void palev__stack_init(void)
{
}

void palev__registry_finish(void)
{
}

int palev__provider_known(const char *name)
{
    (void)name;
    return 0;
}

int palev__finished(void)
{
    return 0;
}

/* Nothing fuzzed forks: the registry's part of the fork handler (fork.c) has nothing to do. */
void palev__registry_fork_wait(void)
{
}

int palev__registry_fork_prepare(int ours)
{
    (void)ours;
    return 0;
}

void palev__registry_fork_parent(void)
{
}

void palev__registry_fork_child(int ours)
{
    (void)ours;
}

/* ... nor the code set's and the walkers' parts: neither exists here. */
void palev__code_fork_prepare(void)
{
}

void palev__code_fork_parent(void)
{
}

void palev__code_fork_child(void)
{
}

void palev__stack_fork_prepare(void)
{
}

void palev__stack_fork_parent(void)
{
}

void palev__stack_fork_child(void)
{
}
