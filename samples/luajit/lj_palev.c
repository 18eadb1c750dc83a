/* SPDX-License-Identifier: MIT */
/* paleventing in LuaJIT: trace events, code registration and the Lua frame walker.
** Copied into LuaJIT's src/ by samples/luajit/build.sh; luajit.patch adds the calls and the
** object to the Makefile (docs/jit-integration.md). Names and locations are formatted exactly
** as LuaJIT's own jit.v (-jv) prints them, so a trace and -jv's output can be compared line by
** line (samples/luajit/tests). */

#define lj_palev_c
#define LUA_CORE

#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE  /* pthread_getattr_np() */
#endif

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "lj_obj.h"
#include "lj_debug.h"
#include "lj_frame.h"
#include "lj_state.h"
#include "lj_ff.h"
#include "lj_jit.h"
#include "lj_trace.h"
#include "lj_vm.h"
#include "lj_ccall.h"
#include "lj_palev.h"

#include <paleventing.h>

/* Room for a location: LuaJIT's short chunk names, a line, and a prefix. */
#define LOC_MAX 256

/* -- Names as jit.v prints them ------------------------------------------ */

/* A chunk's name as lj_debug_pushloc() prints it before ":line": "file.lua" (the file's base
** name), "builtin:name", "\"chunk text\"", "0x..." (the prototype) for a long string chunk. */
static void chunk_format(char *out, size_t n, GCproto *pt)
{
  GCstr *name = proto_chunkname(pt);
  const char *s = strdata(name);
  MSize i, len = name->len;

  if (pt->firstline == ~(BCLine)0) {
    snprintf(out, n, "builtin:%s", s);
  } else if (*s == '@') {
    s++; len--;
    for (i = len; i > 0; i--)
      if (s[i] == '/' || s[i] == '\\') {
	s += i+1;
	break;
      }
    snprintf(out, n, "%s", s);
  } else if (len > 40) {
    snprintf(out, n, "%p", (void *)pt);
  } else if (*s == '=') {
    snprintf(out, n, "%s", s+1);
  } else {
    snprintf(out, n, "\"%s\"", s);
  }
}

/* lj_debug_pushloc() into a buffer: "file.lua:12", "builtin:name", "\"chunk text\":3",
** "0x...:3". */
static void loc_format(char *out, size_t n, GCproto *pt, BCPos pc)
{
  size_t len;

  chunk_format(out, n, pt);
  len = strlen(out);
  if (pt->firstline != ~(BCLine)0 && len < n)
    snprintf(out+len, n-len, ":%d", (int)lj_debug_line(pt, pc));
}

#if LJ_HASJIT

/* vmdef.ffnames: "Lua", "C", then lj_ffdef.h's names with their module's '_' made '.'. */
static const char *const ff_def[] = {
  "Lua", "C",
#define FFDEF(name)	#name,
#include "lj_ffdef.h"
#undef FFDEF
};

/* Library modules whose functions are named module_function in lj_ffdef.h (longest first). */
static const char *const ff_modules[] = {
  "buffer_method", "ffi_callback", "jit_profile", "io_method", "ffi_clib", "ffi_meta",
  "jit_util", "jit_opt", "coroutine", "buffer", "string", "debug", "table", "math", "bit",
  "ffi", "jit", "io", "os"
};

static void ff_name(char *out, size_t n, unsigned ffid)
{
  const char *def = ffid < sizeof(ff_def)/sizeof(ff_def[0]) ? ff_def[ffid] : "?";
  size_t i, k;

  for (i = 0; i < sizeof(ff_modules)/sizeof(ff_modules[0]); i++) {
    size_t len = strlen(ff_modules[i]);
    if (strncmp(def, ff_modules[i], len) == 0 && def[len] == '_') {
      snprintf(out, n, "%s.%s", ff_modules[i], def+len+1);
      for (k = 0; k < len && k < n; k++)
	if (out[k] == '_') out[k] = '.';
      return;
    }
  }
  snprintf(out, n, "%s", def);
}

