/* SPDX-License-Identifier: MIT */
/* A host of dynamic events (palev_event_*), one scenario per argument; dynamic.sh records it in
 * real sessions and dyn_check.py reads the values back. Exit code: 0, or 1 with the reason. */
#include <errno.h>
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

#define EXPECT(cond)                                                                    \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "dyn_host: %s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
            failed = 1;                                                                 \
        }                                                                               \
    } while (0)

/* ---- types: every field type, two events, values dyn_check.py knows ----------------------- */

static const palev_field all_fields[] = {
    { "i8", PALEV_TYPE_INT8, 0 },       { "u8", PALEV_TYPE_UINT8, 0 },
    { "i16", PALEV_TYPE_INT16, 0 },     { "u16", PALEV_TYPE_UINT16, 0 },
    { "i32", PALEV_TYPE_INT32, 0 },     { "u32", PALEV_TYPE_UINT32, 0 },
    { "i64", PALEV_TYPE_INT64, 0 },     { "u64", PALEV_TYPE_UINT64, 0 },
    { "x32", PALEV_TYPE_UINT32, PALEV_FIELD_HEX }, { "x64", PALEV_TYPE_UINT64, PALEV_FIELD_HEX },
    { "f", PALEV_TYPE_FLOAT, 0 },       { "d", PALEV_TYPE_DOUBLE, 0 },
    { "b", PALEV_TYPE_BOOL, 0 },        { "s", PALEV_TYPE_STRING, 0 },
    { "w", PALEV_TYPE_STRING16, 0 },    { "g", PALEV_TYPE_GUID, 0 },
    { "p", PALEV_TYPE_POINTER, 0 },     { "bytes", PALEV_TYPE_BYTES, 0 },
    { "ai16", PALEV_TYPE_INT16, PALEV_FIELD_ARRAY },
    { "au64", PALEV_TYPE_UINT64, PALEV_FIELD_ARRAY | PALEV_FIELD_HEX },
    { "af", PALEV_TYPE_FLOAT, PALEV_FIELD_ARRAY }, { "ad", PALEV_TYPE_DOUBLE, PALEV_FIELD_ARRAY },
    { "last", PALEV_TYPE_INT32, 0 },
};
#define NALL (sizeof(all_fields) / sizeof(all_fields[0]))

/* The three events dyn_check.py's expected_types() knows. */
static void write_types(palev_event *ev)
{
    static const palev_guid g = { 0x01234567, 0x89ab, 0xcdef, { 1, 2, 3, 4, 5, 6, 7, 0xff } };
    static const uint8_t bytes[] = { 0, 1, 0x7f, 0x80, 0xff };
    static const int16_t ai16[] = { -32768, -1, 0, 32767 };
    static const uint64_t au64[] = { 0, UINT64_MAX };
    static const float af[] = { 1.5f, -0.25f };
    static const double ad[] = { 3.141592653589793, -1e300, 5e-324 };
    /* U+00E9, U+4E2D, U+1F600 (a surrogate pair), then an unpaired high surrogate. */
    static const char16_t w[] = { 'h', 0xE9, 0x4E2D, 0xD83D, 0xDE00, '!', 0xD800, 'x', 0 };
    palev_value v[NALL];

    memset(v, 0, sizeof(v));
    v[0].v.i = -128; v[1].v.u = 255; v[2].v.i = -32768; v[3].v.u = 65535;
    v[4].v.i = INT32_MIN; v[5].v.u = UINT32_MAX; v[6].v.i = INT64_MIN; v[7].v.u = UINT64_MAX;
    v[8].v.u = 0xdeadbeef; v[9].v.u = 0x0123456789abcdefull;
    v[10].v.d = 0.1f; v[11].v.d = 1.0 / 3.0; v[12].v.u = 7;
    v[13].v.s = "caf\xc3\xa9 \xf0\x9f\x98\x80 \"q\""; v[13].len = PALEV_NUL_TERMINATED;
    v[14].v.s16 = w; v[14].len = PALEV_NUL_TERMINATED;
    v[15].v.guid = &g; v[16].v.p = (const void *)(uintptr_t)0x7fff12345678ull;
    v[17].v.p = bytes; v[17].len = sizeof(bytes);
    v[18].v.p = ai16; v[18].len = 4; v[19].v.p = au64; v[19].len = 2;
    v[20].v.p = af; v[20].len = 2; v[21].v.p = ad; v[21].len = 3; v[22].v.i = 42;
    EXPECT(palev_event_write(ev, v, NALL) == 0);
    /* Second event: zeros, empty strings and empty arrays, a string cut by its length. */
    memset(v, 0, sizeof(v));
    v[13].v.s = "abcdef"; v[13].len = 3;
    v[14].v.s16 = NULL; v[14].len = PALEV_NUL_TERMINATED;
    v[22].v.i = -1;
    EXPECT(palev_event_write(ev, v, NALL) == 0);
    /* Third, through the varargs form. */
    EXPECT(PALEV_EVENT_WRITE(ev, -1, 1u, -2, 2u, -3, 3u, (int64_t)-4, (uint64_t)4, 0x10u,
                             (uint64_t)0x20, 2.5, -2.5, 1, "va", u"va16", &g, (const void *)0x10,
                             bytes, (size_t)2, ai16, (size_t)1, au64, (size_t)1, af, (size_t)1,
                             ad, (size_t)0, 99) == 0);
    EXPECT(palev_event_write(ev, v, NALL - 1) == -EINVAL);
}

