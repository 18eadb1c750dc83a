/* SPDX-License-Identifier: MIT */
/* perf's samples joined to the LTTng trace: processes and threads by pid, times by raw
 * CLOCK_MONOTONIC, each (process, code epoch, address) named once, activities kept as merged
 * intervals per process, samples aggregated into call trees of interned names. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "symbols.h"

#define MAX_FRAMES 1024
#define NAME_LEN 64
#define MAX_WHERE 16
#define FOREIGN_KEY UINT64_MAX  /* the symbols key of a process the LTTng trace lacks: no names */

/* sched_switch's prev_state: EXIT_DEAD and EXIT_ZOMBIE never run again. */
#define STATE_DEAD 0x30

/* Intervals [start, end) in LTTng's time: appended in pass 1, sorted and merged before pass 2. */
typedef struct span {
    int64_t start, end;
} span;

typedef struct spans {
    span *v;
    size_t n, cap, cursor;      /* cursor: the first interval not ended at the last time asked */
} spans;

/* A named address in one code epoch of its process. key 0: a free slot. */
typedef struct fslot {
    uint64_t key;               /* address * 2 + (it is a return address), + 1 */
    uint32_t epoch, name;
} fslot;

typedef struct cthread {
    int64_t pid, tid;
    char name[NAME_LEN];
    uint32_t frame;             /* its frame's name + 1, 0 until asked */
    int sampled;
    int pending;                /* a switch not yet followed by anything: 0, BLOCKED, RUNNABLE */
    int64_t out;                /* when it left its CPU */
    uint32_t leaf;              /* BLOCKED: its stack's node in the off-CPU tree */
    uint32_t *last;             /* its last CPU sample's path in the CPU tree: names, then nodes */
    size_t nlast;
} cthread;
enum { BLOCKED = 1, RUNNABLE = 2 };

typedef struct cproc {
    int64_t pid;
    int lttng;                  /* the LTTng trace holds this process */
    uint64_t key;               /* pt_process_key() of its events: the symbols' key */
    int64_t offset;             /* its LTTng trace's clock offset */
    char name[NAME_LEN];        /* its main thread's name */
    uint32_t frame;             /* its frame's name + 1, 0 until asked */
    int sampled;
    int64_t *code;              /* when its code changed (CodeLoad, CodeUnload): epochs */
    size_t ncode, cap_code, epoch;
    fslot *cache;               /* frame names, open addressing, a power of two */
    size_t ncache, cap_cache;
    spans cut;                  /* the activities of the cut's task that pass the filters */
    spans *tasks;               /* per task (per_task) */
    unsigned ntasks;
} cproc;

/* An interval whose CPU is counted (pt_cpu_watch). */
typedef struct watch {
    int64_t pid, start, end;
    uint64_t weight, samples;
} watch;

struct pt_cpu {
    pt_cpu_opts o;
    watch *watches;
    size_t nwatches, cap_watches;
    unsigned *by_start;         /* watches by start time: the next to begin is by_start[next] */
    size_t next;
    unsigned *active;           /* begun, not known to be over */
    size_t nactive;
    char *field[MAX_WHERE], *value[MAX_WHERE];
    pt_symbols *syms;
    pt_pairer pairer;
    unsigned cut_task;          /* the cut's task index + 1, once seen */
    pt_map procs;               /* pid -> cproc */
    cproc **plist;
    size_t nprocs, cap_procs;
    pt_map threads;             /* pid << 32 | tid -> cthread */
    cthread **tlist;
    size_t nthreads, cap_threads;
    char **names;
    pt_frame_kind *kinds;
    size_t nnames, cap_names;
    pt_map name_ids;            /* name -> id + 1 */
    uint32_t root, kernel, unknown;
    pt_profile prof[2];
    pt_cpu_task *tasks;
    unsigned ntasks;
    pt_cpu_stats st;
    cproc *last_proc;                       /* the process asked for last */
    cthread *last_thread;                   /* the thread asked for last */
    int64_t default_offset, first, last;    /* the LTTng trace's offset and span */
    uint32_t frames[MAX_FRAMES + 3];        /* scratch: one sample's names */
};

/* ---- names -------------------------------------------------------------------------------- */

static uint32_t intern(pt_cpu *c, const char *name, pt_frame_kind kind)
{
    uintptr_t id = (uintptr_t)pt_map_get_str(&c->name_ids, name);
    if (id)
        return (uint32_t)(id - 1);
    c->names = pt_xgrow(c->names, &c->cap_names, c->nnames + 1, sizeof(*c->names));
    c->kinds = pt_xrealloc(c->kinds, c->cap_names * sizeof(*c->kinds));
    c->names[c->nnames] = pt_xstrdup(name);
    c->kinds[c->nnames] = kind;
    pt_map_put_str(&c->name_ids, name, (void *)(uintptr_t)(c->nnames + 1));
    return (uint32_t)c->nnames++;
}

