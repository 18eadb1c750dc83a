/* SPDX-License-Identifier: MIT */
/* Frame names from the trace alone: time-aware code ranges, and native symbols through the
 * statedump's binaries read with elfutils libdw (as babeltrace2's debug-info filter does). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdwfl.h>

#include "symbols.h"

#define KIND_INTERPRETED 2
#define FOREVER INT64_MAX
#define BUILD_ID_MAX 64

/* A range the runtime described: live from `since` (INT64_MIN for a rundown: it was live before
 * the session started) until `until` (CodeUnload, or FOREVER). */
struct range {
    uint64_t start, size;
    int64_t since, until;
    int kind;
    char *name;
};

struct module {
    uint64_t baddr, memsz;
    int pic;
    char *path;
    uint8_t build_id[BUILD_ID_MAX];
    size_t build_id_len;        /* 0: the trace gave none */
    Dwfl_Module *dwfl;          /* NULL: unusable (missing, or another build) */
};

struct proc {
    int64_t vpid;
    struct range *ranges;
    size_t nranges, cap_ranges;
    uint64_t max_size;
    int sorted;
    struct module *mods;
    size_t nmods, cap_mods;
    Dwfl *dwfl;                 /* opened on the first native lookup */
    int dwfl_tried;
};

struct ps_symbols {
    struct proc *procs;
    size_t nprocs, cap_procs;
};

/* ---- growable arrays ------------------------------------------------------------------------- */

static int grow(void **items, size_t *cap, size_t need, size_t size)
{
    size_t n = *cap ? *cap : 16;
    void *p;

    if (need <= *cap)
        return 0;
    while (n < need)
        n *= 2;
    p = realloc(*items, n * size);
    if (!p)
        return -ENOMEM;
    *items = p;
    *cap = n;
    return 0;
}

static struct proc *proc_of(struct ps_symbols *s, int64_t vpid, int create)
{
    for (size_t i = 0; i < s->nprocs; i++)
        if (s->procs[i].vpid == vpid)
            return &s->procs[i];
    if (!create || grow((void **)&s->procs, &s->cap_procs, s->nprocs + 1, sizeof(*s->procs)))
        return NULL;
    s->procs[s->nprocs] = (struct proc){ .vpid = vpid };
    return &s->procs[s->nprocs++];
}

struct ps_symbols *ps_symbols_new(void)
{
    return calloc(1, sizeof(struct ps_symbols));
}

void ps_symbols_free(struct ps_symbols *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nprocs; i++) {
        struct proc *p = &s->procs[i];

        for (size_t j = 0; j < p->nranges; j++)
            free(p->ranges[j].name);
        for (size_t j = 0; j < p->nmods; j++)
            free(p->mods[j].path);
        free(p->ranges);
        free(p->mods);
        if (p->dwfl)
            dwfl_end(p->dwfl);
    }
    free(s->procs);
    free(s);
}

/* ---- pass 1: what the trace says about code -------------------------------------------------- */

static int add_range(struct proc *p, const struct ps_event *e, int64_t since)
{
    uint64_t start, size, kind;
    const char *name = ps_str(e, "name");
    struct range *r;

    if (ps_u64(e, "start", &start) || ps_u64(e, "size", &size) || ps_u64(e, "kind", &kind) ||
        !name)
        return 0;   /* not the layout this reads: ignored */
    if (grow((void **)&p->ranges, &p->cap_ranges, p->nranges + 1, sizeof(*r)))
        return -ENOMEM;
    r = &p->ranges[p->nranges];
    *r = (struct range){ start, size, since, FOREVER, (int)kind, strdup(name) };
    if (!r->name)
        return -ENOMEM;
    p->nranges++;
    p->max_size = size > p->max_size ? size : p->max_size;
    p->sorted = 0;
    return 0;
}

/* The latest range still open at that start ends now. Ranges are fed in time order, so the
 * search runs from the end and stops at the first one found. */
static void end_range(struct proc *p, const struct ps_event *e)
{
    uint64_t start;

    if (ps_u64(e, "start", &start))
        return;
    for (size_t i = p->nranges; i > 0; i--) {
        struct range *r = &p->ranges[i - 1];

        if (r->start == start && r->until == FOREVER) {
            r->until = e->ns;
            return;
        }
    }
}

static int add_module(struct proc *p, const struct ps_event *e, int pic)
{
    uint64_t baddr, memsz, is_pic;
    const char *path = ps_str(e, "path");
    struct module *m;

    if (ps_u64(e, "baddr", &baddr) || ps_u64(e, "memsz", &memsz) || !path)
        return 0;
    if (pic < 0)
        pic = ps_u64(e, "is_pic", &is_pic) == 0 ? (int)is_pic : 1;
    if (grow((void **)&p->mods, &p->cap_mods, p->nmods + 1, sizeof(*m)))
        return -ENOMEM;
    m = &p->mods[p->nmods];
    *m = (struct module){ .baddr = baddr, .memsz = memsz, .pic = pic, .path = strdup(path) };
    if (!m->path)
        return -ENOMEM;
    p->nmods++;
    return 0;
}

static void add_build_id(struct proc *p, const struct ps_event *e)
{
    uint64_t baddr, bytes[BUILD_ID_MAX];
    size_t n;

    if (ps_u64(e, "baddr", &baddr))
        return;
    n = ps_u64_array(e, "build_id", bytes, BUILD_ID_MAX);
    for (size_t i = 0; i < p->nmods; i++) {
        if (p->mods[i].baddr != baddr)
            continue;
        for (size_t j = 0; j < n; j++)
            p->mods[i].build_id[j] = (uint8_t)bytes[j];
        p->mods[i].build_id_len = n;
    }
}

