/* SPDX-License-Identifier: MIT */
/* Unit tests of EventSource (eventsource.c, json.c, filter.c), without an LTTng session. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "internal.h"
#include "Paleventing-events.h"

/* The emit function of the generated stub is replaced (ld --wrap) by this recorder, and the
 * tests flip the tracepoint state themselves: the whole path down to the stub runs as in a
 * traced process, and what would reach LTTng is captured here. */
#define MAX_RECORDED 8

static struct recorded {
    int32_t id;
    char name[64], source[64];
    char *payload;
} recorded[MAX_RECORDED];
static size_t recorded_count;

void __wrap_palev_emit_Paleventing_EventSource(int32_t id, const char *name, const char *source,
                                               const char *payload);
void __wrap_palev_emit_Paleventing_EventSource(int32_t id, const char *name, const char *source,
                                               const char *payload)
{
    struct recorded *r = &recorded[recorded_count++ % MAX_RECORDED];

    r->id = id;
    snprintf(r->name, sizeof(r->name), "%s", name);
    snprintf(r->source, sizeof(r->source), "%s", source);
    free(r->payload);
    r->payload = strdup(payload);
}

/* The process filters, set before the library first reads the environment (see main). */
#define SOURCE_FILTER "Palev.Test, other"
#define NAME_FILTER ",,"

static void listening(int on)
{
    lttng_ust_tracepoint_Paleventing___EventSource.state = on;
}

static int reset(void **state)
{
    (void)state;
    for (size_t i = 0; i < MAX_RECORDED; i++) {
        free(recorded[i].payload);
        recorded[i] = (struct recorded){ 0 };
    }
    recorded_count = 0;
    listening(0);
    return 0;
}

/* Exactly one event was recorded, with these values. */
static void assert_recorded(int32_t id, const char *source, const char *name, const char *payload)
{
    assert_int_equal(recorded_count, 1);
    assert_int_equal(recorded[0].id, id);
    assert_string_equal(recorded[0].source, source);
    assert_string_equal(recorded[0].name, name);
    assert_string_equal(recorded[0].payload, payload);
}

/* ---- filters ---------------------------------------------------------------------------- */

/* `want` is the entries joined with '|'. */
static void check_parse(const char *value, size_t count, const char *want)
{
    struct palev__filter f;
    char joined[256] = "";

    assert_int_equal(palev__filter_parse(&f, value), 0);
    assert_int_equal(f.count, count);
    for (size_t i = 0; i < f.count; i++)
        snprintf(joined + strlen(joined), sizeof(joined) - strlen(joined), "%s%s", i ? "|" : "",
                 f.needle[i]);
    assert_string_equal(joined, want);
    palev__filter_free(&f);
    assert_int_equal(f.count, 0);
    assert_null(f.needle);
}

static void test_filter_parse(void **state)
{
    (void)state;
    check_parse(NULL, 0, "");
    check_parse("", 0, "");
    check_parse(",,,", 0, "");
    check_parse(" , \t ,", 0, "");
    check_parse("Runtime", 1, "runtime");
    check_parse("MyCompany-App,System.Threading", 2, "mycompany-app|system.threading");
    check_parse(",a,,B,", 2, "a|b");
    check_parse("  Foo , Bar Baz\t,", 2, "foo|bar baz");
    check_parse("\xc3\x89T\xc3\x89", 1, "\xc3\x89t\xc3\x89");    /* ASCII folding only */
}

/* `f` parsed from `value` must give `want` for `s`. */
static void check_match(const char *value, const char *s, int want)
{
    struct palev__filter f;

    assert_int_equal(palev__filter_parse(&f, value), 0);
    if (palev__filter_match(&f, s) != want)
        fail_msg("filter \"%s\" on \"%s\": got %d, want %d", value ? value : "(unset)", s, !want,
                 want);
    palev__filter_free(&f);
}

