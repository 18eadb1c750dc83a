/* SPDX-License-Identifier: MIT */
/* Unit tests of the environment table (env.c), with an injected getenv. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

/* The fake environment: NULL-terminated name/value pairs. */
static const char *const *fake_env;

static const char *fake_getenv(const char *name)
{
    for (const char *const *e = fake_env; e && e[0]; e += 2)
        if (strcmp(e[0], name) == 0)
            return e[1];
    return NULL;
}

static struct palev__config parse(const char *const *env)
{
    struct palev__config cfg;

    fake_env = env;
    assert_int_equal(palev__config_parse(&cfg, fake_getenv), 0);
    return cfg;
}

static void test_unset(void **state)
{
    struct palev__config cfg = parse(NULL);

    (void)state;
    assert_int_equal(cfg.lttng, 1);
    assert_int_equal(cfg.debug, 0);
    assert_int_equal(cfg.path_count, 0);
    assert_int_equal(cfg.source_filter.count, 0);
    assert_int_equal(cfg.name_filter.count, 0);
    palev__config_free(&cfg);
}

static void check_lttng(const char *value, int want)
{
    const char *env[] = { "PALEV_LTTNG", value, NULL };
    struct palev__config cfg = parse(env);

    assert_int_equal(cfg.lttng, want);
    palev__config_free(&cfg);
}

static void test_lttng(void **state)
{
    (void)state;
    check_lttng("0", 0);
    check_lttng("1", 1);
    check_lttng("", 1);
    check_lttng("00", 1);
    check_lttng("no", 1);
}

static void check_fork_hooks(const char *value, int want)
{
    const char *env[] = { "PALEV_FORK_HOOKS", value, NULL };
    struct palev__config cfg = parse(env);

    assert_int_equal(cfg.fork_hooks, want);
    palev__config_free(&cfg);
}

/* On unless exactly "0": a host registering the hooks itself turns ours off. */
static void test_fork_hooks(void **state)
{
    const char *none[] = { NULL };
    struct palev__config cfg = parse(none);

    (void)state;
    assert_int_equal(cfg.fork_hooks, 1);
    palev__config_free(&cfg);
    check_fork_hooks("0", 0);
    check_fork_hooks("1", 1);
    check_fork_hooks("", 1);
    check_fork_hooks("off", 1);
}

static void check_debug(const char *value, int want)
{
    const char *env[] = { "PALEV_DEBUG", value, NULL };
    struct palev__config cfg = parse(env);

    assert_int_equal(cfg.debug, want);
    palev__config_free(&cfg);
}

static void test_debug(void **state)
{
    (void)state;
    check_debug("0", 0);
    check_debug("1", 1);
    check_debug("", 1);
    check_debug("yes", 1);
}

/* `want` is the directories joined with '|', to compare in one assertion. */
static void check_path(const char *value, size_t want_count, const char *want)
{
    const char *env[] = { "PALEV_PROVIDER_PATH", value, NULL };
    struct palev__config cfg = parse(env);
    char joined[256] = "";

    assert_int_equal(cfg.path_count, want_count);
    for (size_t i = 0; i < cfg.path_count; i++) {
        assert_true(cfg.path[i][0] != '\0');
        if (i)
            strcat(joined, "|");
        strcat(joined, cfg.path[i]);
    }
    assert_string_equal(joined, want);
    palev__config_free(&cfg);
}

static void test_provider_path(void **state)
{
    (void)state;
    check_path("/opt/a", 1, "/opt/a");
    check_path("/opt/a:/opt/b", 2, "/opt/a|/opt/b");
    check_path("::/opt/a:::/opt/b:", 2, "/opt/a|/opt/b");
    check_path("rel/dir:/abs dir", 2, "rel/dir|/abs dir");
    check_path("", 0, "");
    check_path(":::", 0, "");
}

/* `want` is the entries joined with '|'. */
static void assert_filter(const struct palev__filter *f, size_t want_count, const char *want)
{
    char joined[256] = "";

    assert_int_equal(f->count, want_count);
    for (size_t i = 0; i < f->count; i++) {
        if (i)
            strcat(joined, "|");
        strcat(joined, f->needle[i]);
    }
    assert_string_equal(joined, want);
}

/* Each variable feeds its own filter, parsed once: lowercased, trimmed, empty entries dropped. */
static void test_eventsource_filters(void **state)
{
    const char *env[] = { "PALEV_EVENTSOURCE_FILTER", "MyApp-Http, System.Threading,",
                          "PALEV_EVENTNAME_FILTER", "Start", NULL };
    const char *empty[] = { "PALEV_EVENTSOURCE_FILTER", "", "PALEV_EVENTNAME_FILTER", " , ,",
                            NULL };
    struct palev__config cfg = parse(env);

    (void)state;
    assert_filter(&cfg.source_filter, 2, "myapp-http|system.threading");
    assert_filter(&cfg.name_filter, 1, "start");
    palev__config_free(&cfg);
    assert_int_equal(cfg.source_filter.count, 0);
    assert_null(cfg.source_filter.needle);
    assert_null(cfg.name_filter.needle);
    cfg = parse(empty);
    assert_filter(&cfg.source_filter, 0, "");
    assert_filter(&cfg.name_filter, 0, "");
    palev__config_free(&cfg);
}

