/* SPDX-License-Identifier: MIT */
/* Reading an LTTng trace event by event, in time order, for the stacks (through core.h). */
#ifndef PS_READ_H
#define PS_READ_H

#include <stddef.h>
#include <stdint.h>

typedef struct bt_event bt_event;

/* One event, valid during the callback only. */
struct ps_event {
    const char *name;       /* "provider:event" */
    int64_t ns;             /* nanoseconds from the clock's origin */
    int64_t vpid;           /* the process: trace index << 32 | vpid (all ones without one) */
    const bt_event *ev;
};

/* Payload fields by name: 0 or -ENOENT / -EINVAL (not an integer). */
int ps_u64(const struct ps_event *e, const char *name, uint64_t *out);
/* NULL when absent or not a string. */
const char *ps_str(const struct ps_event *e, const char *name);
/* An integer array or sequence: the number of elements copied (at most max). */
size_t ps_u64_array(const struct ps_event *e, const char *name, uint64_t *out, size_t max);

/* Non-zero from the callback stops the reading and is returned by ps_read(). */
typedef int ps_event_fn(void *ctx, const struct ps_event *e);

/* Read every CTF trace under the directory `path` (LTTng's ust/uid/N/64-bit/ and the like), all
 * of them merged in time order. *discarded (may be NULL) gets the events LTTng reported lost.
 * Returns 0 (a damaged trace: what could be read, said on stderr), -ENOENT (no trace there: said
 * on stderr), -EIO (nothing could be read), or the callback's first non-zero value (the events
 * after it are not handed over). */
int ps_read(const char *path, ps_event_fn *fn, void *ctx, uint64_t *discarded);

#endif /* PS_READ_H */
