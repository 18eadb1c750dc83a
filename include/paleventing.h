/* SPDX-License-Identifier: MIT */
/* paleventing: the whole public API of libpaleventing, the PAL eventing layer. */
#ifndef PALEVENTING_H
#define PALEVENTING_H

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <uchar.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(PALEV_BUILDING_LIBRARY)
#define PALEV_API __attribute__((visibility("default")))
#else
#define PALEV_API
#endif

/* One load of an event state and a branch hint (used by palev_event_enabled()). */
#define PALEV_EVENT_STATE_ENABLED_(state_ptr) (__builtin_expect(*(state_ptr), 0) != 0)

#define PALEV_VERSION_MAJOR 0
#define PALEV_VERSION_MINOR 1
#define PALEV_VERSION_PATCH 0

/* The version of what these headers compile into a host's code and what it hands the library by
 * layout: the state offset palev_event_enabled() reads (PALEV_EVENT_STATE_OFFSET, LTTng-UST
 * 2.13's tracepoint), the EventSource verdict table the inline checks read
 * (palev_eventsource_verdict_, PALEV_VERDICT_SLOTS_, palev_eventsource_slot_()), palev_scratch
 * with its inline init/fini and PALEV_SCRATCH_STACK_SIZE, palev_array_desc, palev_provider,
 * palev_event_descriptor, palev_field, palev_value, palev_event_def, palev_guid,
 * palev_systemtime, palev_stack_frame. Generated code hands it to palev_provider_register(),
 * which refuses a provider compiled with another (docs/runtime-api.md: what SOVERSION 0
 * freezes). */
#define PALEV_ABI_VERSION 1

/* ---------------------------------------------------------------------------------------------
 * Life cycle
 * ------------------------------------------------------------------------------------------- */

/* Initialise the library: read the environment (once). Optional: a constructor does the same at
 * load time, and palev_provider_register() initialises lazily and loads at once (or queues the
 * load for a background thread, PALEV_LOAD=background), so no registered provider is ever left
 * for this call to load. Idempotent and thread-safe.
 * Returns 0, or a negative errno (-ENOMEM) if the environment could not be read. Never aborts. */
PALEV_API int palev_init(void);

/* Wait until every provider registered so far has been loaded, or has failed to load. With
 * PALEV_LOAD=background, probe providers (and liblttng-ust with them) load on a thread of the
 * library while the host starts, and events fired before their provider is loaded are not
 * recorded: a host that must record its first events waits here first. Otherwise every load is
 * over when registration returns, and this returns 0 at once. Returns 0, -ETIMEDOUT when a load
 * is still under way after timeout_ms milliseconds, or -EDEADLK when called from a constructor
 * of a probe provider being loaded. Thread-safe. */
PALEV_API int palev_provider_wait(unsigned timeout_ms);

/* Mark the library finished. Providers stay loaded (a probe provider is never dlclosed while a
 * call site may use it); later calls to palev_init() are no-ops, and palev_provider_register()
 * loads no new provider (-ECANCELED). Idempotent and thread-safe. */
PALEV_API void palev_fini(void);

/* A short English description of a negative errno returned by this library. Never NULL. */
PALEV_API const char *palev_strerror(int err);

/* ---------------------------------------------------------------------------------------------
 * EventSource: events that exist only at run time (a managed EventSource, a script's counters),
 * recorded through one tracepoint, Paleventing:EventSource, with the fields EventID (int32),
 * EventName, EventSourceName and Payload (compact UTF-8 JSON). libpaleventing generates it from
 * manifest/eventsource.man and loads its probe provider, libPaleventing-lttng.so, like any other.
 *
 * Nothing is built unless the tracepoint is enabled in a session and the filters pass:
 * PALEV_EVENTSOURCE_FILTER and PALEV_EVENTNAME_FILTER, each a comma-separated list of
 * case-insensitive substrings (any of them matches; unset matches everything), read once.
 * Case is folded for ASCII only; blanks around an entry and empty entries are ignored, so a
 * list with no entry at all ("" or ",") matches everything too.
 *
 * When nobody listens a call is one load of the tracepoint state and a branch, inline in the
 * caller (the macros below): nothing is called, no argument is even evaluated, so a bad payload
 * is only reported (-EINVAL) when the event would have been recorded. Called directly (the name
 * in parentheses, or with PALEV_NO_INLINE_CHECKS defined) the functions check the same state
 * first; a NULL source or name is then -EINVAL even when nobody listens.
 * All functions are thread-safe and return 0 (written, or nothing to write because nobody
 * listens or a filter said no) or a negative errno (-EINVAL for a NULL source or name, a bad
 * format or invalid JSON, -ENOMEM). They never abort or block the host. An event larger than a
 * sub-buffer of the session's channel is dropped by LTTng (counted as discarded): docs/eventsource.md.
 * ------------------------------------------------------------------------------------------- */

