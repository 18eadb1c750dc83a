/* SPDX-License-Identifier: MIT */
/* Unit tests of dynamic event definitions and lookup (dynamic.c) without LTTng: the registry
 * growing past its first sizes, out of memory, the never-enabled handle of a failed define,
 * palev_event_define_many()'s per-definition results, field names that meet as trace readers
 * see them, reserved provider names, fork() while threads define.
 * (Names owned by generated providers: tests/e2e/dyn_host.c, where providers load.) */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal.h"

static const palev_field two[] = { { "a", PALEV_TYPE_INT32, 0 }, { "b", PALEV_TYPE_STRING, 0 } };

/* 5000 events: the table doubles several times while every earlier handle stays findable. */
static void test_lookup_after_growth(void **state)
{
    static palev_event *ev[5000];
    char prov[32], name[32];

    (void)state;
    for (unsigned i = 0; i < 5000; i++) {
        snprintf(prov, sizeof(prov), "Unit_Grow%u", i % 97);
        snprintf(name, sizeof(name), "Event%u", i);
        assert_int_equal(palev_event_define(prov, name, 4, 0, two, 2, &ev[i]), 0);
        assert_ptr_equal(palev_event_lookup(prov, name), ev[i]);
    }
    for (unsigned i = 0; i < 5000; i++) {
        palev_event *again;

        snprintf(prov, sizeof(prov), "Unit_Grow%u", i % 97);
        snprintf(name, sizeof(name), "Event%u", i);
        assert_ptr_equal(palev_event_lookup(prov, name), ev[i]);
        assert_int_equal(palev_event_define(prov, name, 4, 0, two, 2, &again), 0);
        assert_ptr_equal(again, ev[i]);
        /* Same name under another provider, a prefix, a longer name: not this event. */
        snprintf(prov, sizeof(prov), "Unit_Grow%u", i % 97 + 1000);
        assert_null(palev_event_lookup(prov, name));
    }
    assert_null(palev_event_lookup("Unit_Grow1", "Event"));
    assert_null(palev_event_lookup("Unit_Grow1", "Event10000"));
    assert_null(palev_event_lookup("Unit_Gro", "Event1"));
}

static int fail_after;

static void *failing_malloc(size_t size)
{
    return fail_after-- > 0 ? malloc(size) : NULL;
}

/* Out of memory: -ENOMEM, a handle that is never enabled, nothing half-defined left behind. */
static void test_out_of_memory(void **state)
{
    void *(*saved)(size_t) = palev__malloc;
    palev_event *ev;

    (void)state;
    palev__malloc = failing_malloc;
    fail_after = 0;
    assert_int_equal(palev_event_define("Unit_Oom", "E", 4, 0, two, 2, &ev), -ENOMEM);
    palev__malloc = saved;
    assert_non_null(ev);
    assert_false(palev_event_enabled(ev));
    assert_int_equal(palev_event_write(ev, NULL, 0), 0);
    assert_int_equal(PALEV_EVENT_WRITE(ev, 1, "x"), 0);
    assert_null(palev_event_lookup("Unit_Oom", "E"));
    assert_int_equal(palev_event_define("Unit_Oom", "E", 4, 0, two, 2, &ev), 0);
    assert_ptr_equal(palev_event_lookup("Unit_Oom", "E"), ev);
}

/* palev_event_define_many(): each definition gets what palev_event_define() would give it one by
 * one in array order; a bad one fails alone; the first failure's errno is returned. */
