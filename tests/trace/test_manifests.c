/* SPDX-License-Identifier: MIT */
/* Two readers in one process, each with its own manifests: each sees its own, and closing one
 * leaves the other's valid (run under ASan and valgrind to see use after free). The trace is the
 * golden host's, kept in the repository for the fuzzer (tests/fuzz). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal.h"

static char dir[64];

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[8192];
    size_t n;
    assert_non_null(in);
    assert_non_null(out);
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    assert_int_equal(fclose(out), 0);
}

static const char *in_dir(const char *name)
{
    static char path[4][128];
    static unsigned next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
    return p;
}

/* DIR/trace/{metadata,stream}, and two copies of the trace's manifest, DIR/a.man and DIR/b.man. */
static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/palev-test-manifests.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    if (mkdir(in_dir("trace"), 0777))
        return -1;
    copy_file(PALEV_TEST_SOURCE_DIR "/tests/fuzz/trace-metadata.tsdl", in_dir("trace/metadata"));
    copy_file(PALEV_TEST_SOURCE_DIR "/tests/fuzz/corpus/fuzz_trace/golden-ch_0", in_dir("trace/stream"));
    copy_file(PALEV_TEST_SOURCE_DIR "/tests/trace/golden.man", in_dir("a.man"));
    copy_file(PALEV_TEST_SOURCE_DIR "/tests/trace/golden.man", in_dir("b.man"));
    return 0;
}

static int teardown(void **state)
{
    const char *files[] = { "trace/metadata", "trace/stream", "trace", "a.man", "b.man" };
    (void)state;
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        remove(in_dir(files[i]));
    return rmdir(dir);
}

/* Two registries with different manifests: each finds its own provider only. */
static void registries_are_separate(void **state)
{
    pt_manifests *a = pt__manifest_new(), *b = pt__manifest_new();
    (void)state;
    pt__manifest_add(a, in_dir("a.man"));
    pt__manifest_add(b, PALEV_TEST_SOURCE_DIR "/manifest/runtime.man");
    pt__manifest_add(b, in_dir("b.man"));
    assert_int_equal(pt__manifest_load_all(a), 0);
    assert_int_equal(pt__manifest_load_all(b), 0);
    assert_int_equal(pt__manifest_count(a), 1);
    assert_int_equal(pt__manifest_count(b), 2);
    assert_non_null(pt__manifest_provider(a, "Palev_TraceGolden"));
    assert_null(pt__manifest_provider(a, "Palev_Runtime"));
    assert_non_null(pt__manifest_provider(b, "Palev_Runtime"));
    const pg_event *ea = pt__manifest_event(a, "Palev_TraceGolden:PhaseBegin");
    const pg_event *eb = pt__manifest_event(b, "Palev_TraceGolden:PhaseBegin");
    assert_non_null(ea);
    assert_non_null(eb);
    assert_ptr_not_equal(ea, eb);
    assert_string_equal(ea->loc.file, in_dir("a.man"));
    assert_string_equal(eb->loc.file, in_dir("b.man"));
    pt__manifest_free(a);
    /* b's manifests live on: every byte of its event is read again */
    assert_string_equal(eb->loc.file, in_dir("b.man"));
    assert_string_equal(eb->provider->lttng_name, "Palev_TraceGolden");
    assert_string_equal(((const pg_field *)eb->tmpl->fields.items[0])->tname, "Depth");
    assert_ptr_equal(pt__manifest_event(b, "Palev_TraceGolden:PhaseBegin"), eb);
    pt__manifest_free(b);
}

static const pt_class *class_named(const pt_reader *r, const char *name)
{
    for (unsigned i = 0; i < pt_class_count(r); i++)
        if (strcmp(pt_class_at(r, i)->name, name) == 0)
            return pt_class_at(r, i);
    return NULL;
}

static pt_reader *open_and_run(const char *manifest)
{
    const char *paths[1] = { in_dir("trace") }, *manifests[1] = { manifest };
    pt_input in = { .paths = paths, .npaths = 1, .manifests = manifests, .nmanifests = manifest != NULL };
    pt_sink none = { 0 };
    pt_reader *r = NULL;
    assert_int_equal(pt_open(&in, &r), 0);
    assert_int_equal(pt_run(r, &none), 0);
    return r;
}

/* Three readers open at once: -m a.man, -m b.man, none. Each event class points into its own
 * reader's manifests; closing the first leaves the second's intact. */
static void readers_own_their_manifests(void **state)
{
    (void)state;
    pt_reader *a = open_and_run(in_dir("a.man")), *b = open_and_run(in_dir("b.man"));
    pt_reader *none = open_and_run(NULL);
    assert_int_equal(pt_manifest_count(a), 1);
    assert_int_equal(pt_manifest_count(b), 1);
    assert_int_equal(pt_manifest_count(none), 0);
    const pt_class *ca = class_named(a, "Palev_TraceGolden:PhaseBegin");
    const pt_class *cb = class_named(b, "Palev_TraceGolden:PhaseBegin");
    const pt_class *cn = class_named(none, "Palev_TraceGolden:PhaseBegin");
    assert_non_null(ca);
    assert_non_null(cb);
    assert_non_null(cn);
    assert_string_equal(ca->man->loc.file, in_dir("a.man"));
    assert_string_equal(cb->man->loc.file, in_dir("b.man"));
    assert_null(cn->man);
    pt_close(a);
    assert_string_equal(cb->man->loc.file, in_dir("b.man"));
    assert_string_equal(cb->man->lttng_name, "PhaseBegin");
    assert_string_equal(cb->man->task->name, "Phase");
    assert_int_equal(pt_manifest_count(b), 1);
    pt_close(b);
    pt_close(none);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registries_are_separate),
        cmocka_unit_test(readers_own_their_manifests),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