struct json_t; /* jansson's json_t: include <jansson.h> to build payloads */

/* 1 when an event of this source and name would be recorded now (the tracepoint is enabled and
 * the filters pass), else 0; 0 for a NULL source or name. Lets a host skip building a payload. */
PALEV_API int palev_eventsource_is_enabled(const char *source, const char *name);

/* Record a payload the caller already holds as JSON text. It is validated (RFC 8259: one value of
 * any type, well-formed UTF-8, control characters escaped, no escaped unpaired surrogate,
 * nesting at most 2048 deep): invalid JSON is rejected (-EINVAL) and not recorded. Valid text is
 * recorded as is, except whitespace outside strings, which is removed (-ENOMEM if the compacted
 * copy, on the stack up to 4 KiB, cannot be allocated). NULL json records "{}". */
PALEV_API int palev_eventsource_write(const char *source, int32_t id, const char *name,
                                      const char *json);

/* Record a jansson value (any type), serialised compactly by json_dumps(): UTF-8 kept, '"', '\'
 * and control characters escaped, object keys in insertion order, reals with up to 17 significant
 * digits. NULL payload: "{}". jansson reals are never NaN or infinite (json_real() refuses them).
 * -EINVAL when jansson cannot serialise the value (a *_nocheck string that is not UTF-8, a
 * reference cycle): nothing invalid is ever recorded. The caller keeps its reference. */
PALEV_API int palev_eventsource_write_json(const char *source, int32_t id, const char *name,
                                           const struct json_t *payload);

/* Record a payload built with jansson's json_pack() format, e.g. "{s:i, s:s}", "count", 3, ...
 * -EINVAL (and, under PALEV_DEBUG, jansson's error text and position) for a bad or NULL format or
 * a bad argument: a string that is not UTF-8, a NULL string for "s", a NaN or infinite "f".
 * Pass existing values with "O", not "o": nothing is packed when the event is not recorded, so
 * a reference handed over with "o" would leak. */
PALEV_API int palev_eventsource_write_pack(const char *source, int32_t id, const char *name,
                                           const char *fmt, ...);

/* The state of the Paleventing:EventSource tracepoint (non-zero while a session records it), read
 * by the inline checks below; not for direct use. */
PALEV_API extern const int *const palev_eventsource_state;

/* The filters' verdicts (PALEV_EVENTSOURCE_FILTER, PALEV_EVENTNAME_FILTER), cached per pair of
 * source and name pointers for strings in read-only memory, such as string literals. Each entry
 * is written once, its source last with release semantics, and never changes. Read by the
 * inline checks below; not for direct use. */
typedef struct palev_eventsource_verdict_ {
    const char *source, *name;
    int verdict;                /* one of PALEV_VERDICT_*_ */
    int pad_[3];                /* 32 bytes: a slot's address is one shift */
} palev_eventsource_verdict_;
#define PALEV_VERDICT_EMPTY_ 0   /* a free slot */
#define PALEV_VERDICT_PASS_ 1
#define PALEV_VERDICT_OUT_ 2     /* filtered out */
#define PALEV_VERDICT_SCAN_ 3    /* not in read-only memory: matched on every call */
#define PALEV_VERDICT_SLOTS_ 4096
PALEV_API extern palev_eventsource_verdict_ *const palev_eventsource_verdicts_;  /* [SLOTS_] */

/* The home slot of a pair: shifts and xors only, the keys being addresses of distinct strings. */
static inline size_t palev_eventsource_slot_(const char *source, const char *name)
{
    uintptr_t h = (uintptr_t)source ^ ((uintptr_t)name >> 3);

    return (size_t)(h ^ (h >> 12)) & (PALEV_VERDICT_SLOTS_ - 1);
}

/* 1 when the pair sits in its home slot filtered out: then nothing is called. Anything else
 * (not cached yet, cached elsewhere, a NULL name) is the library's to answer. */
static inline int palev_eventsource_filtered_out_(const char *source, const char *name)
{
    const palev_eventsource_verdict_ *v =
        &palev_eventsource_verdicts_[palev_eventsource_slot_(source, name)];

    return __atomic_load_n(&v->source, __ATOMIC_ACQUIRE) == source && v->name == name &&
           v->verdict == PALEV_VERDICT_OUT_;
}

#if !defined(PALEV_BUILDING_LIBRARY) && !defined(PALEV_NO_INLINE_CHECKS)
/* Nobody listens: 0 at the cost of one load and a branch, before any call or argument. */
static inline int palev_eventsource_listening_(void)
{
    const volatile int *state = palev_eventsource_state;  /* one load, never hoisted */
    return PALEV_EVENT_STATE_ENABLED_(state);
}
#define PALEV_EVENTSOURCE_LISTENING() palev_eventsource_listening_()
#if defined(__GNUC__)
/* Listening: source and name are evaluated (once each), and a pair the filters rejected before
 * costs the cache lookup and no call. The other arguments are evaluated only for the call. */
