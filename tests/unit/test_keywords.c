/* SPDX-License-Identifier: MIT */
/* Unit tests of the provider-level check palev_provider_is_enabled() (keywords.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "paleventing-gen.h"

/* A provider as palev-gen would describe it, with tracepoint states the tests set by hand:
 *   0 Info     keyword bit 0
 *   1 Verbose  keyword bit 1
 *   2 Error    no keywords
 *   3 Info     keyword bits 0 and 63
 *   4 custom level 200, keyword bit 5 (its group also holds a bogus index 99, to be ignored) */
enum { INFO0, VERBOSE1, ERROR_NOKW, INFO_BIT63, CUSTOM5, EVENTS };

static int states[EVENTS];

static const palev_event_descriptor events[EVENTS] = {
    [INFO0] = { .id = 1, .level = 4, .keywords = 0x1 },
    [VERBOSE1] = { .id = 2, .level = 5, .keywords = 0x2 },
    [ERROR_NOKW] = { .id = 3, .level = 2, .keywords = 0 },
    [INFO_BIT63] = { .id = 4, .level = 4, .keywords = UINT64_C(0x8000000000000001) },
    [CUSTOM5] = { .id = 5, .level = 200, .keywords = 0x20 },
};
static const char *const names[EVENTS] = { "Info0", "Verbose1", "ErrorNoKw", "InfoBit63",
                                           "Custom5" };
static const int *const state_ptrs[EVENTS] = { &states[0], &states[1], &states[2], &states[3],
                                               &states[4] };

/* Groups by keyword bit: 0 -> {0, 3}, 1 -> {1}, 5 -> {4, 99}, 63 -> {3}, 64 (none) -> {2}. */
static const uint32_t keyword_events[] = { INFO0, INFO_BIT63, VERBOSE1, CUSTOM5, 99, INFO_BIT63,
                                           ERROR_NOKW };
static uint32_t keyword_start[66];

static palev_provider provider(void)
{
    palev_provider p = {
        .struct_size = sizeof(palev_provider), .name = "Hand", .etw_name = "Hand-Made",
        .event_count = EVENTS, .events = events, .event_names = names,
        .event_states = state_ptrs, .keyword_events = keyword_events,
        .keyword_start = keyword_start,
    };

    return p;
}

/* Entries per group, in the order of keyword_events. */
static const uint32_t group_size[65] = { [0] = 2, [1] = 1, [5] = 2, [63] = 1, [64] = 1 };

static int setup(void **state)
{
    (void)state;
    memset(states, 0, sizeof(states));
    keyword_start[0] = 0;
    for (int b = 0; b < 65; b++)
        keyword_start[b + 1] = keyword_start[b] + group_size[b];
    return 0;
}

static void test_layout(void **state)
{
    (void)state;
    /* the groups the comment above describes */
    assert_int_equal(keyword_start[0], 0);
    assert_int_equal(keyword_start[1], 2);
    assert_int_equal(keyword_start[2], 3);
    assert_int_equal(keyword_start[5], 3);
    assert_int_equal(keyword_start[6], 5);
    assert_int_equal(keyword_start[63], 5);
    assert_int_equal(keyword_start[64], 6);
    assert_int_equal(keyword_start[65], 7);
}

static void test_nothing_enabled(void **state)
{
    palev_provider p = provider();

    (void)state;
    assert_int_equal(palev_provider_is_enabled(&p, 0, UINT64_MAX), 0);
    assert_int_equal(palev_provider_is_enabled(&p, 255, 0), 0);
}

/* An event without keywords is received whatever the mask, at a level that includes it. */
static void test_event_without_keywords(void **state)
{
    palev_provider p = provider();

    (void)state;
    states[ERROR_NOKW] = 1;
    assert_int_equal(palev_provider_is_enabled(&p, 0, 0), 1);       /* level 0: all levels */
    assert_int_equal(palev_provider_is_enabled(&p, 1, 0), 0);       /* Critical < Error */
    assert_int_equal(palev_provider_is_enabled(&p, 2, 0), 1);       /* <= */
    assert_int_equal(palev_provider_is_enabled(&p, 5, 0x4), 1);
}

