/* SPDX-License-Identifier: MIT */
/* Host of the stack tests: events fired from known call chains, through a plugin, from
 * generated code, and from an interpreter's logical frames. Each mode fires exactly the events
 * stacks.sh expects, in order:
 *   chains PLUGIN.so  Fire(1) a->b->c, Fire(2) recursion 50 deep, Fire(3) through the plugin,
 *                     Mark from main, EventSource "Stacks/Hello" from main
 *   jit               Fire(10) through code "jit_one", unloaded; Fire(11) through "jit_two" at
 *                     the same address
 *   interp            Fire(20) inside the logical frames "Script.outer" > "Script.inner"
 *   rundown FILE      loads code "jit_early", writes FILE, waits for FILE to disappear (the
 *                     test starts a session meanwhile), then Fire(30) through it
 *   dynamic           Palev_StacksDyn:Tick(40), defined at run time, from dyn_fire
 *   stress FILE       4 threads firing, loading and unloading code, a walker registered, until
 *                     FILE disappears; the test starts and stops sessions (rundowns) meanwhile
 *   jitnofp           Fire(12), (13), (14) through JIT code keeping no frame pointer (rbp
 *                     zeroed): "jit_fixed" (a fixed-frame rule), "jit_cfi" (DWARF CFI), then
 *                     "jit_bare" (no rule: the walk ends there)
 *   walkers           Fire(24) on a thread whose walker reports "Script.other:3", Fire(21)
 *                     with "Script.inner:12" (this thread's walker) < "Script.outer:7" (a
 *                     process-wide one), Fire(22) once that one is removed, Fire(23) once the
 *                     thread's is removed too
 *   patch             Fire(15) through "jit_v0", Fire(16) after it is patched as "jit_v1",
 *                     Fire(18) after a patch keeping the name, Fire(19) through the same bytes
 *                     once palev_code_unload_area() dropped them, Fire(17) through "jit_after",
 *                     loaded there then */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <paleventing.h>

#include "Palev_Stacks-events.h"

#define NOINLINE __attribute__((noinline))

static volatile int sink;   /* used after each call: no call is a tail call */

NOINLINE void stack_c(unsigned v);
NOINLINE void stack_b(unsigned v);
NOINLINE void stack_a(unsigned v);
NOINLINE void stack_recurse(int depth, unsigned v);
NOINLINE void stack_from_plugin(void);

NOINLINE void stack_c(unsigned v)
{
    FireEventFire(v);
    sink++;
}

NOINLINE void stack_b(unsigned v)
{
    stack_c(v);
    sink++;
}

NOINLINE void stack_a(unsigned v)
{
    stack_b(v);
    sink++;
}

NOINLINE void stack_recurse(int depth, unsigned v)
{
    if (depth > 1)
        stack_recurse(depth - 1, v);
    else
        FireEventFire(v);
    sink++;
}

NOINLINE void stack_from_plugin(void)
{
    FireEventFire(3);
    sink++;
}

NOINLINE static int chains(const char *plugin_path)
{
    void *plugin = dlopen(plugin_path, RTLD_NOW);
    void (*run)(void (*)(void));

    if (!plugin) {
        fprintf(stderr, "stack_host: %s\n", dlerror());
        return 1;
    }
    *(void **)&run = dlsym(plugin, "stack_plugin_run");
    if (!run)
        return 1;
    stack_a(1);
    stack_recurse(50, 2);
    run(stack_from_plugin);
    FireEventMark();
    palev_eventsource_write("Stacks", 1, "Hello", "{}");
    sink++;
    return 0;
}

/* x86-64: push rbp; mov rbp, rsp; call *rdi; pop rbp; ret -- a JIT frame keeping frame pointers */
static const unsigned char trampoline[] = { 0x55, 0x48, 0x89, 0xe5, 0xff, 0xd7, 0x5d, 0xc3 };

static unsigned jit_value;

