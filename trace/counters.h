/* SPDX-License-Identifier: MIT */
/* Which events are counters, and their numbers (shared by counters, export and report).
 *
 * An event is a counter sample when it is
 *   - Paleventing:EventSource with a JSON object payload: every number in it (nested objects give
 *     dotted names, "gc.count"), series named "EventSourceName/EventName/member"; or
 *   - a typed event that is not a Start or Stop and whose payload fields are all plain numbers
 *     (integers shown in decimal without an enum, or reals): series "Provider:Event/field".
 *     Integers shown in hex (pointers, ids), enums, strings and arrays make an event a plain event.
 *     NaN and infinite values are not samples. */
#ifndef PALEV_TRACE_COUNTERS_H
#define PALEV_TRACE_COUNTERS_H

#include "core.h"

typedef void (*pt_counter_fn)(const char *series, const char *event, const char *field, double value,
                              void *data);
/* Calls fn for each number of the event when it is a counter sample; returns how many. */
unsigned pt_counter_values(const pt_event *ev, pt_counter_fn fn, void *data);

#endif /* PALEV_TRACE_COUNTERS_H */
