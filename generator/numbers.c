/* SPDX-License-Identifier: MIT */
/* Attribute values as the checker reads them: white space trimmed, numbers parsed and reported. */
#include "check.h"

#include <string.h>

/* An attribute value without the white space XML Schema lets a number carry around it. */
const char *pg_trim(pg_ctx *cx, const char *s)
{
    size_t n;

    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        n--;
    return s[n] ? pg_strndup(cx, s, n) : s;
}

/* Decimal (leading zeros are not octal: XML Schema numbers) or 0x-hex, within [0, max]; reports
 * and returns 0 on failure. */
int pg_parse_u64(pg_ctx *cx, const char *s, pg_loc loc, const char *what, uint64_t max, uint64_t *out)
{
    const char *digits;
    uint64_t v = 0;
    int base = 10;

    *out = 0;
    if (!s)
        goto bad;
    digits = pg_trim(cx, s);
    if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
        base = 16;
        digits += 2;
    }
    if (!*digits)
        goto bad;
    for (const char *c = digits; *c; c++) {
        unsigned d;

        if (*c >= '0' && *c <= '9')
            d = (unsigned)(*c - '0');
        else if (base == 16 && *c >= 'a' && *c <= 'f')
            d = (unsigned)(*c - 'a' + 10);
        else if (base == 16 && *c >= 'A' && *c <= 'F')
            d = (unsigned)(*c - 'A' + 10);
        else
            goto bad;
        if (v > (UINT64_MAX - d) / (unsigned)base)
            goto bad;
        v = v * (unsigned)base + d;
    }
    if (v > max)
        goto bad;
    *out = v;
    return 1;
bad:
    pg_error(cx, loc, "%s is \"%s\", not a number from 0 to %llu", what, s ? s : "",
             (unsigned long long)max);
    return 0;
}
