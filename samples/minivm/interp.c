/* SPDX-License-Identifier: MIT */
/* minivm: the interpreter: one handler per instruction of threaded code, calls, exceptions. */
#include "events.h"
#include "jit.h"
#include "vm.h"

#include <paleventing.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Stack slots kept free above every frame for the values vm_raise() pushes while allocating. */
#define STACK_SLACK 8

static const char *const exc_type_names[EXC_KIND_COUNT] = {
    [EXC_USER] = "Error",
    [EXC_DIVIDE_BY_ZERO] = "DivideByZeroError",
    [EXC_INDEX_OUT_OF_RANGE] = "IndexOutOfRangeError",
    [EXC_TYPE] = "TypeError",
    [EXC_OUT_OF_MEMORY] = "OutOfMemoryError",
    [EXC_STACK_OVERFLOW] = "StackOverflowError",
    [EXC_INVALID_PROGRAM] = "InvalidProgramError",
};

static const char *type_name(value v)
{
    static const char *const objs[OBJ_KIND_COUNT] = { "string", "array", "exception" };

    return v.tag == V_NIL ? "nil" : v.tag == V_INT ? "int" : objs[v.u.o->kind];
}

static int truthy(value v)
{
    return !(v.tag == V_NIL || (v.tag == V_INT && v.u.i == 0));
}

static void poll(struct vm_thread *t)
{
    if (--t->budget == 0) {
        t->budget = SAFEPOINT_INTERVAL;
        vm_safepoint(t);
    }
}

/* ---- exceptions -------------------------------------------------------------------------- */

void vm_raise(struct vm_thread *t, enum exc_kind kind, const char *fmt, ...)
{
    char msg[256];
    struct vstring *s;
    struct vexception *e = NULL;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (t->raising) { /* out of memory while building an exception */
        t->exc = v_ref(t->vm->oom);
        return;
    }
    t->raising = 1;
    s = heap_new_string(t, msg, strlen(msg));
    if (s) {
        *t->sp++ = v_ref(s); /* a root while the exception object is allocated */
        e = heap_new_exception(t, kind, v_ref(t->vm->type_names[kind]), v_ref(s));
        t->sp--;
    }
    t->exc = e ? v_ref(e) : v_ref(t->vm->oom);
    t->raising = 0;
}

static int string_equal(const struct obj *a, const struct obj *b)
{
    const struct vstring *x = (const struct vstring *)a, *y = (const struct vstring *)b;

    return x->len == y->len && memcmp(x->data, y->data, x->len) == 0;
}

static const struct handler *find_handler(const struct method *m, const struct insn *ip, value exc)
{
    for (uint32_t k = 0; k < m->ncatches; k++) {
        const struct handler *h = &m->handlers[k];

        if (ip >= h->from && ip < h->to &&
            (!h->type || string_equal(h->type, v_exc(exc)->type.u.o)))
            return h;
    }
    return NULL;
}

/* Where ip runs in f: the instruction itself, or its native code when f runs native code (the
 * addresses the events give, inside the code their MethodLoad announced). */
static const void *code_address(const struct frame *f, const struct insn *ip)
{
    return f->native ? jit_address(f->method, ip) : (const void *)ip;
}

static void throw_begin(struct vm_thread *t, const struct insn *ip)
{
    const struct frame *f = &t->frames[t->depth - 1];

    t->vm->stats.exceptions_thrown++;
    t->unwound = 0;
    ev_exception_thrown(t, f->method, code_address(f, ip));
}

/* Frames entered from C or native code (ret NULL) end the walk: their caller goes on with it,
 * so an exception crosses interpreted and native frames alike, counting every frame popped. */
const struct insn *vm_propagate(struct vm_thread *t, const struct insn *ip)
{
    for (;;) {
        const struct frame *f = &t->frames[t->depth - 1];
        const struct handler *h = find_handler(f->method, ip, t->exc);

        if (h) {
            t->locals = f->locals;
            t->sp = f->locals + f->method->nlocals;
            *t->sp++ = t->exc;
            ev_exception_catch(t, f->method, code_address(f, h->target), t->unwound);
            t->exc = v_nil();
            return h->target;
        }
        t->sp = f->locals;
        t->depth--;
        t->unwound++;
        if (!f->ret)
            break;
        ip = f->ret - 1; /* the call instruction in the caller */
    }
    t->locals = t->depth ? t->frames[t->depth - 1].locals : NULL;
    return NULL;
}

const struct insn *vm_throw(struct vm_thread *t, const struct insn *ip)
{
    throw_begin(t, ip);
    return vm_propagate(t, ip);
}

