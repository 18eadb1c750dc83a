/* SPDX-License-Identifier: MIT */
/* Call stacks: the Paleventing:Stack event after a recorded event, walked by frame pointers
 * (stepping over JIT frames without them by their unwind rules) or libunwind, and merged with
 * the logical frames runtimes report. */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <urcu-bp.h>

#include "internal.h"
#include "Paleventing-events.h"

/* Per-thread data without __tls_get_addr: libpaleventing is linked by its host, not dlopened. */
#define TLS __thread __attribute__((tls_model("initial-exec")))
#define MAX_WALKERS 16
#define MAX_THREAD_WALKERS 4
/* A frame record is the saved frame pointer and the return address above it. */
#define FRAME_RECORD (2 * sizeof(uintptr_t))

PALEV_API const int *const palev_stack_state = &lttng_ust_tracepoint_Paleventing___Stack.state;

struct walker {
    palev_stack_walker *fn;
    void *ctx;
};

/* The process-wide walkers: an array replaced whole under walker_lock, RCU-published, freed
 * after a grace period by the call that replaced it. */
struct walker_set {
    unsigned count;
    struct walker w[];
};
static struct walker_set *walkers;
static unsigned walker_hint;            /* walkers->count, read without the lock */
static pthread_mutex_t walker_lock = PTHREAD_MUTEX_INITIALIZER;

/* The calling thread's own walkers: only this thread reads and writes them. */
static TLS struct walker thread_walkers[MAX_THREAD_WALKERS];
static TLS unsigned thread_walker_count;

/* This thread's stack [stack_start, stack_end); stack_end 0 until looked up, 1 when unknown. */
static TLS uintptr_t stack_start, stack_end;

/* libpaleventing's own code: its frames at the top of a stack are not the host's. */
static uintptr_t self_lo, self_hi;
static pthread_once_t self_once = PTHREAD_ONCE_INIT;

/* ---- bounds ---------------------------------------------------------------------------------- */

/* Once per thread, in the cold path: glibc reads /proc/self/maps for the main thread. */
static uintptr_t thread_stack_end(void)
{
    pthread_attr_t attr;
    void *addr;
    size_t size;

    if (__builtin_expect(stack_end != 0, 1))
        return stack_end;
    stack_end = 1;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return stack_end;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
        stack_start = (uintptr_t)addr;
        stack_end = (uintptr_t)addr + size;
    }
    pthread_attr_destroy(&attr);
    return stack_end;
}

static int find_self(struct dl_phdr_info *info, size_t size, void *base)
{
    (void)size;
    if ((void *)info->dlpi_addr != base)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            self_lo = info->dlpi_addr + ph->p_vaddr;
            self_hi = self_lo + ph->p_memsz;
        }
    }
    return 1;
}

static void self_range(void)
{
    Dl_info info;

    if (dladdr((void *)self_range, &info) && info.dli_fbase)
        dl_iterate_phdr(find_self, info.dli_fbase);
}

static int in_self(uintptr_t ip)
{
    return ip >= self_lo && ip < self_hi;
}

/* ---- the native walk ------------------------------------------------------------------------- */

/* A JIT frame without frame pointer: the return address `ip` is inside a range with an unwind
 * rule. From the stack pointer after the call (*sp) and rbp at the call (*fp, *fp_ok), the CFA
 * and the return address below it; the caller's rbp where it was saved. Every read is inside
 * [lo, hi) and the CFA above *sp. Returns the return address (0: the walk ends). */
__attribute__((no_sanitize_address)) static uintptr_t
step_jit(const struct palev__unwind_rule *rule, uintptr_t start, uintptr_t ip, uintptr_t *sp,
         uintptr_t *fp, int *fp_ok, uintptr_t lo, uintptr_t hi)
{
    struct palev__frame f;
    uintptr_t cfa, ra_at, fp_at;

    if (palev__cfi_frame(rule, ip - 1 - start, &f) != 0 || (f.cfa_from_fp && !*fp_ok))
        return 0;
    cfa = (f.cfa_from_fp ? *fp : *sp) + (uintptr_t)f.cfa_offset;
    ra_at = cfa + (uintptr_t)f.ra_offset;
    if (cfa <= *sp || cfa > hi || ra_at < lo || ra_at > hi - sizeof(uintptr_t) ||
        ra_at % sizeof(uintptr_t))
        return 0;
    if (f.fp == PALEV__FP_SAVED) {
        fp_at = cfa + (uintptr_t)f.fp_offset;
        if (fp_at < lo || fp_at > hi - sizeof(uintptr_t) || fp_at % sizeof(uintptr_t))
            return 0;
        *fp = *(const uintptr_t *)fp_at;
    } else if (f.fp == PALEV__FP_LOST) {
        *fp_ok = 0;
    }
    *sp = cfa;
    return *(const uintptr_t *)ra_at;
}

