/* tests/unit/test_grow.c: lib/grow.h: doubling from min, new elements
 * zeroed and old ones kept, nothing done when there is room, and sizes
 * that would overflow refused with the array untouched. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/grow.h"
#include "tests/unit/unit.h"

static void test_doubling(void)
{
	uint32_t *a = NULL, cap = 0;

	CHECK_EQ(GROW(a, cap, 1, 16), 0);
	CHECK_EQ(cap, 16);
	CHECK(a != NULL);
	for (unsigned i = 0; i < 16; i++)
		CHECK_EQ(a[i], 0);
	for (unsigned i = 0; i < 16; i++)
		a[i] = i + 1;
	/* room already: nothing moves */
	uint32_t *before = a;
	CHECK_EQ(GROW(a, cap, 16, 16), 0);
	CHECK(a == before);
	CHECK_EQ(cap, 16);
	CHECK_EQ(GROW(a, cap, 17, 16), 0);
	CHECK_EQ(cap, 32);
	/* a jump doubles until it fits: 32 -> 64 -> 128 */
	CHECK_EQ(GROW(a, cap, 100, 16), 0);
	CHECK_EQ(cap, 128);
	for (unsigned i = 0; i < 16; i++)
		CHECK_EQ(a[i], i + 1);
	for (unsigned i = 16; i < 128; i++)
		CHECK_EQ(a[i], 0);
	free(a);
}

static void test_need_zero_and_min_zero(void)
{
	char *a = NULL;
	size_t cap = 0;

	CHECK_EQ(GROW(a, cap, 0, 8), 0);	/* nothing needed */
	CHECK(a == NULL);
	CHECK_EQ(cap, 0);
	CHECK_EQ(GROW(a, cap, 3, 0), 0);	/* min 0 starts from 1 */
	CHECK_EQ(cap, 4);
	free(a);
}

static void test_bounds(void)
{
	/* the capacity's type bounds it: a uint8_t capacity stops at 255 */
	uint16_t *a = NULL;
	uint8_t cap = 0;

	CHECK_EQ(GROW(a, cap, 200, 64), 0);
	CHECK_EQ(cap, 255);	/* 64 -> 128 -> 255, not 256 (0) */
	uint16_t *before = a;
	CHECK_EQ(GROW(a, cap, 256, 64), -ENOMEM);
	CHECK(a == before);
	CHECK_EQ(cap, 255);
	free(a);

	/* a min past the bound is cut to it */
	uint8_t *b = NULL;
	uint8_t bcap = 0;

	CHECK_EQ(GROW(b, bcap, 1, 1024), 0);
	CHECK_EQ(bcap, 255);
	free(b);
}

static void test_overflow(void)
{
	/* elements * size past SIZE_MAX: refused before realloc, untouched */
	void *a = NULL;
	size_t cap = 0;

	CHECK_EQ(grow_array(&a, &cap, SIZE_MAX / 8 + 1, 16, 1, SIZE_MAX), -ENOMEM);
	CHECK(a == NULL);
	CHECK_EQ(cap, 0);
	/* need past max: refused */
	CHECK_EQ(grow_array(&a, &cap, 1001, 1, 1, 1000), -ENOMEM);
	CHECK(a == NULL);
	CHECK_EQ(cap, 0);
	CHECK_EQ(grow_array(&a, &cap, 1, 0, 1, SIZE_MAX), -EINVAL);
	/* a uint64_t capacity grown by need past what memory holds */
	uint64_t *b = NULL, bcap = 4;

	b = calloc(4, sizeof(*b));
	CHECK(b != NULL);
	uint64_t *before = b;
	CHECK_EQ(GROW(b, bcap, (uint64_t)1 << 62, 4), -ENOMEM);
	CHECK(b == before);
	CHECK_EQ(bcap, 4);
	free(b);
}

int main(void)
{
	test_doubling();
	test_need_zero_and_min_zero();
	test_bounds();
	test_overflow();
	return unit_done();
}
