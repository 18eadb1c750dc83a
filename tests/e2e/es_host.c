/* SPDX-License-Identifier: MIT */
/* EventSource host for eventsource.sh: fires known events, prints what must be read back. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "paleventing.h"

/* Modes:
 *   record on|off   fire every case; "on": a session listens (check return codes, print on
 *                   stdout the line es_read.py must read back for each recorded event);
 *                   "off": nobody listens (everything returns 0, nothing printed)
 *   big             two 1 MiB payloads and a small one after them, lines printed as for record
 *   filter          fire SOURCE x NAME pairs, print "is_enabled SOURCE NAME N" for each
 *   toggle          print "enabled=N" for every line read on stdin, until EOF
 *   bench [N]       ns per call with nobody listening (best of 50 rounds of N calls)
 * Exit status 0, or 1 after a message on stderr when a return code was not the expected one. */

#define SOURCE "Palev.Test"
#define BIG_SIZE (1024 * 1024)

static int failures;

static void expect_rc(const char *what, int got, int want)
{
    if (got != want) {
        fprintf(stderr, "FAIL: %s returned %d, expected %d\n", what, got, want);
        failures++;
    }
}

/* One line per recorded event, as es_read.py prints it. */
static void print_recorded(int32_t id, const char *name, const char *payload)
{
    printf("%" PRId32 "\t%s\t%s\t%s\n", id, SOURCE, name, payload);
}

/* ---- the cases -------------------------------------------------------------------------- */

typedef int fire_fn(int32_t id, const char *name, const void *arg);

static int fire_text(int32_t id, const char *name, const void *arg)
{
    return palev_eventsource_write(SOURCE, id, name, arg);
}

static int fire_json_null(int32_t id, const char *name, const void *arg)
{
    (void)arg;
    return palev_eventsource_write_json(SOURCE, id, name, NULL);
}

/* Insertion order is kept by jansson, so the expected text is fixed. */
static int fire_json_rich(int32_t id, const char *name, const void *arg)
{
    json_t *o = json_object();
    int ret;

    (void)arg;
    json_object_set_new(o, "q", json_string("say \"hi\" \\ / \n\t\x01\x1f\x7f"));
    json_object_set_new(o, "text", json_string("\xc3\xa9t\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac "
                                               "\xf0\x9f\x98\x80"));
    json_object_set_new(o, "nested", json_pack("[i,[i,{s:[]}],{}]", 1, 2, "deep"));
    json_object_set_new(o, "max", json_integer(INT64_MAX));
    json_object_set_new(o, "min", json_integer(INT64_MIN));
    json_object_set_new(o, "half", json_real(0.5));
    json_object_set_new(o, "big", json_real(ldexp(1, 100)));    /* exact: 2^100 */
    json_object_set_new(o, "t", json_true());
    json_object_set_new(o, "nil", json_null());
    ret = palev_eventsource_write_json(SOURCE, id, name, o);
    json_decref(o);
    return ret;
}

static int fire_json_scalar(int32_t id, const char *name, const void *arg)
{
    json_t *v = json_string(arg);
    int ret = palev_eventsource_write_json(SOURCE, id, name, v);

    json_decref(v);
    return ret;
}

/* jansson refuses to serialise a string that is not UTF-8: no invalid JSON is ever recorded. */
static int fire_json_nocheck(int32_t id, const char *name, const void *arg)
{
    json_t *o = json_pack("{s:o}", "bad", json_string_nocheck(arg));
    int ret = palev_eventsource_write_json(SOURCE, id, name, o);

    json_decref(o);
    return ret;
}

static int fire_pack_rich(int32_t id, const char *name, const void *arg)
{
    (void)arg;
    return palev_eventsource_write_pack(SOURCE, id, name,
        "{s:s, s:i, s:I, s:f, s:b, s:n, s:[i,s], s:{s:s}, s:s#}",
        "str", "tab\there \"quoted\" back\\slash", "int", -42, "i64", (json_int_t)INT64_MAX,
        "real", 2.25, "bool", 0, "null", "arr", 7, "\xe2\x82\xac", "obj", "k", "v",
        "counted", "abcdef", 3);
}