#define PALEV_EVENTSOURCE_GATE_(source, name, call)                                            \
    __extension__({                                                                             \
        int palev_ret_ = 0;                                                                     \
        if (PALEV_EVENTSOURCE_LISTENING()) {                                                    \
            const char *palev_src_ = (source), *palev_nm_ = (name);                             \
            if (!palev_eventsource_filtered_out_(palev_src_, palev_nm_))                        \
                palev_ret_ = call;                                                              \
        }                                                                                       \
        palev_ret_;                                                                             \
    })
#define palev_eventsource_is_enabled(source, name) \
    PALEV_EVENTSOURCE_GATE_(source, name, (palev_eventsource_is_enabled)(palev_src_, palev_nm_))
#define palev_eventsource_write(source, id, name, json) \
    PALEV_EVENTSOURCE_GATE_(source, name, (palev_eventsource_write)(palev_src_, id, palev_nm_, json))
#define palev_eventsource_write_json(source, id, name, payload) \
    PALEV_EVENTSOURCE_GATE_(source, name,                    \
                            (palev_eventsource_write_json)(palev_src_, id, palev_nm_, payload))
#define palev_eventsource_write_pack(source, id, name, ...) \
    PALEV_EVENTSOURCE_GATE_(source, name,                    \
                            (palev_eventsource_write_pack)(palev_src_, id, palev_nm_, __VA_ARGS__))
#else
#define palev_eventsource_is_enabled(source, name) \
    (PALEV_EVENTSOURCE_LISTENING() ? (palev_eventsource_is_enabled)(source, name) : 0)
#define palev_eventsource_write(source, id, name, json) \
    (PALEV_EVENTSOURCE_LISTENING() ? (palev_eventsource_write)(source, id, name, json) : 0)
#define palev_eventsource_write_json(source, id, name, payload) \
    (PALEV_EVENTSOURCE_LISTENING() ? (palev_eventsource_write_json)(source, id, name, payload) : 0)
#define palev_eventsource_write_pack(source, id, name, ...) \
    (PALEV_EVENTSOURCE_LISTENING() ? (palev_eventsource_write_pack)(source, id, name, __VA_ARGS__) : 0)
#endif
#endif

/* ---------------------------------------------------------------------------------------------
 * Types of generated event stubs' arguments (FireEvent<Sym>() signatures)
 * ------------------------------------------------------------------------------------------- */

/* win:GUID, in the Windows in-memory layout. Recorded as "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx". */
typedef struct palev_guid {
    uint32_t data1;
    uint16_t data2;
    uint16_t data3;
    uint8_t data4[8];
} palev_guid;

/* win:SYSTEMTIME, as Windows lays it out. Recorded as "YYYY-MM-DDTHH:MM:SS.mmm". */
typedef struct palev_systemtime {
    uint16_t year;
    uint16_t month;
    uint16_t day_of_week;
    uint16_t day;
    uint16_t hour;
    uint16_t minute;
    uint16_t second;
    uint16_t milliseconds;
} palev_systemtime;

/* One generated provider (its definition is in paleventing-gen.h, for generated code). */
typedef struct palev_provider palev_provider;

/* Would an ETW session with this level and keyword mask receive an event of the provider that a
 * running LTTng session has enabled? ETW's rule per event: (level == 0 or event level <= level)
 * and (event keywords == 0 or event keywords & keywords). Lets a host skip expensive preparation
 * (heap walks) when nobody listens. Reads only the events of the keyword bits asked for (and the
 * events without keywords), never all of them. Returns 1 or 0; 0 for NULL. Thread-safe.
 * Generated headers wrap it as ProviderEnabled<P>(level, keywords). */
PALEV_API int palev_provider_is_enabled(const palev_provider *provider, uint8_t level,
                                        uint64_t keywords);

/* ---------------------------------------------------------------------------------------------
 * Dynamic events: typed events defined at run time (a managed EventSource, a script's events, a
 * plugin's events), recorded as first-class LTTng events <provider>:<name> with typed fields:
 * enabled by name or wildcard, selected by --loglevel, filtered by field value, read back by
 * babeltrace2 like generated events. See docs/dynamic-events.md.
 *
 * An event is defined once (a mutex is taken) and lives until the process exits or its provider
 * is undefined (palev_event_undefine_provider()). Writing is
 * lock-free and allocation-free while converted text (UTF-16 strings, GUIDs, float arrays) fits
 * 4096 bytes per event (PALEV_SCRATCH_STACK_SIZE). Without LTTng (PALEV_LTTNG=0, liblttng-ust absent),
 * definitions still succeed and nothing is ever recorded.
 * ------------------------------------------------------------------------------------------- */

/* Field types. Integers are recorded with their size and signedness; PALEV_TYPE_POINTER as an
 * unsigned hexadecimal integer of the pointer's size; BOOL as an enumeration (false/true) over
 * one byte; STRING16 (UTF-16) converted to UTF-8 like generated events (unpaired surrogates
 * become U+FFFD); GUID as "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"; BYTES as a sequence of
 * hexadecimal bytes. */