static void test_filter_match(void **state)
{
    (void)state;
    check_match(NULL, "Anything", 1);
    check_match(NULL, "", 1);
    check_match("", "Anything", 1);
    check_match(",,", "Anything", 1);
    check_match("task", "System.Threading.Tasks", 1);
    check_match("TASK", "system.threading.tasks", 1);
    check_match("tAsKs", "System.Threading.TASKS", 1);
    check_match("threading.tasks", "System.Threading.Tasks", 1);
    check_match("System", "System", 1);
    check_match("Systems", "System", 0);
    check_match("gc", "System.Threading.Tasks", 0);
    check_match("gc, task", "System.Threading.Tasks", 1);
    check_match("task,gc", "Microsoft-GC", 1);
    check_match("task,gc", "Other", 0);
    check_match("a,,b", "zzz", 0);
    check_match("x", "", 0);
    check_match("aab", "aaab", 1);      /* a partial match must not skip the real one */
    check_match("\xc3\xa9", "caf\xc3\xa9", 1);
    check_match("\xc3\xa9", "CAF\xc3\x89", 0);  /* non-ASCII compared exactly */
}

static void *failing_malloc(size_t size)
{
    (void)size;
    return NULL;
}

static void test_filter_out_of_memory(void **state)
{
    void *(*saved)(size_t) = palev__malloc;
    struct palev__filter f;

    (void)state;
    palev__malloc = failing_malloc;
    assert_int_equal(palev__filter_parse(&f, "a,b"), -ENOMEM);
    palev__malloc = saved;
    assert_int_equal(f.count, 0);
    assert_int_equal(palev__filter_match(&f, "x"), 1);
    palev__filter_free(&f);
}

/* ---- the JSON validator ----------------------------------------------------------------- */

static const char *const valid_json[] = {
    "{}", "[]", "0", "-0", "1", "-1", "1.5", "-0.25", "1e5", "1E5", "1e+5", "1e-5", "-1.5E-300",
    "123456789012345678901234567890", "1.7976931348623157e309", "0.000000000000000000001",
    "true", "false", "null", "\"\"", "\"a\"",
    "{\"a\":1}", "{\"a\":{\"b\":[1,2,{\"c\":null}]}}", "[1,\"two\",3.5,true,false,null,[],{}]",
    "{\"\":0}", "{\"a\":1,\"a\":2}",
    " \t\r\n{ \"a\" : [ 1 , 2 ] }\n ",
    "\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"", "\"\\u0000\"", "\"\\u00e9\\u00E9\"",
    "\"\\ud83d\\ude00\"", "\"\\uD83D\\uDE00\"", "\"\\uffff\"",
    "\"\xc3\xa9\"", "\"\xe6\x97\xa5\"", "\"\xf0\x9f\x98\x80\"", "\"\xef\xbf\xbd\"",
    "\"\xf4\x8f\xbf\xbf\"", "\"\x7f\"", "\"\xed\x9f\xbf\"", "\"\xee\x80\x80\"",
};

static const char *const invalid_json[] = {
    "", " ", "{", "}", "[", "]", "{]", "[}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]", "[,1]",
    "[1 2]", "{\"a\":1 \"b\":2}", "{1:2}", "{a:1}", "{'a':1}", "{} {}", "[] x", "1 2",
    "01", "-01", "1.", ".5", "+1", "-", "1e", "1e+", "1.e5", "0x10", "NaN", "Infinity",
    "-Infinity", "1.5.5", "--1", "tru", "nul", "True", "NULL", "truee", "nulls",
    "\"abc", "\"\\x\"", "\"\\U0041\"", "\"\\u12G4\"", "\"\\u123\"", "\"\\\"",
    "\"\\ud83d\"", "\"\\ude00\"", "\"\\ud83dx\"", "\"\\ud83d\\u0041\"", "\"\\ud83d\\ud83d\"",
    "\"tab\there\"", "\"new\nline\"", "\"\x01\"", "\"\x1f\"",
    "\"\xff\"", "\"\x80\"", "\"\xc0\x80\"", "\"\xc1\xbf\"", "\"\xe0\x80\xaf\"",
    "\"\xed\xa0\x80\"", "\"\xed\xbf\xbf\"", "\"\xf4\x90\x80\x80\"", "\"\xf5\x80\x80\x80\"",
    "\"\xe2\x82\"", "\"\xf0\x9f\x98\"", "\"\xc3\"", "\xef\xbb\xbf{}",
    "[1,\x0b2]", "[1,\x0c2]", "[\xc2\xa0]", "{\"a\":1}\x01",
};

