/* SPDX-License-Identifier: MIT */
/* libpaleventing internals shared between its source files (palev__*); never installed. */
#ifndef PALEV_INTERNAL_H
#define PALEV_INTERNAL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <uchar.h>

#include "paleventing-gen.h"
#include "pcm_own.h"    /* PCM_OWN_PROVIDER: the library's own provider, from its manifest */
#include "utf.h"

/* ---- split.c: lists in environment variables ------------------------------------------- */

/* Split `value` at `sep` into *entries (one allocation: free(*entries) releases everything) and
 * *count, empty entries dropped. NULL value: *entries NULL, *count 0. Returns 0 or -ENOMEM. */
int palev__split(const char *value, char sep, char ***entries, size_t *count);

/* ---- filter.c: EventSource name filters -------------------------------------------------- */

/* A parsed PALEV_EVENTSOURCE_FILTER / PALEV_EVENTNAME_FILTER: lowercase substrings. */
struct palev__filter {
    size_t count;               /* 0: no filter, everything matches */
    char **needle;              /* one allocation: the pointer array followed by the strings */
};

/* Parse a comma-separated list (NULL: unset): entries lowercased (ASCII), blanks around them
 * dropped, empty entries dropped. `f` is overwritten. Returns 0 or -ENOMEM (then f is empty). */
int palev__filter_parse(struct palev__filter *f, const char *value);
void palev__filter_free(struct palev__filter *f);
/* 1 when `s` contains any of the filter's entries ignoring ASCII case, or the filter is empty. */
int palev__filter_match(const struct palev__filter *f, const char *s);

/* ---- verdict.c: the EventSource filters' verdict, cached -------------------------------- */

/* palev__filter_match() of the configured source and name filters, both. Pairs of strings in
 * read-only memory are answered from a lock-free cache, palev_eventsource_verdicts_ (read inline
 * by paleventing.h's checks: two pointer compares); others are scanned. Thread-safe. */
int palev__filters_pass(const char *source, const char *name);

/* ---- json.c: JSON text checks for palev_eventsource_write() ----------------------------- */

/* Deeper nesting is refused (jansson's parser has the same limit). */
#define PALEV__JSON_MAX_DEPTH 2048

struct palev__json_info {
    size_t ws;              /* whitespace bytes outside strings: 0 means already compact */
    size_t error_at;        /* byte offset where the text stopped being valid JSON */
};

/* Is text[0..len) exactly one JSON value (RFC 8259), optionally surrounded by whitespace, in
 * well-formed UTF-8, with no unpaired surrogate escape and nesting <= PALEV__JSON_MAX_DEPTH?
 * Returns 0 or -EINVAL. No allocation, no recursion. */
int palev__json_check(const char *text, size_t len, struct palev__json_info *info);
/* Copy valid JSON `src` to `dst` (room for len - ws + 1 bytes) without the whitespace outside
 * strings, NUL-terminated. Returns the length written. */
size_t palev__json_compact(char *dst, const char *src, size_t len);

/* ---- env.c: configuration, read once from the environment ------------------------------- */

struct palev__config {
    int lttng;                  /* load probe providers (PALEV_LTTNG is not "0") */
    int debug;                  /* print diagnostics on stderr (PALEV_DEBUG set and not "0") */
    size_t path_count;          /* directories of PALEV_PROVIDER_PATH, empty entries dropped */
    char **path;                /* one allocation: the pointer array followed by the strings */
    struct palev__filter source_filter;     /* PALEV_EVENTSOURCE_FILTER */
    struct palev__filter name_filter;       /* PALEV_EVENTNAME_FILTER */
    int perfmap;                /* PALEV_PERFMAP: PALEV__PERFMAP_* bits, 0 when off */
    char *perfmap_dir;          /* PALEV_PERFMAP_DIR, or NULL for PALEV__JITDUMP_DIR */
    int fork_hooks;             /* call liblttng-ust's fork hooks (PALEV_FORK_HOOKS not "0") */
    int load_background;        /* PALEV_LOAD=background: probe providers loaded by a thread */
    int stack;                  /* PALEV_STACK: PALEV__STACK_FP (default) or PALEV__STACK_UNWIND */
    size_t stack_depth;         /* PALEV_STACK_DEPTH: frames per Stack event */
};

