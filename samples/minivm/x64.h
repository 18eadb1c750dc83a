/* SPDX-License-Identifier: MIT */
/* minivm: a tiny x86-64 assembler, just the instructions the JIT emits, into a growable buffer. */
#ifndef MINIVM_X64_H
#define MINIVM_X64_H

#include <stddef.h>
#include <stdint.h>

enum x64_reg { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };

/* Condition codes, the low nibble of Jcc / SETcc. */
enum x64_cc { CC_BE = 0x6, CC_E = 0x4, CC_NE = 0x5, CC_L = 0xC, CC_GE = 0xD, CC_LE = 0xE,
              CC_G = 0xF };

/* Two-operand ALU instructions of the form "op r64, r/m64" (their opcode byte). */
enum x64_alu { ALU_ADD = 0x03, ALU_SUB = 0x2B, ALU_CMP = 0x3B };

struct x64 {
    uint8_t *buf;
    size_t len, cap;
    int oom; /* a growth failed: the code is incomplete, the caller gives up */
};

void x64_free(struct x64 *e);
static inline uint32_t x64_here(const struct x64 *e) { return (uint32_t)e->len; }

void x64_push(struct x64 *e, enum x64_reg r);
void x64_pop(struct x64 *e, enum x64_reg r);
void x64_ret(struct x64 *e);
void x64_mov_rr(struct x64 *e, enum x64_reg dst, enum x64_reg src);
void x64_mov_ri(struct x64 *e, enum x64_reg r, int64_t imm);
void x64_lea(struct x64 *e, enum x64_reg r, enum x64_reg base, int32_t disp);
/* mov r64, [base + disp] / mov [base + disp], r64 */
void x64_load(struct x64 *e, enum x64_reg r, enum x64_reg base, int32_t disp);
void x64_store(struct x64 *e, enum x64_reg base, int32_t disp, enum x64_reg r);
/* mov qword [base + disp], imm32 sign-extended */
void x64_store_i64(struct x64 *e, enum x64_reg base, int32_t disp, int32_t imm);
/* op r64, [base + disp]; imul r64, [base + disp] */
void x64_alu_rm(struct x64 *e, enum x64_alu op, enum x64_reg r, enum x64_reg base, int32_t disp);
void x64_imul_rm(struct x64 *e, enum x64_reg r, enum x64_reg base, int32_t disp);
/* cmp dword [base + disp], imm8 / cmp qword [base + disp], imm8 */
void x64_cmp_m32_i8(struct x64 *e, enum x64_reg base, int32_t disp, int8_t imm);
void x64_cmp_m64_i8(struct x64 *e, enum x64_reg base, int32_t disp, int8_t imm);
void x64_cmp_ri8(struct x64 *e, enum x64_reg r, int8_t imm);
void x64_test_rr(struct x64 *e, enum x64_reg a, enum x64_reg b);
void x64_xor_eax(struct x64 *e);
void x64_neg_m64(struct x64 *e, enum x64_reg base, int32_t disp);
void x64_dec_m32(struct x64 *e, enum x64_reg base, int32_t disp);
void x64_cqo(struct x64 *e);
void x64_idiv_r(struct x64 *e, enum x64_reg r);
/* eax = condition cc (setcc al; movzx eax, al) */
void x64_setcc_eax(struct x64 *e, enum x64_cc cc);
void x64_call_abs(struct x64 *e, const void *fn); /* through rax */
void x64_jmp_r(struct x64 *e, enum x64_reg r);

/* Jumps with a 32-bit displacement: the returned position is patched by x64_patch() once the
 * target is known; x64_jcc_to()/x64_jmp_to() jump to a known offset. */
uint32_t x64_jcc(struct x64 *e, enum x64_cc cc);
uint32_t x64_jmp(struct x64 *e);
void x64_patch(struct x64 *e, uint32_t at, uint32_t target);
void x64_jcc_to(struct x64 *e, enum x64_cc cc, uint32_t target);
void x64_jmp_to(struct x64 *e, uint32_t target);
/* jz +2 over a 2-byte instruction (the helper return check) */
void x64_jz_skip2(struct x64 *e);

#endif /* MINIVM_X64_H */
