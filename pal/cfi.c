/* SPDX-License-Identifier: MIT */
/* DWARF call frame information of JIT code without frame pointers (x86-64): a runtime's
 * description checked and copied, evaluated at a return address for the frame pointer walk, and
 * turned into .eh_frame bytes for libunwind and for the jitdump. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* DWARF register numbers of x86-64 and the call frame opcodes used here (DWARF 4, 6.4.2). */
#define REG_RBP 6
#define REG_RSP 7
#define REG_RA 16
#define DATA_ALIGN (-8)

enum {
    CFA_NOP = 0x00, CFA_SET_LOC = 0x01, CFA_ADVANCE_LOC1 = 0x02, CFA_ADVANCE_LOC2 = 0x03,
    CFA_ADVANCE_LOC4 = 0x04, CFA_OFFSET_EXTENDED = 0x05, CFA_RESTORE_EXTENDED = 0x06,
    CFA_UNDEFINED = 0x07, CFA_SAME_VALUE = 0x08, CFA_REGISTER = 0x09,
    CFA_REMEMBER_STATE = 0x0a, CFA_RESTORE_STATE = 0x0b, CFA_DEF_CFA = 0x0c,
    CFA_DEF_CFA_REGISTER = 0x0d, CFA_DEF_CFA_OFFSET = 0x0e, CFA_DEF_CFA_EXPRESSION = 0x0f,
    CFA_EXPRESSION = 0x10, CFA_OFFSET_EXTENDED_SF = 0x11, CFA_DEF_CFA_SF = 0x12,
    CFA_DEF_CFA_OFFSET_SF = 0x13, CFA_VAL_OFFSET = 0x14, CFA_VAL_OFFSET_SF = 0x15,
    CFA_VAL_EXPRESSION = 0x16, CFA_GNU_ARGS_SIZE = 0x2e, CFA_GNU_NEGATIVE_OFFSET_EXT = 0x2f,
    CFA_ADVANCE_LOC = 0x40, CFA_OFFSET = 0x80, CFA_RESTORE = 0xc0,
};

/* Pointer encodings of .eh_frame (LSB 3.0, 10.5). */
#define PE_ABSPTR 0x00
#define PE_UDATA4 0x03
#define PE_SDATA4 0x0b
#define PE_PCREL 0x10
#define PE_DATAREL 0x30

/* remember_state nesting the walk follows; deeper is refused by the check. */
#define STATE_STACK 8

/* ---- reading instructions ---------------------------------------------------------------- */

struct reader {
    const uint8_t *p, *end;
    int bad;                    /* read past the end, or a number that does not fit */
};

static uint64_t uleb(struct reader *r)
{
    uint64_t v = 0;
    unsigned shift = 0;

    for (;;) {
        uint8_t b;

        if (r->p == r->end || shift > 63) {
            r->bad = 1;
            return 0;
        }
        b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80))
            return v;
    }
}

static int64_t sleb(struct reader *r)
{
    int64_t v = 0;
    unsigned shift = 0;
    uint8_t b;

    do {
        if (r->p == r->end || shift > 63) {
            r->bad = 1;
            return 0;
        }
        b = *r->p++;
        v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
        shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40))
        v |= (int64_t)(~(uint64_t)0 << shift);
    return v;
}

/* An offset factored by the data alignment, in two's complement: absurd values wrap instead
 * of overflowing, and the walk's bounds checks refuse them. */
static int64_t factored(uint64_t v)
{
    return (int64_t)(v * (uint64_t)(int64_t)DATA_ALIGN);
}

static uint64_t fixed(struct reader *r, unsigned n)
{
    uint64_t v = 0;

    if ((size_t)(r->end - r->p) < n) {
        r->bad = 1;
        return 0;
    }
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += n;
    return v;
}

static void skip_block(struct reader *r)
{
    uint64_t len = uleb(r);

    if (r->bad || len > (uint64_t)(r->end - r->p))
        r->bad = 1;
    else
        r->p += len;
}

/* ---- the rule at an address ---------------------------------------------------------------- */

/* What the walk tracks: the CFA, where rbp and the return address were saved. */
struct row {
    int cfa_reg;                /* REG_RSP or REG_RBP, -1: not computable here */
    int64_t cfa_off;
    int fp;                     /* FP_* */
    int64_t fp_off;             /* FP_SAVED: rbp at CFA + fp_off */
    int ra_ok;
    int64_t ra_off;             /* the return address at CFA + ra_off */
};

