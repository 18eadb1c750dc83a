/* SPDX-License-Identifier: MIT */
/* palev-trace export: --format chrome (the default), the Trace Event Format (Perfetto UI,
 * chrome://tracing, speedscope), written as the trace is read: a track per process and thread;
 * activities as B/E slices; other events as instants with every field in args; counters as C
 * events; each event's call stack (Paleventing:Stack) attached to its record ("sf", frames named
 * in "stackFrames"). --format speedscope: speedscope's own format, perf's samples beside the trace
 * as a sampled profile per thread (CPU time, and blocked time), the call stacks of events as one
 * per event. Written to a temporary file renamed into place when complete. */
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "counters.h"
#include "cpu.h"
#include "stacks.h"
#include "stats.h"
#include "summary.h"

/* A record waits this long (trace time) for its event's Stack, which follows it on its thread. */
#define STACK_WINDOW_NS 10000000
#define FLUSH_BYTES (256 * 1024)

typedef struct export_opts {
    pt_input in;
    const char *output;
    unsigned speedscope;        /* --format chrome|speedscope: the choice's index, 1 for speedscope */
    const char *event;
} export_opts;

/* A record written to the window, waiting for its event's stack. */
typedef struct pending {
    uint64_t thread;
    off_t at;                   /* where ',"sf":N' goes in the window: before the record's '}' */
    int64_t ts;
    const pt_class *cls;
    uint64_t sf;                /* its stack's frame id, 0: none */
    int open;
} pending;

/* A frame of the stack tree: the same caller chain in one process and code epoch is one node. */
typedef struct frame {
    uint64_t parent, process, addr;
    int64_t ts;
    uint32_t line;              /* a walker's line, or 0 */
} frame;

typedef struct export {
    const export_opts *o;
    FILE *out;
    FILE *rec;                  /* where records go: out, or win once a trace may hold stacks */
    FILE *win;                  /* records not yet written: their stacks may still come */
    char *win_buf;
    size_t win_size;
    pt_reader *r;
    pt_pairer pairer;
    pt_procs procs;             /* names the processes' tracks at the end */
    pt_map named;               /* tids already named by an M record */
    pt_symbols *syms;
    pt_map frame_ids;           /* (parent, process, epoch, addr) -> id */
    frame *frames;              /* by id - 1 */
    size_t nframes, cap_frames;
    pending *pend;
    size_t npend, cap_pend;
    uint64_t pend_base;         /* sequence number of pend[0] */
    pt_map pend_by_thread;      /* thread -> sequence number + 1 of its latest record */
    pt_map checked;             /* traces whose metadata was looked at for a Stack event */
    off_t primary_at;           /* the event's own record, -1 until written */
    unsigned since_flush;       /* events since the window's size was last looked at */
    uint64_t stacks_lost;       /* Stack events whose event was not found */
    int64_t t0, last;
    int started;
    uint64_t written;
    const pt_event *ev;         /* the event being written (counter callback) */
    int counter_open;
} export;

static int64_t pid_of(const pt_trace *t, int64_t vpid)
{
    return (int64_t)t->index * 4194304 + (vpid < 0 ? 0 : vpid);   /* PID_MAX_LIMIT apart */
}

static int64_t tid_of(const pt_trace *t, int64_t vpid, int64_t vtid)
{
    return vtid < 0 ? pid_of(t, vpid) : (int64_t)t->index * 4194304 + vtid;
}

static void begin_record(export *x, const char *ph, int64_t pid, int64_t tid, int64_t ts)
{
    int64_t rel = ts - x->t0;
    char frac[4] = { (char)('0' + rel % 1000 / 100), (char)('0' + rel % 100 / 10), (char)('0' + rel % 10), 0 };
    fputs(x->written++ ? ",\n{\"ph\":\"" : "\n{\"ph\":\"", x->rec);
    fputs(ph, x->rec);
    fputs("\",\"pid\":", x->rec);
    pt_put_i64(x->rec, pid);
    fputs(",\"tid\":", x->rec);
    pt_put_i64(x->rec, tid);
    fputs(",\"ts\":", x->rec);
    pt_put_i64(x->rec, rel / 1000);
    putc_unlocked('.', x->rec);
    fputs(frac, x->rec);
}

