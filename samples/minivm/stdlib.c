/* SPDX-License-Identifier: MIT */
/* minivm: the standard library (std.*), and the counters it reports as EventSource events and
 * as typed dynamic events. */
#include "vm.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <paleventing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* EventSource names: what a program reports with std.emit, and the runtime's own counters. */
#define APP_SOURCE "MiniVM-App"
#define COUNTER_SOURCE "MiniVM-Counters"
#define COUNTER_EVENT "RuntimeCounters"
#define COUNTER_EVENT_ID 1
/* The same, as typed events defined at run time: <provider>:<name> with typed fields, which a
 * session can filter by value (--filter 'queue_length > 4'). */
#define TYPED_APP_PROVIDER "MiniVM_App"
#define TYPED_COUNTERS_PROVIDER "MiniVM_Counters"
/* How often the counters are reported while someone listens. */
#define SAMPLE_INTERVAL_MS 200

static const char *kind_of(value v)
{
    static const char *const objs[OBJ_KIND_COUNT] = { "string", "array", "exception" };

    return v.tag == V_NIL ? "nil" : v.tag == V_INT ? "int" : objs[v.u.o->kind];
}

/* ---- std.* ------------------------------------------------------------------------------- */

static int std_print(struct vm_thread *t, value *args, value *out)
{
    struct vstring *s = vm_to_string(t, args[0]); /* args[0] stays on the stack: rooted */

    if (!s)
        return -1;
    fwrite(s->data, 1, s->len, stdout);
    fputc('\n', stdout);
    *out = v_nil();
    return 0;
}

static int std_clock(struct vm_thread *t, value *args, value *out)
{
    (void)t;
    (void)args;
    *out = v_int((int64_t)now_ns());
    return 0;
}

static int std_gc(struct vm_thread *t, value *args, value *out)
{
    (void)args;
    heap_collect(t, 1, GC_INDUCED);
    *out = v_int((int64_t)heap_bytes(&t->vm->heap));
    return 0;
}

static int std_heap(struct vm_thread *t, value *args, value *out)
{
    (void)args;
    *out = v_int((int64_t)heap_bytes(&t->vm->heap));
    return 0;
}

static int std_thread(struct vm_thread *t, value *args, value *out)
{
    (void)args;
    *out = v_int(t->id);
    return 0;
}

/* Blocks without the VM lock, so other threads (and collections) go on meanwhile. */
static int std_sleep(struct vm_thread *t, value *args, value *out)
{
    struct timespec ts;

    if (args[0].tag != V_INT || args[0].u.i < 0) {
        vm_raise(t, EXC_TYPE, "std.sleep expects milliseconds >= 0, got %s", kind_of(args[0]));
        return -1;
    }
    ts.tv_sec = (time_t)(args[0].u.i / 1000);
    ts.tv_nsec = (long)(args[0].u.i % 1000) * 1000000L;
    vm_lock_release(t->vm);
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
    vm_lock_acquire(t->vm);
    *out = v_nil();
    return 0;
}

static int std_int(struct vm_thread *t, value *args, value *out)
{
    char *end;
    long long v;

    if (args[0].tag == V_INT) {
        *out = args[0];
        return 0;
    }
    if (!v_is(args[0], OBJ_STRING)) {
        vm_raise(t, EXC_TYPE, "std.int expects a string, got %s", kind_of(args[0]));
        return -1;
    }
    errno = 0;
    v = strtoll(v_str(args[0])->data, &end, 10);
    if (errno || end == v_str(args[0])->data || *end) {
        vm_raise(t, EXC_TYPE, "std.int: \"%s\" is not an integer", v_str(args[0])->data);
        return -1;
    }
    *out = v_int(v);
    return 0;
}

/* Event ids of std.emit, by name in order of first use. Guarded by the VM lock. */
static char *app_event_names[64];

static int32_t app_event_id(const char *name)
{
    int32_t i = 0;

    for (; i < 64 && app_event_names[i]; i++)
        if (strcmp(app_event_names[i], name) == 0)
            return i + 1;
    if (i == 64 || !(app_event_names[i] = strdup(name)))
        return 0;
    return i + 1;
}

/* std.emit as a typed event MiniVM_App:<name> { value (int64), text }: an integer goes to
 * value, a string to text, anything else names its kind in text. The event is looked up by
 * name (lock-free) and defined on first use; a name LTTng cannot take (not an identifier)
 * has no typed event. */