/* jit.v's fmtfunc(func, pc): a Lua function's location, a fast function's name, C:address. */
static void func_format(char *out, size_t n, GCfunc *fn, BCPos pc)
{
  if (isluafunc(fn))
    loc_format(out, n, funcproto(fn), pc);
  else if (!iscfunc(fn))
    ff_name(out, n, fn->c.ffid);
  else
    snprintf(out, n, "C:%llx", (unsigned long long)(uintptr_t)(void *)fn->c.f);
}

/* jit.v's fmterr(): the message of error e with J->errinfo in place of its %d or %s; an error
** that is not a trace error number (a Lua error raised while recording) is its own text. */
static const char *const trace_errors[] = {
#define TREDEF(name, msg)	msg,
#include "lj_traceerr.h"
};

static void error_format(char *out, size_t n, jit_State *J, int e, cTValue *err)
{
  const char *msg, *arg;
  char info[LOC_MAX];

  if (!tvisnumber(err)) {
    if (tvisstr(err))
      snprintf(out, n, "%s", strVdata(err));
    else
      snprintf(out, n, "(%s error object)", lj_typename(err));
    return;
  }
  msg = e >= 0 && e < (int)(sizeof(trace_errors)/sizeof(trace_errors[0])) ?
	trace_errors[e] : "?";
  arg = strchr(msg, '%');
  if (!arg) {
    snprintf(out, n, "%s", msg);
  } else if (arg[1] == 'd') {
    snprintf(out, n, "%.*s%d%s", (int)(arg-msg), msg,
	     tvisnumber(&J->errinfo) ? (int)numberVint(&J->errinfo) : 0, arg+2);
  } else {
    if (tvisfunc(&J->errinfo))
      func_format(info, sizeof(info), funcV(&J->errinfo), 0);
    else if (tvisstr(&J->errinfo))
      snprintf(info, sizeof(info), "%s", strVdata(&J->errinfo));
    else
      snprintf(info, sizeof(info), "?");
    snprintf(out, n, "%.*s%s%s", (int)(arg-msg), msg, info, arg+2);
  }
}

/* -- Trace events -------------------------------------------------------- */

enum { TRACE_ROOT, TRACE_SIDE, TRACE_STITCH };
enum { TRACE_COMPILED, TRACE_ABORTED };

void lj_palev_trace_start_(jit_State *J)
{
  char loc[LOC_MAX];
  uint32_t parent = 0, pexit = 0;
  uint8_t kind = TRACE_ROOT;

  if (J->parent) {
    kind = TRACE_SIDE;
    parent = J->parent;
    pexit = J->exitno;
  } else {
    BCOp op = bc_op(*J->pc);
    if (op == BC_CALLM || op == BC_CALL || op == BC_ITERC) {
      kind = TRACE_STITCH;  /* J->exitno is the trace this one continues. */
      parent = J->exitno;
    }
  }
  loc_format(loc, sizeof(loc), J->pt, proto_bcpos(J->pt, J->pc));
  FireEventTraceStart(J->cur.traceno, kind, parent, pexit, loc);
}

void lj_palev_trace_stop_(jit_State *J, GCtrace *T)
{
  char fn[LOC_MAX];

  func_format(fn, sizeof(fn), J->fn, 0);
  FireEventTraceStop(T->traceno, TRACE_COMPILED, T->linktype, T->link, fn, T->szmcode,
		     (uint32_t)(T->nins - REF_BIAS - 1), T->nsnap);
}

void lj_palev_trace_abort_(jit_State *J, int e, cTValue *err)
{
  char detail[2*LOC_MAX], loc[LOC_MAX];
  TValue *frame = J->L->base-1;
  const BCIns *pc = J->pc;
  GCfunc *fn;

  /* Where the trace stopped, in the Lua function that was running (as trace_abort() finds it
  ** for its vmevent). */
  while (!isluafunc(frame_func(frame))) {
    pc = (frame_iscont(frame) ? frame_contpc(frame) : frame_pc(frame)) - 1;
    frame = frame_prev(frame);
  }
  fn = frame_func(frame);
  loc_format(loc, sizeof(loc), funcproto(fn), proto_bcpos(funcproto(fn), pc));
  error_format(detail, sizeof(detail), J, e, err);
  FireEventTraceAbort(J->cur.traceno, (uint32_t)e, detail, loc);
  FireEventTraceStop(J->cur.traceno, TRACE_ABORTED, LJ_TRLINK_NONE, 0, "", 0, 0, 0);
}