/* Ends a record; the event's own record notes where its stack goes. */
static void end_record(export *x, int primary)
{
    if (primary && x->rec == x->win)
        x->primary_at = ftello(x->win);
    putc_unlocked('}', x->rec);
}

static void name_thread(export *x, const pt_event *ev)
{
    int64_t pid = pid_of(ev->trace, ev->vpid), tid = tid_of(ev->trace, ev->vpid, ev->vtid);
    if (pt_map_get(&x->named, (uint64_t)tid))
        return;
    pt_map_put(&x->named, (uint64_t)tid, x);
    char *name = pt_xasprintf("%s %lld", ev->procname ? ev->procname : "thread",
                              (long long)(ev->vtid < 0 ? ev->vpid : ev->vtid));
    fprintf(x->rec, "%s\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%lld,\"tid\":%lld,\"args\":{\"name\":",
            x->written++ ? "," : "", (long long)pid, (long long)tid);
    pt_json_string(x->rec, name);
    fputs("}}", x->rec);
    free(name);
}

/* Each process named once its events are all read: by its main thread, not LTTng's listener. */
static void name_processes(export *x)
{
    for (unsigned i = 0; i < x->procs.n; i++) {
        const pt_proc *p = x->procs.list[i];
        const char *proc = pt_proc_name(p);
        char *name = pt_xasprintf("%s %lld (%s)", strcmp(proc, "-") ? proc : "process", (long long)p->vpid,
                                  p->trace->hostname);
        int64_t pid = pid_of(p->trace, p->vpid);
        fprintf(x->out, "%s\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%lld,\"tid\":%lld,\"args\":{\"name\":",
                x->written++ ? "," : "", (long long)pid, (long long)pid);
        pt_json_string(x->out, name);
        fputs("}}", x->out);
        free(name);
    }
}

static void name_cat(export *x, const char *name, const char *cat)
{
    fputs(",\"name\":", x->rec);
    pt_json_string(x->rec, name);
    fputs(",\"cat\":", x->rec);
    pt_json_string(x->rec, cat);
}

static void slice(export *x, const pt_thread *th, const pt_frame *f, const char *ph, int64_t ts,
                  const pt_event *ev, const char *note)
{
    begin_record(x, ph, pid_of(th->trace, th->vpid), tid_of(th->trace, th->vpid, th->vtid), ts);
    const char *t = pt_task_name(x->r, f->task), *colon = strchr(t, ':');
    char *provider = pt_xstrndup(t, colon ? (size_t)(colon - t) : 0);
    name_cat(x, colon ? colon + 1 : t, provider);   /* the task without its provider: "GC" */
    free(provider);
    fputs(",\"args\":", x->rec);
    if (ev) {
        pt_field_json(x->rec, pt_payload(ev));
    } else {
        fputs("{\"note\":", x->rec);
        pt_json_string(x->rec, note);
        putc_unlocked('}', x->rec);
    }
    end_record(x, ev != NULL);
}

static void on_start(pt_thread *th, const pt_event *ev, void *data)
{
    slice(data, th, &th->stack[th->depth - 1], "B", ev->ts, ev, NULL);
}

/* B/E must nest on a track: slices opened after the matched one are closed and opened again. */
static void on_stop(pt_thread *th, unsigned pos, const pt_event *ev, void *data)
{
    export *x = data;
    for (unsigned i = th->depth; --i > pos;)
        slice(x, th, &th->stack[i], "E", ev->ts, NULL, "interrupted by the end of an enclosing activity");
    slice(x, th, &th->stack[pos], "E", ev->ts, ev, NULL);
    for (unsigned i = pos + 1; i < th->depth; i++)
        slice(x, th, &th->stack[i], "B", ev->ts, NULL, "continued after the end of an enclosing activity");
}