static void test_keyword_mask(void **state)
{
    palev_provider p = provider();

    (void)state;
    states[VERBOSE1] = 1;
    assert_int_equal(palev_provider_is_enabled(&p, 5, 0x2), 1);
    assert_int_equal(palev_provider_is_enabled(&p, 5, 0x3), 1);
    assert_int_equal(palev_provider_is_enabled(&p, 5, UINT64_MAX), 1);
    assert_int_equal(palev_provider_is_enabled(&p, 5, 0x1), 0);     /* other keyword */
    assert_int_equal(palev_provider_is_enabled(&p, 5, 0), 0);       /* no keyword asked */
    assert_int_equal(palev_provider_is_enabled(&p, 4, 0x2), 0);     /* Verbose > Info */
    assert_int_equal(palev_provider_is_enabled(&p, 0, 0x2), 1);
}

static void test_several_keyword_bits(void **state)
{
    palev_provider p = provider();

    (void)state;
    states[INFO_BIT63] = 1;
    assert_int_equal(palev_provider_is_enabled(&p, 4, UINT64_C(0x8000000000000000)), 1);
    assert_int_equal(palev_provider_is_enabled(&p, 4, 0x1), 1);
    assert_int_equal(palev_provider_is_enabled(&p, 3, 0x1), 0);
    assert_int_equal(palev_provider_is_enabled(&p, 4, 0x6), 0);
    states[INFO_BIT63] = 0;
    states[INFO0] = 1;
    assert_int_equal(palev_provider_is_enabled(&p, 4, UINT64_C(0x8000000000000000)), 0);
    assert_int_equal(palev_provider_is_enabled(&p, 4, 0x1), 1);
}

/* Custom levels (6..255) are only received by a session at that level or at 0. */
static void test_custom_level(void **state)
{
    palev_provider p = provider();

    (void)state;
    states[CUSTOM5] = 1;
    assert_int_equal(palev_provider_is_enabled(&p, 5, 0x20), 0);
    assert_int_equal(palev_provider_is_enabled(&p, 199, 0x20), 0);
    assert_int_equal(palev_provider_is_enabled(&p, 200, 0x20), 1);
    assert_int_equal(palev_provider_is_enabled(&p, 0, 0x20), 1);
}

/* The check reads the states each time: it follows the session. */
static void test_follows_states(void **state)
{
    palev_provider p = provider();

    (void)state;
    assert_int_equal(palev_provider_is_enabled(&p, 4, 0x1), 0);
    states[INFO0] = 1;
    assert_int_equal(palev_provider_is_enabled(&p, 4, 0x1), 1);
    states[INFO0] = 0;
    assert_int_equal(palev_provider_is_enabled(&p, 4, 0x1), 0);
}

static void test_malformed(void **state)
{
    palev_provider p = provider();

    (void)state;
    states[ERROR_NOKW] = 1;
    assert_int_equal(palev_provider_is_enabled(NULL, 0, UINT64_MAX), 0);
    p.struct_size = offsetof(palev_provider, keyword_start);
    assert_int_equal(palev_provider_is_enabled(&p, 0, UINT64_MAX), 0);
    p.struct_size = offsetof(palev_provider, keyword_start) + sizeof(p.keyword_start);
    assert_int_equal(palev_provider_is_enabled(&p, 0, UINT64_MAX), 1);
    p.keyword_events = NULL;
    assert_int_equal(palev_provider_is_enabled(&p, 0, UINT64_MAX), 0);
    p = provider();
    p.keyword_start = NULL;
    assert_int_equal(palev_provider_is_enabled(&p, 0, UINT64_MAX), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_layout, setup),
        cmocka_unit_test_setup(test_nothing_enabled, setup),
        cmocka_unit_test_setup(test_event_without_keywords, setup),
        cmocka_unit_test_setup(test_keyword_mask, setup),
        cmocka_unit_test_setup(test_several_keyword_bits, setup),
        cmocka_unit_test_setup(test_custom_level, setup),
        cmocka_unit_test_setup(test_follows_states, setup),
        cmocka_unit_test_setup(test_malformed, setup),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
