/* SPDX-License-Identifier: MIT */
/* The manifest model shared by palev-gen's phases: parse -> check -> lower -> emit. */
#ifndef PALEVGEN_MODEL_H
#define PALEVGEN_MODEL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "map.h"

/* ---- the context and its utilities (util.c) ------------------------------------------------- */

/* A source location: every model node carries one. */
typedef struct pg_loc {
    const char *file;
    unsigned line;
} pg_loc;

/* Where a context's diagnostics go: one line, "file:line: error: message", without newline. */
typedef void (*pg_diag_sink)(void *data, const char *line);

/* One use of the generator: the arena that holds every model node, string and generated file,
 * and the diagnostics. Every function of the library that allocates or reports takes one; two
 * contexts share nothing, so one process may read several manifests side by side (a context is
 * used by one thread at a time). Initialise with pg_ctx_init(); set `quiet` or `sink` after. */
typedef struct pg_ctx {
    struct pg_arena_block *arena;
    unsigned errors;        /* errors reported so far: read with pg_error_count() */
    unsigned warnings;
    int quiet;              /* diagnostics are counted, not printed */
    pg_diag_sink sink;      /* where they are printed: NULL for stderr */
    void *sink_data;
} pg_ctx;
void pg_ctx_init(pg_ctx *cx);
/* Frees everything allocated in cx (the models and files too); cx can be initialised again. */
void pg_ctx_fini(pg_ctx *cx);

/* Allocation in the context's arena: zeroed memory, freed with the context. Out of memory ends
 * the process (exit status 3, after "palevgen: out of memory" on stderr): the generator and the
 * tools that read manifests have nothing useful to do without memory. */
