/* SPDX-License-Identifier: MIT */
/* Unit tests of the scratch arena (scratch.c): strings, formatted types, JSON arrays, gathering. */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

/* ---- malloc failure injection ---------------------------------------------------------- */

static int mallocs_left = -1;   /* successful allocations before failing; -1: never fail */

static void *counting_malloc(size_t size)
{
    if (mallocs_left == 0)
        return NULL;
    if (mallocs_left > 0)
        mallocs_left--;
    return malloc(size);
}

static int setup(void **state)
{
    (void)state;
    mallocs_left = -1;
    palev__malloc = counting_malloc;
    return 0;
}

static int in_block(const void *p, const void *block, size_t size)
{
    return (const char *)p >= (const char *)block && (const char *)p < (const char *)block + size;
}

/* ---- strings ---------------------------------------------------------------------------- */

static void test_utf16_in_stack(void **state)
{
    char stack[PALEV_SCRATCH_STACK_SIZE];
    palev_scratch sc;
    const char *a, *b;

    (void)state;
    palev_scratch_init(&sc, stack, sizeof(stack));
    a = palev_scratch_utf16(&sc, u"h\u00e9llo", PALEV_NUL_TERMINATED);
    b = palev_scratch_utf16(&sc, u"\u4e2d\u6587", 1);
    assert_string_equal(a, "h\xc3\xa9llo");
    assert_string_equal(b, "\xe4\xb8\xad");
    assert_ptr_equal(a, stack);
    assert_ptr_equal(b, stack + 7);
    assert_int_equal(sc.used, 7 + 4);
    assert_null(sc.heap);
    assert_string_equal(palev_scratch_utf16(&sc, NULL, 3), "");
    assert_string_equal(palev_scratch_utf16(&sc, u"", PALEV_NUL_TERMINATED), "");
    assert_int_equal(sc.truncated, 0);
    palev_scratch_fini(&sc);
}

/* 2500 x "a\u4e2d": 10000 bytes of UTF-8 from 5000 units, beyond a whole stack block. */
static void test_utf16_long_goes_to_heap(void **state)
{
    enum { REPEAT = 2500 };
    char stack[PALEV_SCRATCH_STACK_SIZE];
    char16_t *src = malloc((2 * REPEAT + 1) * sizeof(char16_t));
    char *want = malloc(4 * REPEAT + 1);
    palev_scratch sc;
    const char *got, *small;

    (void)state;
    for (size_t i = 0; i < REPEAT; i++) {
        src[2 * i] = 'a';
        src[2 * i + 1] = 0x4e2d;
        memcpy(want + 4 * i, "a\xe4\xb8\xad", 4);
    }
    src[2 * REPEAT] = 0;
    want[4 * REPEAT] = '\0';
    palev_scratch_init(&sc, stack, sizeof(stack));
    assert_string_equal(palev_scratch_utf16(&sc, u"first", PALEV_NUL_TERMINATED), "first");
    got = palev_scratch_utf16(&sc, src, PALEV_NUL_TERMINATED);
    assert_int_equal(strlen(got), 4 * REPEAT);
    assert_string_equal(got, want);
    assert_false(in_block(got, stack, sizeof(stack)));
    assert_non_null(sc.heap);
    /* The stack block still has more room than the exact-size heap block: small strings stay. */
    small = palev_scratch_utf16(&sc, u"small", PALEV_NUL_TERMINATED);
    assert_ptr_equal(small, stack + 6);
    assert_string_equal(got, want);
    assert_int_equal(sc.truncated, 0);
    palev_scratch_fini(&sc);
    assert_null(sc.heap);
    free(src);
    free(want);
}

/* Filling the stack block moves on to heap blocks; earlier results stay valid. */
static void test_many_strings_overflow(void **state)
{
    char stack[64];
    const char *got[100];
    char want[16];
    palev_scratch sc;

    (void)state;
    palev_scratch_init(&sc, stack, sizeof(stack));
    for (int i = 0; i < 100; i++) {
        char16_t src[16];

        snprintf(want, sizeof(want), "string %d", i);
        for (size_t k = 0; k <= strlen(want); k++)
            src[k] = (char16_t)want[k];
        got[i] = palev_scratch_utf16(&sc, src, PALEV_NUL_TERMINATED);
    }
    for (int i = 0; i < 100; i++) {
        snprintf(want, sizeof(want), "string %d", i);
        assert_string_equal(got[i], want);
    }
    assert_true(in_block(got[0], stack, sizeof(stack)));
    assert_false(in_block(got[99], stack, sizeof(stack)));
    assert_int_equal(sc.truncated, 0);
    palev_scratch_fini(&sc);
}