static int scenario_types(void)
{
    palev_event *ev;

    EXPECT(palev_event_define("Dyn_Types", "All", 4, 0x30, all_fields, NALL, &ev) == 0);
    write_types(ev);
    return failed;
}

/* ---- filter and loglevel ------------------------------------------------------------------ */

static int scenario_filter(void)
{
    static const palev_field f[] = { { "status", PALEV_TYPE_INT32, 0 },
                                     { "path", PALEV_TYPE_STRING, 0 },
                                     { "wpath", PALEV_TYPE_STRING16, 0 } };
    static const char *const paths[] = { "/index", "/api/users", "/api/orders", "/health" };
    static const char16_t *const wpaths[] = { u"/index", u"/api/users", u"/api/orders",
                                              u"/health" };
    palev_event *ev;

    EXPECT(palev_event_define("Dyn_Http", "Request", 4, 0, f, 3, &ev) == 0);
    for (int i = 0; i < 40; i++)
        EXPECT(PALEV_EVENT_WRITE(ev, 100 + 13 * i, paths[i % 4], wpaths[i % 4]) == 0);
    return failed;
}

static int scenario_loglevel(void)
{
    static const palev_field f[] = { { "level", PALEV_TYPE_UINT8, 0 } };
    static const char *const names[] = { "Always", "Critical", "Error", "Warning", "Info",
                                         "Verbose", "Custom" };

    for (unsigned l = 0; l < 7; l++) {
        palev_event *ev;

        EXPECT(palev_event_define("Dyn_Level", names[l], (uint8_t)(l == 6 ? 17 : l), 0, f, 1,
                                  &ev) == 0);
        EXPECT(PALEV_EVENT_WRITE(ev, l) == 0);
    }
    return failed;
}

/* ---- wildcard enabled before the define: recorded at once ------------------------------- */

static int scenario_late(void)
{
    static const palev_field f[] = { { "n", PALEV_TYPE_UINT32, 0 } };
    palev_event *ev;

    EXPECT(palev_event_define("Dyn_Late", "First", 4, 0, f, 1, &ev) == 0);
    EXPECT(palev_event_enabled(ev));
    EXPECT(PALEV_EVENT_WRITE(ev, 1u) == 0);
    EXPECT(palev_event_lookup("Dyn_Late", "First") == ev);
    return failed;
}

/* ---- one thread defines while 7 write, by lookup -------------------------------------------- */

#define WRITERS 7
#define THREAD_EVENTS 20
#define PER_EVENT 100
static atomic_int defined_count;