NOINLINE void stack_from_jit(void);
NOINLINE void stack_from_jit(void)
{
    FireEventFire(jit_value);
    sink++;
}

/* Code at `want` (or anywhere when NULL), named `name`: returns its address. */
static void *load_code(void *want, const char *name)
{
    void *mem = mmap(want, 4096, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | (want ? MAP_FIXED : 0), -1, 0);

    if (mem == MAP_FAILED)
        return NULL;
    memcpy(mem, trampoline, sizeof(trampoline));
    if (mprotect(mem, 4096, PROT_READ | PROT_EXEC) != 0)
        return NULL;
    palev_code_load(mem, sizeof(trampoline), name);
    return mem;
}

NOINLINE static void run_code(void *mem, unsigned value)
{
    void (*fn)(void (*)(void));

    jit_value = value;
    memcpy(&fn, &mem, sizeof(fn));
    fn(stack_from_jit);
    sink++;
}

NOINLINE static int jit(void)
{
    void *mem = load_code(NULL, "jit_one");

    if (!mem)
        return 1;
    run_code(mem, 10);
    palev_code_unload(mem);
    munmap(mem, 4096);
    if (load_code(mem, "jit_two") != mem)
        return 1;
    run_code(mem, 11);
    return 0;
}

/* ---- an interpreter: two logical frames inside the native frame of interp_loop ----------- */

static const char script_outer[16], script_inner[16];  /* "bytecode" of two methods */
static uintptr_t interp_frame;

static size_t walker(void *ctx, palev_stack_frame *frames, size_t max)
{
    (void)ctx;
    if (!interp_frame || max < 2)
        return 0;
    frames[0] = (palev_stack_frame){ .code = (uintptr_t)script_inner, .frame = interp_frame };
    frames[1] = (palev_stack_frame){ .code = (uintptr_t)script_outer, .frame = interp_frame };
    return 2;
}

NOINLINE void stack_interp_loop(void);
NOINLINE void stack_interp_loop(void)
{
    interp_frame = (uintptr_t)__builtin_frame_address(0);
    stack_c(20);
    interp_frame = 0;
    sink++;
}

NOINLINE static int interp(void)
{
    palev_code_load_interpreted(script_outer, sizeof(script_outer), "Script.outer");
    palev_code_load_interpreted(script_inner, sizeof(script_inner), "Script.inner");
    palev_stack_add_walker(walker, NULL);
    stack_interp_loop();
    return 0;
}

/* ---- JIT code without frame pointer ---------------------------------------------------------- */

/* x86-64, 15 bytes: push rbp; sub rsp, 16; xor ebp, ebp; call *rdi; add rsp, 16; pop rbp; ret.
 * No frame pointer set up, and rbp cleared as a JIT's register allocator may: a frame-pointer
 * walk from the callee finds 0 where the caller's frame should be. */
static const unsigned char nofp[] = { 0x55, 0x48, 0x83, 0xec, 0x10, 0x31, 0xed, 0xff, 0xd7,
                                      0x48, 0x83, 0xc4, 0x10, 0x5d, 0xc3 };
/* Its CFI, exact at every byte: +1 CFA rsp+16, rbp at CFA-16; +5 CFA rsp+32; +13 CFA rsp+16;
 * +14 CFA rsp+8, rbp restored. */
static const unsigned char nofp_cfi[] = { 0x41, 0x0e, 0x10, 0x86, 0x02, 0x44, 0x0e, 0x20,
                                          0x48, 0x0e, 0x10, 0x41, 0x0e, 0x08, 0xc6 };

static void *map_code(const unsigned char *bytes, size_t size)
{
    void *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (mem == MAP_FAILED)
        return NULL;
    memcpy(mem, bytes, size);
    if (mprotect(mem, 4096, PROT_READ | PROT_EXEC) != 0)
        return NULL;
    return mem;
}