static void test_many_partial(void **state)
{
    static const palev_field one[] = { { "a", PALEV_TYPE_INT32, 0 } };
    palev_field many[PALEV_EVENT_MAX_FIELDS + 1];
    char names[PALEV_EVENT_MAX_FIELDS + 1][8];
    palev_event *ev[10], *again[10];
    int err[10];

    (void)state;
    for (unsigned i = 0; i <= PALEV_EVENT_MAX_FIELDS; i++) {
        snprintf(names[i], sizeof(names[i]), "f%u", i);
        many[i] = (palev_field){ names[i], PALEV_TYPE_UINT8, 0 };
    }
    const palev_event_def defs[10] = {
        { "Unit_Many", "A", 4, 0, two, 2 },
        { "Unit_Many", "Bad-Name", 4, 0, two, 2 },          /* -EINVAL */
        { "Unit_Many", "A", 4, 0, two, 2 },                 /* same as [0]: same handle */
        { "Unit_Many", "A", 5, 0, two, 2 },                 /* other level: -EEXIST */
        { "Paleventing", "X", 4, 0, two, 2 },               /* -EBUSY */
        { "Unit_ManyB", "B", 4, 0, one, 1 },
        { "Unit_Many", "Big", 4, 0, many, PALEV_EVENT_MAX_FIELDS + 1 },    /* -E2BIG */
        { "Unit_Many", "Empty", 4, 0, NULL, 0 },
        { NULL, "A", 4, 0, two, 2 },                        /* -EINVAL */
        { "Unit_Many", "C", 4, 0, one, 1 },
    };
    static const int want[10] = { 0, -EINVAL, 0, -EEXIST, -EBUSY, 0, -E2BIG, 0, -EINVAL, 0 };

    assert_int_equal(palev_event_define_many(defs, 10, ev, err), -EINVAL);
    for (unsigned i = 0; i < 10; i++) {
        assert_int_equal(err[i], want[i]);
        assert_non_null(ev[i]);
        assert_false(palev_event_enabled(ev[i]));
        if (want[i] == 0)
            assert_ptr_equal(palev_event_lookup(defs[i].provider, defs[i].name), ev[i]);
    }
    assert_ptr_equal(ev[2], ev[0]);
    assert_ptr_not_equal(ev[0], ev[9]);
    assert_null(palev_event_lookup("Unit_Many", "Bad-Name"));
    assert_null(palev_event_lookup("Unit_Many", "Big"));
    /* Again: the same handles, the same errors; without errors[], the first one's errno. */
    assert_int_equal(palev_event_define_many(defs, 10, again, NULL), -EINVAL);
    for (unsigned i = 0; i < 10; i++)
        if (want[i] == 0)
            assert_ptr_equal(again[i], ev[i]);
    assert_int_equal(palev_event_define_many(&defs[3], 1, again, err), -EEXIST);
    assert_int_equal(palev_event_define_many(&defs[9], 1, again, NULL), 0);
    assert_ptr_equal(again[0], ev[9]);
    /* An event whose definition failed first in the call is defined by a later valid one. */
    const palev_event_def late[2] = { { "Unit_Many", "Late", 4, 0, many, 129 },
                                      { "Unit_Many", "Late", 4, 0, one, 1 } };
    assert_int_equal(palev_event_define_many(late, 2, again, err), -E2BIG);
    assert_int_equal(err[1], 0);
    assert_ptr_equal(palev_event_lookup("Unit_Many", "Late"), again[1]);
    /* Nothing to define; NULL arrays. */
    assert_int_equal(palev_event_define_many(NULL, 0, NULL, NULL), 0);
    assert_int_equal(palev_event_define_many(NULL, 1, ev, err), -EINVAL);
    assert_int_equal(palev_event_define_many(defs, 1, NULL, err), -EINVAL);
}

/* 3000 definitions of 7 providers, interleaved, in one call: every handle at its index. */
static void test_many_large(void **state)
{
    static palev_event_def defs[3000];
    static palev_event *ev[3000];
    static int err[3000];
    static char prov[3000][32], name[3000][32];

    (void)state;
    for (unsigned i = 0; i < 3000; i++) {
        snprintf(prov[i], sizeof(prov[i]), "Unit_Big%u", i % 7);
        snprintf(name[i], sizeof(name[i]), "E%u", 2999 - i);
        defs[i] = (palev_event_def){ prov[i], name[i], (uint8_t)(i % 6), i, two, 2 };
    }
    assert_int_equal(palev_event_define_many(defs, 3000, ev, err), 0);
    for (unsigned i = 0; i < 3000; i++) {
        assert_int_equal(err[i], 0);
        assert_ptr_equal(palev_event_lookup(prov[i], name[i]), ev[i]);
        assert_ptr_not_equal(ev[i], ev[(i + 1) % 3000]);
    }
}

/* Out of memory in a call: the bookkeeping (all -ENOMEM), the provider's probe (its new events
 * -ENOMEM, an existing one still handed out), one event (only it, and those after it). The
 * registry has room for these few (it does not grow here: its growth is test_out_of_memory's). */
