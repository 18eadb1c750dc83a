/* SPDX-License-Identifier: MIT */
/* Frame names from the trace alone: time-aware code ranges, and native symbols through the
 * statedump's binaries read with elfutils libdw (as babeltrace2's debug-info filter does). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdwfl.h>

#include "symbols.h"

#define KIND_INTERPRETED 2
#define FOREVER INT64_MAX
#define BUILD_ID_MAX 64

/* A range the runtime described: live from `since` (INT64_MIN for a rundown: it was live before
 * the session started) until `until` (CodeUnload, the next CodeLoad at its start: a new version
 * or new code, or FOREVER). `prev_at`: index + 1 of the range described before it at the same
 * start, 0 for none. */
typedef struct range {
    uint64_t start, size;
    int64_t since, until;
    int kind;
    char *name;
    size_t prev_at;
} range;

/* A stretch of a module's addresses the same sized symbols hold, and the one libdw names them
 * by (NULL: too many hold it, libdw decides). */
typedef struct segment {
    uint64_t start, end;
    const char *name;           /* libdw's string: lives as long as the Dwfl */
} segment;

typedef struct module {
    uint64_t baddr, memsz;
    int pic;
    char *path;
    uint8_t build_id[BUILD_ID_MAX];
    size_t build_id_len;        /* 0: the trace gave none */
    Dwfl_Module *dwfl;          /* NULL: unusable (missing, or another build) */
    segment *segs;              /* its addresses by symbol, made on its first lookup */
    size_t nsegs;
    int segs_made;
} module;

typedef struct proc {
    range *ranges;              /* in the order they came: indexes stay valid */
    size_t nranges, cap_ranges;
    pt_map open_at;             /* start address -> index + 1 of the latest range loaded there */
    size_t *by_start;           /* range indexes sorted by start, rebuilt when ranges were added */
    size_t nsorted;
    uint64_t max_size;
    uint64_t epoch;
    module *mods;
    size_t nmods, cap_mods;
    Dwfl *dwfl;                 /* opened on the first native lookup */
    int dwfl_tried;
} proc;

struct pt_symbols {
    pt_map procs;               /* process key -> proc */
    pt_map native;              /* (process, address) -> its native name, looked up once */
    pt_map lined;               /* "name:line" -> its one copy */
};

/* A native lookup's answer, kept. */
typedef struct native_name_t {
    char *name;
    pt_sym_kind kind;
} native_name_t;

/* The key of a native lookup: (process, address, whether it is a return address). */
typedef struct native_key {
    uint64_t process, addr, return_address;
} native_key;

pt_symbols *pt_symbols_new(void)
{
    return pt_xcalloc(1, sizeof(pt_symbols));
}

static void proc_free(proc *p)
{
    for (size_t j = 0; j < p->nranges; j++)
        free(p->ranges[j].name);
    for (size_t j = 0; j < p->nmods; j++)
        free(p->mods[j].path);
    for (size_t j = 0; j < p->nmods; j++)
        free(p->mods[j].segs);
    free(p->ranges);
    free(p->by_start);
    free(p->mods);
    pt_map_free(&p->open_at);
    if (p->dwfl)
        dwfl_end(p->dwfl);
    free(p);
}

void pt_symbols_free(pt_symbols *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->procs.cap; i++)
        if (s->procs.slots[i].value)
            proc_free(s->procs.slots[i].value);
    for (size_t i = 0; i < s->native.cap; i++)
        if (s->native.slots[i].value) {
            free(((native_name_t *)s->native.slots[i].value)->name);
            free(s->native.slots[i].value);
        }
    pt_map_free(&s->procs);
    pt_map_free(&s->native);
    pt_map_free_values(&s->lined);
    free(s);
}

static proc *proc_of(const pt_symbols *s, uint64_t process)
{
    return pt_map_get(&s->procs, process);
}

uint64_t pt_symbols_epoch(const pt_symbols *s, uint64_t process)
{
    const proc *p = proc_of(s, process);
    return p ? p->epoch : 0;
}