NOINLINE static int jitnofp(void)
{
    static const palev_code_unwind fixed = { .cfa_offset = 32, .saved_fp = 16 };
    static const palev_code_unwind cfi = { .cfi = nofp_cfi, .cfi_size = sizeof(nofp_cfi) };
    void *a = map_code(nofp, sizeof(nofp)), *b = map_code(nofp, sizeof(nofp));
    void *c = map_code(nofp, sizeof(nofp));

    if (!a || !b || !c || palev_code_load_unwind(a, sizeof(nofp), "jit_fixed", &fixed) != 0 ||
        palev_code_load_unwind(b, sizeof(nofp), "jit_cfi", &cfi) != 0 ||
        palev_code_load(c, sizeof(nofp), "jit_bare") != 0)
        return 1;
    run_code(a, 12);
    run_code(b, 13);
    run_code(c, 14);
    return 0;
}

/* ---- walkers: a process-wide one, one per thread (per VM state), lines ------------------------ */

struct vm_state {
    const char *code;
    uint32_t line;
};

static const char script_other[16];
static __thread uintptr_t loop_frame, inner_frame;   /* the running interpreter loop's */

static size_t outer_walker(void *ctx, palev_stack_frame *frames, size_t max)
{
    (void)ctx;
    if (!loop_frame || max < 1)
        return 0;
    frames[0] = (palev_stack_frame){ .code = (uintptr_t)script_outer, .frame = loop_frame,
                                     .line = 7 };
    return 1;
}

static size_t state_walker(void *ctx, palev_stack_frame *frames, size_t max)
{
    const struct vm_state *st = ctx;

    if (!inner_frame || max < 1)
        return 0;
    frames[0] = (palev_stack_frame){ .code = (uintptr_t)st->code, .frame = inner_frame,
                                     .line = st->line };
    return 1;
}

NOINLINE void stack_walked_loop(unsigned v);
NOINLINE void stack_walked_loop(unsigned v)
{
    volatile char here = 0;

    loop_frame = (uintptr_t)__builtin_frame_address(0);
    inner_frame = (uintptr_t)&here;
    stack_c(v);
    loop_frame = inner_frame = 0;
    sink += here;
}

NOINLINE static void *walkers_thread(void *arg)
{
    static struct vm_state other = { script_other, 3 };

    (void)arg;
    if (palev_stack_add_thread_walker(state_walker, &other) != 0)
        return arg;
    stack_walked_loop(24);
    sink++;
    return NULL;
}

NOINLINE static int walkers(void)
{
    static struct vm_state main_state = { script_inner, 12 };
    pthread_t th;
    void *failed = &th;

    palev_code_load_interpreted(script_outer, sizeof(script_outer), "Script.outer");
    palev_code_load_interpreted(script_inner, sizeof(script_inner), "Script.inner");
    palev_code_load_interpreted(script_other, sizeof(script_other), "Script.other");
    if (palev_stack_add_walker(outer_walker, NULL) != 0 ||
        pthread_create(&th, NULL, walkers_thread, NULL) != 0 || pthread_join(th, &failed) != 0 ||
        failed || palev_stack_add_thread_walker(state_walker, &main_state) != 0)
        return 1;
    stack_walked_loop(21);
    if (palev_stack_remove_walker(outer_walker, NULL) != 0)
        return 1;
    stack_walked_loop(22);
    if (palev_stack_remove_thread_walker(state_walker, &main_state) != 0)
        return 1;
    stack_walked_loop(23);
    return 0;
}

/* ---- patched code, a flushed area ------------------------------------------------------------- */

NOINLINE static int patch(void)
{
    void *mem = load_code(NULL, "jit_v0");

    if (!mem)
        return 1;
    run_code(mem, 15);
    if (palev_code_patch(mem, 0, "jit_v1") != 0)
        return 1;
    run_code(mem, 16);
    if (palev_code_patch(mem, 0, NULL) != 0)
        return 1;
    run_code(mem, 18);
    if (palev_code_unload_area(mem, 4096) != 1)
        return 1;
    run_code(mem, 19);
    munmap(mem, 4096);
    if (load_code(mem, "jit_after") != mem)
        return 1;
    run_code(mem, 17);
    return 0;
}

