/* SPDX-License-Identifier: MIT */
/* libpaleventing internals shared between its source files (palev__*); never installed. */
#ifndef PALEV_INTERNAL_H
#define PALEV_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <uchar.h>

#include "paleventing.h"

/* ---- env.c: configuration, read once from the environment ------------------------------- */

struct palev__config {
    int lttng;                  /* load probe providers (PALEV_LTTNG is not "0") */
    int debug;                  /* print diagnostics on stderr (PALEV_DEBUG set and not "0") */
    size_t path_count;          /* directories of PALEV_PROVIDER_PATH, empty entries dropped */
    char **path;                /* one allocation: the pointer array followed by the strings */
};

typedef const char *palev__getenv_fn(const char *name);

/* Fill `cfg` (overwritten, never freed first) from `getenv_fn`. Always leaves a usable config,
 * with defaults for what could not be parsed. Returns 0 or -ENOMEM. */
int palev__config_parse(struct palev__config *cfg, palev__getenv_fn *getenv_fn);
void palev__config_free(struct palev__config *cfg);

/* The process configuration, read from the real environment on first use. Never NULL. */
const struct palev__config *palev__config(void);
/* 0, or the error palev__config_parse() returned when the process configuration was read. */
int palev__config_status(void);

/* ---- log.c: diagnostics, only when PALEV_DEBUG asks -------------------------------------- */

void palev__debug_at(const char *func, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define palev__debug(...) palev__debug_at(__func__, __FILE__, __LINE__, __VA_ARGS__)

/* ---- utf16.c: code point iteration shared by the converters ------------------------------ */

#define PALEV__REPLACEMENT_CHAR 0xFFFDu

/* The code point at s[*i] (advancing *i), U+FFFD for an unpaired surrogate, or -1 at the end:
 * *i == len or a NUL unit. len may be PALEV_NUL_TERMINATED. */
int32_t palev__utf16_next(const char16_t *s, size_t len, size_t *i);
/* Same for bytes that should be UTF-8: each byte of an invalid sequence gives U+FFFD. */
int32_t palev__utf8_next(const unsigned char *s, size_t len, size_t *i);
/* Encode a code point (<= U+10FFFF, not a surrogate) as UTF-8; returns its length, 1 to 4. */
size_t palev__utf8_encode(uint32_t cp, char out[4]);

/* ---- scratch.c ---------------------------------------------------------------------------- */

/* The allocator behind every allocation of the library (malloc); tests replace it to inject
 * failures. What it returns is released with free(). */
extern void *(*palev__malloc)(size_t size);

#endif /* PALEV_INTERNAL_H */