static void instant(export *x, const pt_event *ev, int unmatched)
{
    begin_record(x, "i", pid_of(ev->trace, ev->vpid), tid_of(ev->trace, ev->vpid, ev->vtid), ev->ts);
    name_cat(x, ev->cls->event, ev->cls->provider);
    fputs(",\"s\":\"t\",\"args\":", x->rec);
    const bt_field *p = pt_payload(ev);
    if (unmatched) {
        fputs("{\"unmatched\":\"a Stop without its Start\",\"fields\":", x->rec);
        pt_field_json(x->rec, p);
        putc_unlocked('}', x->rec);
    } else if (p) {
        pt_field_json(x->rec, p);
    } else {
        fputs("{}", x->rec);
    }
    end_record(x, 1);
}

static void on_unmatched_stop(const pt_event *ev, void *data)
{
    instant(data, ev, 1);
}

static void counter_value(const pt_sample *s, void *data)
{
    export *x = data;
    const pt_event *ev = x->ev;
    if (!s->finite)
        return;     /* JSON has no NaN or infinity: not a point of the counter track */
    if (!x->counter_open) {
        begin_record(x, "C", pid_of(ev->trace, ev->vpid), tid_of(ev->trace, ev->vpid, ev->vtid), ev->ts);
        name_cat(x, s->event, ev->cls->provider);
        fputs(",\"args\":{", x->rec);
        x->counter_open = 1;
    } else {
        putc_unlocked(',', x->rec);
    }
    pt_json_string(x->rec, s->field);
    putc_unlocked(':', x->rec);
    pt_put_double(x->rec, s->value);
}

/* ---- stacks: the window ----------------------------------------------------------------------------- */

/* 1 when the trace of the event declares Paleventing:Stack (its metadata lists every event class
 * of a trace on disk before any event). */
static int declares_stacks(const pt_event *ev)
{
    const bt_trace_class *tc = bt_stream_class_borrow_trace_class_const(
        bt_event_class_borrow_stream_class_const(bt_event_borrow_class_const(ev->bt)));
    for (uint64_t i = 0; i < bt_trace_class_get_stream_class_count(tc); i++) {
        const bt_stream_class *sc = bt_trace_class_borrow_stream_class_by_index_const(tc, i);
        for (uint64_t k = 0; k < bt_stream_class_get_event_class_count(sc); k++) {
            const char *name = bt_event_class_get_name(bt_stream_class_borrow_event_class_by_index_const(sc, k));
            if (name && strcmp(name, PCM_OWN_EVENT("Stack")) == 0)
                return 1;
        }
    }
    return 0;
}

/* Records wait in the window only when stacks may follow them: a trace without Stack events is
 * written straight out. */
static void choose_target(export *x, const pt_event *ev)
{
    if (x->rec == x->win || pt_map_get(&x->checked, ev->trace->index + 1))
        return;
    pt_map_put(&x->checked, ev->trace->index + 1, x);
    if (declares_stacks(ev))
        x->rec = x->win;
}

static uint64_t thread_key(const pt_event *ev)
{
    return (uint64_t)ev->trace->index << 32 | (uint32_t)(ev->vtid >= 0 ? ev->vtid : ev->vpid);
}

static pending *pending_of(export *x, uint64_t thread)
{
    uint64_t seq = (uint64_t)(uintptr_t)pt_map_get(&x->pend_by_thread, thread);
    return seq && seq - 1 >= x->pend_base ? &x->pend[seq - 1 - x->pend_base] : NULL;
}

/* The event's record waits for its stack; the thread's previous record waits no more (without
 * the vtid context, a process's threads are one: its records wait until the window passes). */
