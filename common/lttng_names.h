/* SPDX-License-Identifier: MIT */
/* The names LTTng keeps for itself: what libpaleventing refuses to register and palev-gen to
 * generate, the one rule for both. */
#ifndef PCM_LTTNG_NAMES_H
#define PCM_LTTNG_NAMES_H

#include <string.h>

/* LTTng-UST's own providers (lttng_ust_statedump, lttng_ust_lib, lttng_ust_dl, lttng_ust_tracef,
 * lttng_ust_tracelog, lttng_ust_libc, lttng_ust_pthread, lttng_ust_cyg_profile...) and its
 * agents' (lttng_jul, lttng_log4j, lttng_log4j2, lttng_python) all begin with "lttng_": a
 * provider of ours named so would forge the tracer's events, which tools trust (the statedump
 * names every loaded module). The prefix exactly, case-sensitive. */
#define PCM_LTTNG_RESERVED_PREFIX "lttng_"

/* 1 when an LTTng provider name is in LTTng's own namespace. */
static inline int pcm_lttng_reserved(const char *provider)
{
    return strncmp(provider, PCM_LTTNG_RESERVED_PREFIX, sizeof(PCM_LTTNG_RESERVED_PREFIX) - 1) == 0;
}

#endif /* PCM_LTTNG_NAMES_H */