static int check(const char *text, struct palev__json_info *info)
{
    return palev__json_check(text, strlen(text), info);
}

static void test_json_valid(void **state)
{
    struct palev__json_info info;

    (void)state;
    for (size_t i = 0; i < sizeof(valid_json) / sizeof(valid_json[0]); i++)
        if (check(valid_json[i], &info) != 0)
            fail_msg("valid JSON refused: '%s' (at byte %zu)", valid_json[i], info.error_at);
}

static void test_json_invalid(void **state)
{
    struct palev__json_info info;

    (void)state;
    for (size_t i = 0; i < sizeof(invalid_json) / sizeof(invalid_json[0]); i++)
        if (check(invalid_json[i], &info) != -EINVAL)
            fail_msg("invalid JSON accepted: '%s'", invalid_json[i]);
}

/* The length is what counts, not a NUL: an embedded NUL is a control character. */
static void test_json_length(void **state)
{
    struct palev__json_info info;

    (void)state;
    assert_int_equal(palev__json_check("[1]junk", 3, &info), 0);
    assert_int_equal(palev__json_check("[1]", 2, &info), -EINVAL);
    assert_int_equal(palev__json_check("\"a\0b\"", 5, &info), -EINVAL);
    assert_int_equal(palev__json_check("[1]\0", 4, &info), -EINVAL);
}

static void test_json_error_position(void **state)
{
    struct palev__json_info info;

    (void)state;
    assert_int_equal(check("{\"a\":}", &info), -EINVAL);
    assert_int_equal(info.error_at, 5);
    assert_int_equal(check("[1,2,x]", &info), -EINVAL);
    assert_int_equal(info.error_at, 5);
    assert_int_equal(check("[1", &info), -EINVAL);
    assert_int_equal(info.error_at, 2);
}

/* `depth` arrays around `inner`. */
static char *nested(size_t depth, const char *inner)
{
    size_t len = strlen(inner);
    char *s = malloc(2 * depth + len + 1);

    assert_non_null(s);
    memset(s, '[', depth);
    memcpy(s + depth, inner, len);
    memset(s + depth + len, ']', depth);
    s[2 * depth + len] = '\0';
    return s;
}

static void test_json_depth(void **state)
{
    struct palev__json_info info;
    char *ok = nested(PALEV__JSON_MAX_DEPTH, "1"), *deep = nested(PALEV__JSON_MAX_DEPTH + 1, "");
    char *huge = nested(1000000, "{\"a\":[]}");
    char objects[] = "{\"a\":{\"b\":{\"c\":[{\"d\":[]},{}]}}}";

    (void)state;
    assert_int_equal(check(ok, &info), 0);
    assert_int_equal(check(deep, &info), -EINVAL);
    assert_int_equal(info.error_at, PALEV__JSON_MAX_DEPTH);
    assert_int_equal(check(huge, &info), -EINVAL);      /* refused, not a stack overflow */
    assert_int_equal(check(objects, &info), 0);
    objects[strlen(objects) - 2] = ']';                  /* mismatched closer */
    assert_int_equal(check(objects, &info), -EINVAL);
    free(ok);
    free(deep);
    free(huge);
}

static void check_compact(const char *text, size_t ws, const char *want)
{
    struct palev__json_info info;
    char out[256];

    assert_int_equal(check(text, &info), 0);
    assert_int_equal(info.ws, ws);
    assert_int_equal(palev__json_compact(out, text, strlen(text)), strlen(want));
    assert_string_equal(out, want);
}

