/* SPDX-License-Identifier: MIT */
/* Unit tests of provider loading (provider.c), each scenario in a fresh process of its own. */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "child.h"
#include "paleventing-gen.h"

/* The environment is read once per process and a provider is loaded once per process, so every
 * scenario runs as a child: this executable with "--child MODE NAME...", a chosen environment,
 * and stdout/stderr captured. The child prints what it observed on stdout; the parent asserts. */

#define DIR PALEV_TEST_PROVIDER_DIR
#define BIN PALEV_TEST_BIN_DIR
/* Where libpaleventing.so and its own probe provider, libPaleventing-lttng.so, are. */
#define LIB PALEV_TEST_LIB_DIR
#define NOWHERE "/nonexistent-palev-dir"
#define THREADS 8
/* The location every diagnostic ends with. */
#define AT " (in *() at provider.c:[0-9]*)"

/* Incremented by the constructors of the fake providers, which link against it. */
extern int palev_test_load_count;
int palev_test_load_count;
/* Set by libPalevSelf-lttng.so's constructor, which registers PalevSelf and PalevFake. */
extern int palev_test_inner_ret[2];
int palev_test_inner_ret[2] = { 1, 1 };

/* ---- the child side --------------------------------------------------------------------- */

static int register_name(const char *name)
{
    palev_provider p = { .struct_size = sizeof(p), .name = name, .etw_name = name,
                         .abi_version = PALEV_ABI_VERSION };

    return palev_provider_register(&p);
}

static void print_result(const int *ret, size_t n)
{
    printf("ret=");
    for (size_t i = 0; i < n; i++)
        printf("%s%d", i ? "," : "", ret[i]);
    printf(" loads=%d\n", __atomic_load_n(&palev_test_load_count, __ATOMIC_SEQ_CST));
}

static int child_register(int argc, char **argv)
{
    int ret[16];
    int n = 0;

    for (; n < argc && n < 16; n++)
        ret[n] = register_name(argv[n]);
    print_result(ret, (size_t)n);
    return 0;
}

static pthread_barrier_t start;

static void *thread_register(void *name)
{
    intptr_t ret;

    pthread_barrier_wait(&start);
    ret = register_name(name);
    return (void *)ret;
}

/* All threads are released at once by the barrier, so they race for the same name. */
static int child_threads(int argc, char **argv)
{
    pthread_t t[THREADS];
    int ret[THREADS];

    if (argc != 1)
        return 2;
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, thread_register, argv[0]);
    for (int i = 0; i < THREADS; i++) {
        void *r;

        pthread_join(t[i], &r);
        ret[i] = (int)(intptr_t)r;
    }
    pthread_barrier_destroy(&start);
    print_result(ret, THREADS);
    return 0;
}

static int child_fini(int argc, char **argv)
{
    int ret[2];

    if (argc != 1)
        return 2;
    palev_fini();
    ret[0] = register_name(argv[0]);
    ret[1] = palev_init();
    print_result(ret, 2);
    return 0;
}

static int child_reentrant(int argc, char **argv)
{
    int ret;

    if (argc != 1)
        return 2;
    ret = register_name(argv[0]);
    printf("ret=%d inner=%d,%d loads=%d\n", ret, palev_test_inner_ret[0],
           palev_test_inner_ret[1], palev_test_load_count);
    return 0;
}

/* PALEV_LOAD=background: register NAME... (queued), wait 20 ms, wait for good, register again. */
static int child_background(int argc, char **argv)
{
    int ret[4], again[4], w1, w2;
    int n = argc < 4 ? argc : 4;

    for (int i = 0; i < n; i++)
        ret[i] = register_name(argv[i]);
    w1 = palev_provider_wait(20);
    w2 = palev_provider_wait(10000);
    for (int i = 0; i < n; i++)
        again[i] = register_name(argv[i]);
    printf("ret=");
    for (int i = 0; i < n; i++)
        printf("%s%d", i ? "," : "", ret[i]);
    printf(" wait=%d,%d again=", w1, w2);
    for (int i = 0; i < n; i++)
        printf("%s%d", i ? "," : "", again[i]);
    printf(" inner=%d,%d loads=%d\n", palev_test_inner_ret[0], palev_test_inner_ret[1],
           __atomic_load_n(&palev_test_load_count, __ATOMIC_SEQ_CST));
    return 0;
}

