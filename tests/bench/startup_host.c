/* SPDX-License-Identifier: MIT */
/* The empty hosts palev-bench-startup starts: main() sends the CLOCK_MONOTONIC time it was
 * reached (ns, 8 bytes) on the descriptor PALEV_BENCH_FD names, and exits. Built three ways:
 * startup-stock (nothing else), startup-pal (libpaleventing and a generated provider; with
 * PALEV_BENCH_WAIT set it also sends the time palev_provider_wait() returned), startup-raw
 * (PALEV_BENCH_RAW: a hand-written LTTng-UST tracepoint, probe and call site in the program,
 * linked with liblttng-ust). */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#if defined(PALEV_BENCH_RAW)
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "raw-tp.h"
#elif defined(PALEV_BENCH_PAL)
#include "Palev_Startup-events.h"
#endif

static void send_now(int fd)
{
    struct timespec ts;
    int64_t ns;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    if (write(fd, &ns, sizeof(ns)) != (ssize_t)sizeof(ns))
        exit(1);
}

int main(void)
{
    const char *fd = getenv("PALEV_BENCH_FD");

    if (!fd)
        return 2;
    send_now(atoi(fd));
#if defined(PALEV_BENCH_PAL)
    if (getenv("PALEV_BENCH_WAIT")) {
        if (palev_provider_wait(10000) != 0)
            return 1;
        send_now(atoi(fd));
    }
    FireEventSmall(1, 2, 3, 4, "startup");
#elif defined(PALEV_BENCH_RAW)
    lttng_ust_tracepoint(palev_bench_raw, Small, 1, 2, 3, 4, "startup");
#endif
    return 0;
}
