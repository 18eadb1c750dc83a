/* SPDX-License-Identifier: MIT */
/* Dynamic events: the in-memory LTTng-UST descriptors behind a palev_event (dynamic.c, dynwrite.c). */
#ifndef PALEV_DYNAMIC_H
#define PALEV_DYNAMIC_H

#define LTTNG_UST_COMPAT_API_VERSION 1
#include <lttng/tracepoint-types.h>
#include <lttng/ust-events.h>
#include <lttng/ust-ringbuffer-context.h>
#include <lttng/ust-tracer.h>

#include "internal.h"

/* Alignment in the ring buffer of a scalar of `size` bytes: 1 where it is packed (x86), else
 * natural. Field descriptors and writes must agree. */
#define PALEV__RB_ALIGN(size) (lttng_ust_rb_alignof(uint64_t) == 1 ? 1u : (unsigned)(size))

/* How the write path records one field. */
enum palev__wk {
    PALEV__WK_INT,      /* size bytes from v.u */
    PALEV__WK_FLOAT,    /* 4 bytes from v.f */
    PALEV__WK_DOUBLE,   /* 8 bytes from v.d */
    PALEV__WK_STRING,   /* p, n bytes with the NUL */
    PALEV__WK_SEQ,      /* uint32_t n, then n elements of size bytes at p */
};

/* How palev_event_writef() takes a field's value from its arguments. */
enum palev__arg {
    PALEV__ARG_INT,     /* int: signed integers up to 32 bits */
    PALEV__ARG_UINT,    /* unsigned: unsigned integers up to 32 bits, BOOL */
    PALEV__ARG_U64,     /* int64_t / uint64_t */
    PALEV__ARG_DOUBLE,  /* FLOAT, DOUBLE */
    PALEV__ARG_PTR,     /* strings, GUID, POINTER */
    PALEV__ARG_ARRAY,   /* const void *, size_t: BYTES and arrays */
};

struct palev__dfield {
    uint8_t type;       /* enum palev_type */
    uint8_t arg;        /* enum palev__arg */
    uint8_t flags;      /* PALEV_FIELD_* */
    uint8_t wk;         /* enum palev__wk */
    uint8_t size;       /* bytes of a scalar or of one array element */
    uint8_t is_signed;
    const char *name;
};

/* One value ready to be written, converted once for every session's probe. */
struct palev__prep {
    const void *p;
    size_t n;
    union {
        uint64_t u;
        int64_t i;
        double d;
        float f;
    } v;
};

/* liblttng-ust, reached through dlsym: libpaleventing never links it. */
struct palev__ust_api {
    struct lttng_ust_registered_probe *(*probe_register)(const struct lttng_ust_probe_desc *);
    int (*module_register)(struct lttng_ust_tracepoint *const *start, int count);
    void (*rcu_read_lock)(void);
    void (*rcu_read_unlock)(void);
    void *(*rcu_dereference)(void *p);
};

extern struct palev__ust_api palev__ust;

/* What one lttng_ust_probe_register() call registers: the new events of one provider from one
 * define call, each with its call site. Kept for the life of the process, like its events. */
struct palev__probe {
    struct lttng_ust_probe_desc desc;
    struct lttng_ust_registered_probe *reg;         /* NULL: not registered (yet, or failed) */
    int tried;                                      /* registration attempted */
    const struct lttng_ust_event_desc **events;     /* desc.nr_events */
    struct lttng_ust_tracepoint **tps;              /* the same events' call sites */
};

/* The handle. tp first: palev_event_enabled() reads tp.state at PALEV_EVENT_STATE_OFFSET. */
struct palev_event {
    struct lttng_ust_tracepoint tp;
    struct lttng_ust_tracepoint_class cls;
    struct lttng_ust_event_desc desc;
    const int *loglevel_ptr;
    int loglevel;
    uint8_t level;
    uint64_t keywords;
    uint64_t hash;              /* of provider and name, for the registry */
    size_t provider_len, name_len;
    size_t field_count;
    struct palev__dfield *fields;
};

/* What a definition alone decides, its names and fields: 0 or a negative errno (dyndesc.c). */
int palev__dyn_check(const palev_event_def *d);

/* A provider name as palev_event_undefine_provider() takes it: 0 or -EINVAL (dyndesc.c). */
int palev__dyn_check_provider(const char *provider);

/* The event of a checked definition, its LTTng-UST descriptors built in one allocation for the
 * probe `probe` (not registered yet; hash left to the registry), or NULL out of memory. */
struct palev_event *palev__dyn_build(const palev_event_def *d,
                                     const struct lttng_ust_probe_desc *probe);

/* Same string on the call site and on the class: LTTng-UST connects them only if they match. */
#define PALEV__DYN_SIGNATURE "const struct palev_event *, ev, const struct palev__prep *, v"

/* The probe LTTng-UST calls for each session recording the event (dynwrite.c). */
void palev__dyn_probe(void *tp_data, const struct palev_event *ev, const struct palev__prep *v);

#endif /* PALEV_DYNAMIC_H */
