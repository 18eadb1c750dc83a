/* SPDX-License-Identifier: MIT */
/* paleventing in LuaJIT: the calls luajit.patch adds to LuaJIT's sources (docs/jit-integration.md).
** Copied into LuaJIT's src/ by samples/luajit/build.sh, beside lj_palev.c and the files palev-gen
** writes from luajit.man. GC events are inline here: while no session records them each costs
** one load and a branch inside the collector. Everything else is out of line in lj_palev.c. */
#ifndef _LJ_PALEV_H
#define _LJ_PALEV_H

#include "lj_obj.h"
#include "lj_jit.h"
#include "LuaJIT-events.h"

/* -- GC (lj_gc.c) ------------------------------------------------------- */

/* A cycle starts: the collector leaves GCSpause. */
static LJ_AINLINE void lj_palev_gc_begin(global_State *g)
{
  g->gc.palev_cycle++;
  g->gc.palev_open = 1;
  FireEventGCStart(g->gc.palev_cycle, g->gc.palev_full, (uint64_t)g->gc.total);
}

/* The cycle ends: the collector is back in GCSpause, or lj_gc_fullgc() drops it. A sweep
** lj_gc_fullgc() runs before its own cycle belongs to no cycle. */
static LJ_AINLINE void lj_palev_gc_end(global_State *g)
{
  if (g->gc.palev_open) {
    g->gc.palev_open = 0;
    FireEventGCStop(g->gc.palev_cycle, g->gc.palev_full, (uint64_t)g->gc.total);
  }
}

/* lj_gc_step() ran its steps and set the next threshold (Verbose). */
static LJ_AINLINE void lj_palev_gc_step(global_State *g)
{
  FireEventGCStep(g->gc.palev_cycle, g->gc.state, (uint64_t)g->gc.total,
		  (uint64_t)g->gc.threshold, (uint64_t)g->gc.debt);
}

/* -- Trace compiler (lj_trace.c) ----------------------------------------- */

LJ_FUNC void lj_palev_trace_start_(jit_State *J);
LJ_FUNC void lj_palev_trace_stop_(jit_State *J, GCtrace *T);
LJ_FUNC void lj_palev_trace_abort_(jit_State *J, int e, cTValue *err);

/* trace_start() set up J->cur: TraceStart. */
static LJ_AINLINE void lj_palev_trace_start(jit_State *J)
{
  if (EventEnabledTraceStart())
    lj_palev_trace_start_(J);
}

/* trace_stop() saved the trace T: TraceStop (Compiled). */
static LJ_AINLINE void lj_palev_trace_stop(jit_State *J, GCtrace *T)
{
  if (EventEnabledTraceStop())
    lj_palev_trace_stop_(J, T);
}

/* trace_abort() dropped J->cur with error e (err: the error object): TraceAbort, TraceStop. */
static LJ_AINLINE void lj_palev_trace_abort(jit_State *J, int e, cTValue *err)
{
  if (EventEnabledTraceAbort() || EventEnabledTraceStop())
    lj_palev_trace_abort_(J, e, err);
}

/* lj_trace_flushall() dropped every trace. */
static LJ_AINLINE void lj_palev_trace_flush(void)
{
  FireEventTraceFlush();
}

/* The machine code of trace T is committed (beside lj_gdbjit_addtrace()), or about to be
** dropped (beside lj_gdbjit_deltrace()): named for stacks and perf, with how to step over its
** frame, whether or not anyone listens now (a session started later gets the live traces in
** its rundown). */
LJ_FUNC void lj_palev_trace_add(jit_State *J, GCtrace *T);
LJ_FUNC void lj_palev_trace_del(jit_State *J, GCtrace *T);

/* lj_asm_patchexit() sent an exit of trace T to a new side trace: T's code changed. */
LJ_FUNC void lj_palev_trace_patch(jit_State *J, GCtrace *T);

/* lj_mcode_free() drops the machine code area [area, area + size): every trace in it goes. */
LJ_FUNC void lj_palev_mcode_free(void *area, size_t size);

/* -- Prototypes (lj_parse.c, lj_bcread.c, lj_func.c) --------------------- */

/* A Lua function's bytecode is complete, or freed: named for the walker's frames. */
LJ_FUNC void lj_palev_proto_add(GCproto *pt);
LJ_FUNC void lj_palev_proto_free(GCproto *pt);

/* -- States (lj_state.c) ------------------------------------------------- */

/* A state is ready (end of lua_newstate()): its Lua frames are walked from now on. It is about
** to be freed (close_state()): no longer walked, and a GC cycle in progress ends there. */
LJ_FUNC void lj_palev_state_open(global_State *g);
LJ_FUNC void lj_palev_state_close(global_State *g);

#endif
