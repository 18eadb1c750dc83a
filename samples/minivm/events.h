/* SPDX-License-Identifier: MIT */
/* minivm: the events glue, the only code that calls the generated Palev_Runtime stubs. */
#ifndef MINIVM_EVENTS_H
#define MINIVM_EVENTS_H

#include "vm.h"

/* What one collection did, measured by heap.c; fired as GCEnd, GCHeapStats, GCGenerationTable. */
struct gc_generation {
    uint64_t bytes_before, bytes_after, objects_before, objects_after, budget;
    int collected;
};

struct gc_report {
    uint32_t count, generation, reason, thread_id;
    uint64_t pause_ns, mark_ns, sweep_ns;
    struct gc_generation gen[2];
    uint64_t freed_bytes, freed_objects, promoted_bytes, promoted_objects;
    uint32_t remembered, roots;
    uint64_t limit, total_allocated;
};

/* A UTF-16 copy of UTF-8 text (invalid bytes become U+FFFD); exits on out of memory. */
char16_t *ev_u16dup(const char *utf8);

void ev_runtime_start(const struct vm *vm, const char *program);
void ev_runtime_stop(const struct vm *vm, int exit_code, uint64_t run_ns);

void ev_gc_start(const struct vm_thread *t, const struct gc_report *r, uint64_t heap_bytes);
void ev_gc_end(const struct gc_report *r);
void ev_alloc_tick(const struct vm_thread *t, uint64_t amount, const struct obj *o);
void ev_heap_pressure(uint32_t count, uint64_t heap_bytes, uint64_t limit);
void ev_out_of_memory(const struct vm_thread *t, uint64_t requested, uint32_t kind,
                      uint64_t heap_bytes, uint64_t limit);

void ev_jitting_started(const struct method *m);
/* code and size: the threaded code (TIER_THREADED) or the native code (TIER_NATIVE). */
void ev_method_load(const struct method *m, const void *code, uint32_t size, uint64_t compile_ns,
                    enum code_tier tier);
void ev_compile_failed(const struct method *m, uint32_t reason, uint32_t offset);

/* The exception is t->exc; where is the address it was thrown at, in m's threaded or native
 * code, handler the address of the handler. */
void ev_exception_thrown(const struct vm_thread *t, const struct method *m, const void *where);
void ev_exception_catch(const struct vm_thread *t, const struct method *m, const void *handler,
                        uint32_t frames);
void ev_exception_unhandled(const struct vm_thread *t, uint32_t frames);

void ev_thread_start(const struct vm_thread *t);
void ev_thread_stop(const struct vm_thread *t);
void ev_pool_enqueue(const struct vm_thread *t, const struct work_item *w, uint32_t length);
void ev_pool_dequeue(const struct vm_thread *t, const struct work_item *w, uint32_t length,
                     uint64_t wait_ns);
void ev_pool_done(const struct vm_thread *t, uint64_t id, uint64_t run_ns, int succeeded);

void ev_module_load(const struct module *m);
void ev_module_unload(const struct module *m, uint32_t compiled);

#endif /* MINIVM_EVENTS_H */
