/* SPDX-License-Identifier: MIT */
/* paleventing-gen: what only code palev-gen generates uses (provider descriptors, the scratch
 * arena, array descriptors, tracepoint state checks). Hosts include paleventing.h, or the
 * <P>-events.h palev-gen wrote, which includes this. Installed beside paleventing.h. */
#ifndef PALEVENTING_GEN_H
#define PALEVENTING_GEN_H

#include <paleventing.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Providers, as generated code describes them to the library
 * ------------------------------------------------------------------------------------------- */

/* The ETW identity of one event, as the manifest declares it. */
typedef struct palev_event_descriptor {
    uint16_t id;
    uint8_t version;
    uint8_t channel;
    uint8_t level;
    uint8_t opcode;
    uint16_t task;
    uint64_t keywords;
} palev_event_descriptor;

/* One generated provider, described for the library. Generated code defines one per provider
 * (in <P>-events.c) and registers it from a constructor; hosts do not build these by hand. */
struct palev_provider {
    uint32_t struct_size;                      /* sizeof(palev_provider) at generation time */
    const char *name;                          /* LTTng provider name, e.g. "DotNETRuntime" */
    const char *etw_name;                      /* ETW provider name from the manifest */
    palev_guid guid;                           /* ETW provider GUID (zero if none) */
    size_t event_count;
    const palev_event_descriptor *events;      /* event_count descriptors */
    const char *const *event_names;            /* event_count LTTng event names */
    const int *const *event_states;            /* event_count pointers to tracepoint states */
    /* Events by keyword bit, for palev_provider_is_enabled(): the events with bit b set are
     * keyword_events[keyword_start[b] .. keyword_start[b + 1]), group 64 the events without
     * keywords; keyword_start has 66 entries. */
    const uint32_t *keyword_events;
    const uint32_t *keyword_start;
    /* "palev-layout:<name>:<hash>", also in the probe provider built from the same P-tp.h: a
     * lib<name>-lttng.so without it was built from another version of the manifest and is
     * skipped. NULL: no check. (Descriptors of older generators end before this field.) */
    const char *layout;
    /* PALEV_ABI_VERSION of the headers the generated code was compiled with: another than the
     * library's is refused at registration. (Descriptors of older generators end before this
     * field: version 1, the layouts before it existed.) */
    uint32_t abi_version;
};

/* Register a generated provider and load its probe provider "lib<name>-lttng.so": from the
 * directories in PALEV_PROVIDER_PATH (colon-separated), then next to the executable, then next to
 * the module that defines `provider` (a plugin's own directory), then next to libpaleventing.so
 * itself (both found with dladdr), then the dynamic linker's default search path. A file that
 * lacks the descriptor's `layout` (built from another version of the manifest) is skipped.
 * Loads at most once per name, never dlcloses, and does nothing when PALEV_LTTNG=0. With
 * PALEV_LOAD=background the load is queued for a thread of the library and this returns
 * -EINPROGRESS at once (palev_provider_wait() waits for it). Thread-safe.
 * Returns 0 when loaded (or already loaded), -ENOENT when no probe provider could be loaded
 * (tracing of that provider stays off, the host runs; not retried), -EPROTO when the descriptor's
 * abi_version is not the library's PALEV_ABI_VERSION (nothing is loaded under that name, the
 * host runs untraced; PALEV_DEBUG and ProviderStatus say why), -ECANCELED when PALEV_LTTNG=0
 * or after palev_fini(), -EINVAL for a NULL or malformed provider (struct_size too small, name not
 * 1 to 255 characters of [A-Za-z0-9_], or beginning with "lttng_", LTTng's own namespace),
 * -ENOMEM, or -EDEADLK when a constructor of the probe
 * provider being loaded registers that same provider again. */
PALEV_API int palev_provider_register(const palev_provider *provider);

