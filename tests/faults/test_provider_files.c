/* SPDX-License-Identifier: MIT */
/* Files with a probe provider's name that dlopen cannot survive: a FIFO (opening it to read
 * waits for a writer forever), a shared object cut short (its segments are mapped past the end of
 * the file: SIGBUS at the first touch). palev_provider_register() must refuse them at once with
 * -ENOENT. PALEV_PROVIDER_PATH (set by ctest) is PALEV_TEST_DIR, where this test makes them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "paleventing-gen.h"

#define DIR PALEV_TEST_DIR
#define WHOLE DIR "/libPalevWhole-lttng.so"

static int register_name(const char *name)
{
    palev_provider p = { .struct_size = sizeof(p), .name = name, .etw_name = name,
                         .abi_version = PALEV_ABI_VERSION };

    return palev_provider_register(&p);
}

/* The first `n` bytes of the well-formed object, under another provider's name. */
static void cut_copy(const char *name, long n)
{
    char path[512], buf[65536];
    FILE *in = fopen(WHOLE, "rb"), *out;
    size_t got;

    snprintf(path, sizeof(path), DIR "/lib%s-lttng.so", name);
    out = fopen(path, "wb");
    assert_non_null(in);
    assert_non_null(out);
    got = fread(buf, 1, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf), in);
    assert_int_equal(got, (size_t)n);
    assert_int_equal(fwrite(buf, 1, got, out), got);
    fclose(in);
    fclose(out);
}

static void test_whole_object_loads(void **state)
{
    (void)state;
    assert_int_equal(register_name("PalevWhole"), 0);
}

static void test_fifo_refused_at_once(void **state)
{
    (void)state;
    unlink(DIR "/libPalevFifo-lttng.so");
    assert_int_equal(mkfifo(DIR "/libPalevFifo-lttng.so", 0644), 0);
    alarm(20);  /* before the fix, dlopen waited for a writer forever */
    assert_int_equal(register_name("PalevFifo"), -ENOENT);
    alarm(0);
}

/* The ELF header and program headers intact, the segments cut off. */
static void test_cut_object_refused(void **state)
{
    (void)state;
    cut_copy("PalevCut", 4096);
    assert_int_equal(register_name("PalevCut"), -ENOENT);
}

/* Cut inside the program headers: dlopen refuses that itself; it must stay -ENOENT. */
static void test_cut_headers_refused(void **state)
{
    (void)state;
    cut_copy("PalevCutHeaders", 100);
    assert_int_equal(register_name("PalevCutHeaders"), -ENOENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_object_loads),
        cmocka_unit_test(test_fifo_refused_at_once),
        cmocka_unit_test(test_cut_object_refused),
        cmocka_unit_test(test_cut_headers_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
