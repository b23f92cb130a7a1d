/* benchmarks/top_agg.c: what riot top's live aggregate costs per record,
 * the part of the view's cost that grows with the rate.
 *
 *   top_agg LOG [--rate R] [--rounds N] [--max M]
 *
 * Reads LOG's first M records (default 2,000,000) into memory, its
 * syscalls' times moved to R calls a second (default 1,000,000: the rate
 * the goal names; the view samples its details by the records' times, so
 * the rate sets how many calls it takes whole). Each round then hands
 * every record, copied into one buffer as the drain hands its records
 * over, through a function pointer to a hook that does nothing and to
 * riot top's live aggregate (sampling on, as riot top sets it), and takes
 * the difference of the two loops' times. Prints
 *
 *   records N calls_whole W opens_spared S ns_per_record P (Q1-Q3)
 *   second_half H (Q1-Q3)
 *
 * P: the median of N rounds (default 31), with its quartiles; H: the
 * same over the log's second half alone, past the start (a view's
 * first tenth of a second takes up to 4,096 calls whole); W: the calls
 * the last round took whole (the rest cost only the skip); S: the opens
 * the resolver was spared (closed before any call taken whole).
 *
 * Each round's aggregate is made anew in memory an earlier round used
 * and freed: the first touch of its tables' pages, which a view pays
 * once, is outside the rounds after the first. What the view costs per
 * second whatever the rate (drawing, the terminal) is not in it:
 * benchmarks/top.sh measures that on an idle target. Exits 1 on any
 * error.
 */
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/log.h"
#include "top/top_int.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int keep_str(struct riot_str *s)
{
	if (s->s && !(s->s = strdup(s->s)))
		return -1;
	return 0;
}

/* rec's strings made its own (the reader's live until its next record). */
static int keep(struct riot_rec *rec)
{
	switch (rec->type) {
	case RIOT_REC_SYSCALL:
		rec->sc.value = NULL;
		rec->sc.value_len = 0;
		return keep_str(&rec->sc.path) || keep_str(&rec->sc.path2);
	case RIOT_REC_PROC:
		return keep_str(&rec->proc.comm) || keep_str(&rec->proc.path);
	case RIOT_REC_SNAP_PROC:
		return keep_str(&rec->sproc.cwd) || keep_str(&rec->sproc.comm);
	case RIOT_REC_SNAP_FD:
		return keep_str(&rec->sfd.path);
	case RIOT_REC_STRING:
		return keep_str(&rec->string.str);
	default:
		return 0;
	}
}

static int nop(void *ctx, const struct riot_rec *rec)
{
	(void)ctx;
	__asm__ volatile("" : : "r"(rec) : "memory");
	return 0;
}

static int agg(void *ctx, const struct riot_rec *rec)
{
	return top_agg_add(ctx, rec);
}

/* ns to hand records [from, to) of v to hook, each copied into *buf
 * first; -1 when the hook failed. */
static double pass(int (*hook)(void *, const struct riot_rec *), void *ctx,
		   const struct riot_rec *v, size_t from, size_t to, struct riot_rec *buf)
{
	uint64_t t0 = now_ns();

	for (size_t i = from; i < to; i++) {
		*buf = v[i];
		if (hook(ctx, buf))
			return -1;
	}
	return (double)(now_ns() - t0);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "rate", required_argument, NULL, 'r' },
		{ "rounds", required_argument, NULL, 'n' },
		{ "max", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	double rate = 1e6;
	int rounds = 31, c;
	size_t max = 2000000, n = 0, cap = 1u << 16;
	char err[256];
	struct riot_rec rec, *v;
	struct riot_reader *r;
	uint64_t t0 = 0, calls = 0, whole = 0, spared = 0;
	double *d, *tail;
	/* through pointers the compiler cannot see through, as the drain's
	 * hook is */
	int (*volatile hook_nop)(void *, const struct riot_rec *) = nop;
	int (*volatile hook_agg)(void *, const struct riot_rec *) = agg;
	static struct riot_rec buf;
	static struct top_agg a;

	/* the aggregate's tables from the heap, kept when freed */
	mallopt(M_MMAP_THRESHOLD, 1 << 30);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'r')
			rate = atof(optarg);
		else if (c == 'n')
			rounds = atoi(optarg);
		else if (c == 'm')
			max = strtoull(optarg, NULL, 10);
		else
			return 1;
	}
	if (optind + 1 != argc || rate <= 0 || rounds < 1 || !max) {
		fprintf(stderr, "usage: top_agg LOG [--rate R] [--rounds N] [--max M]\n");
		return 1;
	}
	if (!(r = riot_reader_open(argv[optind], err, sizeof(err)))) {
		fprintf(stderr, "top_agg: %s\n", err);
		return 1;
	}
	v = malloc(cap * sizeof(*v));
	d = calloc((size_t)rounds, sizeof(*d));
	tail = calloc((size_t)rounds, sizeof(*tail));
	if (!v || !d || !tail)
		return 1;
	while (n < max && (c = riot_reader_next(r, &rec)) > 0) {
		if (n == cap && !(v = realloc(v, (cap *= 2) * sizeof(*v))))
			return 1;
		if (keep(&rec))
			return 1;
		if (rec.type == RIOT_REC_SYSCALL) {
			/* its start moved to the rate's place, its duration kept */
			if (!calls++)
				t0 = rec.sc.t;
			rec.sc.t = t0 + (uint64_t)((double)(calls - 1) * 1e9 / rate);
		}
		v[n++] = rec;
	}
	if (c < 0) {
		fprintf(stderr, "top_agg: %s: %s\n", argv[optind], strerror(-c));
		return 1;
	}
	riot_reader_close(r);
	for (int k = 0; k < rounds; k++) {
		size_t h = n / 2;
		double nop1, nop2, agg1, agg2;

		if (top_agg_init(&a)) {
			fprintf(stderr, "top_agg: out of memory\n");
			return 1;
		}
		top_agg_sample(&a);
		nop1 = pass(hook_nop, &a, v, 0, h, &buf);
		nop2 = pass(hook_nop, &a, v, h, n, &buf);
		agg1 = pass(hook_agg, &a, v, 0, h, &buf);
		agg2 = pass(hook_agg, &a, v, h, n, &buf);
		if (agg1 < 0 || agg2 < 0) {
			fprintf(stderr, "top_agg: the aggregate failed\n");
			return 1;
		}
		d[k] = (agg1 + agg2 - nop1 - nop2) / (double)n;
		tail[k] = (agg2 - nop2) / (double)(n - h);
		whole = a.sampled_calls;
		spared = a.spared;
		top_agg_fini(&a);
	}
	qsort(d, (size_t)rounds, sizeof(*d), cmp_double);
	qsort(tail, (size_t)rounds, sizeof(*tail), cmp_double);
	printf("records %zu calls_whole %llu opens_spared %llu ns_per_record %.2f (%.2f-%.2f)"
	       " second_half %.2f (%.2f-%.2f)\n",
	       n, (unsigned long long)whole, (unsigned long long)spared, d[rounds / 2],
	       d[rounds / 4], d[(3 * rounds) / 4], tail[rounds / 2], tail[rounds / 4],
	       tail[(3 * rounds) / 4]);
	return 0;
}
