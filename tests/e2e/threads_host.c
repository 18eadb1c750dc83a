/* SPDX-License-Identifier: MIT */
/* Host of threads.sh: two threads fire IntsAlways and Wide15 of Palev_Host with values derived
 * from (thread, sequence number) until stdin reaches EOF; prints how many each fired, exits 0. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "Palev_Host-events.h"

static atomic_int stop;

/* "t<t>#<i> é日😀" as UTF-16 */
static void label(char16_t *out, size_t size, unsigned t, uint64_t i)
{
    static const char16_t tail[] = { u' ', 0x00E9, 0x65E5, 0xD83D, 0xDE00, 0 };
    char ascii[48];
    size_t n = (size_t)snprintf(ascii, sizeof(ascii), "t%u#%" PRIu64, t, i);

    for (size_t k = 0; k < n && k + 1 < size; k++)
        out[k] = (char16_t)ascii[k];
    memcpy(out + n, tail, sizeof(tail));
}

static void fire(unsigned t, uint64_t i)
{
    char16_t text[64];

    FireEventIntsAlways((int8_t)t, (uint8_t)i, (int16_t)-(int)(i % 30000), (uint16_t)(i * 7),
                        -(int32_t)(i % 2000000000), (uint32_t)(i * 13), -(int64_t)i, i,
                        (uint32_t)(0xC0DE0000u + i), ((uint64_t)t << 56) | i, (uint8_t)(i * 5),
                        (uint16_t)(i * 11), (int32_t)(0x40000000 + i % 1000), (size_t)(i * 2),
                        (const void *)(uintptr_t)(0x1000 + i * 8));
    label(text, sizeof(text) / sizeof(text[0]), t, i);
    FireEventWide15(t, (uint32_t)i, (uint32_t)(i + 3), (uint32_t)(i + 4), (uint32_t)(i + 5),
                    (uint32_t)(i + 6), (uint32_t)(i + 7), (uint32_t)(i + 8), (uint32_t)(i + 9),
                    (uint32_t)(i + 10), i * 1000003, (double)(i % 64) + 0.25, text, (int32_t)(i & 1),
                    (const void *)(uintptr_t)(0xABC0000 + i));
}

static void *run(void *arg)
{
    unsigned t = (unsigned)(uintptr_t)arg;
    const struct timespec pause = { 0, 20000 };
    uint64_t i = 0;

    /* paced so that a session's buffers never overflow: no event may be discarded */
    while (!atomic_load(&stop)) {
        fire(t, i++);
        nanosleep(&pause, NULL);
    }
    return (void *)(uintptr_t)i;
}

int main(void)
{
    pthread_t threads[2];
    char buf[64];

    for (unsigned t = 0; t < 2; t++)
        if (pthread_create(&threads[t], NULL, run, (void *)(uintptr_t)(t + 1)) != 0)
            return 2;
    while (fgets(buf, sizeof(buf), stdin))
        ;
    atomic_store(&stop, 1);
    for (unsigned t = 0; t < 2; t++) {
        void *n;

        pthread_join(threads[t], &n);
        printf("thread %u fired %" PRIuPTR " pairs\n", t + 1, (uintptr_t)n);
    }
    return 0;
}
