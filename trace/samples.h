/* SPDX-License-Identifier: MIT */
/* perf's samples beside the LTTng trace: the CTF trace `perf data convert --to-ctf` writes
 * (palev-collect --cpu: DIR/perf/ctf), read by a babeltrace2 graph of its own (babeltrace2 will
 * not merge perf's clock with LTTng's) and handed over decoded, in time order. */
#ifndef PALEV_TRACE_SAMPLES_H
#define PALEV_TRACE_SAMPLES_H

#include "core.h"

/* perf's callchain markers: the entries that follow are kernel, or user-space, addresses. */
#define PT_PERF_CONTEXT_KERNEL ((uint64_t)-128)
#define PT_PERF_CONTEXT_USER ((uint64_t)-512)
#define PT_PERF_CONTEXT_MAX ((uint64_t)-4095)      /* entries from here up are markers */

typedef enum pt_sample_kind {
    PT_SAMPLE_CPU,              /* cpu-clock (cpu-clock:u, cycles, ...): a thread on a CPU */
    PT_SAMPLE_SWITCH,           /* sched:sched_switch: a thread leaving its CPU */
} pt_sample_kind;

typedef struct pt_perf_sample {
    pt_sample_kind kind;
    int64_t raw;                /* perf's clock, ns: raw CLOCK_MONOTONIC when recorded with
                                   -k CLOCK_MONOTONIC (palev-collect does) */
    int64_t pid, tid;           /* as perf saw them (its PID namespace) */
    uint64_t period;            /* PT_SAMPLE_CPU: what the sample stands for */
    int period_ns;              /* the period is ns of CPU (cpu-clock, task-clock), not cycles */
    int64_t prev_state;         /* PT_SAMPLE_SWITCH: the state it left in (the kernel's TASK_REPORT
                                   bits: 0 runnable, 256 preempted, 1 sleeping, 2 uninterruptible,
                                   0x10/0x20 exiting); -1 otherwise */
    const char *prev_comm;      /* PT_SAMPLE_SWITCH: the thread's name; NULL otherwise */
    uint64_t ip;
    const uint64_t *chain;      /* perf_callchain, innermost first, markers included */
    size_t nchain;
} pt_perf_sample;

typedef struct pt_perf_sink {
    void (*sample)(const pt_perf_sample *s, void *data);
    /* perf lost samples (its buffers were full): count is at least 1. */
    void (*discarded)(uint64_t count, void *data);
    void *data;
} pt_perf_sink;

/* The perf traces the reader found beside the LTTng traces (known after pt_open). */
unsigned pt_sample_trace_count(const pt_reader *r);
const char *pt_sample_trace_path(const pt_reader *r, unsigned i);

/* Reads every sample of every perf trace in time order (other events, perf's dummy:HG, are
 * skipped; with --pid, so are other processes' samples). Returns 0, or PT_EXIT_DATA after saying why (damaged: what was read was handed over). */
int pt_run_samples(pt_reader *r, const pt_perf_sink *sink);

#endif /* PALEV_TRACE_SAMPLES_H */
