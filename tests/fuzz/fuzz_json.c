/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the JSON validator of palev_eventsource_write() (pal/json.c), differential
 * against jansson's parser, and the compaction that follows it. */
#include "internal.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

/* What jansson refuses for its own limits, not because the text is invalid JSON: numbers it
 * cannot represent (integers beyond 64 bits, reals beyond double; RFC 8259 leaves such limits
 * to implementations) and "\u0000" in object keys. The validator accepts these. */
static int jansson_limit(const json_error_t *err)
{
    return strstr(err->text, "too big") || strstr(err->text, "overflow") ||
           strstr(err->text, "NUL byte in object key");
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    struct palev__json_info info;
    json_error_t err;
    json_t *ref, *again;
    char *compact;
    size_t n;
    int ret;

    /* palev_eventsource_write() takes a C string, and jansson's buffer reader stops at a NUL
     * byte outside strings: only the text up to the first NUL is compared */
    size = strnlen(text, size);
    ret = palev__json_check(text, size, &info);
    CHECK(ret == 0 || ret == -EINVAL);
    CHECK(info.error_at <= size);
    ref = json_loadb(text, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    if (!ref) {
        CHECK(ret != 0 || jansson_limit(&err));
        return 0;
    }
    CHECK(ret == 0);
    CHECK(info.ws <= size);
    compact = malloc(size - info.ws + 1);
    n = palev__json_compact(compact, text, size);
    CHECK(n == size - info.ws && compact[n] == '\0');
    again = json_loadb(compact, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    CHECK(again && json_equal(ref, again));
    /* compact: no whitespace outside strings, so re-checking finds none */
    CHECK(palev__json_check(compact, n, &info) == 0 && info.ws == 0);
    CHECK(n == 0 || !is_space(compact[0]));
    json_decref(again);
    json_decref(ref);
    free(compact);
    return 0;
}
