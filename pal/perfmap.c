/* SPDX-License-Identifier: MIT */
/* Naming code: the public code API (names built once, handed to the live set and the trace in
 * code.c), and its perf outputs: the perf map /tmp/perf-<pid>.map and the jitdump (jitdump.c). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* Nonzero, so that "off" stays one test of the mode; cleared by the first call. */
#define UNSTARTED 0x100
/* perf looks for the map of process <pid> here and nowhere else. */
#define MAP_PATH_FORMAT "/tmp/perf-%d.map"
/* Room before the name for "<start> <size> ": two 64-bit hex numbers and two spaces. */
#define PREFIX_MAX 34
/* Lines up to this size are built on the stack; longer names use the heap. */
#define LINE_STACK 1024
/* Longer names are cut: keeps a jitdump record within its 32-bit size. */
#define NAME_MAX_BYTES 65535
#define CODE_MAX_BYTES (1u << 31)

/* PALEV__PERFMAP_* bits of the outputs that are on, or UNSTARTED. Read with one load on every
 * call; outputs that fail are cleared from it, never added back. */
static int mode = UNSTARTED;
static pthread_once_t start_once = PTHREAD_ONCE_INIT;
/* Never closed: another thread may be writing to it, and a closed number could be reused. */
static int map_fd = -1;
static char map_path[sizeof(MAP_PATH_FORMAT) + 3 * sizeof(int)];

/* One symbol being logged: line = PREFIX_MAX bytes of room, the name, one byte for '\n'. */
struct symbol {
    char *line;
    size_t len;
    char stack[LINE_STACK];
};

/* ---- the perf map ------------------------------------------------------------------------- */

/* Appended to when it exists and is ours: another runtime in this process may be writing it. */
static int map_open(void)
{
    const char *why;
    int ret;

    snprintf(map_path, sizeof(map_path), MAP_PATH_FORMAT, (int)getpid());
    ret = palev__safe_file_open(map_path, O_WRONLY | O_APPEND, &why);
    if (ret < 0) {
        palev__debug("perf map off: path=\"%s\", reason=\"%s\"", map_path, why);
        return ret;
    }
    map_fd = ret;
    palev__debug("perf map on: path=\"%s\"", map_path);
    return 0;
}

/* The thread whose write failed first turns the map off and says why. */
static int map_failed(ssize_t n, size_t want)
{
    int ret = n < 0 ? -errno : -EIO;

    if (!(__atomic_fetch_and(&mode, ~PALEV__PERFMAP_MAP, __ATOMIC_RELAXED) & PALEV__PERFMAP_MAP))
        return ret;
    if (n < 0)
        palev__debug("perf map off: path=\"%s\", reason=\"write: %s\"", map_path, strerror(-ret));
    else
        palev__debug("perf map off: path=\"%s\", reason=\"short write: %zd of %zu bytes\"",
                     map_path, n, want);
    return ret;
}

/* One write() of the whole line on an O_APPEND descriptor: lines of concurrent threads never
 * interleave. The prefix goes right before the name, already in place. */
static int map_write(struct symbol *s, const void *code, size_t size)
{
    char prefix[PREFIX_MAX + 1];
    int plen = snprintf(prefix, sizeof(prefix), "%" PRIxPTR " %zx ", (uintptr_t)code, size);
    char *line = s->line + PREFIX_MAX - plen;
    size_t want = (size_t)plen + s->len + 1;
    ssize_t n;

    memcpy(line, prefix, (size_t)plen);
    s->line[PREFIX_MAX + s->len] = '\n';
    do
        n = write(map_fd, line, want);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)want ? 0 : map_failed(n, want);
}

/* ---- starting and stopping ---------------------------------------------------------------- */

/* fork.c: a child forked without exec has another pid, so the parent's files are not its own:
 * it logs to neither. */
void palev__perfmap_fork_child(void)
{
    __atomic_store_n(&mode, 0, __ATOMIC_RELAXED);
    palev__jitdump_fork_child();
}

static void start(void)
{
    const struct palev__config *cfg = palev__config();
    int on = 0;

    palev__fork_init();
    if ((cfg->perfmap & PALEV__PERFMAP_MAP) && map_open() == 0)
        on |= PALEV__PERFMAP_MAP;
    if ((cfg->perfmap & PALEV__PERFMAP_JITDUMP) &&
        palev__jitdump_open(cfg->perfmap_dir ? cfg->perfmap_dir : PALEV__JITDUMP_DIR) == 0)
        on |= PALEV__PERFMAP_JITDUMP;
    __atomic_store_n(&mode, on, __ATOMIC_RELEASE);
}