/* Frame pointers from `fp`, each one inside this thread's stack (above the walker's own frame,
 * below the stack's end), aligned, and at least a frame record above the previous frame: garbage
 * in rbp (code built without frame pointers) ends the walk, it never reads outside the stack.
 * A return address into JIT code with an unwind rule is stepped over by the rule. On another
 * stack (a signal handler's alternate stack, a coroutine's) nothing is walked. top[i] bounds the
 * frame of the function ip[i] returns into, for placing logical frames. Not instrumented: a
 * stray frame pointer may point into a sanitizer's redzone, which is still stack memory. */
__attribute__((noinline, no_sanitize_address)) static size_t
walk_fp(uintptr_t fp, struct palev__native *nat, size_t max, int jit)
{
    uintptr_t lo = (uintptr_t)__builtin_frame_address(0), hi = thread_stack_end(), sp = lo;
    uintptr_t ip, start;
    const struct palev__unwind_rule *rule;
    size_t n = 0;
    int fp_ok = 1;

    if (lo < stack_start || lo >= hi || hi < FRAME_RECORD)
        return 0;
    while (n < max && fp_ok && fp >= sp && fp <= hi - FRAME_RECORD &&
           fp % sizeof(uintptr_t) == 0) {
        const uintptr_t *rec = (const uintptr_t *)fp;

        if ((ip = rec[1]) == 0)
            break;
        sp = fp + FRAME_RECORD;
        fp = rec[0];
        nat->ip[n] = ip;
        nat->top[n++] = hi;
        while (jit && n < max && (rule = palev__unwind_find(ip - 1, &start))) {
            nat->top[n - 1] = hi;
            if (!(ip = step_jit(rule, start, ip, &sp, &fp, &fp_ok, lo, hi)))
                return n;
            nat->top[n - 1] = sp;
            nat->ip[n] = ip;
            nat->top[n++] = hi;
        }
        if (fp_ok && fp >= sp && fp <= hi - FRAME_RECORD)
            nat->top[n - 1] = fp + FRAME_RECORD;
    }
    return n;
}

/* The walk of the configured kind; libunwind falls back to frame pointers when unavailable.
 * `tops`: frame bounds are needed (logical frames to place). */
__attribute__((noinline)) static size_t walk_native(struct palev__native *nat, size_t max,
                                                    int tops, int jit)
{
    if (palev__config()->stack == PALEV__STACK_UNWIND) {
        long n = palev__unwind_walk(nat, max, tops);

        if (n >= 0)
            return (size_t)n;
    }
    return walk_fp((uintptr_t)__builtin_frame_address(0), nat, max, jit);
}

/* ---- logical frames -------------------------------------------------------------------------- */

/* ---- fork (fork.c) and start-up -------------------------------------------------------------- */

void palev__stack_fork_prepare(void)
{
    pthread_mutex_lock(&walker_lock);
}

void palev__stack_fork_parent(void)
{
    pthread_mutex_unlock(&walker_lock);
}

void palev__stack_fork_child(void)
{
    pthread_mutex_unlock(&walker_lock);
}

/* What a walk would otherwise look up on first use, inside read-side sections (LTTng-UST's
 * tracepoint RCU for dynamic events): dladdr() and dlopen() wait for the dynamic loader's lock,
 * held by a thread loading a probe provider, which may wait for the define lock, held by an
 * undefine waiting for that very section to end (fork.c). At start-up nothing is held yet. */
