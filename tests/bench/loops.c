/* SPDX-License-Identifier: MIT */
/* The timed loops: one function per variant, generated stubs and raw tracepoints side by side,
 * compiled with the same flags. Arguments vary per iteration and BENCH_KEEP() ends every body, so
 * no loop can be deleted, hoisted or folded. */
#define LTTNG_UST_TRACEPOINT_HIDDEN_DEFINITION
#include "raw-tp.h"

#include <stddef.h>
#include <uchar.h>

#include "Palev_Bench-events.h"
#include "bench.h"

/* 4 names of 15 characters for the small event. */
static const char *const small_names[4] = {
    "GCHeapAllocTick", "JitCompileStart", "ThreadPoolEnter", "ExceptionThrown",
};

/* Three 32-character strings, as UTF-16 and as UTF-8. */
#define TYPE_NAME "System.Collections.Generic.Dict1"
#define METHOD_NAME "InsertItemWithCapacityCheckAsync"
#define MODULE_NAME "System.Private.CoreLib.Generated"
#define U16(s) u"" s
_Static_assert(sizeof(TYPE_NAME) == 33 && sizeof(METHOD_NAME) == 33 && sizeof(MODULE_NAME) == 33,
               "the row-3 strings have 32 characters");
static const char16_t type16[] = U16(TYPE_NAME);
static const char16_t method16[] = U16(METHOD_NAME);
static const char16_t module16[] = U16(MODULE_NAME);

#define ITEM_COUNT 8

int bench_small_enabled(void)
{
    return EventEnabledSmall();
}

int bench_off_enabled(void)
{
    return EventEnabledSmallOff() || lttng_ust_tracepoint_enabled(palev_bench_raw, SmallOff);
}

int bench_raw_small_enabled(void)
{
    return lttng_ust_tracepoint_enabled(palev_bench_raw, Small) != 0;
}

int bench_raw_json_enabled(void)
{
    return lttng_ust_tracepoint_enabled(palev_bench_raw, Json) != 0;
}

/* ---- row 1: disabled --------------------------------------------------------------------- */

void bench_empty(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        BENCH_KEEP(i);
}

void bench_fire_off(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        FireEventSmallOff((uint32_t)i, i * 8, (int32_t)(i >> 3), (uint32_t)i ^ 0x5au,
                          small_names[i & 3]);
        BENCH_KEEP(i);
    }
}

void bench_raw_off(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        lttng_ust_tracepoint(palev_bench_raw, SmallOff, (uint32_t)i, i * 8, (int32_t)(i >> 3),
                             (uint32_t)i ^ 0x5au, small_names[i & 3]);
        BENCH_KEEP(i);
    }
}

/* ---- row 2: 4 integers + 1 string, enabled ---------------------------------------------- */

void bench_fire_small(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        FireEventSmall((uint32_t)i, i * 8, (int32_t)(i >> 3), (uint32_t)i ^ 0x5au,
                       small_names[i & 3]);
        BENCH_KEEP(i);
    }
}

void bench_raw_small(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        lttng_ust_tracepoint(palev_bench_raw, Small, (uint32_t)i, i * 8, (int32_t)(i >> 3),
                             (uint32_t)i ^ 0x5au, small_names[i & 3]);
        BENCH_KEEP(i);
    }
}

/* ---- row 3: three 32-character strings, UTF-16 and UTF-8 -------------------------------- */

void bench_fire_text16(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        FireEventText16((uint32_t)i, i * 8, (int32_t)(i >> 3), (uint32_t)i ^ 0x5au, type16,
                        method16, module16);
        BENCH_KEEP(i);
    }
}

void bench_fire_text8(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        FireEventText8((uint32_t)i, i * 8, (int32_t)(i >> 3), (uint32_t)i ^ 0x5au, TYPE_NAME,
                       METHOD_NAME, MODULE_NAME);
        BENCH_KEEP(i);
    }
}

void bench_raw_text8(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        lttng_ust_tracepoint(palev_bench_raw, Text8, (uint32_t)i, i * 8, (int32_t)(i >> 3),
                             (uint32_t)i ^ 0x5au, TYPE_NAME, METHOD_NAME, MODULE_NAME);
        BENCH_KEEP(i);
    }
}

