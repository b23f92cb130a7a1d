/* test_fill: file content (replay/fill.h). Parsing; content as a pure
 * function of (kind, seed, offset) whatever the pieces it is asked in; no
 * two 4 KiB blocks equal (nothing for deduplication); and compress:PCT
 * data that zstd shrinks by PCT +- 10 points, random data it cannot. */
#include <errno.h>
#include <stdlib.h>
#include <zstd.h>

#include "replay/fill.h"
#include "tests/unit/unit.h"

#define BIG (8u << 20)

static void test_parse(void)
{
	struct fill f;

	CHECK_EQ(fill_parse("random", &f), 0);
	CHECK_EQ(f.kind, FILL_RANDOM);
	CHECK_EQ(fill_parse("zero", &f), 0);
	CHECK_EQ(f.kind, FILL_ZERO);
	CHECK_EQ(fill_parse("compress:0", &f), 0);
	CHECK_EQ(f.kind, FILL_COMPRESS);
	CHECK_EQ(f.pct, 0);
	CHECK_EQ(fill_parse("compress:100", &f), 0);
	CHECK_EQ(f.pct, 100);
	CHECK_EQ(fill_parse("compress:37", &f), 0);
	CHECK_EQ(f.pct, 37);
	CHECK_EQ(fill_parse("compress:101", &f), -EINVAL);
	CHECK_EQ(fill_parse("compress:", &f), -EINVAL);
	CHECK_EQ(fill_parse("compress:-1", &f), -EINVAL);
	CHECK_EQ(fill_parse("compress:5x", &f), -EINVAL);
	CHECK_EQ(fill_parse("compress", &f), -EINVAL);
	CHECK_EQ(fill_parse("rand", &f), -EINVAL);
	CHECK_EQ(fill_parse("", &f), -EINVAL);
}

/* Any piece of a file equals the same range of the whole. */
static void test_pieces(const struct fill *f, const unsigned char *whole, size_t len)
{
	static const size_t cuts[][2] = {
		{ 0, 1 }, { 1, 4095 }, { 4095, 2 }, { 4096, 4096 }, { 1000, 12345 },
		{ 65535, 70001 }, { 3, 200000 },
	};
	unsigned char *piece = malloc(len);

	for (size_t i = 0; piece && i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		fill_bytes(f, 42, cuts[i][0], piece, cuts[i][1]);
		CHECK(memcmp(piece, whole + cuts[i][0], cuts[i][1]) == 0);
	}
	free(piece);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Distinct 4 KiB blocks: sorted 64-bit fingerprints, none repeated. */
static size_t duplicate_blocks(const unsigned char *buf, size_t len)
{
	size_t n = len / 4096, dups = 0;
	uint64_t *fp = malloc(n * sizeof(*fp));

	if (!fp)
		return n;
	for (size_t b = 0; b < n; b++) {
		uint64_t h = 0xcbf29ce484222325ull;

		for (size_t i = 0; i < 4096; i++)
			h = (h ^ buf[b * 4096 + i]) * 0x100000001b3ull;
		fp[b] = h;
	}
	qsort(fp, n, sizeof(*fp), cmp_u64);
	for (size_t b = 1; b < n; b++)
		dups += fp[b] == fp[b - 1];
	free(fp);
	return dups;
}

/* Percent saved by zstd (level 3) on buf. */
static double saved_pct(const unsigned char *buf, size_t len)
{
	size_t cap = ZSTD_compressBound(len), c;
	void *out = malloc(cap);

	if (!out)
		return -1;
	c = ZSTD_compress(out, cap, buf, len, 3);
	free(out);
	if (ZSTD_isError(c))
		return -1;
	return 100.0 * (1.0 - (double)c / (double)len);
}

static void test_kind(const char *spec, double want_saved, unsigned char *buf)
{
	struct fill f;
	double saved;

	CHECK_EQ(fill_parse(spec, &f), 0);
	fill_bytes(&f, 42, 0, buf, BIG);
	test_pieces(&f, buf, BIG);
	saved = saved_pct(buf, BIG);
	if (saved < want_saved - 10 || saved > want_saved + 10) {
		fprintf(stderr, "%s: zstd saved %.1f %%, want %.0f +- 10\n", spec, saved, want_saved);
		CHECK(0);
	}
	if (f.kind != FILL_ZERO)
		CHECK_U64(duplicate_blocks(buf, BIG), 0);
}

static void test_seeds(unsigned char *buf)
{
	struct fill f = { .kind = FILL_RANDOM };
	unsigned char other[4096];

	fill_bytes(&f, 1, 0, buf, 4096);
	fill_bytes(&f, 2, 0, other, 4096);
	CHECK(memcmp(buf, other, 4096) != 0);
	fill_bytes(&f, 1, 0, other, 4096);
	CHECK(memcmp(buf, other, 4096) == 0);
	f = (struct fill){ .kind = FILL_ZERO };
	memset(buf, 0xff, 4096);
	fill_bytes(&f, 1, 12345, buf, 4096);
	memset(other, 0, sizeof(other));
	CHECK(memcmp(buf, other, 4096) == 0);
}

int main(void)
{
	unsigned char *buf = malloc(BIG);

	if (!buf)
		return 1;
	test_parse();
	test_seeds(buf);
	test_kind("random", 0, buf);
	test_kind("zero", 100, buf);
	test_kind("compress:0", 0, buf);
	test_kind("compress:25", 25, buf);
	test_kind("compress:50", 50, buf);
	test_kind("compress:75", 75, buf);
	test_kind("compress:90", 90, buf);
	test_kind("compress:100", 100, buf);
	free(buf);
	return unit_done();
}