static void test_json_compact(void **state)
{
    (void)state;
    check_compact("{\"a\":1}", 0, "{\"a\":1}");
    check_compact(" { \"a\" : [ 1 , 2 ] }\n", 10, "{\"a\":[1,2]}");
    check_compact("{ \"a b\" : \"x , y \\\" } \" }", 4, "{\"a b\":\"x , y \\\" } \"}");
    check_compact("[ \"\\\\\" , \"\\\\\\\"\" ]", 4, "[\"\\\\\",\"\\\\\\\"\"]");
    check_compact("\t\r\n\"  \"\t\r\n", 6, "\"  \"");
}

/* ---- the API ---------------------------------------------------------------------------- */

static void test_nobody_listening(void **state)
{
    json_t *v = json_object();

    (void)state;
    assert_int_equal(palev_eventsource_is_enabled("Palev.Test", "E"), 0);
    /* Nothing is looked at: even invalid input returns 0 when it would not be recorded. */
    assert_int_equal(palev_eventsource_write("Palev.Test", 1, "E", "{\"a\":1}"), 0);
    assert_int_equal(palev_eventsource_write("Palev.Test", 1, "E", "not json"), 0);
    assert_int_equal(palev_eventsource_write_json("Palev.Test", 1, "E", v), 0);
    assert_int_equal(palev_eventsource_write_pack("Palev.Test", 1, "E", "{s:i}", "a", 1), 0);
    assert_int_equal(palev_eventsource_write_pack("Palev.Test", 1, "E", "{s:", "a"), 0);
    assert_int_equal(recorded_count, 0);
    json_decref(v);
}

/* Through the header's inline checks, a NULL source or name is only looked at when somebody
 * listens; the functions called directly refuse it always. */
static void test_null_source_or_name(void **state)
{
    (void)state;
    for (int on = 0; on <= 1; on++) {
        int rc = on ? -EINVAL : 0;

        listening(on);
        assert_int_equal(palev_eventsource_write(NULL, 1, "E", "{}"), rc);
        assert_int_equal(palev_eventsource_write("Palev.Test", 1, NULL, "{}"), rc);
        assert_int_equal(palev_eventsource_write_json(NULL, 1, "E", NULL), rc);
        assert_int_equal(palev_eventsource_write_json("Palev.Test", 1, NULL, NULL), rc);
        assert_int_equal(palev_eventsource_write_pack(NULL, 1, "E", "{}"), rc);
        assert_int_equal(palev_eventsource_write_pack("Palev.Test", 1, NULL, "{}"), rc);
        assert_int_equal((palev_eventsource_write)(NULL, 1, "E", "{}"), -EINVAL);
        assert_int_equal((palev_eventsource_write)("Palev.Test", 1, NULL, "{}"), -EINVAL);
        assert_int_equal((palev_eventsource_write_json)(NULL, 1, "E", NULL), -EINVAL);
        assert_int_equal((palev_eventsource_write_json)("Palev.Test", 1, NULL, NULL), -EINVAL);
        assert_int_equal((palev_eventsource_write_pack)(NULL, 1, "E", "{}"), -EINVAL);
        assert_int_equal((palev_eventsource_write_pack)("Palev.Test", 1, NULL, "{}"), -EINVAL);
        assert_int_equal(palev_eventsource_is_enabled(NULL, "E"), 0);
        assert_int_equal(palev_eventsource_is_enabled("Palev.Test", NULL), 0);
    }
    assert_int_equal(recorded_count, 0);
}

