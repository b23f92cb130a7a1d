/* model/model_int.h: the containers the model sources share; nothing outside model/
 * includes it. */
#ifndef RIOT_MODEL_MODEL_INT_H
#define RIOT_MODEL_MODEL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/map.h"

/* Fixed-size records addressed by index (1..; 0 means none), recycled
 * through a free stack. An index stays valid while the record is live; a
 * pointer only until the next pool_alloc. Freed records are zeroed, so a
 * record whose first field is a non-zero refcount tells live from free. */
struct pool {
	char *items;
	size_t size;
	uint32_t cap, top;	/* slots allocated, slots ever used (incl. 0) */
	uint32_t *free;
	uint32_t nfree, free_cap;
	uint32_t live;
};

void pool_init(struct pool *p, size_t size);
void pool_fini(struct pool *p);
/* Index of a zeroed record, or 0 with errno = ENOMEM. */
uint32_t pool_alloc(struct pool *p);
void pool_put(struct pool *p, uint32_t i);

static inline void *pool_at(const struct pool *p, uint32_t i)
{
	return p->items + (size_t)i * p->size;
}

/* Interned absolute paths: each distinct string gets an id (1..). The
 * strings, NUL-terminated, lie one after the other in one reservation of
 * address space (max_bytes, touched only as it fills), so a string's
 * pointer stays valid for the life of the table and an id costs 4 bytes
 * (its offset) plus 8 to 16 of index: one copy of the text, little more.
 * A string takes 2 bytes at least, so ids stay below 2^27 within
 * MODEL_PATH_BYTES_MAX; the other 5 bits of a slot hold hash bits that
 * spare most string comparisons. */
#define PATHS_ID_BITS 27
#define PATHS_TAG_BITS (32 - PATHS_ID_BITS)
struct path_table {
	uint32_t *ents;		/* ents[id]: offset of its string in text;
				 * ents[0] unused */
	uint32_t n, cap;
	uint32_t *slots;	/* open addressing, linear probing, load at
				 * most 1/2: (PATHS_TAG_BITS of the hash) <<
				 * PATHS_ID_BITS | id; 0 empty */
	uint32_t nslots;	/* a power of two, or 0 */
	char *text;		/* the reservation, NULL until the first */
	uint64_t seed;
	uint64_t bytes;		/* text held, NULs included */
	uint64_t max_bytes;	/* MODEL_PATH_BYTES_MAX */
	bool full;		/* an intern was refused for max_bytes */
};

void paths_init(struct path_table *t, uint64_t seed);
void paths_fini(struct path_table *t);
/* Id of s[0..len), interning a copy when new; 0 with errno = ENOMEM, or
 * E2BIG (and t->full set) when the table already holds max_bytes of text. */
uint32_t paths_intern(struct path_table *t, const char *s, size_t len);
/* Id of s[0..len) if interned, else 0; never interns. */
uint32_t paths_find(const struct path_table *t, const char *s, size_t len);
/* NULL for an id the table has not given out. */
const char *paths_get(const struct path_table *t, uint32_t id);
/* The length of id's string (the strings lie in id order); 0 for none. */
size_t paths_len(const struct path_table *t, uint32_t id);

#endif
