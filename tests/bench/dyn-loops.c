/* SPDX-License-Identifier: MIT */
/* Row 9's timed loops: dynamic events (palev_event_*) with the fields of row 2's Small event. */
#include <stdio.h>

#include "bench.h"
#include "paleventing.h"

static const char *const small_names[4] = {
    "GCHeapAllocTick", "JitCompileStart", "ThreadPoolEnter", "ExceptionThrown",
};

/* The same fields as Palev_Bench:Small: 4 integers and a UTF-8 string. */
static const palev_field small_fields[] = {
    { "Count", PALEV_TYPE_UINT32, 0 }, { "Bytes", PALEV_TYPE_UINT64, 0 },
    { "Delta", PALEV_TYPE_INT32, 0 }, { "Flags", PALEV_TYPE_UINT32, PALEV_FIELD_HEX },
    { "Name", PALEV_TYPE_STRING, 0 },
};

static palev_event *dyn_small, *dyn_off;

int bench_dyn_define(void)
{
    int ret = palev_event_define("Bench_Dyn", "Small", 4, 0, small_fields, 5, &dyn_small);

    if (ret == 0)
        ret = palev_event_define("Bench_Dyn", "SmallOff", 4, 0, small_fields, 5, &dyn_off);
    return ret;
}

int bench_dyn_enabled(void)
{
    return dyn_small && palev_event_enabled(dyn_small);
}

int bench_dyn_off_enabled(void)
{
    return dyn_off && palev_event_enabled(dyn_off);
}

void bench_dyn_off(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        PALEV_EVENT_WRITE(dyn_off, (uint32_t)i, i * 8, (int32_t)(i >> 3), (uint32_t)i ^ 0x5au,
                          small_names[i & 3]);
        BENCH_KEEP(i);
    }
}

void bench_dyn_writef(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        PALEV_EVENT_WRITE(dyn_small, (uint32_t)i, i * 8, (int32_t)(i >> 3), (uint32_t)i ^ 0x5au,
                          small_names[i & 3]);
        BENCH_KEEP(i);
    }
}

void bench_dyn_write(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        if (palev_event_enabled(dyn_small)) {
            palev_value v[5] = {
                { .v.u = (uint32_t)i }, { .v.u = i * 8 }, { .v.i = (int32_t)(i >> 3) },
                { .v.u = (uint32_t)i ^ 0x5au },
                { .v.s = small_names[i & 3], .len = PALEV_NUL_TERMINATED },
            };

            palev_event_write(dyn_small, v, 5);
        }
        BENCH_KEEP(i);
    }
}

/* The same payload through EventSource's JSON path. */
void bench_es_pack_small(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        palev_eventsource_write_pack("Bench.Source", 7, "Small", "{s:i, s:I, s:i, s:i, s:s}",
                                     "Count", (int)(uint32_t)i, "Bytes", (long long)(i * 8),
                                     "Delta", (int)(i >> 3), "Flags", (int)((uint32_t)i ^ 0x5au),
                                     "Name", small_names[i & 3]);
        BENCH_KEEP(i);
    }
}

/* ---- lookup by name among LOOKUP_PROVIDERS x 10 events ------------------------------------ */

#define LOOKUP_PROVIDERS 1000
static char lookup_prov[LOOKUP_PROVIDERS][24];
static const char *const lookup_names[10] = { "Ev0", "Ev1", "Ev2", "Ev3", "Ev4",
                                              "Ev5", "Ev6", "Ev7", "Ev8", "Ev9" };

/* The names looked up, spread over all the events, prepared so the loop computes no index. */
#define LOOKUP_KEYS 4096
static const char *lookup_keys[LOOKUP_KEYS][2];

int bench_lookup_define(void)
{
    for (unsigned k = 0; k < LOOKUP_KEYS; k++) {
        lookup_keys[k][0] = lookup_prov[(k * 7919u) % LOOKUP_PROVIDERS];
        lookup_keys[k][1] = lookup_names[(k * 31u) % 10];
    }
    for (unsigned p = 0; p < LOOKUP_PROVIDERS; p++) {
        snprintf(lookup_prov[p], sizeof(lookup_prov[p]), "Bench_Lookup%u", p);
        for (unsigned e = 0; e < 10; e++) {
            palev_event *ev;

            if (palev_event_define(lookup_prov[p], lookup_names[e], 4, 0, small_fields, 5, &ev))
                return -1;
        }
    }
    return 0;
}

void bench_lookup(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        const char *const *key = lookup_keys[i & (LOOKUP_KEYS - 1)];
        palev_event *ev = palev_event_lookup(key[0], key[1]);

        BENCH_KEEP(ev);
    }
}
