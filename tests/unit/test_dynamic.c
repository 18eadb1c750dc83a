/* SPDX-License-Identifier: MIT */
/* Unit tests of dynamic event definitions and lookup (dynamic.c) without LTTng: the registry
 * growing past its first sizes, out of memory, the never-enabled handle of a failed define.
 * (Names owned by generated providers: tests/e2e/dyn_host.c, where providers load.) */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* After palev_fini(): -ECANCELED, an existing definition still found. Runs last. */
static void test_after_fini(void **state)
{
    palev_event *ev;

    (void)state;
    palev_fini();
    assert_int_equal(palev_event_define("Unit_Fini", "E", 4, 0, two, 2, &ev), -ECANCELED);
    assert_false(palev_event_enabled(ev));
    assert_non_null(palev_event_lookup("Unit_Oom", "E"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup_after_growth),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_after_fini),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
