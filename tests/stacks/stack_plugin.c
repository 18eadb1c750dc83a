/* SPDX-License-Identifier: MIT */
/* The plugin of stack_host: two frames of its own between the host's main and its callback. */
#define NOINLINE __attribute__((noinline))

static volatile int sink;

void stack_plugin_run(void (*cb)(void)) __attribute__((visibility("default")));
NOINLINE void stack_plugin_inner(void (*cb)(void)) __attribute__((visibility("default")));

NOINLINE void stack_plugin_inner(void (*cb)(void))
{
    cb();
    sink++;
}

void stack_plugin_run(void (*cb)(void))
{
    stack_plugin_inner(cb);
    sink++;
}
