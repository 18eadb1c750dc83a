/* SPDX-License-Identifier: MIT */
/* Call stacks: the Paleventing:Stack event after a recorded event, walked by frame pointers
 * (or libunwind) and merged with the logical frames runtimes report. */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "Paleventing-events.h"

/* Per-thread data without __tls_get_addr: libpaleventing is linked by its host, not dlopened. */
#define TLS __thread __attribute__((tls_model("initial-exec")))
#define MAX_WALKERS 4
/* A frame record is the saved frame pointer and the return address above it. */
#define FRAME_RECORD (2 * sizeof(uintptr_t))

PALEV_API const int *const palev_stack_state = &lttng_ust_tracepoint_Paleventing___Stack.state;

static struct {
    palev_stack_walker *fn;
    void *ctx;
} walkers[MAX_WALKERS];
static unsigned walker_count;  /* slots below it are filled; published with release */
static pthread_mutex_t walker_lock = PTHREAD_MUTEX_INITIALIZER;

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

/* Frame pointers from `fp`, each one inside this thread's stack (above the walker's own frame,
 * below the stack's end), aligned, and higher than the one before: garbage in rbp (code built
 * without frame pointers) ends the walk, it never reads outside the stack. On another stack (a
 * signal handler's alternate stack, a coroutine's) nothing is walked. top[i] bounds the frame of
 * the function ip[i] returns into, for placing logical frames. Not instrumented: a stray frame
 * pointer may point into a sanitizer's redzone, which is still stack memory. */
__attribute__((noinline, no_sanitize_address)) static size_t
walk_fp(uintptr_t fp, struct palev__native *nat, size_t max)
{
    uintptr_t lo = (uintptr_t)__builtin_frame_address(0), hi = thread_stack_end();
    size_t n = 0;

    if (lo < stack_start || lo >= hi)
        return 0;

    while (n < max && fp >= lo && hi >= FRAME_RECORD && fp <= hi - FRAME_RECORD &&
           fp % sizeof(uintptr_t) == 0) {
        const uintptr_t *rec = (const uintptr_t *)fp;
        uintptr_t next = rec[0];

        if (rec[1] == 0)
            break;
        nat->ip[n] = rec[1];
        nat->top[n++] = next > fp && next <= hi - FRAME_RECORD ? next + FRAME_RECORD : hi;
        if (next <= fp)
            break;
        fp = next;
    }
    return n;
}

/* The walk of the configured kind; libunwind falls back to frame pointers when unavailable. */
__attribute__((noinline)) static size_t walk_native(struct palev__native *nat, size_t max)
{
    if (palev__config()->stack == PALEV__STACK_UNWIND) {
        int tops = __atomic_load_n(&walker_count, __ATOMIC_RELAXED) > 0;
        long n = palev__unwind_walk(nat, max, tops);

        if (n >= 0)
            return (size_t)n;
    }
    return walk_fp((uintptr_t)__builtin_frame_address(0), nat, max);
}

/* ---- logical frames -------------------------------------------------------------------------- */

PALEV_API int palev_stack_add_walker(palev_stack_walker *fn, void *ctx)
{
    int ret = 0;

    if (!fn)
        return -EINVAL;
    pthread_mutex_lock(&walker_lock);
    if (walker_count == MAX_WALKERS) {
        ret = -ENOSPC;
    } else {
        walkers[walker_count].fn = fn;
        walkers[walker_count].ctx = ctx;
        __atomic_store_n(&walker_count, walker_count + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&walker_lock);
    return ret;
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

static size_t walk_logical(palev_stack_frame *f, size_t max)
{
    unsigned count = __atomic_load_n(&walker_count, __ATOMIC_ACQUIRE);
    size_t n = 0;

    for (unsigned w = 0; w < count && n < max; w++) {
        size_t got = walkers[w].fn(walkers[w].ctx, f + n, max - n);

        n += got < max - n ? got : max - n;
    }
    sort_logical(f, n);
    return n;
}

/* A logical frame goes just before (inside) the first native frame whose extent holds it. */
size_t palev__stack_merge(uint64_t *out, size_t max, const struct palev__native *nat, size_t nn,
                          const palev_stack_frame *lf, size_t nl)
{
    size_t n = 0, j = 0;

    for (size_t i = 0; i < nn && n < max; i++) {
        for (; j < nl && n < max && frame_key(&lf[j]) < nat->top[i]; j++)
            out[n++] = lf[j].code;
        if (n < max)
            out[n++] = nat->ip[i];
    }
    for (; j < nl && n < max; j++)
        out[n++] = lf[j].code;
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

__attribute__((noinline)) static void record(const char *provider, const char *event,
                                             uintptr_t caller)
{
    struct palev__native nat;
    palev_stack_frame lf[PALEV__STACK_MAX];
    uint64_t out[PALEV__STACK_MAX];
    size_t depth = palev__config()->stack_depth, own, nn, nl, n;

    pthread_once(&self_once, self_range);
    /* Room for libpaleventing's own frames on top of the host's. */
    nn = walk_native(&nat, depth + 8 < PALEV__STACK_MAX ? depth + 8 : PALEV__STACK_MAX);
    own = skip_own(&nat, nn, caller);
    memmove(nat.ip, nat.ip + own, (nn - own) * sizeof(nat.ip[0]));
    memmove(nat.top, nat.top + own, (nn - own) * sizeof(nat.top[0]));
    nl = walk_logical(lf, depth);
    n = palev__stack_merge(out, depth, &nat, nn - own, lf, nl);
    FireEventStack(provider, event, (uint16_t)n, out, 0, NULL);
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
