/* SPDX-License-Identifier: MIT */
/* The call stacks of a trace (Paleventing:Stack events), counted per event and distinct stack,
 * every frame named by the symbols service (symbols.h). Read in the same pass as anything else:
 * stacks are kept by address and named at the end, so a rundown recorded after the first
 * stacks still names them, and each distinct stack is named once. */
#ifndef PALEV_TRACE_STACKS_H
#define PALEV_TRACE_STACKS_H

#include "core.h"
#include "symbols.h"

#define PT_STACK_MAX_FRAMES 1024

/* One distinct named stack of one event. */
typedef struct pt_stack {
    const char *event;          /* "provider:event", the event the stack belongs to */
    const char **frames;        /* innermost first */
    unsigned nframes;
    uint64_t count;
} pt_stack;

typedef struct pt_stacks pt_stacks;

/* event: "provider:event" or "event": only that event's stacks; NULL: every event's. */
pt_stacks *pt_stacks_new(const char *event);
void pt_stacks_free(pt_stacks *s);
/* Hand it every event of the trace, in time order. */
void pt_stacks_event(pt_stacks *s, const pt_event *ev);
/* The Stack events counted (of the wanted event). */
uint64_t pt_stacks_total(const pt_stacks *s);
/* After the last event: names every frame and sorts the stacks by event, then the most frequent
 * first, then by their frames' names. */
void pt_stacks_finish(pt_stacks *s);
size_t pt_stacks_count(const pt_stacks *s);
const pt_stack *pt_stacks_at(const pt_stacks *s, size_t i);
/* The stacks of one event: from index i, how many follow with the same event (i included). */
size_t pt_stacks_run(const pt_stacks *s, size_t i);

#endif /* PALEV_TRACE_STACKS_H */
