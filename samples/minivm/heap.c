/* SPDX-License-Identifier: MIT */
/* minivm: the heap: allocation, a generational non-moving mark-sweep collector, write barrier. */
#include "events.h"
#include "vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An allocation tick event every this many bytes allocated (what CoreCLR uses too). */
#define ALLOCATION_TICK_BYTES (100 * 1024)
/* The old generation may grow to this before a full collection, at least. */
#define MIN_OLD_BUDGET (4u << 20)
/* A full collection leaving the heap this full (percent of the limit) warns. */
#define PRESSURE_PERCENT 75

static void *grow(void *p, size_t *cap, size_t elem)
{
    size_t n = *cap ? *cap * 2 : 256;

    p = realloc(p, n * elem);
    if (!p) {
        /* Collector metadata: without it the heap cannot be walked, so stop here. */
        fputs("minivm: out of memory for collector metadata\n", stderr);
        abort();
    }
    *cap = n;
    return p;
}

void heap_init(struct heap *h, size_t limit, size_t young_budget)
{
    memset(h, 0, sizeof *h);
    h->limit = limit;
    h->young_budget = young_budget;
    h->old_budget = MIN_OLD_BUDGET < limit ? MIN_OLD_BUDGET : limit;
}

static void free_list(struct obj *o)
{
    while (o) {
        struct obj *next = o->next;

        free(o);
        o = next;
    }
}

void heap_fini(struct heap *h)
{
    free_list(h->young);
    free_list(h->old);
    free(h->remembered);
    free(h->mark_stack);
    memset(h, 0, sizeof *h);
}

/* ---- marking ----------------------------------------------------------------------------- */

/* A minor collection treats every old object as live and does not trace through it: only the
 * remembered set says which old objects point at young ones. */
static void mark_value(struct heap *h, value v, int full)
{
    struct obj *o;

    if (v.tag != V_REF)
        return;
    o = v.u.o;
    if (o->marked || (!full && o->gen))
        return;
    o->marked = 1;
    if (h->mark_top == h->mark_cap)
        h->mark_stack = grow(h->mark_stack, &h->mark_cap, sizeof *h->mark_stack);
    h->mark_stack[h->mark_top++] = o;
}

static void mark_root(struct heap *h, value v, int full)
{
    h->roots++;
    mark_value(h, v, full);
}

static void mark_children(struct heap *h, const struct obj *o, int full)
{
    if (o->kind == OBJ_ARRAY) {
        const struct varray *a = (const struct varray *)o;

        for (size_t i = 0; i < a->len; i++)
            mark_value(h, a->items[i], full);
    } else if (o->kind == OBJ_EXCEPTION) {
        const struct vexception *e = (const struct vexception *)o;

        mark_value(h, e->type, full);
        mark_value(h, e->message, full);
    }
}

static void mark_threads(struct vm *vm, int full)
{
    for (struct vm_thread *t = vm->threads; t; t = t->next) {
        for (const value *v = t->stack; v < t->sp; v++)
            mark_root(&vm->heap, *v, full);
        mark_root(&vm->heap, t->exc, full);
    }
}

static void mark_module(struct vm *vm, const struct module *mod, int full)
{
    for (uint32_t i = 0; i < mod->nglobals; i++)
        mark_root(&vm->heap, mod->globals[i], full);
    for (uint32_t i = 0; i < mod->nmethods; i++)
        for (uint32_t c = 0; c < mod->methods[i].nconsts; c++)
            if (mod->methods[i].consts[c])
                mark_root(&vm->heap, v_ref(mod->methods[i].consts[c]), full);
}

static void mark_runtime(struct vm *vm, int full)
{
    for (int k = 0; k < EXC_KIND_COUNT; k++)
        if (vm->type_names[k])
            mark_root(&vm->heap, v_ref(vm->type_names[k]), full);
    if (vm->oom)
        mark_root(&vm->heap, v_ref(vm->oom), full);
    pthread_mutex_lock(&vm->pool.m);
    for (const struct work_item *w = vm->pool.head; w; w = w->next)
        for (uint32_t i = 0; i < w->argc; i++)
            mark_root(&vm->heap, w->args[i], full);
    pthread_mutex_unlock(&vm->pool.m);
}

