/* SPDX-License-Identifier: MIT */
/* What the fuzzers' copy of libpaleventing lacks: the files needing generated tracepoint headers
 * (code.c, stack.c, provider.c) are not built here: nothing fuzzed records code or stacks, and
 * these answer as in a process that registered no generated provider and is not exiting. */
#include "internal.h"

int palev__code_publish(const void *code, size_t size, int kind, const char *name, size_t len)
{
    (void)code, (void)size, (void)kind, (void)name, (void)len;
    return 0;
}

void palev__stack_after_event(const char *provider, const char *event)
{
    (void)provider, (void)event;
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