/* The outputs to log to: opens them on the first call. */
static int started(int m)
{
    if (m & UNSTARTED) {
        pthread_once(&start_once, start);
        m = __atomic_load_n(&mode, __ATOMIC_ACQUIRE);
    }
    return m;
}

void palev__perfmap_stop(void)
{
    if (__atomic_fetch_and(&mode, ~PALEV__PERFMAP_JITDUMP, __ATOMIC_ACQ_REL) &
        PALEV__PERFMAP_JITDUMP)
        palev__jitdump_close();
}

/* ---- building and logging a symbol -------------------------------------------------------- */

/* Room for a name of len bytes; returns how many fit: all, unless the heap is exhausted. */
static size_t symbol_room(struct symbol *s, size_t len)
{
    len = len < NAME_MAX_BYTES ? len : NAME_MAX_BYTES;
    s->line = s->stack;
    if (PREFIX_MAX + len + 1 <= sizeof(s->stack))
        return len;
    s->line = palev__malloc(PREFIX_MAX + len + 1);
    if (s->line)
        return len;
    s->line = s->stack;
    return sizeof(s->stack) - PREFIX_MAX - 1;
}

/* The length of name[0..len) without a last character cut in the middle. */
static size_t utf8_whole(const char *name, size_t len)
{
    size_t lead = len, need;
    unsigned char c;

    while (lead > 0 && ((unsigned char)name[lead - 1] & 0xC0) == 0x80)
        lead--;
    if (lead == 0)
        return len;
    c = (unsigned char)name[lead - 1];
    need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return len - (lead - 1) < need ? lead - 1 : len;
}

/* The name is the concatenation of `parts`, cut if it must be at a UTF-8 character boundary. */
static void symbol_set(struct symbol *s, const char *const *parts, size_t count)
{
    size_t total = 0, room, len = 0;
    char *name;

    for (size_t i = 0; i < count; i++)
        total += strlen(parts[i]);
    room = symbol_room(s, total);
    name = s->line + PREFIX_MAX;
    for (size_t i = 0; i < count && len < room; i++) {
        size_t n = strlen(parts[i]);

        n = n < room - len ? n : room - len;
        memcpy(name + len, parts[i], n);
        len += n;
    }
    s->len = len < total ? utf8_whole(name, len) : len;
}

/* perf reads the map line by line: a newline inside a name would end the line early. */
static void sanitize(char *name, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (name[i] == '\n' || name[i] == '\r')
            name[i] = ' ';
}

/* The name, NUL-terminated in place, goes to the jitdump, the live set and the trace (which
 * takes the rule), then to the perf map, which puts its '\n' where the NUL was. `m`: the perf
 * outputs that are on. A patch (version > 0) only writes the perf outputs. */
static int symbol_log(struct symbol *s, int m, struct palev__code *c, long version)
{
    char *name = s->line + PREFIX_MAX;
    int ret = 0, err;

    sanitize(name, s->len);
    name[s->len] = '\0';
    c->name = name;
    c->len = s->len;
    if (m & PALEV__PERFMAP_JITDUMP) {
        ret = palev__jitdump_write(c->start, c->size, name, s->len, c->rule);
        if (ret)
            __atomic_fetch_and(&mode, ~PALEV__PERFMAP_JITDUMP, __ATOMIC_RELAXED);
    }
    if (version == 0) {
        err = palev__code_publish(c);
        ret = ret ? ret : err;
    }
    if (m & PALEV__PERFMAP_MAP) {
        err = map_write(s, c->start, c->size);
        ret = ret ? ret : err;
    }
    if (s->line != s->stack)
        free(s->line);
    return ret;
}

static int valid_code(const void *code, size_t size)
{
    return code && size > 0 && size <= CODE_MAX_BYTES;
}

/* ---- the public API ------------------------------------------------------------------------ */

/* The perf outputs that are on: opens them on the first call. Acquire: a thread that sees an
 * output's bit also sees the descriptor behind it. */
static int perf_outputs(void)
{
    return started(__atomic_load_n(&mode, __ATOMIC_ACQUIRE));
}

/* Without a perf output, a one-part name goes to the live set as it is (cut, its line breaks
 * replaced there): no line is built. */
