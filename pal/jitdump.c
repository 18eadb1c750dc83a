/* SPDX-License-Identifier: MIT */
/* perf's jitdump, format version 1: <dir>/jit-<pid>.dump for `perf inject --jit`. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* The layout of tools/perf/util/jitdump.h (and Documentation/jitdump-specification.txt). perf
 * reads the magic to learn the byte order, and refuses versions above 1. */
#define JITDUMP_MAGIC 0x4A695444u
#define JITDUMP_VERSION 1
#define JIT_CODE_LOAD 0
#define JIT_CODE_CLOSE 3
#define JIT_CODE_UNWINDING_INFO 4

#if defined(__x86_64__)
#define ELF_MACHINE_FALLBACK EM_X86_64
#elif defined(__aarch64__)
#define ELF_MACHINE_FALLBACK EM_AARCH64
#elif defined(__i386__)
#define ELF_MACHINE_FALLBACK EM_386
#else
#define ELF_MACHINE_FALLBACK EM_NONE
#endif

struct file_header {
    uint32_t magic;
    uint32_t version;
    uint32_t total_size;
    uint32_t elf_mach;
    uint32_t pad1;
    uint32_t pid;
    uint64_t timestamp;
    uint64_t flags;
};

struct record_prefix {
    uint32_t id;
    uint32_t total_size;
    uint64_t timestamp;
};

/* Followed by the NUL-terminated name, then code_size bytes of code. */
struct code_load {
    struct record_prefix p;
    uint32_t pid;
    uint32_t tid;
    uint64_t vma;
    uint64_t code_addr;
    uint64_t code_size;
    uint64_t code_index;
};

/* Followed by .eh_frame then .eh_frame_hdr (unwinding_size bytes in all), zero-padded to 8.
 * perf inject --jit keeps it for the next CODE_LOAD, whose ELF gets both sections. */
struct unwinding_info {
    struct record_prefix p;
    uint64_t unwinding_size;
    uint64_t eh_frame_hdr_size;
    uint64_t mapped_size;       /* what the map of the code covers after it (8-aligned) */
};

_Static_assert(sizeof(struct file_header) == 40, "perf's struct jitheader is 40 bytes");
_Static_assert(sizeof(struct unwinding_info) == 40, "perf's jr_code_unwinding_info is 40 bytes");
_Static_assert(sizeof(struct code_load) == 56, "perf's struct jr_code_load is 56 bytes");

/* Every use of fd is under the lock, so closing it after a failure cannot hit a reused number. */
static struct {
    pthread_mutex_t lock;
    int fd;                 /* -1: never opened, closed at exit, or off after a failure */
    pid_t pid;              /* the opener: a child forked without exec must not write here */
    uint64_t code_index;
    void *marker;
    size_t marker_size;
    char path[PATH_MAX];
} jd = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

/* CLOCK_MONOTONIC is what `perf record -k 1` stamps samples with: inject orders by it. */
static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The machine of the running executable's ELF header (in our own byte order, as it runs). */
static uint32_t elf_machine(void)
{
    ElfW(Ehdr) eh;
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? pread(fd, &eh, sizeof(eh), 0) : -1;

    if (fd >= 0)
        close(fd);
    if (n == (ssize_t)sizeof(eh) && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0)
        return eh.e_machine;
    return ELF_MACHINE_FALLBACK;
}

/* writev until everything is written: the lock is held, so finishing a short write is safe, and
 * the retry reports the real error (ENOSPC, EFBIG) when there is one. */
static int write_all(struct iovec *iov, int iovcnt)
{
    while (iovcnt > 0) {
        ssize_t n = writev(jd.fd, iov, iovcnt);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
        for (; iovcnt > 0 && (size_t)n >= iov->iov_len; iov++, iovcnt--)
            n -= (ssize_t)iov->iov_len;
        if (iovcnt > 0) {
            iov->iov_base = (char *)iov->iov_base + n;
            iov->iov_len -= (size_t)n;
        }
    }
    return 0;
}

/* Under the lock: a failed dump is closed for good; what it holds so far stays readable.
 * `op` names the call that failed, if any: "write: No space left on device". */
static void turn_off(const char *op, const char *why)
{
    palev__debug("jitdump off: path=\"%s\", reason=\"%s%s%s\"", jd.path, op ? op : "",
                 op ? ": " : "", why);
    if (jd.marker)
        munmap(jd.marker, jd.marker_size);
    jd.marker = NULL;
    if (jd.fd >= 0)
        close(jd.fd);
    jd.fd = -1;
}

static int write_header(void)
{
    struct file_header h = {
        .magic = JITDUMP_MAGIC, .version = JITDUMP_VERSION, .total_size = sizeof(h),
        .elf_mach = elf_machine(), .pid = (uint32_t)jd.pid, .timestamp = now_ns(),
    };
    struct iovec iov = { &h, sizeof(h) };

    return write_all(&iov, 1);
}

/* perf record notes executable mappings only: this one, of the dump itself, is the marker that
 * tells perf inject which file holds the process's JIT code. It is never touched. */
static int map_marker(void)
{
    long page = sysconf(_SC_PAGESIZE);

    jd.marker_size = page > 0 ? (size_t)page : 4096;
    jd.marker = mmap(NULL, jd.marker_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, jd.fd, 0);
    if (jd.marker == MAP_FAILED) {
        jd.marker = NULL;
        return -errno;
    }
    return 0;
}

/* The file's content from scratch: the header, then the marker. `*op` names a failed step. */
static int start_dump(const char **op)
{
    int ret;

    *op = "ftruncate";
    if (ftruncate(jd.fd, 0) != 0)
        return -errno;
    *op = "write";
    ret = write_header();
    if (ret)
        return ret;
    *op = "mmap";
    return map_marker();
}