static void mark(struct vm *vm, int full)
{
    struct heap *h = &vm->heap;

    h->roots = 0;
    mark_threads(vm, full);
    if (vm->module)
        mark_module(vm, vm->module, full);
    mark_runtime(vm, full);
    if (!full)
        for (size_t i = 0; i < h->nremembered; i++)
            mark_children(h, h->remembered[i], full);
    while (h->mark_top)
        mark_children(h, h->mark_stack[--h->mark_top], full);
}

/* ---- sweeping ---------------------------------------------------------------------------- */

struct sweep {
    uint64_t freed_bytes, freed_objects, kept_bytes, kept_objects;
};

/* Free the unmarked objects of *list; the survivors are unmarked and go to the old list. */
static void sweep_list(struct obj **list, struct sweep *s)
{
    struct obj *o = *list, *old = NULL;

    *list = NULL;
    while (o) {
        struct obj *next = o->next;

        if (o->marked) {
            o->marked = 0;
            o->gen = 1;
            o->next = old;
            old = o;
            s->kept_bytes += o->size;
            s->kept_objects++;
        } else {
            s->freed_bytes += o->size;
            s->freed_objects++;
            free(o);
        }
        o = next;
    }
    *list = old;
}

static void append(struct obj **dst, struct obj *list)
{
    struct obj *last = list;

    if (!list)
        return;
    while (last->next)
        last = last->next;
    last->next = *dst;
    *dst = list;
}

/* Every young survivor becomes old, so after any collection no old object points at a young
 * one and the remembered set starts empty again. */
static void forget_remembered(struct heap *h)
{
    for (size_t i = 0; i < h->nremembered; i++)
        h->remembered[i]->remembered = 0;
    h->nremembered = 0;
}

static void sweep(struct heap *h, int full, struct gc_report *r)
{
    struct sweep young = { 0 }, old = { 0 };
    struct obj *survivors;

    sweep_list(&h->young, &young);
    survivors = h->young;
    h->young = NULL;
    if (full)
        sweep_list(&h->old, &old);
    append(&h->old, survivors);
    h->young_bytes = h->young_objects = 0;
    if (full) {
        h->old_bytes = old.kept_bytes;
        h->old_objects = old.kept_objects;
    }
    h->old_bytes += young.kept_bytes;
    h->old_objects += young.kept_objects;
    r->freed_bytes = young.freed_bytes + old.freed_bytes;
    r->freed_objects = young.freed_objects + old.freed_objects;
    r->promoted_bytes = young.kept_bytes;
    r->promoted_objects = young.kept_objects;
}

/* ---- collections ------------------------------------------------------------------------- */

static void snapshot(const struct heap *h, struct gc_generation gen[2], int after)
{
    const size_t bytes[2] = { h->young_bytes, h->old_bytes };
    const size_t objects[2] = { h->young_objects, h->old_objects };

    for (int g = 0; g < 2; g++) {
        *(after ? &gen[g].bytes_after : &gen[g].bytes_before) = bytes[g];
        *(after ? &gen[g].objects_after : &gen[g].objects_before) = objects[g];
    }
}

/* After a full collection the old generation may grow to twice what survived. */
static void resize_old_budget(struct heap *h)
{
    size_t live = heap_bytes(h);
    size_t budget = 2 * live > MIN_OLD_BUDGET ? 2 * live : MIN_OLD_BUDGET;

    h->old_budget = budget < h->limit ? budget : h->limit;
}

static void finish_report(const struct heap *h, struct gc_report *r, const uint64_t t[3])
{
    snapshot(h, r->gen, 1);
    r->gen[0].collected = 1;
    r->gen[1].collected = r->generation;
    r->gen[0].budget = h->young_budget;
    r->gen[1].budget = h->old_budget;
    r->mark_ns = t[1] - t[0];
    r->sweep_ns = t[2] - t[1];
    r->pause_ns = t[2] - t[0];
    r->roots = h->roots;
    r->limit = h->limit;
    r->total_allocated = h->total_allocated;
}

/* Stop-the-world by construction: the caller holds the VM lock, every other mutator is parked
 * at a safepoint with its values on its stack. The pause is measured around mark and sweep. */
