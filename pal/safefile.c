/* SPDX-License-Identifier: MIT */
/* Files of ours in shared directories (/tmp): the perf map and the jitdump open them here, so no
 * symlink, FIFO or other user's file planted at the path is ever written or blocks the host. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* Checked on what was actually opened, so nothing can be swapped in between. */
static const char *not_ours(int fd)
{
    struct stat st;

    if (fstat(fd, &st) != 0)
        return strerror(errno);
    if (!S_ISREG(st.st_mode))
        return "exists and is not a regular file";
    if (st.st_uid != geteuid())
        return "exists and belongs to another user";
    if (st.st_nlink != 1)
        return "exists with several hard links";
    return NULL;
}

/* O_EXCL creates without following any symlink; the reopen of an existing file refuses one
 * (O_NOFOLLOW) and never truncates at open, since what it opened is only checked afterwards.
 * O_NONBLOCK: a FIFO planted at the path must not block the host in open(). */
int palev__safe_file_open(const char *path, int flags, const char **why)
{
    int base = flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
    int fd = open(path, base | O_CREAT | O_EXCL, 0600);
    int ret;

    *why = NULL;
    if (fd < 0 && errno == EEXIST)
        fd = open(path, base);
    if (fd < 0) {
        ret = -errno;
        *why = ret == -ELOOP ? "is a symbolic link" : strerror(-ret);
        goto end;
    }
    *why = not_ours(fd);
    ret = *why ? -EEXIST : fd;
    if (*why)
        close(fd);
end:
    return ret;
}
