/* SPDX-License-Identifier: MIT */
/* Hash functions (hash.h). */
#include <string.h>

#include "hash.h"

/* FNV-1a in 64-bit arithmetic: the 32-bit variant is its low half (a product's low bits depend
 * only on its operands' low bits), with its own offset and prime. */
static uint64_t fnv1a(uint64_t h, uint64_t prime, const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * prime;
    return h;
}

uint32_t pcm_fnv1a32(const void *data, size_t len)
{
    return (uint32_t)fnv1a(2166136261u, 16777619u, data, len);
}

uint64_t pcm_fnv1a64(const void *data, size_t len)
{
    return fnv1a(0xcbf29ce484222325ull, 0x100000001b3ull, data, len);
}

uint64_t pcm_fnv1a64_str(const char *s)
{
    return pcm_fnv1a64(s, strlen(s));
}

static uint64_t mix(uint64_t h)
{
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ h >> 29;
}

/* Names are short: words are read whole, the last one overlapping the one before, so that a
 * byte-at-a-time loop never runs (it would cost more than the table's probe). */
uint64_t pcm_hash_bytes(uint64_t h, const void *data, size_t len)
{
    const char *s = data;
    uint64_t w = 0;
    uint32_t a, b;

    if (len >= 8) {
        for (size_t i = 0; i + 8 < len; i += 8) {
            memcpy(&w, s + i, 8);
            h = mix(h ^ w);
        }
        memcpy(&w, s + len - 8, 8);
    } else if (len >= 4) {
        memcpy(&a, s, 4);
        memcpy(&b, s + len - 4, 4);
        w = a | (uint64_t)b << 32;
    } else if (len > 0) {
        w = (uint8_t)s[0] | (uint32_t)(uint8_t)s[len / 2] << 8 | (uint32_t)(uint8_t)s[len - 1] << 16;
    }
    return mix(h ^ w ^ (uint64_t)len << 56);
}
