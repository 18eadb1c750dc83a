/* SPDX-License-Identifier: MIT */
/* Unit tests of JIT symbols for perf (perfmap.c, jitdump.c), each scenario in a child process. */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <uchar.h>
#include <unistd.h>

#include <cmocka.h>

#include "child.h"
#include "paleventing.h"

/* PALEV_PERFMAP is read once per process and the files are named after the pid, so every
 * scenario runs as a child: this executable with "--child MODE ARG...", a chosen environment,
 * stdout and stderr captured. The child logs and prints what the calls returned; the parent
 * reads the files back with its own small perf map and jitdump readers. */

#define WORK_ROOT PALEV_TEST_BIN_DIR
#define NOWHERE "/nonexistent-palev-dir"
#define THREADS 8
#define PER_THREAD 1000
#define CODE_AREA (1u << 17)
#define HUGE_CHARS 35000            /* "é" times this: 70000 bytes, cut to 65534 */
#define LONG_NAME 3000              /* longer than the stack line: the heap path */
#define AT " (in *() at *.c:[0-9]*)"

/* jitdump layout, from perf's tools/perf/util/jitdump.h, read independently of the library. */
#define JD_MAGIC 0x4A695444u
#define JD_HEADER 40
#define JD_PREFIX 16
#define JD_LOAD 56
#define JD_CODE_LOAD 0
#define JD_CODE_CLOSE 3

/* The code every child logs comes from here: byte i is pattern(i), so the parent knows it. */
static unsigned char code_area[CODE_AREA];

static unsigned char pattern(size_t i)
{
    return (unsigned char)(i * 131 + 7);
}

static void fill_code(void)
{
    for (size_t i = 0; i < CODE_AREA; i++)
        code_area[i] = pattern(i);
}

/* ---- what the "log" child logs, and the names perf must read back -------------------------- */

enum kind { UTF8, UTF16, UTF16_COUNTED, STUB };

static const char16_t lone_surrogate[] = { 'a', 0xD800, 'b', 0 };
static char long_name[LONG_NAME + 1], huge_name[2 * HUGE_CHARS + 1], huge_cut[2 * HUGE_CHARS];

static const struct logged {
    enum kind kind;
    const char *name;           /* UTF-8 name, or the stub kind */
    const char16_t *name16;
    const char *stub_name;
    size_t size;
    const char *expect;
} logged[] = {
    { UTF8, "jit_add", NULL, NULL, 16, "jit_add" },
    { UTF8, "Über::größe(int32) [Tier1]", NULL, NULL, 40, "Über::größe(int32) [Tier1]" },
    { UTF16, NULL, u"Füße→漢字😀", NULL, 24, "Füße→漢字😀" },
    { UTF16, NULL, lone_surrogate, NULL, 3, "a\xEF\xBF\xBD" "b" },
    { UTF16_COUNTED, NULL, u"abcdef", NULL, 5, "abc" },
    { STUB, "precode", NULL, "Foo.Bar", 8, "stub<precode> Foo.Bar" },
    { STUB, "thunk", NULL, NULL, 9, "stub<thunk>" },
    { STUB, "ic", NULL, "", 10, "stub<ic>" },
    { UTF8, "line\nbreak\r\nname", NULL, NULL, 4, "line break  name" },
    { UTF8, long_name, NULL, NULL, 200, long_name },
    { UTF8, huge_name, NULL, NULL, 100, huge_cut },
};
#define LOGGED (sizeof(logged) / sizeof(logged[0]))
#define OFFSET(k) ((size_t)(k) * 256)

static void fill_names(void)
{
    for (size_t i = 0; i < LONG_NAME; i++)
        long_name[i] = (char)('a' + i % 26);
    for (size_t i = 0; i < HUGE_CHARS; i++)
        memcpy(huge_name + 2 * i, "\xC3\xA9", 2);
    /* 65535 bytes would end inside an "é": the cut keeps whole characters */
    memcpy(huge_cut, huge_name, 65534);
}

/* `fmt` with every "%d" replaced by the pid: a child's paths, the parent's expectations. */
static void subst_pid(char *dst, size_t size, const char *fmt, int pid)
{
    char num[16];
    size_t len = 0, nlen = (size_t)snprintf(num, sizeof(num), "%d", pid);

    for (; *fmt && len + nlen < size; fmt++) {
        if (fmt[0] == '%' && fmt[1] == 'd') {
            memcpy(dst + len, num, nlen);
            len += nlen;
            fmt++;
        } else {
            dst[len++] = *fmt;
        }
    }
    dst[len] = '\0';
}

/* ---- the child side --------------------------------------------------------------------- */

static int log_entry(const struct logged *e, const void *code)
{
    switch (e->kind) {
    case UTF8:
        return palev_code_load(code, e->size, e->name);
    case UTF16:
        return palev_code_load_utf16(code, e->size, e->name16, PALEV_NUL_TERMINATED);
    case UTF16_COUNTED:
        return palev_code_load_utf16(code, e->size, e->name16, 3);
    case STUB:
        return palev_code_load_stub(code, e->size, e->name, e->stub_name);
    }
    return -1;
}

