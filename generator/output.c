/* SPDX-License-Identifier: MIT */
/* All-or-nothing output: every file goes to a temporary first, then all are renamed in place. */
#include "model.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int same_content(const char *path, const pg_buf *text)
{
    FILE *f = fopen(path, "rb");
    char chunk[65536];
    size_t off = 0, n;
    int same = 1;

    if (!f)
        return 0;
    while (same && (n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        same = off + n <= text->len && memcmp(text->data + off, chunk, n) == 0;
        off += n;
    }
    fclose(f);
    return same && off == text->len;
}

static int write_all(int fd, const char *data, size_t len)
{
    while (len) {
        ssize_t n = write(fd, data, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Errors name the destination, not the temporary file a user never sees. */
static char *write_temp(pg_ctx *cx, const char *dir, const pg_file *f, const char *dest)
{
    char *tmp = pg_printf(cx, "%s/.%s.XXXXXX", dir, f->name);
    int fd = mkstemp(tmp);

    if (fd < 0) {
        pg_error(cx, (pg_loc){ dest, 0 }, "cannot write: %s", strerror(errno));
        return NULL;
    }
    if (write_all(fd, f->text.data ? f->text.data : "", f->text.len) || fchmod(fd, 0644) ||
        close(fd)) {
        pg_error(cx, (pg_loc){ dest, 0 }, "cannot write: %s", strerror(errno));
        unlink(tmp);
        return NULL;
    }
    return tmp;
}

/* What a destination holds now, kept to put it back if a later rename fails. Returns 0 (with
 * *had = 0 when there is no such file), or -1 when the destination cannot be replaced. */
static int save_old(pg_ctx *cx, const char *dest, pg_buf *old, int *had)
{
    struct stat st;
    FILE *f;
    char chunk[65536];
    size_t n;

    *had = 0;
    if (lstat(dest, &st) != 0)
        return errno == ENOENT ? 0 : (pg_error(cx, (pg_loc){ dest, 0 }, "cannot replace: %s",
                                               strerror(errno)), -1);
    if (S_ISDIR(st.st_mode)) {
        pg_error(cx, (pg_loc){ dest, 0 }, "cannot replace: it is a directory");
        return -1;
    }
    if (!S_ISREG(st.st_mode))
        return 0;   /* a symlink or special file: renaming over it replaces only the name */
    if (!(f = fopen(dest, "rb"))) {
        pg_error(cx, (pg_loc){ dest, 0 }, "cannot read: %s", strerror(errno));
        return -1;
    }
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        pg_buf_putn(cx, old, chunk, n);
    fclose(f);
    *had = 1;
    return 0;
}

/* A rename failed after others succeeded: put every replaced file back as it was. */
static void restore(pg_ctx *cx, const char *dir, pg_vec *files, const int *replaced, pg_buf *old,
                    const int *had)
{
    for (size_t i = 0; i < files->len; i++) {
        pg_file *f = files->items[i];
        const char *dest = pg_printf(cx, "%s/%s", dir, f->name);
        pg_file back = { .name = f->name, .text = old[i] };
        char *tmp;

        if (!replaced[i])
            continue;
        if (!had[i]) {
            unlink(dest);
            continue;
        }
        if (!(tmp = write_temp(cx, dir, &back, dest)) || rename(tmp, dest))
            pg_error(cx, (pg_loc){ dest, 0 }, "could not be restored: %s", strerror(errno));
    }
}

static const char *dest_of(pg_ctx *cx, const char *dir, const pg_vec *files, size_t i)
{
    return pg_printf(cx, "%s/%s", dir, ((const pg_file *)files->items[i])->name);
}

int pg_write_files(pg_ctx *cx, const char *dir, pg_vec *files)
{
    char **tmp = pg_zalloc(cx, (files->len + 1) * sizeof(*tmp));
    pg_buf *old = pg_zalloc(cx, (files->len + 1) * sizeof(*old));
    int *had = pg_zalloc(cx, (files->len + 1) * sizeof(*had));
    int *replaced = pg_zalloc(cx, (files->len + 1) * sizeof(*replaced));
    size_t i;
    int rc = 0;

    /* Unchanged files are left alone, so builds that depend on them do not rerun. Every
     * destination is checked and every temporary written before the first rename. */
    for (i = 0; i < files->len && !rc; i++) {
        pg_file *f = files->items[i];

        if (same_content(dest_of(cx, dir, files, i), &f->text))
            continue;
        rc = save_old(cx, dest_of(cx, dir, files, i), &old[i], &had[i]);
        if (!rc)
            rc = (tmp[i] = write_temp(cx, dir, f, dest_of(cx, dir, files, i))) ? 0 : -1;
    }
    for (i = 0; i < files->len && !rc; i++) {
        if (tmp[i] && rename(tmp[i], dest_of(cx, dir, files, i))) {
            pg_error(cx, (pg_loc){ dest_of(cx, dir, files, i), 0 }, "cannot replace: %s", strerror(errno));
            rc = -1;
            restore(cx, dir, files, replaced, old, had);
        } else if (tmp[i]) {
            replaced[i] = 1;
            tmp[i] = NULL;
        }
    }
    for (i = 0; i < files->len; i++)
        if (tmp[i])
            unlink(tmp[i]);
    return rc;
}
