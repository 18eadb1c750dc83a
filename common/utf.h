/* SPDX-License-Identifier: MIT */
/* Unicode text, once for generator/, pal/, trace/ and tools/: UTF-8 decoded, checked and encoded,
 * UTF-16 decoded and converted to UTF-8, every unpaired surrogate and invalid byte U+FFFD. */
#ifndef PCM_UTF_H
#define PCM_UTF_H

#include <stddef.h>
#include <stdint.h>
#include <uchar.h>

#define PCM_REPLACEMENT_CHAR 0xFFFDu
/* A length meaning "up to the NUL" (equal to paleventing.h's PALEV_NUL_TERMINATED). */
#define PCM_NUL_TERMINATED ((size_t)-1)

/* The code point at s[*i] (advancing *i), or -1 at the end: *i == len or a NUL unit. An unpaired
 * surrogate gives U+FFFD; the unit after an unpaired high surrogate is decoded on its own next
 * time. len may be PCM_NUL_TERMINATED. */
int32_t pcm_utf16_next(const char16_t *s, size_t len, size_t *i);

/* The same for bytes that should be UTF-8 (well-formed as Unicode table 3-7 says: no overlong,
 * surrogate or code point above U+10FFFF): each byte of an invalid sequence gives U+FFFD, one
 * byte consumed; a real U+FFFD consumes its 3. No byte past a NUL or past len is read. */
int32_t pcm_utf8_next(const unsigned char *s, size_t len, size_t *i);

/* The length of the well-formed UTF-8 sequence at s (1 to 4), or 0 when the bytes there are not
 * one (a NUL gives 1). s is NUL-terminated: nothing past a NUL is read. */
size_t pcm_utf8_len(const unsigned char *s);

/* Encodes a code point (<= U+10FFFF, not a surrogate) as UTF-8; returns its length, 1 to 4. */
size_t pcm_utf8_encode(uint32_t cp, char out[4]);

/* UTF-16 to UTF-8 with snprintf's contract: converts src (srclen units, or up to its NUL with
 * PCM_NUL_TERMINATED; a NUL unit ends it either way; NULL is empty) into dst, NUL-terminated
 * and cut only at a code point boundary when dstsize is too small, and returns the bytes the
 * whole conversion needs without the NUL. dst may be NULL when dstsize is 0. Unpaired
 * surrogates become U+FFFD. ASCII runs are copied 16 units at a time (utf16_ascii.h). */
size_t pcm_utf16_to_utf8(char *dst, size_t dstsize, const char16_t *src, size_t srclen);

/* The general conversion from unit i on, the first i units having been ASCII and copied into
 * dst already (what pcm_utf16_ascii_head() did): for callers that inline the ASCII head
 * themselves (libpaleventing's scratch arena). Same contract as pcm_utf16_to_utf8(). */
size_t pcm_utf16_convert_from(char *dst, size_t dstsize, const char16_t *src, size_t srclen,
                              size_t i);

#endif /* PCM_UTF_H */
