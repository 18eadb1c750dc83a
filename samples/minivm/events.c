/* SPDX-License-Identifier: MIT */
/* minivm: the events glue: VM structures to the generated Palev_Runtime FireEvent stubs. */
#include "events.h"

#include "Palev_Runtime-events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MINIVM_VERSION "0.1.0"
/* Keyword bit and level of the manifest, for the provider-level check. */
#define KEYWORD_GC 0x1
#define LEVEL_INFORMATIONAL 4

static uint64_t id_of(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* ---- UTF-8 to UTF-16 --------------------------------------------------------------------- */

/* One code point from s (at most n bytes); malformed input gives U+FFFD and consumes 1 byte. */
static uint32_t utf8_next(const unsigned char *s, size_t n, size_t *used)
{
    static const uint32_t min[4] = { 0, 0x80, 0x800, 0x10000 };
    size_t len = s[0] < 0x80 ? 1 : (s[0] >> 5) == 6 ? 2 : (s[0] >> 4) == 14 ? 3
               : (s[0] >> 3) == 30 ? 4 : 0;
    uint32_t cp;

    *used = 1;
    if (len == 0 || len > n)
        return 0xFFFD;
    cp = len == 1 ? s[0] : s[0] & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0xFFFD;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min[len - 1] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0xFFFD;
    *used = len;
    return cp;
}

/* Convert up to cap - 1 UTF-16 units (never splitting a surrogate pair); NUL-terminated. */
static void utf8_to_utf16(const char *src, size_t n, char16_t *dst, size_t cap)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t o = 0, used;

    while (n > 0) {
        uint32_t cp = utf8_next(s, n, &used);

        if (o + (cp > 0xFFFF ? 2 : 1) >= cap)
            break;
        if (cp > 0xFFFF) {
            dst[o++] = (char16_t)(0xD800 + ((cp - 0x10000) >> 10));
            dst[o++] = (char16_t)(0xDC00 + ((cp - 0x10000) & 0x3FF));
        } else
            dst[o++] = (char16_t)cp;
        s += used;
        n -= used;
    }
    dst[o] = 0;
}

char16_t *ev_u16dup(const char *utf8)
{
    size_t n = strlen(utf8);
    char16_t *d = malloc((n + 1) * sizeof *d); /* never more units than bytes */

    if (!d) {
        fputs("minivm: out of memory\n", stderr);
        exit(2);
    }
    utf8_to_utf16(utf8, n, d, n + 1);
    return d;
}

/* A heap string of the VM as UTF-16 in buf (for exception types and messages). */
static const char16_t *u16(value v, char16_t *buf, size_t cap)
{
    if (v_is(v, OBJ_STRING))
        utf8_to_utf16(v_str(v)->data, v_str(v)->len, buf, cap);
    else
        buf[0] = 0;
    return buf;
}

/* ---- runtime ----------------------------------------------------------------------------- */

void ev_runtime_start(const struct vm *vm, const char *program)
{
    char16_t *p;

    if (!EventEnabledRuntimeStart())
        return;
    p = ev_u16dup(program);
    FireEventRuntimeStart(u"minivm", MINIVM_VERSION, vm->heap.limit, vm->heap.young_budget,
                          vm->config.workers, p);
    free(p);
}

void ev_runtime_stop(const struct vm *vm, int exit_code, uint64_t run_ns)
{
    FireEventRuntimeStop(exit_code, run_ns, vm->heap.gc_count, vm->stats.methods_compiled,
                         vm->stats.exceptions_thrown, vm->heap.total_allocated);
}

/* ---- GC ---------------------------------------------------------------------------------- */

void ev_gc_start(const struct vm_thread *t, const struct gc_report *r, uint64_t heap_bytes)
{
    FireEventGCStart(r->count, r->generation, r->reason, heap_bytes, t->id);
}

static void gc_generation_table(const struct gc_report *r)
{
    Palev_Runtime_GCGenerationTableArgs_Generations gens[2];

    for (int g = 0; g < 2; g++)
        gens[g] = (Palev_Runtime_GCGenerationTableArgs_Generations){
            .Generation = (uint32_t)g,
            .Collected = r->gen[g].collected,
            .BytesBefore = r->gen[g].bytes_before,
            .BytesAfter = r->gen[g].bytes_after,
            .ObjectsBefore = r->gen[g].objects_before,
            .ObjectsAfter = r->gen[g].objects_after,
            .BudgetBytes = r->gen[g].budget,
        };
    FireEventGCGenerationTable(r->count, 2, gens);
}

/* Survivors of the collected generations over what they held before. */
static double survival_rate(const struct gc_report *r)
{
    uint64_t before = r->gen[0].bytes_before + (r->generation ? r->gen[1].bytes_before : 0);
    uint64_t kept = r->generation ? r->gen[0].bytes_after + r->gen[1].bytes_after
                                  : r->promoted_bytes;

    return before ? (double)kept / (double)before : 0.0;
}