static void print_rets(const int *ret, size_t n)
{
    printf("base=%" PRIxPTR "\nret=", (uintptr_t)code_area);
    for (size_t i = 0; i < n; i++)
        printf("%s%d", i ? "," : "", ret[i]);
    printf("\nenabled=%d\n", palev_perfmap_is_enabled());
}

static int child_log(int argc, char **argv)
{
    int ret[LOGGED];

    (void)argc;
    (void)argv;
    for (size_t k = 0; k < LOGGED; k++)
        ret[k] = log_entry(&logged[k], code_area + OFFSET(k));
    print_rets(ret, LOGGED);
    return 0;
}

static uintptr_t thread_addr(int t, int m)
{
    return (uintptr_t)(t * 256 + m % 128);
}

static size_t thread_size(int m)
{
    return 1 + (size_t)(m % 100);
}

static void *thread_log(void *arg)
{
    int t = (int)(intptr_t)arg, failed = 0;
    char name[32];

    for (int m = 0; m < PER_THREAD; m++) {
        snprintf(name, sizeof(name), "t%d_m%d", t, m);
        failed |= palev_code_load(code_area + thread_addr(t, m), thread_size(m), name);
    }
    return (void *)(intptr_t)failed;
}

static int child_threads(int argc, char **argv)
{
    pthread_t th[THREADS];
    int ret[THREADS];

    (void)argc;
    (void)argv;
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, thread_log, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++) {
        void *r;

        pthread_join(th[t], &r);
        ret[t] = (int)(intptr_t)r;
    }
    print_rets(ret, THREADS);
    return 0;
}

static int child_invalid(int argc, char **argv)
{
    const void *c = code_area;
    int ret[] = {
        palev_code_load(NULL, 16, "null_code"),
        palev_code_load(c, 0, "zero_size"),
        palev_code_load(c, ((size_t)1 << 31) + 1, "too_big"),
        palev_code_load(c, 16, NULL),
        palev_code_load(c, 16, ""),
        palev_code_load_utf16(c, 16, NULL, PALEV_NUL_TERMINATED),
        palev_code_load_utf16(c, 16, u"", PALEV_NUL_TERMINATED),
        palev_code_load_utf16(c, 16, u"abc", 0),
        palev_code_load_stub(c, 16, NULL, "name"),
        palev_code_load_stub(c, 16, "", "name"),
        palev_code_load_stub(NULL, 16, "kind", "name"),
    };

    (void)argc;
    (void)argv;
    print_rets(ret, sizeof(ret) / sizeof(ret[0]));
    return 0;
}

/* argv: PATH_FORMAT (with %d for our pid) WHAT [ARG]; WHAT: symlink TARGET, hardlink TARGET,
 * fifo, file CONTENT, foreign CONTENT (owned by uid 65534). Then one method is logged. */
static int plant(const char *path, const char *what, const char *arg)
{
    int fd;

    if (strcmp(what, "symlink") == 0)
        return symlink(arg, path);
    if (strcmp(what, "hardlink") == 0)
        return link(arg, path);
    if (strcmp(what, "fifo") == 0)
        return mkfifo(path, 0600);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0 || write(fd, arg, strlen(arg)) != (ssize_t)strlen(arg))
        return -1;
    if (strcmp(what, "foreign") == 0 && fchown(fd, 65534, 65534) != 0)
        return -1;
    return close(fd);
}

static int child_plant(int argc, char **argv)
{
    char path[PATH_MAX];
    int ret;

    if (argc < 2)
        return 2;
    subst_pid(path, sizeof(path), argv[0], (int)getpid());
    unlink(path); /* a jitdump an earlier process with this pid left (maps: main()) */
    if (plant(path, argv[1], argc > 2 ? argv[2] : "") != 0) {
        perror("plant");
        return 3;
    }
    ret = palev_code_load(code_area, 32, "planted");
    print_rets(&ret, 1);
    return 0;
}

/* Soft limit only, so that it can be raised back: stdout and stderr are files too. */
static void limit_file_size(rlim_t bytes)
{
    struct rlimit rl;

    getrlimit(RLIMIT_FSIZE, &rl);
    rl.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &rl);
}

static off_t file_size(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 ? st.st_size : -1;
}

/* The jitdump fails first (a 32 KiB method past a 16 KiB limit), then the map (at its size). */
static int child_fsize(int argc, char **argv)
{
    char map[64];
    int ret[6];

    (void)argc;
    (void)argv;
    signal(SIGXFSZ, SIG_IGN);
    snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
    ret[0] = palev_code_load(code_area, 16, "fits");
    limit_file_size(16384);
    ret[1] = palev_code_load(code_area, 32768, "too_big_for_the_dump");
    limit_file_size(RLIM_INFINITY);
    ret[2] = palev_code_load(code_area, 16, "map_only");
    ret[3] = palev_code_load(code_area, 16, huge_name);
    limit_file_size((rlim_t)file_size(map));
    ret[4] = palev_code_load(code_area, 16, "too_big_for_the_map");
    limit_file_size(RLIM_INFINITY);
    ret[5] = palev_code_load(code_area, 16, "nowhere");
    print_rets(ret, 6);
    return 0;
}