/* ---- calls ------------------------------------------------------------------------------- */

static int push_frame(struct vm_thread *t, struct method *m, const struct insn *ret)
{
    value *locals = t->sp - m->nargs;

    if (t->depth == t->max_depth || m->nlocals + m->max_stack + STACK_SLACK >
                                        (size_t)(t->stack_end - locals)) {
        vm_raise(t, EXC_STACK_OVERFLOW, "%" PRIu32 " frames deep, calling %s.%s", t->depth,
                 m->ns, m->name);
        return -1;
    }
    for (value *v = t->sp; v < locals + m->nlocals; v++)
        *v = v_nil();
    t->frames[t->depth++] = (struct frame){ .method = m, .ret = ret, .locals = locals,
                                            .activation = t->activation };
    t->locals = locals;
    t->sp = locals + m->nlocals;
    return 0;
}

static int ensure_compiled(struct vm_thread *t, struct method *m)
{
    if (m->code)
        return 0;
    if (compile_method(t, m) == 0)
        return 0;
    if (t->exc.tag == V_NIL)
        vm_raise(t, EXC_INVALID_PROGRAM, "%s", m->error);
    return -1;
}

/* Threaded code on the first call; native code too once the JIT's threshold is reached. */
static int prepare_call(struct vm_thread *t, struct method *m)
{
    if (ensure_compiled(t, m) < 0)
        return -1;
    jit_count_call(t, m);
    return 0;
}

/* Run m, whose frame (ret NULL) was just pushed, until it returns (0) or an exception leaves
 * it (-1, its frames popped). Interpreted callees run in this loop; native ones in their own. */
static int activate(struct vm_thread *t, struct method *m)
{
    uintptr_t outer = t->activation;
    int rc;

    if (m->native)
        return jit_run(t, m);
    /* Stack events place this loop's interpreted frames inside its native frame. */
    t->activation = (uintptr_t)__builtin_frame_address(0);
    t->frames[t->depth - 1].activation = t->activation;
    for (const struct insn *ip = m->code; ip;)
        ip = ip->fn(t, ip);
    rc = t->exc.tag == V_NIL ? 0 : -1;
    t->activation = outer;
    return rc;
}

__thread struct vm_thread *vm_current;

/* Frames running native code are on the native stack already, named by their CodeLoad. */
size_t vm_stack_walker(void *ctx, struct palev_stack_frame *frames, size_t max)
{
    const struct vm_thread *t = vm_current;
    size_t n = 0;

    (void)ctx;
    for (uint32_t i = t ? t->depth : 0; i > 0 && n < max; i--) {
        const struct frame *f = &t->frames[i - 1];

        if (!f->native && f->activation && f->method->code)
            frames[n++] = (palev_stack_frame){ .code = (uintptr_t)f->method->code,
                                                .frame = f->activation };
    }
    return n;
}

int interp_run(struct vm_thread *t, struct method *m)
{
    t->budget = SAFEPOINT_INTERVAL;
    if (prepare_call(t, m) < 0 || push_frame(t, m, NULL) < 0) {
        /* Nothing ran: the exception is thrown by the runtime, from no instruction. */
        t->vm->stats.exceptions_thrown++;
        ev_exception_thrown(t, m, NULL);
        t->sp -= m->nargs;
        ev_exception_unhandled(t, 0);
        return -1;
    }
    if (activate(t, m) == 0)
        return 0;
    ev_exception_unhandled(t, t->unwound);
    return -1;
}

int vm_call(struct vm_thread *t, struct method *m, const struct insn *ip)
{
    if (prepare_call(t, m) < 0 || push_frame(t, m, NULL) < 0) {
        throw_begin(t, ip);
        return -1;
    }
    poll(t);
    return activate(t, m);
}

/* ---- text of values ---------------------------------------------------------------------- */

/* The text of v: a pointer into a heap string, or into buf. */
static const char *text_of(value v, char *buf, size_t size, size_t *len)
{
    int n;

    if (v_is(v, OBJ_STRING)) {
        *len = v_str(v)->len;
        return v_str(v)->data;
    }
    if (v.tag == V_INT)
        n = snprintf(buf, size, "%" PRId64, v.u.i);
    else if (v_is(v, OBJ_ARRAY))
        n = snprintf(buf, size, "[array of %zu]", v_arr(v)->len);
    else if (v_is(v, OBJ_EXCEPTION))
        n = snprintf(buf, size, "%s: %s", v_str(v_exc(v)->type)->data,
                     v_str(v_exc(v)->message)->data);
    else
        n = snprintf(buf, size, "nil");
    *len = (size_t)n < size ? (size_t)n : size - 1;
    return buf;
}