static void test_many_out_of_memory(void **state)
{
    void *(*saved)(size_t) = palev__malloc;
    static palev_event_def defs[20];
    palev_event *ev[20], *known;
    int err[20];
    char name[20][8];

    (void)state;
    assert_int_equal(palev_event_define("Unit_ManyOom", "Known", 4, 0, two, 2, &known), 0);
    for (unsigned i = 0; i < 20; i++) {
        snprintf(name[i], sizeof(name[i]), "E%02u", i);
        defs[i] = (palev_event_def){ "Unit_ManyOom", name[i], 4, 0, two, 2 };
    }
    defs[0].name = "Known";
    palev__malloc = failing_malloc;
    fail_after = 0;
    assert_int_equal(palev_event_define_many(defs, 20, ev, err), -ENOMEM);
    for (unsigned i = 0; i < 20; i++)
        assert_int_equal(err[i], -ENOMEM);
    fail_after = 0;
    assert_int_equal(palev_event_define_many(defs, 3, ev, err), -ENOMEM);
    assert_int_equal(err[0], 0);
    assert_ptr_equal(ev[0], known);
    assert_int_equal(err[1], -ENOMEM);
    assert_int_equal(err[2], -ENOMEM);
    assert_false(palev_event_enabled(ev[1]));
    fail_after = 2;     /* the probe and E01 */
    assert_int_equal(palev_event_define_many(defs, 4, ev, err), -ENOMEM);
    palev__malloc = saved;
    assert_int_equal(err[0], 0);
    assert_int_equal(err[1], 0);
    assert_int_equal(err[2], -ENOMEM);
    assert_int_equal(err[3], -ENOMEM);
    assert_ptr_equal(palev_event_lookup("Unit_ManyOom", "E01"), ev[1]);
    assert_null(palev_event_lookup("Unit_ManyOom", "E02"));
    assert_int_equal(palev_event_define_many(defs, 4, ev, err), 0);
    assert_ptr_equal(palev_event_lookup("Unit_ManyOom", "E02"), ev[2]);
}

/* palev_event_undefine_provider(): every event of the provider gone from lookup, its names free
 * for other fields, its stale handles writing nothing; other providers untouched. */
static void test_undefine(void **state)
{
    static const palev_field other[] = { { "x", PALEV_TYPE_DOUBLE, 0 } };
    const palev_event_def defs[2] = { { "Unit_Undef", "A", 4, 0, two, 2 },
                                      { "Unit_Undef", "B", 4, 0, two, 2 } };
    palev_event *ev[2], *c, *keep, *again;

    (void)state;
    assert_int_equal(palev_event_define_many(defs, 2, ev, NULL), 0);
    assert_int_equal(palev_event_define("Unit_Undef", "C", 4, 0, two, 2, &c), 0);
    assert_int_equal(palev_event_define("Unit_Undef2", "A", 4, 0, two, 2, &keep), 0);
    assert_int_equal(palev_event_define("Unit_Undef", "A", 4, 0, other, 1, &again), -EEXIST);
    assert_int_equal(palev_event_undefine_provider("Unit_Undef"), 0);
    assert_null(palev_event_lookup("Unit_Undef", "A"));
    assert_null(palev_event_lookup("Unit_Undef", "B"));
    assert_null(palev_event_lookup("Unit_Undef", "C"));
    assert_ptr_equal(palev_event_lookup("Unit_Undef2", "A"), keep);
    assert_false(palev_event_enabled(ev[0]));
    assert_int_equal(PALEV_EVENT_WRITE(ev[0], 1, "x"), 0);
    assert_int_equal(palev_event_writef(c, 1, "x"), 0);
    assert_int_equal(palev_event_undefine_provider("Unit_Undef"), -ENOENT);
    /* The same name with other fields: a new handle, found by lookup. */
    assert_int_equal(palev_event_define("Unit_Undef", "A", 4, 0, other, 1, &again), 0);
    assert_ptr_not_equal(again, ev[0]);
    assert_ptr_equal(palev_event_lookup("Unit_Undef", "A"), again);
    assert_int_equal(PALEV_EVENT_WRITE(again, 2.5), 0);
    assert_int_equal(palev_event_undefine_provider("Unit_Undef"), 0);
    assert_int_equal(palev_event_undefine_provider("Unit_Undef2"), 0);
    assert_null(palev_event_lookup("Unit_Undef2", "A"));
}