static int fire_pack_string(int32_t id, const char *name, const void *arg)
{
    return palev_eventsource_write_pack(SOURCE, id, name, "{s:s}", "s", (const char *)arg);
}

static int fire_pack_nan(int32_t id, const char *name, const void *arg)
{
    (void)arg;
    return palev_eventsource_write_pack(SOURCE, id, name, "{s:f}", "x", NAN);
}

static int fire_pack_format(int32_t id, const char *name, const void *arg)
{
    return palev_eventsource_write_pack(SOURCE, id, name, arg, "k", 1);
}

static const struct es_case {
    const char *name;
    fire_fn *fire;
    const void *arg;
    int rc;                 /* when a session listens */
    const char *recorded;   /* the Payload read back; NULL: not recorded */
} cases[] = {
    { "Compact", fire_text, "{\"a\":1}", 0, "{\"a\":1}" },
    { "Spaces", fire_text, " { \"k\" : [ 1 , 2 ] ,\n\t\"s\" : \"x  y , z\" } \r\n", 0,
      "{\"k\":[1,2],\"s\":\"x  y , z\"}" },
    { "Escapes", fire_text,
      "{\"q\":\"say \\\"hi\\\"\",\"b\":\"C:\\\\dir\\\\\",\"c\":\"\\n\\t\\u0001\\u001f\\/\","
      "\"u\":\"\\u00e9\\ud83d\\ude00\"}", 0,
      "{\"q\":\"say \\\"hi\\\"\",\"b\":\"C:\\\\dir\\\\\",\"c\":\"\\n\\t\\u0001\\u001f\\/\","
      "\"u\":\"\\u00e9\\ud83d\\ude00\"}" },
    { "NonAscii", fire_text,
      "{\"fr\":\"\xc3\xa9t\xc3\xa9\",\"ja\":\"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\","
      "\"emoji\":\"\xf0\x9f\x98\x80\"}", 0,
      "{\"fr\":\"\xc3\xa9t\xc3\xa9\",\"ja\":\"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\","
      "\"emoji\":\"\xf0\x9f\x98\x80\"}" },
    { "Numbers", fire_text, "{\"n\":123456789012345678901234567890,\"e\":-1.5E+300,\"z\":-0}", 0,
      "{\"n\":123456789012345678901234567890,\"e\":-1.5E+300,\"z\":-0}" },
    { "Nested", fire_text, "{\"a\":{\"b\":[1,[2,[3,{\"c\":null}]],true,false,{}],\"d\":[]}}", 0,
      "{\"a\":{\"b\":[1,[2,[3,{\"c\":null}]],true,false,{}],\"d\":[]}}" },
    { "TopArray", fire_text, "[1,\"two\",3.5]", 0, "[1,\"two\",3.5]" },
    { "NullText", fire_text, NULL, 0, "{}" },
    { "BadSyntax", fire_text, "{\"a\":}", -EINVAL, NULL },
    { "BadUtf8", fire_text, "{\"a\":\"\xff\"}", -EINVAL, NULL },
    { "RawNewline", fire_text, "{\"a\":\"x\ny\"}", -EINVAL, NULL },
    { "Trailing", fire_text, "{} {}", -EINVAL, NULL },
    { "Json", fire_json_rich, NULL, 0,
      "{\"q\":\"say \\\"hi\\\" \\\\ / \\n\\t\\u0001\\u001F\x7f\","
      "\"text\":\"\xc3\xa9t\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80\","
      "\"nested\":[1,[2,{\"deep\":[]}],{}],\"max\":9223372036854775807,"
      "\"min\":-9223372036854775808,\"half\":0.5,\"big\":1.2676506002282294e30,"
      "\"t\":true,\"nil\":null}" },
    { "JsonNull", fire_json_null, NULL, 0, "{}" },
    { "JsonScalar", fire_json_scalar, "only \"this\"", 0, "\"only \\\"this\\\"\"" },
    { "JsonNocheck", fire_json_nocheck, "\xc3\x28", -EINVAL, NULL },
    { "Pack", fire_pack_rich, NULL, 0,
      "{\"str\":\"tab\\there \\\"quoted\\\" back\\\\slash\",\"int\":-42,"
      "\"i64\":9223372036854775807,\"real\":2.25,\"bool\":false,\"null\":null,"
      "\"arr\":[7,\"\xe2\x82\xac\"],\"obj\":{\"k\":\"v\"},\"counted\":\"abc\"}" },
    { "PackControl", fire_pack_string, "\x01\x02\b\f\n\r\t\x1b", 0,
      "{\"s\":\"\\u0001\\u0002\\b\\f\\n\\r\\t\\u001B\"}" },
    { "PackBadUtf8", fire_pack_string, "ok \xed\xa0\x80 surrogate", -EINVAL, NULL },
    { "PackNaN", fire_pack_nan, NULL, -EINVAL, NULL },
    { "PackBadFormat", fire_pack_format, "{s:i", -EINVAL, NULL },
    { "PackNullFormat", fire_pack_format, NULL, -EINVAL, NULL },
};