/* SOURCE_FILTER lets "Palev.Test" and "Other..." through, in any case; NAME_FILTER is empty. */
static void test_filters_applied(void **state)
{
    (void)state;
    listening(1);
    assert_int_equal(palev_eventsource_is_enabled("Palev.Test", "E"), 1);
    assert_int_equal(palev_eventsource_is_enabled("my.PALEV.TEST.x", "E"), 1);
    assert_int_equal(palev_eventsource_is_enabled("AnOtherOne", ""), 1);
    assert_int_equal(palev_eventsource_is_enabled("Palev", "E"), 0);
    assert_int_equal(palev_eventsource_write("Palev", 1, "E", "{}"), 0);
    assert_int_equal(palev_eventsource_write("Palev", 1, "E", "not json"), 0);
    assert_int_equal(palev_eventsource_write_pack("Palev", 1, "E", "{s:"), 0);
    assert_int_equal(palev_eventsource_write_json("Palev", 1, "E", NULL), 0);
    assert_int_equal(recorded_count, 0);
    assert_int_equal(palev_eventsource_write("OTHER", 7, "Named", "[1]"), 0);
    assert_recorded(7, "OTHER", "Named", "[1]");
}

/* The verdict cache: a literal pair is answered from the cache, again and again; a heap buffer
 * reused for another source gets that source's verdict (it is never cached by pointer). */
static void test_filter_verdict_cache(void **state)
{
    char *buf = malloc(32);

    (void)state;
    listening(1);
    for (int round = 0; round < 3; round++) {
        assert_int_equal(palev_eventsource_is_enabled("Palev", "E"), 0);
        assert_int_equal(palev_eventsource_write("Palev", 1, "E", "{}"), 0);
        assert_int_equal(palev_eventsource_is_enabled("Palev.Test", "E"), 1);
        strcpy(buf, "Palev.Test");
        assert_int_equal(palev_eventsource_is_enabled(buf, "E"), 1);
        strcpy(buf, "Palev");
        assert_int_equal(palev_eventsource_is_enabled(buf, "E"), 0);
        assert_int_equal(palev_eventsource_write(buf, 1, "E", "{}"), 0);
        strcpy(buf, "other.x");
        assert_int_equal(palev_eventsource_is_enabled(buf, "E"), 1);
    }
    assert_int_equal(recorded_count, 0);
    assert_int_equal(palev_eventsource_write(buf, 3, "E", "{}"), 0);
    assert_recorded(3, "other.x", "E", "{}");
    free(buf);
}

/* Valid compact text is recorded exactly as given. */
static void test_write(void **state)
{
    static const char text[] = "{\"q\":\"a\\\"b\\\\c\\n\\u0001\",\"\xc3\xa9\":[1.5e300]}";

    (void)state;
    listening(1);
    assert_int_equal(palev_eventsource_write("Palev.Test", -5, "Text", text), 0);
    assert_recorded(-5, "Palev.Test", "Text", text);
}

static void test_write_compacts(void **state)
{
    (void)state;
    listening(1);
    assert_int_equal(palev_eventsource_write("Palev.Test", 2, "Text",
                                             " { \"a b\" : [ 1 ,\n 2 ] } "), 0);
    assert_recorded(2, "Palev.Test", "Text", "{\"a b\":[1,2]}");
}

/* Beyond the stack buffer the compacted copy is on the heap. */
static void test_write_compacts_big(void **state)
{
    size_t n = 3 * PALEV_SCRATCH_STACK_SIZE;
    char *text = malloc(n + 16);

    (void)state;
    listening(1);
    assert_non_null(text);
    strcpy(text, "[ \"");
    memset(text + 3, 'x', n);
    strcpy(text + 3 + n, "\" ]");
    assert_int_equal(palev_eventsource_write("Palev.Test", 3, "Big", text), 0);
    assert_int_equal(recorded_count, 1);
    assert_int_equal(strlen(recorded[0].payload), n + 4);
    assert_memory_equal(recorded[0].payload, "[\"xxx", 5);
    assert_string_equal(recorded[0].payload + n + 2, "\"]");
    free(text);
}

