/* SPDX-License-Identifier: MIT */
/* Shared declarations of the benchmark: the timed loops, the allocation counter, the raw probes. */
#ifndef PALEV_BENCH_H
#define PALEV_BENCH_H

#include <stdint.h>

/* Keeps a loop (and `v`) alive: the compiler must run every iteration and may not hoist loads of
 * memory (the tracepoint state) out of the loop. Costs no instruction. */
#define BENCH_KEEP(v) __asm__ volatile("" : : "r"(v) : "memory")

/* A timed loop: `n` iterations of one variant. */
typedef void (*bench_loop)(uint64_t n);

/* Row 1: disabled events, and the empty loop they are compared with. */
void bench_empty(uint64_t n);
void bench_fire_off(uint64_t n);
void bench_raw_off(uint64_t n);

/* Rows 2-4: enabled events, generated stubs and raw tracepoints with the same fields. */
void bench_fire_small(uint64_t n);
void bench_raw_small(uint64_t n);
void bench_fire_text16(uint64_t n);
void bench_fire_text8(uint64_t n);
void bench_raw_text8(uint64_t n);
void bench_fire_wide(uint64_t n);
void bench_raw_wide(uint64_t n);
void bench_fire_items(uint64_t n);
void bench_raw_items(uint64_t n);

/* Row 5: EventSource, and a raw tracepoint with one string field (enabled, and never enabled). */
void bench_es_pack(uint64_t n);
void bench_es_write(uint64_t n);
void bench_es_is_enabled(uint64_t n);
void bench_raw_json(uint64_t n);
void bench_raw_json_off(uint64_t n);

/* Rows 1u, 2u, 9: the same events from a --usdt build of bench.man (loops_usdt.c). */
void bench_usdt_fire_off(uint64_t n);
void bench_usdt_fire_small(uint64_t n);
int bench_usdt_small_enabled(void);
int bench_usdt_off_enabled(void);

/* Row 10: dynamic events with the Small event's fields (dyn-loops.c). */
int bench_dyn_define(void);
int bench_dyn_enabled(void);
int bench_dyn_off_enabled(void);
void bench_dyn_off(uint64_t n);
void bench_dyn_writef(uint64_t n);
void bench_dyn_write(uint64_t n);
void bench_es_pack_small(uint64_t n);
int bench_lookup_define(void);
void bench_lookup(uint64_t n);

/* 1 when the event a row needs is enabled in a session, else 0. */
int bench_small_enabled(void);
int bench_raw_small_enabled(void);
int bench_off_enabled(void);
int bench_raw_json_enabled(void);

/* Heap allocations (malloc, calloc, realloc, aligned forms) made by the calling thread so far,
 * counted by the interposer in alloc.c. */
uint64_t bench_allocs(void);

/* 0 when the raw probe provider was loaded at start-up (raw-sites.c), else -1. */
int bench_raw_loaded(void);

#endif /* PALEV_BENCH_H */