static void add_pending(export *x, const pt_event *ev)
{
    uint64_t thread = thread_key(ev);
    pending *old = ev->vtid >= 0 ? pending_of(x, thread) : NULL;
    if (old)
        old->open = 0;
    if (x->primary_at < 0)
        return;
    x->pend = pt_xgrow(x->pend, &x->cap_pend, x->npend + 1, sizeof(*x->pend));
    x->pend[x->npend++] = (pending){ thread, x->primary_at, ev->ts, ev->cls, 0, 1 };
    pt_map_put(&x->pend_by_thread, thread, (void *)(uintptr_t)(x->pend_base + x->npend));
}

/* The id of the stack's innermost frame in the tree, outermost frames first; lines[i] for
 * i < nl. */
static uint64_t frame_id(export *x, const pt_event *ev, const uint64_t *addrs, size_t n,
                         const uint64_t *lines, size_t nl)
{
    uint64_t process = pt_process_key(ev), epoch = pt_symbols_epoch(x->syms, process), parent = 0;
    for (size_t i = n; i-- > 0;) {
        uint32_t line = i < nl ? (uint32_t)lines[i] : 0;
        uint64_t key[5] = { parent, process, epoch, addrs[i], line };
        uint64_t id = (uint64_t)(uintptr_t)pt_map_get_bytes(&x->frame_ids, key, sizeof(key));
        if (!id) {
            x->frames = pt_xgrow(x->frames, &x->cap_frames, x->nframes + 1, sizeof(*x->frames));
            x->frames[x->nframes++] = (frame){ parent, process, addrs[i], ev->ts, line };
            id = x->nframes;
            pt_map_put_bytes(&x->frame_ids, key, sizeof(key), (void *)(uintptr_t)id);
        }
        parent = id;
    }
    return parent;
}

/* The latest record of the thread still waiting for a stack of that event. */
static pending *waiting_for(export *x, uint64_t thread, const char *provider, const char *event)
{
    for (size_t i = x->npend; i-- > 0 && x->last - x->pend[i].ts <= STACK_WINDOW_NS;) {
        pending *p = &x->pend[i];
        if (p->open && p->thread == thread && strcmp(p->cls->provider, provider) == 0 &&
            strcmp(p->cls->event, event) == 0)
            return p;
    }
    return NULL;
}

/* A Stack event: attached to the record of the event it names, on the same thread. */
static void on_stack(export *x, const pt_event *ev)
{
    const char *provider = pt_member_str(ev, "provider"), *event = pt_member_str(ev, "event");
    pending *p = provider && event ? waiting_for(x, thread_key(ev), provider, event) : NULL;
    uint64_t addrs[PT_STACK_MAX_FRAMES], lines[PT_STACK_MAX_FRAMES];
    if (!p) {
        x->stacks_lost++;
        return;
    }
    if (x->o->event && strcmp(x->o->event, p->cls->event) != 0 && strcmp(x->o->event, p->cls->name) != 0)
        return;     /* --event: another event's stack */
    size_t n = pt_member_u64_array(ev, "frames", addrs, PT_STACK_MAX_FRAMES);
    size_t nl = pt_member_u64_array(ev, "lines", lines, n);
    p->sf = n ? frame_id(x, ev, addrs, n, lines, nl) : 0;
    p->open = 0;
}

/* Writes out the window up to its first record still waiting for a stack (all of it at the end). */
static void flush_window(export *x, int all)
{
    size_t k = 0;
    for (size_t i = 0; i < x->npend; i++)
        if (x->pend[i].open && (all || x->last - x->pend[i].ts > STACK_WINDOW_NS))
            x->pend[i].open = 0;
    while (k < x->npend && !x->pend[k].open)
        k++;
    fflush(x->win);
    size_t len = (size_t)ftello(x->win), limit = k < x->npend ? (size_t)x->pend[k].at : len, from = 0;
    for (size_t i = 0; i < k; i++) {
        if (!x->pend[i].sf)
            continue;
        fwrite(x->win_buf + from, 1, (size_t)x->pend[i].at - from, x->out);
        fputs(",\"sf\":", x->out);
        pt_put_u64(x->out, x->pend[i].sf);
        from = (size_t)x->pend[i].at;
    }
    if (!len)
        return;     /* nothing written yet (the buffer may not even exist) */
    fwrite(x->win_buf + from, 1, limit - from, x->out);
    memmove(x->win_buf, x->win_buf + limit, len - limit);
    fseeko(x->win, (off_t)(len - limit), SEEK_SET);
    for (size_t i = k; i < x->npend; i++)
        x->pend[i].at -= (off_t)limit;
    if (k) {
        memmove(x->pend, x->pend + k, (x->npend - k) * sizeof(*x->pend));
        x->npend -= k;
        x->pend_base += k;
    }
}

