/* test_map: the hash map of lib/map.h. Every operation against a plain
 * array over many random steps (growth, deletion while walking), keys that
 * differ only in their high bits, several values under one key, copies,
 * clearing, lookup-or-make, and the invalid key. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/map.h"
#include "tests/unit/unit.h"

#define NKEYS 4096

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The longest run a lookup walks from a key's home slot to the key. */
static uint32_t max_probe(const struct u64map *m)
{
	uint32_t worst = 0;

	for (uint32_t i = 0; i < m->cap; i++) {
		uint32_t pos = 0;

		if (m->keys[i] == MAP_EMPTY)
			continue;
		while (map_next(m, m->keys[i], &pos) != &m->vals[i])
			;
		if (pos > worst)
			worst = pos;
	}
	return worst;
}

/* Random puts, deletes and lookups against an array of NKEYS keys. */
static void test_random(void)
{
	static uint64_t ref[NKEYS];
	static bool have[NKEYS];
	struct u64map m;
	uint32_t n = 0;
	bool ok = true;

	map_init(&m, 42);
	for (unsigned step = 0; step < 400000; step++) {
		uint64_t r = next_rand();
		unsigned k = (unsigned)(r % NKEYS);
		uint64_t key = (uint64_t)k * 0x100000000ull + 7;	/* low bits equal */
		uint64_t *v, old;

		switch ((r >> 20) % 4) {
		case 0: case 1:
			CHECK_EQ(map_put(&m, key, r), 0);
			n += !have[k];
			have[k] = true;
			ref[k] = r;
			break;
		case 2:
			if (map_del(&m, key, &old) != have[k])
				ok = false;
			if (have[k] && old != ref[k])
				ok = false;
			n -= have[k];
			have[k] = false;
			break;
		default:
			v = map_get(&m, key);
			if ((v != NULL) != have[k] || (v && *v != ref[k]))
				ok = false;
		}
		if (m.len != n)
			ok = false;
	}
	CHECK(ok);
	for (unsigned k = 0; k < NKEYS; k++) {
		uint64_t *v = map_get(&m, (uint64_t)k * 0x100000000ull + 7);

		CHECK((v != NULL) == have[k]);
	}
	CHECK(m.len * 2 <= m.cap);
	/* delete every other key while walking the slots */
	for (uint32_t i = 0; i < m.cap; i++) {
		while (m.keys[i] != MAP_EMPTY && ((m.keys[i] >> 32) & 1)) {
			have[m.keys[i] >> 32] = false;
			map_del_at(&m, i);
		}
	}
	n = 0;
	for (unsigned k = 0; k < NKEYS; k++) {
		CHECK((map_get(&m, (uint64_t)k * 0x100000000ull + 7) != NULL) == have[k]);
		n += have[k];
	}
	CHECK_U64(m.len, n);
	map_fini(&m);
	CHECK(map_get(&m, 7) == NULL);
}

/* 100,000 keys chosen to collide in a map that hashed them by their low
 * bits: the seed spreads them, lookups stay short. */
static void test_growth(void)
{
	struct u64map m, c;
	bool ok = true;

	map_init(&m, map_seed());
	for (uint64_t k = 0; k < 100000; k++)
		if (map_put(&m, k << 40, k))
			ok = false;
	CHECK(ok);
	CHECK_U64(m.len, 100000);
	CHECK_U64(m.cap, 262144);		/* the power of two at load <= 1/2 */
	CHECK(max_probe(&m) < 64);
	for (uint64_t k = 0; k < 100000 && ok; k++) {
		uint64_t *v = map_get(&m, k << 40);

		ok = v && *v == k;
	}
	CHECK(ok);
	CHECK(map_get(&m, 1) == NULL);

	/* a copy is its own */
	CHECK_EQ(map_copy(&c, &m), 0);
	CHECK(map_del(&c, 5ull << 40, NULL));
	CHECK(map_get(&c, 5ull << 40) == NULL);
	CHECK(map_get(&m, 5ull << 40) != NULL);
	CHECK_U64(c.len, 99999);
	map_fini(&c);
	map_fini(&m);

	/* the same keys under two seeds land in different slots */
	struct u64map a, b;
	unsigned same = 0;

	map_init(&a, 1);
	map_init(&b, 2);
	for (uint64_t k = 0; k < 1000; k++) {
		map_put(&a, k, k);
		map_put(&b, k, k);
	}
	for (uint32_t i = 0; i < a.cap; i++)
		same += a.keys[i] != MAP_EMPTY && a.keys[i] == b.keys[i];
	CHECK(same < 100);
	map_fini(&a);
	map_fini(&b);
}