enum palev_type {
    PALEV_TYPE_INT8 = 1,
    PALEV_TYPE_UINT8,
    PALEV_TYPE_INT16,
    PALEV_TYPE_UINT16,
    PALEV_TYPE_INT32,
    PALEV_TYPE_UINT32,
    PALEV_TYPE_INT64,
    PALEV_TYPE_UINT64,
    PALEV_TYPE_FLOAT,
    PALEV_TYPE_DOUBLE,
    PALEV_TYPE_BOOL,
    PALEV_TYPE_STRING,      /* UTF-8 */
    PALEV_TYPE_STRING16,    /* UTF-16, recorded as UTF-8 */
    PALEV_TYPE_GUID,
    PALEV_TYPE_POINTER,
    PALEV_TYPE_BYTES
};

/* Field flags. HEX: integers (and integer arrays) displayed in hexadecimal. ARRAY: a counted
 * array of integers, floats or doubles. Integer arrays are LTTng sequences (babeltrace2 shows
 * `[ [0] = 1, ... ]`); LTTng cannot type float arrays, so FLOAT/DOUBLE arrays are recorded as a
 * string holding a compact JSON array ("[1.5,2.5]", NaN/infinity as null), as generated events
 * record them. Any other combination is refused (-EINVAL). */
#define PALEV_FIELD_HEX 0x1u
#define PALEV_FIELD_ARRAY 0x2u

/* Limits (exceeding one is refused with the errno given). */
#define PALEV_EVENT_MAX_FIELDS 128      /* fields per event: -E2BIG */
#define PALEV_EVENT_MAX_NAME 255        /* strlen(provider) + 1 + strlen(name): -ENAMETOOLONG */
#define PALEV_FIELD_MAX_NAME 200        /* strlen(field name): -ENAMETOOLONG */

typedef struct palev_field {
    const char *name;       /* [A-Za-z_][A-Za-z0-9_]*, unique in the event (see below) */
    uint8_t type;           /* enum palev_type */
    uint8_t flags;          /* PALEV_FIELD_* */
} palev_field;

/* One value for one field, by the field's type:
 *   integers, BOOL: i (signed) or u (unsigned), cut to the field's size; BOOL: non-zero is true
 *   FLOAT, DOUBLE: d
 *   STRING: s, with len bytes (PALEV_NUL_TERMINATED: up to its NUL); NULL is ""
 *   STRING16: s16, with len code units (or PALEV_NUL_TERMINATED); NULL is ""
 *   GUID: guid (NULL: the zero GUID); POINTER: p
 *   BYTES and arrays: p, pointing to len elements of the field's C type (uint8_t, int16_t, float,
 *   ...); len may be 0 (and p NULL): an empty array. At most UINT32_MAX elements. */
typedef struct palev_value {
    union {
        int64_t i;
        uint64_t u;
        double d;
        const char *s;
        const char16_t *s16;
        const palev_guid *guid;
        const void *p;
    } v;
    size_t len;
} palev_value;

/* A defined event. Its first bytes hold the state LTTng sets while a session records it, read
 * by palev_event_enabled(); everything else is private. */
typedef struct palev_event palev_event;

/* Where the state is in a palev_event: after a 32-bit size and two pointers (LTTng-UST 2.13's
 * struct lttng_ust_tracepoint, checked when the library is built). */
#define PALEV_EVENT_STATE_OFFSET (3 * sizeof(void *))

/* Define the event <provider>:<name> with an ETW level (mapped to the LTTng log level as for
 * generated events: 0 EMERG, 1 CRIT, 2 ERR, 3 WARNING, 4 INFO, 5 and above DEBUG) and keywords,
 * and register it with LTTng: a session already recording a matching name or wildcard records it
 * at once. Names: [A-Za-z_][A-Za-z0-9_]* (-EINVAL). Field names must differ once their leading
 * underscores are removed ("_x" and "x" are refused together: LTTng writes each name with a
 * leading '_' that trace readers strip, and babeltrace2 refuses a whole trace whose names meet
 * that way), and an array or BYTES field "x" takes the name "x_length" too (LTTng records its
 * length in a hidden field "_x_length"): -EINVAL. On success *event is the handle, valid until
 * the process exits (also after palev_event_undefine_provider(): it then records nothing).
 * Defining the same provider, name, level, keywords and fields again returns the same handle;
 * the same provider and name with anything else is -EEXIST (define a new name, e.g. Tick_V2, for
 * a new version, or undefine the provider first). -EBUSY: the provider name belongs to a
 * generated provider registered in this process, is "Paleventing" (the library's own), or begins
 * with "lttng_" (LTTng's own providers: lttng_ust_statedump, lttng_ust_dl, the agents' lttng_jul,
 * lttng_python, ...). Also -EINVAL (NULL argument, unknown type, bad flags, field names as
 * above), -E2BIG, -ENAMETOOLONG (see the limits above), -ENOMEM, -ECANCELED after palev_fini().
 * On failure *event (when event is not NULL) is a handle that is never enabled, so a host that
 * ignores the error writes nothing and never crashes. Thread-safe. */
