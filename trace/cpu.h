/* SPDX-License-Identifier: MIT */
/* Where the time went: perf's samples beside the LTTng trace (samples.h) joined to it, a core
 * service for cpu, report and export. Every frame is named as `palev-trace stacks` names frames
 * (symbols.h: JIT code by the ranges live at the sample's time, native code by the statedump's
 * binaries), kernel frames are one "[kernel]" frame; samples are cut by the activities open in
 * their process and aggregated into call trees of named frames (memory grows with the distinct
 * call paths, not with the samples).
 *
 * Two passes: hand pt_cpu_event() every event of the LTTng trace (pt_run), then pt_cpu_read()
 * reads perf's samples. The join is by process (perf's pid is LTTng's vpid: one PID namespace)
 * and by raw CLOCK_MONOTONIC time (LTTng's ns minus its clock's offset to the epoch).
 *
 * Two measures: on-CPU time (CPU samples, each standing for its period: ns of CPU with
 * cpu-clock) and blocked time (sched:sched_switch: from a thread leaving its CPU asleep, its
 * stack then being where it blocks, to the next thing perf saw of that thread: its next sample or
 * switch, an upper bound of when it ran again). */
#ifndef PALEV_TRACE_CPU_H
#define PALEV_TRACE_CPU_H

#include "samples.h"
#include "stats.h"

enum { PT_ON_CPU = 0, PT_OFF_CPU = 1 };

/* What a frame is (the flame graph colours by it). */
typedef enum pt_frame_kind {
    PT_FRAME_NATIVE,            /* a binary's symbol (or file+0xOFF) */
    PT_FRAME_JIT,               /* a code range the runtime described */
    PT_FRAME_KERNEL,            /* "[kernel]": the thread was in the kernel */
    PT_FRAME_UNKNOWN,           /* "[unknown]": an address nothing names */
    PT_FRAME_ROOT,              /* the root of a tree, a process, a thread */
} pt_frame_kind;

/* A node of a call tree: node 0 is the root; a node stands for the samples through that call
 * path. Weights: ns of CPU (samples x period) or ns blocked; counts: samples, or blocks. */
typedef struct pt_cnode {
    uint32_t parent, name;      /* name: pt_cpu_name() */
    uint32_t child, sibling;    /* the first child, the next sibling (0: none) */
    uint32_t nchild;
    uint64_t self, total;
    uint64_t self_n, total_n;
} pt_cnode;

typedef struct pt_profile {
    pt_cnode *nodes;
    size_t n, cap;
    pt_map index;               /* parent << 32 | name -> node + 1, for parents of many children */
} pt_profile;

/* A function's share of a tree, or of a subtree: self in the leaf frame, total anywhere in the
 * stack (counted once per sample however often it recurses). */
typedef struct pt_func {
    uint32_t name;
    uint64_t self, total, self_n, total_n;
} pt_func;

typedef struct pt_cpu_opts {
    const char *task;           /* keep only the samples taken while an activity of this task
                                   ("Provider:Task") was open in the sample's process, or NULL */
    int outside;                /* ... or only those taken while none was */
    const char *const *where;   /* "FIELD=VALUE": only the activities whose Start (else Stop)
                                   has these field values count as open */
    unsigned nwhere;
    int by_thread;              /* a frame per thread under its process */
    int per_task;               /* weights during and outside every task's activities */
} pt_cpu_opts;

/* Every task's share (per_task): the samples taken while one of its activities was open in
 * their process (a tree per measure, shaped as pt_cpu_profile()'s), and the weight outside. */
typedef struct pt_cpu_task {
    pt_profile during[2];
    uint64_t outside[2], outside_n[2];
} pt_cpu_task;

/* What was read. */
typedef struct pt_cpu_stats {
    uint64_t samples[2];        /* read: CPU samples, switches */
    uint64_t kept[2];           /* in the trees: CPU samples, blocks (cut applied) */
    uint64_t weight[2];         /* the trees' roots */
    uint64_t runnable;          /* ns threads waited runnable (preempted, yielded), cut applied */
    uint64_t unresumed;         /* blocks no later sample of the thread ended */
    uint64_t lost;              /* samples perf lost */
    uint64_t foreign;           /* samples of processes the LTTng trace does not hold */
    uint64_t period;            /* the CPU samples' period (the first one's) */
    int period_ns;              /* the period is ns of CPU */
    int overlap;                /* some sample lies within the LTTng trace's span */
    unsigned processes, threads;
    uint64_t unmatched;         /* activities of the cut's task left out: no Stop in the trace */
} pt_cpu_stats;

typedef struct pt_cpu pt_cpu;

pt_cpu *pt_cpu_new(const pt_cpu_opts *o);
void pt_cpu_free(pt_cpu *c);
/* Pass 1: every event of the LTTng trace, in time order. */
void pt_cpu_event(pt_cpu *c, const pt_event *ev);
/* Pass 2: reads the perf traces beside the LTTng trace r read. Returns 0 or PT_EXIT_DATA (said). */
int pt_cpu_read(pt_cpu *c, pt_reader *r);

const pt_cpu_stats *pt_cpu_stats_of(const pt_cpu *c);
/* The name of a frame, and its kind. */
const char *pt_cpu_name(const pt_cpu *c, uint32_t name);
pt_frame_kind pt_cpu_kind(const pt_cpu *c, uint32_t name);
/* The tree of a measure (PT_ON_CPU, PT_OFF_CPU): root (node 0), processes, threads (by_thread),
 * then the frames, outermost first. */
const pt_profile *pt_cpu_profile(const pt_cpu *c, int measure);
/* The children of a node, sorted by name (flamegraph.pl's order); *n of them. Free the array. */
uint32_t *pt_cpu_children(const pt_cpu *c, const pt_profile *p, uint32_t node, size_t *n);
/* The functions of the subtree at node (root, process, thread frames left out), the most self
 * weight first; *n of them. Free the array. */
pt_func *pt_cpu_functions(const pt_cpu *c, const pt_profile *p, uint32_t node, size_t *n);
/* Before pt_cpu_read(): the CPU of process vpid between start and end (LTTng's ns: an activity
 * instance) is to be counted, cut or not; returns its number for pt_cpu_watched(). */
unsigned pt_cpu_watch(pt_cpu *c, int64_t vpid, int64_t start, int64_t end);
/* After: the CPU weight in it (ns of CPU with cpu-clock), and its samples in *samples. */
uint64_t pt_cpu_watched(const pt_cpu *c, unsigned watch, uint64_t *samples);
/* Per task (pt_task_name()'s index), with per_task: NULL for a task without samples. */
const pt_cpu_task *pt_cpu_task_at(const pt_cpu *c, unsigned task);

#endif /* PALEV_TRACE_CPU_H */
