/* lib/hist.c: see hist.h. */
#include "lib/hist.h"

#include <string.h>

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned hist_bucket(uint64_t v)
{
	unsigned k;

	if (v < HIST_SUB)
		return (unsigned)v;
	k = 63u - (unsigned)__builtin_clzll(v);		/* v in [2^k, 2^(k+1)) */
	return HIST_SUB + (k - HIST_SUB_BITS) * HIST_SUB +
	       (unsigned)((v >> (k - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

uint64_t hist_bucket_low(unsigned b)
{
	unsigned k, sub;

	if (b < HIST_SUB)
		return b;
	k = (b - HIST_SUB) / HIST_SUB + HIST_SUB_BITS;
	sub = (b - HIST_SUB) % HIST_SUB;
	return ((uint64_t)1 << k) + ((uint64_t)sub << (k - HIST_SUB_BITS));
}

uint64_t hist_bucket_high(unsigned b)
{
	if (b + 1 >= HIST_BUCKETS)
		return UINT64_MAX;
	return hist_bucket_low(b + 1) - 1;
}

void hist_add(struct hist *h, uint64_t v)
{
	h->b[hist_bucket(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void hist_merge(struct hist *into, const struct hist *from)
{
	if (!from->count)
		return;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		into->b[i] += from->b[i];
	into->count += from->count;
	into->sum += from->sum;
	if (from->min < into->min)
		into->min = from->min;
	if (from->max > into->max)
		into->max = from->max;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* the smallest value with at least ceil(q * count) values <= it */
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (rank == 0)
		rank = 1;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			uint64_t hi = hist_bucket_high(i);

			if (hi > h->max)
				hi = h->max;
			return hi < h->min ? h->min : hi;
		}
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0;
}
