/* SPDX-License-Identifier: MIT */
/* Naming code addresses from the trace alone, a core service for every reader of addresses
 * (stacks, exports, CPU samples): code ranges the runtime described (Paleventing:CodeLoad,
 * CodeRundown, CodeUnload: by time), and native code through LTTng's statedump (bin_info,
 * build_id, lttng_ust_dl:dlopen) and the binaries' symbols and debug info (elfutils libdw). */
#ifndef PALEV_TRACE_SYMBOLS_H
#define PALEV_TRACE_SYMBOLS_H

#include "core.h"

typedef struct pt_symbols pt_symbols;

pt_symbols *pt_symbols_new(void);
void pt_symbols_free(pt_symbols *s);

/* Hand it every event, in time order: the ones describing code are kept, the others ignored. */
void pt_symbols_event(pt_symbols *s, const pt_event *ev);

/* A number that changes whenever the code of the process changes (a CodeLoad or a CodeUnload):
 * the same address in the same process at two times of the same epoch has the same name. */
uint64_t pt_symbols_epoch(const pt_symbols *s, uint64_t process);

/* The name of `addr` in `process` (pt_process_key()) at time `ns`, once every event was handed
 * over (a rundown recorded after a stack still names it): the code range live then (an
 * interpreted method's id exactly; machine code by the call before a return address), else the
 * native symbol ("f"; GCC's "f.cold" part named "f"), else "file+0xOFF" in a binary without a
 * symbol there (or whose build id differs from the traced one), else "0xADDR". return_address:
 * addr is a return address (one past its call), as in call stacks; 0 for a sampled IP.
 * The name lives as long as s. Each (process, address) is looked up in the binaries once. */
const char *pt_symbols_name(pt_symbols *s, uint64_t process, uint64_t addr, int64_t ns, int return_address);

/* Where a name came from. */
typedef enum pt_sym_kind {
    PT_SYM_UNKNOWN,             /* "0xADDR": no range, binary or symbol holds it */
    PT_SYM_NATIVE,              /* a binary's symbol, or "file+0xOFF" */
    PT_SYM_CODE,                /* a range the runtime described (JIT code, a stub) */
} pt_sym_kind;

/* pt_symbols_name(), and where the name came from. */
const char *pt_symbols_lookup(pt_symbols *s, uint64_t process, uint64_t addr, int64_t ns, int return_address,
                              pt_sym_kind *kind);

/* A frame of a Paleventing:Stack event (a return address, or a walker's frame): its name, then
 * ":line" when its `lines` entry is not 0 ("app.lua:12", docs/stacks.md). Lives as long as s. */
const char *pt_symbols_frame_name(pt_symbols *s, uint64_t process, uint64_t addr, int64_t ns, uint32_t line);

#endif /* PALEV_TRACE_SYMBOLS_H */
