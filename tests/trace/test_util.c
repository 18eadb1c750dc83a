/* SPDX-License-Identifier: MIT */
/* Unit tests of palev-trace's services: the hash table keeps keys whose hashes collide apart,
 * a memo finds what it keeps, terminal text is escaped, JSON is written as libpaleventing writes it, a command's own options
 * and the shared ones are parsed from one table each. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "command.h"

/* Two event names with the same FNV-1a 64-bit hash (found with a distinguished-point search). */
static const char collide_a[] = "Ev:R6MrKe6TXPM", collide_b[] = "Ev:CmbqjLx4J_P";

static void colliding_strings_stay_apart(void **state)
{
    pt_map m = { 0 };
    int a = 1, b = 2;
    (void)state;
    assert_true(pt_hash_str(collide_a) == pt_hash_str(collide_b));   /* the premise */
    const char *ka = pt_map_put_str(&m, collide_a, &a);
    assert_ptr_equal(pt_map_get_str(&m, collide_a), &a);
    assert_null(pt_map_get_str(&m, collide_b));
    pt_map_put_str(&m, collide_b, &b);
    assert_ptr_equal(pt_map_get_str(&m, collide_a), &a);
    assert_ptr_equal(pt_map_get_str(&m, collide_b), &b);
    assert_string_equal(ka, collide_a);
    assert_int_equal(m.len, 2);
    pt_map_free(&m);
}

static void many_keys_of_each_kind(void **state)
{
    pt_map ints = { 0 }, strs = { 0 }, bytes = { 0 };
    char key[32];
    (void)state;
    for (uintptr_t i = 1; i <= 5000; i++) {
        uint64_t k[2] = { i, i * 7 };
        snprintf(key, sizeof(key), "key %lu", (unsigned long)i);
        pt_map_put(&ints, i << 20, (void *)i);
        pt_map_put_str(&strs, key, (void *)i);
        pt_map_put_bytes(&bytes, k, sizeof(k), (void *)i);
    }
    pt_map_put(&ints, 7 << 20, (void *)(uintptr_t)99);     /* a value replaced */
    for (uintptr_t i = 1; i <= 5000; i++) {
        uint64_t k[2] = { i, i * 7 };
        snprintf(key, sizeof(key), "key %lu", (unsigned long)i);
        assert_int_equal((uintptr_t)pt_map_get(&ints, i << 20), i == 7 ? 99 : i);
        assert_int_equal((uintptr_t)pt_map_get_str(&strs, key), i);
        assert_int_equal((uintptr_t)pt_map_get_bytes(&bytes, k, sizeof(k)), i);
    }
    assert_null(pt_map_get(&ints, 1));
    assert_null(pt_map_get_str(&strs, "key 0"));
    assert_int_equal(ints.len, 5000);
    pt_map_free(&ints);
    pt_map_free(&strs);
    pt_map_free(&bytes);
}

static void terminal_text_is_escaped(void **state)
{
    static const struct { const char *in, *out; } cases[] = {
        { "plain UTF-8: h\xC3\xA9llo \xE6\x97\xA5", NULL },
        { "red \x1b[31mtext\x1b[0m", "red \\x1b[31mtext\\x1b[0m" },
        { "line\nbreak\ttab\rret", "line\\nbreak\\ttab\\rret" },
        { "title \x1b]0;pwned\x07 bell", "title \\x1b]0;pwned\\x07 bell" },
        { "back\\slash", "back\\\\slash" },
        { "del\x7f c1 \xC2\x9B csi", "del\\x7f c1 \\u009b csi" },
        { "bad \xFF\xC3 utf8", "bad \\xff\\xc3 utf8" },
    };
    pt_text t = { 0 };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *got = pt_term(&t, cases[i].in);
        if (!cases[i].out)
            assert_ptr_equal(got, cases[i].in);     /* nothing to escape: no copy */
        else
            assert_string_equal(got, cases[i].out);
    }
    assert_string_equal(pt_term(&t, NULL), "");
    pt_text_free(&t);
}

