/* SPDX-License-Identifier: MIT */
/* palev-trace cpu: where the CPU time went (perf's samples beside the trace), the functions with
 * the most samples, self and total; --during/--outside TASK cut them by the task's activities,
 * --off-cpu measures where threads blocked instead, --folded prints every call path. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "cpu.h"

#define MAX_WHERE 16

typedef struct cpu_opts {
    pt_input in;
    const char *during, *outside, *by;
    const char **where;
    unsigned nwhere, top;
    int folded, off_cpu;
} cpu_opts;

typedef struct cpu_run {
    const cpu_opts *o;
    pt_cpu *cpu;
    int measure;
    const char *task;
} cpu_run;

static void on_event(const pt_event *ev, void *data)
{
    pt_cpu_event(data, ev);
}

/* ---- text ------------------------------------------------------------------------------------- */

/* A weight as text: a time, or samples when the period is not time (cycles). */
static const char *amount(const cpu_run *x, uint64_t w, char *buf, size_t size)
{
    const pt_cpu_stats *st = pt_cpu_stats_of(x->cpu);
    if (x->measure == PT_ON_CPU && !st->period_ns)
        snprintf(buf, size, "%" PRIu64, w);
    else
        pt_fmt_ns((double)w, buf, size);
    return buf;
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_functions(const cpu_run *x, const pt_profile *p, uint32_t node, uint64_t all)
{
    size_t n;
    pt_func *f = pt_cpu_functions(x->cpu, p, node, &n);
    pt_text t = { 0 };
    char a[32], b[32];
    printf("    self%%       self   total%%      total  function\n");
    for (size_t i = 0; i < n && i < x->o->top; i++)
        printf("  %5.1f%% %10s  %6.1f%% %10s  %s\n", pct(f[i].self, all), amount(x, f[i].self, a, sizeof(a)),
               pct(f[i].total, all), amount(x, f[i].total, b, sizeof(b)), pt_term(&t, pt_cpu_name(x->cpu, f[i].name)));
    if (n > x->o->top)
        printf("  (%zu more functions: --top N shows more)\n", n - x->o->top);
    if (!n)
        puts("  (no sample)");
    pt_text_free(&t);
    free(f);
}

/* "while Palev_Runtime:GC (Generation=1) was open in their process" */
static void print_cut(const cpu_run *x, uint64_t kept, uint64_t all, const char *unit)
{
    pt_text t = { 0 };
    if (!x->task)
        return;
    printf("kept: %" PRIu64 " %s (%.1f%%) taken while %s %s", kept, unit, pct(kept, all),
           x->o->outside ? "no activity of" : "an activity of", pt_term(&t, x->task));
    for (unsigned i = 0; i < x->o->nwhere; i++)
        printf("%s%s", i ? ", " : " with ", pt_term(&t, x->o->where[i]));
    puts(" was open in their process");
    pt_text_free(&t);
}

static void print_header(const cpu_run *x)
{
    const pt_cpu_stats *st = pt_cpu_stats_of(x->cpu);
    char a[32], b[32];
    if (x->measure == PT_ON_CPU) {
        printf("CPU samples: %" PRIu64 " of %u process%s, %u thread%s", st->samples[PT_ON_CPU], st->processes,
               st->processes == 1 ? "" : "es", st->threads, st->threads == 1 ? "" : "s");
        if (st->period_ns)
            printf(" (one every %s of CPU)", pt_fmt_ns((double)st->period, a, sizeof(a)));
        puts("");
        print_cut(x, st->kept[PT_ON_CPU], st->samples[PT_ON_CPU], "samples");
        printf("CPU time: %s\n", amount(x, st->weight[PT_ON_CPU], a, sizeof(a)));
    } else {
        printf("blocked: %s in %" PRIu64 " blocks (sched:sched_switch asleep, until perf next saw the thread) of "
               "%u process%s, %u thread%s\n", pt_fmt_ns((double)st->weight[PT_OFF_CPU], a, sizeof(a)),
               st->kept[PT_OFF_CPU], st->processes, st->processes == 1 ? "" : "es", st->threads,
               st->threads == 1 ? "" : "s");
        print_cut(x, st->kept[PT_OFF_CPU], st->kept[PT_OFF_CPU], "blocks");
        printf("runnable, waiting for a CPU (preempted or yielding): %s\n", pt_fmt_ns((double)st->runnable, b, sizeof(b)));
    }
}

static void print_text(const cpu_run *x)
{
    const pt_profile *p = pt_cpu_profile(x->cpu, x->measure);
    uint64_t all = p->nodes[0].total;
    pt_text t = { 0 };
    char a[32];
    print_header(x);
    if (!x->o->by) {
        puts("");
        print_functions(x, p, 0, all);
        return;
    }
    size_t np, nt;
    uint32_t *procs = pt_cpu_children(x->cpu, p, 0, &np);
    for (size_t i = 0; i < np; i++) {
        uint32_t *threads = pt_cpu_children(x->cpu, p, procs[i], &nt);
        for (size_t k = 0; k < nt; k++) {
            const pt_cnode *th = &p->nodes[threads[k]];
            if (!th->total)
                continue;
            printf("\nthread %s: %s (%.1f%%)\n", pt_term(&t, pt_cpu_name(x->cpu, th->name)),
                   amount(x, th->total, a, sizeof(a)), pct(th->total, all));
            print_functions(x, p, threads[k], all);
        }
        free(threads);
    }
    free(procs);
    pt_text_free(&t);
}

/* ---- folded ------------------------------------------------------------------------------------- */

/* A name in a folded line: ';' separates frames (a ';' in a name becomes ':'), and the count is
 * after the line's last space. */
static void put_folded(const char *name, pt_text *t)
{
    for (const char *c = pt_term(t, name); *c; c++)
        putchar(*c == ';' ? ':' : *c);
}

/* Every call path with samples of its own, root first: "proc;main;f;g COUNT" (CPU: samples;
 * blocked: microseconds). The tree's own root ("all") is left out. */
static void folded(const cpu_run *x, const pt_profile *p, uint32_t node, uint32_t *stack, size_t depth, pt_text *t)
{
    const pt_cnode *n = &p->nodes[node];
    uint64_t count = x->measure == PT_ON_CPU ? n->self_n : (n->self + 500) / 1000;
    if (node)
        stack[depth++] = node;
    if (node && n->self && count) {
        for (size_t i = 0; i < depth; i++) {
            if (i)
                putchar(';');
            put_folded(pt_cpu_name(x->cpu, p->nodes[stack[i]].name), t);
        }
        printf(" %" PRIu64 "\n", count);
        pt_text_free(t);
    }
    size_t nc;
    uint32_t *kids = pt_cpu_children(x->cpu, p, node, &nc);
    for (size_t i = 0; i < nc; i++)
        if (p->nodes[kids[i]].total)
            folded(x, p, kids[i], stack, depth, t);
    free(kids);
}

/* ---- the command ------------------------------------------------------------------------------ */

static int has_task(pt_reader *r, const char *task)
{
    for (unsigned i = 0; i < pt_task_count(r); i++)
        if (strcmp(pt_task_name(r, i), task) == 0)
            return 1;
    return 0;
}

static void say_no_task(pt_reader *r, const char *task)
{
    pt_text t = { 0 };
    fprintf(stderr, "palev-trace cpu: no activity of task %s in the trace", pt_term(&t, task));
    for (unsigned i = 0; i < pt_task_count(r); i++)
        fprintf(stderr, "%s%s", i ? ", " : " (its tasks: ", pt_term(&t, pt_task_name(r, i)));
    fputs(pt_task_count(r) ? ")\n" : " (it has none: palev-trace activities says why)\n", stderr);
    pt_text_free(&t);
}

/* What the samples cannot say, said once on stderr; 1 when the figures are incomplete. */
static int say_limits(const cpu_run *x)
{
    const pt_cpu_stats *st = pt_cpu_stats_of(x->cpu);
    if (st->lost)
        fprintf(stderr, "palev-trace: warning: perf lost %" PRIu64 " samples (its buffers were full): figures are "
                "lower bounds\n", st->lost);
    if (st->foreign)
        fprintf(stderr, "palev-trace: warning: %" PRIu64 " samples are of processes the LTTng trace does not hold: "
                "their frames are not named (perf and the program in other PID namespaces, or a child the "
                "session did not record)\n", st->foreign);
    if (!st->overlap)
        fprintf(stderr, "palev-trace: warning: no sample lies within the LTTng trace's time span: perf did not "
                "record on CLOCK_MONOTONIC (perf record -k CLOCK_MONOTONIC; palev-collect --cpu does), or "
                "the samples belong to another run\n");
    if (x->task && st->unmatched) {
        pt_text t = { 0 };
        fprintf(stderr, "palev-trace: warning: %" PRIu64 " activities of %s have no Stop in the trace: they are "
                "not counted as open\n", st->unmatched, pt_term(&t, x->task));
        pt_text_free(&t);
    }
    if (x->measure == PT_OFF_CPU && st->unresumed)
        fprintf(stderr, "palev-trace: note: %" PRIu64 " blocks were not over when the recording ended (or the thread "
                "exited): not counted\n", st->unresumed);
    return st->lost != 0;
}

static int no_samples(const cpu_run *x, pt_reader *r)
{
    const pt_cpu_stats *st = pt_cpu_stats_of(x->cpu);
    pt_text t = { 0 };
    int none = 0;
    if (!pt_sample_trace_count(r)) {
        fprintf(stderr, "palev-trace: %s: no CPU samples beside this trace (record them with palev-collect "
                "--cpu)\n", pt_term(&t, x->o->in.paths[0]));
        none = 1;
    } else if (x->measure == PT_OFF_CPU && !st->samples[PT_OFF_CPU]) {
        fprintf(stderr, "palev-trace: %s: no sched:sched_switch samples: where threads block was not recorded "
                "(record it with palev-collect --off-cpu)\n", pt_term(&t, pt_sample_trace_path(r, 0)));
        none = 1;
    } else if (!st->samples[x->measure] && x->o->in.pid) {
        fprintf(stderr, "palev-trace: %s: no CPU sample of process %u (--pid)\n", pt_term(&t, pt_sample_trace_path(r, 0)),
                x->o->in.pid);
        none = 1;
    } else if (!st->samples[x->measure]) {
        fprintf(stderr, "palev-trace: %s: no CPU sample in perf's trace\n", pt_term(&t, pt_sample_trace_path(r, 0)));
        none = 1;
    }
    pt_text_free(&t);
    return none;
}

static int cpu(const cpu_opts *o)
{
    cpu_run x = { .o = o, .measure = o->off_cpu ? PT_OFF_CPU : PT_ON_CPU, .task = o->during ? o->during : o->outside };
    pt_cpu_opts co = { .task = x.task, .outside = o->outside != NULL, .where = o->where, .nwhere = o->nwhere,
                       .by_thread = o->by != NULL };
    pt_sink sink = { .event = on_event };
    pt_reader *r = NULL;
    int rc = pt_open(&o->in, &r);
    if (rc)
        return rc;
    x.cpu = pt_cpu_new(&co);
    sink.data = x.cpu;
    if (!pt_sample_trace_count(r)) {
        no_samples(&x, r);
        rc = PT_EXIT_DATA;
        goto end;
    }
    rc = pt_run(r, &sink);
    if (!pt_ran(r))
        goto end;
    if (x.task && !has_task(r, x.task)) {
        say_no_task(r, x.task);
        rc = pt_verdict(r, PT_EXIT_DATA);
        goto end;
    }
    if (pt_cpu_read(x.cpu, r))
        rc = PT_EXIT_DATA;
    if (no_samples(&x, r)) {
        rc = pt_verdict(r, PT_EXIT_DATA);
        goto end;
    }
    if (say_limits(&x))
        rc = PT_EXIT_DATA;
    if (o->folded) {
        uint32_t *stack = pt_xcalloc(1100, sizeof(*stack));
        pt_text t = { 0 };
        folded(&x, pt_cpu_profile(x.cpu, x.measure), 0, stack, 0, &t);
        pt_text_free(&t);
        free(stack);
    } else {
        print_text(&x);
    }
    fflush(stdout);
    rc = pt_verdict(r, rc);
end:
    pt_cpu_free(x.cpu);
    pt_close(r);
    return rc;
}

static int check(const cpu_opts *o)
{
    if (o->during && o->outside)
        fputs("palev-trace cpu: --during and --outside cut by one task: give one of them\n", stderr);
    else if (o->by && strcmp(o->by, "thread") != 0)
        fprintf(stderr, "palev-trace cpu: --by takes \"thread\", not \"%s\"\n", o->by);
    else if (o->nwhere && !o->during && !o->outside)
        fputs("palev-trace cpu: --where filters the activities of --during or --outside TASK: give one\n", stderr);
    else if (o->nwhere > MAX_WHERE)
        fprintf(stderr, "palev-trace cpu: at most %d --where\n", MAX_WHERE);
    else {
        for (unsigned i = 0; i < o->nwhere; i++)
            if (!strchr(o->where[i], '=') || o->where[i][0] == '=') {
                fprintf(stderr, "palev-trace cpu: --where takes FIELD=VALUE, not \"%s\"\n", o->where[i]);
                return -1;
            }
        return 0;
    }
    return -1;
}

static int cpu_main(const pt_input *in)
{
    const cpu_opts *o = (const cpu_opts *)in;
    return check(o) ? PT_EXIT_USAGE : cpu(o);
}

static const pt_option options[] = {
    { .name = "during", .type = PT_OPT_STRING, .at = offsetof(cpu_opts, during), .arg = "TASK",
      .help = "only the samples taken while an activity of TASK (as activities names it: Provider:Task) was "
              "open in the sample's process" },
    { .name = "outside", .type = PT_OPT_STRING, .at = offsetof(cpu_opts, outside), .arg = "TASK",
      .help = "only the samples taken while none was" },
    { .name = "where", .type = PT_OPT_LIST, .at = offsetof(cpu_opts, where), .count_at = offsetof(cpu_opts, nwhere),
      .arg = "FIELD=VALUE",
      .help = "only TASK's activities whose Start (else Stop) event has FIELD=VALUE (repeatable: all must hold)" },
    { .name = "by", .type = PT_OPT_STRING, .at = offsetof(cpu_opts, by), .arg = "thread",
      .help = "the functions of each thread" },
    { .name = "top", .type = PT_OPT_COUNT, .at = offsetof(cpu_opts, top), .arg = "N",
      .help = "the N functions with the most self time (default 20)" },
    { .name = "folded", .type = PT_OPT_FLAG, .at = offsetof(cpu_opts, folded),
      .help = "every call path as \"process;...;leaf COUNT\" (flamegraph.pl, speedscope): samples, or "
              "microseconds blocked" },
    { .name = "off-cpu", .type = PT_OPT_FLAG, .at = offsetof(cpu_opts, off_cpu),
      .help = "where threads blocked (palev-collect --off-cpu), not where they ran" },
    PT_OPTIONS_END,
};

static const cpu_opts defaults = { .top = 20 };

const pt_command pt_cmd_cpu = {
    .name = "cpu",
    .synopsis = "[--during TASK | --outside TASK] [--where FIELD=VALUE]... [--by thread] [--top N] [--folded] "
                "[--off-cpu] [options] TRACE...",
    .help = "where the CPU time went (perf's samples, palev-collect --cpu): functions, self and total",
    .min_inputs = 1, .options = options, .size = sizeof(cpu_opts), .defaults = &defaults, .run = cpu_main,
};
