/* SPDX-License-Identifier: MIT */
/* Unit tests of stack.c's merge of native and logical frames (with their lines), and of the
 * walker registries: process-wide (RCU) and per thread. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

/* Three native frames: ip 0xA returns into a function whose frame ends at 0x1100, 0xB at
 * 0x1200, 0xC at 0x1300 (stack addresses grow outwards). */
static void native3(struct palev__native *nat)
{
    nat->ip[0] = 0xA, nat->top[0] = 0x1100;
    nat->ip[1] = 0xB, nat->top[1] = 0x1200;
    nat->ip[2] = 0xC, nat->top[2] = 0x1300;
}

static void check_lines(const palev_stack_frame *lf, size_t nl, size_t max, const uint64_t *want,
                        const uint32_t *want_lines, size_t nwant)
{
    static struct palev__native nat;
    uint64_t out[16];
    uint32_t lines[16];
    size_t n;

    native3(&nat);
    n = palev__stack_merge(out, lines, max, &nat, 3, lf, nl);
    assert_int_equal(n, nwant);
    assert_memory_equal(out, want, nwant * sizeof(*want));
    if (want_lines)
        assert_memory_equal(lines, want_lines, nwant * sizeof(*want_lines));
}

static void check(const palev_stack_frame *lf, size_t nl, size_t max, const uint64_t *want,
                  size_t nwant)
{
    check_lines(lf, nl, max, want, NULL, nwant);
}

/* A logical frame goes inside the first native frame whose extent holds its frame address. */
static void test_placed_inside_its_frame(void **state)
{
    const palev_stack_frame lf[] = { { 0x51, 0x1150, 0 }, { 0x52, 0x1150, 0 },
                                     { 0x53, 0x1250, 0 } };
    const uint64_t want[] = { 0xA, 0x51, 0x52, 0xB, 0x53, 0xC };

    (void)state;
    check(lf, 3, 16, want, 6);
}

static void test_innermost_and_unknown(void **state)
{
    /* sorted as walk_logical() sorts them: frame 0 counts as outermost */
    const palev_stack_frame lf[] = { { 0x51, 0x1000, 0 }, { 0x53, 0x9999, 0 },
                                     { 0x52, 0, 0 } };
    const uint64_t want[] = { 0x51, 0xA, 0xB, 0xC, 0x53, 0x52 };

    (void)state;
    check(lf, 3, 16, want, 6);
}

static void test_depth_limit(void **state)
{
    const palev_stack_frame lf[] = { { 0x51, 0x1150, 0 } };
    const uint64_t want[] = { 0xA, 0x51 };
    const uint64_t none[] = { 0 };

    (void)state;
    check(lf, 1, 2, want, 2);
    check(NULL, 0, 0, none, 0);
}

/* Each logical frame keeps its line wherever it lands; native frames have none. */
static void test_lines(void **state)
{
    const palev_stack_frame lf[] = { { 0x51, 0x1150, 12 }, { 0x52, 0x1150, 0 },
                                     { 0x53, 0, 7 } };
    const uint64_t want[] = { 0xA, 0x51, 0x52, 0xB, 0xC, 0x53 };
    const uint32_t want_lines[] = { 0, 12, 0, 0, 0, 7 };

    (void)state;
    check_lines(lf, 3, 16, want, want_lines, 6);
}

static size_t walker(void *ctx, palev_stack_frame *frames, size_t max)
{
    (void)ctx, (void)frames, (void)max;
    return 0;
}

static size_t other_walker(void *ctx, palev_stack_frame *frames, size_t max)
{
    (void)ctx, (void)frames, (void)max;
    return 0;
}

/* Pairs of fn and ctx: at most 16, each once; removal frees a place. */
static void test_walkers(void **state)
{
    (void)state;
    assert_int_equal(palev_stack_add_walker(NULL, NULL), -EINVAL);
    assert_int_equal(palev_stack_remove_walker(NULL, NULL), -EINVAL);
    assert_int_equal(palev_stack_remove_walker(walker, NULL), -ENOENT);
    for (uintptr_t i = 0; i < 16; i++)
        assert_int_equal(palev_stack_add_walker(walker, (void *)i), 0);
    assert_int_equal(palev_stack_add_walker(walker, (void *)3), -EEXIST);
    assert_int_equal(palev_stack_add_walker(walker, (void *)16), -ENOSPC);
    assert_int_equal(palev_stack_remove_walker(walker, (void *)3), 0);
    assert_int_equal(palev_stack_remove_walker(walker, (void *)3), -ENOENT);
    assert_int_equal(palev_stack_remove_walker(other_walker, (void *)4), -ENOENT);
    assert_int_equal(palev_stack_add_walker(walker, (void *)4), -EEXIST);
    assert_int_equal(palev_stack_add_walker(other_walker, (void *)3), 0);
    for (uintptr_t i = 0; i < 16; i++)
        assert_int_equal(palev_stack_remove_walker(i == 3 ? other_walker : walker, (void *)i), 0);
    assert_int_equal(palev_stack_add_walker(walker, NULL), 0);
    assert_int_equal(palev_stack_remove_walker(walker, NULL), 0);
}

/* A thread's walkers are its own: 4 at most, another thread's are not seen. */
static void *thread_walkers(void *arg)
{
    (void)arg;
    assert_int_equal(palev_stack_remove_thread_walker(walker, (void *)1), -ENOENT);
    assert_int_equal(palev_stack_add_thread_walker(walker, (void *)1), 0);
    assert_int_equal(palev_stack_remove_thread_walker(walker, (void *)1), 0);
    return NULL;
}

static void test_thread_walkers(void **state)
{
    pthread_t th;

    (void)state;
    assert_int_equal(palev_stack_add_thread_walker(NULL, NULL), -EINVAL);
    assert_int_equal(palev_stack_remove_thread_walker(NULL, NULL), -EINVAL);
    for (uintptr_t i = 0; i < 4; i++)
        assert_int_equal(palev_stack_add_thread_walker(walker, (void *)i), 0);
    assert_int_equal(palev_stack_add_thread_walker(walker, (void *)2), -EEXIST);
    assert_int_equal(palev_stack_add_thread_walker(walker, (void *)4), -ENOSPC);
    assert_int_equal(pthread_create(&th, NULL, thread_walkers, NULL), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(palev_stack_remove_thread_walker(walker, (void *)1), 0);
    assert_int_equal(palev_stack_add_thread_walker(walker, (void *)4), 0);
    assert_int_equal(palev_stack_add_thread_walker(walker, (void *)1), -ENOSPC);
    for (uintptr_t i = 0; i < 5; i++)
        assert_int_equal(palev_stack_remove_thread_walker(walker, (void *)i), i == 1 ? -ENOENT : 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_placed_inside_its_frame),
        cmocka_unit_test(test_innermost_and_unknown),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_walkers),
        cmocka_unit_test(test_thread_walkers),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
