/* SPDX-License-Identifier: MIT */
/* palev-trace status: per process, the events it recorded; per process and provider, what
 * Paleventing:ProviderStatus said of it (loaded or not, and why) and the events recorded.
 * palev-collect words its check after a run from the tsv form. */
#include <stdlib.h>
#include <string.h>

#include "command.h"

#define MAX_ROWS 100000         /* (process, provider) pairs kept: memory stays bounded */

enum status { ST_NONE, ST_LOADED, ST_NOT_LOADED };
static const char *const status_name[] = { "none", "loaded", "not-loaded" };

typedef struct prov_row {
    char *provider;
    enum status status;
    char *reason;               /* ProviderStatus's reason, or NULL */
    uint64_t events;
    struct prov_row *next;      /* the process's providers, in order of first appearance */
} prov_row;

typedef struct proc_row {
    const pt_trace *trace;
    int64_t vpid;
    char *procname;             /* the main thread's, else the first seen */
    int main_name;              /* procname is the main thread's */
    uint64_t events;
    prov_row *providers, **last;
} proc_row;

typedef struct status_state {
    pt_map procs;               /* (trace, vpid) -> proc_row */
    proc_row **list;
    unsigned n;
    unsigned rows;
    uint64_t dropped;           /* events of pairs beyond MAX_ROWS */
    int tsv;
} status_state;

static proc_row *process_of(status_state *s, const pt_event *ev)
{
    uint64_t key = ((uint64_t)ev->trace->index << 40) ^ (uint64_t)ev->vpid;
    proc_row *p = pt_map_get(&s->procs, key);
    if (p)
        return p;
    if (s->rows >= MAX_ROWS)
        return NULL;
    p = pt_xcalloc(1, sizeof(*p));
    p->trace = ev->trace;
    p->vpid = ev->vpid;
    p->last = &p->providers;
    pt_map_put(&s->procs, key, p);
    PT_APPEND(s->list, s->n, p);
    s->rows++;
    return p;
}

static prov_row *provider_of(status_state *s, proc_row *p, const char *provider)
{
    for (prov_row *r = p->providers; r; r = r->next)
        if (strcmp(r->provider, provider) == 0)
            return r;
    if (s->rows >= MAX_ROWS)
        return NULL;
    prov_row *r = pt_xcalloc(1, sizeof(*r));
    r->provider = pt_xstrdup(provider);
    *p->last = r;
    p->last = &r->next;
    s->rows++;
    return r;
}

static char *member_string(const pt_event *ev, const char *name)
{
    pt_value v;
    char buf[64];
    return pt_field_value(pt_member(ev, name), &v) == 0 ? pt_xstrdup(pt_value_text(&v, buf, sizeof(buf)))
                                                        : pt_xstrdup("?");
}

/* { provider, loaded (an enum: "true"/"false"), reason }: the first one of a provider counts. */
static void provider_status(status_state *s, proc_row *p, const pt_event *ev)
{
    char *provider = member_string(ev, "provider");
    prov_row *r = provider_of(s, p, provider);
    pt_value v;
    free(provider);
    if (!r || r->status != ST_NONE)
        return;
    int loaded = pt_field_value(pt_member(ev, "loaded"), &v) == 0 &&
                 (v.is_enum && v.s ? strcmp(v.s, "true") == 0 : (v.kind == PT_V_SINT ? v.i != 0 : v.u != 0));
    r->status = loaded ? ST_LOADED : ST_NOT_LOADED;
    r->reason = member_string(ev, "reason");
}

static void on_event(const pt_event *ev, void *data)
{
    status_state *s = data;
    proc_row *p = process_of(s, ev);
    if (!p) {
        s->dropped++;
        return;
    }
    p->events++;
    if (ev->procname && (!p->procname || (!p->main_name && ev->vtid == ev->vpid))) {
        free(p->procname);
        p->procname = pt_xstrdup(ev->procname);
        p->main_name = ev->vtid == ev->vpid;
    }
    prov_row *r = provider_of(s, p, ev->cls->provider);
    if (r)
        r->events++;
    else
        s->dropped++;
    if (strcmp(ev->cls->name, PCM_OWN_EVENT("ProviderStatus")) == 0)
        provider_status(s, p, ev);
}

/* ---- printing ------------------------------------------------------------------------------- */

/* A trace string as one field: escaped by pt_term() (no tab or line break survives, so it is
 * also one tsv column); NULL is "-". Returns the characters written. */