/* JSON as libpaleventing writes it (common/json.c): named escapes for \n, \t, ...; -0 stays -0. */
static void json_text_as_the_library_writes_it(void **state)
{
    static const double numbers[] = { 3, -0.0, 0.1, 1e300, INFINITY };
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    (void)state;
    assert_non_null(f);
    pt_json_string(f, "q\"b\\ \n\t\r\b\f\x01\x1f \xC3\xA9 \xFF");
    for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
        fputc(' ', f);
        pt_put_double(f, numbers[i]);
    }
    fclose(f);
    assert_string_equal(text, "\"q\\\"b\\\\ \\n\\t\\r\\b\\f\\u0001\\u001f \xC3\xA9 \xEF\xBF\xBD\""
                              " 3 -0 0.10000000000000001 1.0000000000000001e+300 null");
    free(text);
}

/* A memo finds each key's value, the last one asked for and any other, and owns the values. */
static void memo_finds_and_owns(void **state)
{
    pt_memo m = { 0 };
    int k[3] = { 0 };
    (void)state;
    assert_null(pt_memo_get(&m, &k[0]));
    int *a = pt_memo_put(&m, &k[0], pt_xcalloc(1, sizeof(int)));
    int *b = pt_memo_put(&m, &k[1], pt_xcalloc(1, sizeof(int)));
    assert_ptr_equal(pt_memo_get(&m, &k[1]), b);    /* the last one */
    assert_ptr_equal(pt_memo_get(&m, &k[0]), a);    /* another */
    assert_ptr_equal(pt_memo_get(&m, &k[0]), a);
    assert_null(pt_memo_get(&m, &k[2]));
    assert_ptr_equal(pt_memo_get(&m, &k[1]), b);
    pt_memo_free(&m);                               /* valgrind_trace / ASan: nothing leaks */
    assert_null(pt_memo_get(&m, &k[0]));
}

/* ---- the command skeleton ----------------------------------------------------------------------- */

typedef struct demo_opts {
    pt_input in;
    const char *output;
    unsigned top;
    int folded;
    unsigned format;
    const char **where;
    unsigned nwhere;
} demo_opts;

static const pt_option demo_options[] = {
    { .name = "output", .letter = 'o', .type = PT_OPT_STRING, .at = offsetof(demo_opts, output), .arg = "FILE",
      .help = "where", .required = 1 },
    { .name = "top", .type = PT_OPT_COUNT, .at = offsetof(demo_opts, top), .arg = "N", .help = "how many" },
    { .name = "folded", .type = PT_OPT_FLAG, .at = offsetof(demo_opts, folded), .help = "folded" },
    { .name = "format", .type = PT_OPT_CHOICE, .at = offsetof(demo_opts, format), .choices = "text|tsv|json",
      .arg = "NAME", .help = "how" },
    { .name = "where", .type = PT_OPT_LIST, .at = offsetof(demo_opts, where), .count_at = offsetof(demo_opts, nwhere),
      .arg = "F=V", .help = "which" },
    PT_OPTIONS_END,
};

static const demo_opts demo_defaults = { .top = 10 };

/* What pt_command_main() handed the worker, copied out (the struct is freed after the run). */
static demo_opts seen;
static const char *seen_where[4];

static int demo_run(const pt_input *in)
{
    const demo_opts *o = (const demo_opts *)in;
    seen = *o;
    for (unsigned i = 0; i < o->nwhere && i < 4; i++)
        seen_where[i] = o->where[i];
    return 42;
}

static const pt_command cmd = { .name = "demo", .synopsis = "[--top N] -o FILE TRACE...",
                                .help = "a command for the test", .min_inputs = 1,
                                .options = demo_options, .size = sizeof(demo_opts),
                                .defaults = &demo_defaults, .run = demo_run };

static int argv_of(const char *const *args, char **argv)
{
    int argc = 0;
    for (argv[argc++] = (char *)"demo"; *args; args++)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    return argc;
}

static int parse(demo_opts *o, const char *const *args)
{
    char *argv[16];
    int argc = argv_of(args, argv);
    return pt_parse_args(&cmd, argc, argv, &o->in);
}