static void test_write_compact_out_of_memory(void **state)
{
    void *(*saved)(size_t) = palev__malloc;
    size_t n = 2 * PALEV_SCRATCH_STACK_SIZE;
    char *text = malloc(n + 16);

    (void)state;
    listening(1);
    assert_non_null(text);
    strcpy(text, "[ \"");
    memset(text + 3, 'x', n);
    strcpy(text + 3 + n, "\" ]");
    palev__malloc = failing_malloc;
    assert_int_equal(palev_eventsource_write("Palev.Test", 3, "Big", text), -ENOMEM);
    palev__malloc = saved;
    assert_int_equal(recorded_count, 0);
    free(text);
}

static void test_write_invalid(void **state)
{
    (void)state;
    listening(1);
    assert_int_equal(palev_eventsource_write("Palev.Test", 1, "E", "{\"a\":}"), -EINVAL);
    assert_int_equal(palev_eventsource_write("Palev.Test", 1, "E", "\"\xc3\x28\""), -EINVAL);
    assert_int_equal(palev_eventsource_write("Palev.Test", 1, "E", "\"a\x01\""), -EINVAL);
    assert_int_equal(palev_eventsource_write("Palev.Test", 1, "E", ""), -EINVAL);
    assert_int_equal(recorded_count, 0);
    assert_int_equal(palev_eventsource_write("Palev.Test", 1, "E", NULL), 0);
    assert_recorded(1, "Palev.Test", "E", "{}");
}

static void test_write_json(void **state)
{
    json_t *v = json_pack("{s:s, s:[i, f, b, n], s:{}}",
                          "s", "q\"b\\s/\n\t\x01\x7f \xc3\xa9\xf0\x9f\x98\x80",
                          "a", -1, 0.5, 1, "o");

    (void)state;
    listening(1);
    assert_non_null(v);
    assert_int_equal(palev_eventsource_write_json("Palev.Test", 9, "Json", v), 0);
    assert_recorded(9, "Palev.Test", "Json",
                    "{\"s\":\"q\\\"b\\\\s/\\n\\t\\u0001\x7f \xc3\xa9\xf0\x9f\x98\x80\","
                    "\"a\":[-1,0.5,true,null],\"o\":{}}");
    json_decref(v);
}

static void test_write_json_null_and_scalars(void **state)
{
    json_t *v = json_integer(INT64_MIN);

    (void)state;
    listening(1);
    assert_int_equal(palev_eventsource_write_json("Palev.Test", 1, "E", NULL), 0);
    assert_recorded(1, "Palev.Test", "E", "{}");
    reset(NULL);
    listening(1);
    assert_int_equal(palev_eventsource_write_json("Palev.Test", 1, "E", v), 0);
    assert_recorded(1, "Palev.Test", "E", "-9223372036854775808");
    json_decref(v);
}

/* A string jansson never checked (json_string_nocheck) that is not UTF-8: jansson will not
 * serialise it, so nothing invalid is recorded. */
static void test_write_json_unserialisable(void **state)
{
    json_t *v = json_pack("[o]", json_string_nocheck("\xff"));
    json_t *a = json_array(), *b = json_array();

    (void)state;
    listening(1);
    assert_int_equal(palev_eventsource_write_json("Palev.Test", 1, "E", v), -EINVAL);
    /* a cycle: a holds b, which holds a */
    assert_int_equal(json_array_append(a, b), 0);
    assert_int_equal(json_array_append(b, a), 0);
    assert_int_equal(palev_eventsource_write_json("Palev.Test", 1, "E", a), -EINVAL);
    json_array_clear(b);
    json_decref(a);
    json_decref(b);
    assert_int_equal(recorded_count, 0);
    json_decref(v);
}

static void test_write_pack(void **state)
{
    (void)state;
    listening(1);
    assert_int_equal(palev_eventsource_write_pack("Palev.Test", 4, "Pack", "{s:s, s:I, s:[s#, O]}",
                                                  "k", "\"\\\b\x1f", "big", (json_int_t)INT64_MAX,
                                                  "arr", "abcdef", 2, json_null()),
                     0);
    assert_recorded(4, "Palev.Test", "Pack",
                    "{\"k\":\"\\\"\\\\\\b\\u001F\",\"big\":9223372036854775807,"
                    "\"arr\":[\"ab\",null]}");
}