const char *pt_cpu_name(const pt_cpu *c, uint32_t name)
{
    return c->names[name];
}

pt_frame_kind pt_cpu_kind(const pt_cpu *c, uint32_t name)
{
    return c->kinds[name];
}

/* ---- trees -------------------------------------------------------------------------------- */

static void profile_init(pt_profile *p, uint32_t root)
{
    memset(p, 0, sizeof(*p));
    p->nodes = pt_xgrow(NULL, &p->cap, 1, sizeof(*p->nodes));
    p->nodes[0] = (pt_cnode){ .name = root };
    p->n = 1;
}

static void profile_free(pt_profile *p)
{
    free(p->nodes);
    pt_map_free(&p->index);
}

#define FEW_CHILDREN 12    /* found by walking the siblings; more, through the index */

static void index_child(pt_profile *p, uint32_t node)
{
    pt_map_put(&p->index, (uint64_t)p->nodes[node].parent << 32 | p->nodes[node].name, (void *)(uintptr_t)(node + 1));
}

/* The parent's callee of that name, made if new. Most nodes have a few callees: a walk of the
 * siblings (nodes close in memory) beats a hash lookup in a table as large as the tree. */
static uint32_t child(pt_profile *p, uint32_t parent, uint32_t name)
{
    if (p->nodes[parent].nchild > FEW_CHILDREN) {
        uintptr_t i = (uintptr_t)pt_map_get(&p->index, (uint64_t)parent << 32 | name);
        if (i)
            return (uint32_t)(i - 1);
    } else {
        for (uint32_t k = p->nodes[parent].child; k; k = p->nodes[k].sibling)
            if (p->nodes[k].name == name)
                return k;
    }
    p->nodes = pt_xgrow(p->nodes, &p->cap, p->n + 1, sizeof(*p->nodes));
    uint32_t n = (uint32_t)p->n++;
    p->nodes[n] = (pt_cnode){ .parent = parent, .name = name, .sibling = p->nodes[parent].child };
    p->nodes[parent].child = n;
    if (++p->nodes[parent].nchild == FEW_CHILDREN + 1) {    /* from now on through the index */
        for (uint32_t k = p->nodes[parent].child; k; k = p->nodes[k].sibling)
            index_child(p, k);
    } else if (p->nodes[parent].nchild > FEW_CHILDREN) {
        index_child(p, n);
    }
    return n;
}

/* The node of a call path (names outermost first), made if new. */
static uint32_t path(pt_profile *p, const uint32_t *names, size_t n)
{
    uint32_t node = 0;
    for (size_t i = 0; i < n; i++)
        node = child(p, node, names[i]);
    return node;
}

/* path() for a thread's next CPU sample: the part of its path the thread's last sample shared is
 * not looked up again (consecutive samples of a thread mostly differ near the leaf). */
static uint32_t thread_path(pt_profile *p, cthread *th, const uint32_t *names, size_t n)
{
    size_t same = 0;
    uint32_t node = 0;
    if (!th->last)
        th->last = pt_xcalloc(2 * (MAX_FRAMES + 3), sizeof(*th->last));
    while (same < n && same < th->nlast && th->last[same] == names[same])
        same++;
    if (same)
        node = th->last[MAX_FRAMES + 3 + same - 1];
    for (size_t i = same; i < n; i++) {
        node = child(p, node, names[i]);
        th->last[i] = names[i];
        th->last[MAX_FRAMES + 3 + i] = node;
    }
    th->nlast = n;
    return node;
}

/* w more for the path ending at leaf: its self (totals are summed once, by totals()). */
static void credit(pt_profile *p, uint32_t leaf, uint64_t w)
{
    p->nodes[leaf].self += w;
    p->nodes[leaf].self_n++;
}

/* Each node's total: its self and its callees' totals. A node is made after its parent, so
 * going down the indexes sums every callee before its caller. */
static void totals(pt_profile *p)
{
    for (size_t i = 0; i < p->n; i++) {
        p->nodes[i].total = p->nodes[i].self;
        p->nodes[i].total_n = p->nodes[i].self_n;
    }
    for (size_t i = p->n; i-- > 1;) {
        p->nodes[p->nodes[i].parent].total += p->nodes[i].total;
        p->nodes[p->nodes[i].parent].total_n += p->nodes[i].total_n;
    }
}

