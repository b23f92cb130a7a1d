/* model/pool.h: the pool of fixed-size records the model's tables are
 * built of (pool.c); nothing outside model/ includes it. */
#ifndef RIOT_MODEL_POOL_H
#define RIOT_MODEL_POOL_H

#include <stddef.h>
#include <stdint.h>

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

#endif
