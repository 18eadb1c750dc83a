/* SPDX-License-Identifier: MIT */
/* minivm: the native tier: when methods get native code, how it runs, the helpers it calls. */
#ifndef MINIVM_JIT_H
#define MINIVM_JIT_H

#include "vm.h"

/* --jit=hot (the default): native code on a method's 100th call. */
#define JIT_HOT_CALLS 100

/* Native code of one method, in its own mapping: written while read+write, then read+execute,
 * never both. */
struct jit_code {
    void *mem;
    size_t mapped;
    uint32_t size;         /* bytes of code: the MethodLoad's and the perf map's size */
    uint32_t *offsets;     /* native offset of each instruction of the threaded code, and
                              of its end (ninsns + 1) */
    uint32_t exit_fail;    /* offset of the path returning -1: an exception left the method */
};

/* What a backend produces: position-independent code (calls to helpers through absolute
 * addresses, jumps relative), copied as is into the executable mapping. */
struct jit_image {
    uint8_t *bytes;
    uint32_t size;
    uint32_t *offsets;     /* native offset of each instruction (ninsns + 1 entries) */
    uint32_t exit_fail;
};

/* 1 when this build has a native backend (x86-64); elsewhere --jit is accepted and ignored. */
int jit_available(void);

/* Count a call of m (compiled to threaded code) and compile it to native code when it reaches
 * the threshold. A method the JIT cannot compile stays interpreted. Holds the VM lock. */
void jit_count_call(struct vm_thread *t, struct method *m);

/* Run m's native code; its frame is the top one, just pushed with ret NULL. Returns 0 with the
 * result pushed and the frame popped, or -1 with an exception in flight and the frame popped. */
int jit_run(struct vm_thread *t, struct method *m);

/* The native address of instruction ip of m (which has native code). */
const void *jit_address(const struct method *m, const struct insn *ip);

/* Unmap m's native code, if any. */
void jit_free(struct method *m);

/* ---- the helper calling convention ---------------------------------------------------------
 * Native code keeps every VM value in VM memory: locals and operand stack slots at fixed
 * offsets from the frame's locals, never only in a register. Whatever it cannot do itself it
 * hands to a helper, a plain C function called with
 *     t   the thread,
 *     sp  one past the top of the operand stack before the instruction (the helper stores it
 *         into t->sp first, so the collector sees exactly the frame's live values),
 *     ip  the instruction of threaded code being executed (operands, handler lookups).
 * A helper returns NULL to go on with the next instruction (its result is then where the
 * instruction's stack effect says), or the native address to jump to instead: a handler of
 * this method (the exception its only operand) or the method's exit path (the exception left
 * the method; its frame is popped). Native code calls helpers with the stack aligned and keeps
 * t and the locals base in callee-saved registers. */
typedef const void *(*jit_helper)(struct vm_thread *t, value *sp, const struct insn *ip);

/* Any instruction of NEXT or END flow, done by the interpreter's own handler. */
const void *jit_helper_op(struct vm_thread *t, value *sp, const struct insn *ip);
/* call NS.name: through vm_call(), so the callee runs natively or interpreted. */
const void *jit_helper_call(struct vm_thread *t, value *sp, const struct insn *ip);
/* A safepoint on a backward branch once the budget is spent: the lock may change hands and
 * other threads may collect meanwhile. Always returns NULL. */
const void *jit_helper_poll(struct vm_thread *t, value *sp, const struct insn *ip);

/* The backend (jit_x64.c): translate m, compiled to threaded code, into img. Returns 0, or -1
 * when it cannot (out of memory, an instruction it does not support): m stays interpreted. */
int jit_arch_compile(const struct method *m, struct jit_image *img);

#endif /* MINIVM_JIT_H */
