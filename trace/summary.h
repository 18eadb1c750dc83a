/* SPDX-License-Identifier: MIT */
/* What summary learns from the events (processes, EventSource names, providers not loaded),
 * shared with report. */
#ifndef PALEV_TRACE_SUMMARY_H
#define PALEV_TRACE_SUMMARY_H

#include "core.h"

#define PT_MAX_ROWS 10000  /* processes, EventSource names, load failures kept: memory stays bounded */

typedef struct pt_proc {
    const pt_trace *trace;
    int64_t vpid;
    char procname[32];
    uint64_t events;
    int64_t first, last;
} pt_proc;

typedef struct pt_es_name {
    char *source, *name;
    uint64_t count;
} pt_es_name;

typedef struct pt_not_loaded {
    const pt_trace *trace;
    int64_t vpid;
    char *provider, *reason;
} pt_not_loaded;

typedef struct pt_summary {
    pt_map procs, es;
    pt_proc **proc_list;
    pt_es_name **es_list;
    pt_not_loaded *nl;
    unsigned nprocs, nes, nnl;
    uint64_t dropped_rows, status_events;
} pt_summary;

void pt_summary_event(pt_summary *s, const pt_event *ev);
void pt_summary_free(pt_summary *s);
/* Events per second between two times (0 when they are equal). */
double pt_rate(uint64_t n, int64_t first, int64_t last);

#endif /* PALEV_TRACE_SUMMARY_H */
