/* riot top's aggregate (top/agg.c): exact per-syscall and per-class counts;
 * heavy hitters that keep the rows counted most exactly while thousands of
 * others come and go (and find a kept row again after evictions); the
 * events ring, newest first, with long paths cut at their start; the
 * compact histogram's quantiles against the truth; reset; a live view's
 * sampling of the details, with exact syscall rows and think time. */
#include <stdlib.h>

#include "bpf/syscalls.h"
#include "formats/log.h"
#include "tests/unit/unit.h"
#include "top/top_int.h"

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static int add(struct top_agg *a, uint64_t t, unsigned sys, uint32_t pid, int64_t ret,
	       uint64_t dur, const char *path)
{
	struct riot_syscall sc;

	memset(&sc, 0, sizeof(sc));
	sc.t = t;
	sc.dur = dur;
	sc.ret = ret;
	sc.pid = sc.tid = pid;
	sc.sys = (uint16_t)sys;
	return top_agg_add_op(a, &sc, path, -1);
}

/* A call of thread 42 to the aggregate, as a record (the resolver sees
 * it): on fd, or (path not NULL) an openat of path that returned ret. */
static int add_rec(struct top_agg *a, uint64_t t, uint64_t dur, unsigned sys, int32_t fd,
		   int64_t ret, const char *path)
{
	static struct riot_rec r;

	memset(&r, 0, sizeof(r));
	r.type = RIOT_REC_SYSCALL;
	r.sc.t = t;
	r.sc.dur = dur;
	r.sc.pid = r.sc.tid = 42;
	r.sc.sys = (uint16_t)sys;
	r.sc.ret = ret;
	if (path) {
		r.sc.dirfd = -100;
		r.sc.path.s = path;
		r.sc.has = RIOT_HAS_PATH | RIOT_HAS_DIRFD;
	} else {
		r.sc.fd = fd;
		r.sc.has = RIOT_HAS_FD;
	}
	return top_agg_add(a, &r);
}

static const struct top_row *file_row(const struct top_agg *a, const char *path)
{
	for (uint32_t i = 0; i < a->files.n; i++)
		if (a->files.rows[i].text && strcmp(a->files.rows[i].text, path) == 0)
			return &a->files.rows[i];
	return NULL;
}

