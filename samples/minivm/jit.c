/* SPDX-License-Identifier: MIT */
/* minivm: the native tier's policy, code memory, events and perf map, and the helpers it calls. */
#include "events.h"
#include "jit.h"
#include "vm.h"

#include <paleventing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(MINIVM_JIT_X64) && defined(__x86_64__)
#define HAVE_BACKEND 1
#else
#define HAVE_BACKEND 0
/* No backend here: nothing ever asks for one (jit_available() is 0), but the symbol is needed. */
int jit_arch_compile(const struct method *m, struct jit_image *img)
{
    (void)m;
    (void)img;
    return -1;
}
#endif

int jit_available(void)
{
    return HAVE_BACKEND;
}

/* ---- code memory ------------------------------------------------------------------------- */

/* Map, copy, then flip to read+execute: the code is never writable and executable at once. */
static struct jit_code *install(const struct jit_image *img)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t mapped = (img->size + page - 1) / page * page;
    struct jit_code *code = calloc(1, sizeof *code);
    void *mem = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (!code || mem == MAP_FAILED)
        goto fail;
    memcpy(mem, img->bytes, img->size);
    if (mprotect(mem, mapped, PROT_READ | PROT_EXEC) != 0)
        goto fail;
    *code = (struct jit_code){ .mem = mem, .mapped = mapped, .size = img->size,
                               .offsets = img->offsets, .exit_fail = img->exit_fail };
    return code;
fail:
    if (mem != MAP_FAILED)
        munmap(mem, mapped);
    free(code);
    return NULL;
}

void jit_free(struct method *m)
{
    if (!m->jit)
        return;
    palev_code_unload(m->jit->mem);
    munmap(m->jit->mem, m->jit->mapped);
    free(m->jit->offsets);
    free(m->jit);
    m->jit = NULL;
    m->native = NULL;
}

/* "Demo.Math.fib[jit]": what perf report shows for samples in this code, and stack events. */
static void log_code(const struct method *m)
{
    char name[256];

    snprintf(name, sizeof name, "%s.%s[jit]", m->ns, m->name);
    palev_code_load(m->jit->mem, m->jit->size, name);
}

/* ---- policy ------------------------------------------------------------------------------ */

static void compile_native(struct vm_thread *t, struct method *m)
{
    struct jit_image img = { 0 };
    uint64_t t0 = now_ns();

    ev_jitting_started(m);
    if (jit_arch_compile(m, &img) < 0 || !(m->jit = install(&img))) {
        m->jit_refused = 1; /* out of memory: it stays interpreted, and is not tried again */
        free(img.offsets);
        free(img.bytes);
        return;
    }
    free(img.bytes);
    /* The entry point is data turned into a function: memcpy, as dlsym users do. */
    memcpy(&m->native, &m->jit->mem, sizeof m->native);
    t->vm->stats.methods_jitted++;
    ev_method_load(m, m->jit->mem, m->jit->size, now_ns() - t0, TIER_NATIVE);
    log_code(m);
}

void jit_count_call(struct vm_thread *t, struct method *m)
{
    uint32_t threshold = t->vm->config.jit_threshold;

    if (!threshold || m->native || m->jit_refused)
        return;
    if (++m->calls >= threshold)
        compile_native(t, m);
}

/* ---- running native code ----------------------------------------------------------------- */

int jit_run(struct vm_thread *t, struct method *m)
{
    struct frame *f = &t->frames[t->depth - 1];
    value *locals = f->locals;

    f->native = 1;
    if (m->native(t, locals) != 0)
        return -1; /* the frame was popped by the unwinding */
    /* The native RET left the result in locals[0], where the interpreter's RET puts it. */
    t->depth--;
    t->sp = locals + 1;
    t->locals = t->depth ? t->frames[t->depth - 1].locals : NULL;
    return 0;
}

const void *jit_address(const struct method *m, const struct insn *ip)
{
    return (const uint8_t *)m->jit->mem + m->jit->offsets[ip - m->code];
}

/* ---- helpers ----------------------------------------------------------------------------- */

/* Where native code of m goes on after an exception: handler (in m) or its exit path. */
static const void *landing(const struct method *m, const struct insn *handler)
{
    return handler ? jit_address(m, handler) : (const uint8_t *)m->jit->mem + m->jit->exit_fail;
}

/* The interpreter's handler returns ip + 1 when the instruction completed; anything else is
 * where its unwinding ended (a handler of this method, or NULL when the frame was popped). A
 * handler at ip + 1 lands on the same native code either way. */
const void *jit_helper_op(struct vm_thread *t, value *sp, const struct insn *ip)
{
    const struct method *m = t->frames[t->depth - 1].method;
    const struct insn *next;

    t->sp = sp;
    next = ip->fn(t, ip);
    return next == ip + 1 ? NULL : landing(m, next);
}

const void *jit_helper_call(struct vm_thread *t, value *sp, const struct insn *ip)
{
    const struct method *m = t->frames[t->depth - 1].method;

    t->sp = sp;
    if (vm_call(t, ip->a.method, ip) == 0)
        return NULL;
    return landing(m, vm_propagate(t, ip));
}

const void *jit_helper_poll(struct vm_thread *t, value *sp, const struct insn *ip)
{
    (void)ip;
    t->sp = sp;
    t->budget = SAFEPOINT_INTERVAL;
    vm_safepoint(t);
    return NULL;
}
