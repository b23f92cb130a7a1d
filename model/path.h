/* model/path.h: the model's interned path table (path.c); nothing
 * outside model/ includes it. */
#ifndef RIOT_MODEL_PATH_H
#define RIOT_MODEL_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	uint64_t max_bytes;	/* the model's MODEL_PATH_BYTES_MAX */
	bool full;		/* an intern was refused for max_bytes */
};

/* An empty table whose text may grow to max_bytes. */
void paths_init(struct path_table *t, uint64_t seed, uint64_t max_bytes);
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
