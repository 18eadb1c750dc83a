/* SPDX-License-Identifier: MIT */
/* EventSource: run-time events with a JSON payload, via the Paleventing:EventSource tracepoint. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "internal.h"
#include "Paleventing-events.h"

/* The tracepoint state LTTng sets while a session enables Paleventing:EventSource: one load from
 * this module's own (hidden) call site. Everything else happens behind it, in cold functions. */
#define LISTENING() \
    PALEV_TP_STATE_ENABLED(lttng_ust_tracepoint_Paleventing___EventSource.state)
#define COLD __attribute__((cold, noinline))

/* For the inline checks of paleventing.h: callers test the state without calling in. */
PALEV_API const int *const palev_eventsource_state =
    &lttng_ust_tracepoint_Paleventing___EventSource.state;

/* Out of line, so that callers need no registers saved before their state check. The verdict
 * of a (source, name) pair is cached (verdict.c). */
__attribute__((noinline)) static int filters_pass(const char *source, const char *name)
{
    return palev__filters_pass(source, name);
}

/* The generated stub checks the state again: a session may have stopped since LISTENING(). */
static void record(const char *source, int32_t id, const char *name, const char *json)
{
    FireEventEventSource(id, name, source, json);
    palev__stack_after_event(PCM_OWN_PROVIDER, "EventSource");
}

/* ---- write: JSON text from the caller --------------------------------------------------- */

/* Valid but not compact: record it without the insignificant whitespace, so every payload has
 * one form. Small texts are compacted on the stack. */
static int record_compacted(const char *source, int32_t id, const char *name, const char *json,
                            size_t len, size_t ws)
{
    char stack[PALEV_SCRATCH_STACK_SIZE];
    size_t need = len - ws + 1;
    char *buf = need <= sizeof(stack) ? stack : palev__malloc(need);

    if (!buf) {
        palev__debug("event not recorded: source=\"%s\", name=\"%s\", reason=\"out of memory "
                     "(%zu bytes)\"", source, name, need);
        return -ENOMEM;
    }
    palev__json_compact(buf, json, len);
    record(source, id, name, buf);
    if (buf != stack)
        free(buf);
    return 0;
}

COLD static int write_text(const char *source, int32_t id, const char *name, const char *json)
{
    struct palev__json_info info;
    size_t len;

    if (!filters_pass(source, name))
        return 0;
    if (!json)
        json = "{}";
    len = strlen(json);
    if (palev__json_check(json, len, &info) != 0) {
        palev__debug("event not recorded: source=\"%s\", name=\"%s\", reason=\"invalid JSON "
                     "at byte %zu of %zu\"", source, name, info.error_at, len);
        return -EINVAL;
    }
    if (info.ws)
        return record_compacted(source, id, name, json, len, info.ws);
    record(source, id, name, json);
    return 0;
}

/* NULL source or name is refused even when nobody listens, so that the bug shows without a
 * session; it costs two compares next to the state load. */
PALEV_API int palev_eventsource_write(const char *source, int32_t id, const char *name,
                                      const char *json)
{
    if (__builtin_expect(!source || !name, 0))
        return -EINVAL;
    if (!LISTENING() || palev_eventsource_filtered_out_(source, name))
        return 0;
    return write_text(source, id, name, json);
}

/* ---- write_json and write_pack: jansson values ------------------------------------------ */

/* json_dumps() allocates with jansson's allocator, which the host may have replaced. */
static void json_free(char *text)
{
    json_free_t free_fn;

    json_get_alloc_funcs(NULL, &free_fn);
    free_fn(text);
}

/* Serialised into a stack buffer when it fits (json_dumpb), else by json_dumps(). */
COLD static int record_value(const char *source, int32_t id, const char *name,
                             const json_t *payload)
{
    const size_t flags = JSON_COMPACT | JSON_ENCODE_ANY; /* any value; UTF-8 stays UTF-8 */
    char stack[PALEV_SCRATCH_STACK_SIZE];
    char *text = stack;
    size_t n;

    if (!payload) {
        record(source, id, name, "{}");
        return 0;
    }
    n = json_dumpb(payload, stack, sizeof(stack) - 1, flags);
    if (n == 0 || n >= sizeof(stack) - 1)
        text = json_dumps(payload, flags);
    else
        stack[n] = '\0';
    if (!text) {
        palev__debug("event not recorded: source=\"%s\", name=\"%s\", reason=\"jansson could "
                     "not serialise the payload (a string made with *_nocheck that is not "
                     "UTF-8, a reference cycle, or out of memory)\"", source, name);
        return -EINVAL;
    }
    record(source, id, name, text);
    if (text != stack)
        json_free(text);
    return 0;
}

COLD static int write_value(const char *source, int32_t id, const char *name,
                            const json_t *payload)
{
    if (!filters_pass(source, name))
        return 0;
    return record_value(source, id, name, payload);
}

PALEV_API int palev_eventsource_write_json(const char *source, int32_t id, const char *name,
                                           const struct json_t *payload)
{
    if (__builtin_expect(!source || !name, 0))
        return -EINVAL;
    if (!LISTENING() || palev_eventsource_filtered_out_(source, name))
        return 0;
    return write_value(source, id, name, payload);
}

COLD static int write_packed(const char *source, int32_t id, const char *name, const char *fmt,
                             va_list ap)
{
    json_error_t error;
    json_t *payload;
    int ret;

    if (!filters_pass(source, name))
        return 0;
    payload = json_vpack_ex(&error, 0, fmt, ap);
    if (!payload) {
        palev__debug("event not recorded: source=\"%s\", name=\"%s\", reason=\"json_pack: %s\", "
                     "format=\"%s\", position=%d", source, name, error.text,
                     fmt ? fmt : "(null)", error.position);
        return -EINVAL;
    }
    ret = record_value(source, id, name, payload);
    json_decref(payload);
    return ret;
}

PALEV_API int palev_eventsource_write_pack(const char *source, int32_t id, const char *name,
                                           const char *fmt, ...)
{
    va_list ap;
    int ret;

    if (__builtin_expect(!source || !name, 0))
        return -EINVAL;
    if (!LISTENING() || palev_eventsource_filtered_out_(source, name))
        return 0;
    va_start(ap, fmt);
    ret = write_packed(source, id, name, fmt, ap);
    va_end(ap);
    return ret;
}

PALEV_API int palev_eventsource_is_enabled(const char *source, const char *name)
{
    if (!source || !name || !LISTENING())
        return 0;
    return filters_pass(source, name);
}
