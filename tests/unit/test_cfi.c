/* SPDX-License-Identifier: MIT */
/* Unit tests of cfi.c: a runtime's unwind description checked, evaluated at return addresses,
 * and written as .eh_frame (read back here with a decoder of the test's own). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

/* push rbp; sub rsp, 16; xor ebp, ebp; call *rdi; add rsp, 16; pop rbp; ret, described exactly:
 * +1 CFA rsp+16, rbp at CFA-16; +5 CFA rsp+32; +13 CFA rsp+16; +14 CFA rsp+8, rbp restored. */
static const uint8_t exact[] = { 0x41, 0x0e, 0x10, 0x86, 0x02, 0x44, 0x0e, 0x20,
                                 0x48, 0x0e, 0x10, 0x41, 0x0e, 0x08, 0xc6 };

static struct palev__unwind_rule *rule_of(uint32_t cfa_offset, uint32_t saved_fp,
                                          const void *cfi, size_t cfi_size)
{
    palev_code_unwind u = { cfa_offset, saved_fp, cfi, cfi_size };
    struct palev__unwind_rule *r;

    assert_int_equal(palev__unwind_rule_new(&u, &r), 0);
    return r;
}

static void test_rule_checks(void **state)
{
    static const uint8_t unknown_op[] = { 0x41, 0x1f };
    static const uint8_t truncated[] = { 0x0e };            /* def_cfa_offset without operand */
    static const uint8_t set_loc[] = { 0x01, 0, 0, 0, 0 };  /* operand depends on an encoding */
    static const uint8_t unbalanced[] = { 0x0b };           /* restore_state, nothing remembered */
    static const uint8_t deep[] = { 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a };
    static const uint8_t block[] = { 0x0f, 0x05, 0x77 };    /* expression longer than the data */
    static uint8_t big[PALEV__CFI_MAX + 1];
    const struct {
        palev_code_unwind u;
        int ret;
    } cases[] = {
        { { 32, 16, NULL, 0 }, 0 },
        { { 8, 0, NULL, 0 }, 0 },
        { { 0, 0, exact, sizeof(exact) }, 0 },
        { { 32, 16, exact, sizeof(exact) }, 0 },
        { { 0, 0, NULL, 0 }, -EINVAL },             /* neither form */
        { { 4, 0, NULL, 0 }, -EINVAL },             /* below the return address */
        { { 36, 0, NULL, 0 }, -EINVAL },            /* not a multiple of 8 */
        { { 32, 12, NULL, 0 }, -EINVAL },
        { { 32, 32, NULL, 0 }, -EINVAL },           /* rbp saved at or above the CFA */
        { { 0, 16, exact, sizeof(exact) }, -EINVAL },   /* saved_fp without a fixed frame */
        { { 0, 0, exact, 0 }, -EINVAL },
        { { 0, 0, unknown_op, sizeof(unknown_op) }, -EINVAL },
        { { 0, 0, truncated, sizeof(truncated) }, -EINVAL },
        { { 0, 0, set_loc, sizeof(set_loc) }, -EINVAL },
        { { 0, 0, unbalanced, sizeof(unbalanced) }, -EINVAL },
        { { 0, 0, deep, sizeof(deep) }, -EINVAL },
        { { 0, 0, block, sizeof(block) }, -EINVAL },
        { { 0, 0, big, sizeof(big) }, -EINVAL },
    };
    struct palev__unwind_rule *r;

    (void)state;
    assert_int_equal(palev__unwind_rule_new(NULL, &r), -EINVAL);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int ret = palev__unwind_rule_new(&cases[i].u, &r);

        if (ret != cases[i].ret)
            fail_msg("case %zu: %d, want %d", i, ret, cases[i].ret);
        assert_true(ret == 0 ? r != NULL : r == NULL);
        free(r);
    }
}