static void *writer(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg;
    char name[32];

    for (int e = 0; e < THREAD_EVENTS; e++) {
        palev_event *ev;

        snprintf(name, sizeof(name), "E%d", e);
        while (!(ev = palev_event_lookup("Dyn_Threads", name)))
            sched_yield();
        for (unsigned k = 0; k < PER_EVENT; k++)
            EXPECT(PALEV_EVENT_WRITE(ev, id, k, (uint64_t)e) == 0);
    }
    return NULL;
}

static int scenario_threads(void)
{
    static const palev_field f[] = { { "thread", PALEV_TYPE_UINT32, 0 },
                                     { "k", PALEV_TYPE_UINT32, 0 },
                                     { "event", PALEV_TYPE_UINT64, 0 } };
    pthread_t t[WRITERS];
    char name[32];

    for (unsigned i = 0; i < WRITERS; i++)
        pthread_create(&t[i], NULL, writer, (void *)(uintptr_t)i);
    for (int e = 0; e < THREAD_EVENTS; e++) {
        palev_event *ev;

        snprintf(name, sizeof(name), "E%d", e);
        EXPECT(palev_event_define("Dyn_Threads", name, 4, 0, f, 3, &ev) == 0);
        atomic_fetch_add(&defined_count, 1);
        usleep(1000);
    }
    for (unsigned i = 0; i < WRITERS; i++)
        pthread_join(t[i], NULL);
    return failed;
}

/* ---- 1000 providers x 10 events, one by one ------------------------------------------------- */

