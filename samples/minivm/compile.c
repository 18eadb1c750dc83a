/* SPDX-License-Identifier: MIT */
/* minivm: the method compiler: decode and verify bytecode, then translate it to threaded code. */
#include "events.h"
#include "jit.h"
#include "vm.h"

#include <paleventing.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct opcode_info opcode_table[OP_COUNT] = {
#define X(name, mnemonic, operand, pops, pushes, flow) \
    [OP_##name] = { mnemonic, OPD_##operand, pops, pushes, FLOW_##flow },
    MINIVM_OPCODES(X)
#undef X
};

/* The verifier refuses methods whose operand stack could grow beyond this. */
#define MAX_STACK 1024

static const char *const reason_text[] = {
    [CE_STACK_UNDERFLOW] = "stack underflow",
    [CE_STACK_MISMATCH] = "stack depths differ where paths join",
    [CE_BAD_LOCAL] = "slot out of range",
    [CE_BAD_TARGET] = "target is not an instruction",
    [CE_FALLS_OFF_END] = "control falls off the end of the method",
    [CE_STACK_TOO_DEEP] = "operand stack deeper than 1024",
    [CE_BAD_INSTRUCTION] = "malformed instruction",
};

/* One instruction of bytecode, decoded. */
struct decoded {
    uint8_t op;
    uint32_t offset;
    int64_t imm;   /* INT value, LABEL offset */
    uint32_t idx;  /* STR, LOCAL, GLOBAL, METHOD, NATIVE index */
};

struct compiler {
    struct vm_thread *t;
    struct method *m;
    struct decoded *d;
    uint32_t n;
    int32_t *map;      /* bytecode offset -> instruction index, -1 inside an instruction */
    int32_t *depth;    /* operand stack depth before each instruction, -1 not reached yet */
    uint32_t *work;
    uint32_t nwork, max_stack;
    uint32_t reason, err_offset;
    struct obj **by_string; /* string constant objects by string table index */
};

static int fail(struct compiler *c, enum compile_error reason, uint32_t offset)
{
    c->reason = reason;
    c->err_offset = offset;
    return -1;
}

/* ---- decoding ---------------------------------------------------------------------------- */

static int read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; *p < end && shift < 64; shift += 7) {
        uint8_t b = *(*p)++;

        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return 0;
    }
    return -1;
}

static int read_operand(enum operand_kind kind, const uint8_t **p, const uint8_t *end,
                        struct decoded *d)
{
    uint64_t v = 0;

    if (kind == OPD_NONE)
        return 0;
    if (kind == OPD_LABEL || kind == OPD_METHOD) {
        if (end - *p < 4)
            return -1;
        for (int i = 0; i < 4; i++)
            v |= (uint64_t)(*p)[i] << (8 * i);
        *p += 4;
    } else if (read_uleb(p, end, &v) < 0 || (kind != OPD_INT && v > UINT32_MAX))
        return -1;
    d->imm = kind == OPD_INT ? (int64_t)(v >> 1) ^ -(int64_t)(v & 1) : (int64_t)v;
    d->idx = (uint32_t)v;
    return 0;
}

static int decode(struct compiler *c)
{
    const struct method *m = c->m;
    const uint8_t *p = m->bytecode, *end = m->bytecode + m->bytecode_size;

    c->d = calloc(m->bytecode_size + 1, sizeof *c->d);
    c->map = malloc((m->bytecode_size + 1) * sizeof *c->map);
    if (!c->d || !c->map)
        return fail(c, CE_BAD_INSTRUCTION, 0);
    for (uint32_t i = 0; i <= m->bytecode_size; i++)
        c->map[i] = -1;
    while (p < end) {
        struct decoded *d = &c->d[c->n];

        d->offset = (uint32_t)(p - m->bytecode);
        d->op = *p++;
        if (d->op >= OP_COUNT || read_operand(opcode_table[d->op].operand, &p, end, d) < 0)
            return fail(c, CE_BAD_INSTRUCTION, d->offset);
        c->map[d->offset] = (int32_t)c->n++;
    }
    c->map[m->bytecode_size] = (int32_t)c->n; /* "the end", a valid bound for .catch ranges */
    return c->n ? 0 : fail(c, CE_FALLS_OFF_END, 0);
}

/* ---- verification ------------------------------------------------------------------------ */

