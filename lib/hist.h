/* lib/hist.h: log-linear latency histograms, the one way riot computes
 * percentiles (replay summaries, reports, compare).
 *
 * Values below HIST_SUB are exact; above, each power of two is cut into
 * HIST_SUB equal buckets, so a percentile read from a bucket is within
 * 1/HIST_SUB (1.6 %) of the true value. A percentile is the upper edge of
 * the bucket holding that rank, clamped to the largest value seen, so it
 * is never below the true one. Histograms merge by adding counts.
 */
#ifndef RIOT_LIB_HIST_H
#define RIOT_LIB_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 6
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS (HIST_SUB + (64 - HIST_SUB_BITS) * HIST_SUB)

struct hist {
	uint64_t count, sum, min, max;
	uint64_t b[HIST_BUCKETS];
};

void hist_init(struct hist *h);
void hist_add(struct hist *h, uint64_t v);
void hist_merge(struct hist *into, const struct hist *from);
/* q in [0, 1]; 0 for an empty histogram. */
uint64_t hist_quantile(const struct hist *h, double q);
double hist_mean(const struct hist *h);

/* Bucket mapping, exposed for storage (reports keep non-empty buckets). */
unsigned hist_bucket(uint64_t v);
uint64_t hist_bucket_low(unsigned b);	/* smallest value of bucket b */
uint64_t hist_bucket_high(unsigned b);	/* largest value of bucket b */

#endif