/* ---------------------------------------------------------------------------------------------
 * Support for generated emit functions (<P>-events.c). Not meant to be called by hand.
 *
 * An emit function converts its arguments in a scratch arena: a caller-provided stack block first,
 * then heap blocks only when the stack block is exhausted (documented bound:
 * PALEV_SCRATCH_STACK_SIZE bytes per event). If the heap is exhausted too, results are truncated,
 * never dropped, never NULL.
 * ------------------------------------------------------------------------------------------- */

#define PALEV_SCRATCH_STACK_SIZE 4096

typedef struct palev_scratch {
    char *base;     /* current block */
    size_t size;    /* its size */
    size_t used;    /* bytes used in it */
    void *heap;     /* list of heap blocks to free */
    int truncated;  /* set when an allocation failed and a result was truncated */
} palev_scratch;

PALEV_API void palev_scratch_init(palev_scratch *sc, void *stack, size_t size);
PALEV_API void palev_scratch_fini(palev_scratch *sc);

#if !defined(PALEV_BUILDING_LIBRARY)
/* Inline in emit functions (a call costs as much as converting a short string): init only
 * stores, and fini calls in only when a heap block was taken. */
static inline void palev_scratch_init_inline_(palev_scratch *sc, void *stack, size_t size)
{
    sc->base = (char *)stack;
    sc->size = stack ? size : 0;
    sc->used = 0;
    sc->heap = NULL;
    sc->truncated = 0;
}

static inline void palev_scratch_fini_inline_(palev_scratch *sc)
{
    if (sc->heap)
        (palev_scratch_fini)(sc);
}
#define palev_scratch_init(sc, stack, size) palev_scratch_init_inline_(sc, stack, size)
#define palev_scratch_fini(sc) palev_scratch_fini_inline_(sc)
#endif

/* Strings, as a NUL-terminated UTF-8 string living in the scratch (or `s` itself when no copy is
 * needed). NULL input gives "". `len` is in code units (UTF-16) or bytes (ANSI), or
 * PALEV_NUL_TERMINATED. */
PALEV_API const char *palev_scratch_utf16(palev_scratch *sc, const char16_t *s, size_t len);
PALEV_API const char *palev_scratch_ansi(palev_scratch *sc, const char *s, size_t len);
PALEV_API const char *palev_scratch_guid(palev_scratch *sc, const palev_guid *g);
PALEV_API const char *palev_scratch_systemtime(palev_scratch *sc, const palev_systemtime *t);
/* A Windows SID in binary form (revision, count, 6-byte authority, count sub-authorities) as
 * "S-1-5-21-..."; a malformed SID gives "(invalid SID)". */
PALEV_API const char *palev_scratch_sid(palev_scratch *sc, const void *sid);

/* Element kinds for arrays that LTTng cannot type, recorded as a JSON array in a string field. */
enum palev_elem_kind {
    PALEV_ELEM_FLOAT = 1,   /* float, inline */
    PALEV_ELEM_DOUBLE,      /* double, inline */
    PALEV_ELEM_UTF16,       /* const char16_t *, JSON string */
    PALEV_ELEM_ANSI,        /* const char *, JSON string */
    PALEV_ELEM_GUID,        /* palev_guid, inline, JSON string */
    PALEV_ELEM_SYSTEMTIME,  /* palev_systemtime, inline, JSON string */
    PALEV_ELEM_SID,         /* const void *, JSON string */
    PALEV_ELEM_BINARY       /* const void *, JSON string of lowercase hex digits */
};

/* Where the elements of an array are: element i's value is at base + i*stride + offset. Its length
 * (strings: code units or bytes; binary: bytes) is len_const when len_size is 0, otherwise an
 * unsigned integer of len_size bytes (1, 2, 4 or 8; host byte order) at base + i*stride +
 * len_offset. Everything is read with memcpy: elements may be unaligned. */
typedef struct palev_array_desc {
    uint8_t kind;           /* enum palev_elem_kind */
    uint8_t len_size;
    size_t stride;
    size_t offset;
    size_t len_offset;
    size_t len_const;       /* PALEV_NUL_TERMINATED for NUL-terminated strings */
} palev_array_desc;