static void write_frames(export *x)
{
    fputs(",\"stackFrames\":{", x->out);
    for (size_t i = 0; i < x->nframes; i++) {
        const frame *f = &x->frames[i];
        fprintf(x->out, "%s\n\"%zu\":{\"name\":", i ? "," : "", i + 1);
        pt_json_string(x->out, pt_symbols_frame_name(x->syms, f->process, f->addr, f->ts, f->line));
        fputs(",\"category\":\"stack\"", x->out);
        if (f->parent)
            fprintf(x->out, ",\"parent\":\"%llu\"", (unsigned long long)f->parent);
        putc_unlocked('}', x->out);
    }
    fputs("}", x->out);
}

/* ---- events ------------------------------------------------------------------------------------------ */

static void on_event(const pt_event *ev, void *data)
{
    export *x = data;
    if (!x->started) {
        x->t0 = ev->ts;
        x->started = 1;
    }
    x->last = ev->ts;
    pt_procs_event(&x->procs, ev);
    choose_target(x, ev);
    if (strcmp(ev->cls->name, PCM_OWN_EVENT("Stack")) == 0) {
        x->rec = x->win;    /* a live trace's metadata may grow: from now on, at least */
        on_stack(x, ev);
        return;
    }
    pt_symbols_event(x->syms, ev);
    name_thread(x, ev);
    x->primary_at = -1;
    if (ev->cls->role != PT_ROLE_NONE) {
        pt_pairer_event(&x->pairer, ev);
    } else {
        x->ev = ev;
        x->counter_open = 0;
        pt_counter_values(ev, counter_value, x);
        if (x->counter_open) {
            putc_unlocked('}', x->rec);                 /* the args */
            end_record(x, !ev->cls->is_eventsource);    /* an EventSource's own record: its instant */
        }
        if (!x->counter_open || ev->cls->is_eventsource)
            instant(x, ev, 0);
    }
    if (x->rec == x->win) {
        add_pending(x, ev);
        if ((++x->since_flush & 255) == 0 && (uint64_t)ftello(x->win) > FLUSH_BYTES)
            flush_window(x, 0);
    }
}

/* Starts without a Stop: their slices end with the trace, and say so. */
static void close_open(export *x)
{
    for (unsigned i = 0; i < x->pairer.nthreads; i++) {
        pt_thread *th = x->pairer.all[i];
        for (unsigned k = th->depth; k-- > 0;)
            slice(x, th, &th->stack[k], "E", x->last, NULL, "unmatched: no Stop in the trace, cut at its end");
    }
}

static int write_chrome(export *x)
{
    char when[64];
    pt_sink sink = { .event = on_event, .data = x };
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", x->out);
    int rc = pt_run(x->r, &sink);
    close_open(x);
    flush_window(x, 1);
    name_processes(x);
    fputs("\n]", x->out);
    if (x->nframes)
        write_frames(x);
    fprintf(x->out, ",\"otherData\":{\"generator\":\"palev-trace\",\"trace_start\":\"%s\",\"source\":",
            pt_fmt_time(x->t0, when, sizeof(when)));
    pt_json_string(x->out, x->o->in.paths[0]);
    fputs("}}\n", x->out);
    if (x->stacks_lost)
        fprintf(stderr, "palev-trace: warning: %llu Paleventing:Stack events did not follow the event they "
                "name on its thread: left out\n", (unsigned long long)x->stacks_lost);
    return rc;
}

