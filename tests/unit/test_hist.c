/* Histogram percentiles against a brute-force sort of the same values. */
#include <stdlib.h>

#include "lib/hist.h"
#include "tests/unit/unit.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The exact q-quantile: the smallest value with >= ceil(q n) values <= it. */
static uint64_t exact(const uint64_t *sorted, size_t n, double q)
{
	size_t rank = (size_t)(q * (double)n);

	if ((double)rank < q * (double)n)
		rank++;
	if (rank == 0)
		rank = 1;
	return sorted[rank - 1];
}

int main(void)
{
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	enum { N = 200000 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct hist *h = malloc(sizeof(*h)), *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	uint64_t x = 88172645463325252ull;

	/* bucket edges: every value maps into a bucket that contains it */
	for (uint64_t t = 0; t < 5000; t++) {
		unsigned k = hist_bucket(t);

		CHECK(hist_bucket_low(k) <= t && t <= hist_bucket_high(k));
	}
	CHECK_U64(hist_bucket(63), 63);
	CHECK_U64(hist_bucket_low(hist_bucket(1000000)), 999424);
	CHECK(hist_bucket(UINT64_MAX) < HIST_BUCKETS);

	hist_init(h);
	hist_init(a);
	hist_init(b);
	for (size_t i = 0; i < N; i++) {
		/* log-uniform latencies from 100 ns to ~100 ms */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = (uint64_t)(100.0 * __builtin_exp((double)(x % 1000000) / 1000000.0 * 13.8));
		hist_add(h, v[i]);
		hist_add(i % 2 ? a : b, v[i]);
	}
	hist_merge(a, b);
	qsort(v, N, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint64_t want = exact(v, N, qs[i]), got = hist_quantile(h, qs[i]);

		/* never below the truth, at most one bucket (1/64) above */
		CHECK(got >= want);
		CHECK((double)got <= (double)want * (1.0 + 1.0 / HIST_SUB) + 1);
		CHECK_U64(hist_quantile(a, qs[i]), got);
	}
	CHECK_U64(hist_quantile(h, 1.0), v[N - 1]);
	CHECK_U64(hist_quantile(h, 0.0), v[0]);
	CHECK_U64(h->count, N);
	CHECK_U64(a->count, N);

	/* small exact values */
	hist_init(b);
	for (uint64_t t = 1; t <= 10; t++)
		hist_add(b, t);
	CHECK_U64(hist_quantile(b, 0.5), 5);
	CHECK_U64(hist_quantile(b, 0.9), 9);
	CHECK_U64(hist_quantile(b, 0.95), 10);
	CHECK(hist_mean(b) == 5.5);
	free(v);
	free(h);
	free(a);
	free(b);
	return unit_done();
}
