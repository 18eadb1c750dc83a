/* SPDX-License-Identifier: MIT */
/* paleventing in LuaJIT: trace events, code registration and the Lua frame walker.
** Copied into LuaJIT's src/ by samples/luajit/build.sh; luajit.patch adds the calls and the
** object to the Makefile (docs/jit-integration.md). Names and locations are formatted exactly
** as LuaJIT's own jit.v (-jv) prints them, so a trace and -jv's output can be compared line by
** line (samples/luajit/tests). */

#define lj_palev_c
#define LUA_CORE

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
#include "lj_palev.h"

#include <paleventing.h>

/* Room for a location: LuaJIT's short chunk names, a line, and a prefix. */
#define LOC_MAX 256

/* -- Names as jit.v prints them ------------------------------------------ */

/* lj_debug_pushloc() into a buffer: "file.lua:12" (the file's base name), "builtin:name",
** "\"chunk text\":3", or "0x...:3" for a long string chunk. */
static void loc_format(char *out, size_t n, GCproto *pt, BCPos pc)
{
  GCstr *name = proto_chunkname(pt);
  const char *s = strdata(name);
  MSize i, len = name->len;
  BCLine line = lj_debug_line(pt, pc);

  if (pt->firstline == ~(BCLine)0) {
    snprintf(out, n, "builtin:%s", s);
  } else if (*s == '@') {
    s++; len--;
    for (i = len; i > 0; i--)
      if (s[i] == '/' || s[i] == '\\') {
	s += i+1;
	break;
      }
    snprintf(out, n, "%s:%d", s, (int)line);
  } else if (len > 40) {
    snprintf(out, n, "%p:%d", (void *)pt, (int)line);
  } else if (*s == '=') {
    snprintf(out, n, "%s:%d", s+1, (int)line);
  } else {
    snprintf(out, n, "\"%s\":%d", s, (int)line);
  }
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

/* "TRACE_12::bench.lua:34": the number and where the trace starts, as -jv prints them. */
void lj_palev_trace_add(jit_State *J, GCtrace *T)
{
  char name[LOC_MAX + 32], loc[LOC_MAX];
  GCproto *pt = &gcref(T->startpt)->pt;

  UNUSED(J);
  loc_format(loc, sizeof(loc), pt, proto_bcpos(pt, mref(T->startpc, const BCIns)));
  snprintf(name, sizeof(name), "TRACE_%u::%s", (unsigned)T->traceno, loc);
  /* TODO(paleventing code API, issue 19 item 2): say how to step over this code, which keeps
  ** no frame pointer. It runs in the C frame of the VM activation that entered it: its
  ** canonical frame address is rsp + T->spadjust + CFRAME_SIZE_JIT, the return address into
  ** the C function that entered the VM at CFA - 8, that function's rbp at CFA - 16 (the CFI
  ** lj_gdbjit.c writes for GDB says the same). Stacks stop at this frame until then. */
  palev_code_load(T->mcode, T->szmcode, name);
  /* TODO(paleventing code API, issue 19 item 3): a side trace (J->parent) was just linked into
  ** its parent's exit by lj_asm_patchexit() in trace_stop(): say that the parent's code at
  ** traceref(J, J->parent)->mcode was patched. */
}

void lj_palev_trace_del(jit_State *J, GCtrace *T)
{
  UNUSED(J);
  /* TODO(paleventing code API, issue 19 item 3): lj_trace_flushall() calls this for every
  ** trace just before lj_mcode_free() drops every mcode area: one call per area will do. */
  palev_code_unload(T->mcode);
}

#endif

/* "function <bench.lua:12>" (defined at line 12), "main chunk <bench.lua>": Lua's own words. */
void lj_palev_proto_add(GCproto *pt)
{
  char name[LOC_MAX + 32], loc[LOC_MAX];
  char *colon;

  loc_format(loc, sizeof(loc), pt, 0);
  colon = strrchr(loc, ':');
  if (pt->firstline == 0 && colon) {
    *colon = '\0';
    snprintf(name, sizeof(name), "main chunk <%s>", loc);
  } else {
    if (colon && pt->firstline != ~(BCLine)0)
      snprintf(colon+1, sizeof(loc) - (size_t)(colon+1-loc), "%d", (int)pt->firstline);
    snprintf(name, sizeof(name), "function <%s>", loc);
  }
  palev_code_load_interpreted(proto_bc(pt), pt->sizebc * sizeof(BCIns), name);
}

void lj_palev_proto_free(GCproto *pt)
{
  palev_code_unload(proto_bc(pt));
}

/* -- The Lua frame walker ------------------------------------------------ */

/* The state whose Lua frames stacks show, and the thread that created it. Today's walkers
** cannot be removed and take one context for the process: one state is walked, the first
** opened while none is. No lock (a fork() must never find one held): `claimed` is taken with
** a compare-and-swap, then `owner` is set and `g` published. TODO(paleventing code API, issue
** 19 item 3): one walker per state, added in lj_palev_state_open() with g as its context,
** removed in lj_palev_state_close(). */
static struct {
  int claimed;		/* A state is (being) walked. */
  int added;		/* The walker is added (once). */
  pthread_t owner;
  global_State *g;	/* Published with release; NULL while none is walked. */
} walked;

/* Lua frames of the running coroutine, innermost first: the frames err_unwind() crosses,
** without unwinding. Each is placed at the canonical frame address of the VM activation
** running it (its cframe + CFRAME_SIZE), that is after the VM's own frame (the bytecode
** handler or the trace running it) and before the C function that entered the VM. On trace,
** the trace's own frame (at g->jit_base) is the trace's machine code, named by its CodeLoad,
** and is left out. */
static size_t walk_lua(void *ctx, palev_stack_frame *out, size_t max)
{
  global_State *g = __atomic_load_n(&walked.g, __ATOMIC_ACQUIRE);
  lua_State *L;
  TValue *frame, *bot, *top;
  void *cf;
  size_t n = 0;
  int skip;

  UNUSED(ctx);
  /* Another thread's state is not ours to read. */
  if (!g || !pthread_equal(walked.owner, pthread_self()) || !gcref(g->cur_L))
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
      /* TODO(paleventing code API, issue 19 item 3): the frame's pc, for chunk:line. */
      out[n++] = (palev_stack_frame){ (uintptr_t)proto_bc(pt),
				      (uintptr_t)cframe_raw(cf) + CFRAME_SIZE };
    }
    skip = frame_isvarg(frame);  /* The vararg pseudo-frame below holds the same call. */
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

void lj_palev_state_open(global_State *g)
{
  int no = 0;

  if (__atomic_compare_exchange_n(&walked.claimed, &no, 1, 0, __ATOMIC_ACQ_REL,
				  __ATOMIC_RELAXED)) {
    walked.owner = pthread_self();
    __atomic_store_n(&walked.g, g, __ATOMIC_RELEASE);
  }
  no = 0;
  if (__atomic_compare_exchange_n(&walked.added, &no, 1, 0, __ATOMIC_ACQ_REL,
				  __ATOMIC_RELAXED))
    palev_stack_add_walker(walk_lua, NULL);
}

void lj_palev_state_close(global_State *g)
{
  global_State *mine = g;

  lj_palev_gc_end(g);  /* A cycle in progress ends with the state. */
  if (__atomic_compare_exchange_n(&walked.g, &mine, NULL, 0, __ATOMIC_ACQ_REL,
				  __ATOMIC_RELAXED))
    __atomic_store_n(&walked.claimed, 0, __ATOMIC_RELEASE);
}