enum { FP_SAME, FP_SAVED, FP_UNKNOWN };

static const struct row initial_row = { REG_RSP, 8, FP_SAME, 0, 1, -8 };

static void set_offset(struct row *row, uint64_t reg, int64_t off)
{
    if (reg == REG_RBP) {
        row->fp = FP_SAVED;
        row->fp_off = off;
    } else if (reg == REG_RA) {
        row->ra_ok = 1;
        row->ra_off = off;
    }
}

/* A rule the walk cannot follow for rbp or the return address; other registers do not matter. */
static void set_unknown(struct row *row, uint64_t reg)
{
    if (reg == REG_RBP)
        row->fp = FP_UNKNOWN;
    else if (reg == REG_RA)
        row->ra_ok = 0;
}

static void set_restore(struct row *row, uint64_t reg)
{
    if (reg == REG_RBP) {
        row->fp = initial_row.fp;
    } else if (reg == REG_RA) {
        row->ra_ok = initial_row.ra_ok;
        row->ra_off = initial_row.ra_off;
    }
}

static void set_cfa_reg(struct row *row, uint64_t reg)
{
    row->cfa_reg = reg == REG_RSP || reg == REG_RBP ? (int)reg : -1;
}

/* One instruction: the row changes, or *advance says how far the location moves. Returns 0, or
 * -1 for an opcode this file does not know (or set_loc, whose operand depends on an encoding). */
static int step(struct reader *r, struct row *row, struct row *stack, int *depth,
                uint64_t *advance)
{
    uint8_t op = *r->p++;
    uint64_t reg;

    *advance = 0;
    switch (op & 0xc0) {
    case CFA_ADVANCE_LOC:
        *advance = op & 0x3f;
        return 0;
    case CFA_OFFSET:
        set_offset(row, op & 0x3f, factored(uleb(r)));
        return 0;
    case CFA_RESTORE:
        set_restore(row, op & 0x3f);
        return 0;
    }
    switch (op) {
    case CFA_NOP:
        return 0;
    case CFA_ADVANCE_LOC1:
        *advance = fixed(r, 1);
        return 0;
    case CFA_ADVANCE_LOC2:
        *advance = fixed(r, 2);
        return 0;
    case CFA_ADVANCE_LOC4:
        *advance = fixed(r, 4);
        return 0;
    case CFA_OFFSET_EXTENDED:
        reg = uleb(r);
        set_offset(row, reg, factored(uleb(r)));
        return 0;
    case CFA_OFFSET_EXTENDED_SF:
        reg = uleb(r);
        set_offset(row, reg, factored((uint64_t)sleb(r)));
        return 0;
    case CFA_GNU_NEGATIVE_OFFSET_EXT:
        reg = uleb(r);
        set_offset(row, reg, factored(-uleb(r)));
        return 0;
    case CFA_RESTORE_EXTENDED:
        set_restore(row, uleb(r));
        return 0;
    case CFA_SAME_VALUE:
        reg = uleb(r);
        if (reg == REG_RBP)
            row->fp = FP_SAME;
        else
            set_unknown(row, reg);
        return 0;
    case CFA_UNDEFINED:
        set_unknown(row, uleb(r));
        return 0;
    case CFA_REGISTER:
    case CFA_VAL_OFFSET:
        set_unknown(row, uleb(r));
        uleb(r);
        return 0;
    case CFA_VAL_OFFSET_SF:
        set_unknown(row, uleb(r));
        sleb(r);
        return 0;
    case CFA_EXPRESSION:
    case CFA_VAL_EXPRESSION:
        set_unknown(row, uleb(r));
        skip_block(r);
        return 0;
    case CFA_REMEMBER_STATE:
        if (*depth == STATE_STACK)
            return -1;
        stack[(*depth)++] = *row;
        return 0;
    case CFA_RESTORE_STATE:
        if (*depth == 0)
            return -1;
        *row = stack[--*depth];
        return 0;
    case CFA_DEF_CFA:
        set_cfa_reg(row, uleb(r));
        row->cfa_off = (int64_t)uleb(r);
        return 0;
    case CFA_DEF_CFA_SF:
        set_cfa_reg(row, uleb(r));
        row->cfa_off = factored((uint64_t)sleb(r));
        return 0;
    case CFA_DEF_CFA_REGISTER:
        set_cfa_reg(row, uleb(r));
        return 0;
    case CFA_DEF_CFA_OFFSET:
        row->cfa_off = (int64_t)uleb(r);
        return 0;
    case CFA_DEF_CFA_OFFSET_SF:
        row->cfa_off = factored((uint64_t)sleb(r));
        return 0;
    case CFA_DEF_CFA_EXPRESSION:
        row->cfa_reg = -1;
        skip_block(r);
        return 0;
    case CFA_GNU_ARGS_SIZE:
        uleb(r);
        return 0;
    default:
        return -1;
    }
}

