/* SPDX-License-Identifier: MIT */
/* Inline SVG charts for the HTML report: histograms, timelines, line charts, flame graphs. */
#ifndef PALEV_TRACE_SVG_H
#define PALEV_TRACE_SVG_H

#include "cpu.h"
#include "stats.h"

/* A duration histogram: one <rect class="bucket"> per non-empty bucket, log x axis. */
void pt_svg_histogram(FILE *out, const pt_hist *h);
/* Instances over the trace's time: per time bin a bar as tall as the longest instance. */
void pt_svg_timeline(FILE *out, const pt_series *s, int64_t t0, int64_t t1);
/* A value over the trace's time. per_second: counts per bin as a rate; else the bins' means. */
void pt_svg_line(FILE *out, const pt_series *s, int64_t t0, int64_t t1, int per_second, const char *unit);

/* A flame graph of a call tree (cpu.h) of a measure (PT_ON_CPU, PT_OFF_CPU): <svg class="flame">,
 * a <g class="f"> per frame with its <title> (name, weight, share), <rect> and <text> label;
 * nothing for an empty tree. */
void pt_svg_flame(FILE *out, const pt_cpu *c, const pt_profile *p, int measure);

#endif /* PALEV_TRACE_SVG_H */