static int pops_of(const struct compiler *c, const struct decoded *d)
{
    if (d->op == OP_CALLN)
        return (int)natives[d->idx].nargs;
    if (d->op == OP_CALL || d->op == OP_SPAWN)
        return (int)c->m->module->methods[d->idx].nargs;
    return opcode_table[d->op].pops;
}

/* Operand indexes within their tables (the assembler checks them; bytecode is re-checked). */
static int check_operand(const struct compiler *c, const struct decoded *d)
{
    const struct module *mod = c->m->module;

    switch (opcode_table[d->op].operand) {
    case OPD_LOCAL: return d->idx < c->m->nlocals ? 0 : CE_BAD_LOCAL;
    case OPD_GLOBAL: return d->idx < mod->nglobals ? 0 : CE_BAD_LOCAL;
    case OPD_STR: return d->idx < mod->nstrings ? 0 : CE_BAD_INSTRUCTION;
    case OPD_METHOD: return d->idx < mod->nmethods ? 0 : CE_BAD_TARGET;
    case OPD_NATIVE: return d->idx < native_count ? 0 : CE_BAD_TARGET;
    default: return 0;
    }
}

static int target_of(const struct compiler *c, int64_t offset)
{
    if (offset < 0 || offset >= (int64_t)c->m->bytecode_size)
        return -1;
    return c->map[offset];
}

/* Every path must reach an instruction with the same stack depth. */
static int reach(struct compiler *c, int32_t i, int32_t depth, uint32_t from)
{
    if (i < 0)
        return fail(c, CE_BAD_TARGET, from);
    if ((uint32_t)i == c->n)
        return fail(c, CE_FALLS_OFF_END, from);
    if (c->depth[i] < 0) {
        c->depth[i] = depth;
        c->work[c->nwork++] = (uint32_t)i;
    } else if (c->depth[i] != depth)
        return fail(c, CE_STACK_MISMATCH, c->d[i].offset);
    return 0;
}

static int step(struct compiler *c, uint32_t i)
{
    const struct decoded *d = &c->d[i];
    const struct opcode_info *info = &opcode_table[d->op];
    int32_t depth = c->depth[i], pops = pops_of(c, d);
    int bad = check_operand(c, d);

    if (bad)
        return fail(c, (enum compile_error)bad, d->offset);
    if (depth < pops)
        return fail(c, CE_STACK_UNDERFLOW, d->offset);
    depth += info->pushes - pops;
    if (depth > MAX_STACK)
        return fail(c, CE_STACK_TOO_DEEP, d->offset);
    if ((uint32_t)depth > c->max_stack)
        c->max_stack = (uint32_t)depth;
    if ((info->flow == FLOW_NEXT || info->flow == FLOW_BRANCH) &&
        reach(c, (int32_t)i + 1, depth, d->offset) < 0)
        return -1;
    if (info->flow == FLOW_BRANCH || info->flow == FLOW_JUMP)
        return reach(c, target_of(c, d->imm), depth, d->offset);
    return 0;
}

static int verify(struct compiler *c)
{
    const struct method *m = c->m;

    c->depth = malloc(c->n * sizeof *c->depth);
    c->work = malloc(c->n * sizeof *c->work);
    if (!c->depth || !c->work)
        return fail(c, CE_BAD_INSTRUCTION, 0);
    for (uint32_t i = 0; i < c->n; i++)
        c->depth[i] = -1;
    c->max_stack = 1;
    if (reach(c, 0, 0, 0) < 0)
        return -1;
    /* A handler starts with the exception as the only operand. */
    for (uint32_t k = 0; k < m->ncatches; k++) {
        const struct catch_clause *cc = &m->catches[k];

        if (c->map[cc->from] < 0 || c->map[cc->to] < 0 || cc->from > cc->to)
            return fail(c, CE_BAD_TARGET, cc->from);
        if (reach(c, target_of(c, cc->handler), 1, cc->handler) < 0)
            return -1;
    }
    while (c->nwork)
        if (step(c, c->work[--c->nwork]) < 0)
            return -1;
    return 0;
}

/* ---- translation ------------------------------------------------------------------------- */

/* String constants become heap strings the code points at; they are roots (m->consts). */
static struct obj *constant(struct compiler *c, uint32_t idx)
{
    struct method *m = c->m;
    const char *s = m->module->strings[idx];
    struct vstring *str;

    if (c->by_string[idx])
        return c->by_string[idx];
    str = heap_new_string(c->t, s, strlen(s));
    if (str)
        m->consts[m->nconsts++] = c->by_string[idx] = &str->h;
    return &str->h;
}