PALEV_API int palev_event_define(const char *provider, const char *name, uint8_t level,
                                 uint64_t keywords, const palev_field *fields, size_t count,
                                 palev_event **event);

/* One definition for palev_event_define_many(): the arguments of palev_event_define(). */
typedef struct palev_event_def {
    const char *provider;
    const char *name;
    uint8_t level;
    uint64_t keywords;
    const palev_field *fields;
    size_t field_count;
} palev_event_def;

/* Define `count` events at once. Each definition gets what palev_event_define() would give it
 * if the definitions were made one by one in array order (out of memory aside: -ENOMEM may then
 * fail more of them): events[i] its handle (the never-enabled one on failure), errors[i] (when
 * errors is not NULL) 0 or its negative errno. A bad definition fails alone: the others are
 * defined all the same. A provider's new events are
 * registered with LTTng together, as one probe: while a session records, LTTng-UST walks every
 * event of the process at each registration, so defining a provider's events in one call instead
 * of one by one saves that walk for all but one of them (docs/dynamic-events.md). Returns 0 when
 * every definition succeeded, else the errno of the first that failed (in array order); -EINVAL
 * with nothing defined when defs or events is NULL and count is not 0. Thread-safe. */
PALEV_API int palev_event_define_many(const palev_event_def *defs, size_t count,
                                      palev_event **events, int *errors);

/* The event <provider>:<name> defined earlier, or NULL (also for a NULL name). Lock-free and
 * allocation-free (an RCU-published table; a define may run meanwhile): meant for hot paths
 * that hold names, not handles. About 15 ns with 10 000 events defined. Thread-safe. */
PALEV_API palev_event *palev_event_lookup(const char *provider, const char *name);

/* Undefine every dynamic event of `provider`, whatever define call made it: they leave LTTng-UST
 * (a session stops recording them) and the lookup table, and their names can be defined again,
 * with the same or other fields (a new event: sessions recording a matching name or wildcard
 * record it at once; a trace then holds both versions, each read with its own fields). The
 * unit is the provider: a provider's events defined in one call are one LTTng probe.
 * Handles given out before stay valid forever: palev_event_enabled() reads 0 for good, and
 * palev_event_write()/palev_event_writef()/PALEV_EVENT_WRITE() record nothing and return 0,
 * even from threads writing through them while this runs. Once it returns, nothing more is
 * recorded into the old events: it waits for writes already under way (an LTTng-UST
 * RCU grace period, a few milliseconds while sessions record). The old events' memory is
 * never freed (that is what keeps their handles safe): about 400 bytes plus 150 per field per
 * event, lookup table included, kept until the process exits; a host redefining in a loop
 * grows by that much per round (docs/dynamic-events.md).
 * Returns 0; -ENOENT when the provider has no dynamic event (never defined, or undefined
 * already); -EINVAL for a NULL provider or a name that is not [A-Za-z_][A-Za-z0-9_]*; -EBUSY
 * for "Paleventing", a name beginning with "lttng_" or a generated provider's name (not
 * dynamic: never removed); -ECANCELED
 * after palev_fini(). Takes the definitions' mutex; never call it from a probe or a write.
 * Thread-safe. */
PALEV_API int palev_event_undefine_provider(const char *provider);

/* Record the event with `count` values, one per field in definition order. Returns 0 (recorded,
 * or nobody listens: then nothing is read), -EINVAL for a NULL event, or, when the event would
 * be recorded, a count that is not the event's field count (nothing is recorded then). Strings
 * are read up to len or their NUL, arrays for len elements. LTTng applies the session's filters
 * to the values. Thread-safe, lock-free, never blocks. */
PALEV_API int palev_event_write(const palev_event *event, const palev_value *values, size_t count);

/* The same with one argument per field, by the field's type: 8-, 16- and 32-bit integers and BOOL
 * as int (or unsigned), 64-bit integers as int64_t/uint64_t, FLOAT and DOUBLE as double, STRING
 * as const char *, STRING16 as const char16_t * (both NUL-terminated), GUID as
 * const palev_guid *, POINTER as const void *, BYTES and arrays as two arguments: const void *
 * elements, size_t count. Arguments are read only when the event is recorded. */
PALEV_API int palev_event_writef(const palev_event *event, ...);

/* 1 while a session records the event, else 0: one load and a branch, inline. `event` is a
 * handle palev_event_define() gave (never NULL). */
