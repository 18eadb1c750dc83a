/* SPDX-License-Identifier: MIT */
/* palev-bench-define: the time to define dynamic events (tests/bench/define.sh runs it in sessions).
 * usage: palev-bench-define one|provider|all PROVIDERS EVENTS PREFIX
 *   one: palev_event_define() per event; provider: one palev_event_define_many() per provider;
 *   all: one palev_event_define_many() for everything. Prints the seconds the defines took, then
 *   checks that palev_event_lookup() finds every event (exit 1 when one is missing). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "paleventing.h"

static const palev_field fields[] = { { "p", PALEV_TYPE_UINT32, 0 }, { "e", PALEV_TYPE_UINT32, 0 } };

static double seconds(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Every definition, names built before the clock starts. */
static palev_event_def *definitions(const char *prefix, size_t providers, size_t events)
{
    size_t n = providers * events;
    palev_event_def *defs = calloc(n, sizeof(*defs));
    char *names = calloc(n, 64);

    if (!defs || !names)
        exit(1);
    for (size_t i = 0; i < n; i++) {
        char *prov = names + 64 * i, *name = prov + 40;

        snprintf(prov, 40, "%s%zu", prefix, i / events);
        snprintf(name, 24, "Ev%zu", i % events);
        defs[i] = (palev_event_def){ prov, name, 4, 0, fields, 2 };
    }
    return defs;
}

static int define(const char *mode, const palev_event_def *defs, size_t providers, size_t events,
                  palev_event **ev)
{
    int ret = 0;

    if (strcmp(mode, "all") == 0)
        return palev_event_define_many(defs, providers * events, ev, NULL);
    for (size_t p = 0; p < providers && !ret; p++) {
        const palev_event_def *d = defs + p * events;

        if (strcmp(mode, "provider") == 0) {
            ret = palev_event_define_many(d, events, ev + p * events, NULL);
            continue;
        }
        for (size_t e = 0; e < events && !ret; e++)
            ret = palev_event_define(d[e].provider, d[e].name, d[e].level, d[e].keywords,
                                     d[e].fields, d[e].field_count, &ev[p * events + e]);
    }
    return ret;
}

int main(int argc, char **argv)
{
    size_t providers, events;
    palev_event_def *defs;
    palev_event **ev;
    double t0, t;
    int ret;

    if (argc != 5 || (strcmp(argv[1], "one") && strcmp(argv[1], "provider") &&
                      strcmp(argv[1], "all"))) {
        fprintf(stderr, "usage: palev-bench-define one|provider|all PROVIDERS EVENTS PREFIX\n");
        return 2;
    }
    providers = strtoul(argv[2], NULL, 10);
    events = strtoul(argv[3], NULL, 10);
    defs = definitions(argv[4], providers, events);
    if (!(ev = calloc(providers * events, sizeof(*ev))))
        return 1;
    t0 = seconds();
    ret = define(argv[1], defs, providers, events, ev);
    t = seconds() - t0;
    if (ret) {
        fprintf(stderr, "palev-bench-define: %s\n", palev_strerror(ret));
        return 1;
    }
    /* Every event defined, and found under its names (after the clock: not timed). */
    for (size_t i = 0; i < providers * events; i++) {
        if (!ev[i] || palev_event_lookup(defs[i].provider, defs[i].name) != ev[i]) {
            fprintf(stderr, "palev-bench-define: %s:%s is not defined\n", defs[i].provider,
                    defs[i].name);
            return 1;
        }
    }
    printf("%.3f\n", t);
    return 0;
}