static void emit_typed(const char *name, value v)
{
    static const palev_field fields[] = { { "value", PALEV_TYPE_INT64, 0 },
                                          { "text", PALEV_TYPE_STRING, 0 } };
    palev_event *ev = palev_event_lookup(TYPED_APP_PROVIDER, name);

    if (!ev && palev_event_define(TYPED_APP_PROVIDER, name, 4, 0, fields, 2, &ev) != 0)
        return;
    if (!palev_event_enabled(ev))
        return;
    if (v.tag == V_INT)
        palev_event_writef(ev, (int64_t)v.u.i, "");
    else
        palev_event_writef(ev, (int64_t)0, v_is(v, OBJ_STRING) ? v_str(v)->data : kind_of(v));
}

/* std.emit(name, value): an EventSource event of source MiniVM-App with payload
 * {"value": value}, and the typed event MiniVM_App:<name>. Nothing is built unless a session
 * records it. */
static int std_emit(struct vm_thread *t, value *args, value *out)
{
    const char *name;

    *out = v_nil();
    if (!v_is(args[0], OBJ_STRING)) {
        vm_raise(t, EXC_TYPE, "std.emit expects an event name, got %s", kind_of(args[0]));
        return -1;
    }
    name = v_str(args[0])->data;
    emit_typed(name, args[1]);
    if (!palev_eventsource_is_enabled(APP_SOURCE, name))
        return 0;
    if (args[1].tag == V_INT)
        palev_eventsource_write_pack(APP_SOURCE, app_event_id(name), name, "{s:I}", "value",
                                     (json_int_t)args[1].u.i);
    else if (v_is(args[1], OBJ_STRING))
        palev_eventsource_write_pack(APP_SOURCE, app_event_id(name), name, "{s:s%}", "value",
                                     v_str(args[1])->data, v_str(args[1])->len);
    else
        palev_eventsource_write_pack(APP_SOURCE, app_event_id(name), name, "{s:s}", "value",
                                     kind_of(args[1]));
    return 0;
}

void stdlib_fini(void)
{
    for (int i = 0; i < 64 && app_event_names[i]; i++) {
        free(app_event_names[i]);
        app_event_names[i] = NULL;
    }
}

const struct native natives[] = {
    { "std.print", 1, std_print },
    { "std.clock", 0, std_clock },
    { "std.gc", 0, std_gc },
    { "std.heap", 0, std_heap },
    { "std.thread", 0, std_thread },
    { "std.sleep", 1, std_sleep },
    { "std.int", 1, std_int },
    { "std.emit", 2, std_emit },
};
const uint32_t native_count = sizeof natives / sizeof *natives;