static int load_named(struct palev__code *c, const char *const *parts, size_t count)
{
    int m = c->kind == PALEV_CODE_INTERPRETED ? 0 : perf_outputs();
    struct symbol s;

    if (!m && count == 1) {
        size_t len = strnlen(parts[0], NAME_MAX_BYTES + 1);

        c->name = parts[0];
        c->len = len > NAME_MAX_BYTES ? utf8_whole(parts[0], NAME_MAX_BYTES) : len;
        return palev__code_publish(c);
    }
    symbol_set(&s, parts, count);
    return symbol_log(&s, m, c, 0);
}

PALEV_API int palev_code_load(const void *code, size_t size, const char *name)
{
    struct palev__code c = { code, size, PALEV_CODE_JIT, NULL, 0, NULL };

    if (!valid_code(code, size) || !name || !*name)
        return -EINVAL;
    return load_named(&c, &name, 1);
}

PALEV_API int palev_code_load_interpreted(const void *start, size_t size, const char *name)
{
    struct palev__code c = { start, size, PALEV_CODE_INTERPRETED, NULL, 0, NULL };

    if (!valid_code(start, size) || !name || !*name)
        return -EINVAL;
    return load_named(&c, &name, 1);
}

/* Converted straight into the line: measured first, so the heap is used only for long names. */
PALEV_API int palev_code_load_utf16(const void *code, size_t size, const char16_t *name,
                                    size_t len)
{
    struct palev__code c = { code, size, PALEV_CODE_JIT, NULL, 0, NULL };
    struct symbol s;
    size_t need, room;

    need = palev__utf16_to_utf8(NULL, 0, name, len);
    if (!valid_code(code, size) || need == 0)
        return -EINVAL;
    room = symbol_room(&s, need);
    palev__utf16_to_utf8(s.line + PREFIX_MAX, room + 1, name, len);
    s.len = strlen(s.line + PREFIX_MAX);
    return symbol_log(&s, perf_outputs(), &c, 0);
}

PALEV_API int palev_code_load_stub(const void *code, size_t size, const char *stub_kind,
                                   const char *name)
{
    const char *parts[] = { "stub<", stub_kind, ">", " ", name };
    struct palev__code c = { code, size, PALEV_CODE_STUB, NULL, 0, NULL };

    if (!valid_code(code, size) || !stub_kind || !*stub_kind)
        return -EINVAL;
    return load_named(&c, parts, name && *name ? 5 : 3);
}

PALEV_API int palev_code_load_unwind(const void *code, size_t size, const char *name,
                                     const palev_code_unwind *unwind)
{
    struct palev__code c = { code, size, PALEV_CODE_JIT, NULL, 0, NULL };
    int ret;

    if (!valid_code(code, size) || !name || !*name)
        return -EINVAL;
#if !defined(__x86_64__)
    (void)unwind;
    return -ENOTSUP;
#else
    ret = palev__unwind_rule_new(unwind, &c.rule);
    return ret ? ret : load_named(&c, &name, 1);
#endif
}

/* What the set knows of the range fills what the caller keeps; the set numbers the version,
 * then the perf outputs get the new bytes. */
PALEV_API int palev_code_patch(const void *code, size_t size, const char *name)
{
    struct palev__code c = { code, size, 0, NULL, 0, NULL };
    struct symbol s;
    char *known = NULL;
    uint64_t known_size = 0;
    long version;
    int ret;

    if (!code || size > CODE_MAX_BYTES || (name && !*name))
        return -EINVAL;
    ret = palev__code_lookup((uintptr_t)code, &known_size, &c.kind, &known, &c.rule);
    if (ret)
        return ret;
    c.size = size ? size : known_size;
    name = name ? name : known;
    symbol_set(&s, &name, 1);
    sanitize(s.line + PREFIX_MAX, s.len);
    s.line[PREFIX_MAX + s.len] = '\0';
    c.name = s.line + PREFIX_MAX;
    c.len = s.len;
    version = palev__code_patch(&c);
    if (version > 0)
        ret = symbol_log(&s, c.kind == PALEV_CODE_INTERPRETED ? 0 : perf_outputs(), &c, version);
    else if (s.line != s.stack)
        free(s.line);
    free(known);
    free(c.rule);
    return version < 0 ? (int)version : ret;
}

/* Whether PALEV_PERFMAP asks for an output that has not failed, without opening anything. */
PALEV_API int palev_perfmap_is_enabled(void)
{
    int m = __atomic_load_n(&mode, __ATOMIC_ACQUIRE);

    return (m & UNSTARTED ? palev__config()->perfmap : m) != 0;
}
