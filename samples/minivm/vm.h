/* SPDX-License-Identifier: MIT */
/* minivm: the types every part of the VM shares, and the functions one part offers the others. */
#ifndef MINIVM_VM_H
#define MINIVM_VM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <uchar.h>

#include "bytecode.h"

struct vm;
struct vm_thread;
struct insn;
struct jit_code;

/* ---- values and heap objects ------------------------------------------------------------ */

enum value_tag { V_NIL, V_INT, V_REF };

typedef struct value {
    uint32_t tag; /* enum value_tag */
    union {
        int64_t i;
        struct obj *o;
    } u;
} value;

/* The numbering is the manifest's CodeTierMap: what a MethodLoad's address and size describe. */
enum code_tier { TIER_THREADED, TIER_NATIVE };

/* The numbering is the manifest's ObjectKindMap. */
enum obj_kind { OBJ_STRING, OBJ_ARRAY, OBJ_EXCEPTION, OBJ_KIND_COUNT };

/* Every heap object starts with this header. Objects never move: the collector is a
 * non-moving generational mark-sweep ("sticky mark bits"). */
struct obj {
    struct obj *next;   /* in the list of its generation */
    size_t size;        /* bytes accounted to the heap, header included */
    uint8_t kind;       /* enum obj_kind */
    uint8_t gen;        /* 0 young, 1 old */
    uint8_t marked;
    uint8_t remembered; /* an old object in the remembered set */
};

struct vstring {
    struct obj h;
    size_t len;
    char data[]; /* UTF-8, NUL-terminated */
};

struct varray {
    struct obj h;
    size_t len;
    value items[];
};

/* The numbering is the manifest's ExceptionKindMap. */
enum exc_kind {
    EXC_USER,
    EXC_DIVIDE_BY_ZERO,
    EXC_INDEX_OUT_OF_RANGE,
    EXC_TYPE,
    EXC_OUT_OF_MEMORY,
    EXC_STACK_OVERFLOW,
    EXC_INVALID_PROGRAM,
    EXC_KIND_COUNT
};

struct vexception {
    struct obj h;
    uint32_t kind;  /* enum exc_kind */
    value type;     /* string: "DivideByZeroError", "Demo.ParseError", ... */
    value message;  /* string */
};

static inline value v_nil(void) { return (value){ .tag = V_NIL }; }
static inline value v_int(int64_t i) { return (value){ .tag = V_INT, .u.i = i }; }
static inline value v_ref(void *o) { return (value){ .tag = V_REF, .u.o = o }; }
static inline int v_is(value v, enum obj_kind k) { return v.tag == V_REF && v.u.o->kind == k; }
static inline struct vstring *v_str(value v) { return (struct vstring *)v.u.o; }
static inline struct varray *v_arr(value v) { return (struct varray *)v.u.o; }
static inline struct vexception *v_exc(value v) { return (struct vexception *)v.u.o; }

/* ---- modules and methods ---------------------------------------------------------------- */

/* A .catch clause: [from, to) in bytecode offsets, handler offset, type string or -1 for "*". */
struct catch_clause {
    uint32_t from, to, handler;
    int32_t type;
};

/* The same clause in threaded code, filled by the compiler. */
struct handler {
    const struct insn *from, *to, *target;
    struct obj *type; /* NULL catches everything */
};

struct method {
    struct module *module;
    char *ns, *name, *sig;            /* "Demo.Math", "fib", "(n)" */
    char16_t *ns16, *name16, *sig16;  /* the same in UTF-16, as the events want them */
    uint32_t nargs, nlocals;          /* nlocals counts the arguments */
    uint8_t *bytecode;
    uint32_t bytecode_size;
    struct catch_clause *catches;
    uint32_t ncatches;
    unsigned line;                    /* of ".method" in the source */

    /* Filled by compile_method() on the first call. */
    struct insn *code;                /* threaded code: ninsns entries */
    uint32_t ninsns, max_stack;
    struct handler *handlers;
    struct obj **consts;              /* string constants the code points at: GC roots */
    uint32_t nconsts;
    uint8_t *ops;                     /* the opcode of each instruction, for the JIT */
    int32_t *depths;                  /* operand stack depth before each one; -1: unreachable */
    int failed;                       /* refused: every call throws InvalidProgramError */
    char error[160];

    /* The native tier (jit.c): set once the method is hot, or on its first call with --jit=all. */
    int (*native)(struct vm_thread *t, value *locals);
    struct jit_code *jit;
    uint32_t calls;                   /* calls counted towards the JIT's threshold */
    int jit_refused;                  /* the JIT gave up on it: it stays interpreted */
};

enum module_kind { MODULE_BUILTIN, MODULE_FILE }; /* the manifest's ModuleKindMap */

struct module {
    char *path;
    char16_t *path16;
    uint32_t kind;
    uint8_t guid[16];                 /* derived from the source text: same program, same GUID */
    size_t source_size, bytecode_size;
    struct method *methods;
    uint32_t nmethods;
    char **strings;                   /* string table (UTF-8) */
    uint32_t nstrings;
    char **global_names;
    value *globals;                   /* GC roots */
    uint32_t nglobals;
    struct method *entry;             /* the method named "main" */
};