/* Runs the instructions up to the row holding `pc` (bytes from the range's start); the whole
 * stream when pc is UINT64_MAX. Returns 0 or -1 (unknown opcode, truncated operand, unbalanced
 * state stack). */
static int run(const uint8_t *cfi, size_t size, uint64_t pc, struct row *row)
{
    struct reader r = { cfi, cfi + size, 0 };
    struct row stack[STATE_STACK];
    uint64_t loc = 0, advance;
    int depth = 0;

    *row = initial_row;
    while (r.p < r.end) {
        if (step(&r, row, stack, &depth, &advance) != 0 || r.bad)
            return -1;
        loc += advance;
        if (loc > pc)
            return 0;
    }
    return 0;
}

int palev__cfi_check(const void *cfi, size_t size)
{
    struct row row;

    if (!cfi || size == 0 || size > PALEV__CFI_MAX)
        return -EINVAL;
    return run(cfi, size, UINT64_MAX, &row) == 0 ? 0 : -EINVAL;
}

/* The fixed frame as a row: CFA = rsp + cfa_offset, rbp saved or untouched. */
static void fixed_row(const struct palev__unwind_rule *rule, struct row *row)
{
    *row = initial_row;
    row->cfa_off = rule->cfa_offset;
    if (rule->saved_fp) {
        row->fp = FP_SAVED;
        row->fp_off = -(int64_t)rule->saved_fp;
    }
}

int palev__cfi_frame(const struct palev__unwind_rule *rule, uint64_t pc, struct palev__frame *f)
{
    struct row row;

    if (rule->cfi_size == 0 || run(rule->cfi, rule->cfi_size, pc, &row) != 0 ||
        row.cfa_reg < 0 || !row.ra_ok) {
        if (!rule->cfa_offset)
            return -1;
        fixed_row(rule, &row);
    }
    f->cfa_from_fp = row.cfa_reg == REG_RBP;
    f->cfa_offset = row.cfa_off;
    f->ra_offset = row.ra_off;
    f->fp = row.fp == FP_SAVED ? PALEV__FP_SAVED : row.fp == FP_SAME ? PALEV__FP_SAME
                                                                       : PALEV__FP_LOST;
    f->fp_offset = row.fp_off;
    return 0;
}

/* ---- the description a runtime gives ----------------------------------------------------- */

int palev__unwind_rule_new(const palev_code_unwind *u, struct palev__unwind_rule **out)
{
    struct palev__unwind_rule *rule;
    size_t cfi_size = u && u->cfi ? u->cfi_size : 0;

    *out = NULL;
    if (!u || (!u->cfa_offset && !u->cfi) || u->cfa_offset % 8 || u->saved_fp % 8 ||
        (u->cfa_offset && u->cfa_offset < 8) || (u->saved_fp && u->saved_fp >= u->cfa_offset) ||
        (!u->cfa_offset && u->saved_fp) || (u->cfi && palev__cfi_check(u->cfi, cfi_size) != 0))
        return -EINVAL;
    rule = palev__malloc(sizeof(*rule) + cfi_size);
    if (!rule)
        return -ENOMEM;
    rule->cfa_offset = u->cfa_offset;
    rule->saved_fp = u->saved_fp;
    rule->cfi_size = (uint32_t)cfi_size;
    if (cfi_size)
        memcpy(rule->cfi, u->cfi, cfi_size);
    *out = rule;
    return 0;
}

/* ---- .eh_frame ------------------------------------------------------------------------------ */

struct writer {
    uint8_t *buf;
    size_t at, room;            /* bytes from `room` on are counted, not written */
};

static void put(struct writer *w, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++, w->at++)
        if (w->at < w->room)
            w->buf[w->at] = (uint8_t)(v >> (8 * i));
}

static void put_uleb(struct writer *w, uint64_t v)
{
    do {
        uint8_t b = v & 0x7f;

        v >>= 7;
        put(w, b | (v ? 0x80 : 0), 1);
    } while (v);
}