int ps_symbols_feed(struct ps_symbols *s, const struct ps_event *e)
{
    struct proc *p;

    if (strncmp(e->name, "Paleventing:Code", 16) != 0 && strncmp(e->name, "lttng_ust_", 10) != 0)
        return 0;
    if (!(p = proc_of(s, e->vpid, 1)))
        return -ENOMEM;
    if (strcmp(e->name, "Paleventing:CodeLoad") == 0)
        return add_range(p, e, e->ns);
    if (strcmp(e->name, "Paleventing:CodeRundown") == 0)
        return add_range(p, e, INT64_MIN);
    if (strcmp(e->name, "Paleventing:CodeUnload") == 0)
        end_range(p, e);
    else if (strcmp(e->name, "lttng_ust_statedump:bin_info") == 0)
        return add_module(p, e, -1);
    else if (strcmp(e->name, "lttng_ust_dl:dlopen") == 0)
        return add_module(p, e, 1);
    else if (strcmp(e->name, "lttng_ust_statedump:build_id") == 0)
        add_build_id(p, e);
    return 0;
}

/* ---- pass 2: code ranges --------------------------------------------------------------------- */

static int by_start(const void *a, const void *b)
{
    const struct range *x = a, *y = b;

    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->since < y->since ? -1 : x->since > y->since;
}

/* The range holding addr at time ns, of the wanted kind; the latest loaded wins. */
static const char *range_name(struct proc *p, uint64_t addr, int64_t ns, int interpreted)
{
    const struct range *best = NULL;
    size_t lo = 0, hi = p->nranges;

    if (!p->sorted) {
        if (p->nranges)
            qsort(p->ranges, p->nranges, sizeof(*p->ranges), by_start);
        p->sorted = 1;
    }
    while (lo < hi) {   /* the first range starting above addr */
        size_t mid = lo + (hi - lo) / 2;

        if (p->ranges[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i > 0 && addr - p->ranges[i - 1].start < p->max_size; i--) {
        const struct range *r = &p->ranges[i - 1];

        if ((r->kind == KIND_INTERPRETED) == interpreted && addr - r->start < r->size &&
            r->since <= ns && ns < r->until && (!best || r->since > best->since))
            best = r;
    }
    return best ? best->name : NULL;
}

/* ---- pass 2: native code --------------------------------------------------------------------- */

static const Dwfl_Callbacks offline = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* A binary rebuilt since the trace was taken would give wrong names: its build id must match. */
static int same_build(struct module *m)
{
    const unsigned char *bits;
    GElf_Addr vaddr;
    int len;

    if (!m->build_id_len)
        return 1;
    len = dwfl_module_build_id(m->dwfl, &bits, &vaddr);
    return len == (int)m->build_id_len && memcmp(bits, m->build_id, m->build_id_len) == 0;
}

static void open_dwfl(struct proc *p)
{
    p->dwfl_tried = 1;
    if (!(p->dwfl = dwfl_begin(&offline)))
        return;
    dwfl_report_begin(p->dwfl);
    for (size_t i = 0; i < p->nmods; i++) {
        struct module *m = &p->mods[i];

        m->dwfl = dwfl_report_elf(p->dwfl, m->path, m->path, -1, m->pic ? m->baddr : 0, false);
        if (m->dwfl && !same_build(m))
            m->dwfl = NULL;
    }
    dwfl_report_end(p->dwfl, NULL, NULL);
}

static struct module *module_at(struct proc *p, uint64_t addr)
{
    for (size_t i = 0; i < p->nmods; i++)
        if (addr - p->mods[i].baddr < p->mods[i].memsz)
            return &p->mods[i];
    return NULL;
}

static const char *native_name(struct proc *p, uint64_t addr, char *buf, size_t size)
{
    struct module *m = module_at(p, addr);
    const char *sym = NULL, *base;
    size_t len;

    if (!m)
        return NULL;
    if (!p->dwfl_tried)
        open_dwfl(p);
    if (m->dwfl)
        sym = dwfl_module_addrname(m->dwfl, addr);
    if (!sym) {
        base = strrchr(m->path, '/');
        snprintf(buf, size, "%s+0x%" PRIx64, base ? base + 1 : m->path,
                 m->pic ? addr - m->baddr : addr);
        return buf;
    }
    snprintf(buf, size, "%s", sym);
    len = strlen(buf);
    if (len > 5 && strcmp(buf + len - 5, ".cold") == 0)  /* GCC's cold part of f is f */
        buf[len - 5] = '\0';
    return buf;
}

const char *ps_symbols_name(struct ps_symbols *s, int64_t vpid, int64_t ns, uint64_t addr,
                            char *buf, size_t size)
{
    struct proc *p = proc_of(s, vpid, 0);
    const char *name = NULL;

    /* A return address is one past its call: look up the call itself. */
    if (p && !(name = range_name(p, addr, ns, 1)) && !(name = range_name(p, addr - 1, ns, 0)))
        name = native_name(p, addr - 1, buf, size);
    if (!name)
        snprintf(buf, size, "0x%" PRIx64, addr);
    else if (name != buf)
        snprintf(buf, size, "%s", name);
    return buf;
}