/* The errnos: -EINVAL for a bad name, -ENOENT for no dynamic event, -EBUSY for Paleventing. */
static void test_undefine_errors(void **state)
{
    (void)state;
    assert_int_equal(palev_event_undefine_provider(NULL), -EINVAL);
    assert_int_equal(palev_event_undefine_provider(""), -EINVAL);
    assert_int_equal(palev_event_undefine_provider("Bad-Name"), -EINVAL);
    assert_int_equal(palev_event_undefine_provider("9Unit"), -EINVAL);
    assert_int_equal(palev_event_undefine_provider("Unit_Never"), -ENOENT);
    /* A prefix or an extension of a defined provider is another provider. */
    assert_int_equal(palev_event_undefine_provider("Unit_Grow"), -ENOENT);
    assert_int_equal(palev_event_undefine_provider("Unit_Grow10"), 0);
    assert_int_equal(palev_event_undefine_provider("Unit_Grow100"), -ENOENT);
    assert_int_equal(palev_event_undefine_provider("Paleventing"), -EBUSY);
}

/* Define and undefine 3000 rounds of 7 events among 5000 that stay: tombstones are reused or
 * swept, every live event stays findable, every undefined one is gone. */
static void test_undefine_cycles(void **state)
{
    static palev_event *live[5000];
    char prov[32], name[32];
    palev_event *ev;

    (void)state;
    for (unsigned i = 0; i < 5000; i++) {
        snprintf(name, sizeof(name), "Event%u", i);
        assert_int_equal(palev_event_define("Unit_Stay", name, 4, 0, two, 2, &live[i]), 0);
    }
    for (unsigned r = 0; r < 3000; r++) {
        snprintf(prov, sizeof(prov), "Unit_Cycle%u", r % 3 ? r : 0);
        for (unsigned k = 0; k < 7; k++) {
            snprintf(name, sizeof(name), "E%u", k);
            assert_int_equal(palev_event_define(prov, name, 4, 0, two, 2 - r % 2, &ev), 0);
            assert_ptr_equal(palev_event_lookup(prov, name), ev);
        }
        assert_int_equal(palev_event_undefine_provider(prov), 0);
        assert_null(palev_event_lookup(prov, "E3"));
    }
    for (unsigned i = 0; i < 5000; i++) {
        snprintf(name, sizeof(name), "Event%u", i);
        assert_ptr_equal(palev_event_lookup("Unit_Stay", name), live[i]);
    }
}

/* Field names as trace readers see them: LTTng writes each with a leading '_', which they strip,
 * and babeltrace2 refuses the whole trace when names meet that way. Refused in either order:
 * names equal once leading underscores are removed, and an array's or BYTES field's hidden
 * "_<name>_length" field. */