typedef const char *palev__getenv_fn(const char *name);

/* Fill `cfg` (overwritten, never freed first) from `getenv_fn`. Always leaves a usable config,
 * with defaults for what could not be parsed. Returns 0 or -ENOMEM. */
int palev__config_parse(struct palev__config *cfg, palev__getenv_fn *getenv_fn);
void palev__config_free(struct palev__config *cfg);

/* The process configuration, read from the real environment on first use. Never NULL. */
const struct palev__config *palev__config(void);
/* 0, or the error palev__config_parse() returned when the process configuration was read. */
int palev__config_status(void);

/* ---- perfmap.c, jitdump.c: JIT symbols for perf ----------------------------------------- */

struct palev__unwind_rule;

#define PALEV__PERFMAP_MAP 1            /* /tmp/perf-<pid>.map */
#define PALEV__PERFMAP_JITDUMP 2        /* <dir>/jit-<pid>.dump */
#define PALEV__JITDUMP_DIR "/tmp"       /* <dir> when PALEV_PERFMAP_DIR is unset */

/* safefile.c: open `path` with `flags` (O_WRONLY | O_APPEND, O_RDWR, ...) in a shared directory:
 * created with mode 0600 if absent, else reused only if it is a regular file of the effective
 * user with one link, never through a symlink, never truncated by open. Returns the descriptor
 * or a negative errno, with `*why` saying what was refused. */
int palev__safe_file_open(const char *path, int flags, const char **why);
/* Create <dir>/jit-<pid>.dump: header, then the executable marker mapping perf inject looks for.
 * Returns 0 or a negative errno (said under PALEV_DEBUG). */
int palev__jitdump_open(const char *dir);
/* Append one CODE_LOAD record (len <= 65535), preceded by an UNWINDING_INFO record built from
 * `rule` when not NULL. Returns 0 (also when the dump is closed), or a negative errno when
 * writing failed: the dump is then closed for good. Thread-safe. */
int palev__jitdump_write(const void *code, size_t size, const char *name, size_t len,
                         const struct palev__unwind_rule *rule);
/* Append CODE_CLOSE and close; only in the process that opened the dump. */
void palev__jitdump_close(void);

/* ---- cfi.c: call frame information of JIT code without frame pointers (x86-64) ---------- */

#define PALEV__CFI_MAX 1024             /* bytes of a runtime's instructions */
#define PALEV__EH_FRAME_MAX (128 + PALEV__CFI_MAX)
#define PALEV__EH_FRAME_HDR_SIZE 20     /* one FDE in the search table */

/* A runtime's palev_code_unwind, checked and copied. */
struct palev__unwind_rule {
    uint32_t cfa_offset;                /* 0: no fixed frame */
    uint32_t saved_fp;
    uint32_t cfi_size;                  /* 0: no instructions */
    uint8_t cfi[];
};

/* Check and copy `u` into *out (free() releases it). Returns 0, -EINVAL (palev_code_unwind's
 * rules), -ENOMEM. */
int palev__unwind_rule_new(const palev_code_unwind *u, struct palev__unwind_rule **out);
/* 0 when cfi[0..size) is a whole stream of known DW_CFA instructions (size 1 to
 * PALEV__CFI_MAX, remember_state nested at most 8 deep), else -EINVAL. */
int palev__cfi_check(const void *cfi, size_t size);

enum { PALEV__FP_SAME, PALEV__FP_SAVED, PALEV__FP_LOST };

/* A JIT frame at one address: CFA = (rbp or rsp) + cfa_offset, the return address at CFA +
 * ra_offset, the caller's rbp unchanged, at CFA + fp_offset, or lost. */
struct palev__frame {
    int cfa_from_fp;
    int64_t cfa_offset;
    int64_t ra_offset;
    int fp;                             /* PALEV__FP_* */
    int64_t fp_offset;
};

/* The frame of code described by `rule` at byte `pc` of its range (the call instruction before
 * a return address): the instructions' row when they give one the walk can follow, else the
 * fixed frame. Returns 0, or -1 when neither does. */