static double seconds(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int scenario_many(void)
{
    static const palev_field f[] = { { "p", PALEV_TYPE_UINT32, 0 }, { "e", PALEV_TYPE_UINT32, 0 } };
    char prov[32], name[32];
    double define_time = 0;

    for (unsigned p = 0; p < 1000; p++) {
        for (unsigned e = 0; e < 10; e++) {
            palev_event *ev;
            double t0;

            snprintf(prov, sizeof(prov), "Dyn_Many%u", p);
            snprintf(name, sizeof(name), "Ev%u", e);
            t0 = seconds();
            EXPECT(palev_event_define(prov, name, 4, 0, f, 2, &ev) == 0);
            define_time += seconds() - t0;
            EXPECT(PALEV_EVENT_WRITE(ev, p, e) == 0);
        }
    }
    /* A figure for the log, not a pass/fail bound. */
    printf("defined 10000 events one by one: %.2f s (%.3f ms per event)\n", define_time,
           define_time * 1e3 / 10000);
    return failed;
}

/* ---- palev_event_define_many(): a wildcard recording before the call records every event
 * defined, a bad definition fails alone with its errno ------------------------------------- */

static int scenario_batch(void)
{
    static const palev_field http[] = { { "status", PALEV_TYPE_INT32, 0 },
                                        { "path", PALEV_TYPE_STRING, 0 } };
    static const palev_field other[] = { { "status", PALEV_TYPE_INT64, 0 } };
    static const palev_field one[] = { { "n", PALEV_TYPE_UINT16, 0 } };
    static palev_field too_many[PALEV_EVENT_MAX_FIELDS + 1];
    static char names[PALEV_EVENT_MAX_FIELDS + 1][8];
    palev_event *ev[10], *again[10];
    int err[10];

    for (unsigned i = 0; i <= PALEV_EVENT_MAX_FIELDS; i++) {
        snprintf(names[i], sizeof(names[i]), "f%u", i);
        too_many[i] = (palev_field){ names[i], PALEV_TYPE_UINT8, 0 };
    }
    const palev_event_def defs[10] = {
        { "Dyn_Batch", "All", 4, 0x30, all_fields, NALL },
        { "Dyn_Batch", "Http", 4, 0, http, 2 },
        { "Dyn_Batch", "Bad-Name", 4, 0, http, 2 },         /* -EINVAL */
        { "Dyn_Batch", "Http", 4, 0, http, 2 },             /* the same: the same handle */
        { "Dyn_Batch", "Http", 4, 0, other, 1 },            /* other fields: -EEXIST */
        { "Paleventing", "Batch", 4, 0, one, 1 },           /* -EBUSY */
        { "Dyn_BatchB", "Second", 2, 0, one, 1 },           /* another provider */
        { "Dyn_Batch", "TooMany", 4, 0, too_many, PALEV_EVENT_MAX_FIELDS + 1 },    /* -E2BIG */
        { "Dyn_Batch", "Empty", 4, 0, NULL, 0 },
        { "Dyn_BatchB", "Third", 4, 0, http, 2 },
    };
    static const int want[10] = { 0, 0, -EINVAL, 0, -EEXIST, -EBUSY, 0, -E2BIG, 0, 0 };

    EXPECT(palev_event_define_many(defs, 10, ev, err) == -EINVAL);
    for (unsigned i = 0; i < 10; i++) {
        EXPECT(err[i] == want[i]);
        /* Recording at once, as a session with a matching wildcard was started before. */
        EXPECT(palev_event_enabled(ev[i]) == (want[i] == 0));
        EXPECT(want[i] != 0 || palev_event_lookup(defs[i].provider, defs[i].name) == ev[i]);
    }
    EXPECT(ev[3] == ev[1]);
    EXPECT(palev_event_define_many(defs, 10, again, NULL) == -EINVAL);
    for (unsigned i = 0; i < 10; i++)
        EXPECT(want[i] != 0 || again[i] == ev[i]);
    /* Failed definitions write nothing; the others record their values. */
    for (unsigned i = 0; i < 10; i++)
        EXPECT(want[i] == 0 || PALEV_EVENT_WRITE(ev[i], 1) == 0);
    write_types(ev[0]);
    EXPECT(PALEV_EVENT_WRITE(ev[1], 503, "/batch") == 0);
    EXPECT(PALEV_EVENT_WRITE(ev[6], 65535u) == 0);
    EXPECT(palev_event_write(ev[8], NULL, 0) == 0);
    EXPECT(PALEV_EVENT_WRITE(ev[9], -1, "third") == 0);
    return failed;
}

/* ---- 1000 providers x 10 events, one palev_event_define_many() per provider --------------- */

static int scenario_many_batch(void)
{
    static const palev_field f[] = { { "p", PALEV_TYPE_UINT32, 0 }, { "e", PALEV_TYPE_UINT32, 0 } };
    static char prov[1000][32];
    static const char *const names[10] = { "Ev0", "Ev1", "Ev2", "Ev3", "Ev4",
                                           "Ev5", "Ev6", "Ev7", "Ev8", "Ev9" };
    double define_time = 0;

    for (unsigned p = 0; p < 1000; p++) {
        palev_event_def defs[10];
        palev_event *ev[10];
        double t0 = seconds();

        snprintf(prov[p], sizeof(prov[p]), "Dyn_ManyB%u", p);
        for (unsigned e = 0; e < 10; e++)
            defs[e] = (palev_event_def){ prov[p], names[e], 4, 0, f, 2 };
        EXPECT(palev_event_define_many(defs, 10, ev, NULL) == 0);
        define_time += seconds() - t0;
        for (unsigned e = 0; e < 10; e++)
            EXPECT(PALEV_EVENT_WRITE(ev[e], p, e) == 0);
    }
    /* A figure for the log, not a pass/fail bound. */
    printf("defined 10000 events, 1000 calls of 10: %.2f s (%.3f ms per event)\n", define_time,
           define_time * 1e3 / 10000);
    return failed;
}

/* ---- writing while sessions come and go, or while the process exits ------------------------- */

static atomic_int stop;

static void *spin_writer(void *arg)
{
    palev_event *ev = arg;
    uint64_t k = 0;
    char16_t w[] = u"writer\U0001F600";

    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        PALEV_EVENT_WRITE(ev, k, "spin", w);
        /* A steady stream, not a flood: the traces stay small enough to read back whole. */
        if (++k % 16 == 0)
            usleep(1000);
    }
    return NULL;
}

