/* SPDX-License-Identifier: MIT */
/* Diagnostics on stderr, printed only when PALEV_DEBUG asks for them. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Callers report failures right after they happen, so errno must survive the report. The lock
 * keeps a line whole when several threads report at once. */
void palev__debug_at(const char *func, const char *file, int line, const char *fmt, ...)
{
    int saved_errno = errno;
    va_list ap;

    if (!palev__config()->debug)
        goto end;
    va_start(ap, fmt);
    flockfile(stderr);
    fputs("paleventing: ", stderr);
    vfprintf(stderr, fmt, ap);
    /* the file's name only: the build machine's source tree means nothing to the reader */
    fprintf(stderr, " (in %s() at %s:%d)\n", func, strrchr(file, '/') ? strrchr(file, '/') + 1 : file,
            line);
    funlockfile(stderr);
    va_end(ap);
end:
    errno = saved_errno;
}