/* ---- what the trace says about code ---------------------------------------------------------------- */

/* Every range still open at `start` ends at `ts`. Each end and each CodeLoad closes all of them,
 * so the open ones are the latest of the chain: the walk stops at the first closed one. */
static void end_open(proc *p, uint64_t start, int64_t ts)
{
    size_t i = (size_t)(uintptr_t)pt_map_get(&p->open_at, start);
    while (i && p->ranges[i - 1].until == FOREVER) {
        p->ranges[i - 1].until = ts;
        i = p->ranges[i - 1].prev_at;
    }
}

/* A CodeLoad (since: its time) replaces what is live at its start from then on: the version
 * before it when it is a patch (version 1, 2...), older code when it is new code there. A
 * CodeRundown (since INT64_MIN) describes what was live before the session and ends nothing: a
 * CodeLoad recorded before it at the same start (a patch while the rundown ran) is newer from
 * its own time on. */
static void add_range(proc *p, const pt_event *ev, int64_t since)
{
    uint64_t start, size, kind;
    const char *name = pt_member_str(ev, "name");
    if (pt_member_u64(ev, "start", &start) || pt_member_u64(ev, "size", &size) ||
        pt_member_u64(ev, "kind", &kind) || !name)
        return;     /* not the layout this reads: ignored */
    if (since != INT64_MIN)
        end_open(p, start, since);
    p->ranges = pt_xgrow(p->ranges, &p->cap_ranges, p->nranges + 1, sizeof(*p->ranges));
    p->ranges[p->nranges] = (range){ start, size, since, FOREVER, (int)kind, pt_xstrdup(name),
                                     (size_t)(uintptr_t)pt_map_get(&p->open_at, start) };
    p->nranges++;
    pt_map_put(&p->open_at, start, (void *)(uintptr_t)p->nranges);
    p->max_size = size > p->max_size ? size : p->max_size;
}

/* CodeUnload: every version live at that start ends now (ranges come in time order). */
static void end_range(proc *p, const pt_event *ev)
{
    uint64_t start;
    if (pt_member_u64(ev, "start", &start) == 0)
        end_open(p, start, ev->ts);
}

static void add_module(proc *p, const pt_event *ev, int pic)
{
    uint64_t baddr, memsz, is_pic;
    const char *path = pt_member_str(ev, "path");
    if (pt_member_u64(ev, "baddr", &baddr) || pt_member_u64(ev, "memsz", &memsz) || !path)
        return;
    if (pic < 0)
        pic = pt_member_u64(ev, "is_pic", &is_pic) == 0 ? (int)is_pic : 1;
    p->mods = pt_xgrow(p->mods, &p->cap_mods, p->nmods + 1, sizeof(*p->mods));
    p->mods[p->nmods++] = (module){ .baddr = baddr, .memsz = memsz, .pic = pic, .path = pt_xstrdup(path) };
}

static void add_build_id(proc *p, const pt_event *ev)
{
    uint64_t baddr, bytes[BUILD_ID_MAX];
    if (pt_member_u64(ev, "baddr", &baddr))
        return;
    size_t n = pt_member_u64_array(ev, "build_id", bytes, BUILD_ID_MAX);
    for (size_t i = 0; i < p->nmods; i++) {
        if (p->mods[i].baddr != baddr)
            continue;
        for (size_t j = 0; j < n; j++)
            p->mods[i].build_id[j] = (uint8_t)bytes[j];
        p->mods[i].build_id_len = n;
    }
}

