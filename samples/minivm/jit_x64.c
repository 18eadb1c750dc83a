/* SPDX-License-Identifier: MIT */
/* minivm: the x86-64 backend: threaded code to native code, one emitter per opcode (a table). */
#include "jit.h"
#include "vm.h"
#include "x64.h"

#include <stddef.h>
#include <stdlib.h>

/* The frame: r12 holds the thread, rbx the locals base, both callee-saved so helpers keep them.
 * Local i is at [rbx + 16 i], operand stack slot k at [rbx + 16 (nlocals + k)]; the verifier
 * gives every instruction's stack depth, so no stack pointer is kept at run time: helpers get
 * the top as an argument. A value is {uint32 tag at 0, payload at 8}. */
#define THREAD R12
#define LOCALS RBX
#define SLOT 16
#define PAYLOAD 8

_Static_assert(sizeof(value) == SLOT && offsetof(value, tag) == 0 &&
               offsetof(value, u) == PAYLOAD, "the emitted code knows the layout of a value");

struct jc;

/* Code emitted after the body, out of the hot path: a helper call for the cases the fast path
 * does not handle, or a safepoint poll. */
struct cold {
    void (*emit)(struct jc *c, const struct cold *k);
    uint32_t insn;
    int32_t depth;
    uint32_t from[3]; /* jumps to patch to its start */
    int nfrom;
    uint32_t resume;  /* where it goes back to in the body */
};

struct jc {
    struct x64 e;
    const struct method *m;
    uint32_t *offsets;             /* native offset of each instruction, ninsns + 1 */
    uint32_t *fixups;              /* positions of rel32 jumps to instructions ... */
    uint32_t *fixup_target;        /* ... and their target instruction */
    uint32_t nfixups;
    struct cold *cold;
    uint32_t ncold;
};

static int32_t slot(const struct jc *c, int32_t k)
{
    return (int32_t)(SLOT * ((int32_t)c->m->nlocals + k));
}

static int32_t local(uint32_t i)
{
    return (int32_t)(SLOT * i);
}

static uint32_t index_of(const struct jc *c, const struct insn *target)
{
    return (uint32_t)(target - c->m->code);
}

/* ---- building blocks --------------------------------------------------------------------- */

static void prologue(struct jc *c)
{
    /* rbp chained as a C compiler does, so perf -g walks from here into the VM's frames. */
    x64_push(&c->e, RBP);
    x64_mov_rr(&c->e, RBP, RSP);
    x64_push(&c->e, LOCALS);
    x64_push(&c->e, THREAD); /* four pushes with the return address: rsp is 16-byte aligned */
    x64_mov_rr(&c->e, THREAD, RDI);
    x64_mov_rr(&c->e, LOCALS, RSI);
}

static void epilogue(struct jc *c)
{
    x64_pop(&c->e, THREAD);
    x64_pop(&c->e, LOCALS);
    x64_pop(&c->e, RBP);
    x64_ret(&c->e);
}

/* Values move as two 8-byte halves and tags are written 8 bytes wide (padding zeroed): a
 * load then always matches an earlier store exactly, so store-to-load forwarding works (a
 * 16-byte load of a value just written in two halves stalls ~12 cycles). */
static void copy_value(struct jc *c, int32_t dst, int32_t src)
{
    x64_load(&c->e, RAX, LOCALS, src);
    x64_load(&c->e, RCX, LOCALS, src + PAYLOAD);
    x64_store(&c->e, LOCALS, dst, RAX);
    x64_store(&c->e, LOCALS, dst + PAYLOAD, RCX);
}

static void store_tag(struct jc *c, int32_t at, enum value_tag tag)
{
    x64_store_i64(&c->e, LOCALS, at, tag);
}

/* helper(t, sp = top of the stack at depth d, ip = instruction i) */
static void call_helper(struct jc *c, jit_helper fn, uint32_t i, int32_t d)
{
    x64_mov_rr(&c->e, RDI, THREAD);
    x64_lea(&c->e, RSI, LOCALS, slot(c, d));
    x64_mov_ri(&c->e, RDX, (int64_t)(intptr_t)&c->m->code[i]);
    x64_call_abs(&c->e, (const void *)fn);
}

/* NULL: go on; anything else: the handler or exit path the helper chose. */
static void follow_helper(struct jc *c)
{
    x64_test_rr(&c->e, RAX, RAX);
    x64_jz_skip2(&c->e);
    x64_jmp_r(&c->e, RAX);
}