/* -- Code ---------------------------------------------------------------- */

#if LJ_TARGET_X64 && !LJ_ABI_WIN
/* DWARF register numbers (x86-64) and call frame opcodes. */
enum { DW_RBX = 3, DW_RBP = 6, DW_R12 = 12, DW_R13, DW_R14, DW_R15 };
enum { DW_ADVANCE_LOC = 0x40, DW_OFFSET = 0x80, DW_DEF_CFA_OFFSET = 0x0e };

static uint8_t *uleb(uint8_t *p, uint32_t v)
{
  do {
    *p = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (v) *p |= 0x80;
    p++;
  } while (v);
  return p;
}

/* How to step over trace T's frame, as lj_gdbjit.c's CFI for GDB says. A trace runs inside
** the C frame of the VM activation that entered it: below that activation's CFRAME, 16 bytes
** the interpreter pushes for r12/r13 before it jumps to a trace (CFRAME_SIZE_JIT), and the
** trace's own stack adjustment. Its canonical frame address is the VM activation's, the
** return address at CFA - 8 goes back into the C function that entered the VM (lua_pcall(),
** lua_call()...), whose rbp the VM saved at CFA - 16. A side trace starts on its parent's
** stack adjustment and sets its own with its first instruction. cfi: room for 32 bytes. */
static void trace_cfi(jit_State *J, GCtrace *T, uint8_t *cfi, palev_code_unwind *u)
{
  TraceNo parent = T->ir[REF_BASE].op1;
  uint32_t spadj = CFRAME_SIZE_JIT + T->spadjust;
  uint32_t spadjp = CFRAME_SIZE_JIT + (parent ? traceref(J, parent)->spadjust : 0);
  uint8_t *p = cfi;

  /* Where the VM saved the C callee-saved registers, at CFA - 8*n: rbp, rbx, r15, r14 on entry
  ** (saveregs), r12 and r13 in the 16 bytes BC_JLOOP pushes before it jumps to the trace
  ** ([rsp+16] and [rsp+8]; lj_gdbjit.c's CFI has these two the other way round). */
  *p++ = DW_OFFSET|DW_RBP; *p++ = 2;
  *p++ = DW_OFFSET|DW_RBX; *p++ = 3;
  *p++ = DW_OFFSET|DW_R15; *p++ = 4;
  *p++ = DW_OFFSET|DW_R14; *p++ = 5;
  *p++ = DW_OFFSET|DW_R12; *p++ = CFRAME_SIZE/8;
  *p++ = DW_OFFSET|DW_R13; *p++ = CFRAME_SIZE/8 + 1;
  if (spadjp != spadj) {
    *p++ = DW_DEF_CFA_OFFSET; p = uleb(p, spadjp);
    *p++ = DW_ADVANCE_LOC|1;  /* As lj_gdbjit.c: past the first instruction. */
  }
  *p++ = DW_DEF_CFA_OFFSET; p = uleb(p, spadj);
  /* At the calls a trace makes (GC steps, helpers), the same as a fixed frame. */
  u->cfa_offset = spadj;
  u->saved_fp = 16;
  u->cfi = cfi;
  u->cfi_size = (size_t)(p - cfi);
}
#endif

/* "TRACE_12::bench.lua:34": the number and where the trace starts, as -jv prints them. */
void lj_palev_trace_add(jit_State *J, GCtrace *T)
{
  char name[LOC_MAX + 32], loc[LOC_MAX];
  GCproto *pt = &gcref(T->startpt)->pt;

  loc_format(loc, sizeof(loc), pt, proto_bcpos(pt, mref(T->startpc, const BCIns)));
  snprintf(name, sizeof(name), "TRACE_%u::%s", (unsigned)T->traceno, loc);
#if LJ_TARGET_X64 && !LJ_ABI_WIN
  {
    uint8_t cfi[32];
    palev_code_unwind u;
    trace_cfi(J, T, cfi, &u);
    palev_code_load_unwind(T->mcode, T->szmcode, name, &u);
  }
#else
  UNUSED(J);
  palev_code_load(T->mcode, T->szmcode, name);  /* Named; stacks end at its frame. */
#endif
}

void lj_palev_trace_del(jit_State *J, GCtrace *T)
{
  UNUSED(J);
  palev_code_unload(T->mcode);
}