int native_find(const char *name)
{
    for (uint32_t i = 0; i < native_count; i++)
        if (strcmp(natives[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* ---- the counters ------------------------------------------------------------------------ */

struct sampler {
    struct vm *vm;
    palev_event *tick;          /* MiniVM_Counters:Tick */
    struct vm_thread *t;
    pthread_t thread;
    pthread_mutex_t m;
    pthread_cond_t c;
    int stop;
    uint64_t last_ns, last_allocated;
};

struct counters {
    uint64_t gc_count, heap_bytes, heap_limit, allocated, methods, exceptions, work_items;
    uint64_t queue_length, handoffs;
};

static void snapshot(struct vm *vm, struct counters *c)
{
    vm_lock_acquire(vm);
    c->gc_count = vm->heap.gc_count;
    c->heap_bytes = heap_bytes(&vm->heap);
    c->heap_limit = vm->heap.limit;
    c->allocated = vm->heap.total_allocated;
    c->methods = vm->stats.methods_compiled;
    c->exceptions = vm->stats.exceptions_thrown;
    c->work_items = vm->stats.work_items;
    c->handoffs = vm->lock.handoffs;
    pthread_mutex_lock(&vm->pool.m);
    c->queue_length = vm->pool.length;
    pthread_mutex_unlock(&vm->pool.m);
    vm_lock_release(vm);
}

/* The counters as typed fields: MiniVM_Counters:Tick. */
static const palev_field tick_fields[] = {
    { "gc_count", PALEV_TYPE_UINT64, 0 },
    { "heap_bytes", PALEV_TYPE_UINT64, 0 },
    { "heap_limit_bytes", PALEV_TYPE_UINT64, 0 },
    { "alloc_bytes", PALEV_TYPE_UINT64, 0 },
    { "alloc_rate_bytes_per_sec", PALEV_TYPE_UINT64, 0 },
    { "methods_compiled", PALEV_TYPE_UINT64, 0 },
    { "exceptions_thrown", PALEV_TYPE_UINT64, 0 },
    { "work_items_completed", PALEV_TYPE_UINT64, 0 },
    { "queue_length", PALEV_TYPE_UINT64, 0 },
    { "lock_handoffs", PALEV_TYPE_UINT64, 0 },
    { "interval_ms", PALEV_TYPE_UINT64, 0 },
};

static void write_counters(struct sampler *s, const struct counters *c, uint64_t rate,
                           uint64_t interval_ns, int json)
{
    PALEV_EVENT_WRITE(s->tick, c->gc_count, c->heap_bytes, c->heap_limit, c->allocated, rate,
                      c->methods, c->exceptions, c->work_items, c->queue_length, c->handoffs,
                      interval_ns / 1000000);
    if (!json)
        return;
    palev_eventsource_write_pack(
        COUNTER_SOURCE, COUNTER_EVENT_ID, COUNTER_EVENT,
        "{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
        "gc-count", (json_int_t)c->gc_count, "heap-bytes", (json_int_t)c->heap_bytes,
        "heap-limit-bytes", (json_int_t)c->heap_limit, "allocation-rate-bytes-per-sec",
        (json_int_t)rate, "methods-compiled", (json_int_t)c->methods, "exceptions-thrown",
        (json_int_t)c->exceptions, "work-items-completed", (json_int_t)c->work_items,
        "queue-length", (json_int_t)c->queue_length, "lock-handoffs", (json_int_t)c->handoffs,
        "interval-ms", (json_int_t)(interval_ns / 1000000));
}

/* One RuntimeCounters EventSource event and one MiniVM_Counters:Tick, each when a session
 * records it; the VM is only looked at when one of them is recorded. */
static void sample(struct sampler *s)
{
    struct counters c;
    uint64_t now, rate, interval_ns;
    int json = palev_eventsource_is_enabled(COUNTER_SOURCE, COUNTER_EVENT);

    if (!json && !palev_event_enabled(s->tick))
        return;
    snapshot(s->vm, &c);
    now = now_ns();
    interval_ns = now - s->last_ns;
    rate = interval_ns ? (uint64_t)((double)(c.allocated - s->last_allocated) * 1e9 /
                                    (double)interval_ns) : 0;
    s->last_ns = now;
    s->last_allocated = c.allocated;
    write_counters(s, &c, rate, interval_ns, json);
}

static void wait_interval(struct sampler *s)
{
    struct timespec deadline;

    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_nsec += SAMPLE_INTERVAL_MS * 1000000L;
    deadline.tv_sec += deadline.tv_nsec / 1000000000L;
    deadline.tv_nsec %= 1000000000L;
    pthread_mutex_lock(&s->m);
    while (!s->stop && pthread_cond_timedwait(&s->c, &s->m, &deadline) != ETIMEDOUT)
        ;
    pthread_mutex_unlock(&s->m);
}

static void *sampler_main(void *arg)
{
    struct sampler *s = arg;
    int stop = 0;

    vm_lock_acquire(s->vm);
    thread_attach(s->t);
    vm_lock_release(s->vm);
    s->last_ns = now_ns();
    while (!stop) {
        wait_interval(s);
        pthread_mutex_lock(&s->m);
        stop = s->stop;
        pthread_mutex_unlock(&s->m);
        sample(s); /* a last one at the end, so even a short run reports its totals */
    }
    vm_lock_acquire(s->vm);
    thread_detach(s->t);
    vm_lock_release(s->vm);
    return NULL;
}

int sampler_start(struct vm *vm)
{
    struct sampler *s = calloc(1, sizeof *s);
    pthread_condattr_t attr;

    if (!s || !(s->t = thread_new(vm, THREAD_SAMPLER))) {
        free(s);
        return -1;
    }
    s->vm = vm;
    /* Never fails the VM: on error the handle is one that is never enabled. */
    palev_event_define(TYPED_COUNTERS_PROVIDER, "Tick", 4, 0, tick_fields,
                       sizeof tick_fields / sizeof *tick_fields, &s->tick);
    pthread_mutex_init(&s->m, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&s->c, &attr);
    pthread_condattr_destroy(&attr);
    if (pthread_create(&s->thread, NULL, sampler_main, s) != 0) {
        thread_free(s->t);
        free(s);
        return -1;
    }
    vm->sampler = s;
    return 0;
}

/* Called without the VM lock (the sampler takes it to report its last values). */
void sampler_stop(struct vm *vm)
{
    struct sampler *s = vm->sampler;

    if (!s)
        return;
    pthread_mutex_lock(&s->m);
    s->stop = 1;
    pthread_cond_signal(&s->c);
    pthread_mutex_unlock(&s->m);
    pthread_join(s->thread, NULL);
    pthread_mutex_destroy(&s->m);
    pthread_cond_destroy(&s->c);
    thread_free(s->t);
    free(s);
    vm->sampler = NULL;
}
