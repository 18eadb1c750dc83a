/* SPDX-License-Identifier: MIT */
/* A host undefining dynamic events (palev_event_undefine_provider), one scenario per argument;
 * undefine.sh records it in real sessions and undef_check.py reads the values back.
 * Exit code: 0, or 1 with the reason on stderr. */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uchar.h>
#include <unistd.h>

#include "paleventing-gen.h"

static int failed;

#define EXPECT(cond)                                                                        \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "undef_host: %s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
            failed = 1;                                                                     \
        }                                                                                   \
    } while (0)

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- versions: A written, undefined, stale writes, B defined with other types, written ------- */

/* Both with a BOOL: its enumeration, named after the provider, is registered again. */
static const palev_field fields_a[] = { { "n", PALEV_TYPE_INT32, 0 },
                                        { "s", PALEV_TYPE_STRING, 0 },
                                        { "b", PALEV_TYPE_BOOL, 0 } };
static const palev_field fields_b[] = { { "d", PALEV_TYPE_DOUBLE, 0 },
                                        { "x", PALEV_TYPE_UINT64, PALEV_FIELD_HEX },
                                        { "b", PALEV_TYPE_BOOL, 0 },
                                        { "w", PALEV_TYPE_STRING16, 0 } };

/* The errnos a real process gives, a generated provider's name loaded among them. */
static void undefine_errors(void)
{
    static const char *const gen_names[] = { "Gen" };
    static const int off = 0;
    static const int *const states[] = { &off };
    static const palev_event_descriptor desc[] = { { 1, 0, 0, 4, 0, 0, 0 } };
    palev_provider p = { .struct_size = sizeof(p), .name = "Dyn_UndefGen",
                         .etw_name = "Dyn-UndefGen", .event_count = 1, .events = desc,
                         .event_names = gen_names, .event_states = states,
                         .abi_version = PALEV_ABI_VERSION };

    EXPECT(palev_provider_register(&p) == -ENOENT);
    EXPECT(palev_event_undefine_provider("Dyn_UndefGen") == -EBUSY);
    EXPECT(palev_event_undefine_provider("Paleventing") == -EBUSY);
    EXPECT(palev_event_undefine_provider(NULL) == -EINVAL);
    EXPECT(palev_event_undefine_provider("Dyn:Undef") == -EINVAL);
    EXPECT(palev_event_undefine_provider("Dyn_UndefNone") == -ENOENT);
}

static int scenario_versions(void)
{
    static const char16_t w[] = { 'v', 0xE9, 0xD83D, 0xDE00, 0 };
    palev_event *a, *b, *again;
    char s[16];

    undefine_errors();
    EXPECT(palev_event_define("Dyn_UndefV", "E", 4, 0, fields_a, 3, &a) == 0);
    EXPECT(palev_event_enabled(a));
    for (int i = 1; i <= 3; i++) {
        snprintf(s, sizeof(s), "a%d", i);
        EXPECT(PALEV_EVENT_WRITE(a, -i, s, i % 2) == 0);
    }
    EXPECT(palev_event_undefine_provider("Dyn_UndefV") == 0);
    EXPECT(palev_event_undefine_provider("Dyn_UndefV") == -ENOENT);
    EXPECT(palev_event_lookup("Dyn_UndefV", "E") == NULL);
    /* The stale handle: never enabled again, writes record nothing. */
    EXPECT(!palev_event_enabled(a));
    for (int i = 0; i < 10; i++) {
        palev_value v[3] = { { .v.i = 666 }, { .v.s = "stale", .len = PALEV_NUL_TERMINATED },
                             { .v.u = 1 } };

        EXPECT(PALEV_EVENT_WRITE(a, 666, "stale", 1) == 0);
        EXPECT(palev_event_writef(a, 666, "stale", 1) == 0);
        EXPECT(palev_event_write(a, v, 3) == 0);
    }
    /* The same name, other fields: a new event, recorded at once by the wildcard. */
    EXPECT(palev_event_define("Dyn_UndefV", "E", 4, 0, fields_b, 4, &b) == 0);
    EXPECT(b != a && palev_event_lookup("Dyn_UndefV", "E") == b);
    EXPECT(palev_event_define("Dyn_UndefV", "E", 4, 0, fields_a, 3, &again) == -EEXIST);
    EXPECT(palev_event_enabled(b) && !palev_event_enabled(a));
    for (int i = 1; i <= 3; i++)
        EXPECT(PALEV_EVENT_WRITE(b, i + 0.5, (uint64_t)0xabc0 + i, i % 2 == 0, w) == 0);
    EXPECT(PALEV_EVENT_WRITE(a, 666, "stale", 1) == 0);
    return failed;
}

/* ---- threads: 4 writers on one handle while it is undefined, then redefined ----------------- */

static const palev_field fields_t[] = { { "tid", PALEV_TYPE_UINT32, 0 },
                                        { "seq", PALEV_TYPE_UINT64, 0 },
                                        { "after", PALEV_TYPE_UINT8, 0 },
                                        { "s", PALEV_TYPE_STRING, 0 } };

static palev_event *shared_ev;
static atomic_int undefined, stop;
static atomic_ulong written[4];

/* `after` is read before the write: an event recorded with after=1 was written entirely after
 * palev_event_undefine_provider() returned, which the contract forbids. */