/* PALEV_LOAD=background: fork at once while NAME loads; the fork waits for the load, so the
 * child has it (registering again gives 0) and never hangs. */
static int child_background_fork(int argc, char **argv)
{
    int ret, status;
    pid_t pid;

    if (argc != 1)
        return 2;
    ret = register_name(argv[0]);
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        alarm(10);
        printf("child again=%d wait=%d loads=%d\n", register_name(argv[0]),
               palev_provider_wait(0), palev_test_load_count);
        fflush(stdout);
        _exit(0);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return 1;
    printf("parent ret=%d again=%d loads=%d\n", ret, register_name(argv[0]),
           palev_test_load_count);
    return 0;
}

static int child_invalid(int argc, char **argv)
{
    char longest[256], too_long[257];
    palev_provider small = { .struct_size = offsetof(palev_provider, event_states),
                             .name = "Good" };
    int ret[9];

    (void)argc;
    (void)argv;
    memset(longest, 'a', 255);
    longest[255] = '\0';
    memset(too_long, 'a', 256);
    too_long[256] = '\0';
    ret[0] = palev_provider_register(NULL);
    ret[1] = register_name(NULL);
    ret[2] = register_name("");
    ret[3] = register_name("Bad-Name");
    ret[4] = register_name("a b");
    ret[5] = register_name("caf\xc3\xa9");
    ret[6] = register_name(too_long);
    ret[7] = palev_provider_register(&small);
    ret[8] = register_name(longest);   /* valid: reaches the PALEV_LTTNG=0 check */
    print_result(ret, 9);
    return 0;
}

static const struct child_mode child_modes[] = {
    { "register", child_register },
    { "threads", child_threads },
    { "fini", child_fini },
    { "invalid", child_invalid },
    { "reentrant", child_reentrant },
    { "background", child_background },
    { "bgfork", child_background_fork },
};

/* ---- the parent side -------------------------------------------------------------------- */

struct run {
    struct child c;
    char own[16384];    /* the lines of err about the library's own provider, Paleventing */
};

/* libpaleventing registers its own provider from its constructor in every child: move those
 * lines from r->c.err to r->own, so that each test asserts the lines it is about. */
static void split_own(struct run *r)
{
    char *line = r->c.err, *keep = r->c.err;
    size_t own = 0;

    while (*line) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);

        if (memmem(line, len, "Paleventing", strlen("Paleventing"))) {
            memcpy(r->own + own, line, len);
            own += len;
        } else {
            memmove(keep, line, len);
            keep += len;
        }
        line += len;
    }
    *keep = '\0';
    r->own[own] = '\0';
}

/* argv: MODE NAME... (NULL-terminated); env: NULL-terminated "NAME=value" strings. */
static void run_child(struct run *r, const char *const *env, const char *const *args)
{
    child_run(&r->c, env, args, NULL);
    split_own(r);
}

/* Every line of `text` must match the fnmatch pattern in the same position, and no more. */
static void assert_lines(const char *text, const char *const *patterns)
{
    const char *line = text;
    size_t i = 0;

    for (; *line; i++) {
        const char *nl = strchr(line, '\n');
        char buf[4096];

        assert_non_null(nl);
        snprintf(buf, sizeof(buf), "%.*s", (int)(nl - line), line);
        if (!patterns[i])
            fail_msg("unexpected line %zu: %s", i + 1, buf);
        if (fnmatch(patterns[i], buf, 0) != 0)
            fail_msg("line %zu:\n  got:  %s\n  want: %s", i + 1, buf, patterns[i]);
        line = nl + 1;
    }
    if (patterns[i])
        fail_msg("missing line %zu: %s\nstderr was:\n%s", i + 1, patterns[i], text);
}


static void test_found_via_provider_path_once(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_PROVIDER_PATH=" DIR), ARGS("register", "PalevFake", "PalevFake"));
    assert_string_equal(r.c.out, "ret=0,0 loads=1\n");
    assert_string_equal(r.c.err, "");
}