static palev_event *spin_event(void)
{
    static const palev_field f[] = { { "k", PALEV_TYPE_UINT64, 0 }, { "s", PALEV_TYPE_STRING, 0 },
                                     { "w", PALEV_TYPE_STRING16, 0 } };
    palev_event *ev;

    EXPECT(palev_event_define("Dyn_Spin", "Tick", 5, 0, f, 3, &ev) == 0);
    return ev;
}

/* Writes from 4 threads until the file `stop_file` exists, then prints "done". */
static int scenario_churn(const char *stop_file)
{
    palev_event *ev = spin_event();
    pthread_t t[4];

    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, spin_writer, ev);
    for (int i = 0; i < 6000 && access(stop_file, F_OK) != 0; i++)
        usleep(10000);
    atomic_store(&stop, 1);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    printf("done\n");
    return failed;
}

/* exit() while 4 threads write: must end with status 0, no crash. */
static int scenario_exit(void)
{
    palev_event *ev = spin_event();
    pthread_t t[4];

    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, spin_writer, ev);
    usleep(200000);
    exit(failed);
}

/* ---- errors: each limit, exact errno -------------------------------------------------------- */

static int define1(const char *prov, const char *name, palev_field f)
{
    palev_event *ev;

    return palev_event_define(prov, name, 4, 0, &f, 1, &ev);
}