/* asm.c: assemble program text. Returns the module, or NULL after printing
 * "PATH:LINE: error: ..." for every error found. */
struct module *asm_module(const char *path, const char *text, size_t size, uint32_t kind);
void module_free(struct module *m);
const struct method *module_find_method(const struct module *mod, const char *qualified);

/* ---- the standard library (stdlib.c) ----------------------------------------------------- */

struct native {
    const char *name;   /* "std.print" */
    uint32_t nargs;
    /* args[0..nargs) are on the caller's stack; store the result in *out. Returns 0, or -1 with
     * an exception raised (vm_raise). */
    int (*fn)(struct vm_thread *t, value *args, value *out);
};
extern const struct native natives[];
extern const uint32_t native_count;
int native_find(const char *name);
void stdlib_fini(void);
int sampler_start(struct vm *vm);
void sampler_stop(struct vm *vm);

/* ---- threaded code (compile.c, interp.c) ------------------------------------------------ */

typedef const struct insn *(*insn_fn)(struct vm_thread *t, const struct insn *ip);

/* One instruction of threaded code: the handler to call and its decoded operand. */
struct insn {
    insn_fn fn;
    union {
        int64_t i;
        uint32_t slot;
        const struct insn *target;
        struct method *method;
        const struct native *native;
        struct obj *str;
    } a;
};

/* The reasons of the manifest's CompileErrorMap. */
enum compile_error {
    CE_STACK_UNDERFLOW,
    CE_STACK_MISMATCH,
    CE_BAD_LOCAL,
    CE_BAD_TARGET,
    CE_FALLS_OFF_END,
    CE_STACK_TOO_DEEP,
    CE_BAD_INSTRUCTION
};

/* Translate m's bytecode into threaded code (once; the caller holds the VM lock).
 * Returns 0, or -1 with m->failed and m->error set. */
int compile_method(struct vm_thread *t, struct method *m);
void method_free_code(struct method *m);
insn_fn interp_handler(enum opcode op);

/* Run m with its arguments on t's stack. Returns 0 with the result pushed, or -1 with the
 * unhandled exception in t->exc. */
int interp_run(struct vm_thread *t, struct method *m);

/* For native code (jit.c): call m, whose arguments are on top of t's stack, from the instruction
 * ip of the method in the top frame. Returns 0 with the result pushed, or -1 with an exception
 * in flight (already thrown: ExceptionThrown fired) and every frame above the caller's popped. */
int vm_call(struct vm_thread *t, struct method *m, const struct insn *ip);
/* Throw t->exc from ip in the top frame / go on unwinding an exception in flight from there.
 * Returns the handler to continue at (the exception pushed), or NULL when the exception left
 * the frames of this activation: the first frame entered from C (ret NULL) was popped too. */
const struct insn *vm_throw(struct vm_thread *t, const struct insn *ip);
const struct insn *vm_propagate(struct vm_thread *t, const struct insn *ip);

/* The objects the runtime itself needs (exception type names, a preallocated
 * OutOfMemoryError). Returns 0 or -1. */