/* The same trace, the same name: a new version of its code (the jitdump gets the new bytes). */
void lj_palev_trace_patch(jit_State *J, GCtrace *T)
{
  UNUSED(J);
  palev_code_patch(T->mcode, 0, NULL);
}

/* lj_trace_flushall() drops every trace, then every area: one call per area. */
void lj_palev_mcode_free(void *area, size_t size)
{
  palev_code_unload_area(area, size);
}

#endif

/* A Lua function's bytecode is named by its chunk ("bench.lua"): the walker gives each of its
** frames the line being run, so a frame reads "bench.lua:12" (palev-trace adds ":line"). */
void lj_palev_proto_add(GCproto *pt)
{
  char name[LOC_MAX];

  chunk_format(name, sizeof(name), pt);
  palev_code_load_interpreted(proto_bc(pt), pt->sizebc * sizeof(BCIns), name);
}

void lj_palev_proto_free(GCproto *pt)
{
  palev_code_unload(proto_bc(pt));
}

/* -- The Lua frame walker ------------------------------------------------ */

/* The end of this thread's stack: 0 until looked up, 1 when unknown. */
static __thread uintptr_t stack_hi;

/* Once per thread: glibc reads /proc/self/maps for the main thread, so the thread opening a
** state looks its stack up there (lj_palev_state_open()), not inside an event. */
static void stack_end(void)
{
  pthread_attr_t attr;
  void *addr;
  size_t size;

  stack_hi = 1;
  if (pthread_getattr_np(pthread_self(), &attr) != 0)
    return;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0)
    stack_hi = (uintptr_t)addr + size;
  pthread_attr_destroy(&attr);
}

/* p is on this thread's stack, above the walker's own frame: a C frame of a VM activation
** this thread runs (a state in use on another thread has its C frames on that thread's
** stack). */
static int on_this_stack(const void *p, const void *here)
{
  if (LJ_UNLIKELY(stack_hi == 0))
    stack_end();
  return (uintptr_t)p > (uintptr_t)here && (uintptr_t)p < stack_hi;
}

/* The line frame `frame` of Lua function pt runs, as lj_debug.c's debug_framepc() finds its
** pc: in the frame above it (`next`: the link of a Lua callee, a continuation), else in the C
** frame of the activation running it (cf: what the VM saved before calling out, for the
** innermost frame and below a C call). 0 when unknown. */
static uint32_t frame_line(GCproto *pt, cTValue *next, void *cf)
{
  const BCIns *ins;
  BCPos pos;

  if (pt->firstline == ~(BCLine)0)
    return 0;  /* A builtin: no lines. */
  if (next && frame_islua(next))
    ins = frame_pc(next);
  else if (next && frame_iscont(next))
    ins = frame_contpc(next);
  else if ((char *)cframe_pc(cf) == (char *)cframe_L(cf))
    return 0;  /* No pc saved (lj_debug.c says the same). */
  else
    ins = cframe_pc(cf);
  if (!ins)
    return 0;
  pos = proto_bcpos(pt, ins) - 1;
  /* Out of range: a pc a trace exit left in its trace (lj_debug.c undoes that; not here). */
  return pos < pt->sizebc ? (uint32_t)lj_debug_line(pt, pos) : 0;
}