static int translate_one(struct compiler *c, struct insn *code, const struct decoded *d,
                         struct insn *out)
{
    const struct module *mod = c->m->module;

    out->fn = interp_handler((enum opcode)d->op);
    switch (opcode_table[d->op].operand) {
    case OPD_INT: out->a.i = d->imm; break;
    case OPD_LOCAL:
    case OPD_GLOBAL: out->a.slot = d->idx; break;
    case OPD_LABEL: out->a.target = &code[target_of(c, d->imm)]; break;
    case OPD_METHOD: out->a.method = &mod->methods[d->idx]; break;
    case OPD_NATIVE: out->a.native = &natives[d->idx]; break;
    case OPD_STR: return (out->a.str = constant(c, d->idx)) ? 0 : -1;
    case OPD_NONE: break;
    }
    return 0;
}

static int translate_handlers(struct compiler *c, struct insn *code)
{
    struct method *m = c->m;

    m->handlers = calloc(m->ncatches ? m->ncatches : 1, sizeof *m->handlers);
    if (!m->handlers)
        return -1;
    for (uint32_t k = 0; k < m->ncatches; k++) {
        const struct catch_clause *cc = &m->catches[k];
        struct handler *h = &m->handlers[k];

        h->from = &code[c->map[cc->from]];
        h->to = &code[c->map[cc->to]];
        h->target = &code[c->map[cc->handler]];
        if (cc->type >= 0 && !(h->type = constant(c, (uint32_t)cc->type)))
            return -1;
    }
    return 0;
}

static int translate(struct compiler *c)
{
    struct method *m = c->m;
    struct insn *code = calloc(c->n, sizeof *code);

    c->by_string = calloc(m->module->nstrings + 1, sizeof *c->by_string);
    m->consts = calloc(c->n + m->ncatches, sizeof *m->consts);
    m->ops = malloc(c->n);
    if (!code || !c->by_string || !m->consts || !m->ops) {
        free(code);
        method_free_code(m);
        vm_raise(c->t, EXC_OUT_OF_MEMORY, "no memory to compile %s.%s", m->ns, m->name);
        return -1;
    }
    for (uint32_t i = 0; i < c->n; i++)
        if (translate_one(c, code, &c->d[i], &code[i]) < 0)
            goto fail;
    if (translate_handlers(c, code) < 0)
        goto fail;
    for (uint32_t i = 0; i < c->n; i++)
        m->ops[i] = c->d[i].op;
    m->code = code;
    m->ninsns = c->n;
    m->max_stack = c->max_stack;
    m->depths = c->depth; /* the JIT's, from now on */
    c->depth = NULL;
    return 0;
fail:
    /* Out of memory (an exception is pending): leave the method uncompiled, to retry later. */
    free(code);
    method_free_code(m);
    return -1;
}

/* Its threaded code names the method in the interpreted frames of stack events. */
static void code_load_interpreted(const struct method *m)
{
    char name[256];

    snprintf(name, sizeof name, "%s.%s", m->ns, m->name);
    palev_code_load_interpreted(m->code, m->ninsns * sizeof *m->code, name);
}

int compile_method(struct vm_thread *t, struct method *m)
{
    struct compiler c = { .t = t, .m = m };
    uint64_t t0 = now_ns();
    int rc = -1;

    if (m->failed)
        return -1;
    ev_jitting_started(m);
    if (decode(&c) < 0 || verify(&c) < 0) {
        m->failed = 1;
        snprintf(m->error, sizeof m->error, "%s.%s%s: %s at bytecode offset %u", m->ns, m->name,
                 m->sig, reason_text[c.reason], c.err_offset);
        ev_compile_failed(m, c.reason, c.err_offset);
    } else if (translate(&c) == 0) {
        t->vm->stats.methods_compiled++;
        ev_method_load(m, m->code, (uint32_t)(m->ninsns * sizeof *m->code), now_ns() - t0,
                       TIER_THREADED);
        code_load_interpreted(m);
        rc = 0;
    }
    free(c.d);
    free(c.map);
    free(c.depth);
    free(c.work);
    free(c.by_string);
    return rc;
}

void method_free_code(struct method *m)
{
    jit_free(m);
    if (m->code)
        palev_code_unload(m->code);
    free(m->code);
    free(m->handlers);
    free(m->consts);
    free(m->ops);
    free(m->depths);
    m->code = NULL;
    m->handlers = NULL;
    m->consts = NULL;
    m->ops = NULL;
    m->depths = NULL;
    m->nconsts = 0;
}
