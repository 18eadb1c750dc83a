/* SPDX-License-Identifier: MIT */
/* What the command-line tools (palev-gen, palev-collect) say the same way. */
#ifndef PCM_CLI_H
#define PCM_CLI_H

/* A usage error: "PROGRAM: message" and a newline on stderr, then the usage text; returns
 * status, for `return pcm_usage_error(...)` with the tool's usage exit status. */
int pcm_usage_error(const char *program, const char *usage, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif /* PCM_CLI_H */
