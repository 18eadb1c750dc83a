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

/* ---- the ASCII fast path (8 units at a time): every boundary against a unit-by-unit oracle -- */

/* An independent reference: decode unit by unit, encode, cut at the last whole code point. */
static size_t reference(char *dst, size_t dstsize, const char16_t *s, size_t len)
{
    size_t need = 0, written = 0;
    int full = 0;

    for (size_t i = 0; s && i < len && s[i]; i++) {
        uint32_t cp = s[i], n;
        unsigned char b[4];

        if (cp >= 0xD800 && cp < 0xDC00 && i + 1 < len && s[i + 1] >= 0xDC00 && s[i + 1] < 0xE000)
            cp = 0x10000 + ((cp - 0xD800) << 10) + (s[++i] - 0xDC00);
        else if (cp >= 0xD800 && cp < 0xE000)
            cp = 0xFFFD;
        if (cp < 0x80) { b[0] = (unsigned char)cp; n = 1; }
        else if (cp < 0x800) { b[0] = 0xC0 | cp >> 6; b[1] = 0x80 | (cp & 0x3F); n = 2; }
        else if (cp < 0x10000) {
            b[0] = 0xE0 | cp >> 12; b[1] = 0x80 | (cp >> 6 & 0x3F); b[2] = 0x80 | (cp & 0x3F);
            n = 3;
        } else {
            b[0] = 0xF0 | cp >> 18; b[1] = 0x80 | (cp >> 12 & 0x3F);
            b[2] = 0x80 | (cp >> 6 & 0x3F); b[3] = 0x80 | (cp & 0x3F); n = 4;
        }
        if (!full && written + n < dstsize) {
            memcpy(dst + written, b, n);
            written += n;
        } else {
            full = 1;
        }
        need += n;
    }
    if (dstsize > 0)
        dst[written] = '\0';
    return need;
}

/* `s` (len units, no NUL inside unless placed) at every alignment, counted and NUL-terminated,
 * into every destination size up to the whole output + 2. */
static void against_reference(const char16_t *s, size_t len)
{
    char16_t buf[80 + 8];
    char want[300], got[300];

    for (size_t shift = 0; shift < 8; shift++) {
        char16_t *at = buf + shift;

        memcpy(at, s, len * sizeof(char16_t));
        at[len] = 0;
        for (int form = 0; form < 2; form++) {
            size_t srclen = form ? PALEV_NUL_TERMINATED : len;
            size_t total = reference(want, sizeof(want), at, srclen);

            for (size_t size = 0; size <= total + 2; size++) {
                size_t r1 = reference(want, size, at, srclen);

                memset(got, CANARY, sizeof(got));
                assert_int_equal(palev_utf16_to_utf8(got, size, at, srclen), r1);
                if (size > 0)
                    assert_string_equal(got, want);
                for (size_t k = size; k < sizeof(got); k++)
                    assert_int_equal(got[k], CANARY);
            }
        }
    }
}

/* ASCII runs of every length 0..34 with one special unit (DEL, 0x80, 0xFF80, surrogates, NUL)
 * at every position: the 8-unit blocks start, end and break everywhere. */
static void test_fast_path_boundaries(void **state)
{
    static const char16_t special[] = { 0x7F, 0x80, 0xFF80, 0xD800, 0xDC00, 0 };
    char16_t s[48] = { 0 };

    (void)state;
    for (size_t len = 0; len <= 34; len++) {
        for (size_t k = 0; k < len; k++)
            s[k] = (char16_t)('a' + k % 26);
        against_reference(s, len);
        for (size_t pos = 0; pos < len; pos++) {
            for (size_t sp = 0; sp < sizeof(special) / sizeof(special[0]); sp++) {
                char16_t keep = s[pos];

                s[pos] = special[sp];
                against_reference(s, len);
                s[pos] = keep;
            }
        }
    }
}

/* A surrogate pair split across an 8-unit block boundary, at every offset. */
static void test_fast_path_pairs(void **state)
{
    char16_t s[40] = { 0 };

    (void)state;
    for (size_t pos = 0; pos + 1 < 32; pos++) {
        for (size_t k = 0; k < 32; k++)
            s[k] = (char16_t)('A' + k % 26);
        s[pos] = 0xD83D;
        s[pos + 1] = 0xDE00;
        against_reference(s, 32);
    }
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
        cmocka_unit_test(test_fast_path_boundaries),
        cmocka_unit_test(test_fast_path_pairs),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
