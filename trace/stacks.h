/* SPDX-License-Identifier: MIT */
/* `palev-trace stacks` and `palev-trace export --format speedscope`: the call stacks of a trace's
 * events, every frame named (symbols.h), counted per distinct stack. */
#ifndef PS_STACKS_H
#define PS_STACKS_H

#include <stdio.h>

struct ps_stacks_opts {
    const char *trace;          /* the trace directory */
    const char *event;          /* "provider:event" or "event": only its stacks; NULL: all */
    int folded;                 /* folded lines instead of the text report */
    long top;                   /* text: the N most frequent stacks per event (0: counts only) */
};

/* `palev-trace stacks`: per event, its most frequent stacks, every frame named, innermost first;
 * or, folded, one "event;outermost;...;innermost COUNT" line per distinct stack (flamegraph.pl,
 * speedscope). Returns the exit status: 0, or 1 (said on err: no trace, no Stack event). */
int ps_stacks_print(const struct ps_stacks_opts *o, FILE *out, FILE *err);

/* `palev-trace export --format speedscope -o FILE`: one sampled profile per event, weighted by
 * how often each stack was seen, in speedscope's file format. Same exit statuses. */
int ps_stacks_speedscope(const struct ps_stacks_opts *o, const char *path, FILE *err);

/* palev-trace report's "Where they come from": per event recorded with stacks, its `top` most
 * frequent call paths as an HTML section (h2, h3 and tables of the report's classes). Writes
 * nothing when the trace holds no Stack event. */
void ps_stacks_html(FILE *out, const char *trace, unsigned top);

#endif /* PS_STACKS_H */
