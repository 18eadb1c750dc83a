/* SPDX-License-Identifier: MIT */
/* palev-trace export --format chrome: the Trace Event Format (Perfetto UI, chrome://tracing,
 * speedscope), written as the trace is read. A track per process and thread; activities as B/E
 * slices; other events as instants with every field in args; counters as C events. */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "counters.h"
#include "stats.h"

typedef struct export {
    FILE *out;
    pt_reader *r;
    pt_pairer pairer;
    pt_map named;               /* pids and tids already named by M events */
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
    fputs(x->written++ ? ",\n{\"ph\":\"" : "\n{\"ph\":\"", x->out);
    fputs(ph, x->out);
    fputs("\",\"pid\":", x->out);
    pt_put_i64(x->out, pid);
    fputs(",\"tid\":", x->out);
    pt_put_i64(x->out, tid);
    fputs(",\"ts\":", x->out);
    pt_put_i64(x->out, rel / 1000);
    putc_unlocked('.', x->out);
    fputs(frac, x->out);
}

static void name_tracks(export *x, const pt_event *ev)
{
    int64_t pid = pid_of(ev->trace, ev->vpid), tid = tid_of(ev->trace, ev->vpid, ev->vtid);
    char name[128];
    if (!pt_map_get(&x->named, (uint64_t)pid << 1)) {
        pt_map_put(&x->named, (uint64_t)pid << 1, x);
        snprintf(name, sizeof(name), "%s %lld (%s)", ev->procname ? ev->procname : "process",
                 (long long)ev->vpid, ev->trace->hostname);
        fprintf(x->out, "%s\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%lld,\"tid\":%lld,\"args\":{\"name\":",
                x->written++ ? "," : "", (long long)pid, (long long)tid);
        pt_json_string(x->out, name);
        fputs("}}", x->out);
    }
    if (!pt_map_get(&x->named, ((uint64_t)tid << 1) | 1)) {
        pt_map_put(&x->named, ((uint64_t)tid << 1) | 1, x);
        snprintf(name, sizeof(name), "%s %lld", ev->procname ? ev->procname : "thread",
                 (long long)(ev->vtid < 0 ? ev->vpid : ev->vtid));
        fprintf(x->out, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%lld,\"tid\":%lld,\"args\":{\"name\":",
                (long long)pid, (long long)tid);
        pt_json_string(x->out, name);
        fputs("}}", x->out);
    }
}

static void name_cat(export *x, const char *name, const char *cat)
{
    fputs(",\"name\":", x->out);
    pt_json_string(x->out, name);
    fputs(",\"cat\":", x->out);
    pt_json_string(x->out, cat);
}

/* An activity slice's name: the task without its provider ("GC"). */
static const char *task_short(export *x, unsigned task)
{
    const char *t = pt_task_name(x->r, task), *colon = strchr(t, ':');
    return colon ? colon + 1 : t;
}

static void slice(export *x, const pt_thread *th, const pt_frame *f, const char *ph, int64_t ts,
                  const pt_event *ev, const char *note)
{
    begin_record(x, ph, pid_of(th->trace, th->vpid), tid_of(th->trace, th->vpid, th->vtid), ts);
    const char *t = pt_task_name(x->r, f->task), *colon = strchr(t, ':');
    char provider[256];
    snprintf(provider, sizeof(provider), "%.*s", colon ? (int)(colon - t) : 0, t);
    name_cat(x, task_short(x, f->task), provider);
    fputs(",\"args\":", x->out);
    if (ev) {
        pt_field_json(x->out, pt_payload(ev));
    } else {
        fputs("{\"note\":", x->out);
        pt_json_string(x->out, note);
        putc_unlocked('}', x->out);
    }
    putc_unlocked('}', x->out);
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
    fputs(",\"s\":\"t\",\"args\":", x->out);
    const bt_field *p = pt_payload(ev);
    if (unmatched) {
        fputs("{\"unmatched\":\"a Stop without its Start\",\"fields\":", x->out);
        pt_field_json(x->out, p);
        putc_unlocked('}', x->out);
    } else if (p) {
        pt_field_json(x->out, p);
    } else {
        fputs("{}", x->out);
    }
    putc_unlocked('}', x->out);
}