/* The names of the path from the root to leaf, outermost first, into c->frames; how many. */
static size_t names_of(pt_cpu *c, const pt_profile *p, uint32_t leaf)
{
    size_t n = 0;
    for (uint32_t x = leaf; x && n < MAX_FRAMES + 3; x = p->nodes[x].parent)
        c->frames[n++] = p->nodes[x].name;
    for (size_t i = 0; i < n / 2; i++) {
        uint32_t t = c->frames[i];
        c->frames[i] = c->frames[n - 1 - i];
        c->frames[n - 1 - i] = t;
    }
    return n;
}

typedef struct sorting {
    const pt_cpu *c;
    const pt_profile *p;
} sorting;

static int by_name(const void *a, const void *b, void *arg)
{
    const sorting *s = arg;
    return strcmp(s->c->names[s->p->nodes[*(const uint32_t *)a].name], s->c->names[s->p->nodes[*(const uint32_t *)b].name]);
}

uint32_t *pt_cpu_children(const pt_cpu *c, const pt_profile *p, uint32_t node, size_t *n)
{
    size_t k = 0;
    for (uint32_t x = p->nodes[node].child; x; x = p->nodes[x].sibling)
        k++;
    uint32_t *v = pt_xcalloc(k ? k : 1, sizeof(*v));
    k = 0;
    for (uint32_t x = p->nodes[node].child; x; x = p->nodes[x].sibling)
        v[k++] = x;
    sorting arg = { c, p };
    qsort_r(v, k, sizeof(*v), by_name, &arg);
    *n = k;
    return v;
}

/* Self in every node of a name; total once per path however often the name recurs in it. */
static void tally(const pt_cpu *c, const pt_profile *p, uint32_t node, uint32_t *onpath, pt_func *f)
{
    const pt_cnode *x = &p->nodes[node];
    int real = c->kinds[x->name] != PT_FRAME_ROOT;
    if (real) {
        f[x->name].self += x->self;
        f[x->name].self_n += x->self_n;
        if (!onpath[x->name]++) {
            f[x->name].total += x->total;
            f[x->name].total_n += x->total_n;
        }
    }
    for (uint32_t k = x->child; k; k = p->nodes[k].sibling)
        tally(c, p, k, onpath, f);
    if (real)
        onpath[x->name]--;
}

static int most_self(const void *a, const void *b, void *arg)
{
    const pt_cpu *c = arg;
    const pt_func *x = a, *y = b;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return strcmp(c->names[x->name], c->names[y->name]);
}

pt_func *pt_cpu_functions(const pt_cpu *c, const pt_profile *p, uint32_t node, size_t *n)
{
    pt_func *f = pt_xcalloc(c->nnames, sizeof(*f));
    uint32_t *onpath = pt_xcalloc(c->nnames, sizeof(*onpath));
    size_t k = 0;
    tally(c, p, node, onpath, f);
    for (size_t i = 0; i < c->nnames; i++)
        if (f[i].total) {
            f[k] = f[i];
            f[k++].name = (uint32_t)i;
        }
    qsort_r(f, k, sizeof(*f), most_self, (void *)c);
    free(onpath);
    *n = k;
    return f;
}

/* ---- processes, threads --------------------------------------------------------------------- */

static cproc *proc_of(pt_cpu *c, int64_t pid)
{
    if (c->last_proc && c->last_proc->pid == pid)     /* events and samples come in runs */
        return c->last_proc;
    cproc *p = pt_map_get(&c->procs, (uint64_t)pid);
    if (p)
        return c->last_proc = p;
    p = pt_xcalloc(1, sizeof(*p));
    p->pid = pid;
    p->key = FOREIGN_KEY;
    pt_map_put(&c->procs, (uint64_t)pid, p);
    c->plist = pt_xgrow(c->plist, &c->cap_procs, c->nprocs + 1, sizeof(*c->plist));
    c->plist[c->nprocs++] = p;
    return c->last_proc = p;
}

static cthread *thread_of(pt_cpu *c, int64_t pid, int64_t tid)
{
    if (c->last_thread && c->last_thread->tid == tid && c->last_thread->pid == pid)
        return c->last_thread;
    uint64_t key = (uint64_t)pid << 32 | (uint32_t)tid;
    cthread *t = pt_map_get(&c->threads, key);
    if (t)
        return c->last_thread = t;
    t = pt_xcalloc(1, sizeof(*t));
    t->pid = pid;
    t->tid = tid;
    pt_map_put(&c->threads, key, t);
    c->tlist = pt_xgrow(c->tlist, &c->cap_threads, c->nthreads + 1, sizeof(*c->tlist));
    c->tlist[c->nthreads++] = t;
    return c->last_thread = t;
}

