/* SPDX-License-Identifier: MIT */
/* palev-trace's small services: memory, the hash table, numbers and text written out (escaped
 * once per destination: terminal, JSON, HTML), output files replaced only when complete. */
#ifndef PALEV_TRACE_UTIL_H
#define PALEV_TRACE_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "map.h"
#include "pcm_own.h"    /* PCM_OWN_EVENT("Stack"): the library's own events, named from its manifest */

/* ---- memory: one policy ----------------------------------------------------------------------
 * palev-trace is a command, not a library a host links: when memory runs out, pt_x*() say
 * "palev-trace: error: out of memory" and exit with status 1. Every allocation in trace/ goes
 * through them, so no function of trace/ returns -ENOMEM or checks for NULL after allocating. */
void *pt_xmalloc(size_t size);
void *pt_xcalloc(size_t n, size_t size);
void *pt_xrealloc(void *p, size_t size);
/* n elements of size bytes, grown to hold at least need (doubling); returns the array. */
void *pt_xgrow(void *p, size_t *cap, size_t need, size_t size);
/* Appends item to the array list of n elements (list and n are evaluated more than once: plain
 * members or variables). */
#define PT_APPEND(list, n, item)                                                                   \
    do {                                                                                           \
        (list) = pt_xrealloc((list), ((n) + 1) * sizeof(*(list)));                                 \
        (list)[(n)++] = (item);                                                                    \
    } while (0)
char *pt_xstrdup(const char *s);
char *pt_xstrndup(const char *s, size_t n);
/* printf into a new string. */
char *pt_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- the hash table ----------------------------------------------------------------------------
 * common/map.h's table (open addressing, grows by doubling), its arrays on the heap. A map is
 * keyed one way, chosen by the calls used on it:
 *   - integers (pt_map_get/put): ids, pointers, (trace, pid) pairs: the key is the identity;
 *   - byte strings (pt_map_get_bytes/put_bytes) and C strings (pt_map_get_str/put_str): hashed,
 *     and compared in full on lookup: two keys with the same hash stay two entries.
 * Values are non-NULL pointers (NULL means "absent"). The map copies byte and string keys; put
 * returns its copy, valid until pt_map_free(). Putting an existing key replaces its value. A
 * zeroed map is empty; its slots (hash, key, key_len, value) may be walked, value NULL when free. */
typedef pcm_map_slot pt_map_slot;
typedef pcm_map pt_map;

void *pt_map_get(const pt_map *m, uint64_t key);
void pt_map_put(pt_map *m, uint64_t key, void *value);
void *pt_map_get_bytes(const pt_map *m, const void *key, size_t len);
const void *pt_map_put_bytes(pt_map *m, const void *key, size_t len, void *value);
void *pt_map_get_str(const pt_map *m, const char *key);
const char *pt_map_put_str(pt_map *m, const char *key, void *value);
void pt_map_free(pt_map *m);
/* pt_map_free() of a map that owns its values, each one malloc'd block: they are freed too. */
void pt_map_free_values(pt_map *m);
/* What is worked out once per pointer key (an event class): found again through the map, or by
 * one compare when it is the one last asked for. It owns its values (each one malloc'd block). */
typedef struct pt_memo {
    pt_map map;
    const void *last_key;
    void *last;
} pt_memo;
/* The value of key, or NULL: then work it out and pt_memo_put() it. */
void *pt_memo_get(pt_memo *m, const void *key);
/* Keeps value (taken over) for key; returns it. */
void *pt_memo_put(pt_memo *m, const void *key, void *value);
void pt_memo_free(pt_memo *m);
/* The hash of a string (FNV-1a, 64 bits) and of bytes (common/hash.h). */
uint64_t pt_hash_str(const char *s);
uint64_t pt_hash_bytes(const void *p, size_t n);

/* ---- numbers and times as text ---------------------------------------------------------------- */
/* "12.345 s", "1.200 ms", "830 ns" */
const char *pt_fmt_ns(double ns, char *buf, size_t size);
/* "2026-11-25 17:08:47.462606733 UTC" */
const char *pt_fmt_time(int64_t ns, char *buf, size_t size);
/* Decimal numbers without printf (export writes millions of them); a double as JSON by the
 * project's one rule (common/json.h: 17 significant digits, an integer below 2^53 as one, NaN
 * and infinities as null). */
void pt_put_u64(FILE *out, uint64_t v);
void pt_put_i64(FILE *out, int64_t v);
void pt_put_double(FILE *out, double v);

/* ---- text from the trace, escaped for where it goes ---------------------------------------------
 * Every string read from a trace (names, procnames, field values, symbols) is untrusted: it
 * reaches a terminal only through pt_term(), JSON only through pt_json_string(), HTML only
 * through pt_html_text(). */

/* Strings escaped for a terminal, kept until pt_text_free(). */
typedef struct pt_text {
    char **items;
    size_t n, cap;
} pt_text;
/* s as a terminal shows it safely: control characters (C0, DEL, C1) as C escapes ("\n", "\t",
 * "\x1b"), a backslash as "\\", invalid UTF-8 bytes as "\xNN". Returns s itself when nothing
 * needs escaping (the usual case: no copy), else an escaped copy that t keeps. NULL gives "". */
const char *pt_term(pt_text *t, const char *s);
void pt_text_free(pt_text *t);
/* Writes s as a JSON string (quotes included), escaped as common/json.h says, invalid UTF-8
 * replaced by U+FFFD. */
void pt_json_string(FILE *out, const char *s);
/* Writes s escaped for HTML text (invalid UTF-8 replaced by U+FFFD). */
void pt_html_text(FILE *out, const char *s);

/* ---- output files ------------------------------------------------------------------------------
 * A file given with -o is written beside its final name (PATH.tmp-PID) and renamed into place by
 * pt_output_commit() only when complete: a failed run leaves an existing file as it was. */
typedef struct pt_output {
    FILE *f;
    char *path, *tmp;
} pt_output;
/* Returns 0, or -1 after saying why on stderr. */
int pt_output_open(pt_output *o, const char *path);
/* Closes and renames into place; returns 0, or -1 after saying why (the temporary is removed). */
int pt_output_commit(pt_output *o);
/* Closes and removes the temporary file: the file at path is untouched. */
void pt_output_abort(pt_output *o);

/* Flushes and closes stdout: 0, or -1 after saying on stderr that the output could not be
 * written (a full disk, a closed pipe, /dev/full). main() calls it after every command. */
int pt_close_stdout(void);

#endif /* PALEV_TRACE_UTIL_H */