static void test_debug_says_what_and_where(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_DEBUG=1", "PALEV_PROVIDER_PATH=" NOWHERE "::" DIR),
              ARGS("register", "PalevFake", "PalevFake"));
    assert_string_equal(r.c.out, "ret=0,0 loads=1\n");
    assert_lines(r.c.err, LINES(
        "paleventing: loaded provider: name=\"PalevFake\", path=\"" DIR "/libPalevFake-lttng.so\", "
        "after=\"" NOWHERE "/libPalevFake-lttng.so (No such file or directory)\"" AT));
}

static void test_threads_load_once(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_DEBUG=1", "PALEV_PROVIDER_PATH=" DIR), ARGS("threads", "PalevFake"));
    assert_string_equal(r.c.out, "ret=0,0,0,0,0,0,0,0 loads=1\n");
    assert_lines(r.c.err, LINES("paleventing: loaded provider: name=\"PalevFake\", path=\"" DIR
                              "/libPalevFake-lttng.so\"" AT));
}

static void test_missing_provider(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_PROVIDER_PATH=" DIR),
              ARGS("register", "PalevMissing", "PalevMissing"));
    assert_string_equal(r.c.out, "ret=-2,-2 loads=0\n");
    assert_string_equal(r.c.err, "");
}

/* Tried once, in order: the path, the executable's directory, (the registering module's: the
 * descriptor is on this test's stack, in no module), libpaleventing's directory, the default
 * search path; said in one line. */
static void test_missing_provider_debug(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_DEBUG=1", "PALEV_PROVIDER_PATH=" DIR),
              ARGS("register", "PalevMissing", "PalevMissing"));
    assert_string_equal(r.c.out, "ret=-2,-2 loads=0\n");
    assert_lines(r.c.err, LINES(
        "paleventing: provider not loaded: name=\"PalevMissing\", "
        "reason=\"no loadable libPalevMissing-lttng.so\", tried=\""
        DIR "/libPalevMissing-lttng.so (No such file or directory); "
        BIN "/libPalevMissing-lttng.so (No such file or directory); "
        LIB "/libPalevMissing-lttng.so (No such file or directory); "
        "the default search path (cannot open shared object file: No such file or directory)\""
        " (in load() at provider.c:[0-9]*)"));
}

/* Many places tried: the list is cut at 2047 characters, ending in "...", and stays one line. */
static void test_missing_provider_many_places(void **state)
{
    static char env[8192];
    struct run r;
    const char *tried, *end;
    size_t len = (size_t)snprintf(env, sizeof(env), "PALEV_PROVIDER_PATH=");

    (void)state;
    for (int i = 0; i < 30; i++)
        len += (size_t)snprintf(env + len, sizeof(env) - len, "%s/%02d-%0100d:", NOWHERE, i, 0);
    run_child(&r, ENV("PALEV_DEBUG=1", env), ARGS("register", "PalevMissing"));
    assert_string_equal(r.c.out, "ret=-2 loads=0\n");
    assert_lines(r.c.err, LINES("paleventing: provider not loaded: name=\"PalevMissing\", "
                              "reason=\"no loadable libPalevMissing-lttng.so\", tried=\""
                              NOWHERE "/00-0*; " NOWHERE "/01-0*...\"" AT));
    tried = strstr(r.c.err, "tried=\"") + strlen("tried=\"");
    end = strstr(tried, "\" (in ");
    assert_non_null(end);
    assert_int_equal(end - tried, 2047);
}

static void test_bad_file(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_PROVIDER_PATH=" DIR), ARGS("register", "PalevBad"));
    assert_string_equal(r.c.out, "ret=-2 loads=0\n");
    assert_string_equal(r.c.err, "");
    run_child(&r, ENV("PALEV_DEBUG=1", "PALEV_PROVIDER_PATH=" DIR), ARGS("register", "PalevBad"));
    assert_string_equal(r.c.out, "ret=-2 loads=0\n");
    assert_lines(r.c.err, LINES(
        "paleventing: provider not loaded: name=\"PalevBad\", "
        "reason=\"no loadable libPalevBad-lttng.so\", tried=\""
        DIR "/libPalevBad-lttng.so (invalid ELF header); "
        BIN "/libPalevBad-lttng.so (No such file or directory); "
        LIB "/libPalevBad-lttng.so (No such file or directory); "
        "the default search path (cannot open shared object file: No such file or directory)\"" AT));
}

