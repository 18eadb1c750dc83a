/* SPDX-License-Identifier: MIT */
/* palevgen, the generator as a library: parse, check, lower and emit through model.h with a
 * context each; errors counted and reported per context; two contexts side by side. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"

static const char good_man[] =
    "<?xml version=\"1.0\"?>\n"
    "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\"\n"
    "    xmlns:win=\"http://manifests.microsoft.com/win/2004/08/windows/events\">\n"
    "<instrumentation><events>\n"
    "<provider name=\"Microsoft-Api-Test\" guid=\"{01234567-89ab-cdef-0123-456789abcdef}\">\n"
    "  <keywords><keyword name=\"GC\" mask=\"0x1\"/><keyword name=\"JIT\" mask=\"0x2\"/></keywords>\n"
    "  <templates>\n"
    "    <template tid=\"T\">\n"
    "      <data name=\"Count\" inType=\"win:UInt16\"/>\n"
    "      <struct name=\"s\" count=\"Count\">\n"
    "        <data name=\"l\" inType=\"win:UInt16\"/>\n"
    "        <data name=\"b\" inType=\"win:Binary\" length=\"l\"/>\n"
    "      </struct>\n"
    "      <data name=\"_s_b_length\" inType=\"win:UInt32\"/>\n"
    "    </template>\n"
    "  </templates>\n"
    "  <events>\n"
    "    <event value=\"1\" symbol=\"Collect\" keywords=\"GC\" level=\"win:Informational\" template=\"T\"/>\n"
    "    <event value=\"2\" symbol=\"Compile\" keywords=\"JIT\" level=\"win:Verbose\"/>\n"
    "  </events>\n"
    "</provider>\n"
    "</events></instrumentation>\n"
    "</instrumentationManifest>\n";

/* Two errors, on lines 6 and 7; the level's name holds a newline. */
static const char bad_man[] =
    "<?xml version=\"1.0\"?>\n"
    "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\n"
    "<instrumentation><events>\n"
    "<provider name=\"Bad\" guid=\"{01234567-89ab-cdef-0123-456789abcdef}\">\n"
    "  <events>\n"
    "    <event value=\"1\" symbol=\"E\" level=\"x&#10;y\"/>\n"
    "    <event value=\"1\" symbol=\"F\"/>\n"
    "  </events>\n"
    "</provider>\n"
    "</events></instrumentation>\n"
    "</instrumentationManifest>\n";

/* What a context's sink received. */
struct lines {
    char text[8][256];
    unsigned n;
};

static void collect(void *data, const char *line)
{
    struct lines *l = data;
    if (l->n < 8)
        snprintf(l->text[l->n], sizeof(l->text[0]), "%s", line);
    l->n++;
}

static pg_manifest *load(pg_ctx *cx, const char *path, const char *text, const pg_options *opt,
                         unsigned *check_errors)
{
    pg_manifest *m = pg_parse_buffer(cx, path, text, strlen(text));
    assert_non_null(m);
    *check_errors = pg_check(cx, m, opt);
    return m;
}

static const pg_file *file_named(const pg_vec *files, const char *name)
{
    PG_VEC_EACH(const pg_file, f, *files)
        if (strcmp(f->name, name) == 0)
            return f;
    return NULL;
}

/* A good manifest through every phase: the four files and the selftest's two, the layout hash
 * of the probe and the descriptor that of the P-tp.h emitted. */
