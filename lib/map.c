/* lib/map.c: the hash map (lib/map.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "lib/map.h"

#define MAP_MIN_CAP 8

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

uint64_t map_seed(void)
{
	static _Atomic uint64_t seed;
	uint64_t s = seed;

	if (s)
		return s;
	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != sizeof(s))
		s = mix64((uint64_t)(uintptr_t)&s ^ (uint64_t)(uintptr_t)&seed);
	s |= 1;		/* never 0: 0 means not read yet */
	seed = s;
	return s;
}

static uint64_t rotl64(uint64_t x, unsigned r)
{
	return (x << r) | (x >> (64 - r));
}

/* One step of hash_bytes(): 8 bytes into the state. */
static uint64_t hash_word(uint64_t h, uint64_t v)
{
	return rotl64(h ^ (v * 0x87c37b91114253d5ULL), 31) * 0x4cf5ad432745937fULL;
}

/* Eight bytes at a time, the tail (1 to 7 bytes) read as two overlapping
 * pieces that cover it, the length in the state: each step is a multiply
 * and a rotate rather than a multiply per byte. Values differ between
 * byte orders (they never leave the process). */
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = seed ^ ((uint64_t)n * 0x9e3779b97f4a7c15ULL), v;
	uint32_t lo, hi;

	for (size_t left = n; left >= 8; left -= 8, b += 8) {
		memcpy(&v, b, 8);
		h = hash_word(h, v);
	}
	n &= 7;
	if (n >= 4) {
		memcpy(&lo, b, 4);
		memcpy(&hi, b + n - 4, 4);
		h = hash_word(h, (uint64_t)hi << 32 | lo);
	} else if (n) {
		h = hash_word(h, (uint64_t)b[0] << 16 | (uint64_t)b[n / 2] << 8 | b[n - 1]);
	}
	h = mix64(h);
	return h == MAP_EMPTY ? 0 : h;	/* always a valid key */
}

static uint32_t map_home(const struct u64map *mp, uint64_t key)
{
	return (uint32_t)mix64(key ^ mp->seed) & (mp->cap - 1);
}

void map_init(struct u64map *mp, uint64_t seed)
{
	memset(mp, 0, sizeof(*mp));
	mp->seed = seed;
}

void map_fini(struct u64map *mp)
{
	free(mp->keys);
	free(mp->vals);
	mp->keys = NULL;
	mp->vals = NULL;
	mp->cap = mp->len = 0;
}

void map_clear(struct u64map *mp)
{
	if (mp->cap)
		memset(mp->keys, 0xff, sizeof(*mp->keys) * mp->cap);
	mp->len = 0;
}

uint64_t *map_next(const struct u64map *mp, uint64_t key, uint32_t *pos)
{
	uint32_t mask, i;

	if (!mp->cap)
		return NULL;
	mask = mp->cap - 1;
	for (i = (map_home(mp, key) + *pos) & mask; *pos < mp->cap; i = (i + 1) & mask) {
		if (mp->keys[i] == MAP_EMPTY)
			return NULL;
		(*pos)++;
		if (mp->keys[i] == key)
			return &mp->vals[i];
	}
	return NULL;
}

uint64_t *map_get(const struct u64map *mp, uint64_t key)
{
	uint32_t pos = 0;

	return map_next(mp, key, &pos);
}

static void map_place(struct u64map *mp, uint64_t key, uint64_t val)
{
	uint32_t i = map_home(mp, key);

	while (mp->keys[i] != MAP_EMPTY)
		i = (i + 1) & (mp->cap - 1);
	mp->keys[i] = key;
	mp->vals[i] = val;
	mp->len++;
}

static int map_grow(struct u64map *mp)
{
	struct u64map old = *mp;
	uint32_t cap = old.cap ? old.cap * 2 : MAP_MIN_CAP;

	if (cap == 0)
		return -ENOMEM;
	mp->keys = malloc(sizeof(*mp->keys) * cap);
	mp->vals = malloc(sizeof(*mp->vals) * cap);
	if (!mp->keys || !mp->vals) {
		free(mp->keys);
		free(mp->vals);
		*mp = old;
		return -ENOMEM;
	}
	memset(mp->keys, 0xff, sizeof(*mp->keys) * cap);
	mp->cap = cap;
	mp->len = 0;
	for (uint32_t i = 0; i < old.cap; i++)
		if (old.keys[i] != MAP_EMPTY)
			map_place(mp, old.keys[i], old.vals[i]);
	free(old.keys);
	free(old.vals);
	return 0;
}

int map_add(struct u64map *mp, uint64_t key, uint64_t val)
{
	if (key == MAP_EMPTY)
		return -EINVAL;
	/* load factor at most 1/2 */
	if ((mp->len + 1) * 2 > mp->cap) {
		int err = map_grow(mp);

		if (err)
			return err;
	}
	map_place(mp, key, val);
	return 0;
}

int map_put(struct u64map *mp, uint64_t key, uint64_t val)
{
	uint64_t *v = map_get(mp, key);

	if (v) {
		*v = val;
		return 0;
	}
	return map_add(mp, key, val);
}

uint64_t *map_slot(struct u64map *mp, uint64_t key)
{
	uint64_t *v = map_get(mp, key);

	if (v)
		return v;
	if (map_add(mp, key, 0))
		return NULL;
	return map_get(mp, key);
}

void map_del_at(struct u64map *mp, uint32_t i)
{
	uint32_t mask = mp->cap - 1;

	for (uint32_t j = (i + 1) & mask; mp->keys[j] != MAP_EMPTY; j = (j + 1) & mask) {
		uint32_t home = map_home(mp, mp->keys[j]);

		/* j's entry may fill the hole at i unless its home lies
		 * cyclically in (i, j]. */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			mp->keys[i] = mp->keys[j];
			mp->vals[i] = mp->vals[j];
			i = j;
		}
	}
	mp->keys[i] = MAP_EMPTY;
	mp->len--;
}

bool map_del(struct u64map *mp, uint64_t key, uint64_t *old)
{
	uint64_t *v = map_get(mp, key);

	if (!v)
		return false;
	if (old)
		*old = *v;
	map_del_at(mp, (uint32_t)(v - mp->vals));
	return true;
}

int map_copy(struct u64map *dst, const struct u64map *src)
{
	*dst = *src;
	if (!src->cap)
		return 0;
	dst->keys = malloc(sizeof(*dst->keys) * src->cap);
	dst->vals = malloc(sizeof(*dst->vals) * src->cap);
	if (!dst->keys || !dst->vals) {
		free(dst->keys);
		free(dst->vals);
		map_init(dst, src->seed);
		return -ENOMEM;
	}
	memcpy(dst->keys, src->keys, sizeof(*dst->keys) * src->cap);
	memcpy(dst->vals, src->vals, sizeof(*dst->vals) * src->cap);
	return 0;
}
