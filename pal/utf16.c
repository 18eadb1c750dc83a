/* SPDX-License-Identifier: MIT */
/* UTF-16 and UTF-8 decoding, and the UTF-16 to UTF-8 conversion every string field goes through. */
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "internal.h"

int32_t palev__utf16_next(const char16_t *s, size_t len, size_t *i)
{
    uint32_t hi, lo;

    if (*i >= len || s[*i] == 0)
        return -1;
    hi = s[(*i)++];
    if (hi < 0xD800 || hi > 0xDFFF)
        return (int32_t)hi;
    /* A low surrogate first, or a high one at the end or before a non-low unit, is unpaired;
     * the unit after an unpaired high surrogate is decoded on its own next time. */
    if (hi >= 0xDC00 || *i >= len)
        return PALEV__REPLACEMENT_CHAR;
    lo = s[*i];
    if (lo < 0xDC00 || lo > 0xDFFF)
        return PALEV__REPLACEMENT_CHAR;
    (*i)++;
    return (int32_t)(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00));
}

/* Well-formed UTF-8 (Unicode table 3-7): the lead byte fixes the number of continuation bytes
 * and the range of the first one, which is how overlongs and surrogates are excluded. */
static const struct utf8_lead {
    uint8_t first, last;    /* lead byte range */
    uint8_t extra;          /* continuation bytes */
    uint8_t lo, hi;         /* range of the first continuation byte */
    uint8_t mask;           /* payload bits of the lead byte */
} utf8_leads[] = {
    { 0xC2, 0xDF, 1, 0x80, 0xBF, 0x1F },
    { 0xE0, 0xE0, 2, 0xA0, 0xBF, 0x0F },
    { 0xE1, 0xEC, 2, 0x80, 0xBF, 0x0F },
    { 0xED, 0xED, 2, 0x80, 0x9F, 0x0F },
    { 0xEE, 0xEF, 2, 0x80, 0xBF, 0x0F },
    { 0xF0, 0xF0, 3, 0x90, 0xBF, 0x07 },
    { 0xF1, 0xF3, 3, 0x80, 0xBF, 0x07 },
    { 0xF4, 0xF4, 3, 0x80, 0x8F, 0x07 },
};

static const struct utf8_lead *utf8_lead_of(uint8_t b)
{
    for (size_t k = 0; k < sizeof(utf8_leads) / sizeof(utf8_leads[0]); k++)
        if (b >= utf8_leads[k].first && b <= utf8_leads[k].last)
            return &utf8_leads[k];
    return NULL;
}

int32_t palev__utf8_next(const unsigned char *s, size_t len, size_t *i)
{
    const struct utf8_lead *lead;
    uint32_t cp;

    if (*i >= len || s[*i] == 0)
        return -1;
    if (s[*i] < 0x80)
        return s[(*i)++];
    lead = utf8_lead_of(s[*i]);
    if (!lead || len - *i <= lead->extra)
        goto invalid;
    cp = s[*i] & lead->mask;
    for (size_t k = 1; k <= lead->extra; k++) {
        uint8_t b = s[*i + k];

        if (b < (k == 1 ? lead->lo : 0x80) || b > (k == 1 ? lead->hi : 0xBF))
            goto invalid;
        cp = cp << 6 | (b & 0x3Fu);
    }
    *i += 1 + lead->extra;
    return (int32_t)cp;
invalid:
    /* Only the lead byte is consumed: each byte of a broken sequence becomes one U+FFFD. */
    (*i)++;
    return PALEV__REPLACEMENT_CHAR;
}

size_t palev__utf8_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* The output side of a conversion: `written` bytes in dst (room kept for the NUL), `need` the
 * bytes the whole conversion needs, `full` once a code point did not fit. */
struct out {
    char *dst;
    size_t size, written, need;
    int full;
};

/* Store the `n` (8 or 16) units at s as n bytes at out (only the leading ASCII ones mean
 * anything) and return a mask with bit k set when unit k is ASCII (1..0x7F): all n bits when all
 * are. s may point into the last bytes of a NUL-terminated string: the callers only load a block
 * that stays in the page of its first unit, which is mapped, and AddressSanitizer is told that
 * reading past the NUL is meant (as glibc's strlen does). */
