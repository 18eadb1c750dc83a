/* SPDX-License-Identifier: MIT */
/* libFuzzer target: a runtime's DWARF call frame instructions (palev_code_load_unwind()), as
 * checked, evaluated by the frame pointer walk at every address, and written into .eh_frame for
 * libunwind and for the jitdump. Input: 8 bytes of fixed frame (cfa_offset, saved_fp, little
 * endian), then the instructions. Checks: nothing read outside the input (ASan), a stream the
 * check accepts evaluates at every pc, the .eh_frame holds the instructions verbatim inside
 * well-formed CIE and FDE lengths, and its size is the same whether written or only measured. */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The FDE's instructions start after length, CIE pointer, pc_begin, pc_range and a 0 byte of
 * augmentation data: 4 + 4 + 2 * ptr + 1. */
static void check_eh_frame(const struct palev__unwind_rule *rule, int for_jitdump)
{
    static uint8_t buf[PALEV__EH_FRAME_MAX];
    size_t fde_at, fde_at2, n = palev__eh_frame(NULL, 0, rule, 0x7f0000001000u, 15, for_jitdump,
                                                &fde_at);
    size_t ptr = for_jitdump ? 4 : 8, cie_len, fde_len;

    CHECK(n <= sizeof(buf));
    CHECK(palev__eh_frame(buf, sizeof(buf), rule, 0x7f0000001000u, 15, for_jitdump, &fde_at2) ==
          n);
    CHECK(fde_at == fde_at2);
    cie_len = le32(buf);
    CHECK(cie_len % 8 == 4 && 4 + cie_len == fde_at);
    fde_len = le32(buf + fde_at);
    CHECK(fde_len % 8 == 4 && fde_at + 4 + fde_len + 4 == n);
    CHECK(le32(buf + fde_at + 4) == fde_at + 4);
    CHECK(le32(buf + n - 4) == 0);
    if (rule->cfi_size)
        CHECK(memcmp(buf + fde_at + 9 + 2 * ptr, rule->cfi, rule->cfi_size) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    palev_code_unwind u = { 0 };
    struct palev__unwind_rule *rule;
    struct palev__frame f;
    int ret;

    if (size < 8)
        return 0;
    u.cfa_offset = le32(data) & 0xffff;
    u.saved_fp = le32(data + 4) & 0xffff;
    u.cfi = size > 8 ? data + 8 : NULL;
    u.cfi_size = size - 8;
    ret = palev__unwind_rule_new(&u, &rule);
    if (u.cfi)
        CHECK(ret == 0 || palev__cfi_check(u.cfi, u.cfi_size) != 0 || u.cfa_offset % 8 ||
              u.saved_fp % 8 || (u.cfa_offset && u.cfa_offset < 8) ||
              (u.saved_fp && u.saved_fp >= u.cfa_offset) || (!u.cfa_offset && u.saved_fp));
    if (ret != 0)
        return 0;
    /* Every address of a range as long as the instructions could reach, and far beyond. */
    for (uint64_t pc = 0; pc < 300; pc++)
        if (palev__cfi_frame(rule, pc, &f) == 0)
            CHECK(f.fp == PALEV__FP_SAME || f.fp == PALEV__FP_SAVED || f.fp == PALEV__FP_LOST);
    CHECK(palev__cfi_frame(rule, UINT64_MAX - 1, &f) == 0 || rule->cfa_offset == 0);
    check_eh_frame(rule, 0);
    check_eh_frame(rule, 1);
    free(rule);
    return 0;
}
