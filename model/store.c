/* model/store.c: the pool behind the model's tables (its maps are
 * lib/map.h). */
#include "model/model_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
	uint32_t cap = p->cap ? p->cap * 2 : 16;
	char *items;

	if (cap <= p->cap)
		return -ENOMEM;
	items = realloc(p->items, p->size * cap);
	if (!items)
		return -ENOMEM;
	p->items = items;
	p->cap = cap;
	return 0;
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
	if (p->nfree == p->free_cap) {
		uint32_t cap = p->free_cap ? p->free_cap * 2 : 16;
		uint32_t *f = realloc(p->free, sizeof(*f) * cap);

		/* Without room on the free stack the slot is leaked, not
		 * reused: harmless, and freeing must not fail. */
		if (!f) {
			memset(pool_at(p, i), 0, p->size);
			p->live--;
			return;
		}
		p->free = f;
		p->free_cap = cap;
	}
	memset(pool_at(p, i), 0, p->size);
	p->free[p->nfree++] = i;
	p->live--;
}