static void set_name(char *dst, const char *name)
{
    if (strncmp(dst, name, NAME_LEN - 1) != 0)
        snprintf(dst, NAME_LEN, "%s", name);
}

static uint32_t proc_frame(pt_cpu *c, cproc *p)
{
    if (!p->frame) {
        char buf[NAME_LEN + 24];
        if (p->name[0])
            snprintf(buf, sizeof(buf), "%s", p->name);
        else
            snprintf(buf, sizeof(buf), "pid %" PRId64, p->pid);
        p->frame = intern(c, buf, PT_FRAME_ROOT) + 1;
    }
    return p->frame - 1;
}

static uint32_t thread_frame(pt_cpu *c, cproc *p, cthread *t)
{
    if (!t->frame) {
        char buf[NAME_LEN + 24];
        snprintf(buf, sizeof(buf), "%s-%" PRId64, t->name[0] ? t->name : p->name[0] ? p->name : "thread", t->tid);
        t->frame = intern(c, buf, PT_FRAME_ROOT) + 1;
    }
    return t->frame - 1;
}

/* ---- pass 1: the LTTng trace ---------------------------------------------------------------- */

static void spans_add(spans *s, int64_t start, int64_t end)
{
    s->v = pt_xgrow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
    s->v[s->n++] = (span){ start, end };
}

/* 1 when the event's field has the value (its text, or its number for an enum), 0 when it has
 * another, -1 when it has no such field. */
static int field_is(const pt_event *ev, const char *field, const char *value)
{
    pt_value v;
    char buf[64];
    if (pt_field_value(pt_member(ev, field), &v) != 0)
        return -1;
    if (strcmp(pt_value_text(&v, buf, sizeof(buf)), value) == 0)
        return 1;
    if (v.is_enum && v.kind == PT_V_UINT)
        snprintf(buf, sizeof(buf), "%" PRIu64, v.u);
    else if (v.is_enum && v.kind == PT_V_SINT)
        snprintf(buf, sizeof(buf), "%" PRId64, v.i);
    else
        return 0;
    return strcmp(buf, value) == 0;
}

/* The filters the event decides: two bits per filter (decided, passed) added to mark. */
static unsigned decide(const pt_cpu *c, const pt_event *ev, unsigned mark)
{
    for (unsigned i = 0; i < c->o.nwhere; i++) {
        if (mark >> (2 * i) & 1)
            continue;
        int is = field_is(ev, c->field[i], c->value[i]);
        if (is >= 0)
            mark |= 1u << (2 * i) | (unsigned)is << (2 * i + 1);
    }
    return mark;
}

static int is_cut_task(const pt_cpu *c, const pt_event *ev)
{
    return c->o.task && ev->cls->task && strcmp(ev->cls->task, c->o.task) == 0;
}

static void on_start(pt_thread *th, const pt_event *ev, void *data)
{
    pt_cpu *c = data;
    if (!is_cut_task(c, ev))
        return;
    c->cut_task = ev->cls->task_index + 1;
    th->stack[th->depth - 1].mark = decide(c, ev, 0);
}

static void on_stop(pt_thread *th, unsigned pos, const pt_event *ev, void *data)
{
    pt_cpu *c = data;
    const pt_frame *f = &th->stack[pos];
    cproc *p = proc_of(c, th->vpid);
    if (c->o.per_task) {
        if (f->task >= p->ntasks) {
            p->tasks = pt_xrealloc(p->tasks, (f->task + 1) * sizeof(*p->tasks));
            memset(p->tasks + p->ntasks, 0, (f->task + 1 - p->ntasks) * sizeof(*p->tasks));
            p->ntasks = f->task + 1;
        }
        spans_add(&p->tasks[f->task], f->start, ev->ts);
    }
    if (!is_cut_task(c, ev))
        return;
    unsigned mark = decide(c, ev, f->mark), all = 0;
    for (unsigned i = 0; i < c->o.nwhere; i++)
        all |= 3u << (2 * i);
    if ((mark & all) == all)
        spans_add(&p->cut, f->start, ev->ts);
}

