/* SPDX-License-Identifier: MIT */
/* minivm: a tiny x86-64 assembler: encodings of the few instructions the JIT emits. */
#include "x64.h"

#include <stdlib.h>
#include <string.h>

/* ---- bytes ------------------------------------------------------------------------------- */

static void emit(struct x64 *e, const void *p, size_t n)
{
    if (e->len + n > e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 4096;
        uint8_t *buf;

        while (cap < e->len + n)
            cap *= 2;
        if (e->oom || !(buf = realloc(e->buf, cap))) {
            e->oom = 1;
            return;
        }
        e->buf = buf;
        e->cap = cap;
    }
    memcpy(e->buf + e->len, p, n);
    e->len += n;
}

static void byte(struct x64 *e, uint8_t b)
{
    emit(e, &b, 1);
}

static void imm32(struct x64 *e, uint32_t v)
{
    const uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

    emit(e, b, 4);
}

static void imm64(struct x64 *e, uint64_t v)
{
    imm32(e, (uint32_t)v);
    imm32(e, (uint32_t)(v >> 32));
}

void x64_free(struct x64 *e)
{
    free(e->buf);
    *e = (struct x64){ 0 };
}

/* ---- prefixes and operands --------------------------------------------------------------- */

/* REX: W for 64-bit operands, R and B extend the ModRM reg and base fields to r8..r15. */
static void rex(struct x64 *e, int w, int reg, int base)
{
    uint8_t r = (uint8_t)(0x40 | w << 3 | (reg >> 3 & 1) << 2 | (base >> 3 & 1));

    if (r != 0x40)
        byte(e, r);
}

static void modrm_reg(struct x64 *e, int reg, int rm)
{
    byte(e, (uint8_t)(0xC0 | (reg & 7) << 3 | (rm & 7)));
}

/* [base + disp]: always with a displacement (mod 01 or 10), so rbp and r13 need no special
 * case; rsp and r12 as a base need a SIB byte. */
static void modrm_mem(struct x64 *e, int reg, int base, int32_t disp)
{
    int short_disp = disp >= -128 && disp <= 127;

    byte(e, (uint8_t)((short_disp ? 0x40 : 0x80) | (reg & 7) << 3 | (base & 7)));
    if ((base & 7) == RSP)
        byte(e, 0x24);
    if (short_disp)
        byte(e, (uint8_t)disp);
    else
        imm32(e, (uint32_t)disp);
}

/* [REX] opcode... ModRM(reg, [base + disp]) */
static void op_mem(struct x64 *e, int w, const char *opcode, int reg, int base, int32_t disp)
{
    rex(e, w, reg, base);
    emit(e, opcode, strlen(opcode));
    modrm_mem(e, reg, base, disp);
}

static void op_reg(struct x64 *e, int w, const char *opcode, int reg, int rm)
{
    rex(e, w, reg, rm);
    emit(e, opcode, strlen(opcode));
    modrm_reg(e, reg, rm);
}

/* ---- instructions ------------------------------------------------------------------------ */

void x64_push(struct x64 *e, enum x64_reg r)
{
    rex(e, 0, 0, r);
    byte(e, (uint8_t)(0x50 + (r & 7)));
}

void x64_pop(struct x64 *e, enum x64_reg r)
{
    rex(e, 0, 0, r);
    byte(e, (uint8_t)(0x58 + (r & 7)));
}

void x64_ret(struct x64 *e)
{
    byte(e, 0xC3);
}

void x64_mov_rr(struct x64 *e, enum x64_reg dst, enum x64_reg src)
{
    op_reg(e, 1, "\x89", src, dst);
}

void x64_lea(struct x64 *e, enum x64_reg r, enum x64_reg b, int32_t d)
{
    op_mem(e, 1, "\x8D", r, b, d);
}

void x64_load(struct x64 *e, enum x64_reg r, enum x64_reg b, int32_t d)
{
    op_mem(e, 1, "\x8B", r, b, d);
}

void x64_store(struct x64 *e, enum x64_reg b, int32_t d, enum x64_reg r)
{
    op_mem(e, 1, "\x89", r, b, d);
}

