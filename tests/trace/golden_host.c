/* SPDX-License-Identifier: MIT */
/* palev-trace's golden host: known Start/Stop pairs (nested, interleaved, unmatched), counters,
 * notes and EventSource events, fired once stdin closes (the test starts its session first).
 * usage: golden_host [WORKERS_PAIRS]       (default 200)
 *        golden_host --bench EVENTS        fire about EVENTS events as fast as the buffers take */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "paleventing.h"
#include "Palev_TraceGolden-events.h"

static void pause_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

/* The main thread: an unmatched Stop, nesting within a task, interleaving across tasks. */
static void main_thread(void)
{
    static const char16_t text[] = { u'h', 0x00E9, u'l', u'l', u'o', u' ', 0x65E5, 0x672C, u' ',
                                     0xD83D, 0xDE00, u' ', u'"', u'q', u'"', 0 };
    FireEventPhaseDone(99);                 /* a Stop without its Start */
    FireEventWorkStart(1, 0);
    FireEventPhaseBegin(0);
    FireEventPhaseBegin(1);                 /* Phase inside Phase */
    pause_us(1000);
    FireEventPhaseDone(1);
    pause_us(500);
    FireEventPhaseDone(0);
    FireEventWorkStop(1);
    FireEventWorkStart(2, 2);
    FireEventPhaseBegin(0);
    pause_us(300);
    FireEventWorkStop(2);                   /* Work ends inside Phase: not nested */
    FireEventPhaseDone(0);
    FireEventNote(text, 1, 1, (const void *)(uintptr_t)0x1234);
    for (int i = 1; i <= 10; i++) {
        FireEventTick(1000u * (uint64_t)i, (uint32_t)i, i / 4.0);
        palev_eventsource_write_pack("Golden.Source", 7, "Counters", "{s:i, s:f}",
                                     "queue_length", i, "load", i * 0.5);
        pause_us(200);
    }
    palev_eventsource_write("Golden.Source", 8, "Message", "{\"text\":\"not a number\"}");
}

static void *worker(void *arg)
{
    unsigned pairs = (unsigned)(uintptr_t)arg;
    for (unsigned i = 0; i < pairs; i++) {
        FireEventWorkStart(100 + i, i % 3);
        pause_us(50 + (long)(i % 5) * 100);
        FireEventWorkStop(100 + i);
    }
    FireEventWorkStart(999, 2);             /* a Start without its Stop */
    return NULL;
}

/* Many events quickly, for benchmarks: pairs of Work with a Tick between. */
static void bench(unsigned long events)
{
    for (unsigned long i = 0; i < events / 3; i++) {
        FireEventWorkStart((uint32_t)i, (uint32_t)(i % 3));
        FireEventTick(i * 64, (uint32_t)(i >> 10), (double)(i % 100) / 100.0);
        FireEventWorkStop((uint32_t)i);
        if ((i & 1023) == 1023)
            pause_us(150);                  /* let the consumer drain: nothing discarded */
    }
}

int main(int argc, char **argv)
{
    char buf[64];
    pthread_t t;
    while (fgets(buf, sizeof(buf), stdin))
        ;
    if (argc == 3 && strcmp(argv[1], "--bench") == 0) {
        bench(strtoul(argv[2], NULL, 10));
        return 0;
    }
    unsigned pairs = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 200;
    main_thread();
    if (pthread_create(&t, NULL, worker, (void *)(uintptr_t)pairs) != 0)
        return 2;
    pthread_join(t, NULL);
    return 0;
}
