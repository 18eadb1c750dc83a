/* SPDX-License-Identifier: MIT */
/* Host of the CPU tests: where its time goes is known by construction, and measured by the host
 * itself (its report on stdout is the tests' oracle).
 *   shares ROUNDS UNIT_MS  per round, CPU time in named functions (thread CPU time, so a loaded
 *                          machine does not change the shares): burn_inside 20 units inside a
 *                          Phase of Kind 1 (Outcome 7), burn_kind2 10 inside a Phase of Kind 2
 *                          (Outcome 8), burn_outside 25 outside any, JIT code "jit_loop_one" 15
 *                          then, freed and loaded again at the same address, "jit_loop_two" 15
 *                          (the same bytes: only the time tells them apart), and
 *                          burn_worker 15 on a second thread while the main thread waits inside a
 *                          Phase of Kind 3 (Outcome 9). Prints each function's CPU milliseconds.
 *   block ROUNDS MS        per round, inside a Phase of Kind 4 (Outcome 10), the main thread
 *                          blocks MS ms three ways: wait_sleep (nanosleep), wait_mutex (a mutex
 *                          another thread holds), wait_pipe (read from a pipe another thread
 *                          writes). Prints each way's wall milliseconds as the host measured them.
 * Everything is built with frame pointers (perf's fp call stacks); a function calling into libc,
 * which has none, is missing from stacks taken inside libc: the wait_* functions are called
 * through a caller of their own (sleep_case, ...) that stays in the stack. */
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <paleventing.h>

#include "Palev_Cpu-events.h"

#define NOINLINE __attribute__((noinline))
#define CHUNK 100000u       /* iterations between two looks at the clock: about 0.1-0.3 ms */
#define JIT_ITERATIONS 300000u

static double thread_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A leaf burning `ms` of this thread's CPU, its loop inside itself; returns what it spent. */
#define BURN(name)                                                            \
    NOINLINE double name(double ms);                                          \
    NOINLINE double name(double ms)                                           \
    {                                                                         \
        double start = thread_ms(), now;                                      \
        uint64_t x = 1;                                                       \
        do {                                                                  \
            for (unsigned i = 0; i < CHUNK; i++) {                            \
                x = x * 6364136223846793005ull + 1442695040888963407ull;      \
                __asm__ volatile("" : "+r"(x));                               \
            }                                                                 \
        } while ((now = thread_ms()) - start < ms);                           \
        return now - start;                                                   \
    }

BURN(burn_inside)
BURN(burn_kind2)
BURN(burn_outside)
BURN(burn_worker)

/* ---- JIT code: two loops, one after the other at the same address ------------------------- */

#if defined(__x86_64__)
/* uint64_t loop(uint64_t n): counts n down to 0. Both methods get these bytes at the same address:
 * their samples have the same addresses, and only the time tells which method ran. */
static const unsigned char loop_code[] = {
    0x48, 0x89, 0xf8,           /* mov  rax, rdi */
    0x48, 0x83, 0xe8, 0x01,     /* 1: sub rax, 1 */
    0x75, 0xfa,                 /* jnz  1b */
    0xc3,                       /* ret */
};
#endif

static void *jit_page;

/* The page holds `code`, named `name`, and is executable (never writable at the same time). */
static int jit_install(const unsigned char *code, size_t size, const char *name)
{
    if (mprotect(jit_page, 4096, PROT_READ | PROT_WRITE) != 0)
        return -1;
    memcpy(jit_page, code, size);
    if (mprotect(jit_page, 4096, PROT_READ | PROT_EXEC) != 0)
        return -1;
    return palev_code_load(jit_page, size, name);
}

/* Calls the JIT code until `ms` of CPU went by; the code itself is the leaf the samples see. */
NOINLINE static double run_jit(double ms)
{
    uint64_t (*fn)(uint64_t);
    double start = thread_ms(), now;
    memcpy(&fn, &jit_page, sizeof(fn));
    do {
        for (int i = 0; i < 4; i++)
            fn(JIT_ITERATIONS);
    } while ((now = thread_ms()) - start < ms);
    return now - start;
}

/* ---- the worker thread ------------------------------------------------------------------- */

static sem_t work_go, work_done;
static double worker_ms, worker_quota;
static int worker_stop;

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        sem_wait(&work_go);
        if (worker_stop)
            return NULL;
        worker_ms += burn_worker(worker_quota);
        sem_post(&work_done);
    }
}

/* ---- shares --------------------------------------------------------------------------------- */

static double spent[6];
enum { INSIDE, KIND2, OUTSIDE, JIT_ONE, JIT_TWO, WORKER };
static const char *const spent_names[] = { "burn_inside", "burn_kind2", "burn_outside", "jit_loop_one",
                                           "jit_loop_two", "burn_worker" };

NOINLINE static void phase(unsigned kind, unsigned outcome, double (*burn)(double), double ms, int slot)
{
    FireEventPhaseStart(kind);
    spent[slot] += burn(ms);
    FireEventPhaseStop(outcome);
}

