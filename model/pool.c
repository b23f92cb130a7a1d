/* model/pool.c: the pool behind the model's tables (its maps are
 * lib/map.h). */
#include "model/pool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

void pool_init(struct pool *p, size_t size)
{
	memset(p, 0, sizeof(*p));
	p->size = size;
	p->top = 1;		/* index 0 means none */
}

void pool_fini(struct pool *p)
{
	free(p->items);
	free(p->free);
	pool_init(p, p->size);
}

static int pool_grow(struct pool *p)
{
	void *items = p->items;
	size_t cap = p->cap;
	int rc = grow_array(&items, &cap, cap + 1, p->size, 16, UINT32_MAX);

	p->items = items;
	p->cap = (uint32_t)cap;
	return rc;
}

uint32_t pool_alloc(struct pool *p)
{
	uint32_t i;

	if (p->nfree) {
		i = p->free[--p->nfree];
	} else {
		if (p->top >= p->cap && pool_grow(p)) {
			errno = ENOMEM;
			return 0;
		}
		i = p->top++;
	}
	memset(pool_at(p, i), 0, p->size);
	p->live++;
	return i;
}

void pool_put(struct pool *p, uint32_t i)
{
	/* Without room on the free stack the slot is leaked, not reused:
	 * harmless, and freeing must not fail. */
	if (GROW(p->free, p->free_cap, p->nfree + 1, 16)) {
		memset(pool_at(p, i), 0, p->size);
		p->live--;
		return;
	}
	memset(pool_at(p, i), 0, p->size);
	p->free[p->nfree++] = i;
	p->live--;
}