struct vstring *vm_to_string(struct vm_thread *t, value v)
{
    char buf[256];
    size_t len;
    const char *s;

    if (v_is(v, OBJ_STRING))
        return v_str(v);
    s = text_of(v, buf, sizeof buf, &len);
    return heap_new_string(t, s, len);
}

/* ---- instruction handlers: stack and locals ---------------------------------------------- */

#define HANDLER(name) \
    static const struct insn *op_##name(struct vm_thread *t, const struct insn *ip)
#define THROW(kind, ...) return (vm_raise(t, kind, __VA_ARGS__), vm_throw(t, ip))

HANDLER(NOP) { (void)t; return ip + 1; }
HANDLER(PUSH) { *t->sp++ = v_int(ip->a.i); return ip + 1; }
HANDLER(PUSHS) { *t->sp++ = v_ref(ip->a.str); return ip + 1; }
HANDLER(NIL) { *t->sp++ = v_nil(); return ip + 1; }
HANDLER(POP) { t->sp--; return ip + 1; }
HANDLER(DUP) { t->sp[0] = t->sp[-1]; t->sp++; return ip + 1; }
HANDLER(LOAD) { *t->sp++ = t->locals[ip->a.slot]; return ip + 1; }
HANDLER(STORE) { t->locals[ip->a.slot] = *--t->sp; return ip + 1; }
HANDLER(GLOAD) { *t->sp++ = t->vm->module->globals[ip->a.slot]; return ip + 1; }
HANDLER(GSTORE) { t->vm->module->globals[ip->a.slot] = *--t->sp; return ip + 1; }

HANDLER(SWAP)
{
    value v = t->sp[-1];

    t->sp[-1] = t->sp[-2];
    t->sp[-2] = v;
    return ip + 1;
}

/* ---- arithmetic and comparisons ---------------------------------------------------------- */

/* Wrapping arithmetic (no undefined behaviour on overflow); 0 when the operation is undefined. */
static int int_op(enum opcode op, int64_t x, int64_t y, int64_t *r)
{
    switch (op) {
    case OP_ADD: *r = (int64_t)((uint64_t)x + (uint64_t)y); return 1;
    case OP_SUB: *r = (int64_t)((uint64_t)x - (uint64_t)y); return 1;
    case OP_MUL: *r = (int64_t)((uint64_t)x * (uint64_t)y); return 1;
    case OP_DIV: *r = y == -1 ? (int64_t)(0 - (uint64_t)x) : y ? x / y : 0; return y != 0;
    case OP_MOD: *r = y == -1 ? 0 : y ? x % y : 0; return y != 0;
    case OP_LT: *r = x < y; return 1;
    case OP_LE: *r = x <= y; return 1;
    case OP_GT: *r = x > y; return 1;
    case OP_GE: *r = x >= y; return 1;
    default: return 0;
    }
}

static const struct insn *arith(struct vm_thread *t, const struct insn *ip, enum opcode op)
{
    value *a = t->sp - 2, *b = t->sp - 1;
    int64_t r;

    if (a->tag != V_INT || b->tag != V_INT)
        THROW(EXC_TYPE, "%s expects two integers, got %s and %s", opcode_table[op].mnemonic,
              type_name(*a), type_name(*b));
    if (!int_op(op, a->u.i, b->u.i, &r))
        THROW(EXC_DIVIDE_BY_ZERO, "%" PRId64 " %s 0", a->u.i, op == OP_DIV ? "/" : "%");
    *a = v_int(r);
    t->sp--;
    return ip + 1;
}

HANDLER(ADD) { return arith(t, ip, OP_ADD); }
HANDLER(SUB) { return arith(t, ip, OP_SUB); }
HANDLER(MUL) { return arith(t, ip, OP_MUL); }
HANDLER(DIV) { return arith(t, ip, OP_DIV); }
HANDLER(MOD) { return arith(t, ip, OP_MOD); }
HANDLER(LT) { return arith(t, ip, OP_LT); }
HANDLER(LE) { return arith(t, ip, OP_LE); }
HANDLER(GT) { return arith(t, ip, OP_GT); }
HANDLER(GE) { return arith(t, ip, OP_GE); }

