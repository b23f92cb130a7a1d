/* model/path.c: lexical path resolution and the interned path table. */
#include "model/model_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/pathname.h"
#include "model/model.h"

#define PATH_CHUNK (64u * 1024)

void paths_init(struct path_table *t, uint64_t seed)
{
	memset(t, 0, sizeof(*t));
	t->seed = seed;
	map_init(&t->index, seed);
	t->max_bytes = MODEL_PATH_BYTES_MAX;
}

void paths_fini(struct path_table *t)
{
	for (uint32_t i = 0; i < t->nchunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	free(t->ents);
	map_fini(&t->index);
	paths_init(t, t->seed);
}

const char *paths_get(const struct path_table *t, uint32_t id)
{
	if (id == 0 || id >= t->n)
		return NULL;
	return t->ents[id].s;
}

/* A copy of s[0..len) + NUL in memory that never moves. */
static char *paths_store(struct path_table *t, const char *s, size_t len)
{
	char *dst;

	if (len + 1 > t->cur_left) {
		size_t size = len + 1 > PATH_CHUNK ? len + 1 : PATH_CHUNK;
		char *chunk;

		if (GROW(t->chunks, t->chunks_cap, t->nchunks + 1, 16))
			return NULL;
		chunk = malloc(size);
		if (!chunk)
			return NULL;
		t->chunks[t->nchunks++] = chunk;
		t->cur = chunk;
		t->cur_left = size;
	}
	dst = t->cur;
	memcpy(dst, s, len);
	dst[len] = '\0';
	t->cur += len + 1;
	t->cur_left -= len + 1;
	return dst;
}

/* Room for one more entry. */
static int paths_reserve(struct path_table *t)
{
	if (t->n + 1 >= t->cap) {
		if (GROW(t->ents, t->cap, t->n + 2, 64))
			return -ENOMEM;
		if (t->n == 0)
			t->n = 1;	/* id 0 means none */
	}
	return 0;
}

/* Every id whose hash is h, until one holds s[0..len). */
static uint32_t paths_probe(const struct path_table *t, const char *s, size_t len,
			    uint64_t h)
{
	uint32_t pos = 0;
	uint64_t *id;

	while ((id = map_next(&t->index, h, &pos))) {
		const struct path_ent *e = &t->ents[*id];

		if (e->len == len && memcmp(e->s, s, len) == 0)
			return (uint32_t)*id;
	}
	return 0;
}

uint32_t paths_find(const struct path_table *t, const char *s, size_t len)
{
	return paths_probe(t, s, len, hash_bytes(s, len, t->seed));
}

uint32_t paths_intern(struct path_table *t, const char *s, size_t len)
{
	uint64_t h = hash_bytes(s, len, t->seed);
	uint32_t id;

	if (len > UINT32_MAX - 1 || paths_reserve(t)) {
		errno = ENOMEM;
		return 0;
	}
	id = paths_probe(t, s, len, h);
	if (id)
		return id;
	if (t->bytes + len + 1 > t->max_bytes) {
		t->full = true;
		errno = E2BIG;
		return 0;
	}
	id = t->n;
	t->ents[id].s = paths_store(t, s, len);
	if (!t->ents[id].s) {
		errno = ENOMEM;
		return 0;
	}
	t->bytes += len + 1;
	if (map_add(&t->index, h, id)) {
		errno = ENOMEM;
		return 0;
	}
	t->ents[id].len = (uint32_t)len;
	t->n++;
	return id;
}