int palev__cfi_frame(const struct palev__unwind_rule *rule, uint64_t pc, struct palev__frame *f);
/* .eh_frame (a CIE, one FDE for [code, code + size), the terminator) into out[0..room); returns
 * its size (written only if it fits) and the FDE's offset in *fde_at. for_jitdump: pc_begin
 * relative to where perf inject --jit places the section (after the code, 8-byte aligned), else
 * absolute. */
size_t palev__eh_frame(void *out, size_t room, const struct palev__unwind_rule *rule,
                       uint64_t code, uint64_t size, int for_jitdump, size_t *fde_at);
/* The .eh_frame_hdr that follows such a jitdump .eh_frame: PALEV__EH_FRAME_HDR_SIZE bytes. */
size_t palev__eh_frame_hdr(void *out, uint64_t size, size_t eh_frame_size, size_t fde_at);

/* ---- stack.c, unwind.c: call stacks ------------------------------------------------------- */

#define PALEV__STACK_FP 0
#define PALEV__STACK_UNWIND 1
#define PALEV__STACK_DEPTH_DEFAULT 32
#define PALEV__STACK_DEPTH_MAX 128
/* Native frames walked at most: the deepest stack plus libpaleventing's own frames on top. */
#define PALEV__STACK_MAX (PALEV__STACK_DEPTH_MAX + 8)

/* A native walk: return addresses innermost first, and for each an address above the frame of
 * the function it returns into (that function's canonical frame address). */
struct palev__native {
    uintptr_t ip[PALEV__STACK_MAX];
    uintptr_t top[PALEV__STACK_MAX];
};

/* Merge nn native frames and nl logical ones (sorted by frame) into at most max addresses, with
 * each one's line (0 for native frames). Returns how many. */
size_t palev__stack_merge(uint64_t *out, uint32_t *lines, size_t max,
                          const struct palev__native *nat, size_t nn, const palev_stack_frame *lf,
                          size_t nl);
/* Record a Stack event naming provider:event for the calling thread, when a session records
 * Paleventing:Stack (one load otherwise). For events libpaleventing records itself (EventSource,
 * dynamic events): the stack starts at the first frame outside libpaleventing. */
void palev__stack_after_event(const char *provider, const char *event);
/* Walk the calling thread with libunwind (libpaleventing-unwind.so, loaded on first use); frame
 * bounds (nat->top) only when `tops` (slower). Returns the number of frames, or -ENOSYS when the
 * module or libunwind is missing. Inside an RCU read-side section. */
long palev__unwind_walk(struct palev__native *nat, size_t max, int tops);
/* Load libpaleventing-unwind.so (once; never while holding a lock of the library or inside a
 * read-side section: fork.c). */
void palev__unwind_load(void);
/* At start-up: what walks need looked up before any event (libpaleventing's own code range, the
 * unwind module under PALEV_STACK=unwind). */
void palev__stack_init(void);

/* unwind.c: the rules of live JIT ranges without frame pointers, for the walks (kept only in a
 * process that can trace). Add copies the rule and, under PALEV_STACK=unwind, registers the
 * range with libunwind; an older range overlapping it is dropped. Returns 0 or -ENOMEM. */
int palev__unwind_add(uintptr_t start, uint64_t size, const struct palev__unwind_rule *rule);
/* Drop the ranges starting at `start`, or starting in [lo, hi); returns how many. */
int palev__unwind_remove(uintptr_t start);
int palev__unwind_remove_area(uintptr_t lo, uintptr_t hi);
/* Nonzero when any range has a rule (one relaxed load: a hint for taking the read lock). */
int palev__unwind_any(void);
/* Inside an RCU read-side section: the rule of the range holding `addr` (and its start), or
 * NULL: a hash and two loads for an address on a page no such range covers. */
const struct palev__unwind_rule *palev__unwind_find(uintptr_t addr, uintptr_t *start);

/* ---- code.c: live code ranges ------------------------------------------------------------- */

/* One code range to publish: CodeLoad, the live set (which takes `rule`), the unwind table. */
struct palev__code {
    const void *start;
    uint64_t size;
    int kind;
    const char *name;                   /* len bytes, name[len] == '\0' */
    size_t len;
    struct palev__unwind_rule *rule;    /* or NULL */
};