static void phases_emit_every_file(void **state)
{
    pg_ctx cx;
    pg_options opt = { 0 };
    pg_vec files = { 0 };
    unsigned errors;
    (void)state;
    pg_ctx_init(&cx);
    pg_manifest *m = load(&cx, "good.man", good_man, &opt, &errors);
    assert_int_equal(errors, 0);
    assert_int_equal(pg_lower(&cx, m, &opt), 0);
    const pg_provider *p = m->providers.items[0];
    assert_string_equal(p->lttng_name, "Api_Test");
    pg_emit_provider(&cx, m, p, &files);
    pg_emit_selftest(&cx, m, p, &files);
    assert_int_equal(files.len, 6);
    const pg_file *tp = file_named(&files, "Api_Test-tp.h");
    const pg_file *probe = file_named(&files, "Api_Test-probe.c");
    const pg_file *events = file_named(&files, "Api_Test-events.c");
    assert_non_null(tp);
    assert_non_null(probe);
    assert_non_null(events);
    assert_non_null(file_named(&files, "Api_Test-events.h"));
    assert_non_null(file_named(&files, "Api_Test-selftest.c"));
    const pg_file *expect = file_named(&files, "Api_Test-selftest.expect");
    assert_non_null(expect);
    char layout[64];
    snprintf(layout, sizeof(layout), "\"palev-layout:Api_Test:%08x\"", pg_fnv1a(tp->text.data, tp->text.len));
    assert_non_null(strstr(probe->text.data, layout));
    assert_non_null(strstr(events->text.data, layout));
    /* the binary of a struct array is a JSON string: no hidden length beside the field */
    assert_non_null(strstr(expect->text.data, "Api_Test:Collect: { Count = 2, "));
    assert_non_null(strstr(expect->text.data, ", _s_b_length = "));
    assert_int_equal(pg_error_count(&cx), 0);
    pg_ctx_fini(&cx);
}

/* Errors: counted per context and per call, said through the sink as "file:line: error: ...". */
static void errors_are_the_contexts_own(void **state)
{
    pg_ctx a, b;
    struct lines seen = { 0 };
    pg_options opt = { 0 };
    unsigned errors;
    (void)state;
    pg_ctx_init(&a);
    pg_ctx_init(&b);
    b.sink = collect;
    b.sink_data = &seen;
    pg_manifest *good = load(&a, "good.man", good_man, &opt, &errors);
    assert_int_equal(errors, 0);
    pg_manifest *bad = load(&b, "bad.man", bad_man, &opt, &errors);
    assert_int_equal(errors, 2);
    assert_int_equal(pg_error_count(&b), 2);
    assert_int_equal(pg_error_count(&a), 0);
    assert_int_equal(seen.n, 2);
    /* a newline of a quoted name cannot start a line of its own */
    assert_string_equal(seen.text[0], "bad.man:6: error: level \"x?y\" is not defined");
    assert_string_equal(seen.text[1], "bad.man:7: error: event 1 version 0 is defined twice (first at "
                                      "bad.man:6)");
    /* a second manifest in b: pg_check counts what it found, not b's running total */
    pg_manifest *again = load(&b, "good.man", good_man, &opt, &errors);
    assert_int_equal(errors, 0);
    assert_int_equal(pg_error_count(&b), 2);
    /* quiet: counted, not said */
    b.quiet = 1;
    (void)load(&b, "bad2.man", bad_man, &opt, &errors);
    assert_int_equal(errors, 2);
    assert_int_equal(pg_error_count(&b), 4);
    assert_int_equal(seen.n, 2);
    /* a's model stays whole when b goes */
    pg_ctx_fini(&b);
    const pg_provider *p = good->providers.items[0];
    assert_string_equal(p->lttng_name, "Api_Test");
    assert_int_equal(p->events.len, 2);
    assert_string_equal(((const pg_event *)p->events.items[1])->lttng_name, "Compile");
    (void)bad, (void)again;
    pg_ctx_fini(&a);
}

/* Options: renames read one way; a symbol prefix that is no identifier refused by the library. */
static void options_are_checked(void **state)
{
    pg_ctx cx;
    pg_options opt = { 0 };
    pg_buf why = { 0 };
    unsigned errors;
    struct lines seen = { 0 };
    (void)state;
    pg_ctx_init(&cx);
    cx.sink = collect;
    cx.sink_data = &seen;
    assert_int_equal(pg_options_rename(&cx, &opt, "Microsoft-Api-Test=Renamed", &why), 0);
    assert_int_equal(pg_options_rename(&cx, &opt, "Microsoft-Api-Test=Renamed", &why), 0);
    assert_int_equal(opt.rename_from.len, 1);
    assert_int_equal(pg_options_rename(&cx, &opt, "Microsoft-Api-Test=Other", &why), -1);
    assert_string_equal(why.data, "Microsoft-Api-Test=Other: provider \"Microsoft-Api-Test\" is already "
                                  "renamed to \"Renamed\"");
    why.len = 0;
    assert_int_equal(pg_options_rename(&cx, &opt, "=X", &why), -1);
    assert_string_equal(why.data, "wants ETWNAME=LTTNGNAME, not \"=X\"");
    pg_manifest *m = load(&cx, "good.man", good_man, &opt, &errors);
    assert_int_equal(errors, 0);
    assert_string_equal(((const pg_provider *)m->providers.items[0])->lttng_name, "Renamed");
    opt.symbol_prefix = "x*/";
    (void)load(&cx, "good.man", good_man, &opt, &errors);
    assert_int_equal(errors, 1);
    assert_string_equal(seen.text[0], "good.man: error: --symbol-prefix \"x*/\" is not a C identifier");
    pg_ctx_fini(&cx);
}