void pt_cpu_event(pt_cpu *c, const pt_event *ev)
{
    pt_symbols_event(c->syms, ev);
    if (ev->vpid < 0)
        return;
    cproc *p = proc_of(c, ev->vpid);
    if (!p->lttng) {
        p->lttng = 1;
        p->key = pt_process_key(ev);
        p->offset = ev->trace->clock_offset;
    }
    if (ev->procname && ev->vtid >= 0) {
        set_name(thread_of(c, ev->vpid, ev->vtid)->name, ev->procname);
        if (ev->vtid == ev->vpid)
            set_name(p->name, ev->procname);
    }
    const char *name = ev->cls->name;
    if ((strcmp(name, PCM_OWN_EVENT("CodeLoad")) == 0 || strcmp(name, PCM_OWN_EVENT("CodeUnload")) == 0)) {
        p->code = pt_xgrow(p->code, &p->cap_code, p->ncode + 1, sizeof(*p->code));
        p->code[p->ncode++] = ev->ts;
    }
    if (ev->cls->role != PT_ROLE_NONE)
        pt_pairer_event(&c->pairer, ev);
}

/* ---- between the passes ------------------------------------------------------------------------ */

static int by_start(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Sorted, overlapping ones merged: "open" at a time is then one interval holding it. */
static void merge(spans *s)
{
    size_t k = 0;
    if (!s->n)
        return;
    qsort(s->v, s->n, sizeof(*s->v), by_start);
    for (size_t i = 1; i < s->n; i++) {
        if (s->v[i].start <= s->v[k].end) {
            if (s->v[i].end > s->v[k].end)
                s->v[k].end = s->v[i].end;
        } else {
            s->v[++k] = s->v[i];
        }
    }
    s->n = k + 1;
}

/* 1 when a merged interval holds t; t never goes back (samples come in time order). */
static int open_at(spans *s, int64_t t)
{
    while (s->cursor < s->n && s->v[s->cursor].end <= t)
        s->cursor++;
    return s->cursor < s->n && s->v[s->cursor].start <= t;
}

/* How long [a, b) lies inside the merged intervals. */
static int64_t overlap(const spans *s, int64_t a, int64_t b)
{
    size_t lo = 0, hi = s->n;
    int64_t sum = 0;
    while (lo < hi) {   /* the first interval ending after a */
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid].end <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < s->n && s->v[i].start < b; i++) {
        int64_t x = s->v[i].start > a ? s->v[i].start : a, y = s->v[i].end < b ? s->v[i].end : b;
        sum += y > x ? y - x : 0;
    }
    return sum;
}

static void end_pass1(pt_cpu *c, pt_reader *r)
{
    pt_pairer_finish(&c->pairer);
    if (c->cut_task && c->cut_task - 1 < c->pairer.ntasks)
        c->st.unmatched = c->pairer.unmatched_start[c->cut_task - 1];
    for (size_t i = 0; i < c->nprocs; i++) {
        merge(&c->plist[i]->cut);
        for (unsigned t = 0; t < c->plist[i]->ntasks; t++)
            merge(&c->plist[i]->tasks[t]);
    }
    if (pt_trace_count(r))
        c->default_offset = pt_trace_at(r, 0)->clock_offset;
    pt_span(r, &c->first, &c->last);
    if (c->o.per_task) {
        c->ntasks = pt_task_count(r);
        c->tasks = pt_xcalloc(c->ntasks, sizeof(*c->tasks));
        for (unsigned t = 0; t < c->ntasks; t++) {
            profile_init(&c->tasks[t].during[PT_ON_CPU], c->root);
            profile_init(&c->tasks[t].during[PT_OFF_CPU], c->root);
        }
    }
}

/* ---- pass 2: the samples ------------------------------------------------------------------------ */

static uint32_t epoch_at(cproc *p, int64_t t)
{
    while (p->epoch < p->ncode && p->code[p->epoch] <= t)
        p->epoch++;
    return (uint32_t)p->epoch;
}

static void cache_grow(cproc *p)
{
    fslot *old = p->cache;
    size_t cap = p->cap_cache;
    p->cap_cache = cap ? cap * 2 : 1024;
    p->cache = pt_xcalloc(p->cap_cache, sizeof(*p->cache));
    for (size_t i = 0; i < cap; i++) {
        if (!old[i].key)
            continue;
        size_t k = (size_t)((old[i].key * 0x9E3779B97F4A7C15ull) >> 20) & (p->cap_cache - 1);
        while (p->cache[k].key)
            k = (k + 1) & (p->cap_cache - 1);
        p->cache[k] = old[i];
    }
    free(old);
}

/* The name of a user-space address: looked up in the binaries and code ranges once per
 * (address, code epoch) of the process. */