/* The rule at each byte of the code, as a return address just after it would see it. */
static void test_exact_instructions(void **state)
{
    struct palev__unwind_rule *r = rule_of(0, 0, exact, sizeof(exact));
    const struct {
        uint64_t pc;
        int64_t cfa;
        int fp;
        int64_t fp_off;
    } want[] = {
        { 0, 8, PALEV__FP_SAME, 0 },  { 1, 16, PALEV__FP_SAVED, -16 },
        { 4, 16, PALEV__FP_SAVED, -16 }, { 5, 32, PALEV__FP_SAVED, -16 },
        { 8, 32, PALEV__FP_SAVED, -16 },    /* the call: what the walk reads */
        { 12, 32, PALEV__FP_SAVED, -16 }, { 13, 16, PALEV__FP_SAVED, -16 },
        { 14, 8, PALEV__FP_SAME, 0 }, { 1000, 8, PALEV__FP_SAME, 0 },
    };
    struct palev__frame f;

    (void)state;
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        assert_int_equal(palev__cfi_frame(r, want[i].pc, &f), 0);
        assert_false(f.cfa_from_fp);
        assert_int_equal(f.cfa_offset, want[i].cfa);
        assert_int_equal(f.ra_offset, -8);
        assert_int_equal(f.fp, want[i].fp);
        if (f.fp == PALEV__FP_SAVED)
            assert_int_equal(f.fp_offset, want[i].fp_off);
    }
    free(r);
}

/* rbp as the CFA register, remembered state, the _sf and extended forms. */
static void test_other_forms(void **state)
{
    static const uint8_t cfi[] = {
        0x41, 0x0e, 0x10, 0x86, 0x02,       /* +1: CFA rsp+16, rbp at CFA-16 */
        0x43, 0x0d, 0x06,                   /* +4: CFA rbp+16 */
        0x0a,                               /* remember */
        0x42, 0x0c, 0x07, 0x28,             /* +6: CFA rsp+40 */
        0x11, 0x06, 0x03,                   /*     rbp at CFA-24 (offset_extended_sf 3) */
        0x42, 0x0b,                         /* +8: back to CFA rbp+16, rbp at CFA-16 */
        0x41, 0x08, 0x06,                   /* +9: rbp unchanged */
        0x41, 0x07, 0x06,                   /* +10: rbp undefined */
        0x41, 0x0f, 0x01, 0x9c,             /* +11: CFA an expression */
    };
    struct palev__unwind_rule *r = rule_of(0, 0, cfi, sizeof(cfi)), *both;
    struct palev__frame f;

    (void)state;
    assert_int_equal(palev__cfi_frame(r, 4, &f), 0);
    assert_true(f.cfa_from_fp);
    assert_int_equal(f.cfa_offset, 16);
    assert_int_equal(palev__cfi_frame(r, 6, &f), 0);
    assert_false(f.cfa_from_fp);
    assert_int_equal(f.cfa_offset, 40);
    assert_int_equal(f.fp_offset, -24);
    assert_int_equal(palev__cfi_frame(r, 8, &f), 0);
    assert_true(f.cfa_from_fp);
    assert_int_equal(f.fp_offset, -16);
    assert_int_equal(palev__cfi_frame(r, 9, &f), 0);
    assert_int_equal(f.fp, PALEV__FP_SAME);
    assert_int_equal(palev__cfi_frame(r, 10, &f), 0);
    assert_int_equal(f.fp, PALEV__FP_LOST);
    /* No rule the walk can follow: none, or the fixed frame when given too. */
    assert_int_equal(palev__cfi_frame(r, 11, &f), -1);
    both = rule_of(24, 8, cfi, sizeof(cfi));
    assert_int_equal(palev__cfi_frame(both, 11, &f), 0);
    assert_false(f.cfa_from_fp);
    assert_int_equal(f.cfa_offset, 24);
    assert_int_equal(f.fp, PALEV__FP_SAVED);
    assert_int_equal(f.fp_offset, -8);
    free(both);
    free(r);
}

static void test_fixed_frame(void **state)
{
    struct palev__unwind_rule *r = rule_of(48, 0, NULL, 0);
    struct palev__frame f;

    (void)state;
    assert_int_equal(palev__cfi_frame(r, 0, &f), 0);
    assert_false(f.cfa_from_fp);
    assert_int_equal(f.cfa_offset, 48);
    assert_int_equal(f.ra_offset, -8);
    assert_int_equal(f.fp, PALEV__FP_SAME);
    free(r);
}

/* ---- .eh_frame, decoded here ----------------------------------------------------------------- */

