/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the manifest reader, checker and every emitter, in memory (no files), and
 * the provider renames palev-trace reads. */
#include "model.h"

#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A text emitted file must be a C string of exactly its length: emitters build it with pg_buf. */
static void check_files(const pg_vec *files)
{
    PG_VEC_EACH(pg_file, f, *files) {
        if (!f->name || !f->name[0] || strchr(f->name, '/'))
            __builtin_trap();
        if (f->text.len && (!f->text.data || strlen(f->text.data) != f->text.len))
            __builtin_trap();
    }
}

/* enable-list by a keyword name as people say it: the first keyword's, upper case, "Keyword"
 * added (an unknown name would only print an error). */
static void enable_by_name(pg_ctx *cx, const pg_manifest *m, pg_vec *list, pg_buf *err)
{
    char name[128];

    PG_VEC_EACH(const pg_provider, p, m->providers)
        PG_VEC_EACH(const pg_named, k, p->keywords) {
            size_t n = k->name ? strlen(k->name) : 0;

            if (n == 0 || n > 64)
                continue;
            for (size_t i = 0; i <= n; i++)
                name[i] = (char)toupper((unsigned char)k->name[i]);
            strcat(name, "Keyword");
            (void)pg_enable_list(cx, m, &(pg_enable_query){ name, NULL, p->name }, list, err);
            return;
        }
}

/* The input as a provider-names file too (palev-trace reads one renaming ETWNAME=LTTNGNAME per
 * line through pg_options_rename()), checked against the manifest it may also be. */
static void renames(pg_ctx *cx, pg_manifest *m, const uint8_t *data, size_t size)
{
    pg_options opt = { .renames_may_miss = 1 };
    pg_buf why = { 0 };
    size_t start = 0;

    for (size_t i = 0; i <= size; i++) {
        if (i < size && data[i] != '\n')
            continue;
        (void)pg_options_rename(cx, &opt, pg_strndup(cx, (const char *)data + start, i - start), &why);
        start = i + 1;
    }
    if (m && opt.rename_from.len)
        (void)pg_check(cx, m, &opt);
}

/* What palev-gen generate, selftest and enable-list do, minus the writing: emit only for a
 * manifest without errors, as main.c does (emitters may assume a checked model). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pg_options opt = { 0 };
    pg_vec files = { 0 };
    pg_vec list = { 0 };
    pg_buf err = { 0 };
    pg_manifest *m;
    pg_ctx cx;

    pg_ctx_init(&cx);
    cx.quiet = 1;
    m = pg_parse_buffer(&cx, "fuzz.man", (const char *)data, size);
    if (pg_error_count(&cx) == 0 && pg_check(&cx, m, &opt) == 0 && pg_lower(&cx, m, &opt) == 0) {
        PG_VEC_EACH(pg_provider, p, m->providers) {
            if (!p->events.len)
                continue;
            pg_emit_provider(&cx, m, p, &files);
            pg_emit_selftest(&cx, m, p, &files);
        }
        check_files(&files);
        (void)pg_enable_list(&cx, m, &(pg_enable_query){ NULL, NULL, NULL }, &list, &err);
        (void)pg_enable_list(&cx, m, &(pg_enable_query){ "0x1", "4", NULL }, &list, &err);
        enable_by_name(&cx, m, &list, &err);
    }
    pg_ctx_fini(&cx);
    pg_ctx_init(&cx);
    cx.quiet = 1;
    renames(&cx, pg_parse_buffer(&cx, "fuzz.man", (const char *)data, size), data, size);
    pg_ctx_fini(&cx);
    return 0;
}