void pt_symbols_event(pt_symbols *s, const pt_event *ev)
{
    const char *name = ev->cls->name;
    if (strncmp(name, PCM_OWN_EVENT("Code"), sizeof(PCM_OWN_EVENT("Code")) - 1) != 0 && strncmp(name, "lttng_ust_", 10) != 0)
        return;
    uint64_t key = pt_process_key(ev);
    proc *p = proc_of(s, key);
    if (!p) {
        p = pt_xcalloc(1, sizeof(*p));
        pt_map_put(&s->procs, key, p);
    }
    if (strcmp(name, PCM_OWN_EVENT("CodeLoad")) == 0) {
        add_range(p, ev, ev->ts);
        p->epoch++;
    } else if (strcmp(name, PCM_OWN_EVENT("CodeRundown")) == 0) {
        add_range(p, ev, INT64_MIN);
    } else if (strcmp(name, PCM_OWN_EVENT("CodeUnload")) == 0) {
        end_range(p, ev);
        p->epoch++;
    } else if (strcmp(name, "lttng_ust_statedump:bin_info") == 0) {
        add_module(p, ev, -1);
    } else if (strcmp(name, "lttng_ust_dl:dlopen") == 0) {
        add_module(p, ev, 1);
    } else if (strcmp(name, "lttng_ust_statedump:build_id") == 0) {
        add_build_id(p, ev);
    }
}

/* ---- code ranges ------------------------------------------------------------------------------------- */

static int by_start(const void *a, const void *b, void *arg)
{
    const range *ranges = arg, *x = &ranges[*(const size_t *)a], *y = &ranges[*(const size_t *)b];
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->since < y->since ? -1 : x->since > y->since;
}

static void sort_ranges(proc *p)
{
    if (p->nsorted == p->nranges)
        return;
    p->by_start = pt_xrealloc(p->by_start, (p->nranges ? p->nranges : 1) * sizeof(*p->by_start));
    for (size_t i = 0; i < p->nranges; i++)
        p->by_start[i] = i;
    qsort_r(p->by_start, p->nranges, sizeof(*p->by_start), by_start, p->ranges);
    p->nsorted = p->nranges;
}