static void test_no_stack_block(void **state)
{
    palev_scratch sc;

    (void)state;
    palev_scratch_init(&sc, NULL, 123);
    assert_int_equal(sc.size, 0);
    assert_string_equal(palev_scratch_utf16(&sc, u"heap only", PALEV_NUL_TERMINATED),
                        "heap only");
    assert_string_equal(palev_scratch_ansi(&sc, "abc", 2), "ab");
    assert_non_null(sc.heap);
    palev_scratch_fini(&sc);
}

static void test_utf16_truncated_when_heap_exhausted(void **state)
{
    static const char16_t emoji[] = { 'a', 'b', 'c', 'd', 0xD83D, 0xDE00, 0 };
    char stack[16];
    palev_scratch sc;

    (void)state;
    mallocs_left = 0;
    palev_scratch_init(&sc, stack, sizeof(stack));
    assert_string_equal(palev_scratch_utf16(&sc, u"abcdefghijklmnopqrstuvwxyz",
                                            PALEV_NUL_TERMINATED), "abcdefghijklmno");
    assert_int_equal(sc.truncated, 1);
    assert_int_equal(sc.used, 16);
    assert_string_equal(palev_scratch_utf16(&sc, u"more", PALEV_NUL_TERMINATED), "");
    palev_scratch_fini(&sc);

    /* Cut at a code point boundary: the emoji needs 4 bytes, only 3 are left. */
    palev_scratch_init(&sc, stack, 8);
    assert_string_equal(palev_scratch_utf16(&sc, emoji, PALEV_NUL_TERMINATED), "abcd");
    assert_int_equal(sc.truncated, 1);
    palev_scratch_fini(&sc);

    palev_scratch_init(&sc, NULL, 0);
    assert_string_equal(palev_scratch_utf16(&sc, u"x", PALEV_NUL_TERMINATED), "");
    assert_string_equal(palev_scratch_ansi(&sc, "x", 1), "");
    assert_string_equal(palev_scratch_guid(&sc, &(palev_guid){ 0 }), "");
    assert_int_equal(sc.truncated, 1);
    palev_scratch_fini(&sc);
}

static void test_ansi(void **state)
{
    static const char text[] = "abcdef";
    static const char embedded[] = { 'a', 'b', 0, 'c', 'd' };
    char stack[64];
    palev_scratch sc;
    const char *got;

    (void)state;
    palev_scratch_init(&sc, stack, sizeof(stack));
    assert_ptr_equal(palev_scratch_ansi(&sc, text, PALEV_NUL_TERMINATED), text);
    assert_string_equal(palev_scratch_ansi(&sc, NULL, PALEV_NUL_TERMINATED), "");
    assert_string_equal(palev_scratch_ansi(&sc, NULL, 3), "");
    assert_int_equal(sc.used, 0);
    got = palev_scratch_ansi(&sc, text, 3);
    assert_string_equal(got, "abc");
    assert_ptr_equal(got, stack);
    assert_string_equal(palev_scratch_ansi(&sc, embedded, sizeof(embedded)), "ab");
    assert_string_equal(palev_scratch_ansi(&sc, text, 0), "");
    assert_string_equal(palev_scratch_ansi(&sc, "\xff\xfe", 2), "\xff\xfe");
    palev_scratch_fini(&sc);
}

static void test_ansi_truncated(void **state)
{
    char stack[8];
    palev_scratch sc;

    (void)state;
    mallocs_left = 0;
    palev_scratch_init(&sc, stack, sizeof(stack));
    assert_string_equal(palev_scratch_ansi(&sc, "0123456789", 10), "0123456");
    assert_int_equal(sc.truncated, 1);
    palev_scratch_fini(&sc);
}

/* ---- GUID, SYSTEMTIME, SID -------------------------------------------------------------- */