/* *complete: the file holds what could be read (nothing read: it is not kept). */
static int export_chrome(const export_opts *o, pt_output *out, int *complete)
{
    export x = { .o = o, .out = out->f, .primary_at = -1 };
    pt_pair_ops ops = { .start = on_start, .stop = on_stop, .unmatched_stop = on_unmatched_stop, .data = &x };
    int rc = pt_open(&o->in, &x.r);
    if (rc)
        return rc;
    x.win = open_memstream(&x.win_buf, &x.win_size);
    if (!x.win) {
        fputs("palev-trace: error: out of memory\n", stderr);
        exit(PT_EXIT_DATA);
    }
    x.rec = x.out;
    x.syms = pt_symbols_new();
    pt_pairer_init(&x.pairer, NULL, &ops);
    rc = write_chrome(&x);
    *complete = pt_ran(x.r);
    rc = pt_ran(x.r) ? pt_verdict(x.r, rc) : rc;
    fclose(x.win);
    free(x.win_buf);
    pt_pairer_free(&x.pairer);
    pt_procs_free(&x.procs);
    pt_map_free(&x.named);
    pt_map_free(&x.frame_ids);
    pt_map_free(&x.pend_by_thread);
    pt_map_free(&x.checked);
    pt_symbols_free(x.syms);
    free(x.frames);
    free(x.pend);
    pt_close(x.r);
    return rc;
}

/* ---- speedscope -------------------------------------------------------------------------------------- */

typedef struct scope {
    FILE *out;
    pt_stacks *stacks;
    pt_cpu *cpu;                /* perf's samples beside the trace, or NULL */
    pt_map index;               /* frame name -> its index in shared.frames + 1 */
    const char **names;
    size_t nnames, cap;
    int profiles;               /* written so far */
    uint32_t *path;             /* scratch: a call path's names, root first */
} scope;

static void on_scope_event(const pt_event *ev, void *data)
{
    scope *sc = data;
    pt_stacks_event(sc->stacks, ev);
    if (sc->cpu)
        pt_cpu_event(sc->cpu, ev);
}

/* A frame's index in the shared table, the name added on first use. */
static size_t frame_index(scope *sc, const char *name)
{
    uintptr_t id = (uintptr_t)pt_map_get_str(&sc->index, name);
    if (!id) {
        sc->names = pt_xgrow(sc->names, &sc->cap, sc->nnames + 1, sizeof(*sc->names));
        sc->names[sc->nnames++] = name;
        id = sc->nnames;
        pt_map_put_str(&sc->index, name, (void *)id);
    }
    return (size_t)id - 1;
}

static void profile_head(scope *sc, const char *name, const char *unit)
{
    fputs(sc->profiles++ ? ",{\"type\":\"sampled\",\"name\":" : "{\"type\":\"sampled\",\"name\":", sc->out);
    pt_json_string(sc->out, name);
    fprintf(sc->out, ",\"unit\":\"%s\",\"startValue\":0,\"samples\":[", unit);
}

/* One sampled profile per event recorded with its stack, weighted by how often each was seen. */
static void stack_profiles(scope *sc)
{
    const pt_stacks *s = sc->stacks;
    for (size_t i = 0; i < pt_stacks_count(s);) {
        size_t n = pt_stacks_run(s, i);
        uint64_t total = 0;
        profile_head(sc, pt_stacks_at(s, i)->event, "none");
        for (size_t j = i; j < i + n; j++) {
            const pt_stack *st = pt_stacks_at(s, j);
            fputs(j > i ? ",[" : "[", sc->out);
            for (unsigned f = st->nframes; f > 0; f--)     /* speedscope: root first */
                fprintf(sc->out, "%s%zu", f < st->nframes ? "," : "", frame_index(sc, st->frames[f - 1]));
            putc_unlocked(']', sc->out);
            total += st->count;
        }
        fputs("],\"weights\":[", sc->out);
        for (size_t j = i; j < i + n; j++)
            fprintf(sc->out, "%s%llu", j > i ? "," : "", (unsigned long long)pt_stacks_at(s, j)->count);
        fprintf(sc->out, "],\"endValue\":%llu}", (unsigned long long)total);
        i += n;
    }
}

