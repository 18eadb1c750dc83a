/* SPDX-License-Identifier: MIT */
/* Malloc interposer of the benchmark: counts the heap allocations of each thread, then hands the
 * call to glibc's allocator. Defined in the executable (and exported), so it also sees the
 * allocations of libpaleventing, jansson and liblttng-ust. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench.h"

/* glibc's allocator under its own names (exported by libc.so.6 for exactly this use). */
void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void *__libc_memalign(size_t align, size_t size);
void __libc_free(void *p);

/* Declared by <malloc.h>, which also declares the interposed functions differently. */
void *memalign(size_t align, size_t size);
void *valloc(size_t size);
void *pvalloc(size_t size);

static _Thread_local uint64_t allocs __attribute__((tls_model("initial-exec")));

uint64_t bench_allocs(void)
{
    return allocs;
}

void *malloc(size_t size)
{
    allocs++;
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    allocs++;
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    allocs++;
    return __libc_realloc(p, size);
}

void free(void *p)
{
    __libc_free(p);
}

void *memalign(size_t align, size_t size)
{
    allocs++;
    return __libc_memalign(align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
    allocs++;
    return __libc_memalign(align, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
    void *p;

    if (align < sizeof(void *) || (align & (align - 1)) != 0)
        return EINVAL;
    allocs++;
    p = __libc_memalign(align, size);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

void *valloc(size_t size)
{
    allocs++;
    return __libc_memalign((size_t)sysconf(_SC_PAGESIZE), size);
}

void *pvalloc(size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);

    allocs++;
    return __libc_memalign(page, (size + page - 1) / page * page);
}