/* An existing file of ours is a stale dump of an earlier process with our pid: start it over. */
int palev__jitdump_open(const char *dir)
{
    const char *op = NULL, *why = NULL;
    int n, ret;

    pthread_mutex_lock(&jd.lock);
    jd.pid = getpid();
    n = snprintf(jd.path, sizeof(jd.path), "%s/jit-%d.dump", dir, (int)jd.pid);
    if (n < 0 || (size_t)n >= sizeof(jd.path)) {
        ret = -ENAMETOOLONG;
        why = "path too long";
        goto end;
    }
    ret = palev__safe_file_open(jd.path, O_RDWR, &why);
    if (ret < 0)
        goto end;
    jd.fd = ret;
    ret = start_dump(&op);
    why = strerror(-ret);
end:
    if (ret < 0)
        turn_off(op, why);
    else
        palev__debug("jitdump on: path=\"%s\"", jd.path);
    pthread_mutex_unlock(&jd.lock);
    return ret < 0 ? ret : 0;
}

/* The unwinding record of `rule` for code of `size` bytes into buf: returns its size, 0 when
 * there is no rule. The record's .eh_frame is laid out for the ELF perf inject writes. */
static size_t unwinding_record(unsigned char *buf, const struct palev__unwind_rule *rule,
                               uint64_t code, uint64_t size)
{
    struct unwinding_info u = { .p = { .id = JIT_CODE_UNWINDING_INFO } };
    size_t fde_at, eh, total;

    if (!rule)
        return 0;
    eh = palev__eh_frame(buf + sizeof(u), PALEV__EH_FRAME_MAX, rule, code, size, 1, &fde_at);
    palev__eh_frame_hdr(buf + sizeof(u) + eh, size, eh, fde_at);
    u.unwinding_size = eh + PALEV__EH_FRAME_HDR_SIZE;
    u.eh_frame_hdr_size = PALEV__EH_FRAME_HDR_SIZE;
    /* perf's unwinder reads the sections through the process's map of the code, which perf
     * inject extends by mapped_size: without it, nothing unwinds through the code. */
    u.mapped_size = u.unwinding_size;
    total = (sizeof(u) + u.unwinding_size + 7) & ~(size_t)7;
    memset(buf + sizeof(u) + u.unwinding_size, 0, total - sizeof(u) - u.unwinding_size);
    u.p.total_size = (uint32_t)total;
    u.p.timestamp = now_ns();
    memcpy(buf, &u, sizeof(u));
    return total;
}

/* The unwinding record if any, the prefix, the name and its NUL, the code: one writev, so
 * records are whole and adjacent, or the dump off. */
int palev__jitdump_write(const void *code, size_t size, const char *name, size_t len,
                         const struct palev__unwind_rule *rule)
{
    static const char nul;
    unsigned char unwinding[sizeof(struct unwinding_info) + PALEV__EH_FRAME_MAX +
                            PALEV__EH_FRAME_HDR_SIZE + 8];
    struct code_load r = {
        .p = { .id = JIT_CODE_LOAD, .total_size = (uint32_t)(sizeof(r) + len + 1 + size) },
        .pid = (uint32_t)jd.pid, .tid = (uint32_t)gettid(),
        .vma = (uintptr_t)code, .code_addr = (uintptr_t)code, .code_size = size,
    };
    struct iovec iov[] = {
        { unwinding, 0 },
        { &r, sizeof(r) }, { (void *)name, len }, { (void *)&nul, 1 }, { (void *)code, size },
    };
    int ret = 0;

    pthread_mutex_lock(&jd.lock);
    if (jd.fd < 0)
        goto end;
    iov[0].iov_len = unwinding_record(unwinding, rule, (uintptr_t)code, size);
    r.p.timestamp = now_ns();
    r.code_index = jd.code_index;
    ret = write_all(iov, 5);
    if (ret)
        turn_off("write", strerror(-ret));
    else
        jd.code_index++;
end:
    pthread_mutex_unlock(&jd.lock);
    return ret;
}

/* At exit; only in the process that opened the dump (a child forked without exec has its
 * parent's descriptor, not its own file). */
void palev__jitdump_close(void)
{
    struct record_prefix close_rec = { .id = JIT_CODE_CLOSE, .total_size = sizeof(close_rec) };
    struct iovec iov = { &close_rec, sizeof(close_rec) };

    if (jd.pid != getpid())
        return;
    pthread_mutex_lock(&jd.lock);
    if (jd.fd < 0)
        goto end;
    close_rec.timestamp = now_ns();
    if (write_all(&iov, 1) == 0)
        palev__debug("jitdump closed: path=\"%s\", records=%llu", jd.path,
                     (unsigned long long)jd.code_index);
    munmap(jd.marker, jd.marker_size);
    jd.marker = NULL;
    close(jd.fd);
    jd.fd = -1;
end:
    pthread_mutex_unlock(&jd.lock);
}

/* ---- fork (fork.c) ------------------------------------------------------------------------- */

/* Held around fork(): a record is never half written when the parent goes on, and the child
 * gets the lock free (it writes no record: perfmap.c turns its outputs off). */
void palev__jitdump_fork_prepare(void)
{
    pthread_mutex_lock(&jd.lock);
}

void palev__jitdump_fork_parent(void)
{
    pthread_mutex_unlock(&jd.lock);
}

void palev__jitdump_fork_child(void)
{
    pthread_mutex_unlock(&jd.lock);
}