void ev_gc_end(const struct gc_report *r)
{
    const struct gc_generation *g = r->gen;

    FireEventGCEnd(r->count, r->generation, r->pause_ns,
                   g[0].bytes_before + g[1].bytes_before, g[0].bytes_after + g[1].bytes_after);
    /* The statistics events are only worth their arguments when a GC session listens. */
    if (!ProviderEnabledPalev_Runtime(LEVEL_INFORMATIONAL, KEYWORD_GC))
        return;
    FireEventGCHeapStats(r->count, g[0].bytes_after, g[0].objects_after, g[1].bytes_after,
                         g[1].objects_after, g[0].bytes_after + g[1].bytes_after,
                         g[0].objects_after + g[1].objects_after, r->freed_bytes,
                         r->freed_objects, r->promoted_bytes, r->promoted_objects, r->remembered,
                         r->roots, r->limit, r->total_allocated, r->mark_ns, r->sweep_ns,
                         survival_rate(r));
    if (EventEnabledGCGenerationTable())
        gc_generation_table(r);
}

void ev_alloc_tick(const struct vm_thread *t, uint64_t amount, const struct obj *o)
{
    static const char16_t *const names[OBJ_KIND_COUNT] = { u"String", u"Array", u"Exception" };

    FireEventGCAllocationTick(amount, o->kind, names[o->kind], o, o->size, t->id);
}

void ev_heap_pressure(uint32_t count, uint64_t heap_bytes, uint64_t limit)
{
    FireEventGCHeapPressure(count, heap_bytes, limit, (uint32_t)(heap_bytes * 100 / limit));
}

void ev_out_of_memory(const struct vm_thread *t, uint64_t requested, uint32_t kind,
                      uint64_t heap_bytes, uint64_t limit)
{
    FireEventGCOutOfMemory(requested, kind, heap_bytes, limit, t->id);
}

/* ---- methods ----------------------------------------------------------------------------- */

void ev_jitting_started(const struct method *m)
{
    FireEventMethodJittingStarted(id_of(m), id_of(m->module), m->bytecode_size, m->ns16,
                                  m->name16, m->sig16);
}

void ev_method_load(const struct method *m, const void *code, uint32_t size, uint64_t compile_ns,
                    enum code_tier tier)
{
    FireEventMethodLoad(id_of(m), id_of(m->module), code, size, m->bytecode_size, m->ninsns,
                        m->max_stack, compile_ns, m->ns16, m->name16, m->sig16, tier);
}

void ev_compile_failed(const struct method *m, uint32_t reason, uint32_t offset)
{
    FireEventMethodCompileFailed(id_of(m), reason, offset, m->ns16, m->name16, m->sig16);
}

/* ---- exceptions -------------------------------------------------------------------------- */

void ev_exception_thrown(const struct vm_thread *t, const struct method *m, const void *where)
{
    char16_t type[128], msg[256];
    const struct vexception *e;

    if (!EventEnabledExceptionThrown())
        return;
    e = v_exc(t->exc);
    FireEventExceptionThrown(e->kind, u16(e->type, type, 128), u16(e->message, msg, 256), where,
                             id_of(m), t->id);
}

void ev_exception_catch(const struct vm_thread *t, const struct method *m, const void *handler,
                        uint32_t frames)
{
    char16_t type[128];

    if (EventEnabledExceptionCatch())
        FireEventExceptionCatch(u16(v_exc(t->exc)->type, type, 128), handler, id_of(m), frames,
                                t->id);
}

void ev_exception_unhandled(const struct vm_thread *t, uint32_t frames)
{
    char16_t type[128], msg[256];
    const struct vexception *e;

    if (!EventEnabledExceptionUnhandled())
        return;
    e = v_exc(t->exc);
    FireEventExceptionUnhandled(u16(e->type, type, 128), u16(e->message, msg, 256), frames, t->id);
}

/* ---- threads ----------------------------------------------------------------------------- */

void ev_thread_start(const struct vm_thread *t)
{
    FireEventThreadStart(t->id, t->os_tid, t->kind);
}

void ev_thread_stop(const struct vm_thread *t)
{
    FireEventThreadStop(t->id, t->os_tid, t->kind, t->work_items, now_ns() - t->start_ns);
}

void ev_pool_enqueue(const struct vm_thread *t, const struct work_item *w, uint32_t length)
{
    FireEventThreadPoolEnqueue(w->id, id_of(w->method), length, t->id);
}

void ev_pool_dequeue(const struct vm_thread *t, const struct work_item *w, uint32_t length,
                     uint64_t wait_ns)
{
    FireEventThreadPoolDequeue(w->id, length, wait_ns, t->id);
}

void ev_pool_done(const struct vm_thread *t, uint64_t id, uint64_t run_ns, int succeeded)
{
    FireEventThreadPoolWorkItemDone(id, run_ns, succeeded, t->id);
}

/* ---- modules ----------------------------------------------------------------------------- */

/* The 16 GUID bytes in text order: "00112233-4455-6677-8899-aabbccddeeff". */
static palev_guid guid_of(const uint8_t b[16])
{
    palev_guid g = {
        .data1 = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3],
        .data2 = (uint16_t)(b[4] << 8 | b[5]),
        .data3 = (uint16_t)(b[6] << 8 | b[7]),
    };

    memcpy(g.data4, b + 8, 8);
    return g;
}

void ev_module_load(const struct module *m)
{
    palev_guid g = guid_of(m->guid);

    FireEventModuleLoad(id_of(m), &g, m->kind, m->nmethods, (uint32_t)m->bytecode_size, m->path16);
}

void ev_module_unload(const struct module *m, uint32_t compiled)
{
    palev_guid g = guid_of(m->guid);

    FireEventModuleUnload(id_of(m), &g, compiled, m->path16);
}
