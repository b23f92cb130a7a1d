/* lib/map.h: riot's one hash map, uint64 keys to uint64 values.
 *
 * Open addressing with linear probing at a load of at most 1/2, and
 * backward-shift deletion (no tombstones, so lookups stay short after many
 * deletes). Keys are mixed with a seed before they pick a slot: with a
 * seed from map_seed(), a hostile log cannot choose keys that all collide.
 * A key may hold one value (map_put) or several (map_add, read back with
 * map_next): tables keyed by a hash of their own content (interned
 * strings) keep every entry whose hash is equal and compare the content.
 * UINT64_MAX is not a valid key. Functions return 0 or -ENOMEM.
 */
#ifndef RIOT_LIB_MAP_H
#define RIOT_LIB_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAP_EMPTY UINT64_MAX

struct u64map {
	uint64_t *keys;
	uint64_t *vals;
	uint32_t cap;		/* 0 or a power of two */
	uint32_t len;
	uint64_t seed;
};

/* A random seed, read once per process (getrandom), for maps and
 * hash_bytes() whose keys come from input. */
uint64_t map_seed(void);
/* The 64-bit hash of n bytes under seed; never MAP_EMPTY, so it can key a
 * map. */
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);

void map_init(struct u64map *mp, uint64_t seed);
void map_fini(struct u64map *mp);
/* Removes every entry, keeping the memory for the next ones. */
void map_clear(struct u64map *mp);
/* Pointer to the (first) value of key, valid until the next put or add;
 * NULL when absent. */
uint64_t *map_get(const struct u64map *mp, uint64_t key);
/* The value of key, made 0 when absent; NULL when out of memory (or for
 * MAP_EMPTY). Valid until the next put or add. */
uint64_t *map_slot(struct u64map *mp, uint64_t key);
/* Inserts or replaces the value of key. */
int map_put(struct u64map *mp, uint64_t key, uint64_t val);
/* Inserts another value under key, whatever it holds already. */
int map_add(struct u64map *mp, uint64_t key, uint64_t val);
/* The values of key one by one: start with *pos = 0; NULL after the last. */
uint64_t *map_next(const struct u64map *mp, uint64_t key, uint32_t *pos);
/* Removes key (its first value); true when it was there (*old, if not
 * NULL, gets the value). */
bool map_del(struct u64map *mp, uint64_t key, uint64_t *old);
/* Removes the entry in slot i. A caller walking the slots in ascending
 * order while deleting must look at slot i again: a later entry may have
 * moved into it (an entry may so be seen twice, never skipped). */
void map_del_at(struct u64map *mp, uint32_t i);
/* dst (uninitialised) becomes a copy of src. */
int map_copy(struct u64map *dst, const struct u64map *src);

#endif
