/* SPDX-License-Identifier: MIT */
/* The ASCII fast path of UTF-16 -> UTF-8 (utf.c), inline for the two callers that must not pay a
 * call on it: pcm_utf16_to_utf8() and libpaleventing's palev_scratch_utf16(). Type and method
 * names are ASCII to their end: they are copied 16 units at a time, with no decoding. */
#ifndef PCM_UTF16_ASCII_H
#define PCM_UTF16_ASCII_H

#include <stddef.h>
#include <stdint.h>
#include <uchar.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "utf.h"

/* Store the `n` (8 or 16) units at s as n bytes at out (only the leading ASCII ones mean
 * anything) and return a mask with bit k set when unit k is ASCII (1..0x7F): all n bits when all
 * are. s may point into the last bytes of a NUL-terminated string: the callers only load a block
 * that stays in the page of its first unit, which is mapped, and AddressSanitizer is told that
 * reading past the NUL is meant (as glibc's strlen does). */
#if defined(__SSE2__)
__attribute__((no_sanitize_address)) static inline uint32_t pcm__ascii_mask(const char16_t *s,
                                                                            char *out, size_t n)
{
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i b = n == 16 ? _mm_loadu_si128((const __m128i *)(const void *)(s + 8)) : a;
    /* Unsigned saturation: a unit above 0xFF packs to 0xFF, one from 0x8000 up (negative as a
     * signed lane) to 0; so a byte is in 1..0x7F, positive as a signed byte, exactly when its
     * unit is ASCII and not NUL. One compare and one mask for all n units. */
    __m128i p = _mm_packus_epi16(a, b);

    if (n == 16)
        _mm_storeu_si128((__m128i *)(void *)out, p);
    else
        _mm_storel_epi64((__m128i *)(void *)out, p);
    return (uint32_t)_mm_movemask_epi8(_mm_cmpgt_epi8(p, _mm_setzero_si128())) &
           ((1u << n) - 1);
}
#else
static inline uint32_t pcm__ascii_mask(const char16_t *s, char *out, size_t n)
{
    uint32_t ok = 0;

    for (size_t k = 0; k < n && s[k] - 1u < 0x7Fu; k++) {
        out[k] = (char)s[k];
        ok |= 1u << k;
    }
    return ok;
}
#endif

/* How many leading units of a mask from pcm__ascii_mask() are ASCII. */
static inline size_t pcm__ascii_count(uint32_t ok, size_t n)
{
    return (size_t)__builtin_ctz(~ok | 1u << n);
}

/* May a block of n units at src + i be loaded? Only from a 16-byte boundary, and within the
 * length of a counted string, and inside one page: a block that holds the NUL and goes past it
 * (a NUL-terminated string, or a counted one that ends earlier at its NUL, past which nothing
 * need be mapped) never touches an unmapped page, and it is naturally aligned, which memory
 * checkers accept past the end of a block (valgrind's --partial-loads-ok, on by default). */
static inline int pcm__block_fits(const char16_t *src, size_t len, size_t i, size_t n)
{
    uintptr_t at = (uintptr_t)(src + i);

    return (at & 15) == 0 && (at & 4095) <= 4096 - 2 * n &&
           (len == PCM_NUL_TERMINATED || len - i >= n);
}

/* Copy ASCII units to dst (room bytes, the NUL excluded) by blocks of 16 then 8, up to the
 * first unit that is not ASCII. Returns the units (= bytes) copied; the caller goes on unit by
 * unit from there (the end of a counted string, of a page, or of the room). */
static inline __attribute__((always_inline)) size_t pcm__ascii_blocks(char *dst, size_t room,
                                                                     const char16_t *src,
                                                                     size_t len, size_t i)
{
    size_t w = 0;

    /* The next block's address does not wait for this block's count: a predicted branch on
     * "all 16 ASCII" keeps the loads going ahead of the compare and mask chain. */
    while (room - w >= 16 && pcm__block_fits(src, len, i + w, 16)) {
        uint32_t ok = pcm__ascii_mask(src + i + w, dst + w, 16);

        if (__builtin_expect(ok != 0xFFFF, 0))
            return w + pcm__ascii_count(ok, 16);
        w += 16;
    }
    if (room - w >= 8 && pcm__block_fits(src, len, i + w, 8))
        w += pcm__ascii_count(pcm__ascii_mask(src + i + w, dst + w, 8), 8);
    return w;
}

/* The leading run of ASCII units, copied by blocks with no decoding or encoding: unit by unit up
 * to the first 16-byte boundary, where blocks may start, then blocks. Returns the units copied
 * (no NUL written); the caller is done when the string ends there (pcm_utf16_ends_at()), else
 * goes on with pcm_utf16_convert_from() from that unit. */
static inline __attribute__((always_inline)) size_t pcm_utf16_ascii_head(char *dst,
                                                                        size_t dstsize,
                                                                        const char16_t *src,
                                                                        size_t srclen)
{
    size_t i;

    if (dstsize == 0)
        return 0;
    for (i = 0; ((uintptr_t)(src + i) & 15) && i < srclen && i + 1 < dstsize &&
                src[i] - 1u < 0x7Fu; i++)
        dst[i] = (char)src[i];
    return i + pcm__ascii_blocks(dst + i, dstsize - 1 - i, src, srclen, i);
}

/* Has the string ended at unit i (its length, or a NUL)? */
static inline int pcm_utf16_ends_at(const char16_t *src, size_t srclen, size_t i)
{
    return i == srclen || src[i] == 0;
}

#endif /* PCM_UTF16_ASCII_H */