int main(void)
{
	static struct top_agg a;
	char p[512];
	uint64_t t = 1000000000ull;
	int err = 0;

	CHECK_EQ(top_agg_init(&a), 0);
	/* 10 hot files, 500 calls each, between 5000 cold files of one call:
	 * the files table (1024 rows) replaces cold rows, never a hot one */
	for (int round = 0; round < 500; round++) {
		for (int h = 0; h < 10; h++) {
			snprintf(p, sizeof(p), "/hot/%d", h);
			err |= add(&a, t++, RIOT_SYS_pread64, 100 + h, 4096, 1000 + h, p);
		}
		for (int c = 0; c < 10; c++) {
			snprintf(p, sizeof(p), "/cold/%d", round * 10 + c);
			err |= add(&a, t++, RIOT_SYS_newfstatat, 7, -2, 500, p);
		}
	}
	CHECK_EQ(err, 0);
	CHECK_U64(a.syscalls, 10000);
	CHECK_U64(a.sys[RIOT_SYS_pread64].count, 5000);
	CHECK_U64(a.sys[RIOT_SYS_pread64].bytes, 5000ull * 4096);
	CHECK_U64(a.sys[RIOT_SYS_newfstatat].count, 5000);
	CHECK_U64(a.sys[RIOT_SYS_newfstatat].errors, 5000);
	top_agg_settle(&a);
	CHECK_U64(a.cls[TOP_READ].count, 5000);
	CHECK_U64(a.cls[TOP_READ].bytes, 5000ull * 4096);
	CHECK_U64(a.cls[TOP_META].count, 5000);
	CHECK_U64(a.files.n, TOP_FILES);
	CHECK(a.files.evicted >= 5000 + 10 - TOP_FILES);
	for (int h = 0; h < 10; h++) {
		const struct top_row *r;

		snprintf(p, sizeof(p), "/hot/%d", h);
		r = file_row(&a, p);
		CHECK(r != NULL);
		if (r) {
			CHECK_U64(r->count, 500);
			CHECK_U64(r->over, 0);
			CHECK_U64(r->bytes, 500ull * 4096);
			/* one value: the quantile is it (the bucket's edge, clamped
			 * to the largest value) */
			CHECK_U64(top_hist_q(&r->lat, 0.5), 1000 + h);
		}
	}
	/* the processes: 10 hot ones and the cold one, each one row */
	CHECK_U64(a.procs_hh.n, 11);
	/* a hot file again after all those evictions: the same row */
	err = add(&a, t++, RIOT_SYS_pread64, 100, 10, 1000, "/hot/0");
	CHECK_EQ(err, 0);
	CHECK(file_row(&a, "/hot/0") && file_row(&a, "/hot/0")->count == 501);
	/* no path has two rows */
	for (uint32_t i = 0; i < a.files.n; i++)
		for (uint32_t j = i + 1; j < a.files.n; j++)
			CHECK(strcmp(a.files.rows[i].text, a.files.rows[j].text) != 0);

	/* the events ring: the newest first, the last TOP_EVENTS kept */
	CHECK_U64(a.ev_total, 10001);
	CHECK(top_agg_event(&a, 0) && strcmp(top_agg_event(&a, 0)->path, "/hot/0") == 0);
	CHECK(top_agg_event(&a, 0) && top_agg_event(&a, 0)->ret == 10);
	CHECK(top_agg_event(&a, 1) && strcmp(top_agg_event(&a, 1)->path, "/cold/4999") == 0);
	CHECK(top_agg_event(&a, TOP_EVENTS - 1) != NULL);
	CHECK(top_agg_event(&a, TOP_EVENTS) == NULL);
	/* a path longer than the event's room: its tail, after "…" */
	memset(p, 'a', 300);
	strcpy(p + 300, "/end");
	add(&a, t++, RIOT_SYS_openat, 1, 3, 100, p);
	{
		const struct top_event *e = top_agg_event(&a, 0);
		size_t n = e ? strlen(e->path) : 0;

		CHECK_U64(n, sizeof(e->path) - 1);
		CHECK(e && memcmp(e->path, "\xe2\x80\xa6", 3) == 0);
		CHECK(e && strcmp(e->path + n - 4, "/end") == 0);
	}

	/* names */
	top_agg_name(&a, 100, "postgres");
	CHECK(strcmp(top_agg_comm(&a, 100), "postgres") == 0);
	CHECK(strcmp(top_agg_comm(&a, 4242), "?") == 0);

	/* reset: every count gone, names kept */
	top_agg_reset(&a);
	CHECK_U64(a.syscalls, 0);
	CHECK_U64(a.sys[RIOT_SYS_pread64].count, 0);
	CHECK_U64(a.files.n, 0);
	CHECK_U64(a.ev_total, 0);
	CHECK(strcmp(top_agg_comm(&a, 100), "postgres") == 0);
	err = add(&a, t++, RIOT_SYS_pread64, 100, 10, 1000, "/hot/0");
	CHECK(err == 0 && file_row(&a, "/hot/0") && file_row(&a, "/hot/0")->count == 1);
	top_agg_fini(&a);

	/* sampling (a live view): 200,000 preads of one fd in 0.2 s, 1 us
	 * apart, 400 ns each, after the open that names its file. The
	 * syscall and class rows count every call and its bytes; the rest
	 * takes one call in 512 (a tenth of a second's share of
	 * TOP_DETAIL_RATE is 250 calls, and it brings 100,000: 400 to one,
	 * up to a power of two) and counts it 512 times; the resolver, fed an open the sample skipped,
	 * names the file of the sampled reads after it. */
	{
		uint64_t t0 = 5000000000ull, sampled;
		const struct top_row *f;

		CHECK_EQ(top_agg_init(&a), 0);
		top_agg_sample(&a);
		err = add(&a, t0 - 3000, RIOT_SYS_getdents64, 9, 0, 100, "/d");
		err |= add_rec(&a, t0 - 2000, 1000, RIOT_SYS_openat, -1, 3, "/data/table");
		for (int i = 0; i < 200000; i++)
			err |= add_rec(&a, t0 + (uint64_t)i * 1000, 400, RIOT_SYS_pread64, 3, 4096, NULL);
		CHECK_EQ(err, 0);
		top_agg_settle(&a);
		CHECK_U64(a.sys[RIOT_SYS_pread64].count, 200000);
		CHECK_U64(a.sys[RIOT_SYS_pread64].bytes, 200000ull * 4096);
		CHECK_U64(a.cls[TOP_READ].count, 200000);
		/* every read but the first follows the previous read's end by
		 * 600 ns, sampled reads too; the first (of the first tenth of
		 * a second, taken whole) follows the open's end by 1000 */
		{
			const struct top_row *r = &a.sys[RIOT_SYS_pread64];

			CHECK(r->gaps >= 200000 - 1024 && r->gaps <= 200000 + 1024);
			CHECK_U64(r->gap_ns, r->gaps * 600 + 400);
			CHECK_U64(r->gap.n, r->gaps);
			CHECK_U64(r->lat.n, r->gaps);
			CHECK_U64(r->time_ns, r->gaps * 400);
			CHECK_U64(a.think_ns, r->gap_ns);
		}
		CHECK_U64(a.every, 512);
		sampled = a.sampled_calls;
		/* the calls taken: the first TOP_BURST_WHOLE (4,096) whole,
		 * whose rate (about 1M calls/s) then sets N to 512 at once;
		 * the remaining 195,906 reads at 1 in 512 */
		CHECK(sampled >= 4096 + (200000 - 4094) / 512 - 2 &&
		      sampled <= 4096 + (200000 - 4094) / 512 + 2);
		f = file_row(&a, "/data/table");
		CHECK(f != NULL);
		if (f)	/* each sampled read counted 512 times */
			CHECK(f->count >= 200000 - 1024 && f->count <= 200000 + 1024);
		CHECK(a.ev_total == sampled);
		/* an open the sample skips still names the file of the reads
		 * that follow it */
		if (a.countdown == 1)	/* the next call would be sampled */
			err |= add_rec(&a, t0 + 199999ull * 1000 + 500, 100, RIOT_SYS_pread64, 3, 4096, NULL);
		sampled = a.sampled_calls;
		err |= add_rec(&a, t0 + 200000ull * 1000, 500, RIOT_SYS_openat, -1, 5, "/data/late");
		CHECK_U64(a.sampled_calls, sampled);
		/* 13 x 512 reads: 13 of them sampled, wherever the count
		 * stood after the open */
		for (int i = 0; i < 6656; i++)
			err |= add_rec(&a, t0 + 200001ull * 1000 + (uint64_t)i * 1000, 400, RIOT_SYS_read,
				       5, 100, NULL);
		CHECK_EQ(err, 0);
		CHECK_U64(a.sampled_calls - sampled, 13);
		f = file_row(&a, "/data/late");
		CHECK(f != NULL && f->count == 6656);
		top_agg_fini(&a);
	}

	/* sampling spares the resolver the skipped opens closed before any
	 * call taken whole (tar's pattern), and still names every call it
	 * takes: 1,000 files opened as fd 4 and closed in turn, then
	 * /data/last as fd 4 and 1,024 reads of it (two taken, each counted
	 * 512 times); then an open closed out of turn: /data/a as fd 5,
	 * /data/b as fd 6, fd 5 closed, 1,024 reads of fd 6 */
	{
		uint64_t t = 5000000000ull;
		const struct top_row *f;
		char path[32];

		CHECK_EQ(top_agg_init(&a), 0);
		top_agg_sample(&a);
		err = add_rec(&a, t, 1000, RIOT_SYS_openat, -1, 3, "/data/table");
		for (int i = 0; i < 200000; i++)	/* 1M calls/s: one in 512 */
			err |= add_rec(&a, t += 1000, 400, RIOT_SYS_pread64, 3, 4096, NULL);
		CHECK_U64(a.every, 512);
		for (int i = 0; i < 1000; i++) {
			snprintf(path, sizeof(path), "/tmp/x%d", i);
			err |= add_rec(&a, t += 1000, 400, RIOT_SYS_openat, -1, 4, path);
			err |= add_rec(&a, t += 1000, 400, RIOT_SYS_close, 4, 0, NULL);
		}
		/* of the 2,000 calls, 3 or 4 are taken whole: each spoils at
		 * most its own pair */
		CHECK(a.spared >= 996 && a.spared <= 1000);
		err |= add_rec(&a, t += 1000, 400, RIOT_SYS_openat, -1, 4, "/data/last");
		if (a.countdown == 1)	/* the next read would be the one taken */
			err |= add_rec(&a, t += 1000, 400, RIOT_SYS_pread64, 3, 4096, NULL);
		for (int i = 0; i < 1024; i++)
			err |= add_rec(&a, t += 1000, 400, RIOT_SYS_read, 4, 100, NULL);
		f = file_row(&a, "/data/last");
		CHECK(f != NULL && f->count == 1024 && f->bytes == 102400);
		err |= add_rec(&a, t += 1000, 400, RIOT_SYS_openat, -1, 5, "/data/a");
		err |= add_rec(&a, t += 1000, 400, RIOT_SYS_openat, -1, 6, "/data/b");
		err |= add_rec(&a, t += 1000, 400, RIOT_SYS_close, 5, 0, NULL);
		for (int i = 0; i < 1024; i++)
			err |= add_rec(&a, t += 1000, 400, RIOT_SYS_read, 6, 100, NULL);
		CHECK_EQ(err, 0);
		f = file_row(&a, "/data/b");
		CHECK(f != NULL && f->count >= 1024 && f->count <= 1024 + 512);
		CHECK(file_row(&a, "/data/a") == NULL || file_row(&a, "/data/a")->count == 512);
		top_agg_settle(&a);
		CHECK_U64(a.sys[RIOT_SYS_openat].count, 1004);
		CHECK_U64(a.sys[RIOT_SYS_close].count, 1001);
		top_agg_fini(&a);
	}

	/* the compact histogram: a quantile is never below the truth, and
	 * at most 19 % above it (four buckets per power of two) */
	{
		static const double qs[] = { 0.5, 0.9, 0.99, 0.999 };
		static struct top_hist h;
		enum { N = 100000 };
		uint64_t x = 88172645463325252ull, *v = malloc(N * sizeof(*v));

		CHECK(v != NULL);
		for (int i = 0; v && i < N; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			v[i] = 100 + x % 1000000;
			top_hist_add(&h, v[i]);
		}
		if (v)
			qsort(v, N, sizeof(*v), cmp_u64);
		CHECK_U64(h.n, N);
		for (unsigned i = 0; v && i < sizeof(qs) / sizeof(qs[0]); i++) {
			uint64_t want = v[(size_t)(qs[i] * N)], got = top_hist_q(&h, qs[i]);

			CHECK(got >= want);
			CHECK((double)got <= (double)want * 1.19 + 1);
		}
		CHECK(v && top_hist_q(&h, 1.0) == v[N - 1] && h.max == v[N - 1]);
		free(v);
	}
	return unit_done();
}