static inline int palev_event_enabled(const palev_event *event)
{
#ifdef __cplusplus
    return PALEV_EVENT_STATE_ENABLED_(reinterpret_cast<const volatile int *>(
        reinterpret_cast<const char *>(event) + PALEV_EVENT_STATE_OFFSET));
#else
    return PALEV_EVENT_STATE_ENABLED_((const volatile int *)((const char *)event +
                                                             PALEV_EVENT_STATE_OFFSET));
#endif
}

/* Write with the varargs form only when the event is enabled: when nobody listens, the
 * arguments are not even evaluated. */
#define PALEV_EVENT_WRITE(event, ...) \
    (palev_event_enabled(event) ? palev_event_writef((event), __VA_ARGS__) : 0)

/* ---------------------------------------------------------------------------------------------
 * Code: what a runtime generates, described in the trace and for perf (docs/stacks.md,
 * docs/jit-symbols.md).
 *
 * Every range named here is recorded as Paleventing:CodeLoad { start, size, kind, name, version }
 * while a session records it, Paleventing:CodeUnload { start, size } when the runtime frees it,
 * and kept in the process's set of live ranges: when a session starts recording
 * Paleventing:CodeRundown, a libpaleventing thread records one CodeRundown per live range, so a
 * trace started after the code was generated still names it. Machine code (JIT and stubs) also
 * goes to the perf outputs PALEV_PERFMAP selects (below). The names let `palev-trace stacks`
 * name the frames of Paleventing:Stack events.
 *
 * Cost while no session records the code events and PALEV_PERFMAP is off: one allocation (the
 * name's copy) and a short mutex-held update of the set per load, a free per unload: 53-74 ns
 * per call (docs/stacks.md, row S4). The set exists in a process that can trace or writes perf
 * outputs; without either a call checks its arguments and returns. All functions are
 * thread-safe and return 0 or
 * a negative errno: -EINVAL for a NULL code, a size of 0 or above 2 GiB, a NULL or empty name,
 * -ENOMEM, or the error of a perf output that failed just now (that output is then off).
 * ------------------------------------------------------------------------------------------- */

/* What a code range holds: the `kind` field of CodeLoad and CodeRundown. */
enum palev_code_kind {
    PALEV_CODE_JIT = 0,         /* JIT-compiled machine code of a method */
    PALEV_CODE_STUB = 1,        /* a runtime helper stub, named "stub<KIND> NAME" */
    PALEV_CODE_INTERPRETED = 2  /* a method's bytecode: the ids a stack walker reports */
};

/* Name the machine code at [code, code + size) `name` (UTF-8; line breaks become spaces, names
 * beyond 65535 bytes are cut at a character boundary). For a jitdump the code bytes are copied:
 * log the code once written, while readable. A range loaded again at the same start replaces the
 * older one. A perf map line is appended atomically. */
PALEV_API int palev_code_load(const void *code, size_t size, const char *name);

/* The same with a UTF-16 name of `len` code units (or PALEV_NUL_TERMINATED), converted by
 * palev_utf16_to_utf8() (unpaired surrogates become U+FFFD). */
PALEV_API int palev_code_load_utf16(const void *code, size_t size, const char16_t *name,
                                    size_t len);

/* Name a runtime helper stub (trampoline, precode, inline cache...) "stub<KIND> NAME", e.g.
 * "stub<precode> Foo.Bar", or "stub<KIND>" when `name` is NULL or empty. `stub_kind` must be
 * non-empty (-EINVAL). Otherwise as palev_code_load(). */
PALEV_API int palev_code_load_stub(const void *code, size_t size, const char *stub_kind,
                                   const char *name);

/* Name the bytecode (or any memory identifying a method) at [start, start + size): the ids an
 * interpreter's stack walker reports (palev_stack_add_walker()). Recorded in the trace only,
 * never in the perf outputs. */
PALEV_API int palev_code_load_interpreted(const void *start, size_t size, const char *name);

/* How to step over a frame of JIT code that keeps no frame pointer (x86-64), so that the stacks
 * of events (Paleventing:Stack, PALEV_STACK=fp and unwind) and perf's DWARF call graphs (`perf
 * record --call-graph dwarf` with the jitdump) go on past it to its callers. The CFA (canonical
 * frame address) is the stack pointer before the call into the code: the return address is at
 * CFA - 8. Give either form, or both (the frame pointer walk tries the instructions first):
 *  - a fixed frame: `cfa_offset`, the CFA minus the stack pointer wherever the code calls out
 *    (8 for the return address, plus what the code pushed and subtracted), and `saved_fp`: the
 *    caller's rbp is saved at CFA - saved_fp, or 0 when the code never changes rbp. Multiples
 *    of 8. Exact at calls, which is what the stacks of events need; a perf sample inside the
 *    code's prologue or epilogue may unwind wrongly with it.
 *  - DWARF call frame instructions: `cfi`, `cfi_size` bytes of DW_CFA_* as in an .eh_frame FDE,
 *    from the range's first byte, under a CIE whose initial rules are those at a call (CFA =
 *    rsp + 8, return address at CFA - 8), code alignment 1, data alignment -8, return address
 *    column 16. Exact at every instruction when they describe prologues and epilogues. The
 *    frame pointer walk evaluates advance_loc, def_cfa and def_cfa_register (rsp or rbp),
 *    def_cfa_offset, offset, restore, same_value, remember_state, restore_state and nop;
 *    where a return address needs more (an expression), the walk ends there (or uses the fixed
 *    frame when given). At most 1024 bytes. */