/* Every call path of a thread's subtree with a weight of its own: its frames root first (the
 * thread's own frame left out), then the weight; one pass writes the samples, one the weights. */
static void thread_paths(scope *sc, const pt_profile *p, uint32_t node, size_t depth, int weights, int *first)
{
    const pt_cnode *n = &p->nodes[node];
    if (n->self) {
        if (weights) {
            fprintf(sc->out, "%s%llu", *first ? "" : ",", (unsigned long long)n->self);
        } else {
            fputs(*first ? "[" : ",[", sc->out);
            for (size_t i = 0; i < depth; i++)
                fprintf(sc->out, "%s%zu", i ? "," : "", frame_index(sc, pt_cpu_name(sc->cpu, sc->path[i])));
            putc_unlocked(']', sc->out);
        }
        *first = 0;
    }
    for (uint32_t k = n->child; k; k = p->nodes[k].sibling)
        if (p->nodes[k].total && depth < PT_STACK_MAX_FRAMES) {
            sc->path[depth] = p->nodes[k].name;
            thread_paths(sc, p, k, depth + 1, weights, first);
        }
}

static int heaviest(const void *a, const void *b, void *arg)
{
    const pt_profile *p = arg;
    uint64_t x = p->nodes[*(const uint32_t *)a].total, y = p->nodes[*(const uint32_t *)b].total;
    return (x < y) - (x > y);
}

/* One sampled profile per thread, the busiest first: "CPU cpu_host-1234" in ns of CPU, and
 * with sched_switch recorded "blocked cpu_host-1234" in ns blocked. */
static void sample_profiles(scope *sc, int measure)
{
    const pt_profile *p = pt_cpu_profile(sc->cpu, measure);
    uint32_t *threads = NULL;
    size_t n = 0, cap = 0;
    for (uint32_t proc = p->nodes[0].child; proc; proc = p->nodes[proc].sibling)
        for (uint32_t t = p->nodes[proc].child; t; t = p->nodes[t].sibling)
            if (p->nodes[t].total) {
                threads = pt_xgrow(threads, &cap, n + 1, sizeof(*threads));
                threads[n++] = t;
            }
    if (n)
        qsort_r(threads, n, sizeof(*threads), heaviest, (void *)p);
    for (size_t i = 0; i < n; i++) {
        char *name = pt_xasprintf("%s %s", measure == PT_ON_CPU ? "CPU" : "blocked",
                                  pt_cpu_name(sc->cpu, p->nodes[threads[i]].name));
        int first = 1;
        profile_head(sc, name, pt_cpu_stats_of(sc->cpu)->period_ns || measure == PT_OFF_CPU ? "nanoseconds" : "none");
        thread_paths(sc, p, threads[i], 0, 0, &first);
        fputs("],\"weights\":[", sc->out);
        first = 1;
        thread_paths(sc, p, threads[i], 0, 1, &first);
        fprintf(sc->out, "],\"endValue\":%llu}", (unsigned long long)p->nodes[threads[i]].total);
        free(name);
    }
    free(threads);
}

static void write_speedscope(scope *sc, const char *name)
{
    fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"palev-trace\",\"name\":",
          sc->out);
    pt_json_string(sc->out, name);
    fputs(",\"activeProfileIndex\":0,\"profiles\":[", sc->out);
    if (sc->cpu) {
        sample_profiles(sc, PT_ON_CPU);
        sample_profiles(sc, PT_OFF_CPU);
    }
    stack_profiles(sc);
    fputs("],\"shared\":{\"frames\":[", sc->out);
    for (size_t i = 0; i < sc->nnames; i++) {
        fputs(i ? ",{\"name\":" : "{\"name\":", sc->out);
        pt_json_string(sc->out, sc->names[i]);
        putc_unlocked('}', sc->out);
    }
    fputs("]}}\n", sc->out);
}