/* Several values under one key: all found, each once; deleting takes one. */
static void test_multi(void)
{
	struct u64map m;
	uint64_t *v, seen = 0;
	uint32_t pos = 0;
	unsigned n = 0;

	map_init(&m, 9);
	CHECK_EQ(map_add(&m, 77, 1), 0);
	CHECK_EQ(map_add(&m, 78, 100), 0);
	CHECK_EQ(map_add(&m, 77, 2), 0);
	CHECK_EQ(map_add(&m, 77, 4), 0);
	for (uint64_t k = 0; k < 50; k++)	/* neighbours in the probe runs */
		CHECK_EQ(map_add(&m, 1000 + k, k), 0);
	while ((v = map_next(&m, 77, &pos))) {
		seen |= *v;
		n++;
	}
	CHECK_EQ(n, 3);
	CHECK_U64(seen, 7);
	CHECK(map_del(&m, 77, NULL));
	pos = 0;
	n = 0;
	while (map_next(&m, 77, &pos))
		n++;
	CHECK_EQ(n, 2);
	/* put replaces the first value only */
	CHECK_EQ(map_put(&m, 78, 200), 0);
	CHECK_U64(*map_get(&m, 78), 200);
	CHECK_U64(m.len, 2 + 1 + 50);
	CHECK_EQ(map_put(&m, MAP_EMPTY, 1), -EINVAL);
	CHECK_EQ(map_add(&m, MAP_EMPTY, 1), -EINVAL);
	CHECK(map_slot(&m, MAP_EMPTY) == NULL);

	/* map_slot: the value, made 0 when absent */
	v = map_slot(&m, 5000);
	CHECK(v != NULL && *v == 0);
	if (v)
		*v = 33;
	CHECK_U64(*map_slot(&m, 5000), 33);
	CHECK_U64(m.len, 2 + 1 + 50 + 1);

	/* clear keeps the memory, drops every entry */
	uint32_t cap = m.cap;
	map_clear(&m);
	CHECK_U64(m.len, 0);
	CHECK_U64(m.cap, cap);
	CHECK(map_get(&m, 77) == NULL && map_get(&m, 5000) == NULL);
	CHECK_EQ(map_put(&m, 77, 8), 0);
	CHECK_U64(*map_get(&m, 77), 8);
	map_fini(&m);
}

static void test_hash(void)
{
	CHECK(hash_bytes("abc", 3, 1) == hash_bytes("abc", 3, 1));
	CHECK(hash_bytes("abc", 3, 1) != hash_bytes("abc", 3, 2));
	CHECK(hash_bytes("abc", 3, 1) != hash_bytes("abd", 3, 1));
	CHECK(hash_bytes("a", 1, 1) != hash_bytes("a\0", 2, 1));
	for (uint64_t seed = 0; seed < 100000; seed++)	/* a key, always */
		if (hash_bytes("x", 1, seed) == MAP_EMPTY)
			CHECK(0);
	CHECK(map_seed() != 0);
	CHECK(map_seed() == map_seed());
}

int main(void)
{
	test_random();
	test_growth();
	test_multi();
	test_hash();
	return unit_done();
}