static void options_from_two_tables(void **state)
{
    demo_opts o = { .top = 10 };
    (void)state;
    assert_int_equal(parse(&o, (const char *const[]){ "T1", "-m", "a.man", "--top", "3", "-o", "out",
                                                      "--manifest=b.man", "--folded", "T2", NULL }), PT_RUN);
    assert_string_equal(o.output, "out");
    assert_int_equal(o.top, 3);
    assert_int_equal(o.folded, 1);
    assert_int_equal(o.in.nmanifests, 2);
    assert_string_equal(o.in.manifests[1], "b.man");
    assert_int_equal(o.in.npaths, 2);
    assert_string_equal(o.in.paths[0], "T1");
    assert_string_equal(o.in.paths[1], "T2");
    pt_options_free(&cmd, &o.in);
    assert_null(o.in.manifests);
    assert_int_equal(o.in.nmanifests, 0);
}

static void usage_errors(void **state)
{
    static const char *const bad[][8] = {
        { "-o", "x", NULL },                        /* no TRACE */
        { "T", NULL },                              /* -o missing */
        { "-o", "x", "--top", "many", "T", NULL },  /* not a count */
        { "-o", "x", "--by", "F", "T", NULL },      /* another command's */
        { "-o", "x", "T", "--top", NULL },          /* no argument */
        { "-o", "x", "--format", "xml", "T", NULL },    /* not a choice */
        { "-o", "x", "--format", "tsvx", "T", NULL },   /* a choice's prefix is not one */
        { "-o", "x", "--format", "", "T", NULL },
    };
    FILE *saved = stderr;
    (void)state;
    stderr = fopen("/dev/null", "w");
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        demo_opts o = { 0 };
        assert_int_equal(parse(&o, bad[i]), PT_EXIT_USAGE);
        pt_options_free(&cmd, &o.in);
    }
    fclose(stderr);
    stderr = saved;
}

/* A choice is stored as its index among the choices; a wrong one is said with all of them. */
static void choices(void **state)
{
    static const char *const names[] = { "text", "tsv", "json" };
    char *err = NULL;
    size_t len = 0;
    FILE *saved = stderr;
    (void)state;
    for (unsigned i = 0; i < 3; i++) {
        demo_opts o = { .format = 7 };
        assert_int_equal(parse(&o, (const char *const[]){ "-o", "x", "--format", names[i], "T", NULL }), PT_RUN);
        assert_int_equal(o.format, i);
        pt_options_free(&cmd, &o.in);
    }
    stderr = open_memstream(&err, &len);
    demo_opts o = { 0 };
    assert_int_equal(parse(&o, (const char *const[]){ "-o", "x", "--format=xml", "T", NULL }), PT_EXIT_USAGE);
    fclose(stderr);
    stderr = saved;
    assert_non_null(strstr(err, "palev-trace demo: --format is text, tsv or json, not \"xml\"\nusage: "));
    free(err);
}

/* The skeleton runs the worker on the defaults and the command line, and frees its lists. */
static void command_runs_with_defaults(void **state)
{
    char *argv[16];
    (void)state;
    int argc = argv_of((const char *const[]){ "-o", "out", "--where", "a=1", "-m", "x.man", "--where", "b=2",
                                              "T", NULL }, argv);
    assert_int_equal(pt_command_main(&cmd, argc, argv), 42);
    assert_string_equal(seen.output, "out");
    assert_int_equal(seen.top, 10);
    assert_int_equal(seen.format, 0);
    assert_int_equal(seen.nwhere, 2);
    assert_string_equal(seen_where[0], "a=1");
    assert_string_equal(seen_where[1], "b=2");
    assert_int_equal(seen.in.nmanifests, 1);
    assert_int_equal(seen.in.npaths, 1);
    assert_string_equal(seen.in.paths[0], "T");
    /* a usage error: the worker does not run */
    memset(&seen, 0, sizeof(seen));
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    argc = argv_of((const char *const[]){ "--where", "a=1", "T", NULL }, argv);
    assert_int_equal(pt_command_main(&cmd, argc, argv), PT_EXIT_USAGE);
    fclose(stderr);
    stderr = saved;
    assert_null(seen.output);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(colliding_strings_stay_apart),
        cmocka_unit_test(many_keys_of_each_kind),
        cmocka_unit_test(memo_finds_and_owns),
        cmocka_unit_test(terminal_text_is_escaped),
        cmocka_unit_test(json_text_as_the_library_writes_it),
        cmocka_unit_test(options_from_two_tables),
        cmocka_unit_test(usage_errors),
        cmocka_unit_test(choices),
        cmocka_unit_test(command_runs_with_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