static struct cold *add_cold(struct jc *c, void (*emit)(struct jc *, const struct cold *),
                             uint32_t i, int32_t d)
{
    struct cold *k = &c->cold[c->ncold++];

    *k = (struct cold){ .emit = emit, .insn = i, .depth = d };
    return k;
}

static void jump_to_insn(struct jc *c, uint32_t at, uint32_t target)
{
    c->fixups[c->nfixups] = at;
    c->fixup_target[c->nfixups++] = target;
}

/* ---- cold paths -------------------------------------------------------------------------- */

/* The whole instruction by the interpreter's handler: type errors, division by zero, and
 * whatever the fast path left to it (strings compared by eq). */
static void cold_op(struct jc *c, const struct cold *k)
{
    call_helper(c, jit_helper_op, k->insn, k->depth);
    x64_test_rr(&c->e, RAX, RAX);
    x64_jcc_to(&c->e, CC_E, k->resume);
    x64_jmp_r(&c->e, RAX);
}

static void cold_poll(struct jc *c, const struct cold *k)
{
    call_helper(c, jit_helper_poll, k->insn, k->depth);
    x64_jmp_to(&c->e, k->resume);
}

/* jz/jnz on something other than an integer: nil is false, references true. */
static void cold_branch(struct jc *c, const struct cold *k)
{
    const struct insn *ip = &c->m->code[k->insn];
    enum x64_cc cc = c->m->ops[k->insn] == OP_JZ ? CC_E : CC_NE;

    x64_cmp_m32_i8(&c->e, LOCALS, slot(c, k->depth - 1), V_NIL);
    x64_jcc_to(&c->e, cc, c->offsets[index_of(c, ip->a.target)]);
    x64_jmp_to(&c->e, k->resume);
}

/* Every operand of the top n an integer, or the instruction goes to the helper. */
static struct cold *guard_ints(struct jc *c, uint32_t i, int32_t d, int n)
{
    struct cold *k = add_cold(c, cold_op, i, d);

    for (int j = 1; j <= n; j++) {
        x64_cmp_m32_i8(&c->e, LOCALS, slot(c, d - j), V_INT);
        k->from[k->nfrom++] = x64_jcc(&c->e, CC_NE);
    }
    return k;
}

/* On backward branches, as the interpreter does: one decrement, a call once in 256. */
static void poll(struct jc *c, uint32_t i, int32_t d)
{
    struct cold *k = add_cold(c, cold_poll, i, d);

    x64_dec_m32(&c->e, THREAD, (int32_t)offsetof(struct vm_thread, budget));
    k->from[k->nfrom++] = x64_jcc(&c->e, CC_E);
    k->resume = x64_here(&c->e);
}

/* ---- emitters: one per opcode ------------------------------------------------------------ */

typedef void (*emit_fn)(struct jc *c, uint32_t i, int32_t d, int arg);

#define ARITH_MUL 0 /* arg of emit_arith: an enum x64_alu, or this for imul */

static void emit_nothing(struct jc *c, uint32_t i, int32_t d, int arg)
{
    (void)c, (void)i, (void)d, (void)arg;
}

static void emit_push(struct jc *c, uint32_t i, int32_t d, int arg)
{
    int64_t v = c->m->code[i].a.i;

    (void)arg;
    store_tag(c, slot(c, d), V_INT);
    if (v >= INT32_MIN && v <= INT32_MAX) {
        x64_store_i64(&c->e, LOCALS, slot(c, d) + PAYLOAD, (int32_t)v);
        return;
    }
    x64_mov_ri(&c->e, RAX, v);
    x64_store(&c->e, LOCALS, slot(c, d) + PAYLOAD, RAX);
}

/* The string is a constant of the method: a root for as long as the method exists. */
static void emit_pushs(struct jc *c, uint32_t i, int32_t d, int arg)
{
    (void)arg;
    store_tag(c, slot(c, d), V_REF);
    x64_mov_ri(&c->e, RAX, (int64_t)(intptr_t)c->m->code[i].a.str);
    x64_store(&c->e, LOCALS, slot(c, d) + PAYLOAD, RAX);
}

static void emit_nil(struct jc *c, uint32_t i, int32_t d, int arg)
{
    (void)i, (void)arg;
    store_tag(c, slot(c, d), V_NIL);
    x64_store_i64(&c->e, LOCALS, slot(c, d) + PAYLOAD, 0);
}