void palev__stack_init(void)
{
    pthread_once(&self_once, self_range);
    if (palev__config()->stack == PALEV__STACK_UNWIND)
        palev__unwind_load();
}

static int walker_index(const struct walker_set *set, palev_stack_walker *fn, void *ctx)
{
    for (unsigned i = 0; set && i < set->count; i++)
        if (set->w[i].fn == fn && set->w[i].ctx == ctx)
            return (int)i;
    return -1;
}

/* Replace the set by a copy with fn/ctx added (add) or removed; then wait until no walk reads
 * the old set, and free it. */
static int walkers_change(palev_stack_walker *fn, void *ctx, int add)
{
    struct walker_set *old, *next = NULL;
    unsigned count;
    int at, ret = 0;

    if (!fn)
        return -EINVAL;
    palev__fork_init();
    pthread_mutex_lock(&walker_lock);
    old = walkers;
    count = old ? old->count : 0;
    at = walker_index(old, fn, ctx);
    if (add ? at >= 0 : at < 0) {
        ret = add ? -EEXIST : -ENOENT;
        goto end;
    }
    if (add && count == MAX_WALKERS) {
        ret = -ENOSPC;
        goto end;
    }
    next = palev__malloc(sizeof(*next) + (count + 1) * sizeof(next->w[0]));
    if (!next) {
        ret = -ENOMEM;
        goto end;
    }
    next->count = 0;
    for (unsigned i = 0; i < count; i++)
        if ((int)i != at)
            next->w[next->count++] = old->w[i];
    if (add)
        next->w[next->count++] = (struct walker){ fn, ctx };
    rcu_assign_pointer(walkers, next);
    __atomic_store_n(&walker_hint, next->count, __ATOMIC_RELAXED);
end:
    pthread_mutex_unlock(&walker_lock);
    if (next && old) {
        urcu_bp_synchronize_rcu();
        free(old);
    }
    return ret;
}

PALEV_API int palev_stack_add_walker(palev_stack_walker *fn, void *ctx)
{
    return walkers_change(fn, ctx, 1);
}

PALEV_API int palev_stack_remove_walker(palev_stack_walker *fn, void *ctx)
{
    return walkers_change(fn, ctx, 0);
}

/* The entry is written before the count covers it: an event of a signal handler on this thread
 * sees either. */
PALEV_API int palev_stack_add_thread_walker(palev_stack_walker *fn, void *ctx)
{
    unsigned n = thread_walker_count;

    if (!fn)
        return -EINVAL;
    for (unsigned i = 0; i < n; i++)
        if (thread_walkers[i].fn == fn && thread_walkers[i].ctx == ctx)
            return -EEXIST;
    if (n == MAX_THREAD_WALKERS)
        return -ENOSPC;
    thread_walkers[n] = (struct walker){ fn, ctx };
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    thread_walker_count = n + 1;
    return 0;
}

PALEV_API int palev_stack_remove_thread_walker(palev_stack_walker *fn, void *ctx)
{
    unsigned n = thread_walker_count;

    if (!fn)
        return -EINVAL;
    for (unsigned i = 0; i < n; i++) {
        if (thread_walkers[i].fn != fn || thread_walkers[i].ctx != ctx)
            continue;
        thread_walker_count = i;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        for (; i + 1 < n; i++)
            thread_walkers[i] = thread_walkers[i + 1];
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        thread_walker_count = n - 1;
        return 0;
    }
    return -ENOENT;
}

static uintptr_t frame_key(const palev_stack_frame *f)
{
    return f->frame ? f->frame : UINTPTR_MAX;
}

/* Stable insertion sort by frame address: innermost activations first, each walker's order
 * kept within one activation. Few frames, no allocation. */
static void sort_logical(palev_stack_frame *f, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        palev_stack_frame x = f[i];
        size_t j = i;

        for (; j > 0 && frame_key(&f[j - 1]) > frame_key(&x); j--)
            f[j] = f[j - 1];
        f[j] = x;
    }
}

static size_t call_walkers(const struct walker *w, unsigned count, palev_stack_frame *f,
                           size_t n, size_t max)
{
    for (unsigned i = 0; i < count && n < max; i++) {
        size_t got = w[i].fn(w[i].ctx, f + n, max - n);

        n += got < max - n ? got : max - n;
    }
    return n;
}