/* NULL source or name: never enabled; -EINVAL from the functions themselves, and through the
 * header's inline checks only when somebody listens (they look at nothing otherwise). */
static void null_arguments(int on)
{
    int rc = on ? -EINVAL : 0;

    expect_rc("write(NULL source)", palev_eventsource_write(NULL, 1, "n", "{}"), rc);
    expect_rc("write(NULL name)", palev_eventsource_write(SOURCE, 1, NULL, "{}"), rc);
    expect_rc("write_json(NULL source)", palev_eventsource_write_json(NULL, 1, "n", NULL), rc);
    expect_rc("write_json(NULL name)", palev_eventsource_write_json(SOURCE, 1, NULL, NULL), rc);
    expect_rc("write_pack(NULL source)", palev_eventsource_write_pack(NULL, 1, "n", "{}"), rc);
    expect_rc("write_pack(NULL name)", palev_eventsource_write_pack(SOURCE, 1, NULL, "{}"), rc);
    expect_rc("(write)(NULL source)", (palev_eventsource_write)(NULL, 1, "n", "{}"), -EINVAL);
    expect_rc("(write_json)(NULL name)", (palev_eventsource_write_json)(SOURCE, 1, NULL, NULL),
              -EINVAL);
    expect_rc("(write_pack)(NULL source)", (palev_eventsource_write_pack)(NULL, 1, "n", "{}"),
              -EINVAL);
    expect_rc("is_enabled(NULL source)", palev_eventsource_is_enabled(NULL, "n"), 0);
    expect_rc("is_enabled(NULL name)", palev_eventsource_is_enabled(SOURCE, NULL), 0);
}

static int mode_record(int argc, char **argv)
{
    int on = argc > 0 && strcmp(argv[0], "on") == 0;

    expect_rc("is_enabled", palev_eventsource_is_enabled(SOURCE, "Any"), on);
    null_arguments(on);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct es_case *c = &cases[i];
        int32_t id = (int32_t)i + 1;

        expect_rc(c->name, c->fire(id, c->name, c->arg), on ? c->rc : 0);
        if (on && c->recorded)
            print_recorded(id, c->name, c->recorded);
    }
    return failures ? 1 : 0;
}

/* ---- big payloads ----------------------------------------------------------------------- */

/* Exactly `size` bytes of JSON: {"big":"abc...z..."} with `ws` spaces of padding after the
 * colon (which compaction removes), NUL-terminated. */
static char *big_payload(size_t size, size_t ws)
{
    char *s = malloc(size + ws + 1);
    size_t n, start;

    if (!s)
        return NULL;
    start = (size_t)sprintf(s, "{\"big\":%*s\"", (int)ws, "");
    for (n = start; n < size + ws - 2; n++)
        s[n] = (char)('a' + (n - start) % 26);
    memcpy(s + n, "\"}", 3);
    return s;
}