void *pg_zalloc(pg_ctx *cx, size_t size);
char *pg_strdup(pg_ctx *cx, const char *s);
char *pg_strndup(pg_ctx *cx, const char *s, size_t n);
char *pg_printf(pg_ctx *cx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A growable array of pointers, kept in the arena. A zeroed one is empty. */
typedef struct pg_vec {
    void **items;
    size_t len, cap;
} pg_vec;
void pg_vec_push(pg_ctx *cx, pg_vec *v, void *item);
#define PG_VEC_EACH(type, var, vec) \
    for (size_t var##_i = 0; var##_i < (vec).len; var##_i++) \
        for (type *var = (type *)(vec).items[var##_i]; var; var = NULL)

/* A map from strings to non-NULL pointers, kept in the arena: common/map.h's table. Keys are not
 * copied. A zeroed one is empty. */
typedef pcm_map pg_index;
void *pg_index_get(const pg_index *ix, const char *key);
/* Adds key -> value and returns NULL, or returns the value key already has (and adds nothing). */
void *pg_index_put(pg_ctx *cx, pg_index *ix, const char *key, void *value);

/* A growable string, kept in the arena. A zeroed one is empty (data NULL until written). */
typedef struct pg_buf {
    char *data;
    size_t len, cap;
} pg_buf;
void pg_buf_puts(pg_ctx *cx, pg_buf *b, const char *s);
void pg_buf_putn(pg_ctx *cx, pg_buf *b, const char *s, size_t n);
void pg_buf_printf(pg_ctx *cx, pg_buf *b, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void pg_buf_vprintf(pg_ctx *cx, pg_buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
/* Append code point cp (<= 0x10FFFF, not a surrogate) as UTF-8. */
void pg_buf_put_utf8(pg_ctx *cx, pg_buf *b, uint32_t cp);
/* The layout hashes of generated code: FNV-1a, 32 bits (common/hash.h). */
static inline uint32_t pg_fnv1a(const void *data, size_t len)
{
    return pcm_fnv1a32(data, len);
}

/* Diagnostics: "file:line: error: message" (no line: "file: error: message"), or "warning:".
 * Both are counted; errors are never fatal at first sight. pg_error() and pg_warning() say it. */
typedef enum pg_severity { PG_ERROR, PG_WARNING } pg_severity;
void pg_diag(pg_ctx *cx, pg_severity sev, pg_loc loc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
#define pg_error(cx, loc, ...) pg_diag(cx, PG_ERROR, loc, __VA_ARGS__)
#define pg_warning(cx, loc, ...) pg_diag(cx, PG_WARNING, loc, __VA_ARGS__)
/* The errors reported in cx since pg_ctx_init(). */
unsigned pg_error_count(const pg_ctx *cx);

/* ---- winmeta tables (winmeta.c) ----------------------------------------------------------- */

/* How a value of an inType is passed and recorded. */
enum pg_kind {
    PG_K_INT,       /* an integer of ctype, recorded as an LTTng integer */
    PG_K_FLOAT,     /* float or double */
    PG_K_UTF16,     /* const char16_t *, recorded as a UTF-8 string */
    PG_K_ANSI,      /* const char *, recorded as a string */
    PG_K_BINARY,    /* bytes, recorded as hex uint8 array or sequence */
    PG_K_GUID,      /* palev_guid, recorded as a string */
    PG_K_SYSTEMTIME,/* palev_systemtime, recorded as a string */
    PG_K_SID        /* binary SID, recorded as a string */
};

typedef struct pg_intype {
    const char *name;       /* local name, e.g. "UInt32" */
    int tdh;                /* TDH_INTYPE number */
    enum pg_kind kind;
    const char *ctype;      /* C type of a scalar value (integers, floats) */
    unsigned size;          /* bytes of an inline value; 0 for pointer-passed values */
    int is_signed;
    int hex;                /* recorded in hex by default (Pointer, HexInt*) */
    int counted;            /* Counted* forms: the length travels as an extra argument */
    int is_bool;            /* win:Boolean */
    int is_pointer;         /* win:Pointer: passed as const void * */
} pg_intype;

const pg_intype *pg_intype_lookup(const char *qname);
const char *pg_intype_spelling(const char *qname);
/* 1 when the outType asks for hex display, 0 when it is known and decimal, -1 when unknown. */
int pg_outtype_hex(const char *qname);
/* ETW level (0 LogAlways .. 5 Verbose, more: custom) -> LTTng log level, and that level's name. */
int pg_lttng_loglevel(uint64_t etw_level);
const char *pg_loglevel_name(int lttng_level);

/* ---- the model ------------------------------------------------------------------------------ */

typedef struct pg_map_entry {
    pg_loc loc;
    char *value_str;
    uint64_t value;
    char *message;          /* raw attribute */
    char *label;            /* resolved message text, else symbol, else the value */
} pg_map_entry;

/* A valueMap as the fields of one integer type see it: an LTTng enum of that container. */
typedef struct pg_enum_value {
    const pg_map_entry *entry;
    uint64_t value;         /* the entry's value as the field holds it: sign-extended if signed */
} pg_enum_value;

typedef struct pg_enum {
    unsigned bits;
    int is_signed;
    char *ident;            /* enum name in the tracepoint header */
    pg_vec values;          /* pg_enum_value: the entries the type can hold; never empty */
    const pg_enum_value *sample;    /* the value the selftest fires (pg_lower) */
} pg_enum;

typedef struct pg_map {
    pg_loc loc;
    char *name;
    int is_bitmap;
    pg_vec entries;         /* pg_map_entry */
    char *ident;            /* stem of its enums' names */
    pg_vec enums;           /* pg_enum, one per integer type of the scalar fields using it */
} pg_map;

/* A count= or length= attribute: a constant or the name of a sibling field. */
typedef struct pg_ref {
    int present;
    char *text;             /* as written */
    int is_const;
    uint64_t value;
    char *name;
    pg_loc loc;
    struct pg_field *field; /* resolved sibling */
} pg_ref;

typedef struct pg_field {
    pg_loc loc;
    char *name;             /* as in the manifest */
    char *ident;            /* trace field name / C member stem, a valid identifier */
    char *cname;            /* C name: a struct member's is ident; a parameter's (a field of the
                               template itself) is pg_make_param's, safe from the host's names */
    char *len_cname;        /* a counted type: the C name of the length beside it, <cname>_Length
                               for a member, <name>_Length_ for a parameter */
    char *tname;            /* field name in the trace: ident, or <struct>_<member> */
    int is_struct;
    char *intype_name;
    char *outtype_name;
    char *map_name;
    pg_loc type_loc, outtype_loc, map_loc;
    const pg_intype *type;  /* NULL for a struct */
    int hex;                /* display in hex */
    pg_map *map;
    pg_enum *en;            /* the valueMap as an LTTng enum, or NULL: a plain integer */
    pg_ref count;
    pg_ref length;
    pg_vec members;         /* pg_field, for a struct */
    struct pg_field *parent;/* enclosing struct, or NULL */
    int used_as_count;      /* some sibling names it in count= */
    int used_as_length;     /* some sibling names it in length= */
    char *struct_type;      /* a struct: its C type name in <P>-events.h (pg_lower) */
} pg_field;

typedef struct pg_template {
    pg_loc loc;
    char *tid;
    char *ident;
    pg_vec fields;          /* pg_field */
    int used;
    unsigned index;
    /* set by pg_lower */
    pg_vec leaves;          /* pg_leaf (lower.h): the trace fields in order */
    int needs_scratch;      /* recording converts or gathers into the scratch arena */
    char *class_name;       /* the LTTng event class: palev_tmpl_<T> */
    char *prepare_fn;       /* palev_prepare_<T> */
    char *args_name;        /* the tracepoint argument struct: palev_args_<P>_<T> */
} pg_template;

typedef struct pg_named {   /* level, task, opcode, keyword, channel */
    pg_loc loc;
    char *name;
    char *symbol;
    char *message;
    char *value_str;        /* as written */
    pg_loc value_loc;
    uint64_t value;         /* level/task/opcode value, keyword mask, channel number */
    int value_ok;           /* value_str parsed */
    int builtin;
    struct pg_named *task;  /* for an opcode defined inside a task */
    pg_vec opcodes;         /* for a task: the opcodes defined inside it */
    char *chid;             /* channels */
    char *type;             /* channels: Admin, Operational, Analytic, Debug */
    int imported;           /* channels: <importChannel> */
} pg_named;

typedef struct pg_event {
    pg_loc loc;
    char *value_str, *version_str;
    pg_loc value_loc, version_loc, symbol_loc;
    pg_loc level_loc, task_loc, opcode_loc, keywords_loc, template_loc, channel_loc;
    uint64_t value;
    uint64_t version;
    int id_ok;              /* value and version parsed */
    char *symbol;
    char *level_name, *task_name, *opcode_name, *keywords_attr, *template_name, *channel_name;
    char *message;
    pg_named *level, *task, *opcode, *channel;
    uint64_t keywords;
    pg_template *tmpl;
    char *lttng_name;       /* event name in LTTng */
    char *cname;            /* suffix of FireEvent<cname>, unique in the manifest */
    int derived_name;
    unsigned index;         /* position in its provider */
    struct pg_provider *provider;
    int loglevel;           /* LTTng log level */
    /* set by pg_lower: every C name generated for the event */
    char *fire_name;        /* FireEvent<cname> */
    char *enabled_name;     /* EventEnabled<cname> */
    char *descriptor_name;  /* EventDescriptor<cname> */
    char *emit_fn;          /* palev_emit_<P>_<Event>: what FireEvent calls out of line */
    char *tp_name;          /* lttng_ust_tracepoint_<P>___<Event>, the call site's tracepoint */
    char *tp_state;         /* its state: <tp_name>.state */
    char *semaphore;        /* <P>_<Event>_semaphore (pg_options.usdt), else NULL */
    const char *class_name; /* its template's class, or palev_empty */
    const pg_template *args;/* its template when that records something, else NULL */
} pg_event;

typedef struct pg_provider {
    pg_loc loc;
    char *name;             /* ETW name */
    char *guid;             /* as written */
    int guid_ok;            /* parsed into guid_d1..d4 */
    pg_loc name_loc, guid_loc;
    uint32_t guid_d1;
    uint16_t guid_d2, guid_d3;
    uint8_t guid_d4[8];
    char *symbol;
    char *lttng_name;
    pg_vec levels, tasks, opcodes, keywords, channels, maps, templates, events;
    pg_index template_index;    /* tid -> template */
    /* set by pg_lower */
    int uses_bool_enum;     /* a scalar win:Boolean: the palev_bool enum */
    int uses_empty_class;   /* an event records no field */
    int usdt;               /* its events are also USDT probes (pg_options.usdt) */
} pg_provider;

typedef struct pg_string {
    char *id;
    char *value;
} pg_string;

typedef struct pg_manifest {
    const char *path;       /* as given on the command line */
    const char *basename;   /* for generated comments */
    pg_vec providers;
    pg_vec strings;         /* pg_string of the preferred culture */
    pg_index string_index;  /* id -> pg_string, built by pg_check (the first of an id wins) */
} pg_manifest;

/* Parse a manifest from memory (any of UTF-8, UTF-8 with BOM, UTF-16LE/BE with BOM).
 * Errors are reported through pg_error; returns the model (possibly partial). */
pg_manifest *pg_parse_buffer(pg_ctx *cx, const char *path, const char *data, size_t len);
pg_manifest *pg_parse_file(pg_ctx *cx, const char *path);

/* What the caller asks of the checker (--provider-name, --symbol-prefix) and of the lowering
 * (--usdt). A zeroed one asks nothing. */
typedef struct pg_options {
    pg_vec rename_from;     /* char *, ETW names */
    pg_vec rename_to;       /* char *, LTTng names */
    int renames_may_miss;   /* a rename naming no provider of the manifest is no error: the
                               renames serve several manifests (palev-trace) */
    const char *symbol_prefix;  /* FireEvent<prefix><Sym>: two manifests in one unit; or NULL */
    int usdt;               /* generate --usdt: every event is also a USDT probe (pg_lower) */
} pg_options;

/* --provider-name ETWNAME=LTTNGNAME (spec) added to opt (options.c). Returns 0 (also for a rename
 * given twice), or -1 with why in err, to follow "--provider-name " or a file's "FILE:LINE: ":
 * "wants ETWNAME=LTTNGNAME, not ..." or "...: provider "X" is already renamed to "Y"". */
int pg_options_rename(pg_ctx *cx, pg_options *opt, const char *spec, pg_buf *err);

/* ---- winmeta built-ins (winmeta.c) ------------------------------------------------------------ */

/* The winmeta levels, tasks, opcodes and keywords a manifest uses without defining them
 * ("win:Start" or another prefix bound to winmeta's namespace): a new node at loc, or NULL. */
enum pg_builtin_kind { PG_BUILTIN_LEVEL, PG_BUILTIN_TASK, PG_BUILTIN_OPCODE, PG_BUILTIN_KEYWORD };
pg_named *pg_builtin_find(pg_ctx *cx, enum pg_builtin_kind kind, const char *name, pg_loc loc);
/* A well-known channel an <importChannel> may name: 1 and its number, or 0. */
int pg_builtin_channel(const char *name, uint64_t *value);

/* ---- names (names.c) -------------------------------------------------------------------------- */

/* s is a C identifier: [A-Za-z_][A-Za-z0-9_]*. */
int pg_is_identifier(const char *s);
/* A manifest name as a C identifier, never a keyword, libc macro or reserved name. */
char *pg_make_ident(pg_ctx *cx, const char *s);
/* A manifest field name as a parameter of the generated functions: its identifier with '_' after
 * ("TraceNo" -> "TraceNo_"), a name no host macro or typedef takes (docs/manifest.md, Names). */
char *pg_make_param(pg_ctx *cx, const char *s);
/* Where an event's name comes from: its symbol= attribute, else the <event>. */
pg_loc pg_event_name_loc(const pg_event *e);
/* Gives every event its FireEvent<cname>, unique in the manifest (a derived name that collides
 * takes its provider's name; explicit symbols that collide are errors), then --symbol-prefix in
 * front. */
void pg_assign_cnames(pg_ctx *cx, pg_manifest *m, const char *prefix);
/* The C names pg_lower gave at file scope (emit functions, struct types) unique: errors name
 * both places. */
void pg_check_c_names(pg_ctx *cx, const pg_manifest *m);

/* Resolve references, derive names, validate (check.c). Returns the number of errors it found
 * (reported in cx); m must have been parsed in cx. */
unsigned pg_check(pg_ctx *cx, pg_manifest *m, const pg_options *opt);

/* After pg_check: decide once what the emitters read (trace fields, enum samples, every
 * generated C name, USDT semaphores with opt->usdt) and check the C names unique (lower.c).
 * Returns the number of errors it found; the emitters then never change the model. */
unsigned pg_lower(pg_ctx *cx, pg_manifest *m, const pg_options *opt);

/* ---- emitters --------------------------------------------------------------------------------- */

/* One generated file. */
typedef struct pg_file {
    char *name;             /* file name within the output directory */
    pg_buf text;
} pg_file;

/* The four files of a provider lowered by pg_lower (emit.c), pushed to files (pg_file *):
 * <P>-tp.h, <P>-probe.c, <P>-events.h, <P>-events.c. */
void pg_emit_provider(pg_ctx *cx, const pg_manifest *m, const pg_provider *p, pg_vec *files);
/* <P>-selftest.c and <P>-selftest.expect (selftest.c). */
void pg_emit_selftest(pg_ctx *cx, const pg_manifest *m, const pg_provider *p, pg_vec *files);

/* What enable-list asks; NULL means every keyword (a hex mask or names as people say them, "GC,JIT"),
 * every level (0..255), every provider (ETW or LTTng name). */
typedef struct pg_enable_query {
    const char *keywords;
    const char *level;
    const char *provider;
} pg_enable_query;
/* The events an ETW session with those keywords and level would receive, in manifest order, pushed
 * to events (const pg_event *). Returns 0, or 2 for a bad query value, the reason in err. */
int pg_enable_list(pg_ctx *cx, const pg_manifest *m, const pg_enable_query *q, pg_vec *events, pg_buf *err);

/* The USDT probes of every provider, one line each: "P:Event arg0:name:type ..." (usdt-args). */
void pg_usdt_list(pg_ctx *cx, const pg_manifest *m, pg_buf *out);

/* Write every file into dir atomically: all or nothing. Returns 0 or -1 (reported). */
int pg_write_files(pg_ctx *cx, const char *dir, pg_vec *files);


#endif /* PALEVGEN_MODEL_H */
