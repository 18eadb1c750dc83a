/* SPDX-License-Identifier: MIT */
/* UTF-8 and UTF-16 decoding, UTF-8 encoding, and the UTF-16 to UTF-8 conversion every string
 * field of libpaleventing and every UTF-16 manifest of palev-gen goes through. */
#include <string.h>

#include "utf.h"
#include "utf16_ascii.h"

int32_t pcm_utf16_next(const char16_t *s, size_t len, size_t *i)
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
        return PCM_REPLACEMENT_CHAR;
    lo = s[*i];
    if (lo < 0xDC00 || lo > 0xDFFF)
        return PCM_REPLACEMENT_CHAR;
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

int32_t pcm_utf8_next(const unsigned char *s, size_t len, size_t *i)
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
    /* In order, so that a NUL (never a continuation byte) stops the reading. */
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
    return PCM_REPLACEMENT_CHAR;
}

size_t pcm_utf8_len(const unsigned char *s)
{
    size_t i = 0;

    if (s[0] < 0x80)
        return 1;
    return pcm_utf8_next(s, PCM_NUL_TERMINATED, &i) == PCM_REPLACEMENT_CHAR && i != 3 ? 0 : i;
}

size_t pcm_utf8_encode(uint32_t cp, char out[4])
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

/* ---- UTF-16 to UTF-8 ------------------------------------------------------------------------ */

/* The output side of a conversion: `written` bytes in dst (room kept for the NUL), `need` the
 * bytes the whole conversion needs, `full` once a code point did not fit. */
struct out {
    char *dst;
    size_t size, written, need;
    int full;
};

/* Copy the run of ASCII units at src[i..]: whole blocks while they fit, then unit by unit.
 * Returns the index of the first unit that is not ASCII (or the end). */
static size_t ascii_run(struct out *o, const char16_t *src, size_t len, size_t i)
{
    for (;;) {
        if (!o->full && o->written < o->size) {
            size_t w = pcm__ascii_blocks(o->dst + o->written, o->size - o->written - 1, src, len,
                                         i);

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
    size_t n = pcm_utf8_encode((uint32_t)cp, seq);

    if (!o->full && o->written + n < o->size) {
        memcpy(o->dst + o->written, seq, n);
        o->written += n;
    } else {
        o->full = 1;
    }
    o->need += n;
}

/* Keeps counting after dst is full so the caller learns the size it needs, as with snprintf;
 * `written` stops at the last code point that fit along with the terminating NUL. */
__attribute__((noinline)) size_t pcm_utf16_convert_from(char *dst, size_t dstsize,
                                                        const char16_t *src, size_t srclen,
                                                        size_t i)
{
    struct out o = { dst, dstsize, i, i, 0 };
    int32_t cp;

    while (src) {
        i = ascii_run(&o, src, srclen, i);
        if (i >= srclen || src[i] == 0 || (cp = pcm_utf16_next(src, srclen, &i)) < 0)
            break;
        put(&o, cp);
    }
    if (dstsize > 0)
        dst[o.written] = '\0';
    return o.need;
}

/* The ASCII head inline, the general conversion reached only by a tail call. */
size_t pcm_utf16_to_utf8(char *dst, size_t dstsize, const char16_t *src, size_t srclen)
{
    size_t i = src ? pcm_utf16_ascii_head(dst, dstsize, src, srclen) : 0;

    if (src && dstsize > 0 && pcm_utf16_ends_at(src, srclen, i)) {
        dst[i] = '\0';
        return i;
    }
    return pcm_utf16_convert_from(dst, dstsize, src, srclen, i);
}
