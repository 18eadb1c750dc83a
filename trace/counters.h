/* SPDX-License-Identifier: MIT */
/* Which events are counters, and their numbers (shared by counters, export, report and top).
 *
 * An event is a counter sample when it is
 *   - Paleventing:EventSource with a JSON object payload: every number in it (nested objects give
 *     dotted names, "gc.count"), series named "EventSourceName/EventName/member"; or
 *   - a typed event that is not a Start or Stop and whose payload fields are all plain numbers
 *     (integers shown in decimal without an enum, or reals): series "Provider:Event/field".
 *     Integers shown in hex (pointers, ids), enums, strings and arrays make an event a plain event.
 * A NaN, an infinity, or a JSON number beyond a double's range (1e400) is handed over as a
 * sample that is not finite, so that the user is told; the payload's other numbers are kept.
 * Integers beyond 64 bits' signed range (2^64 - 1) are read as doubles. */
#ifndef PALEV_TRACE_COUNTERS_H
#define PALEV_TRACE_COUNTERS_H

#include "core.h"
#include "stats.h"

typedef struct pt_sample {
    const char *series;         /* "event/field" */
    const char *event;          /* "Provider:Event", or "EventSourceName/EventName" */
    const char *field;          /* the field, or the dotted JSON member */
    double value;               /* as read: NaN or an infinity when not finite */
    int finite;                 /* 0: NaN, infinite, or out of a double's range: not a point */
} pt_sample;

typedef void (*pt_counter_fn)(const pt_sample *s, void *data);
/* Calls fn for each number of the event when it is a counter sample; returns how many. */
unsigned pt_counter_values(const pt_event *ev, pt_counter_fn fn, void *data);

/* Counter series by name, in the order first seen (counters and report keep them so): at most
 * `max` of them; the samples of the others are counted in `dropped`, never kept. Set max and
 * width (each series' first bin, pt_series_init), the rest zero. */
typedef struct pt_named_series {
    char *name;
    pt_series s;
} pt_named_series;

typedef struct pt_series_set {
    unsigned max;
    int64_t width;
    pt_map by_name;
    pt_named_series **list;
    unsigned n;
    uint64_t dropped;
} pt_series_set;

/* Adds sample x, taken at ts, to its series: made on first sight, its bins from t0. */
void pt_series_set_add(pt_series_set *set, const pt_sample *x, int64_t t0, int64_t ts);
void pt_series_set_free(pt_series_set *set);

#endif /* PALEV_TRACE_COUNTERS_H */