static void test_guid(void **state)
{
    const palev_guid g = { 0x01234567, 0x89ab, 0xcdef,
                           { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef } };
    const palev_guid zero = { 0 };
    const palev_guid ones = { 0xffffffff, 0xffff, 0xffff,
                              { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };
    char stack[256];
    palev_scratch sc;

    (void)state;
    palev_scratch_init(&sc, stack, sizeof(stack));
    assert_string_equal(palev_scratch_guid(&sc, &g), "01234567-89ab-cdef-0123-456789abcdef");
    assert_string_equal(palev_scratch_guid(&sc, &zero), "00000000-0000-0000-0000-000000000000");
    assert_string_equal(palev_scratch_guid(&sc, &ones), "ffffffff-ffff-ffff-ffff-ffffffffffff");
    assert_string_equal(palev_scratch_guid(&sc, NULL), "");
    palev_scratch_fini(&sc);
}

static void test_systemtime(void **state)
{
    const palev_systemtime t = { 2024, 3, 4, 7, 8, 9, 10, 11 };
    const palev_systemtime late = { 1999, 12, 5, 31, 23, 59, 59, 999 };
    char stack[256];
    palev_scratch sc;

    (void)state;
    palev_scratch_init(&sc, stack, sizeof(stack));
    assert_string_equal(palev_scratch_systemtime(&sc, &t), "2024-03-07T08:09:10.011");
    assert_string_equal(palev_scratch_systemtime(&sc, &late), "1999-12-31T23:59:59.999");
    assert_string_equal(palev_scratch_systemtime(&sc, NULL), "");
    palev_scratch_fini(&sc);
}

static void test_sid(void **state)
{
    static const uint8_t domain[] = { 1, 4, 0, 0, 0, 0, 0, 5, 21, 0, 0, 0, 1, 0, 0, 0,
                                      2, 0, 0, 0, 3, 0, 0, 0 };
    static const uint8_t system[] = { 1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0 };
    static const uint8_t no_sub[] = { 1, 0, 0, 0, 0, 0, 0, 1 };
    static const uint8_t big_sub[] = { 1, 2, 0, 0, 0, 0, 0, 5, 0xff, 0xff, 0xff, 0xff,
                                       0x78, 0x56, 0x34, 0x12 };
    static const uint8_t auth32[] = { 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
    static const uint8_t auth48[] = { 1, 1, 0x01, 0x02, 0x0a, 0x0b, 0x0c, 0x0d, 7, 0, 0, 0 };
    static const uint8_t bad_rev[] = { 2, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0 };
    static const uint8_t bad_count[] = { 1, 16, 0, 0, 0, 0, 0, 5 };
    uint8_t max[8 + 15 * 4] = { 1, 15, 0, 0, 0, 0, 0, 5 };
    char stack[512];
    palev_scratch sc;

    (void)state;
    for (int k = 0; k < 15; k++)
        max[8 + 4 * k] = (uint8_t)(k + 1);
    palev_scratch_init(&sc, stack, sizeof(stack));
    assert_string_equal(palev_scratch_sid(&sc, domain), "S-1-5-21-1-2-3");
    assert_string_equal(palev_scratch_sid(&sc, system), "S-1-5-18");
    assert_string_equal(palev_scratch_sid(&sc, no_sub), "S-1-1");
    assert_string_equal(palev_scratch_sid(&sc, big_sub), "S-1-5-4294967295-305419896");
    assert_string_equal(palev_scratch_sid(&sc, auth32), "S-1-4294967295");
    assert_string_equal(palev_scratch_sid(&sc, auth48), "S-1-0x01020A0B0C0D-7");
    assert_string_equal(palev_scratch_sid(&sc, max), "S-1-5-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15");
    assert_string_equal(palev_scratch_sid(&sc, bad_rev), "(invalid SID)");
    assert_string_equal(palev_scratch_sid(&sc, bad_count), "(invalid SID)");
    assert_string_equal(palev_scratch_sid(&sc, NULL), "");
    palev_scratch_fini(&sc);
}

/* ---- JSON arrays ------------------------------------------------------------------------ */

static char json_stack[PALEV_SCRATCH_STACK_SIZE];

static const char *json(palev_scratch *sc, uint8_t kind, size_t stride, size_t offset,
                        const void *base, size_t count)
{
    const palev_array_desc d = { .kind = kind, .stride = stride, .offset = offset,
                                 .len_const = PALEV_NUL_TERMINATED };

    return palev_scratch_json_array(sc, &d, base, count);
}

static void test_json_floats(void **state)
{
    const float f[] = { 1.5f, -2.25f, 0.1f, 0.0f, -0.0f, 1e30f, NAN, INFINITY, -INFINITY };
    const double d[] = { 1.5, -2.25, 0.1, 1e300, 5e-324, NAN, INFINITY, -INFINITY };
    palev_scratch sc;

    (void)state;
    palev_scratch_init(&sc, json_stack, sizeof(json_stack));
    assert_string_equal(json(&sc, PALEV_ELEM_FLOAT, sizeof(float), 0, f, 9),
                        "[1.5,-2.25,0.100000001,0,-0,1.00000002e+30,null,null,null]");
    assert_string_equal(json(&sc, PALEV_ELEM_DOUBLE, sizeof(double), 0, d, 8),
                        "[1.5,-2.25,0.10000000000000001,1.0000000000000001e+300,"
                        "4.9406564584124654e-324,null,null,null]");
    assert_string_equal(json(&sc, PALEV_ELEM_DOUBLE, sizeof(double), 0, d, 0), "[]");
    assert_string_equal(json(&sc, PALEV_ELEM_DOUBLE, sizeof(double), 0, NULL, 3), "[]");
    palev_scratch_fini(&sc);
}

/* Where a locale with a decimal comma is installed, the JSON must still use a point. */
static void test_json_floats_decimal_comma_locale(void **state)
{
    static const char *const locales[] = { "de_DE.UTF-8", "fr_FR.UTF-8", "de_DE", "fr_FR" };
    const double d[] = { 1.5, -2.25e-10 };
    palev_scratch sc;
    const char *got = NULL;

    (void)state;
    for (size_t i = 0; !got && i < sizeof(locales) / sizeof(locales[0]); i++)
        got = setlocale(LC_NUMERIC, locales[i]);
    if (!got)
        skip();
    palev_scratch_init(&sc, json_stack, sizeof(json_stack));
    got = json(&sc, PALEV_ELEM_DOUBLE, sizeof(double), 0, d, 2);
    setlocale(LC_NUMERIC, "C");
    assert_string_equal(got, "[1.5,-2.25e-10]");
    palev_scratch_fini(&sc);
}

/* Elements at odd offsets inside packed records: everything is read with memcpy. */
static void test_json_unaligned_inline(void **state)
{
    unsigned char rec[2 * 11] = { 0 };
    const float f[2] = { 3.25f, -1.0f };
    const double d = 0.5;
    palev_scratch sc;

    (void)state;
    memcpy(rec + 3, &f[0], sizeof(float));
    memcpy(rec + 11 + 3, &f[1], sizeof(float));
    palev_scratch_init(&sc, json_stack, sizeof(json_stack));
    assert_string_equal(json(&sc, PALEV_ELEM_FLOAT, 11, 3, rec, 2), "[3.25,-1]");
    memcpy(rec + 1, &d, sizeof(d));
    assert_string_equal(json(&sc, PALEV_ELEM_DOUBLE, 11, 1, rec, 1), "[0.5]");
    palev_scratch_fini(&sc);
}

static void test_json_utf16_strings(void **state)
{
    static const char16_t lone[] = { 'x', 0xD800, 0 };
    static const char16_t pair[] = { 0xD83D, 0xDE00, 0 };
    const char16_t *s[] = { u"a\"b", u"c\\d", u"\b\f\n\r\t\x01\x1f", u"\x7f\u00e9/", pair, lone,
                            NULL, u"" };
    palev_scratch sc;

    (void)state;
    palev_scratch_init(&sc, json_stack, sizeof(json_stack));
    assert_string_equal(json(&sc, PALEV_ELEM_UTF16, sizeof(s[0]), 0, s, 8),
                        "[\"a\\\"b\",\"c\\\\d\",\"\\b\\f\\n\\r\\t\\u0001\\u001f\","
                        "\"\x7f\xc3\xa9/\",\"\xf0\x9f\x98\x80\",\"x\xef\xbf\xbd\",\"\",\"\"]");
    palev_scratch_fini(&sc);
}

static void test_json_ansi_strings(void **state)
{
    /* Valid UTF-8; a stray byte; a cut sequence; an overlong '/'; an encoded surrogate; a
     * 5-byte-lead; a code point above U+10FFFF. Each invalid byte becomes one U+FFFD. */
    const char *s[] = { "q\"\\\n\x02", "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80", "a\xff" "b",
                        "\xe4\xb8", "\xc0\xaf", "\xed\xa0\x80", "\xf8\x88", "\xf4\x90\x80\x80",
                        NULL };
    palev_scratch sc;

    (void)state;
    palev_scratch_init(&sc, json_stack, sizeof(json_stack));
    assert_string_equal(json(&sc, PALEV_ELEM_ANSI, sizeof(s[0]), 0, s, 9),
                        "[\"q\\\"\\\\\\n\\u0002\","
                        "\"\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\","
                        "\"a\xef\xbf\xbd" "b\","
                        "\"\xef\xbf\xbd\xef\xbf\xbd\","
                        "\"\xef\xbf\xbd\xef\xbf\xbd\","
                        "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\","
                        "\"\xef\xbf\xbd\xef\xbf\xbd\","
                        "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\","
                        "\"\"]");
    palev_scratch_fini(&sc);
}

/* A record of 19 bytes: a pointer at offset 1, a length of len_size bytes at offset 9. */
enum { REC = 19, PTR_OFF = 1, LEN_OFF = 9 };

static void put_record(unsigned char *rec, const void *ptr, uint64_t len, size_t len_size)
{
    uint8_t u8 = (uint8_t)len;
    uint16_t u16 = (uint16_t)len;
    uint32_t u32 = (uint32_t)len;
    const void *src = len_size == 1 ? (const void *)&u8 : len_size == 2 ? (const void *)&u16
                      : len_size == 4 ? (const void *)&u32 : (const void *)&len;

    memset(rec, 0xEE, REC);
    memcpy(rec + PTR_OFF, &ptr, sizeof(ptr));
    memcpy(rec + LEN_OFF, src, len_size);
}

static void test_json_per_element_lengths(void **state)
{
    static const size_t sizes[] = { 1, 2, 4, 8 };
    static const char16_t wide[] = u"wide string";
    unsigned char recs[3 * REC];
    palev_scratch sc;

    (void)state;
    palev_scratch_init(&sc, json_stack, sizeof(json_stack));
    for (size_t k = 0; k < 4; k++) {
        palev_array_desc d = { .kind = PALEV_ELEM_ANSI, .len_size = (uint8_t)sizes[k],
                               .stride = REC, .offset = PTR_OFF, .len_offset = LEN_OFF };

        put_record(recs, "hello", 4, sizes[k]);
        put_record(recs + REC, "a\0b", 3, sizes[k]);
        put_record(recs + 2 * REC, NULL, 7, sizes[k]);
        assert_string_equal(palev_scratch_json_array(&sc, &d, recs, 3), "[\"hell\",\"a\",\"\"]");
        d.kind = PALEV_ELEM_UTF16;
        put_record(recs, wide, 4, sizes[k]);
        put_record(recs + REC, wide, 0, sizes[k]);
        assert_string_equal(palev_scratch_json_array(&sc, &d, recs, 2), "[\"wide\",\"\"]");
    }
    palev_scratch_fini(&sc);
}

static void test_json_constant_length(void **state)
{
    const char *s[] = { "abcdef", "xyz" };
    const palev_array_desc d = { .kind = PALEV_ELEM_ANSI, .stride = sizeof(s[0]),
                                 .len_const = 2 };
    palev_scratch sc;

    (void)state;
    palev_scratch_init(&sc, json_stack, sizeof(json_stack));
    assert_string_equal(palev_scratch_json_array(&sc, &d, s, 2), "[\"ab\",\"xy\"]");
    palev_scratch_fini(&sc);
}

static void test_json_binary(void **state)
{
    static const uint8_t bytes[] = { 0x0a, 0xff, 0x00, 0x7b };
    unsigned char recs[3 * REC];
    palev_array_desc d = { .kind = PALEV_ELEM_BINARY, .len_size = 2, .stride = REC,
                           .offset = PTR_OFF, .len_offset = LEN_OFF };
    palev_scratch sc;

    (void)state;
    put_record(recs, bytes, 4, 2);
    put_record(recs + REC, bytes, 0, 2);
    put_record(recs + 2 * REC, NULL, 4, 2);
    palev_scratch_init(&sc, json_stack, sizeof(json_stack));
    assert_string_equal(palev_scratch_json_array(&sc, &d, recs, 3), "[\"0aff007b\",\"\",\"\"]");
    d.len_size = 0;
    d.len_const = 2;
    assert_string_equal(palev_scratch_json_array(&sc, &d, recs, 1), "[\"0aff\"]");
    palev_scratch_fini(&sc);
}

static void test_json_guid_systemtime_sid(void **state)
{
    static const uint8_t sid[] = { 1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0 };
    static const uint8_t bad_sid[] = { 3, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0 };
    const palev_guid g = { 0xdeadbeef, 0x0102, 0xa0b0, { 1, 2, 3, 4, 5, 6, 7, 8 } };
    const palev_systemtime t = { 2001, 2, 0, 3, 4, 5, 6, 7 };
    const void *sids[] = { sid, bad_sid, NULL };
    unsigned char rec[1 + sizeof(palev_systemtime) + sizeof(palev_guid)];
    palev_scratch sc;

    (void)state;
    rec[0] = 0;
    memcpy(rec + 1, &g, sizeof(g));
    palev_scratch_init(&sc, json_stack, sizeof(json_stack));
    assert_string_equal(json(&sc, PALEV_ELEM_GUID, sizeof(rec), 1, rec, 1),
                        "[\"deadbeef-0102-a0b0-0102-030405060708\"]");
    memcpy(rec + 1, &t, sizeof(t));
    assert_string_equal(json(&sc, PALEV_ELEM_SYSTEMTIME, sizeof(rec), 1, rec, 1),
                        "[\"2001-02-03T04:05:06.007\"]");
    assert_string_equal(json(&sc, PALEV_ELEM_SID, sizeof(sids[0]), 0, sids, 3),
                        "[\"S-1-5-18\",\"(invalid SID)\",\"\"]");
    palev_scratch_fini(&sc);
}

static void test_json_bad_desc(void **state)
{
    const double d[] = { 1 };
    palev_scratch sc;

    (void)state;
    palev_scratch_init(&sc, json_stack, sizeof(json_stack));
    assert_string_equal(json(&sc, 0, sizeof(double), 0, d, 1), "[]");
    assert_string_equal(json(&sc, 99, sizeof(double), 0, d, 1), "[]");
    assert_string_equal(palev_scratch_json_array(&sc, NULL, d, 1), "[]");
    palev_scratch_fini(&sc);
}

/* 1000 doubles: about 4 times the stack block, built across heap growth. */
static void test_json_large_goes_to_heap(void **state)
{
    enum { N = 1000 };
    double *d = malloc(N * sizeof(double));
    char *want = malloc(N * 8 + 3), *w = want;
    char stack[256];
    palev_scratch sc;
    const char *got;

    (void)state;
    *w++ = '[';
    for (int i = 0; i < N; i++) {
        d[i] = i + 0.5;
        w += sprintf(w, "%s%d.5", i ? "," : "", i);
    }
    strcpy(w, "]");
    palev_scratch_init(&sc, stack, sizeof(stack));
    assert_string_equal(palev_scratch_ansi(&sc, "x", 1), "x");
    got = json(&sc, PALEV_ELEM_DOUBLE, sizeof(double), 0, d, N);
    assert_string_equal(got, want);
    assert_non_null(sc.heap);
    assert_int_equal(sc.truncated, 0);
    palev_scratch_fini(&sc);
    free(d);
    free(want);
}

/* Out of memory mid-array: cut after the last whole element, still closed. */
static void test_json_truncated_stays_valid(void **state)
{
    const char *s[] = { "aaaa", "bbbb", "cccc" };
    char stack[16];
    palev_scratch sc;

    (void)state;
    mallocs_left = 0;
    palev_scratch_init(&sc, stack, sizeof(stack));
    assert_string_equal(json(&sc, PALEV_ELEM_ANSI, sizeof(s[0]), 0, s, 3),
                        "[\"aaaa\",\"bbbb\"]");
    assert_int_equal(sc.truncated, 1);
    palev_scratch_fini(&sc);

    palev_scratch_init(&sc, stack, 2);
    assert_string_equal(json(&sc, PALEV_ELEM_ANSI, sizeof(s[0]), 0, s, 3), "[]");
    palev_scratch_fini(&sc);

    /* One heap block of 4096 bytes, then none: the 6001-byte text is cut but closed. */
    mallocs_left = 1;
    {
        enum { N = 3000 };
        double *d = calloc(N, sizeof(double));
        const char *got;
        size_t len;

        palev_scratch_init(&sc, stack, sizeof(stack));
        got = json(&sc, PALEV_ELEM_DOUBLE, sizeof(double), 0, d, N);
        len = strlen(got);
        assert_true(len > 1000 && len < 2 * N);
        assert_memory_equal(got, "[0,0,", 5);
        assert_memory_equal(got + len - 3, ",0]", 3);
        assert_int_equal(sc.truncated, 1);
        palev_scratch_fini(&sc);
        free(d);
    }
}

/* ---- gathering -------------------------------------------------------------------------- */

/* Packed records of 7 bytes: a tag byte, a uint32_t at offset 1, a uint16_t at offset 5. */
static void test_gather(void **state)
{
    unsigned char recs[3 * 7];
    const uint32_t b[3] = { 0x11223344, 5, 0xffffffff };
    const uint16_t c[3] = { 1, 0xbeef, 3 };
    uint32_t got_b[3];
    uint16_t got_c[3];
    char stack[128];
    palev_scratch sc;
    const void *p;

    (void)state;
    for (int i = 0; i < 3; i++) {
        recs[7 * i] = 0xAA;
        memcpy(recs + 7 * i + 1, &b[i], 4);
        memcpy(recs + 7 * i + 5, &c[i], 2);
    }
    palev_scratch_init(&sc, stack, sizeof(stack));
    palev_scratch_ansi(&sc, "x", 1);
    p = palev_scratch_gather(&sc, recs, 3, 7, 1, 4);
    assert_true(in_block(p, stack, sizeof(stack)));
    assert_int_equal((uintptr_t)p % 8, 0);
    memcpy(got_b, p, sizeof(got_b));
    assert_memory_equal(got_b, b, sizeof(b));
    p = palev_scratch_gather(&sc, recs, 3, 7, 5, 2);
    memcpy(got_c, p, sizeof(got_c));
    assert_memory_equal(got_c, c, sizeof(c));
    assert_null(palev_scratch_gather(&sc, recs, 0, 7, 1, 4));
    assert_null(palev_scratch_gather(&sc, NULL, 3, 7, 1, 4));
    /* Larger than the stack block: a heap block. */
    {
        static uint64_t big[1000];
        const uint64_t *g;

        for (int i = 0; i < 1000; i++)
            big[i] = (uint64_t)i * 0x100000001ull;
        g = palev_scratch_gather(&sc, big, 1000, 8, 0, 8);
        assert_false(in_block(g, stack, sizeof(stack)));
        assert_memory_equal(g, big, sizeof(big));
    }
    assert_int_equal(sc.truncated, 0);
    mallocs_left = 0;
    assert_null(palev_scratch_gather(&sc, recs, 100, 0, 1, 4));
    assert_int_equal(sc.truncated, 1);
    palev_scratch_fini(&sc);
}

/* Records of 21 bytes: a count of cnt_size bytes at offset 1, a pointer at offset 11. */
enum { NREC = 21, CNT_OFF = 1, NPTR_OFF = 11 };

static void put_nested(unsigned char *rec, const void *ptr, uint64_t cnt, size_t cnt_size)
{
    memset(rec, 0xEE, NREC);
    memcpy(rec + NPTR_OFF, &ptr, sizeof(ptr));
    for (size_t k = 0; k < cnt_size; k++)
        rec[CNT_OFF + k] = (unsigned char)(cnt >> (8 * k));
}

static void test_gather_nested(void **state)
{
    static const size_t sizes[] = { 1, 2, 4, 8 };
    static const uint16_t a[] = { 1, 2 }, c[] = { 3, 4, 5 };
    static const uint16_t want[] = { 1, 2, 3, 4, 5 };
    unsigned char recs[4 * NREC];
    char stack[256];
    palev_scratch sc;

    (void)state;
    palev_scratch_init(&sc, stack, sizeof(stack));
    for (size_t k = 0; k < 4; k++) {
        size_t total = 99;
        const void *p;

        put_nested(recs, a, 2, sizes[k]);
        put_nested(recs + NREC, a, 0, sizes[k]);
        put_nested(recs + 2 * NREC, NULL, 5, sizes[k]);   /* no array: counts as empty */
        put_nested(recs + 3 * NREC, c, 3, sizes[k]);
        p = palev_scratch_gather_nested(&sc, recs, 4, NREC, NPTR_OFF, CNT_OFF, sizes[k],
                                        sizeof(uint16_t), &total);
        assert_int_equal(total, 5);
        assert_memory_equal(p, want, sizeof(want));
        assert_int_equal((uintptr_t)p % 8, 0);
        total = 99;
        assert_null(palev_scratch_gather_nested(&sc, recs, 0, NREC, NPTR_OFF, CNT_OFF, sizes[k],
                                                sizeof(uint16_t), &total));
        assert_int_equal(total, 0);
        total = 99;
        assert_null(palev_scratch_gather_nested(&sc, recs + NREC, 2, NREC, NPTR_OFF, CNT_OFF,
                                                sizes[k], sizeof(uint16_t), &total));
        assert_int_equal(total, 0);
    }
    palev_scratch_fini(&sc);
}

/* Out of memory: as many elements as the rest of the current block holds. */
static void test_gather_nested_truncated(void **state)
{
    static const uint32_t a[] = { 10, 20, 30, 40, 50, 60 };
    unsigned char recs[NREC];
    _Alignas(8) char stack[16];
    palev_scratch sc;
    size_t total = 0;
    const uint32_t *p;

    (void)state;
    mallocs_left = 0;
    put_nested(recs, a, 6, 4);
    palev_scratch_init(&sc, stack, sizeof(stack));
    p = palev_scratch_gather_nested(&sc, recs, 1, NREC, NPTR_OFF, CNT_OFF, 4, sizeof(uint32_t),
                                    &total);
    assert_int_equal(total, 4);
    assert_memory_equal(p, a, 4 * sizeof(uint32_t));
    assert_int_equal(sc.truncated, 1);
    palev_scratch_fini(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_utf16_in_stack, setup),
        cmocka_unit_test_setup(test_utf16_long_goes_to_heap, setup),
        cmocka_unit_test_setup(test_many_strings_overflow, setup),
        cmocka_unit_test_setup(test_no_stack_block, setup),
        cmocka_unit_test_setup(test_utf16_truncated_when_heap_exhausted, setup),
        cmocka_unit_test_setup(test_ansi, setup),
        cmocka_unit_test_setup(test_ansi_truncated, setup),
        cmocka_unit_test_setup(test_guid, setup),
        cmocka_unit_test_setup(test_systemtime, setup),
        cmocka_unit_test_setup(test_sid, setup),
        cmocka_unit_test_setup(test_json_floats, setup),
        cmocka_unit_test_setup(test_json_floats_decimal_comma_locale, setup),
        cmocka_unit_test_setup(test_json_unaligned_inline, setup),
        cmocka_unit_test_setup(test_json_utf16_strings, setup),
        cmocka_unit_test_setup(test_json_ansi_strings, setup),
        cmocka_unit_test_setup(test_json_per_element_lengths, setup),
        cmocka_unit_test_setup(test_json_constant_length, setup),
        cmocka_unit_test_setup(test_json_binary, setup),
        cmocka_unit_test_setup(test_json_guid_systemtime_sid, setup),
        cmocka_unit_test_setup(test_json_bad_desc, setup),
        cmocka_unit_test_setup(test_json_large_goes_to_heap, setup),
        cmocka_unit_test_setup(test_json_truncated_stays_valid, setup),
        cmocka_unit_test_setup(test_gather, setup),
        cmocka_unit_test_setup(test_gather_nested, setup),
        cmocka_unit_test_setup(test_gather_nested_truncated, setup),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
