/* SPDX-License-Identifier: MIT */
/* libpaleventing-unwind.so: the calling thread's stack unwound by libunwind (DWARF CFI, frame
 * pointers where there is none), for PALEV_STACK=unwind, and JIT code's unwind info registered
 * with libunwind. Loaded by libpaleventing on demand. */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT size_t palev_unwind_walk(uintptr_t *ip, uintptr_t *top, size_t max, int tops);
EXPORT size_t palev_unwind_dyn_size(void);
EXPORT void palev_unwind_dyn_register(void *di, uintptr_t start, uintptr_t end, uintptr_t segbase,
                                      const void *table);
EXPORT void palev_unwind_dyn_cancel(void *di);

/* Return addresses only: libunwind's fast path (unw_backtrace caches how each address unwinds),
 * no frame bounds. */
static inline __attribute__((always_inline)) size_t fast_walk(uintptr_t *ip, uintptr_t *top,
                                                                size_t max)
{
    int n = unw_backtrace((void **)ip, (int)max);

    if (n <= 1)
        return 0;
    /* The first address is in palev_unwind_walk(): from its caller on, as the slow path. */
    memmove(ip, ip + 1, (size_t)(n - 1) * sizeof(*ip));
    for (int i = 0; i < n - 1; i++)
        top[i] = UINTPTR_MAX;
    return (size_t)(n - 1);
}

/* ip[i] returns into a function whose frame ends at its caller's stack pointer, known one step
 * later: top[i] is that, or UINTPTR_MAX for the outermost frame. Without `tops` (no runtime
 * walker to place frames by, no JIT code registered), the fast path. */
size_t palev_unwind_walk(uintptr_t *ip, uintptr_t *top, size_t max, int tops)
{
    unw_context_t context;
    unw_cursor_t cursor;
    unw_word_t pc, sp;
    size_t n = 0;

    if (!tops)
        return fast_walk(ip, top, max);
    if (unw_getcontext(&context) != 0 || unw_init_local(&cursor, &context) != 0)
        return 0;
    while (n < max && unw_step(&cursor) > 0) {
        if (unw_get_reg(&cursor, UNW_REG_IP, &pc) != 0 || pc == 0 ||
            unw_get_reg(&cursor, UNW_REG_SP, &sp) != 0)
            break;
        if (n > 0)
            top[n - 1] = (uintptr_t)sp;
        ip[n] = (uintptr_t)pc;
        top[n++] = UINTPTR_MAX;
    }
    return n;
}

size_t palev_unwind_dyn_size(void)
{
    return sizeof(unw_dyn_info_t);
}

/* One range's DWARF CFI: libunwind 1.6 on x86-64 follows UNW_INFO_FORMAT_IP_OFFSET (a search
 * table of { start_ip_offset from `start`, fde_offset from `segbase` }) through its DWARF
 * parser; its UNW_INFO_FORMAT_DYNAMIC (unwind "ops") is not implemented there. `di` is zeroed
 * memory that stays untouched until palev_unwind_dyn_cancel(). */
void palev_unwind_dyn_register(void *di, uintptr_t start, uintptr_t end, uintptr_t segbase,
                               const void *table)
{
    unw_dyn_info_t *d = di;

    d->start_ip = start;
    d->end_ip = end;
    d->format = UNW_INFO_FORMAT_IP_OFFSET;
    d->u.rti.name_ptr = 0;
    d->u.rti.segbase = segbase;
    d->u.rti.table_len = 1;             /* in words: one 8-byte entry */
    d->u.rti.table_data = (unw_word_t)(uintptr_t)table;
    _U_dyn_register(d);
}

/* libunwind caches what it parsed per address: flushed, since new code may take the range. */
void palev_unwind_dyn_cancel(void *di)
{
    _U_dyn_cancel(di);
    unw_flush_cache(unw_local_addr_space, 0, 0);
}