/* A child forked without exec: it must neither write to its parent's files nor make its own,
 * and its exit must not close its parent's jitdump. */
static int child_fork(int argc, char **argv)
{
    int ret[3], status;
    pid_t pid;

    (void)argc;
    (void)argv;
    ret[0] = palev_code_load(code_area, 16, "before_fork");
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        printf("forked: log=%d on=%d pid=%d\n",
               palev_code_load(code_area, 16, "in_child"), palev_perfmap_is_enabled(),
               (int)getpid());
        exit(0);
    }
    ret[1] = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? 0 : -1;
    ret[2] = palev_code_load(code_area + 16, 16, "after_fork");
    print_rets(ret, 3);
    return 0;
}

static const struct child_mode child_modes[] = {
    { "log", child_log },
    { "threads", child_threads },
    { "invalid", child_invalid },
    { "plant", child_plant },
    { "fsize", child_fsize },
    { "fork", child_fork },
};

/* ---- the parent side: running children ---------------------------------------------------- */

struct run {
    struct child c;
    uintptr_t base;
    char ret[256];
    int enabled;
    char map[64];               /* /tmp/perf-<pid>.map */
    char dump[PATH_MAX];        /* <dir>/jit-<pid>.dump */
};

static char work[PATH_MAX];     /* a fresh directory per test: PALEV_PERFMAP_DIR */
/* The children of the current test, whose files in /tmp its teardown removes (even after a
 * failed assertion). */
static pid_t spawned[16];
static size_t spawned_count;

static void parse_out(struct run *r)
{
    const char *ret = strstr(r->c.out, "ret="), *en = strstr(r->c.out, "enabled=");

    assert_non_null(ret);
    assert_non_null(en);
    sscanf(strstr(r->c.out, "base="), "base=%" SCNxPTR, &r->base);
    sscanf(ret, "ret=%255s", r->ret);
    sscanf(en, "enabled=%d", &r->enabled);
}

/* env: NULL-terminated "NAME=value" strings; args: MODE ARG... The files a child may leave are
 * named in r->map and r->dump (dump in `dir`, NULL for the default /tmp). */
static void note_spawned(pid_t pid)
{
    if (spawned_count < sizeof(spawned) / sizeof(spawned[0]))
        spawned[spawned_count++] = pid;
}

static void run_child(struct run *r, const char *const *env, const char *dir,
                      const char *const *args)
{
    /* named before the child is waited for: a failed child's files are removed too */
    child_run(&r->c, env, args, note_spawned);
    snprintf(r->map, sizeof(r->map), "/tmp/perf-%d.map", (int)r->c.pid);
    snprintf(r->dump, sizeof(r->dump), "%s/jit-%d.dump", dir ? dir : "/tmp", (int)r->c.pid);
    parse_out(r);
}


/* The lines about perf (the library may say other things under PALEV_DEBUG) must match the
 * patterns in order, and be all. Patterns are fnmatch patterns after "%d" is replaced by pid. */
static void assert_perf_lines(const struct run *r, const char *const *patterns)
{
    const char *line = r->c.err;
    size_t i = 0;

    for (const char *nl; (nl = strchr(line, '\n')); line = nl + 1) {
        char buf[8192], want[8192];

        snprintf(buf, sizeof(buf), "%.*s", (int)(nl - line), line);
        if (!strstr(buf, "paleventing: perf map ") && !strstr(buf, "paleventing: jitdump "))
            continue;
        if (!patterns[i])
            fail_msg("unexpected line: %s", buf);
        subst_pid(want, sizeof(want), patterns[i], (int)r->c.pid);
        if (fnmatch(want, buf, 0) != 0)
            fail_msg("line %zu:\n  got:  %s\n  want: %s", i + 1, buf, want);
        i++;
    }
    if (patterns[i])
        fail_msg("missing line: %s\nstderr was:\n%s", patterns[i], r->c.err);
}

static int exists(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

static void assert_dir_empty(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    assert_non_null(d);
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, ".."))
            fail_msg("%s/%s should not exist", dir, e->d_name);
    closedir(d);
}

static int setup_work(void **state)
{
    (void)state;
    snprintf(work, sizeof(work), "%s/perfmap-XXXXXX", WORK_ROOT);
    return mkdtemp(work) ? 0 : -1;
}

static int teardown_work(void **state)
{
    DIR *d = opendir(work);
    struct dirent *e;
    char path[PATH_MAX * 2];

    (void)state;
    for (size_t i = 0; i < spawned_count; i++) {
        snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)spawned[i]);
        unlink(path);
        snprintf(path, sizeof(path), "/tmp/jit-%d.dump", (int)spawned[i]);
        unlink(path);
    }
    spawned_count = 0;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof(path), "%s/%s", work, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    return rmdir(work);
}

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    if (!f)
        fail_msg("cannot open %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *size = (size_t)n;
    return buf;
}

/* ---- the perf map reader ------------------------------------------------------------------ */

struct map_line {
    uintptr_t start;
    size_t size;
    char *name;
};

