/* SPDX-License-Identifier: MIT */
/* Unit tests of palev_utf16_to_utf8(), through the installed shared library's API. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "paleventing.h"

#define CANARY 'X'

/* Converts into a canary-filled buffer and checks the result, the return value, and that
 * nothing was written past dstsize. */
static void check(const char16_t *src, size_t srclen, size_t dstsize, const char *want,
                  size_t want_ret)
{
    char buf[64];

    assert_true(dstsize < sizeof(buf));
    memset(buf, CANARY, sizeof(buf));
    assert_int_equal(palev_utf16_to_utf8(buf, dstsize, src, srclen), want_ret);
    if (dstsize > 0)
        assert_string_equal(buf, want);
    for (size_t i = dstsize; i < sizeof(buf); i++)
        assert_int_equal(buf[i], CANARY);
}

static void test_ascii(void **state)
{
    (void)state;
    check(u"hello", PALEV_NUL_TERMINATED, 32, "hello", 5);
    check(u"", PALEV_NUL_TERMINATED, 32, "", 0);
}

static void test_latin1(void **state)
{
    (void)state;
    check(u"caf\u00e9 \u00ff", PALEV_NUL_TERMINATED, 32, "caf\xc3\xa9 \xc3\xbf", 8);
}

static void test_cjk(void **state)
{
    (void)state;
    check(u"\u4e2d\u6587", PALEV_NUL_TERMINATED, 32, "\xe4\xb8\xad\xe6\x96\x87", 6);
    check(u"\u0800\uffff", PALEV_NUL_TERMINATED, 32, "\xe0\xa0\x80\xef\xbf\xbf", 6);
}

static void test_non_bmp(void **state)
{
    static const char16_t grin[] = { 0xD83D, 0xDE00, 0 };
    static const char16_t max[] = { 0xDBFF, 0xDFFF, 0 };
    static const char16_t min[] = { 0xD800, 0xDC00, 0 };

    (void)state;
    check(grin, PALEV_NUL_TERMINATED, 32, "\xf0\x9f\x98\x80", 4);
    check(max, PALEV_NUL_TERMINATED, 32, "\xf4\x8f\xbf\xbf", 4);
    check(min, PALEV_NUL_TERMINATED, 32, "\xf0\x90\x80\x80", 4);
}

static void test_lone_high_surrogate(void **state)
{
    static const char16_t s[] = { 'a', 0xD800, 'b', 0 };
    static const char16_t at_end[] = { 'a', 0xD83D, 0 };
    static const char16_t twice[] = { 0xD800, 0xD83D, 0xDE00, 0 };

    (void)state;
    check(s, PALEV_NUL_TERMINATED, 32, "a\xef\xbf\xbd" "b", 5);
    check(at_end, PALEV_NUL_TERMINATED, 32, "a\xef\xbf\xbd", 4);
    /* The unit after an unpaired high surrogate still pairs with what follows. */
    check(twice, PALEV_NUL_TERMINATED, 32, "\xef\xbf\xbd\xf0\x9f\x98\x80", 7);
}

static void test_lone_low_surrogate(void **state)
{
    static const char16_t s[] = { 0xDC00, 'x', 0 };
    static const char16_t reversed[] = { 0xDE00, 0xD83D, 0 };

    (void)state;
    check(s, PALEV_NUL_TERMINATED, 32, "\xef\xbf\xbdx", 4);
    check(reversed, PALEV_NUL_TERMINATED, 32, "\xef\xbf\xbd\xef\xbf\xbd", 6);
}

static void test_high_surrogate_at_end_of_counted_string(void **state)
{
    static const char16_t s[] = { 'a', 0xD83D, 0xDE00, 0 };

    (void)state;
    check(s, 2, 32, "a\xef\xbf\xbd", 4);
    check(s, 3, 32, "a\xf0\x9f\x98\x80", 5);
}

static void test_embedded_nul(void **state)
{
    static const char16_t s[] = { 'a', 0, 'b', 0 };

    (void)state;
    check(s, 3, 32, "a", 1);
    check(s, PALEV_NUL_TERMINATED, 32, "a", 1);
}

static void test_null_src(void **state)
{
    (void)state;
    check(NULL, PALEV_NUL_TERMINATED, 32, "", 0);
    check(NULL, 5, 1, "", 0);
    assert_int_equal(palev_utf16_to_utf8(NULL, 0, NULL, 0), 0);
}

static void test_explicit_srclen(void **state)
{
    (void)state;
    check(u"hello", 3, 32, "hel", 3);
    check(u"hello", 0, 32, "", 0);
    check(u"\u4e2d\u6587", 1, 32, "\xe4\xb8\xad", 3);
}

static void test_truncation_small_dst(void **state)
{
    static const char16_t s[] = { 'a', 0xD83D, 0xDE00, 'b', 0 };   /* "a" U+1F600 "b" */

    (void)state;
    check(s, PALEV_NUL_TERMINATED, 0, "", 6);
    check(s, PALEV_NUL_TERMINATED, 1, "", 6);
    check(s, PALEV_NUL_TERMINATED, 2, "a", 6);
    /* Mid-sequence: 2 to 4 bytes of the emoji would fit, but not all of it with the NUL. */
    check(s, PALEV_NUL_TERMINATED, 3, "a", 6);
    check(s, PALEV_NUL_TERMINATED, 5, "a", 6);
    check(s, PALEV_NUL_TERMINATED, 6, "a\xf0\x9f\x98\x80", 6);
    check(s, PALEV_NUL_TERMINATED, 7, "a\xf0\x9f\x98\x80" "b", 6);
    check(u"\u4e2d\u6587", PALEV_NUL_TERMINATED, 4, "\xe4\xb8\xad", 6);
    check(u"\u4e2d\u6587", PALEV_NUL_TERMINATED, 6, "\xe4\xb8\xad", 6);
    check(u"\u00e9\u00e9", PALEV_NUL_TERMINATED, 4, "\xc3\xa9", 4);
}

/* A later, shorter code point must not be appended once one did not fit: output is a prefix. */
static void test_truncation_is_a_prefix(void **state)
{
    (void)state;
    check(u"\u4e2da", PALEV_NUL_TERMINATED, 3, "", 4);
    check(u"x\u4e2da", PALEV_NUL_TERMINATED, 4, "x", 5);
}

static void test_dst_zero_not_touched(void **state)
{
    char c = CANARY;

    (void)state;
    assert_int_equal(palev_utf16_to_utf8(&c, 0, u"abc", PALEV_NUL_TERMINATED), 3);
    assert_int_equal(c, CANARY);
    assert_int_equal(palev_utf16_to_utf8(NULL, 0, u"\u4e2d", PALEV_NUL_TERMINATED), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ascii),
        cmocka_unit_test(test_latin1),
        cmocka_unit_test(test_cjk),
        cmocka_unit_test(test_non_bmp),
        cmocka_unit_test(test_lone_high_surrogate),
        cmocka_unit_test(test_lone_low_surrogate),
        cmocka_unit_test(test_high_surrogate_at_end_of_counted_string),
        cmocka_unit_test(test_embedded_nul),
        cmocka_unit_test(test_null_src),
        cmocka_unit_test(test_explicit_srclen),
        cmocka_unit_test(test_truncation_small_dst),
        cmocka_unit_test(test_truncation_is_a_prefix),
        cmocka_unit_test(test_dst_zero_not_touched),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