NOINLINE static int rundown(const char *flag)
{
    void *mem = load_code(NULL, "jit_early");
    FILE *f = fopen(flag, "w");

    if (!mem || !f)
        return 1;
    fclose(f);
    for (int i = 0; i < 3000 && access(flag, F_OK) == 0; i++)
        usleep(10000);
    usleep(300000); /* the watcher polls every 100 ms */
    run_code(mem, 30);
    return 0;
}

/* ---- a dynamic event (palev_event_define): its stack too ------------------------------------ */

NOINLINE void dyn_fire(palev_event *ev, unsigned v);
NOINLINE void dyn_fire(palev_event *ev, unsigned v)
{
    palev_event_writef(ev, v);
    sink++;
}

NOINLINE static int dynamic(void)
{
    static const palev_field fields[] = { { "Value", PALEV_TYPE_UINT32, 0 } };
    palev_event *ev;

    if (palev_event_define("Palev_StacksDyn", "Tick", 4, 0, fields, 1, &ev) != 0)
        return 1;
    usleep(300000); /* the session daemon enables the new event */
    dyn_fire(ev, 40);
    return 0;
}

/* ---- stress: threads firing, loading and unloading code while sessions come and go -------- */

#define STRESS_THREADS 4

NOINLINE void stress_fire(unsigned v);
NOINLINE void stress_fire(unsigned v)
{
    FireEventFire(v);
    sink++;
}

static const char *stress_flag;

static void *stress_thread(void *arg)
{
    static char code[STRESS_THREADS][64];
    char *mine = code[(uintptr_t)arg];

    for (unsigned i = 0; i % 256 || access(stress_flag, F_OK) == 0; i++) {
        palev_code_load(mine + i % 64, 1, "stress");
        stress_fire(i);
        palev_eventsource_write("Stacks", 2, "Stress", "{}");
        if (i % 3 == 0)
            palev_code_unload(mine + i % 64);
        if (i % 16 == 15)
            usleep(1000); /* some 16 000 loops a second: the session daemon keeps up */
    }
    return NULL;
}

NOINLINE static int stress(const char *flag)
{
    pthread_t th[STRESS_THREADS];

    stress_flag = flag;
    palev_code_load_interpreted(script_outer, sizeof(script_outer), "Script.outer");
    palev_stack_add_walker(walker, NULL);
    for (uintptr_t i = 0; i < STRESS_THREADS; i++)
        if (pthread_create(&th[i], NULL, stress_thread, (void *)i) != 0)
            return 1;
    for (int i = 0; i < STRESS_THREADS; i++)
        pthread_join(th[i], NULL);
    return 0;
}

static inline __attribute__((always_inline)) int run(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "chains") == 0)
        return chains(argv[2]);
    if (argc == 2 && strcmp(argv[1], "jit") == 0)
        return jit();
    if (argc == 2 && strcmp(argv[1], "interp") == 0)
        return interp();
    if (argc == 3 && strcmp(argv[1], "rundown") == 0)
        return rundown(argv[2]);
    if (argc == 3 && strcmp(argv[1], "stress") == 0)
        return stress(argv[2]);
    if (argc == 2 && strcmp(argv[1], "dynamic") == 0)
        return dynamic();
    if (argc == 2 && strcmp(argv[1], "jitnofp") == 0)
        return jitnofp();
    if (argc == 2 && strcmp(argv[1], "walkers") == 0)
        return walkers();
    if (argc == 2 && strcmp(argv[1], "patch") == 0)
        return patch();
    fprintf(stderr, "usage: stack_host chains PLUGIN.so | jit | interp | rundown FILE | "
                    "stress FILE | dynamic | jitnofp | walkers | patch\n");
    return 2;
}

/* The modes are called, not jumped to: main stays on every stack. */
int main(int argc, char **argv)
{
    int ret = run(argc, argv);

    sink++;
    return ret;
}