/* A provider whose own dependency is missing, as when liblttng-ust is not installed. */
static void test_missing_dependency(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_DEBUG=1", "PALEV_PROVIDER_PATH=" DIR), ARGS("register", "PalevNodep"));
    assert_string_equal(r.c.out, "ret=-2 loads=0\n");
    assert_lines(r.c.err, LINES(
        "paleventing: provider not loaded: name=\"PalevNodep\", "
        "reason=\"no loadable libPalevNodep-lttng.so\", tried=\""
        DIR "/libPalevNodep-lttng.so (libpalev_gone.so: cannot open shared object file: "
        "No such file or directory); *\"" AT));
}

static void test_disabled(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_LTTNG=0", "PALEV_PROVIDER_PATH=" DIR),
              ARGS("register", "PalevFake", "PalevFake"));
    assert_string_equal(r.c.out, "ret=-125,-125 loads=0\n");
    assert_string_equal(r.c.err, "");
    run_child(&r, ENV("PALEV_LTTNG=0", "PALEV_DEBUG=1", "PALEV_PROVIDER_PATH=" DIR),
              ARGS("register", "PalevFake"));
    assert_string_equal(r.c.out, "ret=-125 loads=0\n");
    assert_lines(r.c.err, LINES("paleventing: provider not loaded: name=\"PalevFake\", "
                              "reason=\"PALEV_LTTNG=0\"" AT));
}

static void test_next_to_executable(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_DEBUG=1"), ARGS("register", "PalevNear"));
    assert_string_equal(r.c.out, "ret=0 loads=1\n");
    assert_lines(r.c.err, LINES("paleventing: loaded provider: name=\"PalevNear\", path=\"" BIN
                              "/libPalevNear-lttng.so\"" AT));
}

static void test_default_search_path(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_DEBUG=1", "LD_LIBRARY_PATH=" DIR), ARGS("register", "PalevFake"));
    assert_string_equal(r.c.out, "ret=0 loads=1\n");
    assert_lines(r.c.err, LINES(
        "paleventing: loaded provider: name=\"PalevFake\", path=\"libPalevFake-lttng.so\", "
        "after=\"" BIN "/libPalevFake-lttng.so (No such file or directory); "
        LIB "/libPalevFake-lttng.so (No such file or directory)\"" AT));
}

/* A provider's constructor registering providers runs while the registry is mid-load: its own
 * name fails at once instead of waiting for itself, another name loads (dlopen inside dlopen). */
static void test_register_from_provider_constructor(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_DEBUG=1", "PALEV_PROVIDER_PATH=" DIR), ARGS("reentrant", "PalevSelf"));
    assert_string_equal(r.c.out, "ret=0 inner=-35,0 loads=2\n");
    assert_lines(r.c.err, LINES(
        "paleventing: provider not loaded: name=\"PalevSelf\", "
        "reason=\"registered again by the thread loading it\"" AT,
        "paleventing: loaded provider: name=\"PalevFake\", path=\"" DIR
        "/libPalevFake-lttng.so\"" AT,
        "paleventing: loaded provider: name=\"PalevSelf\", path=\"" DIR
        "/libPalevSelf-lttng.so\"" AT));
}

/* PALEV_LOAD=background: registration queues the load and returns -EINPROGRESS at once; a
 * thread loads the queue in order; palev_provider_wait() times out while a load is under way,
 * then returns 0; registering again gives the outcome. */