/* Inside the read-side section: the process-wide walkers, then the thread's. */
static size_t walk_logical(palev_stack_frame *f, size_t max)
{
    const struct walker_set *set = rcu_dereference(walkers);
    size_t n = 0;

    memset(f, 0, max * sizeof(*f));
    if (set)
        n = call_walkers(set->w, set->count, f, n, max);
    n = call_walkers(thread_walkers, thread_walker_count, f, n, max);
    sort_logical(f, n);
    return n;
}

/* A logical frame goes just before (inside) the first native frame whose extent holds it. */
size_t palev__stack_merge(uint64_t *out, uint32_t *lines, size_t max,
                          const struct palev__native *nat, size_t nn, const palev_stack_frame *lf,
                          size_t nl)
{
    size_t n = 0, j = 0;

    for (size_t i = 0; i < nn && n < max; i++) {
        for (; j < nl && n < max && frame_key(&lf[j]) < nat->top[i]; j++) {
            lines[n] = lf[j].line;
            out[n++] = lf[j].code;
        }
        if (n < max) {
            lines[n] = 0;
            out[n++] = nat->ip[i];
        }
    }
    for (; j < nl && n < max; j++) {
        lines[n] = lf[j].line;
        out[n++] = lf[j].code;
    }
    return n;
}

/* ---- recording ------------------------------------------------------------------------------- */

/* Where the host's part of the stack starts: at `caller` (the return address of a generated emit
 * function) when given and found, else after libpaleventing's own frames. */
static size_t skip_own(const struct palev__native *nat, size_t n, uintptr_t caller)
{
    size_t i = 0;

    for (size_t j = 0; caller && j < n; j++)
        if (nat->ip[j] == caller)
            return j;
    while (i < n && in_self(nat->ip[i]))
        i++;
    return i;
}

/* The lines up to the last frame that has one. */
static uint16_t line_count(const uint32_t *lines, size_t n)
{
    while (n > 0 && lines[n - 1] == 0)
        n--;
    return (uint16_t)n;
}

__attribute__((noinline)) static void record(const char *provider, const char *event,
                                             uintptr_t caller)
{
    struct palev__native nat;
    palev_stack_frame lf[PALEV__STACK_MAX];
    uint64_t out[PALEV__STACK_MAX];
    uint32_t lines[PALEV__STACK_MAX];
    size_t depth = palev__config()->stack_depth, own, nn, nl = 0, n;
    int logical = __atomic_load_n(&walker_hint, __ATOMIC_RELAXED) || thread_walker_count;
    int jit = palev__unwind_any();

    pthread_once(&self_once, self_range);
    /* Walkers and unwind rules are read in an RCU read-side section: their removal waits. */
    if (logical || jit)
        urcu_bp_read_lock();
    /* Room for libpaleventing's own frames on top of the host's. */
    nn = walk_native(&nat, depth + 8 < PALEV__STACK_MAX ? depth + 8 : PALEV__STACK_MAX, logical,
                     jit);
    own = skip_own(&nat, nn, caller);
    memmove(nat.ip, nat.ip + own, (nn - own) * sizeof(nat.ip[0]));
    memmove(nat.top, nat.top + own, (nn - own) * sizeof(nat.top[0]));
    if (logical)
        nl = walk_logical(lf, depth);
    if (logical || jit)
        urcu_bp_read_unlock();
    n = palev__stack_merge(out, lines, depth, &nat, nn - own, lf, nl);
    FireEventStack(provider, event, (uint16_t)n, out, line_count(lines, n), lines);
}

void palev__stack_after_event(const char *provider, const char *event)
{
    if (PALEV_TP_STATE_ENABLED(*palev_stack_state) && provider && event)
        record(provider, event, 0);
}

/* libpaleventing's own events (EventSource, code) record their stacks themselves, or none. */
PALEV_API void palev_stack_after_event(const palev_provider *provider, uint32_t index,
                                       const void *caller)
{
    if (!provider || provider == &palev_provider_Paleventing || index >= provider->event_count)
        return;
    record(provider->name, provider->event_names[index], (uintptr_t)caller);
}