/* Record CodeLoad and keep the range in the live set (starting the rundown watcher on first
 * use), its rule in the unwind table. The rule is the set's from now on (freed on failure too).
 * Returns 0 or -ENOMEM (then only the trace has it). */
int palev__code_publish(struct palev__code *c);
/* What the set knows of the live range starting at `start`: its size, kind, and a copy of its
 * name (malloc'd, *name) and rule (*rule, malloc'd, NULL when none). -ENOENT, -ENOMEM. */
int palev__code_lookup(uintptr_t start, uint64_t *size, int *kind, char **name,
                       struct palev__unwind_rule **rule);
/* A new version of the live range at c->start (kind and rule kept, c->rule ignored): CodeLoad
 * with the version. Returns the version (1 and up), or -ENOENT, -ENOMEM. */
long palev__code_patch(const struct palev__code *c);
/* The live set exists (a process that can trace or writes perf outputs). */
int palev__code_set_ready(void);

/* RCU for what stack walks and the rundown read without locks (walkers, unwind tables, the live
 * set's list): liburcu's bulletproof flavour, its fork hooks called by fork.c. palev__rcu_free()
 * frees a block starting with a struct palev__deferred after a grace period (the rundown thread
 * does it, batched). */
struct palev__deferred {
    struct palev__deferred *next;
};
void palev__rcu_free(struct palev__deferred *block);

/* ---- log.c: diagnostics, only when PALEV_DEBUG asks -------------------------------------- */

void palev__debug_at(const char *func, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define palev__debug(...) palev__debug_at(__func__, __FILE__, __LINE__, __VA_ARGS__)

/* ---- Unicode: common/utf.h ---------------------------------------------------------------- */

/* palev_utf16_to_utf8() without the PLT: perfmap.c's name (the others call pcm_utf16_to_utf8). */
static inline size_t palev__utf16_to_utf8(char *dst, size_t dstsize, const char16_t *src,
                                          size_t srclen)
{
    return pcm_utf16_to_utf8(dst, dstsize, src, srclen);
}

/* ---- scratch.c ---------------------------------------------------------------------------- */

/* The allocator behind every allocation of the library (malloc); tests replace it to inject
 * failures. What it returns is released with free(). */
extern void *(*palev__malloc)(size_t size);

/* The arena's blocks, shared by scratch.c and scratch_json.c. A heap block of at least `min`
 * bytes (freed by palev_scratch_fini()), or NULL with the arena marked truncated. */
char *palev__scratch_block_new(palev_scratch *sc, size_t min, size_t *size);
/* A new block whose first `used` bytes are taken becomes the current one when it has more room. */
void palev__scratch_block_adopt(palev_scratch *sc, char *data, size_t size, size_t used);

static inline size_t palev__scratch_room(const palev_scratch *sc)
{
    return sc->size - sc->used;
}

/* Text of a GUID, a SYSTEMTIME, a binary SID (snprintf's contract). */
/* Longest SID text: "S-1-0x" + 12 hex digits, then 15 times "-" and 10 digits. */
#define PALEV__SID_TEXT_MAX 192
size_t palev__format_guid(char *buf, size_t size, const palev_guid *g);
size_t palev__format_systemtime(char *buf, size_t size, const palev_systemtime *t);
size_t palev__format_sid(char *buf, size_t size, const unsigned char *sid);

/* Unaligned reads of array descriptors' members: an unsigned integer of 1, 2, 4 or 8 bytes (-1,
 * *v 0, for another size), a pointer. */
static inline int palev__read_uint(const unsigned char *p, size_t size, uint64_t *v)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;

    switch (size) {
    case 1: memcpy(&u8, p, 1); *v = u8; return 0;
    case 2: memcpy(&u16, p, 2); *v = u16; return 0;
    case 4: memcpy(&u32, p, 4); *v = u32; return 0;
    case 8: memcpy(v, p, 8); return 0;
    default: *v = 0; return -1;
    }
}

static inline const void *palev__read_ptr(const unsigned char *p)
{
    const void *v;

    memcpy(&v, p, sizeof(v));
    return v;
}


/* dyndesc.c: why no provider, dynamic or generated, may be named `name` (LTTng's own
 * namespace), or NULL. */