static void test_background(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_DEBUG=1", "PALEV_LOAD=background", "PALEV_PROVIDER_PATH=" DIR),
              ARGS("background", "PalevSlow", "PalevFake", "PalevMissing"));
    assert_string_equal(r.c.out,
                        "ret=-115,-115,-115 wait=-110,0 again=0,0,-2 inner=1,1 loads=2\n");
    assert_lines(r.c.err, LINES(
        "paleventing: loaded provider: name=\"PalevSlow\", path=\"" DIR
        "/libPalevSlow-lttng.so\"" AT,
        "paleventing: loaded provider: name=\"PalevFake\", path=\"" DIR
        "/libPalevFake-lttng.so\"" AT,
        "paleventing: provider not loaded: name=\"PalevMissing\", *"));
    assert_lines(r.own, LINES("paleventing: loaded provider: name=\"Paleventing\", *"));
}

/* In the background mode a provider's constructor registering providers runs on the loader
 * thread: its own name fails at once, another name is queued behind it. */
static void test_background_reentrant(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_LOAD=background", "PALEV_PROVIDER_PATH=" DIR),
              ARGS("background", "PalevSelf"));
    assert_int_equal(fnmatch("ret=-115 wait=*,0 again=0 inner=-35,-115 loads=2\n", r.c.out, 0),
                     0);
}

/* A fork while a provider loads in the background waits for the load: the child has it. */
static void test_background_fork(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_LOAD=background", "PALEV_PROVIDER_PATH=" DIR),
              ARGS("bgfork", "PalevSlow"));
    assert_string_equal(r.c.out, "child again=0 wait=0 loads=1\nparent ret=-115 again=0 loads=1\n");
}

/* With the fork hooks called by the host (PALEV_FORK_HOOKS=0) a fork could not wait for a load:
 * the background mode is refused, said once, and providers load at registration. */
static void test_background_refused(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_DEBUG=1", "PALEV_LOAD=background", "PALEV_FORK_HOOKS=0",
                      "PALEV_PROVIDER_PATH=" DIR), ARGS("register", "PalevFake"));
    assert_string_equal(r.c.out, "ret=0 loads=1\n");
    assert_lines(r.c.err, LINES(
        "paleventing: PALEV_LOAD=background ignored: liblttng-ust's fork hooks are called by "
        "liblttng-ust-fork.so or by the host (PALEV_FORK_HOOKS=0), so a fork could not wait for "
        "the load: loading at once" AT,
        "paleventing: fork hooks: called by liblttng-ust-fork.so or by the host "
        "(PALEV_FORK_HOOKS=0) (in install_fork_hooks() at ust.c:[0-9]*)",
        "paleventing: loaded provider: name=\"PalevFake\", path=\"" DIR
        "/libPalevFake-lttng.so\"" AT));
    assert_lines(r.own, LINES("paleventing: loaded provider: name=\"Paleventing\", *"));
}

/* The library's own provider comes from the library's directory, after the path and the
 * executable's directory: this executable is not in the library's directory. */
static void test_own_provider_beside_library(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_DEBUG=1", "PALEV_PROVIDER_PATH=" NOWHERE), ARGS("register"));
    assert_string_equal(r.c.out, "ret= loads=0\n");
    assert_string_equal(r.c.err, "");
    assert_lines(r.own, LINES(
        "paleventing: loaded provider: name=\"Paleventing\", path=\"" LIB
        "/libPaleventing-lttng.so\", after=\"" NOWHERE "/libPaleventing-lttng.so (*); "
        BIN "/libPaleventing-lttng.so (*)\"" AT));
    run_child(&r, ENV("PALEV_DEBUG=1", "PALEV_LTTNG=0"), ARGS("register"));
    assert_lines(r.own, LINES("paleventing: provider not loaded: name=\"Paleventing\", "
                              "reason=\"PALEV_LTTNG=0\"" AT));
    run_child(&r, ENV("PALEV_PROVIDER_PATH=" NOWHERE), ARGS("register"));
    assert_string_equal(r.own, "");
}

static void test_after_fini(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_PROVIDER_PATH=" DIR), ARGS("fini", "PalevFake"));
    assert_string_equal(r.c.out, "ret=-125,0 loads=0\n");
    assert_string_equal(r.c.err, "");
}

static void test_invalid_providers(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_LTTNG=0"), ARGS("invalid"));
    assert_string_equal(r.c.out, "ret=-22,-22,-22,-22,-22,-22,-22,-22,-125 loads=0\n");
    assert_string_equal(r.c.err, "");
}