/* enable-list through the library: a keyword named as people say it. */
static void enable_list_by_keyword(void **state)
{
    pg_ctx cx;
    pg_options opt = { 0 };
    pg_vec events = { 0 };
    pg_buf err = { 0 };
    unsigned errors;
    (void)state;
    pg_ctx_init(&cx);
    pg_manifest *m = load(&cx, "good.man", good_man, &opt, &errors);
    pg_enable_query q = { "jit", NULL, NULL };
    assert_int_equal(pg_enable_list(&cx, m, &q, &events, &err), 0);
    assert_int_equal(events.len, 1);
    assert_string_equal(((const pg_event *)events.items[0])->lttng_name, "Compile");
    q.level = "4";
    events.len = 0;
    assert_int_equal(pg_enable_list(&cx, m, &q, &events, &err), 0);
    assert_int_equal(events.len, 0);
    q.keywords = "Nope";
    assert_int_equal(pg_enable_list(&cx, m, &q, &events, &err), 2);
    assert_non_null(strstr(err.data, "unknown keyword \"Nope\" in good.man"));
    pg_ctx_fini(&cx);
}

/* The arena: zeroed memory, blocks bigger than its block size, all of it freed by fini (ASan
 * and valgrind see a leak otherwise). */
static void arena_is_zeroed(void **state)
{
    pg_ctx cx;
    (void)state;
    pg_ctx_init(&cx);
    for (size_t size = 1; size <= 4u << 20; size *= 4) {
        unsigned char *p = pg_zalloc(&cx, size);
        for (size_t i = 0; i < size; i++)
            assert_int_equal(p[i], 0);
        memset(p, 0xA5, size);
    }
    pg_buf b = { 0 };
    for (int i = 0; i < 10000; i++)
        pg_buf_printf(&cx, &b, "%d,", i);
    assert_int_equal(strncmp(b.data + b.len - 5, "9999,", 5), 0);
    pg_ctx_fini(&cx);
    assert_null(cx.arena);
    assert_int_equal(pg_error_count(&cx), 0);
}

/* Names: a field's identifier (trace field, struct member) and its parameter name, which takes
 * '_' after so that no host macro or typedef meets it (docs/manifest.md, Names). */
static void names_of_fields(void **state)
{
    static const struct { const char *name, *ident, *param; } cases[] = {
        { "TraceNo", "TraceNo", "TraceNo_" },
        { "Heap Size (bytes)", "Heap_Size_bytes", "Heap_Size_bytes_" },
        { "int", "int_", "int_" },
        { "EINVAL", "EINVAL_", "EINVAL_" },
        { "9lives", "_9lives", "_9lives_" },
        { "palev_a", "_palev_a", "_palev_a_" },
        { "palev_guid", "_palev_guid_", "_palev_guid_" },
        { "__func__", "__func___", "__func___" },
        { "", "_", "__" },
    };
    pg_ctx cx;
    (void)state;
    pg_ctx_init(&cx);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_string_equal(pg_make_ident(&cx, cases[i].name), cases[i].ident);
        assert_string_equal(pg_make_param(&cx, cases[i].name), cases[i].param);
    }
    pg_ctx_fini(&cx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(phases_emit_every_file),
        cmocka_unit_test(errors_are_the_contexts_own),
        cmocka_unit_test(options_are_checked),
        cmocka_unit_test(enable_list_by_keyword),
        cmocka_unit_test(arena_is_zeroed),
        cmocka_unit_test(names_of_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