typedef struct palev_code_unwind {
    uint32_t cfa_offset;        /* fixed frame: CFA - rsp at calls, 0 when not given */
    uint32_t saved_fp;          /* fixed frame: caller's rbp at CFA - saved_fp, 0: unchanged */
    const void *cfi;            /* DWARF call frame instructions, or NULL */
    size_t cfi_size;
} palev_code_unwind;

/* Name JIT code that keeps no frame pointer, and say how to step over its frames (copied). As
 * palev_code_load(); the jitdump gets an unwinding-info record before the code's record. Also
 * -EINVAL for a NULL unwind, one with neither form, offsets that are not multiples of 8 (or a
 * cfa_offset below 8, a saved_fp above it), or CFI that is not a whole instruction stream
 * of known opcodes; -ENOTSUP on another machine than x86-64 (nothing recorded). */
PALEV_API int palev_code_load_unwind(const void *code, size_t size, const char *name,
                                     const palev_code_unwind *unwind);

/* The live range starting at `code` was changed in place (patched, relinked, recompiled at the
 * same address): a new version of it, numbered 1, 2... CodeLoad records it with its `version`
 * (a trace names stacks taken before it with the old name, after it with the new), the jitdump
 * gets a record with the new bytes (perf inject names samples by the version live at their
 * time), the perf map a line (perf map files have no time: perf keeps one name per address).
 * `size` 0 keeps the size, `name` NULL keeps the name, the kind and the unwind description
 * stay. Returns 0, -ENOENT when no live range starts at `code` (nothing recorded; also in a
 * process that keeps no live set: neither traceable nor writing perf outputs), else as
 * palev_code_load(). */
PALEV_API int palev_code_patch(const void *code, size_t size, const char *name);

/* The range starting at `code` is freed: recorded as CodeUnload and dropped from the live set.
 * Returns 0, -ENOENT when no live range starts there (CodeUnload is recorded all the same, with
 * size 0), -EINVAL for NULL. Call it before the memory can be reused. */
PALEV_API int palev_code_unload(const void *code);

/* Every live range starting in [start, start + size) is freed (a code cache flushed, an arena
 * released): one CodeUnload each, as palev_code_unload(). Returns how many, 0 when none, or
 * -EINVAL for a NULL start or a size of 0. Walks the whole live set under its mutex: code loads
 * and unloads of other threads wait meanwhile. */
PALEV_API int palev_code_unload_area(const void *start, size_t size);

/* Say how to step over the frames of native code that keeps no frame pointer but is named
 * already (by its ELF symbols: an interpreter written in assembly, such as LuaJIT's lj_vm), for
 * the stacks of events (PALEV_STACK=fp and unwind) only: no CodeLoad, no perf map or jitdump
 * record, not in the live set (no rundown), so the range keeps the names its symbols give it.
 * The rule (copied) must hold at every call out of [start, start + size): leave out the parts
 * that call with another frame. A range overlapping one described before replaces it; a
 * palev_code_load*() at the same start drops it. Kept only in a process that can trace (else
 * nothing is done, 0). Returns 0, -EINVAL as palev_code_load_unwind() (a NULL start, a size of
 * 0 or above 2 GiB, a bad `unwind`), -ENOMEM, -ENOTSUP on another machine than x86-64. */
PALEV_API int palev_code_unwind_range(const void *start, size_t size,
                                      const palev_code_unwind *unwind);

/* Drop the rule palev_code_unwind_range() gave the range starting at `start` (before its
 * memory is unmapped or reused). Returns 0, -ENOENT when no described range starts there,
 * -EINVAL for NULL. */
PALEV_API int palev_code_unwind_range_remove(const void *start);

/* ---------------------------------------------------------------------------------------------
 * The perf outputs of the code API.
 *
 * PALEV_PERFMAP, read once, selects the outputs: unset or 0 off (no file is touched), 1 the perf
 * map /tmp/perf-<pid>.map (read by perf report as is), 2 a jitdump <dir>/jit-<pid>.dump for
 * `perf record -k 1` + `perf inject --jit`, where <dir> is PALEV_PERFMAP_DIR or /tmp, 3 both.
 * Files are opened by the first code load: created with mode 0600 and never through a symlink;
 * an existing one is reused only if it is a regular file of the same user. An output that fails
 * to open or write is off for the rest of the process (why is said under PALEV_DEBUG); the host
 * never notices otherwise. A child forked without exec logs nothing to them. Stubs and JIT code
 * go there, interpreted ranges never.
 * ------------------------------------------------------------------------------------------- */