static int export_speedscope(const export_opts *o, pt_output *out, int *complete)
{
    pt_cpu_opts co = { .by_thread = 1 };
    scope sc = { .out = out->f, .stacks = pt_stacks_new(o->event) };
    pt_reader *r = NULL;
    pt_sink sink = { .event = on_scope_event, .data = &sc };
    int rc = pt_open(&o->in, &r);
    if (!rc && pt_sample_trace_count(r))
        sc.cpu = pt_cpu_new(&co);
    if (!rc)
        rc = pt_run(r, &sink);
    if (pt_ran(r)) {
        pt_stacks_finish(sc.stacks);
        if (sc.cpu && pt_cpu_read(sc.cpu, r))
            rc = PT_EXIT_DATA;
        uint64_t samples = sc.cpu ? pt_cpu_profile(sc.cpu, PT_ON_CPU)->nodes[0].total +
                                    pt_cpu_profile(sc.cpu, PT_OFF_CPU)->nodes[0].total : 0;
        if (!pt_stacks_total(sc.stacks) && !samples) {
            pt_text t = { 0 };
            fprintf(stderr, "palev-trace: %s: no Paleventing:Stack event%s%s (record them with "
                    "`lttng enable-event -u Paleventing:Stack`) and no CPU samples (palev-collect --cpu)\n",
                    pt_term(&t, o->in.paths[0]), o->event ? " for " : "", o->event ? pt_term(&t, o->event) : "");
            pt_text_free(&t);
            rc = PT_EXIT_DATA;
        } else {
            sc.path = pt_xcalloc(PT_STACK_MAX_FRAMES, sizeof(*sc.path));
            write_speedscope(&sc, o->in.paths[0]);
            *complete = 1;
        }
        rc = pt_verdict(r, rc);
    }
    pt_stacks_free(sc.stacks);
    pt_cpu_free(sc.cpu);
    pt_map_free(&sc.index);
    free(sc.names);
    free(sc.path);
    pt_close(r);
    return rc;
}

/* ---- the command --------------------------------------------------------------------------------------- */

static int export_to(const pt_input *in)
{
    const export_opts *o = (const export_opts *)in;
    int complete = 0;
    pt_output out;
    if (pt_output_open(&out, o->output))
        return PT_EXIT_DATA;
    int rc = o->speedscope ? export_speedscope(o, &out, &complete) : export_chrome(o, &out, &complete);
    /* What could be read, losses said: the file holds it. Nothing read: an old file stays. */
    if (!complete)
        pt_output_abort(&out);
    else if (pt_output_commit(&out))
        rc = PT_EXIT_DATA;
    return rc;
}

static const pt_option options[] = {
    { .name = "output", .letter = 'o', .type = PT_OPT_STRING, .at = offsetof(export_opts, output), .arg = "FILE",
      .help = "where to write", .required = 1 },
    { .name = "format", .type = PT_OPT_CHOICE, .at = offsetof(export_opts, speedscope),
      .choices = "chrome|speedscope", .arg = "NAME", .help = "chrome (the default) or speedscope" },
    { .name = "event", .type = PT_OPT_STRING, .at = offsetof(export_opts, event), .arg = "NAME",
      .help = "only this event's stacks (\"provider:event\" or \"event\")" },
    PT_OPTIONS_END,
};

const pt_command pt_cmd_export = {
    .name = "export", .synopsis = "[--format chrome|speedscope] [--event NAME] -o FILE [options] TRACE...",
    .help = "Trace Event Format JSON (Perfetto, chrome://tracing, speedscope); or speedscope's profiles",
    .min_inputs = 1, .options = options, .size = sizeof(export_opts), .run = export_to,
};
