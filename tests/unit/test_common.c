/* SPDX-License-Identifier: MIT */
/* palev_common, the internal library generator/, pal/, trace/ and tools/ share: the one JSON
 * number rule against printf, JSON and babeltrace2 escapes, UTF-8 at its edges, the generic
 * table with any allocator, and the own provider's header against what palev-gen reads. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bttext.h"
#include "hash.h"
#include "json.h"
#include "map.h"
#include "model.h"
#include "pcm_own.h"
#include "utf.h"

static const char *json_number(double v, int digits)
{
    static char buf[PCM_JSON_NUMBER_MAX];
    size_t n = pcm_json_number(buf, v, digits);

    assert_int_equal(n, strlen(buf));
    return buf;
}

static void json_numbers_by_the_rule(void **state)
{
    (void)state;
    assert_string_equal(json_number(1.5, 17), "1.5");
    assert_string_equal(json_number(-42, 17), "-42");
    assert_string_equal(json_number(0.1, 17), "0.10000000000000001");
    assert_string_equal(json_number((float)0.1, 9), "0.100000001");
    assert_string_equal(json_number(123456789, 9), "123456789");
    assert_string_equal(json_number(1e9, 9), "1e+09");      /* integral, but %.9g has an exponent */
    assert_string_equal(json_number(9007199254740992.0, 17), "9007199254740992");
    assert_string_equal(json_number(1e17, 17), "1e+17");
    assert_string_equal(json_number(-0.0, 17), "-0");
    assert_string_equal(json_number(1e300, 17), "1.0000000000000001e+300");
    assert_string_equal(json_number(NAN, 17), "null");
    assert_string_equal(json_number(-INFINITY, 9), "null");
}

/* The integer path writes what "%.<digits>g" writes, for the precisions the project uses. */
static void json_integers_as_printf_writes_them(void **state)
{
    static const int digits[] = { PCM_JSON_FLOAT_DIGITS, PCM_JSON_DOUBLE_DIGITS };
    char want[64];

    (void)state;
    for (size_t d = 0; d < 2; d++) {
        for (double v = 1; v < 1e19; v *= 3) {
            double values[] = { v, -v, floor(v), -floor(v), floor(v) + 0.5 };

            for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
                snprintf(want, sizeof(want), "%.*g", digits[d], values[k]);
                assert_string_equal(json_number(values[k], digits[d]), want);
            }
        }
    }
}

static void json_escapes(void **state)
{
    static const struct { uint32_t cp; const char *out; } cases[] = {
        { '"', "\\\"" }, { '\\', "\\\\" }, { '\n', "\\n" }, { '\t', "\\t" }, { '\r', "\\r" },
        { '\b', "\\b" }, { '\f', "\\f" }, { 0x01, "\\u0001" }, { 0x1F, "\\u001f" }, { 0, "\\u0000" },
        { 'a', "" }, { '/', "" }, { 0x7F, "" }, { 0xE9, "" }, { 0x1F600, "" },
    };
    char out[PCM_JSON_ESCAPE_MAX];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = pcm_json_escape(cases[i].cp, out);

        assert_int_equal(n, strlen(cases[i].out));
        assert_memory_equal(out, cases[i].out, n);
    }
    assert_true(pcm_json_plain('a') && pcm_json_plain(0x7F) && pcm_json_plain(' '));
    assert_false(pcm_json_plain('"') || pcm_json_plain('\\') || pcm_json_plain('\n') ||
                 pcm_json_plain(0xC3));
}

