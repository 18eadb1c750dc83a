/* SPDX-License-Identifier: MIT */
/* A minimal JIT for the perf tests: one x86-64 hot loop, logged as "jit_hot_loop", run a while. */
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

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.5, end;
    void *mem = emit(hot_loop, sizeof(hot_loop));
    uint64_t (*fn)(uint64_t), calls = 0, sum = 0;
    int ret;

    if (!mem) {
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