/* Integers by value, strings by content, anything else by identity. */
static int values_equal(value a, value b)
{
    if (a.tag != b.tag)
        return 0;
    if (a.tag == V_INT)
        return a.u.i == b.u.i;
    if (v_is(a, OBJ_STRING) && v_is(b, OBJ_STRING))
        return string_equal(a.u.o, b.u.o);
    return a.tag == V_NIL || a.u.o == b.u.o;
}

HANDLER(EQ) { t->sp[-2] = v_int(values_equal(t->sp[-2], t->sp[-1])); t->sp--; return ip + 1; }
HANDLER(NE) { t->sp[-2] = v_int(!values_equal(t->sp[-2], t->sp[-1])); t->sp--; return ip + 1; }
HANDLER(NOT) { t->sp[-1] = v_int(!truthy(t->sp[-1])); return ip + 1; }

HANDLER(NEG)
{
    if (t->sp[-1].tag != V_INT)
        THROW(EXC_TYPE, "neg expects an integer, got %s", type_name(t->sp[-1]));
    t->sp[-1] = v_int((int64_t)(0 - (uint64_t)t->sp[-1].u.i));
    return ip + 1;
}

/* ---- control flow ------------------------------------------------------------------------ */

HANDLER(JMP)
{
    if (ip->a.target <= ip)
        poll(t);
    return ip->a.target;
}

HANDLER(JZ)
{
    if (ip->a.target <= ip)
        poll(t);
    return truthy(*--t->sp) ? ip + 1 : ip->a.target;
}

HANDLER(JNZ)
{
    if (ip->a.target <= ip)
        poll(t);
    return truthy(*--t->sp) ? ip->a.target : ip + 1;
}

/* An interpreted callee goes on in this loop; a native one runs to its end first. */
HANDLER(CALL)
{
    struct method *m = ip->a.method;

    if (prepare_call(t, m) < 0 || push_frame(t, m, m->native ? NULL : ip + 1) < 0)
        return vm_throw(t, ip);
    poll(t);
    if (!m->native)
        return m->code;
    return jit_run(t, m) == 0 ? ip + 1 : vm_propagate(t, ip);
}

HANDLER(CALLN)
{
    const struct native *n = ip->a.native;
    value *args = t->sp - n->nargs, out = v_nil();

    if (n->fn(t, args, &out) < 0)
        return vm_throw(t, ip);
    t->sp = args;
    *t->sp++ = out;
    return ip + 1;
}

HANDLER(RET)
{
    value result = t->sp[-1];
    const struct frame *f = &t->frames[--t->depth];

    (void)ip;
    t->sp = f->locals;
    *t->sp++ = result;
    t->locals = t->depth ? t->frames[t->depth - 1].locals : NULL;
    return f->ret; /* NULL after the entry frame: interp_run() returns */
}

/* The target is compiled here, so an invalid method throws in the thread that spawns it. */
HANDLER(SPAWN)
{
    if (ensure_compiled(t, ip->a.method) < 0 || pool_submit(t, ip->a.method) < 0)
        return vm_throw(t, ip);
    return ip + 1;
}

HANDLER(SYNC)
{
    pool_sync(t);
    return ip + 1;
}

HANDLER(THROW)
{
    struct vstring *msg = vm_to_string(t, t->sp[-1]);
    struct vexception *e;

    if (!msg)
        return vm_throw(t, ip);
    t->sp[-1] = v_ref(msg);
    e = heap_new_exception(t, EXC_USER, v_ref(ip->a.str), t->sp[-1]);
    if (!e)
        return vm_throw(t, ip);
    t->sp--;
    t->exc = v_ref(e);
    return vm_throw(t, ip);
}

HANDLER(EXCTYPE)
{
    if (!v_is(t->sp[-1], OBJ_EXCEPTION))
        THROW(EXC_TYPE, "exctype expects an exception, got %s", type_name(t->sp[-1]));
    t->sp[-1] = v_exc(t->sp[-1])->type;
    return ip + 1;
}

HANDLER(EXCMSG)
{
    if (!v_is(t->sp[-1], OBJ_EXCEPTION))
        THROW(EXC_TYPE, "excmsg expects an exception, got %s", type_name(t->sp[-1]));
    t->sp[-1] = v_exc(t->sp[-1])->message;
    return ip + 1;
}

/* ---- arrays and strings ------------------------------------------------------------------ */

HANDLER(NEWARR)
{
    value n = t->sp[-1];
    struct varray *a;

    if (n.tag != V_INT)
        THROW(EXC_TYPE, "newarr expects an integer length, got %s", type_name(n));
    if (n.u.i < 0)
        THROW(EXC_INDEX_OUT_OF_RANGE, "negative array length %" PRId64, n.u.i);
    if (!(a = heap_new_array(t, (size_t)n.u.i)))
        return vm_throw(t, ip);
    t->sp[-1] = v_ref(a);
    return ip + 1;
}

