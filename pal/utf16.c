/* SPDX-License-Identifier: MIT */
/* UTF-16 strings into UTF-8: the exported conversion and the scratch arena's strings, both on
 * common/utf.c's conversion (its ASCII head inlined into palev_scratch_utf16()). */
#include <string.h>

#include "internal.h"
#include "utf16_ascii.h"

_Static_assert(PCM_NUL_TERMINATED == PALEV_NUL_TERMINATED, "one meaning of \"up to the NUL\"");

/* The exported name of the conversion (common/utf.c). */
PALEV_API size_t palev_utf16_to_utf8(char *dst, size_t dstsize, const char16_t *src,
                                     size_t srclen)
{
    return pcm_utf16_to_utf8(dst, dstsize, src, srclen);
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
    pcm_utf16_to_utf8(data, need + 1, s, len);
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
    size_t need = pcm_utf16_convert_from(p, palev__scratch_room(sc), s, len, i);

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
    i = pcm_utf16_ascii_head(p, room, s, len);
    if (__builtin_expect(room > 0 && pcm_utf16_ends_at(s, len, i), 1)) {
        p[i] = '\0';
        sc->used += i + 1;
        return p;
    }
    return scratch_utf16_any(sc, p, s, len, i);
}