NOINLINE static void phase_worker(double ms)
{
    FireEventPhaseStart(3);
    worker_quota = ms;
    sem_post(&work_go);
    sem_wait(&work_done);
    FireEventPhaseStop(9);
}

static int shares(int rounds, double unit)
{
#if defined(__x86_64__)
    pthread_t th;
    jit_page = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (jit_page == MAP_FAILED || sem_init(&work_go, 0, 0) || sem_init(&work_done, 0, 0) ||
        pthread_create(&th, NULL, worker, NULL)) {
        perror("cpu_host");
        return 1;
    }
    for (int r = 0; r < rounds; r++) {
        phase(1, 7, burn_inside, 20 * unit, INSIDE);
        phase(2, 8, burn_kind2, 10 * unit, KIND2);
        spent[OUTSIDE] += burn_outside(25 * unit);
        if (jit_install(loop_code, sizeof(loop_code), "jit_loop_one"))
            return 1;
        spent[JIT_ONE] += run_jit(15 * unit);
        palev_code_unload(jit_page);
        if (jit_install(loop_code, sizeof(loop_code), "jit_loop_two"))
            return 1;
        spent[JIT_TWO] += run_jit(15 * unit);
        palev_code_unload(jit_page);
        phase_worker(15 * unit);
    }
    worker_stop = 1;
    sem_post(&work_go);
    pthread_join(th, NULL);
    spent[WORKER] = worker_ms;
    printf("pid=%d\njit_page=%p\n", (int)getpid(), jit_page);
    for (int i = 0; i < 6; i++)
        printf("%s %.1f\n", spent_names[i], spent[i]);
    return 0;
#else
    (void)rounds;
    (void)unit;
    puts("cpu_host: the JIT code is x86-64");
    return 77;
#endif
}

/* ---- block ------------------------------------------------------------------------------------ */

static sem_t hold_go, held, write_go;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int pipefd[2];
static double block_ms;

static void sleep_ms(double ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)((ms - (double)(time_t)(ms / 1000) * 1000) * 1e6) };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void *holder(void *arg)
{
    (void)arg;
    for (;;) {
        sem_wait(&hold_go);
        if (worker_stop)
            return NULL;
        pthread_mutex_lock(&lock);
        sem_post(&held);
        sleep_ms(block_ms);
        pthread_mutex_unlock(&lock);
    }
}

static void *writer(void *arg)
{
    (void)arg;
    for (;;) {
        sem_wait(&write_go);
        if (worker_stop)
            return NULL;
        sleep_ms(block_ms);
        if (write(pipefd[1], "x", 1) != 1)
            return NULL;
    }
}

NOINLINE static void wait_sleep(void)
{
    sleep_ms(block_ms);
}

NOINLINE static void wait_mutex(void)
{
    pthread_mutex_lock(&lock);
    pthread_mutex_unlock(&lock);
}

NOINLINE static void wait_pipe(void)
{
    char c;
    if (read(pipefd[0], &c, 1) != 1)
        perror("cpu_host: read");
}

static double waited[3];

NOINLINE static void sleep_case(void)
{
    double t = wall_ms();
    wait_sleep();
    waited[0] += wall_ms() - t;
}

NOINLINE static void mutex_case(void)
{
    sem_post(&hold_go);
    sem_wait(&held);
    double t = wall_ms();
    wait_mutex();
    waited[1] += wall_ms() - t;
}

NOINLINE static void pipe_case(void)
{
    sem_post(&write_go);
    double t = wall_ms();
    wait_pipe();
    waited[2] += wall_ms() - t;
}

static int block(int rounds, double ms)
{
    pthread_t h, w;
    block_ms = ms;
    if (pipe(pipefd) || sem_init(&hold_go, 0, 0) || sem_init(&held, 0, 0) || sem_init(&write_go, 0, 0) ||
        pthread_create(&h, NULL, holder, NULL) || pthread_create(&w, NULL, writer, NULL)) {
        perror("cpu_host");
        return 1;
    }
    for (int r = 0; r < rounds; r++) {
        FireEventPhaseStart(4);
        sleep_case();
        mutex_case();
        pipe_case();
        FireEventPhaseStop(10);
    }
    worker_stop = 1;
    sem_post(&hold_go);
    sem_post(&write_go);
    pthread_join(h, NULL);
    pthread_join(w, NULL);
    printf("pid=%d\nwait_sleep %.1f\nwait_mutex %.1f\nwait_pipe %.1f\n", (int)getpid(), waited[0], waited[1],
           waited[2]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "shares") == 0)
        return shares(atoi(argv[2]), atof(argv[3]));
    if (argc == 4 && strcmp(argv[1], "block") == 0)
        return block(atoi(argv[2]), atof(argv[3]));
    fputs("usage: cpu_host shares ROUNDS UNIT_MS | block ROUNDS MS\n", stderr);
    return 2;
}
