/* SPDX-License-Identifier: MIT */
/* What the libFuzzer targets over CTF traces (fuzz_trace.c, fuzz_perf.c) share: the input written
 * as a stream file beside a known metadata, and a child process that tries it first, since
 * babeltrace2 2.0.4's decoder itself abort()s on some damaged packets and allocates without end
 * on others. */
#ifndef PALEV_FUZZ_CTF_H
#define PALEV_FUZZ_CTF_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"

/* Copies the file from to the file to: 0, or -1. */
int fuzz_copy_file(const char *from, const char *to);

/* Writes the input to path; abort()s when it cannot. */
void fuzz_write_input(const char *path, const uint8_t *data, size_t size);

/* Runs child(in) in a child process with stderr to /dev/null, SIGABRT and SIGALRM fatal and 5
 * seconds to live; it exits with what child returns. Returns the child's wait status. */
int fuzz_try_in_child(int (*child)(const pt_input *in), const pt_input *in);

#endif