static void check_stack(const char *mode, const char *depth, int want_mode, size_t want_depth)
{
    const char *env[] = { "PALEV_STACK", mode, "PALEV_STACK_DEPTH", depth, NULL };
    struct palev__config cfg = parse(env);

    assert_int_equal(cfg.stack, want_mode);
    assert_int_equal(cfg.stack_depth, want_depth);
    palev__config_free(&cfg);
}

/* Anything but "unwind" walks frame pointers; a depth outside 1..128 keeps 32. */
static void test_stack(void **state)
{
    (void)state;
    check_stack(NULL, NULL, PALEV__STACK_FP, 32);
    check_stack("unwind", "16", PALEV__STACK_UNWIND, 16);
    check_stack("fp", "1", PALEV__STACK_FP, 1);
    check_stack("UNWIND", "128", PALEV__STACK_FP, 128);
    check_stack("", "129", PALEV__STACK_FP, 32);
    check_stack("unwind ", "0", PALEV__STACK_FP, 32);
    check_stack("x", "-1", PALEV__STACK_FP, 32);
    check_stack("x", "16k", PALEV__STACK_FP, 32);
    check_stack("x", "", PALEV__STACK_FP, 32);
    check_stack("x", "99999999999999999999999", PALEV__STACK_FP, 32);
}

static void test_all_together(void **state)
{
    const char *env[] = { "PALEV_DEBUG", "1", "PALEV_LTTNG", "0", "PALEV_PROVIDER_PATH", "/p",
                          "UNRELATED", "x", "PALEV_EVENTNAME_FILTER", "GC",
                          "PALEV_EVENTSOURCE_FILTER", "Rt", NULL };
    struct palev__config cfg = parse(env);

    (void)state;
    assert_int_equal(cfg.lttng, 0);
    assert_int_equal(cfg.debug, 1);
    assert_int_equal(cfg.path_count, 1);
    assert_string_equal(cfg.path[0], "/p");
    assert_filter(&cfg.source_filter, 1, "rt");
    assert_filter(&cfg.name_filter, 1, "gc");
    palev__config_free(&cfg);
    assert_null(cfg.path);
    assert_int_equal(cfg.path_count, 0);
}

static void *failing_malloc(size_t size)
{
    (void)size;
    return NULL;
}

/* Out of memory for the lists: the other variables still count, the error is reported, and
 * the filters are left empty (matching everything), never half-parsed. */
static void test_out_of_memory(void **state)
{
    const char *env[] = { "PALEV_DEBUG", "1", "PALEV_LTTNG", "0", "PALEV_PROVIDER_PATH", "/p",
                          "PALEV_EVENTSOURCE_FILTER", "a,b", "PALEV_EVENTNAME_FILTER", "c", NULL };
    void *(*saved)(size_t) = palev__malloc;
    struct palev__config cfg;

    (void)state;
    fake_env = env;
    palev__malloc = failing_malloc;
    assert_int_equal(palev__config_parse(&cfg, fake_getenv), -ENOMEM);
    palev__malloc = saved;
    assert_int_equal(cfg.lttng, 0);
    assert_int_equal(cfg.debug, 1);
    assert_int_equal(cfg.path_count, 0);
    assert_filter(&cfg.source_filter, 0, "");
    assert_filter(&cfg.name_filter, 0, "");
    palev__config_free(&cfg);
}

/* main() set the real environment before the first palev__config(); later changes are unseen. */
static void test_process_config_read_once(void **state)
{
    const struct palev__config *cfg = palev__config();

    (void)state;
    assert_int_equal(palev__config_status(), 0);
    assert_int_equal(cfg->lttng, 0);
    assert_int_equal(cfg->debug, 0);
    assert_int_equal(cfg->path_count, 2);
    assert_string_equal(cfg->path[0], "/from/env");
    assert_string_equal(cfg->path[1], "/second");
    assert_filter(&cfg->source_filter, 1, "from env");
    setenv("PALEV_LTTNG", "1", 1);
    setenv("PALEV_PROVIDER_PATH", "/changed", 1);
    setenv("PALEV_EVENTSOURCE_FILTER", "changed", 1);
    assert_ptr_equal(palev__config(), cfg);
    assert_int_equal(cfg->lttng, 0);
    assert_int_equal(cfg->path_count, 2);
    assert_filter(&cfg->source_filter, 1, "from env");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unset),
        cmocka_unit_test(test_lttng),
        cmocka_unit_test(test_fork_hooks),
        cmocka_unit_test(test_debug),
        cmocka_unit_test(test_provider_path),
        cmocka_unit_test(test_eventsource_filters),
        cmocka_unit_test(test_stack),
        cmocka_unit_test(test_all_together),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_process_config_read_once),
    };

    /* Nothing has read the environment yet: this executable does not link provider.o, whose
     * constructor would. test_process_config_read_once fails if that ever changes. */
    setenv("PALEV_LTTNG", "0", 1);
    setenv("PALEV_PROVIDER_PATH", "/from/env::/second", 1);
    setenv("PALEV_EVENTSOURCE_FILTER", " From Env ", 1);
    unsetenv("PALEV_DEBUG");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
