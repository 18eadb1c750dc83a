/* SPDX-License-Identifier: MIT */
/* Probe provider of the raw baselines: libpalev_bench_raw-lttng.so, the only one linking lttng-ust. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "raw-tp.h"
