/* SPDX-License-Identifier: MIT */
/* What the command-line tools say the same way (cli.h). */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

int pcm_usage_error(const char *program, const char *usage, int status, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: ", program);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%s", usage);
    return status;
}