static void emit_dup(struct jc *c, uint32_t i, int32_t d, int arg)
{
    (void)i, (void)arg;
    copy_value(c, slot(c, d), slot(c, d - 1));
}

static void emit_swap(struct jc *c, uint32_t i, int32_t d, int arg)
{
    static const enum x64_reg regs[4] = { RAX, RCX, RDX, RSI };
    const int32_t from[4] = { slot(c, d - 1), slot(c, d - 1) + PAYLOAD, slot(c, d - 2),
                              slot(c, d - 2) + PAYLOAD };

    (void)i, (void)arg;
    for (int k = 0; k < 4; k++)
        x64_load(&c->e, regs[k], LOCALS, from[k]);
    for (int k = 0; k < 4; k++)
        x64_store(&c->e, LOCALS, from[(k + 2) % 4], regs[k]);
}

static void emit_load(struct jc *c, uint32_t i, int32_t d, int arg)
{
    (void)arg;
    copy_value(c, slot(c, d), local(c->m->code[i].a.slot));
}

static void emit_store(struct jc *c, uint32_t i, int32_t d, int arg)
{
    (void)arg;
    copy_value(c, local(c->m->code[i].a.slot), slot(c, d - 1));
}

/* Globals are roots of their own: no barrier, as in the interpreter. */
static void emit_global(struct jc *c, uint32_t i, int32_t d, int arg)
{
    const value *g = &c->m->module->globals[c->m->code[i].a.slot];

    (void)arg;
    x64_mov_ri(&c->e, RDX, (int64_t)(intptr_t)g);
    for (int32_t half = 0; half <= PAYLOAD; half += PAYLOAD)
        if (c->m->ops[i] == OP_GLOAD) {
            x64_load(&c->e, RAX, RDX, half);
            x64_store(&c->e, LOCALS, slot(c, d) + half, RAX);
        } else {
            x64_load(&c->e, RAX, LOCALS, slot(c, d - 1) + half);
            x64_store(&c->e, RDX, half, RAX);
        }
}

/* add, sub, mul: wrapping, like the interpreter's unsigned arithmetic. The result's tag is
 * already V_INT: it is the left operand's. */
static void emit_arith(struct jc *c, uint32_t i, int32_t d, int arg)
{
    int32_t a = slot(c, d - 2) + PAYLOAD, b = slot(c, d - 1) + PAYLOAD;

    guard_ints(c, i, d, 2);
    x64_load(&c->e, RAX, LOCALS, a);
    if (arg == ARITH_MUL)
        x64_imul_rm(&c->e, RAX, LOCALS, b);
    else
        x64_alu_rm(&c->e, (enum x64_alu)arg, RAX, LOCALS, b);
    x64_store(&c->e, LOCALS, a, RAX);
}

/* div, mod: a divisor of 0 (throws) or -1 (INT64_MIN / -1 traps in idiv) goes to the helper.
 * arg: the register idiv leaves the result in (rax quotient, rdx remainder). */
static void emit_divmod(struct jc *c, uint32_t i, int32_t d, int arg)
{
    int32_t a = slot(c, d - 2) + PAYLOAD, b = slot(c, d - 1) + PAYLOAD;
    struct cold *k = guard_ints(c, i, d, 2);

    x64_load(&c->e, RCX, LOCALS, b);
    x64_lea(&c->e, RAX, RCX, 1);
    x64_cmp_ri8(&c->e, RAX, 1); /* divisor + 1 <= 1 unsigned: divisor is 0 or -1 */
    k->from[k->nfrom++] = x64_jcc(&c->e, CC_BE);
    x64_load(&c->e, RAX, LOCALS, a);
    x64_cqo(&c->e);
    x64_idiv_r(&c->e, RCX);
    x64_store(&c->e, LOCALS, a, (enum x64_reg)arg);
}

static void emit_neg(struct jc *c, uint32_t i, int32_t d, int arg)
{
    (void)arg;
    guard_ints(c, i, d, 1);
    x64_neg_m64(&c->e, LOCALS, slot(c, d - 1) + PAYLOAD);
}