/* Every line "START SIZE NAME\n" in perf's format: hex without 0x, one space each. */
static size_t read_map(const char *path, struct map_line **out, char **text)
{
    size_t size, count = 0, cap = 16;
    char *p = *text = read_file(path, &size);
    struct map_line *lines = malloc(cap * sizeof(*lines));

    assert_true(size == 0 || p[size - 1] == '\n');
    for (char *nl; (nl = strchr(p, '\n')); p = nl + 1) {
        int used = 0;

        *nl = '\0';
        if (count == cap)
            lines = realloc(lines, (cap *= 2) * sizeof(*lines));
        if (sscanf(p, "%" SCNxPTR " %zx %n", &lines[count].start, &lines[count].size, &used) != 2 ||
            used == 0 || strncmp(p, "0x", 2) == 0)
            fail_msg("malformed perf map line: %s", p);
        lines[count++].name = p + used;
    }
    *out = lines;
    return count;
}

/* ---- the jitdump reader ------------------------------------------------------------------- */

struct jd_record {
    uint32_t id, total_size;
    uint64_t timestamp;
    /* CODE_LOAD */
    uint32_t pid, tid;
    uint64_t vma, code_addr, code_size, code_index;
    const char *name;
    const unsigned char *code;
};

struct jd_file {
    unsigned char *data;
    uint32_t version, total_size, elf_mach, pid;
    uint64_t timestamp, flags;
    size_t count;
    struct jd_record *rec;
    int truncated;              /* the last record runs past the end of the file */
};

