/* SPDX-License-Identifier: MIT */
/* minivm: the command line: load a program (or the built-in workload), run it, report. */
#include "events.h"
#include "jit.h"
#include "vm.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <paleventing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WORKLOAD_PATH "minivm:workload.masm"

static const char usage[] =
    "usage: minivm [-w WORKERS] [-m HEAP_MIB] [-y YOUNG_KIB] [-t MS] [-v] [--jit=MODE | -J]\n"
    "              [PROGRAM.masm [ARG...]]\n"
    "Runs PROGRAM (samples/minivm/README.md describes the assembly), or without one the built-in\n"
    "workload for MS milliseconds (default 2500). Exit status: main's integer result (0 if it\n"
    "returns anything else), 1 for an unhandled exception, 2 for usage and program errors.\n"
    "--jit=MODE: native x86-64 code for hot methods (hot, the default: on the 100th call), for\n"
    "every method on its first call (all, or -J), on the Nth call (a number), or never (off).\n"
    "Elsewhere than on x86-64 it is accepted and everything stays interpreted.\n";

struct options {
    struct vm_config config;
    const char *duration_ms;
    const char *program;
    const char *const *args;
    int nargs;
};

uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int parse_size(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
    char *end;

    errno = 0;
    *out = strtoul(s, &end, 10);
    return !errno && *s && !*end && *out >= min && *out <= max ? 0 : -1;
}

/* --jit=off|hot|all|N: the call that compiles a method to native code (0: none). */
static int parse_jit(const char *s, uint32_t *threshold)
{
    static const struct {
        const char *name;
        uint32_t threshold;
    } modes[] = { { "off", 0 }, { "hot", JIT_HOT_CALLS }, { "all", 1 } };
    unsigned long v;

    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(s, modes[i].name) == 0) {
            *threshold = modes[i].threshold;
            return 0;
        }
    if (parse_size(s, 1, UINT32_MAX, &v) < 0)
        return -1;
    *threshold = (uint32_t)v;
    return 0;
}

static int parse_options(int argc, char **argv, struct options *o)
{
    static const struct option longs[] = { { "jit", required_argument, NULL, 'j' },
                                           { NULL, 0, NULL, 0 } };
    unsigned long v;
    int c;

    *o = (struct options){ .config = { .workers = 3, .heap_limit = 64u << 20,
                                       .young_budget = 512u << 10,
                                       .jit_threshold = JIT_HOT_CALLS },
                           .duration_ms = "2500" };
    while ((c = getopt_long(argc, argv, "+w:m:y:t:vJh", longs, NULL)) != -1) {
        if (c == 'w' && parse_size(optarg, 1, 64, &v) == 0)
            o->config.workers = (uint32_t)v;
        else if (c == 'm' && parse_size(optarg, 1, 1u << 20, &v) == 0)
            o->config.heap_limit = (size_t)v << 20;
        else if (c == 'y' && parse_size(optarg, 16, 1u << 20, &v) == 0)
            o->config.young_budget = (size_t)v << 10;
        else if (c == 't' && parse_size(optarg, 0, 3600000, &v) == 0)
            o->duration_ms = optarg;
        else if (c == 'v')
            o->config.verbose = 1;
        else if (c == 'J')
            o->config.jit_threshold = 1;
        else if (c == 'j' && parse_jit(optarg, &o->config.jit_threshold) == 0)
            continue;
        else {
            fputs(usage, c == 'h' ? stdout : stderr);
            return c == 'h' ? 0 : 2;
        }
    }
    if (!jit_available())
        o->config.jit_threshold = 0;
    o->program = optind < argc ? argv[optind] : NULL;
    o->args = o->program ? (const char *const *)argv + optind + 1 : &o->duration_ms;
    o->nargs = o->program ? argc - optind - 1 : 1;
    return -1;
}

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long n;

    if (!f || fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0)
        goto end;
    if ((text = malloc((size_t)n + 1)) && fread(text, 1, (size_t)n, f) == (size_t)n) {
        text[n] = '\0';
        *size = (size_t)n;
    } else {
        free(text);
        text = NULL;
    }
end:
    if (!text)
        fprintf(stderr, "minivm: cannot read %s: %s\n", path, strerror(errno));
    if (f)
        fclose(f);
    return text;
}

