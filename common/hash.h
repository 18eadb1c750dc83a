/* SPDX-License-Identifier: MIT */
/* Hash functions and the probing of every open-addressing table of the project (map.h's generic
 * one, and libpaleventing's lock-free tables, which keep layouts of their own). */
#ifndef PCM_HASH_H
#define PCM_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a, 32 bits: the layout hashes palev-gen writes into generated code (a format: the same
 * text must keep its hash from one version to the next). */
uint32_t pcm_fnv1a32(const void *data, size_t len);
/* FNV-1a, 64 bits: string keys (names). */
uint64_t pcm_fnv1a64(const void *data, size_t len);
uint64_t pcm_fnv1a64_str(const char *s);

/* Any bytes, 8 at a time with no byte loop (the last word overlapping the one before, no read
 * past the end): long keys (call stacks) and keys of several parts (hash the next part with the
 * previous part's hash as its seed). */
uint64_t pcm_hash_bytes(uint64_t seed, const void *data, size_t len);
#define PCM_HASH_SEED 0x243F6A8885A308D3ull

/* Linear probing in a table of mask + 1 slots (a power of two): the first slot of a hash (its
 * bits mixed, so integer keys such as ids and addresses spread too), then the next slot. */
static inline size_t pcm_slot_first(uint64_t hash, size_t mask)
{
    return (size_t)((hash * 0x9E3779B97F4A7C15ull) >> 24) & mask;
}

static inline size_t pcm_slot_next(size_t i, size_t mask)
{
    return (i + 1) & mask;
}

#endif /* PCM_HASH_H */
