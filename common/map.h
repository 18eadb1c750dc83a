/* SPDX-License-Identifier: MIT */
/* The generic hash table: open addressing, linear probing (hash.h), at most half full, growing by
 * doubling. palev-gen's string indexes (in its arena) and palev-trace's maps (on the heap) are
 * this table; where its slot arrays come from is the caller's: an allocator is passed in. */
#ifndef PCM_MAP_H
#define PCM_MAP_H

#include <stddef.h>
#include <stdint.h>

/* One entry. Integer keys are their own hash (key NULL); byte and string keys are hashed by the
 * caller and compared in full on lookup, so two keys with the same hash stay two entries. */
typedef struct pcm_map_slot {
    uint64_t hash;              /* the integer key, or the hash of the key bytes */
    const void *key;            /* the key bytes (kept by the caller as long as the entry), or NULL */
    size_t key_len;
    void *value;                /* non-NULL; NULL: the slot is free */
} pcm_map_slot;

/* A zeroed map is empty. Not thread-safe: one writer, and no reader while it writes. */
typedef struct pcm_map {
    pcm_map_slot *slots;        /* cap slots, cap a power of two (0 while empty) */
    size_t cap, len;
} pcm_map;

/* Where a map's slot arrays come from: `zalloc` returns n zeroed bytes or NULL; `release` frees
 * an array the map no longer uses (NULL when they are freed with an arena). */
typedef struct pcm_map_alloc {
    void *(*zalloc)(void *ctx, size_t n);
    void (*release)(void *ctx, void *p);
    void *ctx;
} pcm_map_alloc;

/* The value of the key (key NULL: an integer key equal to hash), or NULL. */
void *pcm_map_get(const pcm_map *m, uint64_t hash, const void *key, size_t len);

/* The slot of the key: its entry when the key is there (value non-NULL), else the free slot where
 * it goes, for pcm_map_fill(), the array grown through `a` first when one more entry would make
 * it more than half full. NULL when `a` found no memory (the map unchanged). */
pcm_map_slot *pcm_map_reserve(pcm_map *m, const pcm_map_alloc *a, uint64_t hash, const void *key,
                              size_t len);

/* The new entry key -> value (non-NULL) in free slot s from pcm_map_reserve() (same hash, key and
 * len). The map keeps the key pointer, not a copy. */
void pcm_map_fill(pcm_map *m, pcm_map_slot *s, uint64_t hash, const void *key, size_t len,
                  void *value);

/* Frees the slot array through `a` (the keys and values are the caller's); the map is empty. */
void pcm_map_clear(pcm_map *m, const pcm_map_alloc *a);

#endif /* PCM_MAP_H */