/* The Lua frames of state g on the calling thread, innermost first: the frames err_unwind()
** crosses, without unwinding. None when g runs on no frame of this thread: another thread may
** be running it. Each is placed at the canonical frame address of the VM activation running
** it (its cframe + CFRAME_SIZE), that is after the VM's own frame (the bytecode handler, or
** the trace running it) and before the C function that entered the VM. On trace, the trace's
** own frame (at g->jit_base) is the trace's machine code, named by its CodeLoad, and is left
** out. */
static size_t walk_lua(void *ctx, palev_stack_frame *out, size_t max)
{
  global_State *g = ctx;
  lua_State *L = mainthread(g);
  TValue *frame, *bot, *top, *next = NULL;
  void *cf = L->cframe;
  size_t n = 0;
  int skip;

  /* The main thread is part of g, valid while the walker is added: when it runs, the running
  ** coroutine (g->cur_L) is stable once its C frame is known to be below ours. A coroutine
  ** resumed by C while the main thread idles is found through g->cur_L alone. */
  if (!cf) {
    L = gco2th(gcref(g->cur_L));
    cf = L->cframe;
  }
  if (!cf || !on_this_stack(cframe_raw(cf), &n))
    return 0;
  L = gco2th(gcref(g->cur_L));
  frame = L->base-1;
  bot = tvref(L->stack)+LJ_FR2;
  top = tvref(L->stack)+L->stacksize;
  skip = tvref(g->jit_base) == L->base;
  cf = L->cframe;  /* Tagged as LuaJIT keeps it (CFRAME_RESUME at a coroutine's bottom). */
  while (cf && frame > bot && frame < top && n < max) {
    int32_t nres = cframe_nres(cframe_raw(cf));
    if (nres < 0 && frame < restorestack(L, -nres)) {
      cf = cframe_prev(cframe_raw(cf));  /* A C frame with no Lua frame (lua_cpcall()). */
      continue;
    }
    if (!skip && frame_gc(frame) != obj2gco(L) && isluafunc(frame_func(frame))) {
      GCproto *pt = funcproto(frame_func(frame));
      out[n++] = (palev_stack_frame){ (uintptr_t)proto_bc(pt),
				      (uintptr_t)cframe_raw(cf) + CFRAME_SIZE,
				      frame_line(pt, next, cframe_raw(cf)) };
    }
    skip = frame_isvarg(frame);  /* The vararg pseudo-frame below holds the same call. */
    next = frame;
    switch (frame_typep(frame)) {
    case FRAME_LUA: case FRAME_LUAP:
      frame = frame_prevl(frame);
      break;
    case FRAME_CP:
      if (cframe_canyield(cf))
	return n;  /* The bottom of a coroutine. */
      /* fallthrough */
    case FRAME_C:
      cf = cframe_prev(cframe_raw(cf));  /* Called from C: below is the caller's activation. */
      frame = frame_prevd(frame);
      break;
    default:  /* Continuation, vararg, pcall frames: same activation. */
      frame = frame_prevd(frame);
      break;
    }
  }
  return n;
}

/* The interpreter (lj_vm, from vm_x64.dasc) keeps no frame pointer: wherever it calls out
** (a C function, a fast function's C helper, the collector, vm_resume from coroutine code) its
** frame is the C frame saveregs builds, CFRAME_SIZE (80 bytes, SAVE_RET included) with the
** caller's rbp pushed first, at CFA - 16. Two parts call with other frames and are left out:
** the trace exit handler (registers spilled below the trace's frame) and lj_vm_ffi_call
** (which keeps rbp as a frame pointer: the walk follows it as is). The ranges keep the names
** of lj_vm's symbols (lj_BC_FUNCC...): palev_code_unwind_range() records no CodeLoad. */
static void vm_unwind_ranges(void)
{
#if LJ_TARGET_X64 && !LJ_ABI_WIN && LJ_HASJIT && LJ_HASFFI
  /* CFRAME_SIZE: the CFA (where the stack arguments start) minus rsp in the interpreter. */
  static const palev_code_unwind cframe = { CFRAME_SIZE, 16, NULL, 0 };
  palev_code_unwind_range(lj_vm_asm_begin,
			  (size_t)((char *)lj_vm_exit_handler - lj_vm_asm_begin), &cframe);
  palev_code_unwind_range((void *)lj_vm_exit_interp,
			  (size_t)((char *)lj_vm_ffi_call - (char *)lj_vm_exit_interp),
			  &cframe);
#endif
}

/* One walker per state, its context the state: added when the state is ready, removed
** before it is freed (palev_stack_remove_walker() returns once no walk reads it). A process
** has at most 16 walkers: a state opened while 16 others are open is not walked. */
void lj_palev_state_open(global_State *g)
{
  static pthread_once_t vm_once = PTHREAD_ONCE_INIT;
  if (stack_hi == 0)
    stack_end();
  pthread_once(&vm_once, vm_unwind_ranges);
  palev_stack_add_walker(walk_lua, g);
}

void lj_palev_state_close(global_State *g)
{
  palev_stack_remove_walker(walk_lua, g);
  lj_palev_gc_end(g);  /* A cycle in progress ends with the state. */
}