static void test_field_names(void **state)
{
    static const struct {
        palev_field f[2];
        int want;
    } cases[] = {
        { { { "x", PALEV_TYPE_INT32, 0 }, { "x", PALEV_TYPE_INT8, 0 } }, -EINVAL },
        { { { "x", PALEV_TYPE_INT32, 0 }, { "_x", PALEV_TYPE_INT32, 0 } }, -EINVAL },
        { { { "_x", PALEV_TYPE_INT32, 0 }, { "x", PALEV_TYPE_INT32, 0 } }, -EINVAL },
        { { { "__x", PALEV_TYPE_INT32, 0 }, { "_x", PALEV_TYPE_INT32, 0 } }, -EINVAL },
        { { { "_", PALEV_TYPE_INT32, 0 }, { "__", PALEV_TYPE_INT32, 0 } }, -EINVAL },
        /* The hidden length field of an array, after it and before it. */
        { { { "a", PALEV_TYPE_UINT8, PALEV_FIELD_ARRAY }, { "_a_length", PALEV_TYPE_INT32, 0 } },
          -EINVAL },
        { { { "_a_length", PALEV_TYPE_INT32, 0 }, { "a", PALEV_TYPE_UINT8, PALEV_FIELD_ARRAY } },
          -EINVAL },
        { { { "a_length", PALEV_TYPE_INT32, 0 }, { "a", PALEV_TYPE_BYTES, 0 } }, -EINVAL },
        { { { "a", PALEV_TYPE_INT64, PALEV_FIELD_ARRAY }, { "__a_length", PALEV_TYPE_INT32, 0 } },
          -EINVAL },
        { { { "_a", PALEV_TYPE_BYTES, 0 }, { "a_length", PALEV_TYPE_INT32, 0 } }, -EINVAL },
        { { { "_", PALEV_TYPE_BYTES, 0 }, { "length", PALEV_TYPE_INT32, 0 } }, -EINVAL },
        { { { "a", PALEV_TYPE_BYTES, 0 }, { "_a", PALEV_TYPE_BYTES, 0 } }, -EINVAL },
        /* Apart: another word, a float array (a JSON string, no length field), a scalar. */
        { { { "x", PALEV_TYPE_INT32, 0 }, { "x_", PALEV_TYPE_INT32, 0 } }, 0 },
        { { { "x", PALEV_TYPE_INT32, 0 }, { "x_length", PALEV_TYPE_INT32, 0 } }, 0 },
        { { { "a", PALEV_TYPE_DOUBLE, PALEV_FIELD_ARRAY }, { "_a_length", PALEV_TYPE_INT32, 0 } },
          0 },
        { { { "a", PALEV_TYPE_BYTES, 0 }, { "a_length_", PALEV_TYPE_INT32, 0 } }, 0 },
        { { { "a", PALEV_TYPE_BYTES, 0 }, { "b_length", PALEV_TYPE_INT32, 0 } }, 0 },
        { { { "_", PALEV_TYPE_INT32, 0 }, { "length", PALEV_TYPE_INT32, 0 } }, 0 },
        { { { "a", PALEV_TYPE_BYTES, 0 }, { "b", PALEV_TYPE_BYTES, 0 } }, 0 },
    };
    char name[16];
    palev_event *ev;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(name, sizeof(name), "E%zu", i);
        if (palev_event_define("Unit_Names", name, 4, 0, cases[i].f, 2, &ev) != cases[i].want)
            fail_msg("case %zu: \"%s\", \"%s\": not %d", i, cases[i].f[0].name,
                     cases[i].f[1].name, cases[i].want);
        assert_int_equal(palev_event_lookup("Unit_Names", name) != NULL, cases[i].want == 0);
    }
    /* Far apart in a long event: the 100th field meets the 3rd. */
    {
        palev_field many[100];
        char names[100][8];

        for (unsigned i = 0; i < 100; i++) {
            snprintf(names[i], sizeof(names[i]), "f%u", i);
            many[i] = (palev_field){ names[i], PALEV_TYPE_UINT8, 0 };
        }
        many[2] = (palev_field){ "arr", PALEV_TYPE_UINT16, PALEV_FIELD_ARRAY };
        assert_int_equal(palev_event_define("Unit_Names", "Long", 4, 0, many, 100, &ev), 0);
        many[99].name = "__arr_length";
        assert_int_equal(palev_event_define("Unit_Names", "Long2", 4, 0, many, 100, &ev),
                         -EINVAL);
    }
}

/* LTTng's namespace (its statedump, its agents) and the library's own provider are no dynamic
 * provider's: -EBUSY to define and to undefine; a generated provider may not take it either. */
static void test_reserved_providers(void **state)
{
    static const char *const reserved[] = { "lttng_ust_statedump", "lttng_ust_lib",
                                            "lttng_ust_tracef", "lttng_jul", "lttng_python",
                                            "lttng_", "Paleventing" };
    static const char *const allowed[] = { "lttng", "lttngx", "Lttng_ust_x", "my_lttng_ust",
                                           "Paleventing_Ext" };
    palev_event *ev;

    (void)state;
    for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
        assert_int_equal(palev_event_define(reserved[i], "E", 4, 0, two, 2, &ev), -EBUSY);
        assert_false(palev_event_enabled(ev));
        assert_null(palev_event_lookup(reserved[i], "E"));
        assert_int_equal(palev_event_undefine_provider(reserved[i]), -EBUSY);
    }
    for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
        assert_int_equal(palev_event_define(allowed[i], "E", 4, 0, two, 2, &ev), 0);
        assert_int_equal(palev_event_undefine_provider(allowed[i]), 0);
    }
    {
        palev_provider p = { .struct_size = sizeof(p), .name = "lttng_ust_statedump",
                             .etw_name = "x" };

        assert_int_equal(palev_provider_register(&p), -EINVAL);
    }
}