/* 1 when PALEV_PERFMAP selects an output that has not failed so far, else 0. Opens no file: the
 * first code load does, and may still fail. Thread-safe. Do not skip palev_code_load() when it
 * says 0: the trace needs the names too. */
PALEV_API int palev_perfmap_is_enabled(void);

/* ---------------------------------------------------------------------------------------------
 * Call stacks (docs/stacks.md). While a session records Paleventing:Stack, every recorded event
 * of a generated provider and every EventSource event is followed, from the same thread, by a
 * Stack event { provider, event, count, frames, line_count, lines }: the return addresses of the
 * thread, innermost first (the caller of FireEvent<Sym>() first), at most PALEV_STACK_DEPTH
 * (default 32, 1 to 128) of them. PALEV_STACK=fp (default) walks frame pointers, each one checked
 * against the thread's stack bounds, so code built without them gives a short stack, never a
 * fault, and steps over frames described by palev_code_load_unwind() or palev_code_unwind_range();
 * PALEV_STACK=unwind
 * unwinds with libunwind (DWARF CFI, JIT code's included) when libpaleventing-unwind.so and
 * libunwind are installed.
 * ------------------------------------------------------------------------------------------- */

/* One logical frame of a runtime: `code` an address inside a range named by palev_code_load*()
 * (an interpreter names its bytecode with palev_code_load_interpreted(); the address of the
 * instruction being run does, as well as the range's start); `frame` an address inside the
 * native stack frame of the activation running it (the interpreter loop's
 * __builtin_frame_address(0) or a local's address): the frame is placed just inside that native
 * frame, 0: unknown, placed outermost. `line`: the source line being run (1 and up), or 0 when
 * unknown: recorded in the Stack event's `lines`, shown as "name:line". */
typedef struct palev_stack_frame {
    uintptr_t code;
    uintptr_t frame;
    uint32_t line;
} palev_stack_frame;

/* Called on the thread of the event, inside the event's emission: write at most `max` logical
 * frames of the calling thread, innermost first, and return how many. The frames arrive zeroed.
 * Must not block, take locks the host may hold while firing, fire events, or add or remove
 * walkers. */
typedef size_t palev_stack_walker(void *ctx, palev_stack_frame *frames, size_t max);

/* Add a walker called for the stack of every event, on every thread, with `ctx`: at most 16
 * (-ENOSPC); the same fn and ctx twice is -EEXIST; -EINVAL for NULL fn. Walkers are called in
 * the order added. Waits for stack walks under way to end (an RCU grace period, microseconds
 * to milliseconds): never call it from a walker or an event. Thread-safe. */
PALEV_API int palev_stack_add_walker(palev_stack_walker *fn, void *ctx);

/* Remove the walker added with fn and ctx. Once this returns, no thread runs it any more: ctx
 * may be freed. Returns 0, -ENOENT when it was not added, -EINVAL for NULL fn. Waits as
 * palev_stack_add_walker() does. Thread-safe. */
PALEV_API int palev_stack_remove_walker(palev_stack_walker *fn, void *ctx);

/* A walker of the calling thread only: called for the stacks of this thread's events, after
 * the process-wide ones; for an embedding with several VM states, each thread adds the walker
 * of the state it runs (and removes it when the state leaves the thread). At most 4 per thread
 * (-ENOSPC); -EEXIST, -EINVAL as palev_stack_add_walker(). No lock, no wait: a few stores. A
 * thread's walkers end with it. */
PALEV_API int palev_stack_add_thread_walker(palev_stack_walker *fn, void *ctx);

/* Remove a walker the calling thread added: 0, -ENOENT, -EINVAL. Not from a walker. */
PALEV_API int palev_stack_remove_thread_walker(palev_stack_walker *fn, void *ctx);

/* ---------------------------------------------------------------------------------------------
 * UTF-16 to UTF-8, the one conversion used by generated stubs and the library
 * ------------------------------------------------------------------------------------------- */

/* A length meaning "up to the terminating NUL". */
#define PALEV_NUL_TERMINATED SIZE_MAX

/* Convert `srclen` UTF-16 code units from `src` (or up to its NUL when srclen is
 * PALEV_NUL_TERMINATED) into UTF-8 in `dst`, which always ends with a NUL when dstsize > 0.
 * Unpaired surrogates become U+FFFD; an embedded NUL ends the string. Output is cut only at a
 * code point boundary. Returns the number of bytes the whole conversion needs, excluding the NUL
 * (as snprintf does): the result was complete iff the return value < dstsize. src may be NULL
 * (converted as the empty string). Thread-safe, no allocation. */
PALEV_API size_t palev_utf16_to_utf8(char *dst, size_t dstsize, const char16_t *src, size_t srclen);

#ifdef __cplusplus
}
#endif

#endif /* PALEVENTING_H */