void heap_collect(struct vm_thread *t, int full, enum gc_reason reason)
{
    struct heap *h = &t->vm->heap;
    struct gc_report r = { .count = ++h->gc_count, .generation = full ? 1 : 0,
                           .reason = reason, .thread_id = t->id };
    uint64_t times[3];

    snapshot(h, r.gen, 0);
    ev_gc_start(t, &r, heap_bytes(h));
    times[0] = now_ns();
    mark(t->vm, full);
    times[1] = now_ns();
    r.remembered = (uint32_t)h->nremembered;
    forget_remembered(h);
    sweep(h, full, &r);
    times[2] = now_ns();
    if (full)
        resize_old_budget(h);
    finish_report(h, &r, times);
    ev_gc_end(&r);
    if (full && heap_bytes(h) * 100 >= h->limit * PRESSURE_PERCENT)
        ev_heap_pressure(r.count, heap_bytes(h), h->limit);
}

/* ---- allocation -------------------------------------------------------------------------- */

static struct obj *out_of_memory(struct vm_thread *t, enum obj_kind kind, size_t size)
{
    struct heap *h = &t->vm->heap;

    ev_out_of_memory(t, size, kind, heap_bytes(h), h->limit);
    vm_raise(t, EXC_OUT_OF_MEMORY, "cannot allocate %zu bytes: %zu of %zu heap bytes in use",
             size, heap_bytes(h), h->limit);
    return NULL;
}

/* Collect when the young budget is spent (a full collection when the old generation outgrew
 * its budget too), and fully when the heap limit would be exceeded. */
static int make_room(struct vm_thread *t, size_t size)
{
    struct heap *h = &t->vm->heap;

    if (h->young_bytes + size > h->young_budget) {
        int full = h->old_bytes > h->old_budget;

        heap_collect(t, full, full ? GC_OLD_BUDGET : GC_YOUNG_BUDGET);
    }
    if (size > h->limit || heap_bytes(h) + size > h->limit)
        heap_collect(t, 1, GC_HEAP_LIMIT);
    return size <= h->limit && heap_bytes(h) + size <= h->limit;
}

struct obj *heap_alloc(struct vm_thread *t, enum obj_kind kind, size_t size)
{
    struct heap *h = &t->vm->heap;
    struct obj *o;

    if (!make_room(t, size) || !(o = calloc(1, size)))
        return out_of_memory(t, kind, size);
    o->size = size;
    o->kind = (uint8_t)kind;
    o->next = h->young;
    h->young = o;
    h->young_bytes += size;
    h->young_objects++;
    h->total_allocated += size;
    h->tick_bytes += size;
    if (h->tick_bytes >= ALLOCATION_TICK_BYTES) {
        ev_alloc_tick(t, h->tick_bytes, o);
        h->tick_bytes = 0;
    }
    return o;
}

struct vstring *heap_new_string(struct vm_thread *t, const char *s, size_t len)
{
    struct vstring *str;

    if (len > SIZE_MAX / 2) {
        out_of_memory(t, OBJ_STRING, SIZE_MAX);
        return NULL;
    }
    str = (struct vstring *)heap_alloc(t, OBJ_STRING, sizeof *str + len + 1);
    if (str) {
        str->len = len;
        if (s)
            memcpy(str->data, s, len);
    }
    return str;
}

struct varray *heap_new_array(struct vm_thread *t, size_t len)
{
    struct varray *a;

    if (len > (SIZE_MAX / 2) / sizeof(value)) {
        out_of_memory(t, OBJ_ARRAY, SIZE_MAX);
        return NULL;
    }
    a = (struct varray *)heap_alloc(t, OBJ_ARRAY, sizeof *a + len * sizeof(value));
    if (a)
        a->len = len; /* calloc made every item V_NIL */
    return a;
}

struct vexception *heap_new_exception(struct vm_thread *t, uint32_t kind, value type, value msg)
{
    struct vexception *e = (struct vexception *)heap_alloc(t, OBJ_EXCEPTION, sizeof *e);

    if (e) {
        /* Young, so no barrier: it cannot be old and point at something younger. */
        e->kind = kind;
        e->type = type;
        e->message = msg;
    }
    return e;
}

void heap_write_barrier(struct heap *h, struct obj *parent, value v)
{
    if (!parent->gen || parent->remembered || v.tag != V_REF || v.u.o->gen)
        return;
    parent->remembered = 1;
    if (h->nremembered == h->remembered_cap)
        h->remembered = grow(h->remembered, &h->remembered_cap, sizeof *h->remembered);
    h->remembered[h->nremembered++] = parent;
}
