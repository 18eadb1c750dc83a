/* SPDX-License-Identifier: MIT */
/* palev-trace stacks: per event, its most frequent call stacks, every frame named, innermost
 * first; or, --folded, one "event;outermost;...;innermost COUNT" line per distinct stack
 * (flamegraph.pl, speedscope). */
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "stacks.h"

typedef struct stacks_opts {
    pt_input in;
    const char *event;
    int folded;
    unsigned top;
} stacks_opts;

static void print_text(const pt_stacks *s, unsigned top)
{
    pt_text t = { 0 };
    for (size_t i = 0; i < pt_stacks_count(s);) {
        size_t n = pt_stacks_run(s, i);
        uint64_t total = 0;
        for (size_t j = i; j < i + n; j++)
            total += pt_stacks_at(s, j)->count;
        printf("%s%s: %llu stack%s, %zu distinct\n", i ? "\n" : "", pt_term(&t, pt_stacks_at(s, i)->event),
               (unsigned long long)total, total == 1 ? "" : "s", n);
        for (size_t j = i; j < i + n && j - i < top; j++) {
            const pt_stack *st = pt_stacks_at(s, j);
            printf("  #%zu  %llu (%.1f%%)\n", j - i + 1, (unsigned long long)st->count,
                   100.0 * (double)st->count / (double)total);
            for (unsigned f = 0; f < st->nframes; f++)
                printf("      %s\n", pt_term(&t, st->frames[f]));
            if (st->nframes == 0)
                puts("      (no frame)");
        }
        i += n;
        pt_text_free(&t);
    }
}

/* A name in a folded line: ';' separates frames, so a ';' in a name (none in C symbols) becomes
 * ':'; the count is after the line's last space. */
static void put_folded(const char *name, pt_text *t)
{
    for (const char *c = pt_term(t, name); *c; c++)
        putchar(*c == ';' ? ':' : *c);
}

static void print_folded(const pt_stacks *s)
{
    pt_text t = { 0 };
    for (size_t i = 0; i < pt_stacks_count(s); i++) {
        const pt_stack *st = pt_stacks_at(s, i);
        put_folded(st->event, &t);
        for (unsigned f = st->nframes; f > 0; f--) {
            putchar(';');
            put_folded(st->frames[f - 1], &t);
        }
        printf(" %llu\n", (unsigned long long)st->count);
        pt_text_free(&t);
    }
}

typedef struct stacks_run {
    const stacks_opts *o;
    pt_stacks *s;
} stacks_run;

static void on_event(const pt_event *ev, void *data)
{
    pt_stacks_event(((stacks_run *)data)->s, ev);
}

static int print_all(pt_reader *r, void *data)
{
    const stacks_run *run = data;
    (void)r;
    pt_stacks_finish(run->s);
    if (!pt_stacks_total(run->s)) {
        const stacks_opts *o = run->o;
        pt_text t = { 0 };
        fprintf(stderr, "palev-trace: %s: no Paleventing:Stack event%s%s (record them with "
                "`lttng enable-event -u Paleventing:Stack`)\n", pt_term(&t, o->in.paths[0]),
                o->event ? " for " : "", o->event ? pt_term(&t, o->event) : "");
        pt_text_free(&t);
        return PT_EXIT_DATA;
    }
    if (run->o->folded)
        print_folded(run->s);
    else
        print_text(run->s, run->o->top);
    return 0;
}

static int stacks(const pt_input *in)
{
    const stacks_opts *o = (const stacks_opts *)in;
    stacks_run run = { .o = o, .s = pt_stacks_new(o->event) };
    pt_sink sink = { .event = on_event, .data = &run };
    int rc = pt_read_print(in, &sink, print_all);
    pt_stacks_free(run.s);
    return rc;
}

static const pt_option options[] = {
    { .name = "event", .type = PT_OPT_STRING, .at = offsetof(stacks_opts, event), .arg = "NAME",
      .help = "only this event's stacks (\"provider:event\" or \"event\")" },
    { .name = "folded", .type = PT_OPT_FLAG, .at = offsetof(stacks_opts, folded),
      .help = "folded lines (flamegraph.pl, speedscope), every stack" },
    { .name = "top", .type = PT_OPT_COUNT, .at = offsetof(stacks_opts, top), .arg = "N",
      .help = "the N most frequent stacks of each event (default 10)" },
    PT_OPTIONS_END,
};

static const stacks_opts defaults = { .top = 10 };

const pt_command pt_cmd_stacks = {
    .name = "stacks", .synopsis = "[--event NAME] [--folded] [--top N] [options] TRACE...",
    .help = "the most frequent call stacks of each event, every frame named (Paleventing:Stack)",
    .min_inputs = 1, .options = options, .size = sizeof(stacks_opts), .defaults = &defaults, .run = stacks,
};
