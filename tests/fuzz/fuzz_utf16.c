/* SPDX-License-Identifier: MIT */
/* libFuzzer target: palev_utf16_to_utf8() against a second, independent decoder and glibc's iconv,
 * checking the snprintf-like contract and that the output is well-formed UTF-8. */
#include "paleventing.h"

#include <iconv.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)
#define CANARY 0x5A

/* The reference: code points per the Unicode standard (D91), replacement for lone surrogates. */
static size_t ref_convert(const uint16_t *u, size_t n, int nul_terminated, unsigned char *out,
                          size_t *cut, size_t *ncut, int *clean)
{
    size_t len = 0;

    *ncut = 0;
    *clean = 1;
    for (size_t i = 0; nul_terminated || i < n; i++) {
        uint32_t cp = u[i];

        if (cp == 0)
            break;
        if (cp >= 0xD800 && cp <= 0xDBFF && (nul_terminated || i + 1 < n) && u[i + 1] >= 0xDC00 &&
            u[i + 1] <= 0xDFFF) {
            cp = ((cp & 0x3FF) << 10 | (u[i + 1] & 0x3FF)) + 0x10000;
            i++;
        } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            cp = 0xFFFD;
            *clean = 0;
        }
        if (cp <= 0x7F) {
            out[len++] = (unsigned char)cp;
        } else if (cp <= 0x7FF) {
            out[len++] = (unsigned char)(0xC0 + (cp >> 6));
            out[len++] = (unsigned char)(0x80 + cp % 64);
        } else if (cp <= 0xFFFF) {
            out[len++] = (unsigned char)(0xE0 + (cp >> 12));
            out[len++] = (unsigned char)(0x80 + (cp >> 6) % 64);
            out[len++] = (unsigned char)(0x80 + cp % 64);
        } else {
            out[len++] = (unsigned char)(0xF0 + (cp >> 18));
            out[len++] = (unsigned char)(0x80 + (cp >> 12) % 64);
            out[len++] = (unsigned char)(0x80 + (cp >> 6) % 64);
            out[len++] = (unsigned char)(0x80 + cp % 64);
        }
        cut[(*ncut)++] = len;   /* a code point boundary */
    }
    return len;
}

/* Well-formed UTF-8 per Unicode table 3-7, written without tables. */
static int valid_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t extra;
        unsigned lo = 0x80, hi = 0xBF;

        if (c < 0x80) { i++; continue; }
        if (c >= 0xC2 && c <= 0xDF) extra = 1;
        else if (c >= 0xE0 && c <= 0xEF) extra = 2;
        else if (c >= 0xF0 && c <= 0xF4) extra = 3;
        else return 0;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
        if (i + extra >= n)
            return 0;
        if (s[i + 1] < lo || s[i + 1] > hi)
            return 0;
        for (size_t k = 2; k <= extra; k++)
            if (s[i + k] < 0x80 || s[i + k] > 0xBF)
                return 0;
        i += extra + 1;
    }
    return 1;
}

/* glibc's converter must agree on input without lone surrogates. */
static void check_iconv(const uint16_t *u, size_t units, const unsigned char *expect, size_t len)
{
    static iconv_t cd = (iconv_t)-1;
    char *in = (char *)u, *out, *buf = malloc(len + 16);
    size_t inleft = units * 2, outleft = len + 16;

    if (cd == (iconv_t)-1)
        cd = iconv_open("UTF-8", "UTF-16LE");
    CHECK(cd != (iconv_t)-1 && buf);
    iconv(cd, NULL, NULL, NULL, NULL);
    out = buf;
    CHECK(iconv(cd, &in, &inleft, &out, &outleft) != (size_t)-1);
    CHECK(inleft == 0 && (size_t)(out - buf) == len && memcmp(buf, expect, len) == 0);
    free(buf);
}

/* Input: flags (bit 0: NUL-terminated, bit 1: NULL source, bit 2: dstsize taken as is), two bytes
 * of dstsize, then UTF-16LE code units. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n, dstsize, need, len, ncut, *cut, w = 0, units;
    int nul_terminated, clean;
    uint16_t *src;
    unsigned char *ref;
    char *dst;

    if (size < 3)
        return 0;
    nul_terminated = data[0] & 1;
    n = (size - 3) / 2;
    dstsize = (size_t)data[1] | (size_t)data[2] << 8;
    if (!(data[0] & 4))
        dstsize %= 3 * n + 2;
    src = malloc((n + 1) * sizeof(*src));   /* exactly the units, plus the NUL when terminated */
    memcpy(src, data + 3, n * 2);
    src[n] = 0;
    ref = malloc(3 * n + 1);
    cut = malloc((n + 1) * sizeof(*cut));
    dst = malloc(dstsize + 1);
    memset(dst, CANARY, dstsize + 1);

    if (data[0] & 2) {
        need = palev_utf16_to_utf8(dst, dstsize, NULL, nul_terminated ? PALEV_NUL_TERMINATED : n);
        CHECK(need == 0 && (dstsize == 0 || dst[0] == '\0'));
        goto end;
    }
    len = ref_convert(src, n, nul_terminated, ref, cut, &ncut, &clean);
    need = palev_utf16_to_utf8(dst, dstsize, (const char16_t *)src,
                               nul_terminated ? PALEV_NUL_TERMINATED : n);
    CHECK(need == len);
    CHECK(len <= 3 * n);                    /* the design's 3 bytes per unit bound */
    if (dstsize == 0) {
        CHECK((unsigned char)dst[0] == CANARY);
        goto end;
    }
    /* the longest whole-code-point prefix that leaves room for the NUL */
    for (size_t k = 0; k < ncut && cut[k] < dstsize; k++)
        w = cut[k];
    CHECK(strlen(dst) == w && memcmp(dst, ref, w) == 0);
    CHECK((unsigned char)dst[dstsize] == CANARY);
    CHECK(valid_utf8((const unsigned char *)dst, w));
    CHECK(valid_utf8(ref, len));
    if (clean) {
        for (units = 0; units < n && src[units]; units++)
            ;
        check_iconv(src, units, ref, len);
    }
end:
    free(src);
    free(ref);
    free(cut);
    free(dst);
    return 0;
}