/* eq ne lt le gt ge on two integers; eq and ne on anything else go to the helper. */
static void emit_compare(struct jc *c, uint32_t i, int32_t d, int arg)
{
    int32_t a = slot(c, d - 2) + PAYLOAD, b = slot(c, d - 1) + PAYLOAD;

    guard_ints(c, i, d, 2);
    x64_load(&c->e, RAX, LOCALS, a);
    x64_alu_rm(&c->e, ALU_CMP, RAX, LOCALS, b);
    x64_setcc_eax(&c->e, (enum x64_cc)arg);
    x64_store(&c->e, LOCALS, a, RAX);
}

/* not: 1 for nil and 0, else 0. */
static void emit_not(struct jc *c, uint32_t i, int32_t d, int arg)
{
    int32_t s = slot(c, d - 1);
    uint32_t not_int, done;

    (void)i, (void)arg;
    x64_cmp_m32_i8(&c->e, LOCALS, s, V_INT);
    not_int = x64_jcc(&c->e, CC_NE);
    x64_cmp_m64_i8(&c->e, LOCALS, s + PAYLOAD, 0);
    x64_setcc_eax(&c->e, CC_E);
    done = x64_jmp(&c->e);
    x64_patch(&c->e, not_int, x64_here(&c->e));
    x64_cmp_m32_i8(&c->e, LOCALS, s, V_NIL);
    x64_setcc_eax(&c->e, CC_E);
    x64_patch(&c->e, done, x64_here(&c->e));
    store_tag(c, s, V_INT);
    x64_store(&c->e, LOCALS, s + PAYLOAD, RAX);
}

static void emit_jmp(struct jc *c, uint32_t i, int32_t d, int arg)
{
    uint32_t target = index_of(c, c->m->code[i].a.target);

    (void)arg;
    if (target <= i)
        poll(c, i, d);
    jump_to_insn(c, x64_jmp(&c->e), target);
}

/* jz (arg CC_E: jump when false) and jnz (CC_NE): an integer is tested inline. */
static void emit_branch(struct jc *c, uint32_t i, int32_t d, int arg)
{
    uint32_t target = index_of(c, c->m->code[i].a.target);
    struct cold *k;

    if (target <= i)
        poll(c, i, d);
    k = add_cold(c, cold_branch, i, d);
    x64_cmp_m32_i8(&c->e, LOCALS, slot(c, d - 1), V_INT);
    k->from[k->nfrom++] = x64_jcc(&c->e, CC_NE);
    x64_cmp_m64_i8(&c->e, LOCALS, slot(c, d - 1) + PAYLOAD, 0);
    jump_to_insn(c, x64_jcc(&c->e, (enum x64_cc)arg), target);
    k->resume = x64_here(&c->e);
}

static void emit_call(struct jc *c, uint32_t i, int32_t d, int arg)
{
    (void)arg;
    call_helper(c, jit_helper_call, i, d);
    follow_helper(c);
}

/* Everything else: allocation, std.*, spawn, sync, throw, arrays, strings, exceptions. */
static void emit_helper(struct jc *c, uint32_t i, int32_t d, int arg)
{
    (void)arg;
    call_helper(c, jit_helper_op, i, d);
    follow_helper(c);
}

/* The result goes to locals[0], where the interpreter's ret leaves it; jit_run() pops. */
static void emit_ret(struct jc *c, uint32_t i, int32_t d, int arg)
{
    (void)i, (void)arg;
    copy_value(c, local(0), slot(c, d - 1));
    x64_xor_eax(&c->e);
    epilogue(c);
}

struct op_rule {
    emit_fn emit;
    int arg;
};

/* How each instruction is compiled. An opcode without a rule would keep its methods
 * interpreted (jit_arch_compile() refuses them); every opcode has one today. */