/* `count` elements as compact JSON: [1.5,2.5], ["a","b"]. NULL base with count > 0 gives [].
 * NaN and infinities give null; unpaired surrogates and invalid UTF-8 bytes become U+FFFD; NULL
 * strings give ""; an unknown kind gives []. Out of memory cuts after the last whole element: the
 * result is always valid JSON. */
PALEV_API const char *palev_scratch_json_array(palev_scratch *sc, const palev_array_desc *d,
                                               const void *base, size_t count);

/* Gather one integer member of `size` bytes from `count` structs (stride, offset) into a contiguous
 * array in the scratch, for a typed LTTng sequence. Returns NULL when count or size is 0, base is
 * NULL, or memory is exhausted (sc->truncated is then set): record an empty sequence then. */
PALEV_API const void *palev_scratch_gather(palev_scratch *sc, const void *base, size_t count,
                                           size_t stride, size_t offset, size_t size);

/* Flatten a variable-length integer array member of each of `count` structs: element i holds a
 * pointer at ptr_offset and an unsigned count of cnt_size bytes (1, 2, 4 or 8) at cnt_offset; the
 * arrays are concatenated (elements of elem_size bytes; a NULL pointer counts as empty).
 * *total receives the number of elements gathered: fewer than asked when memory is exhausted
 * (sc->truncated set). Returns NULL, with *total 0, when nothing was gathered. */
PALEV_API const void *palev_scratch_gather_nested(palev_scratch *sc, const void *base, size_t count,
                                                  size_t stride, size_t ptr_offset,
                                                  size_t cnt_offset, size_t cnt_size,
                                                  size_t elem_size, size_t *total);

/* True (1) when a tracepoint state says the event is enabled: one load, no barrier. (C++: no
 * old-style cast in the host's code, -Wold-style-cast stays quiet.) */
#ifdef __cplusplus
#define PALEV_TP_STATE_ENABLED(state) __builtin_expect(*static_cast<const volatile int *>(&(state)), 0)
#else
#define PALEV_TP_STATE_ENABLED(state) __builtin_expect(*(const volatile int *)&(state), 0)
#endif

/* The state of Paleventing:Stack, and what generated emit functions call after their event. */
PALEV_API extern const int *const palev_stack_state;
/* `caller`: the emit function's return address, where the stack starts (tail calls and emit
 * functions without a frame pointer cannot hide it). */
PALEV_API void palev_stack_after_event(const palev_provider *provider, uint32_t index,
                                       const void *caller);
#define PALEV_STACK_AFTER_EVENT(provider, index)                                        \
    do {                                                                                \
        if (PALEV_TP_STATE_ENABLED(*palev_stack_state))                                 \
            palev_stack_after_event((provider), (index), __builtin_return_address(0));  \
    } while (0)

/* generate --usdt: each event is also the USDT probe <provider>:<event>. A tool that attaches
 * (bpftrace, BCC, perf probe, SystemTap) raises its semaphore; FireEvent<Event>() calls out when
 * an LTTng session records the event OR the semaphore is up, with one branch. */
#ifdef __cplusplus
#define PALEV_USDT_SEM(sem) (*static_cast<const volatile unsigned short *>(&(sem)))
#define PALEV_TP_OR_USDT(state, sem) \
    __builtin_expect(*static_cast<const volatile int *>(&(state)) | PALEV_USDT_SEM(sem), 0)
#else
#define PALEV_USDT_SEM(sem) (*(const volatile unsigned short *)&(sem))
#define PALEV_TP_OR_USDT(state, sem) \
    __builtin_expect(*(const volatile int *)&(state) | PALEV_USDT_SEM(sem), 0)
#endif
#define PALEV_USDT_ACTIVE(sem) __builtin_expect(PALEV_USDT_SEM(sem), 0)

#ifdef __cplusplus
}
#endif

#endif /* PALEVENTING_GEN_H */