const char *palev__provider_reserved(const char *name);
/* provider.c: is `name` the name of a generated provider registered in this process? Has
 * palev_fini() been called? */
int palev__provider_known(const char *name);
int palev__finished(void);
/* provider.c, for palev_fini() (lifecycle.c): refuse every registration from now on. */
void palev__registry_finish(void);

/* provider_search.c, for provider.c: a probe provider found and loaded (dlopen, never closed).
 * The search order: PALEV_PROVIDER_PATH, the executable's directory, the directory of the module
 * that registered the provider (`where`), libpaleventing's directory, the default search path;
 * `path` gets what was loaded, `tried` every place tried before and why it failed. 0 or
 * -ENOENT. */
#define PALEV__PROVIDER_NAME_MAX 255
#define PALEV__TRIED_MAX 2048
struct palev__tried {
    size_t len;
    char text[PALEV__TRIED_MAX];    /* "WHERE (WHY); ...", cut with "..." */
};
struct palev__provider_want {
    const char *name;               /* the provider's name */
    const char *layout;             /* what its probe provider must hold, or NULL: no check */
    const void *where;              /* its descriptor's address (dladdr: its module) */
};
int palev__provider_search(const struct palev__config *cfg, const struct palev__provider_want *w,
                           char path[PATH_MAX], struct palev__tried *tried);
/* perfmap.c, at unload (lifecycle.c): end the jitdump with CODE_CLOSE if one is open. */
void palev__perfmap_stop(void);

/* ust.c: once liblttng-ust is loaded, reach its fork hooks (fork.c calls them) and keep the
 * tracepoints usable while the process exits. */
void palev__ust_loaded(void);
/* lttng_ust_before_fork() when liblttng-ust is loaded and its hooks are ours to call: 1 when it
 * was called (then one of the two others must follow in the same thread), else 0. */
int palev__ust_before_fork(void);
void palev__ust_after_fork_parent(void);
void palev__ust_after_fork_child(void);

/* dynamic.c: liblttng-ust has just been loaded: register the dynamic events defined before. */
void palev__dyn_ust_loaded(void);

/* ---- fork.c: every lock of the library across fork() ------------------------------------- */

/* Register the fork handler (once; every entry point that may take a lock calls it first). */
void palev__fork_init(void);
/* 1 when the library calls liblttng-ust's fork hooks itself (not PALEV_FORK_HOOKS=0, no
 * liblttng-ust-fork.so preloaded): its handler may then wait for what needs LTTng-UST's locks. */
int palev__fork_hooks_ours(void);

/* Each module's part of the handler. `ours`: palev__fork_hooks_ours(). provider.c: wait until no
 * other thread loads a probe provider (registry lock not kept); take the registry lock, or,
 * `ours`, return -EAGAIN with nothing held when a load began meanwhile. */
void palev__registry_fork_wait(void);
int palev__registry_fork_prepare(int ours);
void palev__registry_fork_parent(void);
void palev__registry_fork_child(int ours);
/* dynamic.c: the define lock (only when `ours`), then the registry lock. */
void palev__dyn_fork_prepare(int ours);
void palev__dyn_fork_parent(int ours);
void palev__dyn_fork_child(int ours);
/* verdict.c: the cache's lock. */
void palev__verdict_fork_prepare(void);
void palev__verdict_fork_parent(void);
void palev__verdict_fork_child(void);
/* stack.c: the walkers' lock. jitdump.c: its lock (perfmap.c's child handler turns the perf
 * outputs off, then releases it). code.c: the live set's lock; in the child, the rundown the
 * parent's watcher had under way ends and what waited for a grace period is freed. unwind.c: the
 * table's lock. */
void palev__stack_fork_prepare(void);
void palev__stack_fork_parent(void);
void palev__stack_fork_child(void);
void palev__jitdump_fork_prepare(void);
void palev__jitdump_fork_parent(void);
void palev__jitdump_fork_child(void);
void palev__perfmap_fork_child(void);
void palev__code_fork_prepare(void);
void palev__code_fork_parent(void);
void palev__code_fork_child(void);
void palev__unwind_fork_prepare(void);
void palev__unwind_fork_parent(void);
void palev__unwind_fork_child(void);

#endif /* PALEV_INTERNAL_H */
