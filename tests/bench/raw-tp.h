/* SPDX-License-Identifier: MIT */
/* Hand-written LTTng-UST tracepoints with the fields of bench.man: the baselines of the benchmark. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER palev_bench_raw
#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./raw-tp.h"
#ifndef LTTNG_UST_COMPAT_API_VERSION
#define LTTNG_UST_COMPAT_API_VERSION 1
#endif

#ifndef PALEV_BENCH_RAW_TYPES_H
#define PALEV_BENCH_RAW_TYPES_H
#include <stdint.h>

/* 15 fields do not fit LTTNG_UST_TP_ARGS (10 at most): by hand, one would pass a struct too. */
struct raw_wide {
    uint32_t f01, f02, f03, f04;
    uint64_t f05, f06, f07, f08;
    int32_t f09, f10;
    uint16_t f11, f12;
    uint8_t f13;
    double f14;
    uintptr_t f15;
};
#endif

#if !defined(PALEV_BENCH_RAW_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define PALEV_BENCH_RAW_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT_CLASS(palev_bench_raw, small,
    LTTNG_UST_TP_ARGS(uint32_t, count, uint64_t, size, int32_t, depth, uint32_t, flags,
                      const char *, name),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint32_t, Count, count)
        lttng_ust_field_integer(uint64_t, Size, size)
        lttng_ust_field_integer(int32_t, Depth, depth)
        lttng_ust_field_integer(uint32_t, Flags, flags)
        lttng_ust_field_string(Name, name)
    )
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(palev_bench_raw, small, palev_bench_raw, Small,
    LTTNG_UST_TP_ARGS(uint32_t, count, uint64_t, size, int32_t, depth, uint32_t, flags,
                      const char *, name))
LTTNG_UST_TRACEPOINT_LOGLEVEL(palev_bench_raw, Small, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(palev_bench_raw, small, palev_bench_raw, SmallOff,
    LTTNG_UST_TP_ARGS(uint32_t, count, uint64_t, size, int32_t, depth, uint32_t, flags,
                      const char *, name))
LTTNG_UST_TRACEPOINT_LOGLEVEL(palev_bench_raw, SmallOff, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

LTTNG_UST_TRACEPOINT_EVENT(palev_bench_raw, Text8,
    LTTNG_UST_TP_ARGS(uint32_t, count, uint64_t, size, int32_t, depth, uint32_t, flags,
                      const char *, type, const char *, method, const char *, module),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint32_t, Count, count)
        lttng_ust_field_integer(uint64_t, Size, size)
        lttng_ust_field_integer(int32_t, Depth, depth)
        lttng_ust_field_integer(uint32_t, Flags, flags)
        lttng_ust_field_string(Type, type)
        lttng_ust_field_string(Method, method)
        lttng_ust_field_string(Module, module)
    )
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(palev_bench_raw, Text8, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

LTTNG_UST_TRACEPOINT_EVENT(palev_bench_raw, Wide15,
    LTTNG_UST_TP_ARGS(const struct raw_wide *, w),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint32_t, F01, w->f01)
        lttng_ust_field_integer(uint32_t, F02, w->f02)
        lttng_ust_field_integer(uint32_t, F03, w->f03)
        lttng_ust_field_integer(uint32_t, F04, w->f04)
        lttng_ust_field_integer(uint64_t, F05, w->f05)
        lttng_ust_field_integer(uint64_t, F06, w->f06)
        lttng_ust_field_integer(uint64_t, F07, w->f07)
        lttng_ust_field_integer(uint64_t, F08, w->f08)
        lttng_ust_field_integer(int32_t, F09, w->f09)
        lttng_ust_field_integer(int32_t, F10, w->f10)
        lttng_ust_field_integer(uint16_t, F11, w->f11)
        lttng_ust_field_integer(uint16_t, F12, w->f12)
        lttng_ust_field_integer(uint8_t, F13, w->f13)
        lttng_ust_field_float(double, F14, w->f14)
        lttng_ust_field_integer_hex(uintptr_t, F15, w->f15)
    )
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(palev_bench_raw, Wide15, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* A struct array as one typed sequence per member, gathered by the caller. */
LTTNG_UST_TRACEPOINT_EVENT(palev_bench_raw, Items,
    LTTNG_UST_TP_ARGS(uint16_t, count, const uintptr_t *, address, const uint64_t *, size,
                      const uint32_t *, kind, const uint16_t *, flags),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, Count, count)
        lttng_ust_field_sequence_hex(uintptr_t, Items_Address, address, uint32_t, count)
        lttng_ust_field_sequence(uint64_t, Items_Size, size, uint32_t, count)
        lttng_ust_field_sequence(uint32_t, Items_Kind, kind, uint32_t, count)
        lttng_ust_field_sequence(uint16_t, Items_Flags, flags, uint32_t, count)
    )
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(palev_bench_raw, Items, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* The baseline of EventSource: one string field holding the JSON payload. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(palev_bench_raw, json,
    LTTNG_UST_TP_ARGS(const char *, payload),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_string(Payload, payload)
    )
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(palev_bench_raw, json, palev_bench_raw, Json,
    LTTNG_UST_TP_ARGS(const char *, payload))
LTTNG_UST_TRACEPOINT_LOGLEVEL(palev_bench_raw, Json, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(palev_bench_raw, json, palev_bench_raw, JsonOff,
    LTTNG_UST_TP_ARGS(const char *, payload))
LTTNG_UST_TRACEPOINT_LOGLEVEL(palev_bench_raw, JsonOff, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

#endif

#include <lttng/tracepoint-event.h>