static uint32_t frame_name(pt_cpu *c, cproc *p, uint64_t addr, int64_t t, uint32_t epoch, int ret)
{
    uint64_t key = (addr << 1 | (uint64_t)(ret != 0)) + 1;
    if (2 * (p->ncache + 1) > p->cap_cache)
        cache_grow(p);
    size_t k = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (p->cap_cache - 1);
    while (p->cache[k].key && p->cache[k].key != key)
        k = (k + 1) & (p->cap_cache - 1);
    if (p->cache[k].key == key && p->cache[k].epoch == epoch)
        return p->cache[k].name;
    pt_sym_kind kind;
    const char *name = pt_symbols_lookup(c->syms, p->key, addr, t, ret, &kind);
    uint32_t id = kind == PT_SYM_UNKNOWN ? c->unknown : intern(c, name, kind == PT_SYM_CODE ? PT_FRAME_JIT : PT_FRAME_NATIVE);
    if (!p->cache[k].key)
        p->ncache++;
    p->cache[k] = (fslot){ key, epoch, id };
    return id;
}

/* The sample's frames named, innermost first, into c->frames + 3 (room for the process and
 * thread frames before them once reversed); kernel frames as one "[kernel]" (with_kernel), or
 * none. Returns how many. */
static size_t name_frames(pt_cpu *c, cproc *p, const pt_perf_sample *s, int64_t t, int with_kernel)
{
    uint32_t *out = c->frames + 3, epoch = epoch_at(p, t);
    const uint64_t *chain = s->chain;
    size_t n = 0, len = s->nchain;
    uint64_t ctx = PT_PERF_CONTEXT_USER;
    int first = 1;
    if (!len) {     /* recorded without call stacks: the sampled address alone */
        chain = &s->ip;
        len = 1;
        ctx = s->ip >> 63 ? PT_PERF_CONTEXT_KERNEL : PT_PERF_CONTEXT_USER;
    }
    for (size_t i = 0; i < len && n < MAX_FRAMES; i++) {
        uint64_t a = chain[i];
        if (a >= PT_PERF_CONTEXT_MAX) {
            ctx = a;
            first = 1;
        } else if (ctx == PT_PERF_CONTEXT_KERNEL) {
            if (with_kernel && (!n || out[n - 1] != c->kernel))
                out[n++] = c->kernel;
        } else if (ctx == PT_PERF_CONTEXT_USER && a) {
            uint32_t id = frame_name(c, p, a, t, epoch, !first);
            first = 0;
            if (id != c->unknown || !n || out[n - 1] != c->unknown)
                out[n++] = id;
        }
    }
    return n;
}

/* The process's frame, the thread's (by_thread), then the n frames named innermost first,
 * turned outermost first in c->frames; how many names in all. */
static size_t full_path(pt_cpu *c, cproc *p, cthread *th, size_t n)
{
    size_t head = c->o.by_thread ? 2 : 1;
    uint32_t *frames = c->frames + 3;
    for (size_t i = 0; i < n / 2; i++) {
        uint32_t x = frames[i];
        frames[i] = frames[n - 1 - i];
        frames[n - 1 - i] = x;
    }
    memmove(c->frames + head, frames, n * sizeof(*frames));
    c->frames[0] = proc_frame(c, p);
    if (c->o.by_thread)
        c->frames[1] = thread_frame(c, p, th);
    return head + n;
}

/* The cut: whether a sample at t is kept. */
static int kept_at(pt_cpu *c, cproc *p, int64_t t)
{
    if (!c->o.task)
        return 1;
    return open_at(&p->cut, t) != c->o.outside;
}

/* ---- watched intervals ------------------------------------------------------------------------- */

unsigned pt_cpu_watch(pt_cpu *c, int64_t vpid, int64_t start, int64_t end)
{
    c->watches = pt_xgrow(c->watches, &c->cap_watches, c->nwatches + 1, sizeof(*c->watches));
    c->watches[c->nwatches] = (watch){ vpid, start, end, 0, 0 };
    return (unsigned)c->nwatches++;
}

uint64_t pt_cpu_watched(const pt_cpu *c, unsigned i, uint64_t *samples)
{
    *samples = c->watches[i].samples;
    return c->watches[i].weight;
}

static int watch_order(const void *a, const void *b, void *arg)
{
    const watch *w = arg;
    int64_t x = w[*(const unsigned *)a].start, y = w[*(const unsigned *)b].start;
    return x < y ? -1 : x > y;
}

static void watches_ready(pt_cpu *c)
{
    c->by_start = pt_xcalloc(c->nwatches, sizeof(*c->by_start));
    c->active = pt_xcalloc(c->nwatches, sizeof(*c->active));
    for (size_t i = 0; i < c->nwatches; i++)
        c->by_start[i] = (unsigned)i;
    qsort_r(c->by_start, c->nwatches, sizeof(*c->by_start), watch_order, c->watches);
}