static void test_write_pack_errors(void **state)
{
    (void)state;
    listening(1);
    assert_int_equal(palev_eventsource_write_pack("Palev.Test", 1, "E", "{s:s}", "k", "\xc3\x28"),
                     -EINVAL);
    assert_int_equal(palev_eventsource_write_pack("Palev.Test", 1, "E", "{s:s}", "k", NULL),
                     -EINVAL);
    assert_int_equal(palev_eventsource_write_pack("Palev.Test", 1, "E", "{s:f}", "k", NAN),
                     -EINVAL);
    assert_int_equal(palev_eventsource_write_pack("Palev.Test", 1, "E", "{s:f}", "k", INFINITY),
                     -EINVAL);
    assert_int_equal(palev_eventsource_write_pack("Palev.Test", 1, "E", "{s:i", "k", 1), -EINVAL);
    assert_int_equal(palev_eventsource_write_pack("Palev.Test", 1, "E", "{s:x}", "k", 1), -EINVAL);
    assert_int_equal(palev_eventsource_write_pack("Palev.Test", 1, "E", "", 1), -EINVAL);
    assert_int_equal(palev_eventsource_write_pack("Palev.Test", 1, "E", NULL), -EINVAL);
    assert_int_equal(recorded_count, 0);
}

/* The filters are read once, before main() runs (a constructor registers the provider), so the
 * test process re-executes itself with them in its environment. */
static void ensure_environment(char **argv)
{
    const char *s = getenv("PALEV_EVENTSOURCE_FILTER"), *n = getenv("PALEV_EVENTNAME_FILTER");
    char exe[4096];
    ssize_t len;

    if (s && strcmp(s, SOURCE_FILTER) == 0 && n && strcmp(n, NAME_FILTER) == 0)
        return;
    setenv("PALEV_EVENTSOURCE_FILTER", SOURCE_FILTER, 1);
    setenv("PALEV_EVENTNAME_FILTER", NAME_FILTER, 1);
    /* readlink, not exec of /proc/self/exe itself: under valgrind that would be valgrind. */
    len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (len > 0) {
        exe[len] = '\0';
        execv(exe, argv);
    }
    perror("cannot re-execute the test");
    exit(1);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_parse),
        cmocka_unit_test(test_filter_match),
        cmocka_unit_test(test_filter_out_of_memory),
        cmocka_unit_test(test_json_valid),
        cmocka_unit_test(test_json_invalid),
        cmocka_unit_test(test_json_length),
        cmocka_unit_test(test_json_error_position),
        cmocka_unit_test(test_json_depth),
        cmocka_unit_test(test_json_compact),
        cmocka_unit_test_setup_teardown(test_nobody_listening, reset, reset),
        cmocka_unit_test_setup_teardown(test_null_source_or_name, reset, reset),
        cmocka_unit_test_setup_teardown(test_filters_applied, reset, reset),
        cmocka_unit_test_setup_teardown(test_filter_verdict_cache, reset, reset),
        cmocka_unit_test_setup_teardown(test_write, reset, reset),
        cmocka_unit_test_setup_teardown(test_write_compacts, reset, reset),
        cmocka_unit_test_setup_teardown(test_write_compacts_big, reset, reset),
        cmocka_unit_test_setup_teardown(test_write_compact_out_of_memory, reset, reset),
        cmocka_unit_test_setup_teardown(test_write_invalid, reset, reset),
        cmocka_unit_test_setup_teardown(test_write_json, reset, reset),
        cmocka_unit_test_setup_teardown(test_write_json_null_and_scalars, reset, reset),
        cmocka_unit_test_setup_teardown(test_write_json_unserialisable, reset, reset),
        cmocka_unit_test_setup_teardown(test_write_pack, reset, reset),
        cmocka_unit_test_setup_teardown(test_write_pack_errors, reset, reset),
    };

    (void)argc;
    ensure_environment(argv);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
