/* SPDX-License-Identifier: MIT */
/* JSON text, written the same way by libpaleventing (arrays as JSON), palev-gen (what a selftest
 * expects of them) and palev-trace (exports): one number rule, one string escaping. */
#ifndef PCM_JSON_H
#define PCM_JSON_H

#include <stddef.h>
#include <stdint.h>

/* Significant digits that give back the same value when read: 9 for a float, 17 for a double. */
#define PCM_JSON_FLOAT_DIGITS 9
#define PCM_JSON_DOUBLE_DIGITS 17
/* Room for any number pcm_json_number() writes, its NUL included. */
#define PCM_JSON_NUMBER_MAX 32

/* A number as JSON text into buf (NUL-terminated); returns its length. The rule: printf's
 * "%.<digits>g" (digits 1 to 17), with '.' as the decimal point whatever LC_NUMERIC says; an
 * integral value that "%.<digits>g" writes without an exponent is written as the integer,
 * without printf (exports write millions of them), which gives the same text; NaN and the
 * infinities, which JSON lacks, as null. */
size_t pcm_json_number(char buf[PCM_JSON_NUMBER_MAX], double v, int digits);

/* The decimal digits of v into buf (no NUL); returns their count, 1 to 20. */
size_t pcm_u64_text(char buf[20], uint64_t v);

/* Room for the longest escape pcm_json_escape() writes ("\u001f"). */
#define PCM_JSON_ESCAPE_MAX 6

/* 1 when the ASCII byte c stands for itself inside a JSON string (no escape), else 0; 0 for
 * bytes from 0x80 up, which are UTF-8 to check. */
static inline int pcm_json_plain(unsigned char c)
{
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* How code point cp is written inside a JSON string when it needs an escape: '"' and '\' with a
 * backslash, \b \f \n \r \t by name, other control characters below U+0020 as "\u00xx"
 * (lowercase hex). Returns the escape's length, or 0 when cp stands for itself (as UTF-8). */
size_t pcm_json_escape(uint32_t cp, char out[PCM_JSON_ESCAPE_MAX]);

#endif /* PCM_JSON_H */