/* A CPU sample at t of process pid into the intervals holding it (samples come in time order). */
static void watched(pt_cpu *c, int64_t pid, int64_t t, uint64_t w)
{
    while (c->next < c->nwatches && c->watches[c->by_start[c->next]].start <= t)
        c->active[c->nactive++] = c->by_start[c->next++];
    for (size_t i = 0; i < c->nactive;) {
        watch *x = &c->watches[c->active[i]];
        if (x->end <= t) {
            c->active[i] = c->active[--c->nactive];
            continue;
        }
        if (x->pid == pid) {
            x->weight += w;
            x->samples++;
        }
        i++;
    }
}

static void on_cpu(pt_cpu *c, cproc *p, cthread *th, const pt_perf_sample *s, int64_t t)
{
    uint64_t w = s->period_ns ? s->period : 1;
    if (c->nwatches)
        watched(c, s->pid, t, w);
    int keep = kept_at(c, p, t);
    if (!c->st.period) {
        c->st.period = s->period;
        c->st.period_ns = s->period_ns;
    }
    c->st.samples[PT_ON_CPU]++;
    if (!keep && !c->o.per_task)
        return;
    size_t n = full_path(c, p, th, name_frames(c, p, s, t, 1));
    if (keep) {
        credit(&c->prof[PT_ON_CPU], thread_path(&c->prof[PT_ON_CPU], th, c->frames, n), w);
        c->st.kept[PT_ON_CPU]++;
    }
    for (unsigned k = 0; k < c->ntasks; k++) {     /* a task the process never ran: outside */
        pt_cpu_task *tk = &c->tasks[k];
        if (k < p->ntasks && open_at(&p->tasks[k], t)) {
            credit(&tk->during[PT_ON_CPU], path(&tk->during[PT_ON_CPU], c->frames, n), w);
        } else {
            tk->outside[PT_ON_CPU] += w;
            tk->outside_n[PT_ON_CPU]++;
        }
    }
}

/* The thread ran again by t (perf saw it then): its block, or its wait for a CPU, ends. */
static void resume(pt_cpu *c, cproc *p, cthread *th, int64_t t)
{
    int64_t d = t > th->out ? t - th->out : 0, in = c->o.task ? overlap(&p->cut, th->out, t) : d;
    uint64_t w = (uint64_t)(c->o.task && c->o.outside ? d - in : in);
    int pending = th->pending;
    th->pending = 0;
    if (pending == RUNNABLE) {
        c->st.runnable += w;
        return;
    }
    if (w) {
        credit(&c->prof[PT_OFF_CPU], th->leaf, w);
        c->st.kept[PT_OFF_CPU]++;
    }
    for (unsigned k = 0; k < c->ntasks; k++) {
        pt_cpu_task *tk = &c->tasks[k];
        int64_t during = k < p->ntasks ? overlap(&p->tasks[k], th->out, t) : 0;
        if (during) {
            size_t n = names_of(c, &c->prof[PT_OFF_CPU], th->leaf);
            credit(&tk->during[PT_OFF_CPU], path(&tk->during[PT_OFF_CPU], c->frames, n), (uint64_t)during);
        }
        if (d > during) {
            tk->outside[PT_OFF_CPU] += (uint64_t)(d - during);
            tk->outside_n[PT_OFF_CPU]++;
        }
    }
}

/* A thread leaves its CPU: asleep (blocked: its user-space stack says where), or still runnable. */
static void on_switch(pt_cpu *c, cproc *p, cthread *th, const pt_perf_sample *s, int64_t t)
{
    c->st.samples[PT_OFF_CPU]++;
    if (s->prev_state & STATE_DEAD)
        return;
    th->out = t;
    if ((s->prev_state & 0xff) == 0) {
        th->pending = RUNNABLE;
        return;
    }
    size_t n = full_path(c, p, th, name_frames(c, p, s, t, 0));
    th->leaf = path(&c->prof[PT_OFF_CPU], c->frames, n);
    th->pending = BLOCKED;
}

static void on_sample(const pt_perf_sample *s, void *data)
{
    pt_cpu *c = data;
    cproc *p = proc_of(c, s->pid);
    cthread *th = thread_of(c, s->pid, s->tid);
    int64_t t = s->raw + (p->lttng ? p->offset : c->default_offset);
    if (!p->lttng)
        c->st.foreign++;
    if (s->prev_comm && !th->name[0])
        set_name(th->name, s->prev_comm);
    if (s->prev_comm && s->tid == s->pid && !p->name[0])
        set_name(p->name, s->prev_comm);
    if (t >= c->first && t <= c->last)
        c->st.overlap = 1;
    c->st.processes += !p->sampled;
    c->st.threads += !th->sampled;
    p->sampled = th->sampled = 1;
    if (th->pending)
        resume(c, p, th, t);
    if (s->kind == PT_SAMPLE_CPU)
        on_cpu(c, p, th, s, t);
    else
        on_switch(c, p, th, s, t);
}