int vm_init_objects(struct vm_thread *t);
/* Create an exception of a built-in kind into t->exc (message printf-style). */
void vm_raise(struct vm_thread *t, enum exc_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Text of any value, allocated on the heap (NULL: out of memory, exception raised). The value
 * must be reachable from a root (on the stack) while this allocates. */
struct vstring *vm_to_string(struct vm_thread *t, value v);

/* ---- heap and collector (heap.c) --------------------------------------------------------- */

/* The reasons of the manifest's GCReasonMap. */
enum gc_reason { GC_YOUNG_BUDGET, GC_OLD_BUDGET, GC_INDUCED, GC_HEAP_LIMIT };

struct heap {
    struct obj *young, *old;
    size_t young_bytes, old_bytes;
    size_t young_objects, old_objects;
    size_t young_budget, old_budget, limit;
    uint64_t total_allocated;
    uint64_t tick_bytes;              /* allocated since the last allocation tick */
    struct obj **remembered;          /* old objects that may point at young ones */
    size_t nremembered, remembered_cap;
    struct obj **mark_stack;
    size_t mark_top, mark_cap;
    uint32_t gc_count;
    uint32_t roots;                   /* root references seen by the last collection */
};

void heap_init(struct heap *h, size_t limit, size_t young_budget);
void heap_fini(struct heap *h);
/* Allocate a zeroed object of `size` bytes (header included); may collect first. NULL when the
 * heap limit is reached even after a full collection (an OutOfMemoryError is raised). */
struct obj *heap_alloc(struct vm_thread *t, enum obj_kind kind, size_t size);
/* A string of len bytes copied from s (s NULL: zeroed, for the caller to fill). */
struct vstring *heap_new_string(struct vm_thread *t, const char *s, size_t len);
struct varray *heap_new_array(struct vm_thread *t, size_t len);
/* type and message must be strings reachable from a root while this allocates. */
struct vexception *heap_new_exception(struct vm_thread *t, uint32_t kind, value type, value msg);
void heap_collect(struct vm_thread *t, int full, enum gc_reason reason);
/* Record a store of v into the old object parent, so minor collections see the reference. */
void heap_write_barrier(struct heap *h, struct obj *parent, value v);
static inline size_t heap_bytes(const struct heap *h) { return h->young_bytes + h->old_bytes; }

/* ---- threads, the VM lock and the thread pool (threads.c) --------------------------------- */

/* The manifest's ThreadKindMap. */
enum thread_kind { THREAD_MAIN, THREAD_POOL_WORKER, THREAD_SAMPLER };

struct frame {
    struct method *method;
    const struct insn *ret;   /* where the caller continues; NULL: entered from C or native code */
    value *locals;
    int native;               /* running the method's native code (jit.c), not its threaded code */
    uintptr_t activation;     /* the native frame of the interpreter loop running it (stacks) */
};

/* Calls and backward jumps between two looks at whether another thread waits for the lock. */
#define SAFEPOINT_INTERVAL 256

struct vm_thread {
    struct vm *vm;
    uint32_t id;              /* managed thread id: 1 is main */
    uint32_t kind;            /* enum thread_kind */
    uint64_t os_tid;
    value *stack, *sp, *stack_end;
    struct frame *frames;
    uint32_t depth, max_depth;
    value *locals;            /* locals of the top frame */
    value exc;                /* exception in flight, or unhandled after interp_run() */
    uint32_t budget;          /* calls and back jumps until the next safepoint check */
    uint32_t unwound;         /* frames popped since the exception in flight was thrown */
    int raising;              /* inside vm_raise(): an allocation failure uses vm->oom */
    uint64_t work_items, start_ns;
    struct vm_thread *next;   /* registry of threads whose stacks are roots */
    uintptr_t activation;     /* the innermost interpreter loop's native frame, 0 outside one */
    pthread_t pthread;
};

/* A ticket lock: the one lock mutators hold while they run VM code, handed over in FIFO order
 * at safepoints. The collector runs under it, so it stops the world by construction. */
struct vm_lock {
    pthread_mutex_t m;
    pthread_cond_t c;
    uint64_t next, serving;
    atomic_uint waiting;
    uint64_t handoffs;
};

struct work_item {
    struct work_item *next;
    uint64_t id, enqueued_ns;
    struct method *method;
    uint32_t argc;
    value args[];             /* GC roots until a worker takes the item */
};

struct pool {
    pthread_mutex_t m;
    pthread_cond_t work, idle;
    struct work_item *head, *tail;
    uint32_t length, running;
    int stopping;
    uint32_t nworkers;
    struct vm_thread **workers;
    uint64_t next_id;
};

void threads_init(struct vm *vm);
void threads_fini(struct vm *vm);
void vm_lock_acquire(struct vm *vm);
void vm_lock_release(struct vm *vm);
/* Let waiting threads run if there are any; called every few hundred calls or back jumps. */
void vm_safepoint(struct vm_thread *t);
struct vm_thread *thread_new(struct vm *vm, uint32_t kind);
void thread_free(struct vm_thread *t);
/* Link t into the registry (its stack becomes a root) / unlink it; the caller holds the lock. */
void thread_attach(struct vm_thread *t);
void thread_detach(struct vm_thread *t);
int pool_start(struct vm *vm, uint32_t workers);
/* Queue a call of m with its arguments, popped from t's stack. */
int pool_submit(struct vm_thread *t, struct method *m);
/* Wait until the queue is empty and no other worker runs an item (releases the lock). */
void pool_sync(struct vm_thread *t);
void pool_stop(struct vm *vm);

/* ---- the VM ----------------------------------------------------------------------------- */

struct vm_stats {
    uint32_t methods_compiled, methods_jitted;
    uint64_t exceptions_thrown, unhandled, work_items;
};

struct vm_config {
    uint32_t workers;
    size_t heap_limit, young_budget;
    uint32_t jit_threshold;   /* native code on a method's Nth call; 0: never (jit.h) */
    int verbose;
};

struct vm {
    struct vm_config config;
    struct heap heap;
    struct vm_lock lock;
    struct pool pool;
    struct module *module;
    struct vm_thread *threads;
    atomic_uint next_thread_id;
    struct vm_stats stats;
    struct obj *type_names[EXC_KIND_COUNT]; /* "DivideByZeroError", ...: roots */
    struct obj *oom;                        /* preallocated OutOfMemoryError: a root */
    uint64_t start_ns;
    struct sampler *sampler;
};

uint64_t now_ns(void);

/* The built-in workload: workload.masm, embedded at build time (workload.c.in). */
extern const char minivm_workload[];
extern const size_t minivm_workload_size;

/* The VM thread running on this OS thread (thread_attach() to thread_detach()), or NULL. */
extern __thread struct vm_thread *vm_current;
struct palev_stack_frame;
/* libpaleventing's stack walker (palev_stack_add_walker()): the interpreted frames of the calling
 * thread, innermost first, each placed inside the native frame of its interpreter loop. */
size_t vm_stack_walker(void *ctx, struct palev_stack_frame *frames, size_t max);

#endif /* MINIVM_VM_H */