static void utf8_sequences(void **state)
{
    static const struct { const char *s; size_t len; } cases[] = {
        { "a", 1 }, { "\xC3\xA9", 2 }, { "\xE2\x82\xAC", 3 }, { "\xF0\x9F\x98\x80", 4 },
        { "\xEF\xBF\xBD", 3 },                              /* a real U+FFFD */
        { "\xC0\x80", 0 }, { "\xE0\x9F\xBF", 0 },           /* overlong */
        { "\xED\xA0\x80", 0 },                              /* a surrogate */
        { "\xF4\x90\x80\x80", 0 }, { "\xF5\x80\x80\x80", 0 }, /* above U+10FFFF */
        { "\xE2\x82", 0 }, { "\x80", 0 }, { "\xFF", 0 },    /* cut short, stray, never UTF-8 */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_int_equal(pcm_utf8_len((const unsigned char *)cases[i].s), cases[i].len);
}

/* Every scalar value encodes to what the decoder reads back, in as many bytes as it says. */
static void utf8_round_trip(void **state)
{
    unsigned char buf[5] = { 0 };

    (void)state;
    for (uint32_t cp = 1; cp <= 0x10FFFF; cp++) {
        size_t n, i = 0;

        if (cp >= 0xD800 && cp < 0xE000)
            continue;
        n = pcm_utf8_encode(cp, (char *)buf);
        buf[n] = 0;
        assert_int_equal(pcm_utf8_next(buf, n, &i), cp);
        assert_int_equal(i, n);
        assert_int_equal(pcm_utf8_len(buf), n);
    }
}

static void utf16_with_surrogates(void **state)
{
    static const char16_t s[] = { 'a', 0xD83D, 0xDE00, 0xDC00, 0xD800, 'b', 0 };
    char out[32];

    (void)state;
    assert_int_equal(pcm_utf16_to_utf8(out, sizeof(out), s, PCM_NUL_TERMINATED), 12);
    assert_string_equal(out, "a\xF0\x9F\x98\x80\xEF\xBF\xBD\xEF\xBF\xBD" "b");
    /* Cut at a code point boundary, the size of the whole still returned. */
    assert_int_equal(pcm_utf16_to_utf8(out, 4, s, 6), 12);
    assert_string_equal(out, "a");
}

static void bt_text_forms(void **state)
{
    char real[32];

    (void)state;
    assert_string_equal(pcm_bt_string_escape('"'), "\\\"");
    assert_string_equal(pcm_bt_string_escape('\n'), "\\n");
    assert_null(pcm_bt_string_escape('?'));
    assert_null(pcm_bt_string_escape(0xC3));
    assert_string_equal(pcm_bt_label_escape('?'), "\\?");
    assert_string_equal(pcm_bt_label_escape('\\'), "\\\\");
    pcm_bt_real(real, sizeof(real), -7.25);
    assert_string_equal(real, "-7.25");
}

static void hashes(void **state)
{
    (void)state;
    assert_int_equal(pcm_fnv1a32("", 0), 0x811c9dc5u);
    assert_int_equal(pcm_fnv1a32("a", 1), 0xe40c292cu);
    assert_true(pcm_fnv1a64("a", 1) == 0xaf63dc4c8601ec8cull);
    assert_true(pcm_fnv1a64_str("a") == pcm_fnv1a64("a", 1));
    /* Lengths 0 to 16 of one buffer: every prefix hashes apart. */
    for (size_t a = 0; a <= 16; a++)
        for (size_t b = a + 1; b <= 16; b++)
            assert_true(pcm_hash_bytes(PCM_HASH_SEED, "0123456789abcdef", a) !=
                        pcm_hash_bytes(PCM_HASH_SEED, "0123456789abcdef", b));
}

/* ---- the generic table, its arrays from a counting allocator that can fail ---------------------- */

struct pool {
    size_t live, fail_after;
};

static void *pool_zalloc(void *ctx, size_t n)
{
    struct pool *p = ctx;

    if (p->fail_after == 0)
        return NULL;
    p->fail_after--;
    p->live++;
    return calloc(1, n);
}

static void pool_release(void *ctx, void *ptr)
{
    ((struct pool *)ctx)->live--;
    free(ptr);
}

static void *put(pcm_map *m, const pcm_map_alloc *a, uint64_t hash, const char *key, void *value)
{
    pcm_map_slot *s = pcm_map_reserve(m, a, hash, key, key ? strlen(key) : 0);

    if (!s)
        return NULL;
    if (!s->value)
        pcm_map_fill(m, s, hash, key, key ? strlen(key) : 0, value);
    return s->value;
}

static void map_keys_of_every_kind(void **state)
{
    struct pool pool = { 0, SIZE_MAX };
    const pcm_map_alloc a = { pool_zalloc, pool_release, &pool };
    static char names[1000][16];
    pcm_map m = { 0 };
    int x, y;

    (void)state;
    for (uintptr_t i = 0; i < 1000; i++) {
        snprintf(names[i], sizeof(names[i]), "name %lu", (unsigned long)i);
        /* One hash for all: only the comparison of the keys tells them apart. */
        assert_ptr_equal(put(&m, &a, 7, names[i], &names[i]), &names[i]);
        assert_ptr_equal(put(&m, &a, i << 12, NULL, &names[i][1]), &names[i][1]);
    }
    assert_int_equal(m.len, 2000);
    assert_int_equal(pool.live, 1);     /* every array left behind by growth released */
    assert_true(m.cap >= 2 * m.len);
    for (uintptr_t i = 0; i < 1000; i++) {
        assert_ptr_equal(pcm_map_get(&m, 7, names[i], strlen(names[i])), &names[i]);
        assert_ptr_equal(pcm_map_get(&m, i << 12, NULL, 0), &names[i][1]);
    }
    assert_null(pcm_map_get(&m, 7, "name", 4));
    assert_null(pcm_map_get(&m, 7, NULL, 0));   /* an integer key 7 is not the strings' hash */
    /* Out of memory: NULL, the map as it was; a key already there needs no room. */
    pool.fail_after = 0;
    while ((m.len + 1) * 2 <= m.cap)
        assert_non_null(put(&m, &a, 99 + m.len, NULL, &x));
    assert_null(put(&m, &a, 1u << 30, NULL, &y));
    assert_ptr_equal(put(&m, &a, 7, names[3], &y), &names[3]);
    assert_null(pcm_map_get(&m, 1u << 30, NULL, 0));
    pcm_map_clear(&m, &a);
    assert_int_equal(pool.live, 0);
    assert_int_equal(m.cap, 0);
}

/* ---- the own provider: the generated header says what palev-gen reads in the manifest ---------- */

static void own_provider_from_its_manifest(void **state)
{
    static const uint8_t d4[8] = PCM_OWN_GUID_D4;
    pg_ctx cx;
    pg_manifest *m;
    const pg_provider *p;

    (void)state;
    pg_ctx_init(&cx);
    m = pg_parse_file(&cx, PALEV_TEST_SOURCE_DIR "/" PCM_OWN_MANIFEST);
    assert_non_null(m);
    assert_int_equal(pg_check(&cx, m, NULL), 0);
    assert_int_equal(m->providers.len, 1);
    p = m->providers.items[0];
    assert_string_equal(p->name, PCM_OWN_PROVIDER);
    assert_string_equal(p->lttng_name, PCM_OWN_PROVIDER);
    assert_true(p->guid_ok);
    assert_int_equal(p->guid_d1, PCM_OWN_GUID_D1);
    assert_int_equal(p->guid_d2, PCM_OWN_GUID_D2);
    assert_int_equal(p->guid_d3, PCM_OWN_GUID_D3);
    assert_memory_equal(p->guid_d4, d4, 8);
    assert_string_equal(PCM_OWN_EVENT("Stack"), "Paleventing:Stack");
    pg_ctx_fini(&cx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_numbers_by_the_rule),
        cmocka_unit_test(json_integers_as_printf_writes_them),
        cmocka_unit_test(json_escapes),
        cmocka_unit_test(utf8_sequences),
        cmocka_unit_test(utf8_round_trip),
        cmocka_unit_test(utf16_with_surrogates),
        cmocka_unit_test(bt_text_forms),
        cmocka_unit_test(hashes),
        cmocka_unit_test(map_keys_of_every_kind),
        cmocka_unit_test(own_provider_from_its_manifest),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
