/* SPDX-License-Identifier: MIT */
/* JSON numbers and string escapes: the one rule for every JSON text the project writes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json.h"

size_t pcm_u64_text(char buf[20], uint64_t v)
{
    char tmp[20], *p = tmp + sizeof(tmp);
    size_t n;

    do
        *--p = (char)('0' + v % 10);
    while ((v /= 10));
    n = (size_t)(tmp + sizeof(tmp) - p);
    memcpy(buf, p, n);
    return n;
}

/* Below limit[digits], an integral value is written by "%.<digits>g" as its digits, without an
 * exponent (fewer than `digits` of them), and is exact in a double (below 2^53). */
static const double integral_limit[PCM_JSON_DOUBLE_DIGITS + 1] = {
    1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    9007199254740992.0, 9007199254740992.0,
};

size_t pcm_json_number(char buf[PCM_JSON_NUMBER_MAX], double v, int digits)
{
    char text[PCM_JSON_NUMBER_MAX];
    size_t n = 0;

    if (!isfinite(v)) {
        memcpy(buf, "null", 5);
        return 4;
    }
    if (digits < 1 || digits > PCM_JSON_DOUBLE_DIGITS)
        digits = PCM_JSON_DOUBLE_DIGITS;
    if (fabs(v) < integral_limit[digits] && v == (double)(int64_t)v && !(v == 0 && signbit(v))) {
        if (v < 0)
            buf[n++] = '-';
        n += pcm_u64_text(buf + n, (uint64_t)fabs(v));
        buf[n] = '\0';
        return n;
    }
    snprintf(text, sizeof(text), "%.*g", digits, v);
    /* The decimal point comes from LC_NUMERIC (a comma in many locales): whatever %g printed
     * that is neither digit, sign nor exponent is the decimal point and becomes '.'. */
    for (const char *c = text; *c && n + 1 < PCM_JSON_NUMBER_MAX; c++) {
        if (strchr("0123456789+-eE", *c))
            buf[n++] = *c;
        else if (n == 0 || buf[n - 1] != '.')
            buf[n++] = '.';
    }
    buf[n] = '\0';
    return n;
}

size_t pcm_json_escape(uint32_t cp, char out[PCM_JSON_ESCAPE_MAX])
{
    static const char named[0x20] = {
        ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't',
    };
    static const char hex[] = "0123456789abcdef";

    if (cp == '"' || cp == '\\' || (cp < 0x20 && named[cp])) {
        out[0] = '\\';
        out[1] = cp < 0x20 ? named[cp] : (char)cp;
        return 2;
    }
    if (cp >= 0x20)
        return 0;
    memcpy(out, "\\u00", 4);
    out[4] = hex[cp >> 4];
    out[5] = hex[cp & 0xF];
    return 6;
}