static void *writer(void *arg)
{
    unsigned tid = (unsigned)(uintptr_t)arg;
    char s[32];

    for (uint64_t seq = 0; !atomic_load(&stop); seq++) {
        int after = atomic_load(&undefined);

        snprintf(s, sizeof(s), "payload-%u-%llu", tid, (unsigned long long)seq);
        if (PALEV_EVENT_WRITE(shared_ev, tid, seq, after, s) != 0)
            failed = 1;
        atomic_fetch_add(&written[tid], 1);
    }
    return NULL;
}

static int scenario_threads(void)
{
    static const palev_field fields_n[] = { { "x", PALEV_TYPE_DOUBLE, 0 } };
    pthread_t th[4];
    palev_event *next;
    double t0, t1;

    EXPECT(palev_event_define("Dyn_UndefT", "E", 4, 0, fields_t, 4, &shared_ev) == 0);
    for (unsigned i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, writer, (void *)(uintptr_t)i);
    for (unsigned i = 0; i < 4; i++)
        while (atomic_load(&written[i]) < 2000)
            usleep(1000);
    t0 = now_ms();
    EXPECT(palev_event_undefine_provider("Dyn_UndefT") == 0);
    t1 = now_ms();
    atomic_store(&undefined, 1);
    /* Stale writes go on while the name is defined again with other fields. */
    EXPECT(palev_event_define("Dyn_UndefT", "E", 4, 0, fields_n, 1, &next) == 0);
    for (int i = 0; i < 5; i++)
        EXPECT(PALEV_EVENT_WRITE(next, i * 1.25) == 0);
    usleep(100000);
    atomic_store(&stop, 1);
    for (unsigned i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    printf("threads: undefined in %.2f ms while 4 threads wrote (%lu %lu %lu %lu writes)\n",
           t1 - t0, atomic_load(&written[0]), atomic_load(&written[1]),
           atomic_load(&written[2]), atomic_load(&written[3]));
    return failed;
}

/* ---- loop: define, write, undefine 200 times; the heap it keeps per round --------------------- */

static const palev_field fields_l1[] = { { "r", PALEV_TYPE_UINT32, 0 } };
static const palev_field fields_l2[] = { { "r", PALEV_TYPE_UINT32, 0 },
                                         { "s", PALEV_TYPE_STRING, 0 } };

static int scenario_loop(void)
{
    size_t heap0;
    double t0, undef_ms = 0;
    palev_event *ev;
    char s[16];

    heap0 = mallinfo2().uordblks;
    for (unsigned r = 0; r < 200; r++) {
        if (r % 2 == 0) {
            EXPECT(palev_event_define("Dyn_UndefL", "E", 4, 0, fields_l1, 1, &ev) == 0);
            EXPECT(PALEV_EVENT_WRITE(ev, r) == 0);
        } else {
            EXPECT(palev_event_define("Dyn_UndefL", "E", 4, 0, fields_l2, 2, &ev) == 0);
            snprintf(s, sizeof(s), "r%u", r);
            EXPECT(PALEV_EVENT_WRITE(ev, r, s) == 0);
        }
        EXPECT(palev_event_enabled(ev));
        t0 = now_ms();
        EXPECT(palev_event_undefine_provider("Dyn_UndefL") == 0);
        undef_ms += now_ms() - t0;
        EXPECT(!palev_event_enabled(ev) && PALEV_EVENT_WRITE(ev, 999u) == 0);
        EXPECT(palev_event_lookup("Dyn_UndefL", "E") == NULL);
    }
    printf("loop: 200 rounds, %.1f us per undefine, %zu bytes of heap kept per round\n",
           undef_ms * 1e3 / 200, (mallinfo2().uordblks - heap0) / 200);
    return failed;
}

/* ---- idle: the same rounds with no session recording (LTTng-UST's lazily registered probes),
 * 30 events of 3 providers in one define call each round ------------------------------------- */

static int scenario_idle(void)
{
    static const char *const provs[] = { "Dyn_UndefI0", "Dyn_UndefI1", "Dyn_UndefI2" };
    palev_event_def defs[30];
    palev_event *ev[30];
    char names[30][8];

    for (unsigned i = 0; i < 30; i++) {
        snprintf(names[i], sizeof(names[i]), "E%u", i);
        defs[i] = (palev_event_def){ provs[i % 3], names[i], 4, 0, fields_l2, 1 + i % 2 };
    }
    for (unsigned r = 0; r < 200; r++) {
        EXPECT(palev_event_define_many(defs, 30, ev, NULL) == 0);
        EXPECT(palev_event_lookup("Dyn_UndefI1", "E7") == ev[7]);
        for (unsigned p = 0; p < 3; p++)
            EXPECT(palev_event_undefine_provider(provs[(p + r) % 3]) == 0);
        EXPECT(palev_event_lookup("Dyn_UndefI1", "E7") == NULL);
        EXPECT(PALEV_EVENT_WRITE(ev[7], 1u, "x") == 0 && !palev_event_enabled(ev[7]));
    }
    return failed;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";

    if (!strcmp(what, "versions"))
        return scenario_versions();
    if (!strcmp(what, "threads"))
        return scenario_threads();
    if (!strcmp(what, "loop"))
        return scenario_loop();
    if (!strcmp(what, "idle"))
        return scenario_idle();
    fprintf(stderr, "usage: undef_host versions|threads|loop|idle\n");
    return 2;
}