/* ---- row 4: 15 fields, and an array of 8 structs of 4 members ---------------------------- */

void bench_fire_wide(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)i;

        FireEventWide15(u, u + 1, u + 2, u + 3, i * 2, i * 3, i * 5, i * 7, (int32_t)-u,
                        (int32_t)(u >> 1), (uint16_t)u, (uint16_t)(u >> 16), (uint8_t)u,
                        (double)u * 0.5, (const void *)(uintptr_t)(i << 4));
        BENCH_KEEP(i);
    }
}

void bench_raw_wide(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)i;

        if (lttng_ust_tracepoint_enabled(palev_bench_raw, Wide15)) {
            struct raw_wide w = {
                u, u + 1, u + 2, u + 3, i * 2, i * 3, i * 5, i * 7, (int32_t)-u,
                (int32_t)(u >> 1), (uint16_t)u, (uint16_t)(u >> 16), (uint8_t)u,
                (double)u * 0.5, (uintptr_t)(i << 4),
            };

            lttng_ust_do_tracepoint(palev_bench_raw, Wide15, &w);
        }
        BENCH_KEEP(i);
    }
}

static Palev_Bench_T_Items_Items items[ITEM_COUNT] = {
    { (const void *)0x1000, 16, 1, 0x1 }, { (const void *)0x2000, 32, 2, 0x2 },
    { (const void *)0x3000, 48, 3, 0x4 }, { (const void *)0x4000, 64, 1, 0x8 },
    { (const void *)0x5000, 80, 2, 0x10 }, { (const void *)0x6000, 96, 3, 0x20 },
    { (const void *)0x7000, 112, 1, 0x40 }, { (const void *)0x8000, 128, 2, 0x80 },
};

void bench_fire_items(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        items[i & (ITEM_COUNT - 1)].Size = i;
        FireEventItems(ITEM_COUNT, items);
        BENCH_KEEP(i);
    }
}

/* By hand: LTTng cannot record an array of structs, so gather each member into its own typed
 * sequence, as the generated code does, only when the event is enabled. */
void bench_raw_items(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        items[i & (ITEM_COUNT - 1)].Size = i;
        if (lttng_ust_tracepoint_enabled(palev_bench_raw, Items)) {
            uintptr_t address[ITEM_COUNT];
            uint64_t size[ITEM_COUNT];
            uint32_t kind[ITEM_COUNT];
            uint16_t flags[ITEM_COUNT];

            for (size_t k = 0; k < ITEM_COUNT; k++) {
                address[k] = (uintptr_t)items[k].Address;
                size[k] = items[k].Size;
                kind[k] = items[k].Kind;
                flags[k] = items[k].Flags;
            }
            lttng_ust_do_tracepoint(palev_bench_raw, Items, ITEM_COUNT, address, size, kind, flags);
        }
        BENCH_KEEP(i);
    }
}

/* ---- row 5: EventSource ------------------------------------------------------------------ */

/* Ready JSON texts, the same payloads write_pack() builds (counts aside). */
static const char *const json_texts[4] = {
    "{\"count\":1,\"name\":\"GCHeapAllocTick\"}",
    "{\"count\":2,\"name\":\"JitCompileStart\"}",
    "{\"count\":3,\"name\":\"ThreadPoolEnter\"}",
    "{\"count\":4,\"name\":\"ExceptionThrown\"}",
};

void bench_es_pack(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        palev_eventsource_write_pack("Bench.Source", 7, "Tick", "{s:i, s:s}", "count", (int)i,
                                     "name", small_names[i & 3]);
        BENCH_KEEP(i);
    }
}

void bench_es_write(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        palev_eventsource_write("Bench.Source", 7, "Tick", json_texts[i & 3]);
        BENCH_KEEP(i);
    }
}

void bench_es_is_enabled(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        int on = palev_eventsource_is_enabled("Bench.Source", "Tick");

        BENCH_KEEP(on);
    }
}

void bench_raw_json(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        lttng_ust_tracepoint(palev_bench_raw, Json, json_texts[i & 3]);
        BENCH_KEEP(i);
    }
}

void bench_raw_json_off(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        lttng_ust_tracepoint(palev_bench_raw, JsonOff, json_texts[i & 3]);
        BENCH_KEEP(i);
    }
}