/* The range holding addr at time ns, of the wanted kind; the latest loaded wins. */
static const char *range_name(proc *p, uint64_t addr, int64_t ns, int interpreted)
{
    const range *best = NULL;
    size_t lo = 0, hi = p->nranges;
    sort_ranges(p);
    while (lo < hi) {   /* the first range starting above addr */
        size_t mid = lo + (hi - lo) / 2;
        if (p->ranges[p->by_start[mid]].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i > 0 && addr - p->ranges[p->by_start[i - 1]].start < p->max_size; i--) {
        const range *r = &p->ranges[p->by_start[i - 1]];
        if ((r->kind == KIND_INTERPRETED) == interpreted && addr - r->start < r->size &&
            r->since <= ns && ns < r->until && (!best || r->since > best->since))
            best = r;
    }
    return best ? best->name : NULL;
}

/* ---- native code --------------------------------------------------------------------------------------- */

static const Dwfl_Callbacks offline = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* A binary rebuilt since the trace was taken would give wrong names: its build id must match. */
static int same_build(module *m)
{
    const unsigned char *bits;
    GElf_Addr vaddr;
    if (!m->build_id_len)
        return 1;
    int len = dwfl_module_build_id(m->dwfl, &bits, &vaddr);
    return len == (int)m->build_id_len && memcmp(bits, m->build_id, m->build_id_len) == 0;
}

static void open_dwfl(proc *p)
{
    p->dwfl_tried = 1;
    if (!(p->dwfl = dwfl_begin(&offline)))
        return;
    dwfl_report_begin(p->dwfl);
    for (size_t i = 0; i < p->nmods; i++) {
        module *m = &p->mods[i];
        m->dwfl = dwfl_report_elf(p->dwfl, m->path, m->path, -1, m->pic ? m->baddr : 0, false);
        if (m->dwfl && !same_build(m))
            m->dwfl = NULL;
    }
    dwfl_report_end(p->dwfl, NULL, NULL);
}

static module *module_at(proc *p, uint64_t addr)
{
    for (size_t i = 0; i < p->nmods; i++)
        if (addr - p->mods[i].baddr < p->mods[i].memsz)
            return &p->mods[i];
    return NULL;
}

/* ---- a module's symbols, searched as libdw searches them ------------------------------------------ */

static int binding_value(const GElf_Sym *sym)
{
    switch (GELF_ST_BIND(sym->st_info)) {
    case STB_GLOBAL: return 3;
    case STB_WEAK: return 2;
    case STB_LOCAL: return 1;
    default: return 0;
    }
}

/* A sized symbol as libdw's search meets it: globals first, then locals, each by index. */
typedef struct fsym {
    uint64_t start, end;
    int binding;
    unsigned order;
    const char *name;
} fsym;

typedef struct fsyms {
    fsym *v;
    size_t n, cap;
} fsyms;

static int by_fn_start(const void *a, const void *b)
{
    const fsym *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

static void add_fns(module *m, int from, int to, fsyms *out)
{
    for (int i = from; i < to; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        GElf_Word shndx;
        const char *name = dwfl_module_getsym_info(m->dwfl, i, &sym, &addr, &shndx, NULL, NULL);
        int type = GELF_ST_TYPE(sym.st_info);
        if (!name || !name[0] || !sym.st_size || shndx == SHN_UNDEF || type == STT_SECTION ||
            type == STT_FILE || type == STT_TLS)
            continue;
        out->v = pt_xgrow(out->v, &out->cap, out->n + 1, sizeof(*out->v));
        out->v[out->n] = (fsym){ addr, addr + sym.st_size, binding_value(&sym), (unsigned)out->n, name };
        out->n++;
    }
}

#define MAX_HOLDERS 32

/* libdw's pick among the symbols holding an address (dwfl_module_addrsym.c): met in its order, a
 * symbol replaces the one kept when that one starts lower or binds weaker. NULL for more than
 * MAX_HOLDERS: libdw decides. */
static const char *winner(const fsym *const *holders, size_t n)
{
    const fsym *best = NULL, *prev = NULL;
    if (n > MAX_HOLDERS)
        return NULL;
    for (size_t k = 0; k < n; k++) {
        const fsym *c = NULL;       /* the next one in libdw's order */
        for (size_t j = 0; j < n; j++)
            if ((!prev || holders[j]->order > prev->order) && (!c || holders[j]->order < c->order))
                c = holders[j];
        prev = c;
        if (!best || best->start < c->start || best->binding < c->binding)
            best = c;
    }
    return best ? best->name : NULL;
}

static void add_segment(module *m, size_t *cap, uint64_t start, uint64_t end, const char *name)
{
    if (m->nsegs && m->segs[m->nsegs - 1].end == start && m->segs[m->nsegs - 1].name == name && name) {
        m->segs[m->nsegs - 1].end = end;
        return;
    }
    m->segs = pt_xgrow(m->segs, cap, m->nsegs + 1, sizeof(*m->segs));
    m->segs[m->nsegs++] = (segment){ start, end, name };
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The sized symbols' starts and ends cut the module into stretches each held by the same
 * symbols; each stretch gets libdw's pick among them, once. */
static void sweep(module *m, const fsyms *all)
{
    uint64_t *points = pt_xcalloc(2 * all->n, sizeof(*points));
    const fsym **active = NULL;
    size_t np = 0, nactive = 0, cap_active = 0, cap = 0, next = 0;
    for (size_t i = 0; i < all->n; i++) {
        points[np++] = all->v[i].start;
        points[np++] = all->v[i].end;
    }
    qsort(points, np, sizeof(*points), by_u64);
    size_t unique = 0;
    for (size_t k = 0; k < np; k++)
        if (!unique || points[k] != points[unique - 1])
            points[unique++] = points[k];
    np = unique;
    for (size_t k = 0; k < np; k++) {
        for (size_t i = 0; i < nactive;)   /* the symbols ended here leave */
            if (active[i]->end <= points[k])
                active[i] = active[--nactive];
            else
                i++;
        for (; next < all->n && all->v[next].start <= points[k]; next++) {
            active = pt_xgrow(active, &cap_active, nactive + 1, sizeof(*active));
            active[nactive++] = &all->v[next];
        }
        if (nactive && k + 1 < np)
            add_segment(m, &cap, points[k], points[k + 1], winner(active, nactive));
    }
    free(points);
    free(active);
}

static void make_segments(module *m)
{
    fsyms all = { 0 };
    int n = dwfl_module_getsymtab(m->dwfl), first_global = dwfl_module_getsymtab_first_global(m->dwfl);
    m->segs_made = 1;
    if (n <= 0)
        return;
    if (first_global < 1 || first_global > n)
        first_global = 1;
    add_fns(m, first_global, n, &all);
    add_fns(m, 1, first_global, &all);
    if (all.n) {
        qsort(all.v, all.n, sizeof(*all.v), by_fn_start);
        sweep(m, &all);
    }
    free(all.v);
}

/* The name libdw gives addr when a sized symbol holds it, found by a binary search; NULL when
 * none does (or too many do): libdw then decides, with its labels. */
static const char *fn_name(module *m, uint64_t addr)
{
    size_t lo = 0, hi;
    if (!m->segs_made)
        make_segments(m);
    hi = m->nsegs;
    while (lo < hi) {   /* the first stretch starting above addr */
        size_t mid = lo + (hi - lo) / 2;
        if (m->segs[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && addr < m->segs[lo - 1].end ? m->segs[lo - 1].name : NULL;
}

/* The native name of addr, a new string: the symbol, or "file+0xOFF"; NULL outside the binaries. */
static char *native_name(proc *p, uint64_t addr)
{
    module *m = module_at(p, addr);
    const char *sym = NULL;
    if (!m)
        return NULL;
    if (!p->dwfl_tried)
        open_dwfl(p);
    if (m->dwfl && !(sym = fn_name(m, addr)))
        sym = dwfl_module_addrname(m->dwfl, addr);  /* no sized symbol holds it: libdw's labels */
    if (!sym) {
        const char *base = strrchr(m->path, '/');
        return pt_xasprintf("%s+0x%" PRIx64, base ? base + 1 : m->path, m->pic ? addr - m->baddr : addr);
    }
    size_t len = strlen(sym);
    if (len > 5 && strcmp(sym + len - 5, ".cold") == 0)  /* GCC's cold part of f is f */
        len -= 5;
    return pt_xstrndup(sym, len);
}

const char *pt_symbols_lookup(pt_symbols *s, uint64_t process, uint64_t addr, int64_t ns, int return_address,
                              pt_sym_kind *kind)
{
    proc *p = proc_of(s, process);
    uint64_t call = return_address ? addr - 1 : addr;  /* a return address is one past its call */
    const char *name;
    if (p && ((name = range_name(p, addr, ns, 1)) || (name = range_name(p, call, ns, 0)))) {
        *kind = PT_SYM_CODE;
        return name;
    }
    native_key key = { process, addr, return_address != 0 };
    native_name_t *known = pt_map_get_bytes(&s->native, &key, sizeof(key));
    if (!known) {
        known = pt_xcalloc(1, sizeof(*known));
        known->name = p ? native_name(p, call) : NULL;
        known->kind = known->name ? PT_SYM_NATIVE : PT_SYM_UNKNOWN;
        if (!known->name)
            known->name = pt_xasprintf("0x%" PRIx64, addr);   /* an unknown address, as the trace has it */
        pt_map_put_bytes(&s->native, &key, sizeof(key), known);
    }
    *kind = known->kind;
    return known->name;
}

const char *pt_symbols_name(pt_symbols *s, uint64_t process, uint64_t addr, int64_t ns, int return_address)
{
    pt_sym_kind kind;
    return pt_symbols_lookup(s, process, addr, ns, return_address, &kind);
}

const char *pt_symbols_frame_name(pt_symbols *s, uint64_t process, uint64_t addr, int64_t ns, uint32_t line)
{
    const char *name = pt_symbols_name(s, process, addr, ns, 1);
    if (!line)
        return name;
    char *lined = pt_xasprintf("%s:%" PRIu32, name, line), *known = pt_map_get_str(&s->lined, lined);
    if (known) {
        free(lined);
        return known;
    }
    pt_map_put_str(&s->lined, lined, lined);
    return lined;
}
