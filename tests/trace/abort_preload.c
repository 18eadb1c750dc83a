/* SPDX-License-Identifier: MIT */
/* LD_PRELOADed into palev-trace by bad_input.sh: jansson's json_loads() aborts, as a bug of ours
 * in a sink callback would. palev-trace must die of it (SIGABRT), never call it damage in the
 * trace: the trace is fine. */
#include <stddef.h>
#include <stdlib.h>

struct json_t;
struct json_error_t;
struct json_t *json_loads(const char *input, size_t flags, struct json_error_t *error);

struct json_t *json_loads(const char *input, size_t flags, struct json_error_t *error)
{
    (void)input, (void)flags, (void)error;
    abort();
}