static int scenario_errors(void)
{
    palev_field many[PALEV_EVENT_MAX_FIELDS + 1];
    char names[PALEV_EVENT_MAX_FIELDS + 1][8], longname[300];
    palev_field ok = { "a", PALEV_TYPE_INT32, 0 };
    palev_event *ev, *ev2;

    for (unsigned i = 0; i <= PALEV_EVENT_MAX_FIELDS; i++) {
        snprintf(names[i], sizeof(names[i]), "f%u", i);
        many[i] = (palev_field){ names[i], PALEV_TYPE_UINT8, 0 };
    }
    EXPECT(palev_event_define("Dyn_Err", "Max", 4, 0, many, PALEV_EVENT_MAX_FIELDS, &ev) == 0);
    EXPECT(palev_event_define("Dyn_Err", "TooMany", 4, 0, many, PALEV_EVENT_MAX_FIELDS + 1,
                              &ev) == -E2BIG);
    /* A failed define hands out a handle that is never enabled. */
    EXPECT(ev != NULL && !palev_event_enabled(ev) && PALEV_EVENT_WRITE(ev, 1) == 0);
    EXPECT(define1("Dyn-Err", "X", ok) == -EINVAL);
    EXPECT(define1("Dyn_Err", "X*", ok) == -EINVAL);
    EXPECT(define1("9Dyn", "X", ok) == -EINVAL);
    EXPECT(define1("", "X", ok) == -EINVAL);
    EXPECT(define1(NULL, "X", ok) == -EINVAL);
    EXPECT(define1("Dyn_Err", NULL, ok) == -EINVAL);
    EXPECT(define1("Dyn_Err", "Caf\xc3\xa9", ok) == -EINVAL);
    memset(longname, 'a', sizeof(longname));
    longname[255 - 8] = '\0';       /* "Dyn_Err:" + 247 = 255: the longest */
    EXPECT(define1("Dyn_Err", longname, ok) == 0);
    longname[255 - 8] = 'a';
    longname[256 - 8] = '\0';
    EXPECT(define1("Dyn_Err", longname, ok) == -ENAMETOOLONG);
    longname[PALEV_FIELD_MAX_NAME] = '\0';
    EXPECT(define1("Dyn_Err", "LongField", (palev_field){ longname, PALEV_TYPE_INT8, 0 }) == 0);
    longname[PALEV_FIELD_MAX_NAME] = 'a';
    longname[PALEV_FIELD_MAX_NAME + 1] = '\0';
    EXPECT(define1("Dyn_Err", "LongField2", (palev_field){ longname, PALEV_TYPE_INT8, 0 }) ==
           -ENAMETOOLONG);
    EXPECT(define1("Dyn_Err", "BadField", (palev_field){ "a b", PALEV_TYPE_INT8, 0 }) == -EINVAL);
    EXPECT(define1("Dyn_Err", "NoType", (palev_field){ "a", 0, 0 }) == -EINVAL);
    EXPECT(define1("Dyn_Err", "BigType", (palev_field){ "a", 200, 0 }) == -EINVAL);
    EXPECT(define1("Dyn_Err", "HexFloat", (palev_field){ "a", PALEV_TYPE_DOUBLE, PALEV_FIELD_HEX })
           == -EINVAL);
    EXPECT(define1("Dyn_Err", "StrArray",
                   (palev_field){ "a", PALEV_TYPE_STRING, PALEV_FIELD_ARRAY }) == -EINVAL);
    EXPECT(define1("Dyn_Err", "GuidArray",
                   (palev_field){ "a", PALEV_TYPE_GUID, PALEV_FIELD_ARRAY }) == -EINVAL);
    EXPECT(define1("Dyn_Err", "BoolHex", (palev_field){ "a", PALEV_TYPE_BOOL, PALEV_FIELD_HEX })
           == -EINVAL);
    EXPECT(define1("Dyn_Err", "BadFlag", (palev_field){ "a", PALEV_TYPE_INT8, 0x80 }) == -EINVAL);
    {
        palev_field dup[2] = { { "a", PALEV_TYPE_INT8, 0 }, { "a", PALEV_TYPE_INT16, 0 } };
        /* Names that meet as trace readers see them (a leading '_' stripped), an array's
         * hidden length field among them, in either order: accepted, the first one made the
         * whole session's trace unreadable. */
        static const palev_field meet[][2] = {
            { { "a", PALEV_TYPE_INT8, PALEV_FIELD_ARRAY }, { "_a_length", PALEV_TYPE_INT16, 0 } },
            { { "_a_length", PALEV_TYPE_INT16, 0 }, { "a", PALEV_TYPE_INT8, PALEV_FIELD_ARRAY } },
            { { "a_length", PALEV_TYPE_INT16, 0 }, { "a", PALEV_TYPE_BYTES, 0 } },
            { { "_x", PALEV_TYPE_INT32, 0 }, { "x", PALEV_TYPE_INT32, 0 } },
            { { "x", PALEV_TYPE_INT32, 0 }, { "__x", PALEV_TYPE_INT32, 0 } },
        };

        EXPECT(palev_event_define("Dyn_Err", "Dup", 4, 0, dup, 2, &ev) == -EINVAL);
        for (size_t i = 0; i < sizeof(meet) / sizeof(meet[0]); i++) {
            static const uint8_t bytes[2] = { 1, 2 };

            snprintf(longname, sizeof(longname), "Meet%zu", i);
            EXPECT(palev_event_define("Dyn_Err", longname, 4, 0, meet[i], 2, &ev) == -EINVAL);
            EXPECT(PALEV_EVENT_WRITE(ev, 1, bytes, (size_t)2) == 0);
        }
        EXPECT(palev_event_define("Dyn_Err", "NullFields", 4, 0, NULL, 2, &ev) == -EINVAL);
    }
    EXPECT(palev_event_define("Dyn_Err", "NoOut", 4, 0, &ok, 1, NULL) == -EINVAL);
    EXPECT(define1("Paleventing", "X", ok) == -EBUSY);
    /* LTTng's own namespace: its statedump, its agents. */
    EXPECT(define1("lttng_ust_statedump", "bin_info", ok) == -EBUSY);
    EXPECT(define1("lttng_jul", "event", ok) == -EBUSY);
    EXPECT(palev_event_undefine_provider("lttng_ust_statedump") == -EBUSY);
    {
        /* A generated provider registered in the process owns its name, loaded or not. */
        static const char *const gen_names[] = { "Gen" };
        static const int off = 0;
        static const int *const states[] = { &off };
        static const palev_event_descriptor desc[] = { { 1, 0, 0, 4, 0, 0, 0 } };
        palev_provider p = { .struct_size = sizeof(p), .name = "Dyn_Generated",
                             .etw_name = "Dyn-Generated", .event_count = 1, .events = desc,
                             .event_names = gen_names, .event_states = states,
                             .abi_version = PALEV_ABI_VERSION };

        EXPECT(palev_provider_register(&p) == -ENOENT);
        EXPECT(define1("Dyn_Generated", "X", ok) == -EBUSY);
    }
    /* Same definition: same handle; other fields, level or keywords: -EEXIST. */
    EXPECT(palev_event_define("Dyn_Err", "Same", 4, 0, &ok, 1, &ev) == 0);
    EXPECT(palev_event_define("Dyn_Err", "Same", 4, 0, &ok, 1, &ev2) == 0 && ev2 == ev);
    EXPECT(palev_event_define("Dyn_Err", "Same", 5, 0, &ok, 1, &ev2) == -EEXIST);
    EXPECT(palev_event_define("Dyn_Err", "Same", 4, 1, &ok, 1, &ev2) == -EEXIST);
    EXPECT(define1("Dyn_Err", "Same", (palev_field){ "a", PALEV_TYPE_UINT32, 0 }) == -EEXIST);
    EXPECT(define1("Dyn_Err", "Same", (palev_field){ "b", PALEV_TYPE_INT32, 0 }) == -EEXIST);
    EXPECT(palev_event_define("Dyn_Err", "Same", 4, 0, NULL, 0, &ev2) == -EEXIST);
    EXPECT(palev_event_lookup("Dyn_Err", "Same") == ev);
    EXPECT(palev_event_lookup("Dyn_Err", "Nope") == NULL);
    EXPECT(palev_event_lookup(NULL, "Same") == NULL);
    EXPECT(palev_event_write(NULL, NULL, 0) == -EINVAL);
    EXPECT(palev_event_writef(NULL) == -EINVAL);
    /* Zero fields is fine. */
    EXPECT(palev_event_define("Dyn_Err", "Empty", 4, 0, NULL, 0, &ev) == 0);
    EXPECT(palev_event_write(ev, NULL, 0) == 0);
    /* Names that differ as readers see them are fine: the trace holds both events. */
    {
        static const palev_field apart[] = { { "x", PALEV_TYPE_INT32, 0 },
                                             { "_y", PALEV_TYPE_INT32, 0 },
                                             { "a", PALEV_TYPE_UINT8, PALEV_FIELD_ARRAY },
                                             { "__a_length_", PALEV_TYPE_INT32, 0 } };
        static const uint8_t bytes[2] = { 7, 8 };

        EXPECT(palev_event_define("Dyn_Err", "Apart", 4, 0, apart, 4, &ev) == 0);
        EXPECT(PALEV_EVENT_WRITE(ev, 1, 2, bytes, (size_t)2, 3) == 0);
    }
    return failed;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";

    if (!strcmp(what, "types"))
        return scenario_types();
    if (!strcmp(what, "filter"))
        return scenario_filter();
    if (!strcmp(what, "loglevel"))
        return scenario_loglevel();
    if (!strcmp(what, "late"))
        return scenario_late();
    if (!strcmp(what, "threads"))
        return scenario_threads();
    if (!strcmp(what, "many"))
        return scenario_many();
    if (!strcmp(what, "batch"))
        return scenario_batch();
    if (!strcmp(what, "manybatch"))
        return scenario_many_batch();
    if (!strcmp(what, "churn"))
        return scenario_churn(argc > 2 ? argv[2] : "stop");
    if (!strcmp(what, "exit"))
        return scenario_exit();
    if (!strcmp(what, "errors"))
        return scenario_errors();
    fprintf(stderr, "usage: dyn_host types|filter|loglevel|late|threads|many|batch|manybatch|churn [STOPFILE]|exit|errors\n");
    return 2;
}
