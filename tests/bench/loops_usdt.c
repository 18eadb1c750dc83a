/* SPDX-License-Identifier: MIT */
/* The timed loops of a --usdt build: bench.man generated again as provider Palev_BenchUsdt with
 * USDT probes, the same calls as loops.c (rows 1u, 2u, 9). */
#include <stdint.h>

#include "Palev_BenchUsdt-events.h"
#include "bench.h"

static const char *const small_names[4] = {
    "GCHeapAllocTick", "JitCompileStart", "ThreadPoolEnter", "ExceptionThrown",
};

int bench_usdt_small_enabled(void)
{
    return EventEnabledSmall();
}

/* SmallOff: no LTTng session enables it, so this is the probe's semaphore (a tool attached). */
int bench_usdt_off_enabled(void)
{
    return EventEnabledSmallOff();
}

/* Disabled when nothing attached; under bpftrace, a USDT hit each (row 9). */
void bench_usdt_fire_off(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        FireEventSmallOff((uint32_t)i, i * 8, (int32_t)(i >> 3), (uint32_t)i ^ 0x5au,
                          small_names[i & 3]);
        BENCH_KEEP(i);
    }
}

void bench_usdt_fire_small(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        FireEventSmall((uint32_t)i, i * 8, (int32_t)(i >> 3), (uint32_t)i ^ 0x5au,
                       small_names[i & 3]);
        BENCH_KEEP(i);
    }
}