/* A checked index into something of len elements. */
static int index_in(struct vm_thread *t, value i, size_t len, size_t *out)
{
    if (i.tag != V_INT) {
        vm_raise(t, EXC_TYPE, "an index must be an integer, got %s", type_name(i));
        return -1;
    }
    if (i.u.i < 0 || (uint64_t)i.u.i >= len) {
        vm_raise(t, EXC_INDEX_OUT_OF_RANGE, "index %" PRId64 " outside [0, %zu)", i.u.i, len);
        return -1;
    }
    *out = (size_t)i.u.i;
    return 0;
}

/* Arrays give their items, strings their bytes (as integers 0..255). */
HANDLER(ALOAD)
{
    value c = t->sp[-2];
    int is_array = v_is(c, OBJ_ARRAY);
    size_t i;

    if (!is_array && !v_is(c, OBJ_STRING))
        THROW(EXC_TYPE, "aload expects an array or a string, got %s", type_name(c));
    if (index_in(t, t->sp[-1], is_array ? v_arr(c)->len : v_str(c)->len, &i) < 0)
        return vm_throw(t, ip);
    t->sp[-2] = is_array ? v_arr(c)->items[i] : v_int((unsigned char)v_str(c)->data[i]);
    t->sp--;
    return ip + 1;
}

HANDLER(ASTORE)
{
    value a = t->sp[-3];
    size_t i;

    if (!v_is(a, OBJ_ARRAY))
        THROW(EXC_TYPE, "astore expects an array, got %s", type_name(a));
    if (index_in(t, t->sp[-2], v_arr(a)->len, &i) < 0)
        return vm_throw(t, ip);
    v_arr(a)->items[i] = t->sp[-1];
    heap_write_barrier(&t->vm->heap, a.u.o, t->sp[-1]);
    t->sp -= 3;
    return ip + 1;
}

HANDLER(LEN)
{
    value v = t->sp[-1];

    if (!v_is(v, OBJ_ARRAY) && !v_is(v, OBJ_STRING))
        THROW(EXC_TYPE, "len expects an array or a string, got %s", type_name(v));
    t->sp[-1] = v_int((int64_t)(v_is(v, OBJ_ARRAY) ? v_arr(v)->len : v_str(v)->len));
    return ip + 1;
}

HANDLER(STR)
{
    struct vstring *s = vm_to_string(t, t->sp[-1]);

    if (!s)
        return vm_throw(t, ip);
    t->sp[-1] = v_ref(s);
    return ip + 1;
}

/* Both operands stay on the stack (rooted, and objects never move) while the result is made. */
HANDLER(CAT)
{
    char ba[256], bb[256];
    size_t la, lb;
    const char *a = text_of(t->sp[-2], ba, sizeof ba, &la);
    const char *b = text_of(t->sp[-1], bb, sizeof bb, &lb);
    struct vstring *s = heap_new_string(t, NULL, la + lb);

    if (!s)
        return vm_throw(t, ip);
    memcpy(s->data, a, la);
    memcpy(s->data + la, b, lb);
    t->sp[-2] = v_ref(s);
    t->sp--;
    return ip + 1;
}

#undef THROW
#undef HANDLER

static const insn_fn handlers[OP_COUNT] = {
#define X(name, mnemonic, operand, pops, pushes, flow) [OP_##name] = op_##name,
    MINIVM_OPCODES(X)
#undef X
};

insn_fn interp_handler(enum opcode op)
{
    return handlers[op];
}

int vm_init_objects(struct vm_thread *t)
{
    static const char oom_text[] = "out of memory (no memory left to say more)";
    struct vm *vm = t->vm;
    struct vstring *s;

    for (int k = 0; k < EXC_KIND_COUNT; k++) {
        s = heap_new_string(t, exc_type_names[k], strlen(exc_type_names[k]));
        if (!s)
            return -1;
        vm->type_names[k] = &s->h;
    }
    if (!(s = heap_new_string(t, oom_text, sizeof oom_text - 1)))
        return -1;
    *t->sp++ = v_ref(s);
    vm->oom = (struct obj *)heap_new_exception(t, EXC_OUT_OF_MEMORY,
                                               v_ref(vm->type_names[EXC_OUT_OF_MEMORY]), v_ref(s));
    t->sp--;
    return vm->oom ? 0 : -1;
}