/* Also in this process: validation happens before anything else and loads nothing. */
static void test_invalid_in_process(void **state)
{
    palev_provider p = { .struct_size = sizeof(p), .name = "no-dash" };

    (void)state;
    assert_int_equal(palev_provider_register(NULL), -EINVAL);
    assert_int_equal(palev_provider_register(&p), -EINVAL);
    p.struct_size = 8;
    p.name = "Fine";
    assert_int_equal(palev_provider_register(&p), -EINVAL);
    assert_int_equal(palev_test_load_count, 0);
}

/* A descriptor compiled with another PALEV_ABI_VERSION is refused before anything is loaded,
 * and its name stays unloaded; one from before the field (struct_size ending at layout) is of
 * version 1, the layouts it was compiled with. */
static void test_abi_version(void **state)
{
    /* PalevNear's probe provider is beside this executable: found, were it looked for. */
    palev_provider p = { .struct_size = sizeof(p), .name = "PalevNear", .etw_name = "Near",
                         .abi_version = PALEV_ABI_VERSION + 1 };

    (void)state;
    assert_int_equal(palev_provider_register(&p), -EPROTO);
    p.abi_version = 0;
    assert_int_equal(palev_provider_register(&p), -EPROTO);
    p.abi_version = PALEV_ABI_VERSION;
    assert_int_equal(palev_provider_register(&p), -EPROTO);     /* the name was refused */
    assert_int_equal(palev_test_load_count, 0);
    p.name = "PalevOld";
    p.abi_version = 77;
    p.struct_size = offsetof(palev_provider, abi_version);
    assert_int_equal(palev_provider_register(&p), -ENOENT);     /* version 1: looked for */
    assert_string_equal(palev_strerror(-EPROTO),
                        "a generated provider compiled with paleventing headers of another ABI "
                        "version (PALEV_ABI_VERSION): its tracing is off; rebuild it against "
                        "this library's headers");
}

static void test_strerror(void **state)
{
    static const int errs[] = { -EINVAL, -ENOENT, -ECANCELED, -ENOMEM, -EDEADLK, -EPROTO,
                                -EINPROGRESS, -ETIMEDOUT };
    const char *generic = palev_strerror(-9999);

    (void)state;
    assert_non_null(generic);
    assert_string_equal(palev_strerror(12345), generic);
    assert_string_equal(palev_strerror(0), "success");
    for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
        assert_non_null(palev_strerror(errs[i]));
        assert_string_not_equal(palev_strerror(errs[i]), generic);
        for (size_t k = 0; k < i; k++)
            assert_string_not_equal(palev_strerror(errs[i]), palev_strerror(errs[k]));
    }
    assert_non_null(strstr(palev_strerror(-ENOENT), "not"));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_found_via_provider_path_once),
        cmocka_unit_test(test_debug_says_what_and_where),
        cmocka_unit_test(test_threads_load_once),
        cmocka_unit_test(test_missing_provider),
        cmocka_unit_test(test_missing_provider_debug),
        cmocka_unit_test(test_missing_provider_many_places),
        cmocka_unit_test(test_bad_file),
        cmocka_unit_test(test_missing_dependency),
        cmocka_unit_test(test_disabled),
        cmocka_unit_test(test_next_to_executable),
        cmocka_unit_test(test_default_search_path),
        cmocka_unit_test(test_register_from_provider_constructor),
        cmocka_unit_test(test_background),
        cmocka_unit_test(test_background_reentrant),
        cmocka_unit_test(test_background_fork),
        cmocka_unit_test(test_background_refused),
        cmocka_unit_test(test_own_provider_beside_library),
        cmocka_unit_test(test_after_fini),
        cmocka_unit_test(test_invalid_providers),
        cmocka_unit_test(test_invalid_in_process),
        cmocka_unit_test(test_abi_version),
        cmocka_unit_test(test_strerror),
    };

    if (argc >= 3 && strcmp(argv[1], "--child") == 0)
        return child_dispatch(child_modes, sizeof(child_modes) / sizeof(child_modes[0]), argc - 2,
                              argv + 2);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