static void on_unmatched_stop(const pt_event *ev, void *data)
{
    instant(data, ev, 1);
}

static void counter_value(const char *series, const char *event, const char *field, double v, void *data)
{
    export *x = data;
    const pt_event *ev = x->ev;
    (void)series;
    if (!x->counter_open) {
        begin_record(x, "C", pid_of(ev->trace, ev->vpid), tid_of(ev->trace, ev->vpid, ev->vtid), ev->ts);
        name_cat(x, event, ev->cls->provider);
        fputs(",\"args\":{", x->out);
        x->counter_open = 1;
    } else {
        putc_unlocked(',', x->out);
    }
    pt_json_string(x->out, field);
    putc_unlocked(':', x->out);
    pt_put_double(x->out, v);
}

static void on_event(const pt_event *ev, void *data)
{
    export *x = data;
    if (!x->started) {
        x->t0 = ev->ts;
        x->started = 1;
    }
    x->last = ev->ts;
    name_tracks(x, ev);
    if (ev->cls->role != PT_ROLE_NONE) {
        pt_pairer_event(&x->pairer, ev);
        return;
    }
    x->ev = ev;
    x->counter_open = 0;
    pt_counter_values(ev, counter_value, x);
    if (x->counter_open)
        fputs("}}", x->out);
    if (!x->counter_open || ev->cls->is_eventsource)
        instant(x, ev, 0);
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

static int write_export(export *x, const pt_opts *o)
{
    char when[64];
    pt_sink sink = { .event = on_event, .data = x };
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", x->out);
    int rc = pt_run(x->r, &sink);
    close_open(x);
    fprintf(x->out, "\n],\"otherData\":{\"generator\":\"palev-trace\",\"trace_start\":\"%s\",\"source\":",
            pt_fmt_time(x->t0, when, sizeof(when)));
    pt_json_string(x->out, o->in.paths[0]);
    fputs("}}\n", x->out);
    return rc;
}

static int run(const pt_opts *o)
{
    export x = { 0 };
    pt_pair_ops ops = { .start = on_start, .stop = on_stop, .unmatched_stop = on_unmatched_stop, .data = &x };
    if (o->format && strcmp(o->format, "speedscope") == 0)
        return pt_export_speedscope(o);
    if (o->format && strcmp(o->format, "chrome") != 0) {
        fprintf(stderr, "palev-trace export: --format chrome is the one format, not \"%s\"\n", o->format);
        return PT_EXIT_USAGE;
    }
    int rc = pt_open(&o->in, &x.r);
    if (rc)
        return rc;
    if (!(x.out = fopen(o->output, "w"))) {
        perror(o->output);
        pt_close(x.r);
        return PT_EXIT_DATA;
    }
    setvbuf(x.out, NULL, _IOFBF, 1 << 20);
    pt_pairer_init(&x.pairer, NULL, &ops);
    rc = write_export(&x, o);
    if (fclose(x.out) != 0) {
        perror(o->output);
        rc = PT_EXIT_DATA;
    }
    rc = pt_ran(x.r) ? pt_verdict(x.r, rc) : rc;
    pt_pairer_free(&x.pairer);
    pt_map_free(&x.named);
    pt_close(x.r);
    return rc;
}

const pt_command pt_cmd_export = {
    .name = "export", .args = "[--format chrome|speedscope] -o FILE [options] TRACE...",
    .help = "Trace Event Format JSON for Perfetto, chrome://tracing, speedscope; or the stacks as "
            "speedscope's own format",
    .options = PT_OPT_OUTPUT | PT_OPT_FORMAT | PT_OPT_EVENT, .min_inputs = 1, .run = run,
};