#if defined(__SSE2__)
__attribute__((no_sanitize_address)) static inline uint32_t ascii_mask(const char16_t *s, char *out,
                                                                       size_t n)
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
static inline uint32_t ascii_mask(const char16_t *s, char *out, size_t n)
{
    uint32_t ok = 0;

    for (size_t k = 0; k < n && s[k] - 1u < 0x7Fu; k++) {
        out[k] = (char)s[k];
        ok |= 1u << k;
    }
    return ok;
}
#endif

/* How many leading units of a mask from ascii_mask() are ASCII. */
static inline size_t ascii_count(uint32_t ok, size_t n)
{
    return (size_t)__builtin_ctz(~ok | 1u << n);
}

/* May a block of n units at src + i be loaded? Only from a 16-byte boundary, and within the
 * length of a counted string, and inside one page: a block that holds the NUL and goes past it
 * (a NUL-terminated string, or a counted one that ends earlier at its NUL, past which nothing
 * need be mapped) never touches an unmapped page, and it is naturally aligned, which memory
 * checkers accept past the end of a block (valgrind's --partial-loads-ok, on by default). */
static inline int block_fits(const char16_t *src, size_t len, size_t i, size_t n)
{
    uintptr_t at = (uintptr_t)(src + i);

    return (at & 15) == 0 && (at & 4095) <= 4096 - 2 * n &&
           (len == PALEV_NUL_TERMINATED || len - i >= n);
}

/* Copy ASCII units to dst (room bytes, the NUL excluded) by blocks of 16 then 8, up to the
 * first unit that is not ASCII. Returns the units (= bytes) copied; the caller goes on unit by
 * unit from there (the end of a counted string, of a page, or of the room). */
static inline __attribute__((always_inline)) size_t ascii_blocks(char *dst, size_t room,
                                                                 const char16_t *src, size_t len,
                                                                 size_t i)
{
    size_t w = 0;

    /* The next block's address does not wait for this block's count: a predicted branch on
     * "all 16 ASCII" keeps the loads going ahead of the compare and mask chain. */
    while (room - w >= 16 && block_fits(src, len, i + w, 16)) {
        uint32_t ok = ascii_mask(src + i + w, dst + w, 16);

        if (__builtin_expect(ok != 0xFFFF, 0))
            return w + ascii_count(ok, 16);
        w += 16;
    }
    if (room - w >= 8 && block_fits(src, len, i + w, 8))
        w += ascii_count(ascii_mask(src + i + w, dst + w, 8), 8);
    return w;
}

/* Copy the run of ASCII units at src[i..]: whole blocks while they fit, then unit by unit.
 * Returns the index of the first unit that is not ASCII (or the end). */
static size_t ascii_run(struct out *o, const char16_t *src, size_t len, size_t i)
{
    for (;;) {
        if (!o->full && o->written < o->size) {
            size_t w = ascii_blocks(o->dst + o->written, o->size - o->written - 1, src, len, i);

            i += w;
            o->written += w;
            o->need += w;
        }
        if (i >= len || src[i] - 1u >= 0x7Fu)
            return i;
        /* One unit (up to an aligned block, or where blocks do not fit), then blocks again. */
        if (!o->full && o->written + 1 < o->size)
            o->dst[o->written++] = (char)src[i];
        else
            o->full = 1;
        o->need++;
        i++;
    }
}

static void put(struct out *o, int32_t cp)
{
    char seq[4];
    size_t n = palev__utf8_encode((uint32_t)cp, seq);

    if (!o->full && o->written + n < o->size) {
        memcpy(o->dst + o->written, seq, n);
        o->written += n;
    } else {
        o->full = 1;
    }
    o->need += n;
}

/* The general conversion from unit i on (the first i units were ASCII and copied). Keeps
 * counting after dst is full so the caller learns the size it needs, as with snprintf;
 * `written` stops at the last code point that fit along with the terminating NUL. */