static void on_lost(uint64_t count, void *data)
{
    ((pt_cpu *)data)->st.lost += count;
}

int pt_cpu_read(pt_cpu *c, pt_reader *r)
{
    pt_perf_sink sink = { .sample = on_sample, .discarded = on_lost, .data = c };
    end_pass1(c, r);
    watches_ready(c);
    int rc = pt_run_samples(r, &sink);
    for (size_t i = 0; i < c->nthreads; i++)
        c->st.unresumed += c->tlist[i]->pending == BLOCKED;
    for (int m = PT_ON_CPU; m <= PT_OFF_CPU; m++) {
        totals(&c->prof[m]);
        for (unsigned t = 0; t < c->ntasks; t++)
            totals(&c->tasks[t].during[m]);
    }
    c->st.weight[PT_ON_CPU] = c->prof[PT_ON_CPU].nodes[0].total;
    c->st.weight[PT_OFF_CPU] = c->prof[PT_OFF_CPU].nodes[0].total;
    return rc;
}

/* ---- the service ------------------------------------------------------------------------------ */

pt_cpu *pt_cpu_new(const pt_cpu_opts *o)
{
    pt_cpu *c = pt_xcalloc(1, sizeof(*c));
    pt_pair_ops ops = { .start = on_start, .stop = on_stop, .data = c };
    c->o = *o;
    c->o.nwhere = o->nwhere < MAX_WHERE ? o->nwhere : MAX_WHERE;
    for (unsigned i = 0; i < c->o.nwhere; i++) {
        const char *eq = strchr(o->where[i], '=');
        c->field[i] = pt_xstrndup(o->where[i], eq ? (size_t)(eq - o->where[i]) : strlen(o->where[i]));
        c->value[i] = pt_xstrdup(eq ? eq + 1 : "");
    }
    c->syms = pt_symbols_new();
    pt_pairer_init(&c->pairer, NULL, &ops);
    c->root = intern(c, "all", PT_FRAME_ROOT);
    c->kernel = intern(c, "[kernel]", PT_FRAME_KERNEL);
    c->unknown = intern(c, "[unknown]", PT_FRAME_UNKNOWN);
    profile_init(&c->prof[PT_ON_CPU], c->root);
    profile_init(&c->prof[PT_OFF_CPU], c->root);
    return c;
}

void pt_cpu_free(pt_cpu *c)
{
    if (!c)
        return;
    for (unsigned i = 0; i < c->o.nwhere; i++) {
        free(c->field[i]);
        free(c->value[i]);
    }
    for (size_t i = 0; i < c->nprocs; i++) {
        cproc *p = c->plist[i];
        for (unsigned t = 0; t < p->ntasks; t++)
            free(p->tasks[t].v);
        free(p->tasks);
        free(p->cut.v);
        free(p->code);
        free(p->cache);
        free(p);
    }
    for (size_t i = 0; i < c->nthreads; i++) {
        free(c->tlist[i]->last);
        free(c->tlist[i]);
    }
    for (size_t i = 0; i < c->nnames; i++)
        free(c->names[i]);
    for (unsigned t = 0; t < c->ntasks; t++) {
        profile_free(&c->tasks[t].during[PT_ON_CPU]);
        profile_free(&c->tasks[t].during[PT_OFF_CPU]);
    }
    profile_free(&c->prof[PT_ON_CPU]);
    profile_free(&c->prof[PT_OFF_CPU]);
    pt_pairer_free(&c->pairer);
    pt_symbols_free(c->syms);
    pt_map_free(&c->procs);
    pt_map_free(&c->threads);
    pt_map_free(&c->name_ids);
    free(c->plist);
    free(c->tlist);
    free(c->names);
    free(c->kinds);
    free(c->tasks);
    free(c->watches);
    free(c->by_start);
    free(c->active);
    free(c);
}

const pt_cpu_stats *pt_cpu_stats_of(const pt_cpu *c)
{
    return &c->st;
}

const pt_profile *pt_cpu_profile(const pt_cpu *c, int measure)
{
    return &c->prof[measure];
}

const pt_cpu_task *pt_cpu_task_at(const pt_cpu *c, unsigned task)
{
    if (task >= c->ntasks)
        return NULL;
    const pt_cpu_task *t = &c->tasks[task];
    return t->during[PT_ON_CPU].nodes[0].total || t->outside[PT_ON_CPU] || t->during[PT_OFF_CPU].nodes[0].total ||
           t->outside[PT_OFF_CPU] ? t : NULL;
}
