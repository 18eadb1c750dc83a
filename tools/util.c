/* SPDX-License-Identifier: MIT */
/* palev-collect's small helpers: strings, buffers, messages, finding executables. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"

static void *xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q) {
        fputs("palev-collect: out of memory\n", stderr);
        exit(PC_EXIT_SETUP);
    }
    return q;
}

char *pc_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xrealloc(NULL, n), s, n);
}

void pc_strv_push(pc_strv *s, const char *str)
{
    s->v = xrealloc(s->v, (s->n + 2) * sizeof(*s->v));
    s->v[s->n++] = pc_strdup(str);
    s->v[s->n] = NULL;
}

void pc_strv_free(pc_strv *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

void pc_buf_add(pc_buf *b, const char *data, size_t len)
{
    if (b->len + len + 1 > b->cap) {
        b->cap = (b->len + len + 1) * 2;
        b->data = xrealloc(b->data, b->cap);
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
}

static void buf_vprintf(pc_buf *b, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n > 0) {
        pc_buf_add(b, "", 0);
        if (b->len + (size_t)n + 1 > b->cap) {
            b->cap = (b->len + (size_t)n + 1) * 2;
            b->data = xrealloc(b->data, b->cap);
        }
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
        b->len += (size_t)n;
    }
    va_end(again);
}

void pc_buf_printf(pc_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void pc_buf_free(pc_buf *b)
{
    free(b->data);
    *b = (pc_buf){ 0 };
}

char *pc_printf(const char *fmt, ...)
{
    pc_buf b = { 0 };
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    return b.data ? b.data : pc_strdup("");
}

static void vsay(FILE *f, const char *fmt, va_list ap)
{
    fputs("palev-collect: ", f);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    fflush(f);
}

void pc_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(stdout, fmt, ap);
    va_end(ap);
}

void pc_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(stderr, fmt, ap);
    va_end(ap);
}

int pc_fail(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(stderr, fmt, ap);
    va_end(ap);
    return status;
}

int pc_is_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* execvp's rules: a name with a slash as it is, else each directory of PATH (empty: the
 * current one); EACCES when only non-executable files of that name were found. */
char *pc_which(const char *name)
{
    const char *path = getenv("PATH");
    int denied = 0;
    if (!*name) {
        errno = ENOENT;
        return NULL;
    }
    if (strchr(name, '/')) {
        if (pc_is_executable(name))
            return pc_strdup(name);
        errno = access(name, F_OK) == 0 ? EACCES : ENOENT;
        return NULL;
    }
    if (!path)
        path = "/usr/local/bin:/bin:/usr/bin";
    for (const char *p = path;; p++) {
        const char *end = strchrnul(p, ':');
        char *full = pc_printf("%.*s%s%s", (int)(end - p), p, end > p ? "/" : "", name);
        if (pc_is_executable(full))
            return full;
        denied |= access(full, F_OK) == 0;
        free(full);
        if (!*end)
            break;
        p = end;
    }
    errno = denied ? EACCES : ENOENT;
    return NULL;
}

const char *pc_self_dir(void)
{
    static char dir[PATH_MAX];
    if (!dir[0]) {
        ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
        dir[n > 0 ? n : 0] = '\0';
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        else
            strcpy(dir, ".");
    }
    return dir;
}

int pc_mkdirs(const char *path, mode_t mode)
{
    char *p = pc_strdup(path);
    int rc = 0;
    for (char *s = p + 1; *s && !rc; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, mode) && errno != EEXIST)
            rc = -1;
        *s = '/';
    }
    if (!rc && mkdir(p, mode) && errno != EEXIST)
        rc = -1;
    free(p);
    return rc;
}
