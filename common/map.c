/* SPDX-License-Identifier: MIT */
/* The generic hash table (map.h). */
#include <string.h>

#include "hash.h"
#include "map.h"

/* The first array's slots, then doubling. */
#define MIN_SLOTS 16

static int same_key(const pcm_map_slot *s, uint64_t hash, const void *key, size_t len)
{
    if (s->hash != hash)
        return 0;
    if (!key)
        return !s->key;
    return s->key && s->key_len == len && memcmp(s->key, key, len) == 0;
}

/* The slot holding the key, or the free slot where it would go (m->cap > 0). */
static pcm_map_slot *find(const pcm_map *m, uint64_t hash, const void *key, size_t len)
{
    size_t mask = m->cap - 1, i = pcm_slot_first(hash, mask);

    while (m->slots[i].value && !same_key(&m->slots[i], hash, key, len))
        i = pcm_slot_next(i, mask);
    return &m->slots[i];
}

void *pcm_map_get(const pcm_map *m, uint64_t hash, const void *key, size_t len)
{
    return m->cap ? find(m, hash, key, len)->value : NULL;
}

static int grow(pcm_map *m, const pcm_map_alloc *a)
{
    size_t cap = m->cap ? m->cap * 2 : MIN_SLOTS;
    pcm_map bigger = { NULL, cap, m->len };

    if (cap < m->cap || cap > SIZE_MAX / sizeof(pcm_map_slot) ||
        !(bigger.slots = a->zalloc(a->ctx, cap * sizeof(pcm_map_slot))))
        return -1;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].value)
            *find(&bigger, m->slots[i].hash, m->slots[i].key, m->slots[i].key_len) = m->slots[i];
    if (a->release && m->slots)
        a->release(a->ctx, m->slots);
    *m = bigger;
    return 0;
}

pcm_map_slot *pcm_map_reserve(pcm_map *m, const pcm_map_alloc *a, uint64_t hash, const void *key,
                              size_t len)
{
    pcm_map_slot *s = m->cap ? find(m, hash, key, len) : NULL;

    if (s && (s->value || (m->len + 1) * 2 <= m->cap))
        return s;
    return grow(m, a) < 0 ? NULL : find(m, hash, key, len);
}

void pcm_map_fill(pcm_map *m, pcm_map_slot *s, uint64_t hash, const void *key, size_t len,
                  void *value)
{
    *s = (pcm_map_slot){ .hash = hash, .key = key, .key_len = len, .value = value };
    m->len++;
}

void pcm_map_clear(pcm_map *m, const pcm_map_alloc *a)
{
    if (a->release && m->slots)
        a->release(a->ctx, m->slots);
    memset(m, 0, sizeof(*m));
}
