/* SPDX-License-Identifier: MIT */
/* What a trace says about itself, gathered as it is read: its processes (named by their main
 * thread), EventSource names, the providers a process did not load. summary prints it, report
 * draws it, export names its tracks with it. */
#ifndef PALEV_TRACE_SUMMARY_H
#define PALEV_TRACE_SUMMARY_H

#include "core.h"

#define PT_MAX_ROWS 10000  /* processes, EventSource names, load failures kept: memory stays bounded */
#define PT_PROC_NAMES 8    /* thread names counted per process */

/* One process of one trace. Its name is its main thread's (the thread whose vtid is the vpid:
 * the listener threads LTTng-UST starts, "prog-ust", are not the program), else the name most
 * of its events carry. */
typedef struct pt_proc {
    const pt_trace *trace;
    int64_t vpid;
    uint64_t events;
    int64_t first, last;
    char main_name[32];         /* the main thread's procname, "" until one of its events */
    struct { char name[32]; uint64_t events; } names[PT_PROC_NAMES];
    unsigned nnames;
} pt_proc;

/* The processes of a trace. */
typedef struct pt_procs {
    pt_map by_key;              /* pt_process_key() -> pt_proc */
    pt_proc **list;
    unsigned n;
    uint64_t dropped;           /* events of processes beyond PT_MAX_ROWS */
} pt_procs;

/* Counts the event for its process; returns the process (NULL beyond PT_MAX_ROWS). */
pt_proc *pt_procs_event(pt_procs *ps, const pt_event *ev);
/* The process's name ("-" when no event carried a procname). */
const char *pt_proc_name(const pt_proc *p);
void pt_procs_free(pt_procs *ps);

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
    pt_procs procs;
    pt_map es;                  /* "source\x1fname" -> pt_es_name */
    pt_es_name **es_list;
    pt_not_loaded *nl;
    unsigned nes, nnl;
    uint64_t dropped_rows, status_events;
} pt_summary;

void pt_summary_event(pt_summary *s, const pt_event *ev);
/* The EventSource names sorted by source, then name. */
void pt_summary_sort(pt_summary *s);
void pt_summary_free(pt_summary *s);
/* Events per second between two times (0 when they are equal). */
double pt_rate(uint64_t n, int64_t first, int64_t last);

#endif /* PALEV_TRACE_SUMMARY_H */