static struct module *load(const struct options *o)
{
    struct module *mod;
    size_t size = 0;
    char *text;

    if (!o->program)
        return asm_module(WORKLOAD_PATH, minivm_workload, minivm_workload_size, MODULE_BUILTIN);
    if (!(text = read_file(o->program, &size)))
        return NULL;
    mod = asm_module(o->program, text, size, MODULE_FILE);
    free(text);
    return mod;
}

/* main's argument: an array of the program arguments as strings (built on the stack, where
 * the collector sees it while the strings are allocated). */
static int push_args(struct vm_thread *t, const struct options *o)
{
    struct varray *a = heap_new_array(t, (size_t)o->nargs);

    if (!a)
        return -1;
    *t->sp++ = v_ref(a);
    for (int i = 0; i < o->nargs; i++) {
        struct vstring *s = heap_new_string(t, o->args[i], strlen(o->args[i]));

        if (!s)
            return -1;
        a->items[i] = v_ref(s);
        heap_write_barrier(&t->vm->heap, &a->h, a->items[i]);
    }
    return 0;
}

static int exit_code(struct vm_thread *t, int rc)
{
    value result;

    if (rc < 0) {
        fprintf(stderr, "minivm: unhandled %s: %s\n", v_str(v_exc(t->exc)->type)->data,
                v_str(v_exc(t->exc)->message)->data);
        return 1;
    }
    result = *--t->sp;
    return result.tag == V_INT ? (int)result.u.i : 0;
}

/* Run main on the main thread (which holds the VM lock); workers and the sampler run beside it. */
static int run(struct vm *vm, struct vm_thread *t, const struct options *o)
{
    struct method *entry = vm->module->entry;
    int rc = 2;

    if (pool_start(vm, o->config.workers) == 0 && sampler_start(vm) == 0 &&
        vm_init_objects(t) == 0 && (entry->nargs == 0 || push_args(t, o) == 0)) {
        ev_module_load(vm->module);
        rc = exit_code(t, interp_run(t, entry));
        pool_sync(t); /* work still queued runs to its end */
    }
    vm_lock_release(vm);
    pool_stop(vm);
    sampler_stop(vm);
    vm_lock_acquire(vm);
    ev_module_unload(vm->module, vm->stats.methods_compiled);
    return rc;
}

static void report(const struct vm *vm, uint64_t run_ns)
{
    fprintf(stderr,
            "minivm: %.3f s, %" PRIu32 " collections, %" PRIu64 " bytes allocated, %" PRIu32
            " methods compiled (%" PRIu32 " to native code), %" PRIu64
            " exceptions thrown (%" PRIu64 " unhandled), %" PRIu64 " work items\n",
            (double)run_ns / 1e9, vm->heap.gc_count, vm->heap.total_allocated,
            vm->stats.methods_compiled, vm->stats.methods_jitted, vm->stats.exceptions_thrown,
            vm->stats.unhandled, vm->stats.work_items);
}

int main(int argc, char **argv)
{
    struct options o;
    struct vm vm = { 0 };
    struct vm_thread *t;
    int rc = parse_options(argc, argv, &o);
    uint64_t start = now_ns();

    if (rc >= 0)
        return rc;
    if (!(vm.module = load(&o)))
        return 2;
    vm.config = o.config;
    vm.start_ns = start;
    /* Interpreted methods in the stacks of events (docs/stacks.md). */
    palev_stack_add_walker(vm_stack_walker, NULL);
    threads_init(&vm);
    heap_init(&vm.heap, o.config.heap_limit, o.config.young_budget);
    if (!(t = thread_new(&vm, THREAD_MAIN))) {
        rc = 2;
        goto end;
    }
    vm_lock_acquire(&vm);
    ev_runtime_start(&vm, o.program ? o.program : WORKLOAD_PATH);
    thread_attach(t);
    rc = run(&vm, t, &o);
    thread_detach(t);
    ev_runtime_stop(&vm, rc, now_ns() - start);
    vm_lock_release(&vm);
    if (o.config.verbose)
        report(&vm, now_ns() - start);
end:
    thread_free(t);
    heap_fini(&vm.heap);
    module_free(vm.module);
    threads_fini(&vm);
    stdlib_fini();
    palev_fini();
    return rc;
}