/* The shortest form: mov r32 (zero-extends), mov r64 with a sign-extended imm32, or imm64. */
void x64_mov_ri(struct x64 *e, enum x64_reg r, int64_t imm)
{
    if (imm >= 0 && imm <= UINT32_MAX) {
        rex(e, 0, 0, r);
        byte(e, (uint8_t)(0xB8 + (r & 7)));
        imm32(e, (uint32_t)imm);
    } else if (imm >= INT32_MIN && imm <= INT32_MAX) {
        op_reg(e, 1, "\xC7", 0, r);
        imm32(e, (uint32_t)imm);
    } else {
        rex(e, 1, 0, r);
        byte(e, (uint8_t)(0xB8 + (r & 7)));
        imm64(e, (uint64_t)imm);
    }
}

void x64_store_i64(struct x64 *e, enum x64_reg base, int32_t disp, int32_t imm)
{
    op_mem(e, 1, "\xC7", 0, base, disp);
    imm32(e, (uint32_t)imm);
}

void x64_alu_rm(struct x64 *e, enum x64_alu op, enum x64_reg r, enum x64_reg base, int32_t disp)
{
    const char opcode[2] = { (char)op, 0 };

    op_mem(e, 1, opcode, r, base, disp);
}

void x64_imul_rm(struct x64 *e, enum x64_reg r, enum x64_reg b, int32_t d)
{
    op_mem(e, 1, "\x0F\xAF", r, b, d);
}

void x64_cmp_m32_i8(struct x64 *e, enum x64_reg base, int32_t disp, int8_t imm)
{
    op_mem(e, 0, "\x83", 7, base, disp);
    byte(e, (uint8_t)imm);
}

void x64_cmp_m64_i8(struct x64 *e, enum x64_reg base, int32_t disp, int8_t imm)
{
    op_mem(e, 1, "\x83", 7, base, disp);
    byte(e, (uint8_t)imm);
}

void x64_cmp_ri8(struct x64 *e, enum x64_reg r, int8_t imm)
{
    op_reg(e, 1, "\x83", 7, r);
    byte(e, (uint8_t)imm);
}

void x64_test_rr(struct x64 *e, enum x64_reg a, enum x64_reg b)
{
    op_reg(e, 1, "\x85", b, a);
}

void x64_xor_eax(struct x64 *e)
{
    emit(e, "\x31\xC0", 2);
}

void x64_neg_m64(struct x64 *e, enum x64_reg b, int32_t d)
{
    op_mem(e, 1, "\xF7", 3, b, d);
}

void x64_dec_m32(struct x64 *e, enum x64_reg b, int32_t d)
{
    op_mem(e, 0, "\xFF", 1, b, d);
}

void x64_cqo(struct x64 *e)
{
    emit(e, "\x48\x99", 2);
}

void x64_idiv_r(struct x64 *e, enum x64_reg r)
{
    op_reg(e, 1, "\xF7", 7, r);
}

void x64_setcc_eax(struct x64 *e, enum x64_cc cc)
{
    const uint8_t code[6] = { 0x0F, (uint8_t)(0x90 + cc), 0xC0, 0x0F, 0xB6, 0xC0 };

    emit(e, code, sizeof code);
}

/* mov rax, imm64; call rax: position-independent, so the code can be copied anywhere. */
void x64_call_abs(struct x64 *e, const void *fn)
{
    rex(e, 1, 0, RAX);
    byte(e, 0xB8);
    imm64(e, (uint64_t)(uintptr_t)fn);
    emit(e, "\xFF\xD0", 2);
}

void x64_jmp_r(struct x64 *e, enum x64_reg r)
{
    op_reg(e, 0, "\xFF", 4, r);
}

/* ---- jumps ------------------------------------------------------------------------------- */

uint32_t x64_jcc(struct x64 *e, enum x64_cc cc)
{
    const uint8_t code[2] = { 0x0F, (uint8_t)(0x80 + cc) };

    emit(e, code, 2);
    imm32(e, 0);
    return x64_here(e) - 4;
}

uint32_t x64_jmp(struct x64 *e)
{
    byte(e, 0xE9);
    imm32(e, 0);
    return x64_here(e) - 4;
}

void x64_patch(struct x64 *e, uint32_t at, uint32_t target)
{
    uint32_t rel = target - (at + 4);

    if (e->oom)
        return;
    for (int i = 0; i < 4; i++)
        e->buf[at + i] = (uint8_t)(rel >> (8 * i));
}

void x64_jcc_to(struct x64 *e, enum x64_cc cc, uint32_t target)
{
    x64_patch(e, x64_jcc(e, cc), target);
}

void x64_jmp_to(struct x64 *e, uint32_t target)
{
    x64_patch(e, x64_jmp(e), target);
}

void x64_jz_skip2(struct x64 *e)
{
    emit(e, "\x74\x02", 2);
}