static atomic_int fork_stop;


static void *define_undefine(void *arg)
{
    const char *prov = arg;
    const palev_event_def defs[3] = { { prov, "A", 4, 0, two, 2 }, { prov, "B", 4, 0, two, 2 },
                                      { prov, "C", 4, 0, two, 1 } };
    palev_event *ev[3];

    while (!atomic_load(&fork_stop)) {
        if (palev_event_define_many(defs, 3, ev, NULL) != 0 ||
            palev_event_undefine_provider(prov) != 0)
            return arg;
    }
    return NULL;
}

/* A child of fork() while 2 threads define and undefine in a loop defines, looks up and
 * undefines at once; one that has not exited 5 s later is killed: hung (the test never hangs). */
static int forked_child_ok(void)
{
    struct timespec t0, t;
    pid_t pid = fork();
    int status = 0;
    pid_t got;

    if (pid == 0) {
        palev_event *ev;

        alarm(10);
        _exit(palev_event_define("Unit_ForkChild", "E", 4, 0, two, 2, &ev) != 0 ||
              palev_event_lookup("Unit_ForkChild", "E") != ev ||
              PALEV_EVENT_WRITE(ev, 1, "x") != 0 ||
              palev_event_undefine_provider("Unit_ForkChild") != 0);
    }
    assert_true(pid > 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        usleep(500);
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((got = waitpid(pid, &status, WNOHANG)) == 0 && t.tv_sec - t0.tv_sec < 5);
    if (got == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        print_error("child %d hung\n", (int)pid);
        return 0;
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void test_fork_while_defining(void **state)
{
    static char busy[2][16] = { "Unit_ForkBusy0", "Unit_ForkBusy1" };
    const char *n = getenv("PALEV_TEST_FORKS");     /* fewer under valgrind */
    int forks = n ? atoi(n) : 30;
    pthread_t th[2];
    void *ret[2];
    int ok = 1;

    (void)state;
    atomic_store(&fork_stop, 0);
    pthread_create(&th[0], NULL, define_undefine, busy[0]);
    pthread_create(&th[1], NULL, define_undefine, busy[1]);
    for (int i = 0; i < forks && ok; i++)
        ok = forked_child_ok();
    atomic_store(&fork_stop, 1);
    pthread_join(th[0], &ret[0]);
    pthread_join(th[1], &ret[1]);
    assert_true(ok);
    assert_null(ret[0]);
    assert_null(ret[1]);
}

/* After palev_fini(): -ECANCELED, an existing definition still found. Runs last. */
static void test_after_fini(void **state)
{
    palev_event *ev;

    (void)state;
    palev_fini();
    assert_int_equal(palev_event_define("Unit_Fini", "E", 4, 0, two, 2, &ev), -ECANCELED);
    assert_false(palev_event_enabled(ev));
    {
        const palev_event_def defs[2] = { { "Unit_Fini", "E", 4, 0, two, 2 },
                                          { "Unit_Fini", "Bad-", 4, 0, two, 2 } };
        palev_event *evs[2];
        int err[2];

        assert_int_equal(palev_event_define_many(defs, 2, evs, err), -ECANCELED);
        assert_int_equal(err[0], -ECANCELED);
        assert_int_equal(err[1], -EINVAL);
    }
    assert_non_null(palev_event_lookup("Unit_Oom", "E"));
    assert_int_equal(palev_event_undefine_provider("Unit_Oom"), -ECANCELED);
    assert_non_null(palev_event_lookup("Unit_Oom", "E"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup_after_growth),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_many_partial),
        cmocka_unit_test(test_many_large),
        cmocka_unit_test(test_many_out_of_memory),
        cmocka_unit_test(test_undefine),
        cmocka_unit_test(test_undefine_errors),
        cmocka_unit_test(test_undefine_cycles),
        cmocka_unit_test(test_field_names),
        cmocka_unit_test(test_reserved_providers),
        cmocka_unit_test(test_fork_while_defining),
        cmocka_unit_test(test_after_fini),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
