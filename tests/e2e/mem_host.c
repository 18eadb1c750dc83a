/* SPDX-License-Identifier: MIT */
/* A host that must not grow: every path of the library that touches the heap, over and over,
 * with the heap in use and the resident size printed after each round (tests/e2e/memory.sh). */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uchar.h>
#include <unistd.h>

#include <paleventing.h>

#include "Palev_Mem-events.h"

/* Longer than the emit functions' 4 KiB stack scratch once converted: a heap block per event. */
#define BIG_UNITS 5000
/* Code ranges loaded and unloaded in turn (the code table and its RCU-deferred frees). */
#define CODE_SLOTS 1024

static char16_t big16[BIG_UNITS + 1];
static char code[CODE_SLOTS * 64];
static palev_event *dyn;

static const palev_field dyn_fields[] = {
    { "i", PALEV_TYPE_INT32, 0 },
    { "method", PALEV_TYPE_STRING16, 0 },
    { "path", PALEV_TYPE_STRING, 0 },
    { "sizes", PALEV_TYPE_UINT64, PALEV_FIELD_ARRAY },
};

/* One iteration: typed events (small, UTF-16 with a heap-sized string every 64th time, an array
 * of structs), an EventSource event packed by jansson, a dynamic event, a code range loaded and
 * unloaded. */
static void iteration(uint64_t i)
{
    static const uint64_t sizes[3] = { 1, 2, 3 };
    Palev_Mem_T_Items_Items items[4];
    char name[32];
    void *at = code + (i % CODE_SLOTS) * 64;

    for (int k = 0; k < 4; k++)
        items[k] = (Palev_Mem_T_Items_Items){ at, i + (uint64_t)k, (uint32_t)k, (uint16_t)k };
    FireEventSmall((uint32_t)i, i, 1, 2, "small");
    FireEventText16((uint32_t)i, i, 1, 2, i % 64 == 0 ? big16 : u"System.String", u"Concat",
                    u"System.Private.CoreLib.dll");
    FireEventItems(4, items);
    palev_eventsource_write_pack("Mem.Source", 1, "Tick", "{s:i, s:s}", "i", (int)i, "name",
                                 "tick");
    PALEV_EVENT_WRITE(dyn, (int32_t)i, u"Method", "/path", sizes, (size_t)3);
    snprintf(name, sizeof(name), "Method_%u", (unsigned)(i % CODE_SLOTS));
    palev_code_load(at, 64, name);
    palev_code_unload(at);
}

/* After a pause, so that the frees deferred past RCU grace periods (unloaded code ranges) have
 * run: the heap then holds what the process keeps, not what is on its way out. */
static void report(const char *what, uint64_t done)
{
    struct mallinfo2 mi;
    long pages = 0, resident = 0;
    FILE *f;

    usleep(200000);
    mi = mallinfo2();
    f = fopen("/proc/self/statm", "r");

    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    printf("%s iterations %llu heap_in_use %zu heap_arena %zu rss_kib %ld\n", what,
           (unsigned long long)done, mi.uordblks, mi.arena + mi.hblkhd, resident * 4);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    uint64_t rounds = argc > 1 ? strtoull(argv[1], NULL, 10) : 5;
    uint64_t iters = argc > 2 ? strtoull(argv[2], NULL, 10) : 100000;
    uint64_t i = 0;
    int err;

    for (size_t k = 0; k < BIG_UNITS; k++)
        big16[k] = (char16_t)(k % 2 ? u'\u00e9' : u'a');    /* 7500 bytes of UTF-8 */
    err = palev_event_define("Palev_MemDyn", "Write", 4, 0, dyn_fields, 4, &dyn);
    if (err) {
        fprintf(stderr, "mem_host: palev_event_define: %s\n", palev_strerror(err));
        return 1;
    }
    /* Warm-up: every path has taken what it keeps for the life of the process. */
    for (; i < iters / 2; i++)
        iteration(i);
    report("warm", i);
    for (uint64_t r = 1; r <= rounds; r++) {
        for (uint64_t end = i + iters; i < end; i++)
            iteration(i);
        report("round", i);
    }
    return 0;
}