static uint32_t u32(const unsigned char *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

static uint64_t u64(const unsigned char *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

/* A CODE_LOAD's body: fields, then the name and its NUL, then exactly code_size code bytes. */
static void jd_code_load(struct jd_record *r, const unsigned char *p)
{
    size_t name_len;

    assert_true(r->total_size >= JD_LOAD + 1);
    r->pid = u32(p + 16);
    r->tid = u32(p + 20);
    r->vma = u64(p + 24);
    r->code_addr = u64(p + 32);
    r->code_size = u64(p + 40);
    r->code_index = u64(p + 48);
    r->name = (const char *)p + JD_LOAD;
    name_len = strnlen(r->name, r->total_size - JD_LOAD);
    assert_true(name_len < r->total_size - JD_LOAD);
    assert_int_equal(r->total_size, JD_LOAD + name_len + 1 + r->code_size);
    r->code = p + JD_LOAD + name_len + 1;
}

static void jd_read(struct jd_file *f, const char *path)
{
    size_t size, off = JD_HEADER, cap = 16;

    memset(f, 0, sizeof(*f));
    f->data = (unsigned char *)read_file(path, &size);
    assert_true(size >= JD_HEADER);
    assert_int_equal(u32(f->data), JD_MAGIC);
    f->version = u32(f->data + 4);
    f->total_size = u32(f->data + 8);
    f->elf_mach = u32(f->data + 12);
    f->pid = u32(f->data + 20);
    f->timestamp = u64(f->data + 24);
    f->flags = u64(f->data + 32);
    f->rec = malloc(cap * sizeof(*f->rec));
    while (off + JD_PREFIX <= size) {
        struct jd_record *r;

        if (f->count == cap)
            f->rec = realloc(f->rec, (cap *= 2) * sizeof(*f->rec));
        r = memset(&f->rec[f->count], 0, sizeof(*r));
        r->id = u32(f->data + off);
        r->total_size = u32(f->data + off + 4);
        r->timestamp = u64(f->data + off + 8);
        assert_true(r->total_size >= JD_PREFIX);
        if (off + r->total_size > size)
            break;
        if (r->id == JD_CODE_LOAD)
            jd_code_load(r, f->data + off);
        f->count++;
        off += r->total_size;
    }
    f->truncated = off != size;
}

static void jd_free(struct jd_file *f)
{
    free(f->data);
    free(f->rec);
}

/* The machine in our own ELF header: the library reads its executable's the same way. */
static uint32_t own_machine(void)
{
    ElfW(Ehdr) eh;
    FILE *f = fopen("/proc/self/exe", "rb");

    assert_non_null(f);
    assert_int_equal(fread(&eh, sizeof(eh), 1, f), 1);
    fclose(f);
    return eh.e_machine;
}

/* Header of perf's format version 1, and timestamps never going back. */
static void check_jd_header(const struct jd_file *f, const struct run *r)
{
    assert_int_equal(f->version, 1);
    assert_int_equal(f->total_size, JD_HEADER);
    assert_int_equal(f->elf_mach, own_machine());
#ifdef __x86_64__
    assert_int_equal(f->elf_mach, EM_X86_64);
#endif
    assert_int_equal(f->pid, (uint32_t)r->c.pid);
    assert_int_equal(f->flags, 0);
    assert_true(f->timestamp > 0);
    for (size_t i = 0; i < f->count; i++)
        assert_true(f->rec[i].timestamp >= (i ? f->rec[i - 1].timestamp : f->timestamp));
}

static void check_jd_load(const struct jd_record *rec, uintptr_t addr, size_t offset, size_t size,
                          const char *name, uint64_t index)
{
    assert_int_equal(rec->id, JD_CODE_LOAD);
    assert_int_equal(rec->vma, addr);
    assert_int_equal(rec->code_addr, addr);
    assert_int_equal(rec->code_size, size);
    assert_int_equal(rec->code_index, index);
    assert_string_equal(rec->name, name);
    for (size_t i = 0; i < size; i++)
        if (rec->code[i] != pattern(offset + i))
            fail_msg("record %" PRIu64 " (%s): code byte %zu is %#x, logged %#x", index, name, i,
                     rec->code[i], pattern(offset + i));
}

static void check_jd_close(const struct jd_file *f)
{
    assert_true(f->count > 0);
    assert_int_equal(f->rec[f->count - 1].id, JD_CODE_CLOSE);
    assert_int_equal(f->rec[f->count - 1].total_size, JD_PREFIX);
    assert_false(f->truncated);
}

/* ---- the "log" child's output, read back ------------------------------------------------- */

static void check_log_rets(const struct run *r)
{
    char want[64] = "";

    for (size_t k = 0; k < LOGGED; k++)
        strcat(want, k ? ",0" : "0");
    assert_string_equal(r->ret, want);
    assert_int_equal(r->enabled, 1);
}

static void check_log_map(const struct run *r)
{
    struct map_line *lines;
    char *text;
    size_t n = read_map(r->map, &lines, &text);
    struct stat st;

    assert_int_equal(n, LOGGED);
    for (size_t k = 0; k < LOGGED; k++) {
        assert_int_equal(lines[k].start, r->base + OFFSET(k));
        assert_int_equal(lines[k].size, logged[k].size);
        assert_string_equal(lines[k].name, logged[k].expect);
    }
    /* private to its user: perf report reads it as that user or as root */
    assert_int_equal(lstat(r->map, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(st.st_uid, geteuid());
    free(lines);
    free(text);
}

static void check_log_dump(const struct run *r)
{
    struct jd_file f;
    struct stat st;

    jd_read(&f, r->dump);
    check_jd_header(&f, r);
    assert_int_equal(f.count, LOGGED + 1);
    for (size_t k = 0; k < LOGGED; k++) {
        check_jd_load(&f.rec[k], r->base + OFFSET(k), OFFSET(k), logged[k].size,
                      logged[k].expect, k);
        assert_int_equal(f.rec[k].pid, (uint32_t)r->c.pid);
        assert_int_equal(f.rec[k].tid, (uint32_t)r->c.pid);
    }
    check_jd_close(&f);
    assert_int_equal(stat(r->dump, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    jd_free(&f);
}

/* ---- tests --------------------------------------------------------------------------------- */

static void test_map_lines(void **state)
{
    char dir[PATH_MAX + 32];
    struct run r;

    (void)state;
    snprintf(dir, sizeof(dir), "PALEV_PERFMAP_DIR=%s", work);
    run_child(&r, ENV("PALEV_PERFMAP=1", dir), work, ARGS("log"));
    check_log_rets(&r);
    check_log_map(&r);
    assert_dir_empty(work);
    assert_string_equal(r.c.err, "");
}

static void test_jitdump_records(void **state)
{
    char dir[PATH_MAX + 32];
    struct run r;

    (void)state;
    snprintf(dir, sizeof(dir), "PALEV_PERFMAP_DIR=%s", work);
    run_child(&r, ENV("PALEV_PERFMAP=2", dir), work, ARGS("log"));
    check_log_rets(&r);
    check_log_dump(&r);
    assert_false(exists(r.map));
    assert_string_equal(r.c.err, "");
}

static void test_both_and_debug(void **state)
{
    char dir[PATH_MAX + 32];
    struct run r;

    (void)state;
    snprintf(dir, sizeof(dir), "PALEV_PERFMAP_DIR=%s", work);
    run_child(&r, ENV("PALEV_PERFMAP=3", "PALEV_DEBUG=1", dir), work, ARGS("log"));
    check_log_rets(&r);
    check_log_map(&r);
    check_log_dump(&r);
    assert_perf_lines(&r, LINES(
        "paleventing: perf map on: path=\"/tmp/perf-%d.map\"" AT,
        "paleventing: jitdump on: path=\"*/perfmap-*/jit-%d.dump\"" AT,
        "paleventing: jitdump closed: path=\"*/perfmap-*/jit-%d.dump\", records=11" AT));
}

/* Without PALEV_PERFMAP_DIR the dump goes to /tmp, beside the map. */
static void test_jitdump_default_dir(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_PERFMAP=2"), NULL, ARGS("log"));
    check_log_rets(&r);
    check_log_dump(&r);
}

/* Every line whole, every symbol once, and jitdump records in code_index order. */
static void check_thread_map(const struct run *r)
{
    static char seen[THREADS][PER_THREAD];
    struct map_line *lines;
    char *text;
    size_t n = read_map(r->map, &lines, &text);

    memset(seen, 0, sizeof(seen));
    assert_int_equal(n, THREADS * PER_THREAD);
    for (size_t i = 0; i < n; i++) {
        int t, m, used = 0;

        if (sscanf(lines[i].name, "t%d_m%d%n", &t, &m, &used) != 2 ||
            lines[i].name[used] != '\0' || t < 0 || t >= THREADS || m < 0 || m >= PER_THREAD)
            fail_msg("line %zu: bad name \"%s\"", i + 1, lines[i].name);
        assert_int_equal(lines[i].start, r->base + thread_addr(t, m));
        assert_int_equal(lines[i].size, thread_size(m));
        assert_int_equal(seen[t][m]++, 0);
    }
    free(lines);
    free(text);
}

static void check_thread_dump(const struct run *r)
{
    struct jd_file f;
    uint32_t tids[THREADS];
    size_t ntids = 0;

    jd_read(&f, r->dump);
    check_jd_header(&f, r);
    assert_int_equal(f.count, THREADS * PER_THREAD + 1);
    for (size_t i = 0; i + 1 < f.count; i++) {
        int t, m;
        size_t k = 0;

        assert_int_equal(sscanf(f.rec[i].name, "t%d_m%d", &t, &m), 2);
        check_jd_load(&f.rec[i], r->base + thread_addr(t, m), thread_addr(t, m), thread_size(m),
                      f.rec[i].name, i);
        while (k < ntids && tids[k] != f.rec[i].tid)
            k++;
        if (k == ntids) {
            assert_true(ntids < THREADS);
            tids[ntids++] = f.rec[i].tid;
        }
    }
    assert_int_equal(ntids, THREADS);
    check_jd_close(&f);
    jd_free(&f);
}

static void test_threads(void **state)
{
    char dir[PATH_MAX + 32];
    struct run r;

    (void)state;
    snprintf(dir, sizeof(dir), "PALEV_PERFMAP_DIR=%s", work);
    run_child(&r, ENV("PALEV_PERFMAP=3", dir), work, ARGS("threads"));
    assert_string_equal(r.ret, "0,0,0,0,0,0,0,0");
    check_thread_map(&r);
    check_thread_dump(&r);
}

/* Off: unset, "0", or anything but 1-3. Nothing is created, every call returns 0. */
static void check_off(const char *perfmap)
{
    char dir[PATH_MAX + 32];
    struct run r;

    snprintf(dir, sizeof(dir), "PALEV_PERFMAP_DIR=%s", work);
    if (perfmap)
        run_child(&r, ENV(perfmap, dir, "PALEV_DEBUG=1"), work, ARGS("log"));
    else
        run_child(&r, ENV(dir, "PALEV_DEBUG=1"), work, ARGS("log"));
    assert_string_equal(r.ret, "0,0,0,0,0,0,0,0,0,0,0");
    assert_int_equal(r.enabled, 0);
    assert_false(exists(r.map));
    assert_dir_empty(work);
    assert_perf_lines(&r, NO_LINES);
}

static void test_off_touches_nothing(void **state)
{
    (void)state;
    check_off(NULL);
    check_off("PALEV_PERFMAP=0");
    check_off("PALEV_PERFMAP=");
    check_off("PALEV_PERFMAP=4");
    check_off("PALEV_PERFMAP=11");
    check_off("PALEV_PERFMAP=yes");
}

static void test_invalid_arguments(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_PERFMAP=1"), work, ARGS("invalid"));
    assert_string_equal(r.ret, "-22,-22,-22,-22,-22,-22,-22,-22,-22,-22,-22");
    /* asked for and not failed; opened by the first valid load only: no file yet */
    assert_int_equal(r.enabled, 1);
    assert_false(exists(r.map));
    /* perf outputs off: still refused, the live code set and the trace get checked input only */
    run_child(&r, ENV("PALEV_PERFMAP=0"), work, ARGS("invalid"));
    assert_string_equal(r.ret, "-22,-22,-22,-22,-22,-22,-22,-22,-22,-22,-22");
    assert_false(exists(r.map));
}

/* A planted path must be left exactly as it was: `target` keeps `content` (NULL: absent). */
static void check_untouched(const char *target, const char *content)
{
    char *text;
    size_t size;

    if (!content) {
        assert_false(exists(target));
        return;
    }
    text = read_file(target, &size);
    assert_string_equal(text, content);
    free(text);
}

static void plant_map(struct run *r, const char *what, const char *arg, const char *reason)
{
    char line[512];

    snprintf(line, sizeof(line), "paleventing: perf map off: path=\"/tmp/perf-%%d.map\", "
             "reason=\"%s\"" AT, reason);
    run_child(r, ENV("PALEV_PERFMAP=1", "PALEV_DEBUG=1"), work,
              ARGS("plant", "/tmp/perf-%d.map", what, arg));
    assert_string_equal(r->ret, "0");
    assert_int_equal(r->enabled, 0);
    assert_perf_lines(r, LINES(line));
}

static void test_symlink_not_followed(void **state)
{
    char target[PATH_MAX + 16], dangling[PATH_MAX + 16];
    struct stat st;
    struct run r;
    FILE *f;

    (void)state;
    snprintf(target, sizeof(target), "%s/target", work);
    snprintf(dangling, sizeof(dangling), "%s/dangling", work);
    f = fopen(target, "w");
    assert_non_null(f);
    fputs("precious\n", f);
    fclose(f);
    plant_map(&r, "symlink", target, "is a symbolic link");
    assert_int_equal(lstat(r.map, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    check_untouched(target, "precious\n");
    plant_map(&r, "symlink", dangling, "is a symbolic link");
    check_untouched(dangling, NULL);
}

/* A FIFO must not block the host in open(), nor be written: the map's write-only open fails
 * at once without a reader (O_NONBLOCK), the jitdump's read-write open succeeds and is refused. */
static void test_fifo_refused(void **state)
{
    char dir[PATH_MAX + 32], fmt[PATH_MAX + 32];
    struct run r;

    (void)state;
    plant_map(&r, "fifo", "", "No such device or address");
    snprintf(dir, sizeof(dir), "PALEV_PERFMAP_DIR=%s", work);
    snprintf(fmt, sizeof(fmt), "%s/jit-%%d.dump", work);
    run_child(&r, ENV("PALEV_PERFMAP=2", "PALEV_DEBUG=1", dir), work, ARGS("plant", fmt, "fifo"));
    assert_string_equal(r.ret, "0");
    assert_int_equal(r.enabled, 0);
    assert_perf_lines(&r, LINES("paleventing: jitdump off: path=\"*/jit-%d.dump\", "
                                "reason=\"exists and is not a regular file\"" AT));
}

static void test_hardlink_refused(void **state)
{
    char target[PATH_MAX + 16];
    struct run r;
    FILE *f;

    (void)state;
    snprintf(target, sizeof(target), "%s/linked", work);
    f = fopen(target, "w");
    assert_non_null(f);
    fputs("precious\n", f);
    fclose(f);
    plant_map(&r, "hardlink", target, "exists with several hard links");
    check_untouched(target, "precious\n");
}

/* Only root can give a file away to another user. */
static void test_foreign_map_refused(void **state)
{
    struct run r;

    (void)state;
    if (geteuid() != 0)
        skip();
    plant_map(&r, "foreign", "theirs\n", "exists and belongs to another user");
    check_untouched(r.map, "theirs\n");
}

/* An existing map of ours (another runtime in the process, say) is appended to, not cut. */
static void test_own_map_appended(void **state)
{
    struct map_line *lines;
    char *text;
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_PERFMAP=1"), work,
              ARGS("plant", "/tmp/perf-%d.map", "file", "1000 10 earlier\n"));
    assert_string_equal(r.ret, "0");
    assert_int_equal(r.enabled, 1);
    assert_int_equal(read_map(r.map, &lines, &text), 2);
    assert_string_equal(lines[0].name, "earlier");
    assert_string_equal(lines[1].name, "planted");
    assert_int_equal(lines[1].start, r.base);
    assert_int_equal(lines[1].size, 32);
    free(lines);
    free(text);
}

static void test_jitdump_symlink_not_followed(void **state)
{
    char dir[PATH_MAX + 32], fmt[PATH_MAX + 32], target[PATH_MAX + 16];
    struct run r;
    FILE *f;

    (void)state;
    snprintf(dir, sizeof(dir), "PALEV_PERFMAP_DIR=%s", work);
    snprintf(fmt, sizeof(fmt), "%s/jit-%%d.dump", work);
    snprintf(target, sizeof(target), "%s/target", work);
    f = fopen(target, "w");
    assert_non_null(f);
    fputs("precious\n", f);
    fclose(f);
    run_child(&r, ENV("PALEV_PERFMAP=3", "PALEV_DEBUG=1", dir), work,
              ARGS("plant", fmt, "symlink", target));
    assert_string_equal(r.ret, "0");
    assert_int_equal(r.enabled, 1);     /* the map is still on */
    check_untouched(target, "precious\n");
    assert_perf_lines(&r, LINES(
        "paleventing: perf map on: path=\"/tmp/perf-%d.map\"" AT,
        "paleventing: jitdump off: path=\"*/jit-%d.dump\", reason=\"is a symbolic link\"" AT));
}

/* A dump of ours with our pid is an earlier process's: started over, a valid dump again. */
static void test_stale_jitdump_restarted(void **state)
{
    char dir[PATH_MAX + 32], fmt[PATH_MAX + 32];
    struct jd_file f;
    struct run r;

    (void)state;
    snprintf(dir, sizeof(dir), "PALEV_PERFMAP_DIR=%s", work);
    snprintf(fmt, sizeof(fmt), "%s/jit-%%d.dump", work);
    run_child(&r, ENV("PALEV_PERFMAP=2", dir), work,
              ARGS("plant", fmt, "file", "stale bytes of an earlier process"));
    assert_string_equal(r.ret, "0");
    jd_read(&f, r.dump);
    check_jd_header(&f, &r);
    assert_int_equal(f.count, 2);
    check_jd_load(&f.rec[0], r.base, 0, 32, "planted", 0);
    check_jd_close(&f);
    jd_free(&f);
}

static void test_jitdump_dir_missing(void **state)
{
    struct run r;

    (void)state;
    run_child(&r, ENV("PALEV_PERFMAP=2", "PALEV_DEBUG=1", "PALEV_PERFMAP_DIR=" NOWHERE), NOWHERE,
              ARGS("log"));
    assert_string_equal(r.ret, "0,0,0,0,0,0,0,0,0,0,0");
    assert_int_equal(r.enabled, 0);
    assert_false(exists(r.map));
    assert_perf_lines(&r, LINES("paleventing: jitdump off: path=\"" NOWHERE "/jit-%d.dump\", "
                                "reason=\"No such file or directory\"" AT));
    /* with both asked for, the map goes on alone */
    run_child(&r, ENV("PALEV_PERFMAP=3", "PALEV_PERFMAP_DIR=" NOWHERE), NOWHERE, ARGS("log"));
    check_log_rets(&r);
    check_log_map(&r);
    assert_string_equal(r.c.err, "");
}

/* Write failures (RLIMIT_FSIZE: EFBIG) turn each output off on its own, with the reason. */
static void test_write_failure_turns_off(void **state)
{
    char dir[PATH_MAX + 32];
    struct map_line *lines;
    struct jd_file f;
    char *text;
    struct run r;

    (void)state;
    snprintf(dir, sizeof(dir), "PALEV_PERFMAP_DIR=%s", work);
    run_child(&r, ENV("PALEV_PERFMAP=3", "PALEV_DEBUG=1", dir), work, ARGS("fsize"));
    assert_string_equal(r.ret, "0,-27,0,0,-27,0");
    assert_int_equal(r.enabled, 0);
    assert_perf_lines(&r, LINES(
        "paleventing: perf map on: path=\"/tmp/perf-%d.map\"" AT,
        "paleventing: jitdump on: path=\"*/jit-%d.dump\"" AT,
        "paleventing: jitdump off: path=\"*/jit-%d.dump\", reason=\"write: File too large\"" AT,
        "paleventing: perf map off: path=\"/tmp/perf-%d.map\", "
        "reason=\"write: File too large\"" AT));
    assert_int_equal(read_map(r.map, &lines, &text), 4);
    assert_string_equal(lines[0].name, "fits");
    assert_string_equal(lines[1].name, "too_big_for_the_dump");
    assert_string_equal(lines[2].name, "map_only");
    assert_string_equal(lines[3].name, huge_cut);
    free(lines);
    free(text);
    /* what was written before the failure stays readable */
    jd_read(&f, r.dump);
    check_jd_header(&f, &r);
    assert_int_equal(f.count, 1);
    check_jd_load(&f.rec[0], r.base, 0, 16, "fits", 0);
    assert_true(f.truncated);
    jd_free(&f);
}

static void test_forked_child_logs_nothing(void **state)
{
    char dir[PATH_MAX + 32], grandchild_map[64];
    struct map_line *lines;
    struct jd_file f;
    char *text;
    struct run r;
    int child_pid = 0;

    (void)state;
    snprintf(dir, sizeof(dir), "PALEV_PERFMAP_DIR=%s", work);
    run_child(&r, ENV("PALEV_PERFMAP=3", dir), work, ARGS("fork"));
    assert_string_equal(r.ret, "0,0,0");
    assert_non_null(strstr(r.c.out, "forked: log=0 on=0 pid="));
    sscanf(strstr(r.c.out, "forked: "), "forked: log=0 on=0 pid=%d", &child_pid);
    snprintf(grandchild_map, sizeof(grandchild_map), "/tmp/perf-%d.map", child_pid);
    assert_false(exists(grandchild_map));
    assert_int_equal(read_map(r.map, &lines, &text), 2);
    assert_string_equal(lines[0].name, "before_fork");
    assert_string_equal(lines[1].name, "after_fork");
    free(lines);
    free(text);
    jd_read(&f, r.dump);
    check_jd_header(&f, &r);
    assert_int_equal(f.count, 3);
    check_jd_load(&f.rec[0], r.base, 0, 16, "before_fork", 0);
    check_jd_load(&f.rec[1], r.base + 16, 16, 16, "after_fork", 1);
    check_jd_close(&f);
    jd_free(&f);
}

#define TEST(f) cmocka_unit_test_setup_teardown(f, setup_work, teardown_work)

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        TEST(test_map_lines),
        TEST(test_jitdump_records),
        TEST(test_both_and_debug),
        TEST(test_jitdump_default_dir),
        TEST(test_threads),
        TEST(test_off_touches_nothing),
        TEST(test_invalid_arguments),
        TEST(test_symlink_not_followed),
        TEST(test_fifo_refused),
        TEST(test_hardlink_refused),
        TEST(test_foreign_map_refused),
        TEST(test_own_map_appended),
        TEST(test_jitdump_symlink_not_followed),
        TEST(test_stale_jitdump_restarted),
        TEST(test_jitdump_dir_missing),
        TEST(test_write_failure_turns_off),
        TEST(test_forked_child_logs_nothing),
    };

    fill_code();
    fill_names();
    if (argc >= 3 && strcmp(argv[1], "--child") == 0) {
        char stale[64];

        /* A map left in /tmp by an earlier process that had this pid (other tests' JIT hosts
         * run with perf maps on) is not this child's: the checks are of what it writes. */
        snprintf(stale, sizeof(stale), "/tmp/perf-%d.map", (int)getpid());
        unlink(stale);
        return child_dispatch(child_modes, sizeof(child_modes) / sizeof(child_modes[0]), argc - 2,
                              argv + 2);
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