static size_t put_field(pt_text *t, const char *str)
{
    return (size_t)printf("%s", str ? pt_term(t, str) : "-");
}

static void put_vpid(const proc_row *p)
{
    if (p->vpid < 0)
        fputs("-", stdout);
    else
        printf("%lld", (long long)p->vpid);
}

/* A tsv row's kind and its process's columns: "KIND\thost\tpid\tprocname". */
static void put_tsv_process(pt_text *t, const char *kind, const proc_row *p)
{
    printf("%s\t", kind);
    put_field(t, p->trace->hostname);
    putchar('\t');
    put_vpid(p);
    putchar('\t');
    put_field(t, p->procname);
}

static void print_tsv(const status_state *s)
{
    pt_text t = { 0 };
    puts("kind\thost\tpid\tprocname\tprovider\tstatus\tevents\treason");
    for (unsigned i = 0; i < s->n; i++) {
        const proc_row *p = s->list[i];
        put_tsv_process(&t, "process", p);
        printf("\t-\t-\t%llu\t-\n", (unsigned long long)p->events);
        for (const prov_row *r = p->providers; r; r = r->next) {
            put_tsv_process(&t, "provider", p);
            putchar('\t');
            put_field(&t, r->provider);
            printf("\t%s\t%llu\t", status_name[r->status], (unsigned long long)r->events);
            put_field(&t, r->reason);
            putchar('\n');
        }
    }
    pt_text_free(&t);
}

static void print_text(const status_state *s)
{
    pt_text t = { 0 };
    for (unsigned i = 0; i < s->n; i++) {
        const proc_row *p = s->list[i];
        fputs(i ? "\n" : "", stdout);
        put_field(&t, p->procname);
        fputs(" (pid ", stdout);
        put_vpid(p);
        fputs(", host ", stdout);
        put_field(&t, p->trace->hostname);
        printf("): %llu events\n", (unsigned long long)p->events);
        for (const prov_row *r = p->providers; r; r = r->next) {
            fputs("  ", stdout);
            size_t width = put_field(&t, r->provider);
            printf("%*s %-10s %10llu events", width < 24 ? (int)(24 - width) : 0, "",
                   r->status == ST_NONE ? "-" : status_name[r->status], (unsigned long long)r->events);
            if (r->reason && *r->reason) {
                fputs("  ", stdout);
                put_field(&t, r->reason);
            }
            putchar('\n');
        }
    }
    if (!s->n)
        puts("no process recorded an event");
    else
        puts("\n(status: what Paleventing:ProviderStatus said; -: the process recorded none for it)");
    pt_text_free(&t);
}

static void free_state(status_state *s)
{
    for (unsigned i = 0; i < s->n; i++) {
        for (prov_row *r = s->list[i]->providers, *next; r; r = next) {
            next = r->next;
            free(r->provider);
            free(r->reason);
            free(r);
        }
        free(s->list[i]->procname);
        free(s->list[i]);
    }
    free(s->list);
    pt_map_free(&s->procs);
}

typedef struct status_opts {
    pt_input in;
    unsigned tsv;               /* --format text|tsv: the choice's index, 1 for tsv */
} status_opts;

static int print_all(pt_reader *r, void *data)
{
    const status_state *s = data;
    (void)r;
    if (s->tsv)
        print_tsv(s);
    else
        print_text(s);
    if (s->dropped) {
        fflush(stdout);     /* the warning after the table, where both go to one file */
        fprintf(stderr, "palev-trace status: warning: %llu events of processes and providers beyond "
                "the first %d rows not counted\n", (unsigned long long)s->dropped, MAX_ROWS);
    }
    return 0;
}

static int status(const pt_input *in)
{
    status_state s = { .tsv = (int)((const status_opts *)in)->tsv };
    pt_sink sink = { .event = on_event, .data = &s };
    int rc = pt_read_print(in, &sink, print_all);
    free_state(&s);
    return rc;
}

static const pt_option options[] = {
    { .name = "format", .type = PT_OPT_CHOICE, .at = offsetof(status_opts, tsv), .choices = "text|tsv",
      .arg = "text|tsv", .help = "tsv: one row per process and per (process, provider), for scripts "
                                 "(palev-collect reads it)" },
    PT_OPTIONS_END,
};

const pt_command pt_cmd_status = {
    .name = "status", .synopsis = "[--format text|tsv] [options] TRACE...",
    .help = "per process: events recorded, and what became of each provider (ProviderStatus)",
    .min_inputs = 1, .options = options, .size = sizeof(status_opts), .run = status,
};