static int mode_big(int argc, char **argv)
{
    char *compact = big_payload(BIG_SIZE, 0), *padded = big_payload(BIG_SIZE, 5);

    (void)argc;
    (void)argv;
    if (!compact || !padded)
        return 1;
    /* The same 1 MiB through jansson (the string member only) and through the validator. */
    compact[BIG_SIZE - 2] = '\0';
    expect_rc("BigPack", palev_eventsource_write_pack(SOURCE, 1, "BigPack", "{s:s}", "big",
                                                      compact + strlen("{\"big\":\"")), 0);
    compact[BIG_SIZE - 2] = '"';
    expect_rc("BigText", palev_eventsource_write(SOURCE, 2, "BigText", padded), 0);
    expect_rc("After", palev_eventsource_write(SOURCE, 3, "After", "{\"after\":true}"), 0);
    print_recorded(1, "BigPack", compact);
    print_recorded(2, "BigText", compact);
    print_recorded(3, "After", "{\"after\":true}");
    free(compact);
    free(padded);
    return failures ? 1 : 0;
}

/* ---- filters, toggling, cost ------------------------------------------------------------ */

static int mode_filter(int argc, char **argv)
{
    static const char *const sources[] = { "Alpha.Source", "My-BETA", "Gamma" };
    static const char *const names[] = { "TaskStart", "stopped", "Other" };
    int32_t id = 0;

    (void)argc;
    (void)argv;
    for (size_t s = 0; s < 3; s++) {
        for (size_t n = 0; n < 3; n++) {
            id++;
            printf("is_enabled %s %s %d\n", sources[s], names[n],
                   palev_eventsource_is_enabled(sources[s], names[n]));
            expect_rc("filtered write", palev_eventsource_write_pack(sources[s], id, names[n],
                                                                     "{s:i}", "id", id), 0);
        }
    }
    return failures ? 1 : 0;
}

static int mode_toggle(int argc, char **argv)
{
    char line[64];

    (void)argc;
    (void)argv;
    do {
        printf("enabled=%d\n", palev_eventsource_is_enabled(SOURCE, "Toggle"));
        fflush(stdout);
    } while (fgets(line, sizeof(line), stdin));
    return 0;
}

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void bench_empty(long i)
{
    (void)i;
    __asm__ volatile("" ::: "memory");
}

static void bench_is_enabled(long i)
{
    (void)i;
    palev_eventsource_is_enabled(SOURCE, "Bench");
}

static void bench_write(long i)
{
    (void)i;
    palev_eventsource_write(SOURCE, 1, "Bench", "{\"i\":1}");
}

static void bench_write_pack(long i)
{
    palev_eventsource_write_pack(SOURCE, (int32_t)i, "Bench", "{s:i, s:s}", "i", (int)i, "s",
                                 "text");
}

/* Each body is inlined into its own loop; calls go through the PLT, as in any host. The best of
 * ROUNDS rounds is printed: on a busy machine most rounds are slowed by others, not the code. */
#define ROUNDS 50
#define BENCH(fn, n) do {                                                     \
        double best = 1e300;                                                  \
        for (int r = 0; r < ROUNDS; r++) {                                    \
            double t0 = now_ns(), t;                                          \
            for (long i = 0; i < (n); i++)                                    \
                fn(i);                                                        \
            t = (now_ns() - t0) / (n);                                        \
            best = t < best ? t : best;                                       \
        }                                                                     \
        printf("%-18s %6.2f ns/call\n", #fn + 6, best);                       \
    } while (0)

static int mode_bench(int argc, char **argv)
{
    long n = argc > 0 ? atol(argv[0]) : 1000000L;

    BENCH(bench_empty, n);
    BENCH(bench_is_enabled, n);
    BENCH(bench_write, n);
    BENCH(bench_write_pack, n);
    return 0;
}

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} modes[] = {
    { "record", mode_record },
    { "big", mode_big },
    { "filter", mode_filter },
    { "toggle", mode_toggle },
    { "bench", mode_bench },
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc > 1 && i < sizeof(modes) / sizeof(modes[0]); i++)
        if (strcmp(argv[1], modes[i].name) == 0)
            return modes[i].run(argc - 2, argv + 2);
    fprintf(stderr, "usage: es_host record on|off | big | filter | toggle | bench [N]\n");
    return 2;
}
