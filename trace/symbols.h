/* SPDX-License-Identifier: MIT */
/* Naming the frames of Paleventing:Stack events from the trace alone: code ranges the runtime
 * described (CodeLoad, CodeRundown, CodeUnload: by time), and native code through LTTng's
 * statedump (bin_info, build_id) and the binaries' symbols and debug info (elfutils libdw). */
#ifndef PS_SYMBOLS_H
#define PS_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "stacks_read.h"

struct ps_symbols;

struct ps_symbols *ps_symbols_new(void);
void ps_symbols_free(struct ps_symbols *s);

/* Pass 1: hand every event of the trace; those describing code are kept (others ignored).
 * Returns 0 or -ENOMEM. */
int ps_symbols_feed(struct ps_symbols *s, const struct ps_event *e);

/* Pass 2: the name of frame `addr` of a stack of process `vpid` recorded at `ns`: the code range
 * live then (an interpreted method's id exactly, code by its return address), else the native
 * symbol ("f", GCC's "f.cold" part named "f"), else "file+0xOFF" in a binary without a symbol
 * there (or whose build id differs from the traced one), else "0xADDR". Written into buf;
 * returns buf. */
const char *ps_symbols_name(struct ps_symbols *s, int64_t vpid, int64_t ns, uint64_t addr,
                            char *buf, size_t size);

#endif /* PS_SYMBOLS_H */
