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

static char *write_temp(const char *dir, const pg_file *f)
{
    char *tmp = pg_printf("%s/.%s.XXXXXX", dir, f->name);
    int fd = mkstemp(tmp);

    if (fd < 0) {
        pg_error((pg_loc){ tmp, 0 }, "cannot create: %s", strerror(errno));
        return NULL;
    }
    if (write_all(fd, f->text.data ? f->text.data : "", f->text.len) || fchmod(fd, 0644) ||
        close(fd)) {
        pg_error((pg_loc){ tmp, 0 }, "cannot write: %s", strerror(errno));
        unlink(tmp);
        return NULL;
    }
    return tmp;
}

int pg_write_files(const char *dir, pg_vec *files)
{
    char **tmp = pg_alloc((files->len + 1) * sizeof(*tmp));
    int rc = 0;

    /* Unchanged files are left alone, so builds that depend on them do not rerun. */
    for (size_t i = 0; i < files->len && !rc; i++) {
        pg_file *f = files->items[i];

        if (same_content(pg_printf("%s/%s", dir, f->name), &f->text))
            continue;
        tmp[i] = write_temp(dir, f);
        rc = tmp[i] ? 0 : -1;
    }
    for (size_t i = 0; i < files->len; i++) {
        pg_file *f = files->items[i];
        const char *path = pg_printf("%s/%s", dir, f->name);

        if (!tmp[i])
            continue;
        if (rc) {
            unlink(tmp[i]);
        } else if (rename(tmp[i], path)) {
            pg_error((pg_loc){ path, 0 }, "cannot rename %s: %s", tmp[i], strerror(errno));
            unlink(tmp[i]);
            rc = -1;
        }
    }
    return rc;
}
