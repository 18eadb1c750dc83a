/* SPDX-License-Identifier: MIT */
/* A minimal JIT for the perf tests, run a while:
 *   jit_host [SECONDS]              one x86-64 hot loop, logged as "jit_hot_loop"
 *   jit_host SECONDS nofp [bare]    code keeping no frame pointer ("jit_nofp", rbp cleared) calling
 *                                   jit_spin(), a C loop; logged with its DWARF CFI, or without
 *                                   any unwind description (bare) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "paleventing.h"

#define SKIP 77
#define CALL_ITERATIONS 10000000u

#if defined(__x86_64__)
/* uint64_t hot_loop(uint64_t n): counts rax up to n, all in registers. */
static const unsigned char hot_loop[] = {
    0x31, 0xc0,                 /* xor  eax, eax */
    0x48, 0x83, 0xc0, 0x01,     /* 1: add rax, 1 */
    0x48, 0x39, 0xf8,           /* cmp  rax, rdi */
    0x72, 0xf7,                 /* jb   1b */
    0xc3,                       /* ret */
};

/* push rbp; sub rsp, 16; xor ebp, ebp; call *rdi; add rsp, 16; pop rbp; ret */
static const unsigned char nofp[] = { 0x55, 0x48, 0x83, 0xec, 0x10, 0x31, 0xed, 0xff, 0xd7,
                                      0x48, 0x83, 0xc4, 0x10, 0x5d, 0xc3 };
/* Exact at every byte: +1 CFA rsp+16, rbp at CFA-16; +5 CFA rsp+32; +13 CFA rsp+16; +14 CFA
 * rsp+8, rbp restored. */
static const unsigned char nofp_cfi[] = { 0x41, 0x0e, 0x10, 0x86, 0x02, 0x44, 0x0e, 0x20,
                                          0x48, 0x0e, 0x10, 0x41, 0x0e, 0x08, 0xc6 };

static volatile uint64_t spun;

__attribute__((noinline)) void jit_spin(void);
__attribute__((noinline)) void jit_spin(void)
{
    for (unsigned i = 0; i < 100000; i++)
        spun++;
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Written while writable, then made executable: never both at once. */
static void *emit(const void *code, size_t size)
{
    void *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (mem == MAP_FAILED)
        return NULL;
    memcpy(mem, code, size);
    if (mprotect(mem, 4096, PROT_READ | PROT_EXEC) != 0) {
        munmap(mem, 4096);
        return NULL;
    }
    return mem;
}

/* The JIT code calls jit_spin() until `seconds` passed: nearly every sample is in jit_spin(),
 * below the JIT frame. */
__attribute__((noinline)) static int run_nofp(double seconds, int bare)
{
    static const palev_code_unwind unwind = { .cfi = nofp_cfi, .cfi_size = sizeof(nofp_cfi) };
    void *mem = emit(nofp, sizeof(nofp));
    void (*fn)(void (*)(void));
    uint64_t calls = 0;
    double end;
    int ret;

    if (!mem) {
        perror("jit_host: mmap/mprotect");
        return 1;
    }
    ret = bare ? palev_code_load(mem, sizeof(nofp), "jit_nofp")
               : palev_code_load_unwind(mem, sizeof(nofp), "jit_nofp", &unwind);
    memcpy(&fn, &mem, sizeof(fn));
    for (end = now() + seconds; now() < end; calls++)
        fn(jit_spin);
    printf("pid=%d\nlog=%d\nenabled=%d\ncalls=%llu\n", (int)getpid(), ret,
           palev_perfmap_is_enabled(), (unsigned long long)calls);
    return ret != 0;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.5, end;
    void *mem;
    uint64_t (*fn)(uint64_t), calls = 0, sum = 0;
    char stale[64];
    int ret;

    /* A map an earlier process with this pid left in /tmp (the suite's other JIT hosts write
     * them, some as another user) is not ours: the checks are of what this host writes. The
     * library opens the map at the first code load, after this. */
    snprintf(stale, sizeof(stale), "/tmp/perf-%d.map", (int)getpid());
    unlink(stale);
    if (argc > 2 && strcmp(argv[2], "nofp") == 0) {
        ret = run_nofp(seconds, argc > 3 && strcmp(argv[3], "bare") == 0);
        spun++;         /* no tail call: main stays on the stack */
        return ret;
    }
    if (!(mem = emit(hot_loop, sizeof(hot_loop)))) {
        perror("jit_host: mmap/mprotect");
        return 1;
    }
    ret = palev_code_load(mem, sizeof(hot_loop), "jit_hot_loop");
    memcpy(&fn, &mem, sizeof(fn));
    for (end = now() + seconds; now() < end; calls++)
        sum += fn(CALL_ITERATIONS);
    printf("pid=%d\nlog=%d\nenabled=%d\ncalls=%llu\n", (int)getpid(), ret,
           palev_perfmap_is_enabled(), (unsigned long long)calls);
    return ret != 0 || sum != calls * CALL_ITERATIONS;
}
#else
int main(void)
{
    puts("jit_host: emits x86-64 code only");
    return SKIP;
}
#endif
