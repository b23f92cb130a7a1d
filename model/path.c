/* model/path.c: lexical path resolution and the interned path table. */
#include "model/path.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/grow.h"
#include "lib/map.h"
#include "lib/pathname.h"

void paths_init(struct path_table *t, uint64_t seed, uint64_t max_bytes)
{
	memset(t, 0, sizeof(*t));
	t->seed = seed;
	t->max_bytes = max_bytes;
}

void paths_fini(struct path_table *t)
{
	if (t->text)
		munmap(t->text, t->max_bytes);
	free(t->ents);
	free(t->slots);
	paths_init(t, t->seed, t->max_bytes);
}

const char *paths_get(const struct path_table *t, uint32_t id)
{
	if (id == 0 || id >= t->n)
		return NULL;
	return t->text + t->ents[id];
}

size_t paths_len(const struct path_table *t, uint32_t id)
{
	if (id == 0 || id >= t->n)
		return 0;
	return (id + 1 < t->n ? t->ents[id + 1] : t->bytes) - t->ents[id] - 1;
}

#define ID_MASK ((1u << PATHS_ID_BITS) - 1)

/* Where a hash starts probing (its low bits) and its tag (its top bits). */
static uint32_t home_of(uint64_t h, uint32_t nslots)
{
	return (uint32_t)h & (nslots - 1);
}

static uint32_t tag_of(uint64_t h)
{
	return (uint32_t)(h >> (64 - PATHS_TAG_BITS)) << PATHS_ID_BITS;
}

/* The slot holding s[0..len) (h: its hash), or the empty one where it
 * would go. */
static uint32_t paths_slot(const struct path_table *t, const char *s, size_t len, uint64_t h)
{
	uint32_t mask = t->nslots - 1, i = home_of(h, t->nslots), tag = tag_of(h);

	for (;; i = (i + 1) & mask) {
		uint32_t v = t->slots[i];
		const char *q;

		if (!v)
			return i;
		if ((v & ~ID_MASK) != tag)
			continue;
		q = t->text + t->ents[v & ID_MASK];
		if (strncmp(q, s, len) == 0 && q[len] == '\0')
			return i;
	}
}

/* Room for one more entry and its slot. The index grows by rehashing
 * every string: its slots keep no hash to move by. */
static int paths_reserve(struct path_table *t)
{
	if (!t->text) {
		void *m = mmap(NULL, t->max_bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (m == MAP_FAILED)
			return -ENOMEM;
		t->text = m;
		t->n = 1;	/* id 0 means none */
	}
	if (t->n > ID_MASK)
		return -ENOMEM;
	if (t->n + 1 >= t->cap && GROW(t->ents, t->cap, t->n + 2, 64))
		return -ENOMEM;
	if ((uint64_t)(t->n + 1) * 2 > t->nslots) {
		uint32_t ns = t->nslots ? t->nslots * 2 : 128;	/* ids < 2^27 */
		uint32_t *nw = calloc(ns, sizeof(*nw));

		if (!nw)
			return -ENOMEM;
		free(t->slots);
		t->slots = nw;
		t->nslots = ns;
		for (uint32_t id = 1; id < t->n; id++) {
			const char *q = t->text + t->ents[id];
			uint64_t h = hash_bytes(q, paths_len(t, id), t->seed);
			uint32_t j = home_of(h, ns);

			while (nw[j])
				j = (j + 1) & (ns - 1);
			nw[j] = tag_of(h) | id;
		}
	}
	return 0;
}

uint32_t paths_find(const struct path_table *t, const char *s, size_t len)
{
	if (!t->nslots)
		return 0;
	return t->slots[paths_slot(t, s, len, hash_bytes(s, len, t->seed))] & ID_MASK;
}

uint32_t paths_intern(struct path_table *t, const char *s, size_t len)
{
	uint64_t h = hash_bytes(s, len, t->seed);
	uint32_t i, id;

	if (len > UINT32_MAX - 1 || paths_reserve(t)) {
		errno = ENOMEM;
		return 0;
	}
	i = paths_slot(t, s, len, h);
	if (t->slots[i])
		return t->slots[i] & ID_MASK;
	if (t->bytes + len + 1 > t->max_bytes) {
		t->full = true;
		errno = E2BIG;
		return 0;
	}
	id = t->n++;
	t->ents[id] = (uint32_t)t->bytes;
	memcpy(t->text + t->bytes, s, len);
	t->text[t->bytes + len] = '\0';
	t->bytes += len + 1;
	t->slots[i] = tag_of(h) | id;
	return id;
}