__attribute__((noinline)) static size_t convert_from(char *dst, size_t dstsize,
                                                     const char16_t *src, size_t srclen, size_t i)
{
    struct out o = { dst, dstsize, i, i, 0 };
    int32_t cp;

    while (src) {
        i = ascii_run(&o, src, srclen, i);
        if (i >= srclen || src[i] == 0 || (cp = palev__utf16_next(src, srclen, &i)) < 0)
            break;
        put(&o, cp);
    }
    if (dstsize > 0)
        dst[o.written] = '\0';
    return o.need;
}

/* The leading run of ASCII units (type and method names are ASCII to their end), copied by
 * blocks with no decoding or encoding: unit by unit up to the first 16-byte boundary, where
 * blocks may start, then blocks. Returns the units copied; the caller is done when the string
 * ends there, else goes on with the general conversion from that unit. Inlined into both
 * callers below, which reach the general conversion only by a tail call. */
static inline __attribute__((always_inline)) size_t ascii_head(char *dst, size_t dstsize,
                                                               const char16_t *src, size_t srclen)
{
    size_t i;

    if (dstsize == 0)
        return 0;
    for (i = 0; ((uintptr_t)(src + i) & 15) && i < srclen && i + 1 < dstsize &&
                src[i] - 1u < 0x7Fu; i++)
        dst[i] = (char)src[i];
    return i + ascii_blocks(dst + i, dstsize - 1 - i, src, srclen, i);
}

/* Has the string ended at unit i (its length, or a NUL)? */
static inline int ends_at(const char16_t *src, size_t srclen, size_t i)
{
    return i == srclen || src[i] == 0;
}

size_t palev__utf16_to_utf8(char *dst, size_t dstsize, const char16_t *src, size_t srclen)
{
    size_t i = src ? ascii_head(dst, dstsize, src, srclen) : 0;

    if (src && dstsize > 0 && ends_at(src, srclen, i)) {
        dst[i] = '\0';
        return i;
    }
    return convert_from(dst, dstsize, src, srclen, i);
}

/* The exported name; the library's own callers use palev__utf16_to_utf8 (no PLT). */
PALEV_API size_t palev_utf16_to_utf8(char *dst, size_t dstsize, const char16_t *src,
                                     size_t srclen)
{
    return palev__utf16_to_utf8(dst, dstsize, src, srclen);
}

/* ---- the scratch arena's UTF-16 strings (generated emit functions) --------------------- */

/* A string that did not fit in what is left of the current block (`need` bytes without the
 * NUL): converted again into a heap block of the right size; when the heap is exhausted, the
 * first pass left the longest prefix that fits, cut at a code point boundary. */
__attribute__((noinline, cold)) static const char *scratch_utf16_big(palev_scratch *sc, char *p,
                                                                      const char16_t *s,
                                                                      size_t len, size_t need)
{
    size_t size;
    char *data;

    if (need == 0)
        return "";
    data = palev__scratch_block_new(sc, need + 1, &size);
    if (!data) {
        if (palev__scratch_room(sc) == 0)
            return "";
        sc->used += strlen(p) + 1;
        return p;
    }
    palev__utf16_to_utf8(data, need + 1, s, len);
    palev__scratch_block_adopt(sc, data, size, need + 1);
    return data;
}

/* The general case of palev_scratch_utf16(), from unit i on (the first i units were ASCII and
 * copied): one conversion into what is left of the current block, which also measures the
 * string. */
__attribute__((noinline)) static const char *scratch_utf16_any(palev_scratch *sc, char *p,
                                                                const char16_t *s, size_t len,
                                                                size_t i)
{
    size_t need = convert_from(p, palev__scratch_room(sc), s, len, i);

    if (need < palev__scratch_room(sc)) {
        sc->used += need + 1;
        return p;
    }
    return scratch_utf16_big(sc, p, s, len, need);
}

/* The common case, an ASCII string that fits, calls nothing. */
PALEV_API const char *palev_scratch_utf16(palev_scratch *sc, const char16_t *s, size_t len)
{
    char *p = sc->base ? sc->base + sc->used : NULL;
    size_t room = palev__scratch_room(sc), i;

    if (!s)
        return "";
    i = ascii_head(p, room, s, len);
    if (__builtin_expect(room > 0 && ends_at(s, len, i), 1)) {
        p[i] = '\0';
        sc->used += i + 1;
        return p;
    }
    return scratch_utf16_any(sc, p, s, len, i);
}