static const struct op_rule rules[OP_COUNT] = {
    [OP_NOP] = { emit_nothing, 0 },      [OP_POP] = { emit_nothing, 0 },
    [OP_PUSH] = { emit_push, 0 },        [OP_PUSHS] = { emit_pushs, 0 },
    [OP_NIL] = { emit_nil, 0 },          [OP_DUP] = { emit_dup, 0 },
    [OP_SWAP] = { emit_swap, 0 },        [OP_LOAD] = { emit_load, 0 },
    [OP_STORE] = { emit_store, 0 },      [OP_GLOAD] = { emit_global, 0 },
    [OP_GSTORE] = { emit_global, 0 },
    [OP_ADD] = { emit_arith, ALU_ADD },  [OP_SUB] = { emit_arith, ALU_SUB },
    [OP_MUL] = { emit_arith, ARITH_MUL },
    [OP_DIV] = { emit_divmod, RAX },     [OP_MOD] = { emit_divmod, RDX },
    [OP_NEG] = { emit_neg, 0 },          [OP_NOT] = { emit_not, 0 },
    [OP_EQ] = { emit_compare, CC_E },    [OP_NE] = { emit_compare, CC_NE },
    [OP_LT] = { emit_compare, CC_L },    [OP_LE] = { emit_compare, CC_LE },
    [OP_GT] = { emit_compare, CC_G },    [OP_GE] = { emit_compare, CC_GE },
    [OP_JMP] = { emit_jmp, 0 },
    [OP_JZ] = { emit_branch, CC_E },     [OP_JNZ] = { emit_branch, CC_NE },
    [OP_CALL] = { emit_call, 0 },        [OP_RET] = { emit_ret, 0 },
    [OP_CALLN] = { emit_helper, 0 },     [OP_SPAWN] = { emit_helper, 0 },
    [OP_THROW] = { emit_helper, 0 },     [OP_NEWARR] = { emit_helper, 0 },
    [OP_ALOAD] = { emit_helper, 0 },     [OP_ASTORE] = { emit_helper, 0 },
    [OP_LEN] = { emit_helper, 0 },       [OP_STR] = { emit_helper, 0 },
    [OP_CAT] = { emit_helper, 0 },       [OP_EXCTYPE] = { emit_helper, 0 },
    [OP_EXCMSG] = { emit_helper, 0 },    [OP_SYNC] = { emit_helper, 0 },
};

/* ---- the method -------------------------------------------------------------------------- */

static int emit_body(struct jc *c)
{
    const struct method *m = c->m;

    for (uint32_t i = 0; i < m->ninsns; i++) {
        const struct op_rule *r = &rules[m->ops[i]];
        size_t first_cold = c->ncold;

        c->offsets[i] = x64_here(&c->e);
        if (m->depths[i] < 0)
            continue; /* unreachable: nothing jumps here */
        if (!r->emit)
            return -1;
        r->emit(c, i, m->depths[i], r->arg);
        /* A cold path of this instruction goes back to the next one unless it said where. */
        for (size_t k = first_cold; k < c->ncold; k++)
            if (!c->cold[k].resume)
                c->cold[k].resume = x64_here(&c->e);
    }
    c->offsets[m->ninsns] = x64_here(&c->e);
    return 0;
}

static void emit_cold(struct jc *c)
{
    for (uint32_t n = 0; n < c->ncold; n++) {
        const struct cold *k = &c->cold[n];

        for (int j = 0; j < k->nfrom; j++)
            x64_patch(&c->e, k->from[j], x64_here(&c->e));
        k->emit(c, k);
    }
    for (uint32_t n = 0; n < c->nfixups; n++)
        x64_patch(&c->e, c->fixups[n], c->offsets[c->fixup_target[n]]);
}

int jit_arch_compile(const struct method *m, struct jit_image *img)
{
    struct jc c = { .m = m };
    int rc = -1;

    /* Slot displacements are 32-bit. */
    if ((uint64_t)(m->nlocals + m->max_stack + 1) * SLOT > INT32_MAX / 2)
        return -1;
    c.offsets = calloc(m->ninsns + 1, sizeof *c.offsets);
    c.fixups = calloc(m->ninsns + 1, sizeof *c.fixups);
    c.fixup_target = calloc(m->ninsns + 1, sizeof *c.fixup_target);
    c.cold = calloc(2 * (size_t)m->ninsns + 1, sizeof *c.cold); /* jz/jnz back: poll + branch */
    if (!c.offsets || !c.fixups || !c.fixup_target || !c.cold)
        goto end;
    prologue(&c);
    if (emit_body(&c) < 0)
        goto end;
    img->exit_fail = x64_here(&c.e);
    x64_mov_ri(&c.e, RAX, -1);
    epilogue(&c);
    emit_cold(&c);
    if (c.e.oom)
        goto end;
    *img = (struct jit_image){ .bytes = c.e.buf, .size = (uint32_t)c.e.len,
                               .offsets = c.offsets, .exit_fail = img->exit_fail };
    c.e.buf = NULL;
    c.offsets = NULL;
    rc = 0;
end:
    x64_free(&c.e);
    free(c.offsets);
    free(c.fixups);
    free(c.fixup_target);
    free(c.cold);
    return rc;
}
