/* SPDX-License-Identifier: MIT */
/* A stand-in for libpaleventing's coming Paleventing:ProviderStatus event { provider, loaded
 * (win:Boolean: an enum "false"/"true" of a 32-bit integer), reason }, written by hand so that
 * palev-trace summary's "providers not loaded" is tested before the library records it. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER Paleventing
#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./status-tp.h"
#ifndef LTTNG_UST_COMPAT_API_VERSION
#define LTTNG_UST_COMPAT_API_VERSION 1
#endif

#if !defined(PALEV_TRACE_STATUS_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define PALEV_TRACE_STATUS_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

LTTNG_UST_TRACEPOINT_ENUM(Paleventing, boolean,
    LTTNG_UST_TP_ENUM_VALUES(
        lttng_ust_field_enum_value("false", 0)
        lttng_ust_field_enum_value("true", 1)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(Paleventing, ProviderStatus,
    LTTNG_UST_TP_ARGS(const char *, provider, int32_t, loaded, const char *, reason),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_string(provider, provider)
        lttng_ust_field_enum(Paleventing, boolean, int32_t, loaded, loaded)
        lttng_ust_field_string(reason, reason)
    )
)

#endif

#include <lttng/tracepoint-event.h>