static uint64_t rd(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* CIE and FDE of the fixed frame { 32, 16 }: every byte as DWARF and the LSB say. */
static void test_eh_frame_in_memory(void **state)
{
    static const uint8_t cie[] = {
        0x14, 0, 0, 0, 0, 0, 0, 0,          /* length 20, CIE id 0 */
        1, 'z', 'R', 0, 1, 0x78, 16,        /* version, "zR", code align 1, data align -8, RA */
        1, 0x00,                            /* augmentation: 1 byte, pointers absolute */
        0x0c, 7, 8, 0x90, 1,                /* def_cfa rsp+8; offset RA at CFA-8 */
        0, 0,                               /* padding to 8 */
    };
    struct palev__unwind_rule *r = rule_of(32, 16, NULL, 0);
    uint8_t buf[PALEV__EH_FRAME_MAX];
    size_t fde, n = palev__eh_frame(buf, sizeof(buf), r, 0x7f1234560000u, 15, 0, &fde);

    (void)state;
    assert_int_equal(fde, sizeof(cie));
    assert_memory_equal(buf, cie, sizeof(cie));
    assert_int_equal(rd(buf + fde, 4) + 4 + fde + 4, n);    /* then the terminator */
    assert_int_equal(rd(buf + fde + 4, 4), fde + 4);        /* back to the CIE */
    assert_int_equal(rd(buf + fde + 8, 8), 0x7f1234560000u);
    assert_int_equal(rd(buf + fde + 16, 8), 15);
    assert_int_equal(buf[fde + 24], 0);                     /* no augmentation data */
    assert_memory_equal(buf + fde + 25, ((const uint8_t[]){ 0x0e, 32, 0x86, 2 }), 4);
    assert_int_equal(rd(buf + n - 4, 4), 0);
    free(r);
}

/* For the jitdump: pc_begin relative to where perf inject puts .eh_frame (8-aligned after the
 * code), and the header after it: both resolve to the code's first byte. */
static void test_eh_frame_for_jitdump(void **state)
{
    struct palev__unwind_rule *r = rule_of(0, 0, exact, sizeof(exact));
    uint8_t buf[PALEV__EH_FRAME_MAX + PALEV__EH_FRAME_HDR_SIZE];
    const int64_t text = 0x40, code_size = 15, eh = (text + code_size + 7) & ~7;
    size_t fde, n = palev__eh_frame(buf, sizeof(buf), r, 0, (uint64_t)code_size, 1, &fde);
    int64_t hdr = eh + (int64_t)n;
    const uint8_t *h = buf + n;

    (void)state;
    assert_int_equal(buf[16], 0x1b);                        /* pcrel | sdata4 */
    assert_int_equal(eh + (int64_t)fde + 8 + (int32_t)rd(buf + fde + 8, 4), text);
    assert_int_equal(rd(buf + fde + 12, 4), code_size);
    assert_memory_equal(buf + fde + 17, exact, sizeof(exact));
    assert_int_equal(palev__eh_frame_hdr(buf + n, (uint64_t)code_size, n, fde),
                     PALEV__EH_FRAME_HDR_SIZE);
    assert_memory_equal(h, ((const uint8_t[]){ 1, 0x1b, 0x03, 0x3b }), 4);
    assert_int_equal(hdr + 4 + (int32_t)rd(h + 4, 4), eh);  /* the .eh_frame */
    assert_int_equal(rd(h + 8, 4), 1);                      /* one FDE */
    assert_int_equal(hdr + (int32_t)rd(h + 12, 4), text);   /* its first address */
    assert_int_equal(hdr + (int32_t)rd(h + 16, 4), eh + (int64_t)fde);
    free(r);
}

/* Measured without a buffer: the size it would have. */
static void test_eh_frame_measure(void **state)
{
    struct palev__unwind_rule *r = rule_of(0, 0, exact, sizeof(exact));
    uint8_t buf[PALEV__EH_FRAME_MAX];
    size_t a, b;

    (void)state;
    assert_int_equal(palev__eh_frame(NULL, 0, r, 1, 15, 0, &a),
                     palev__eh_frame(buf, sizeof(buf), r, 1, 15, 0, &b));
    assert_int_equal(a, b);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_checks),
        cmocka_unit_test(test_exact_instructions),
        cmocka_unit_test(test_other_forms),
        cmocka_unit_test(test_fixed_frame),
        cmocka_unit_test(test_eh_frame_in_memory),
        cmocka_unit_test(test_eh_frame_for_jitdump),
        cmocka_unit_test(test_eh_frame_measure),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