static void put_bytes(struct writer *w, const void *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put(w, ((const uint8_t *)src)[i], 1);
}

static size_t at(const struct writer *w)
{
    return w->at;
}

/* Zero-pads to a multiple of 8 and writes the 32-bit length of the entry started at `len_at`. */
static void close_entry(struct writer *w, size_t len_at)
{
    size_t len;

    while ((at(w) - len_at) % 8)
        put(w, CFA_NOP, 1);
    len = at(w) - len_at - 4;
    if (len_at + 4 <= w->room)
        for (unsigned i = 0; i < 4; i++)
            w->buf[len_at + i] = (uint8_t)(len >> (8 * i));
}

/* The instructions of the FDE: the runtime's own, or the fixed frame's from the first byte. */
static void put_instructions(struct writer *w, const struct palev__unwind_rule *rule)
{
    if (rule->cfi_size) {
        put_bytes(w, rule->cfi, rule->cfi_size);
        return;
    }
    put(w, CFA_DEF_CFA_OFFSET, 1);
    put_uleb(w, rule->cfa_offset);
    if (rule->saved_fp) {
        put(w, CFA_OFFSET | REG_RBP, 1);
        put_uleb(w, rule->saved_fp / 8);
    }
}

size_t palev__eh_frame(void *out, size_t room, const struct palev__unwind_rule *rule,
                       uint64_t code, uint64_t size, int for_jitdump, size_t *fde_at)
{
    uint8_t enc = for_jitdump ? PE_PCREL | PE_SDATA4 : PE_ABSPTR;
    struct writer w = { out, 0, out ? room : 0 };
    size_t len_at;

    /* CIE: version 1, "zR", code alignment 1, data alignment -8, RA column 16; at a call, CFA =
     * rsp + 8 and the return address at CFA - 8. */
    put(&w, 0, 4);
    put(&w, 0, 4);                              /* CIE id */
    put(&w, 1, 1);
    put_bytes(&w, "zR", 3);
    put_uleb(&w, 1);
    put(&w, 0x78, 1);                           /* sleb128 -8 */
    put(&w, REG_RA, 1);
    put_uleb(&w, 1);                            /* augmentation data: the encoding */
    put(&w, enc, 1);
    put(&w, CFA_DEF_CFA, 1);
    put_uleb(&w, REG_RSP);
    put_uleb(&w, 8);
    put(&w, CFA_OFFSET | REG_RA, 1);
    put_uleb(&w, 1);
    close_entry(&w, 0);

    /* FDE: pc_begin in memory (absolute), or relative to where perf inject puts this section
     * in the ELF it writes: right after the code, 8-byte aligned. */
    len_at = at(&w);
    *fde_at = len_at;
    put(&w, 0, 4);
    put(&w, at(&w), 4);                         /* back to the CIE */
    if (for_jitdump) {
        uint64_t gap = (size + 7) & ~(uint64_t)7;

        put(&w, (uint64_t)-(int64_t)(gap + at(&w)), 4);
        put(&w, size, 4);
    } else {
        put(&w, code, 8);
        put(&w, size, 8);
    }
    put_uleb(&w, 0);                            /* no augmentation data */
    put_instructions(&w, rule);
    close_entry(&w, len_at);
    put(&w, 0, 4);                              /* the terminator */
    return at(&w);
}

size_t palev__eh_frame_hdr(void *out, uint64_t size, size_t eh_frame_size, size_t fde_at)
{
    uint64_t gap = (size + 7) & ~(uint64_t)7;
    struct writer w = { out, 0, PALEV__EH_FRAME_HDR_SIZE };

    /* .eh_frame_hdr right after .eh_frame: its pointer to .eh_frame is relative to itself,
     * the table's entries to the header's start. */
    put(&w, 1, 1);
    put(&w, PE_PCREL | PE_SDATA4, 1);
    put(&w, PE_UDATA4, 1);
    put(&w, PE_DATAREL | PE_SDATA4, 1);
    put(&w, (uint64_t)-(int64_t)(eh_frame_size + 4), 4);
    put(&w, 1, 4);
    put(&w, (uint64_t)-(int64_t)(gap + eh_frame_size), 4);     /* the code's first byte */
    put(&w, (uint64_t)((int64_t)fde_at - (int64_t)eh_frame_size), 4);
    return at(&w);
}
