/* test_report: the run accumulator, the report database and compare's
 * arithmetic, on fixed runs whose every number is known by hand. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sqlite3.h>
#include <unistd.h>

#include "formats/log.h"
#include "lib/hist.h"
#include "report/report_int.h"
#include "report/report.h"
#include "report/view.h"
#include "tests/unit/unit.h"

static char dir[] = "/tmp/riot-test-report.XXXXXX";

/* A path in the test's directory; valid for the next three calls. */
static const char *db_path(const char *name)
{
	static char buf[4][256];
	static unsigned n;

	snprintf(buf[n % 4], sizeof(buf[0]), "%s/%s", dir, name);
	return buf[n++ % 4];
}

static struct run_op op(unsigned sys, uint64_t t, uint64_t lat, int64_t ret)
{
	return (struct run_op){ .sys = (uint16_t)sys, .pid = 100, .tid = 100, .file = 1,
				.path_id = 1, .t_ns = t, .lat_ns = lat, .ret = ret,
				.issue_delay_ns = -1 };
}

/* n reads of 4096 bytes, each taking lat ns, spread over duration_ns. */
static int store_reads(const char *db, const char *label, unsigned n, uint64_t lat,
		       uint64_t duration_ns, int64_t *id)
{
	struct run_acc *a = run_acc_new(RUN_REPLAY);
	struct run_meta meta = { .kind = RUN_REPLAY, .label = label, .duration_ns = duration_ns,
				 .complete = 1, .speed = 1, .engine = "sync" };
	char err[512] = "";
	int rc;

	for (unsigned i = 0; i < n; i++) {
		struct run_op o = op(RIOT_SYS_read, i * (duration_ns / n), lat, 4096);

		o.issue_delay_ns = 10 * i;
		run_acc_op(a, &o);
	}
	rc = run_acc_store(a, db, &meta, NULL, id, err, sizeof(err));
	if (rc)
		fprintf(stderr, "store: %s\n", err);
	run_acc_free(a);
	return rc;
}

static void test_compare_arithmetic(void)
{
	const char *db = db_path("cmp.db");
	char err[512];
	struct run_view v[2];
	int64_t a, b;
	sqlite3 *h;

	/* A: 100 reads of 1000 ns in 1 s; B: 100 reads of 2000 ns in 2 s */
	CHECK_EQ(store_reads(db, "fast", 100, 1000, 1000000000, &a), 0);
	CHECK_EQ(store_reads(db, "slow", 100, 2000, 2000000000, &b), 0);
	h = report_db_open_ro(db, err, sizeof(err));
	CHECK(h != NULL);
	if (!h)
		return;
	CHECK_EQ(view_load(h, db, a, &v[0], err, sizeof(err)), 0);
	CHECK_EQ(view_load(h, db, b, &v[1], err, sizeof(err)), 0);
	{
		const struct sys_view *sa = view_sys(&v[0], "read"), *sb = view_sys(&v[1], "read");
		struct cmp_src ca = { sa->count, sa->bytes, sa->p50, sa->p99, sa->lat_sum };
		struct cmp_src cb = { sb->count, sb->bytes, sb->p50, sb->p99, sb->lat_sum };
		struct cmp_stat st[2] = { { .n = 1 }, { .n = 1 } };

		/* rates over the time spent in the calls: 100 reads in 100 us */
		CHECK(cmp_value(&ca, CMP_OPS_RATE) == 1e6);
		CHECK(cmp_value(&cb, CMP_OPS_RATE) == 5e5);
		CHECK(cmp_value(&ca, CMP_THROUGHPUT) == 4096e6);
		CHECK(cmp_value(&cb, CMP_THROUGHPUT) == 2048e6);
		CHECK(cmp_value(&ca, CMP_P50) == 1000.0);
		CHECK(cmp_value(&cb, CMP_P99) == 2000.0);
		CHECK(cmp_value(&ca, CMP_TOTAL_TIME) == 100000.0);
		CHECK(cmp_value(&cb, CMP_TOTAL_TIME) == 200000.0);
		for (unsigned m = 0; m < CMP_METRICS; m++) {
			st[0].mid = st[0].lo = st[0].hi = cmp_value(&ca, m);
			st[1].mid = st[1].lo = st[1].hi = cmp_value(&cb, m);
			CHECK_EQ(cmp_winner(st, 2, m), 0);	/* fast wins all */
		}
		/* issue delays 0, 10, ... 990: p50 is 490 within a bucket */
		CHECK_U64(sa->delay_count, 100);
		CHECK(sa->delay_p50 >= 490 && sa->delay_p50 <= 490 + 490 / HIST_SUB + 1);
		CHECK_U64(sa->delay_max, 990);
	}
	/* single runs: within noise under 5 %, and a percentile within the
	 * histograms' resolution even when asked with less */
	{
#define ONE(v) { .mid = (v), .lo = (v), .hi = (v), .n = 1 }
		struct cmp_stat eq[2] = { ONE(5), ONE(5) }, near[2] = { ONE(1000), ONE(1040) },
				far[2] = { ONE(1000), ONE(1060) }, gone[2] = { ONE(1000), ONE(0) };

		gone[1].missing = true;
		CHECK_EQ(cmp_winner(eq, 2, CMP_OPS_RATE), CMP_WITHIN_NOISE);
		CHECK_EQ(cmp_winner(near, 2, CMP_P99), CMP_WITHIN_NOISE);
		CHECK_EQ(cmp_winner(near, 2, CMP_TOTAL_TIME), CMP_WITHIN_NOISE);
		CHECK_EQ(cmp_winner(far, 2, CMP_P99), 0);
		CHECK_EQ(cmp_winner(far, 2, CMP_TOTAL_TIME), 0);
		CHECK_EQ(cmp_winner(far, 2, CMP_THROUGHPUT), 1);
		/* a run without the call: no winner, no tie */
		CHECK_EQ(cmp_winner(gone, 2, CMP_P50), CMP_NOT_COMPARABLE);
	}
	/* repeats: their spread is the noise */
	{
		/* A 1000 (900..1100, 20 %), B 1150 alone: 13 % apart, within
		 * A's 20 %; B 1300: 23 % apart and beyond A's range: A wins */
		struct cmp_stat a = { .mid = 1000, .lo = 900, .hi = 1100, .n = 3 };
		struct cmp_stat s1[2] = { a, ONE(1150) }, s2[2] = { a, ONE(1300) };
		/* tight repeats (1 %): a 3 % difference wins, though under 5 % */
		struct cmp_stat t1[2] = { { .mid = 1000, .lo = 995, .hi = 1005, .n = 2 },
					  { .mid = 1030, .lo = 1025, .hi = 1035, .n = 2 } };
		/* ranges that overlap never win */
		struct cmp_stat o1[2] = { { .mid = 1000, .lo = 990, .hi = 1200, .n = 2 },
					  { .mid = 1250, .lo = 1190, .hi = 1260, .n = 2 } };

		CHECK_EQ(cmp_winner(s1, 2, CMP_TOTAL_TIME), CMP_WITHIN_NOISE);
		CHECK_EQ(cmp_winner(s2, 2, CMP_TOTAL_TIME), 0);
		CHECK_EQ(cmp_winner(t1, 2, CMP_P50), 0);
		CHECK_EQ(cmp_winner(t1, 2, CMP_OPS_RATE), 1);
		CHECK_EQ(cmp_winner(o1, 2, CMP_TOTAL_TIME), CMP_WITHIN_NOISE);
#undef ONE
	}
	view_free(&v[0]);
	view_free(&v[1]);
	sqlite3_close(h);
}

/* Latencies with a known distribution: every percentile within one bucket
 * above the brute-force value, and monotone. */
static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static uint64_t exact_quantile(const uint64_t *sorted, unsigned n, double q)
{
	unsigned rank = (unsigned)ceil(q * n);

	return sorted[(rank ? rank : 1) - 1];
}

static void test_percentiles(void)
{
	enum { N = 20000 };
	const char *db = db_path("pct.db");
	static uint64_t lat[N];
	struct run_acc *a = run_acc_new(RUN_CAPTURE);
	struct run_meta meta = { .kind = RUN_CAPTURE, .label = "pct" };
	uint64_t x = 88172645463325252ull;
	struct run_view v;
	char err[512];
	int64_t id;
	sqlite3 *h;

	for (unsigned i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		lat[i] = 200 + x % 50000 + (i % 97 == 0 ? x % 5000000 : 0);
		struct run_op o = op(RIOT_SYS_pread64, i * 1000ull, lat[i], 512);
		run_acc_op(a, &o);
	}
	CHECK_EQ(run_acc_store(a, db, &meta, NULL, &id, err, sizeof(err)), 0);
	run_acc_free(a);
	qsort(lat, N, sizeof(lat[0]), cmp_u64);
	h = report_db_open_ro(db, err, sizeof(err));
	CHECK(h && view_load(h, db, id, &v, err, sizeof(err)) == 0);
	if (!h)
		return;
	{
		const struct sys_view *s = view_sys(&v, "pread64");
		const double qs[4] = { 0.5, 0.9, 0.99, 0.999 };
		const uint64_t got[4] = { s->p50, s->p90, s->p99, s->p999 };

		CHECK_U64(s->count, N);
		CHECK_U64(s->bytes, 512ull * N);
		CHECK_U64(s->lat_max, lat[N - 1]);
		CHECK_U64(s->lat_min, lat[0]);
		for (unsigned i = 0; i < 4; i++) {
			uint64_t want = exact_quantile(lat, N, qs[i]);

			CHECK(got[i] >= want);
			CHECK(got[i] <= want + want / HIST_SUB + 1);
			if (i)
				CHECK(got[i] >= got[i - 1]);
		}
		CHECK(s->lat_max >= s->p999);
		/* the stored buckets rebuild the same histogram */
		struct hist hh;
		CHECK_EQ(view_hist(&v, "pread64", "latency", &hh), 0);
		CHECK_U64(hh.count, N);
		CHECK_U64(hist_quantile(&hh, 0.99), s->p99);
	}
	view_free(&v);
	sqlite3_close(h);
}

/* Counts, bytes, errors by errno, classes, files, processes, timeline. */
static uint64_t q1(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *st;
	uint64_t v = UINT64_MAX;

	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(h));
		return v;
	}
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void test_tables(void)
{
	const char *db = db_path("tables.db");
	struct run_acc *a = run_acc_new(RUN_REPLAY);
	struct run_meta meta = { .kind = RUN_REPLAY, .label = "t", .proc_events = 3 };
	char err[512];
	int64_t id;
	sqlite3 *h;
	struct run_op o;

	CHECK_EQ(run_acc_process(a, 100, "reader"), 0);
	o = op(RIOT_SYS_read, 100, 50, 1000);		/* second 0 */
	run_acc_op(a, &o);
	o = op(RIOT_SYS_read, 1500000000, 70, 24);	/* second 1 */
	run_acc_op(a, &o);
	o = op(RIOT_SYS_write, 1600000000, 90, 300);
	o.path_id = 2;
	o.pid = 200;
	run_acc_op(a, &o);
	o = op(RIOT_SYS_copy_file_range, 1700000000, 10, 7);
	run_acc_op(a, &o);
	o = op(RIOT_SYS_openat, 2100000000, 30, -2);	/* ENOENT */
	o.path_id = 3;
	run_acc_op(a, &o);
	o = op(RIOT_SYS_openat, 2200000000, 30, -2);
	run_acc_op(a, &o);
	o = op(RIOT_SYS_fsync, 20000000000ull, 1000, 0);	/* second 20 */
	run_acc_op(a, &o);
	o = op(RIOT_SYS_fsync, 100, 5000, 0);	/* completes in second 0: late */
	run_acc_op(a, &o);
	o = op(RIOT_SYS_mmap, 100, 5, 4096);	/* in no timeline class */
	run_acc_op(a, &o);
	run_acc_divergence(a, RIOT_SYS_read, RUN_DIV_BYTES, 1000, 24, "/x");
	run_acc_divergence(a, RIOT_SYS_openat, RUN_DIV_RESULT, 3, -2, NULL);
	CHECK_U64(run_acc_ops(a), 9);
	CHECK_EQ(run_acc_store(a, db, &meta, NULL, &id, err, sizeof(err)), 0);
	run_acc_free(a);
	h = report_db_open_ro(db, err, sizeof(err));
	CHECK(h != NULL);
	if (!h)
		return;
	CHECK_U64(q1(h, "SELECT ops FROM runs"), 9);
	CHECK_U64(q1(h, "SELECT errors FROM runs"), 2);
	CHECK_U64(q1(h, "SELECT proc_events FROM runs"), 3);
	/* read: 1000 + 24 + copy 7; written: 300 + copy 7 */
	CHECK_U64(q1(h, "SELECT bytes_read FROM runs"), 1031);
	CHECK_U64(q1(h, "SELECT bytes_written FROM runs"), 307);
	CHECK_U64(q1(h, "SELECT bytes FROM syscalls WHERE sys = 'read'"), 1024);
	CHECK_U64(q1(h, "SELECT bytes FROM syscalls WHERE sys = 'copy_file_range'"), 7);
	CHECK_U64(q1(h, "SELECT count FROM errors WHERE sys = 'openat' AND name = 'ENOENT' AND errno = 2"), 2);
	CHECK_U64(q1(h, "SELECT count FROM classes WHERE class = 'data_write'"), 2);
	CHECK_U64(q1(h, "SELECT bytes FROM classes WHERE class = 'data_write'"), 307);
	CHECK_U64(q1(h, "SELECT count FROM classes WHERE class = 'metadata'"), 2);
	CHECK_U64(q1(h, "SELECT count FROM classes WHERE class = 'all'"), 9);
	CHECK_U64(q1(h, "SELECT duration_ns FROM runs"), 20000001000ull);
	CHECK_U64(q1(h, "SELECT ops FROM timeline WHERE second = 0 AND class = 'data_read'"), 1);
	CHECK_U64(q1(h, "SELECT bytes FROM timeline WHERE second = 1 AND class = 'data_read'"), 24);
	CHECK_U64(q1(h, "SELECT bytes FROM timeline WHERE second = 1 AND class = 'data_write'"), 307);
	CHECK_U64(q1(h, "SELECT lat_p99_ns FROM timeline WHERE second = 1 AND class = 'data_write'"), 90);
	CHECK_U64(q1(h, "SELECT ops FROM timeline WHERE second = 2 AND class = 'metadata'"), 2);
	CHECK_U64(q1(h, "SELECT lat_p99_ns FROM timeline WHERE second = 20 AND class = 'sync'"), 1000);
	/* the late fsync counts in second 0's ops but not in its p99 */
	CHECK_U64(q1(h, "SELECT ops FROM timeline WHERE second = 0 AND class = 'sync'"), 1);
	CHECK_U64(q1(h, "SELECT lat_p99_ns IS NULL FROM timeline WHERE second = 0 AND class = 'sync'"), 1);
	CHECK_U64(q1(h, "SELECT timeline_late FROM runs"), 1);
	CHECK_U64(q1(h, "SELECT count(*) FROM timeline WHERE class = 'data_read'"), 2);
	CHECK_U64(q1(h, "SELECT ops FROM files WHERE path_id = 2"), 1);
	CHECK_U64(q1(h, "SELECT bytes_written FROM files WHERE path_id = 1"), 7);
	CHECK_U64(q1(h, "SELECT ops FROM processes WHERE pid = 100"), 8);
	CHECK_U64(q1(h, "SELECT comm = 'reader' FROM processes WHERE pid = 100"), 1);
	CHECK_U64(q1(h, "SELECT count FROM divergences WHERE sys = 'read' AND kind = 'bytes'"), 1);
	CHECK_U64(q1(h, "SELECT replay_ret FROM divergence_samples WHERE seq = 0"), 24);
	CHECK_U64(q1(h, "SELECT count(*) FROM events"), 0);
	sqlite3_close(h);
}

/* Several runs in one database; labels derived unique; bad input. */
/* A file's counts are kept in 32 bits until one would pass them, then in
 * 64: the sums are exact either way, the other files' unmoved. */
static void test_file_counts(void)
{
	const char *db = db_path("files.db");
	struct run_acc *a = run_acc_new(RUN_CAPTURE);
	struct run_meta meta = { .kind = RUN_CAPTURE, .label = "f" };
	char err[512];
	int64_t id;
	sqlite3 *h;
	struct run_op o;

	for (unsigned i = 0; i < 3; i++) {
		o = op(RIOT_SYS_read, 1000 * i, 3000000000ull, 3000000000ll);	/* 3 s, 3 GB */
		run_acc_op(a, &o);
		o = op(RIOT_SYS_read, 1000 * i, 10, 5);
		o.path_id = 2;
		run_acc_op(a, &o);
	}
	o = op(RIOT_SYS_openat, 5000, 7, -2);
	o.path_id = 3;
	run_acc_op(a, &o);
	CHECK_EQ(run_acc_store(a, db, &meta, NULL, &id, err, sizeof(err)), 0);
	run_acc_free(a);
	h = report_db_open_ro(db, err, sizeof(err));
	CHECK(h != NULL);
	if (!h)
		return;
	CHECK_U64(q1(h, "SELECT ops FROM files WHERE path_id = 1"), 3);
	CHECK_U64(q1(h, "SELECT bytes_read FROM files WHERE path_id = 1"), 9000000000ull);
	CHECK_U64(q1(h, "SELECT lat_sum_ns FROM files WHERE path_id = 1"), 9000000000ull);
	CHECK_U64(q1(h, "SELECT bytes_read FROM files WHERE path_id = 2"), 15);
	CHECK_U64(q1(h, "SELECT lat_sum_ns FROM files WHERE path_id = 2"), 30);
	CHECK_U64(q1(h, "SELECT errors FROM files WHERE path_id = 3"), 1);
	CHECK_U64(q1(h, "SELECT bytes_read FROM runs"), 9000000015ull);
	sqlite3_close(h);
}

static void test_labels_and_errors(void)
{
	char db[256];
	struct run_meta meta = { .kind = RUN_CAPTURE };
	char err[512];
	int64_t ids[3];
	sqlite3 *h;
	FILE *f;

	snprintf(db, sizeof(db), "%s", db_path("many.db"));
	for (unsigned i = 0; i < 3; i++) {
		struct run_acc *a = run_acc_new(RUN_CAPTURE);
		struct run_op o = op(RIOT_SYS_read, 0, 10, 1);

		run_acc_op(a, &o);
		CHECK_EQ(run_acc_store(a, db, &meta, NULL, &ids[i], err, sizeof(err)), 0);
		run_acc_free(a);
	}
	h = report_db_open_ro(db, err, sizeof(err));
	CHECK(h != NULL);
	if (h) {
		int64_t id;

		CHECK_U64(q1(h, "SELECT count(*) FROM runs"), 3);
		CHECK_EQ(view_find_run(h, db, "capture-3", &id, err, sizeof(err)), 0);
		CHECK_EQ(id, ids[2]);
		CHECK_EQ(view_find_run(h, db, "capture", &id, err, sizeof(err)), 0);
		CHECK_EQ(id, ids[0]);
		CHECK_EQ(view_find_run(h, db, "2", &id, err, sizeof(err)), 0);
		CHECK_EQ(id, 2);
		CHECK_EQ(view_find_run(h, db, "nope", &id, err, sizeof(err)), -ENOENT);
		CHECK(strstr(err, "no run 'nope'") != NULL);
		sqlite3_close(h);
	}
	/* an explicit label that exists, or a number, is refused */
	{
		struct run_acc *a = run_acc_new(RUN_CAPTURE);
		struct run_meta m2 = { .kind = RUN_CAPTURE, .label = "capture-2" };

		CHECK_EQ(run_acc_store(a, db, &m2, NULL, NULL, err, sizeof(err)), -EEXIST);
		CHECK(strstr(err, "exists already") != NULL);
		m2.label = "42";
		CHECK_EQ(run_acc_store(a, db, &m2, NULL, NULL, err, sizeof(err)), -EINVAL);
		run_acc_free(a);
	}
	/* not SQLite */
	f = fopen(db_path("text.db"), "w");
	fputs("hello, not a database at all, but long enough to be a header....\n", f);
	fclose(f);
	CHECK(report_db_open_ro(db_path("text.db"), err, sizeof(err)) == NULL);
	CHECK(strstr(err, "not a riot report") != NULL);
	CHECK(report_db_open_rw(db_path("text.db"), err, sizeof(err)) == NULL);
	/* SQLite, not riot */
	sqlite3_open(db_path("other.db"), &h);
	sqlite3_exec(h, "CREATE TABLE t(x)", NULL, NULL, NULL);
	sqlite3_close(h);
	CHECK(report_db_open_ro(db_path("other.db"), err, sizeof(err)) == NULL);
	CHECK(strstr(err, "not a riot report") != NULL);
	CHECK(report_db_open_rw(db_path("other.db"), err, sizeof(err)) == NULL);
	/* a newer riot's */
	sqlite3_open(db, &h);
	sqlite3_exec(h, "UPDATE meta SET value = '99' WHERE key = 'schema_version'", NULL, NULL, NULL);
	sqlite3_close(h);
	CHECK(report_db_open_ro(db, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "newer riot") != NULL);
	CHECK(report_db_open_rw(db, err, sizeof(err)) == NULL);
	/* missing */
	CHECK(report_db_open_ro(db_path("missing.db"), err, sizeof(err)) == NULL);
}

/* --events: one row per op, in the same transaction as the run. */
static void test_events(void)
{
	const char *db = db_path("events.db");
	struct run_acc *a = run_acc_new(RUN_CAPTURE);
	struct run_meta meta = { .kind = RUN_CAPTURE, .label = "ev" };
	char err[512];
	int64_t id;
	sqlite3 *h;

	CHECK_EQ(run_acc_keep_events(a, db, err, sizeof(err)), 0);
	for (unsigned i = 0; i < 1000; i++) {
		struct run_op o = op(i % 2 ? RIOT_SYS_read : RIOT_SYS_write, i, 7, 1);

		run_acc_op(a, &o);
	}
	CHECK_EQ(run_acc_events_error(a), 0);
	CHECK_EQ(run_acc_store(a, db, &meta, NULL, &id, err, sizeof(err)), 0);
	run_acc_free(a);
	/* a run given up before store leaves nothing */
	a = run_acc_new(RUN_CAPTURE);
	CHECK_EQ(run_acc_keep_events(a, db, err, sizeof(err)), 0);
	{
		struct run_op o = op(RIOT_SYS_read, 0, 7, 1);

		run_acc_op(a, &o);
	}
	run_acc_free(a);
	h = report_db_open_ro(db, err, sizeof(err));
	CHECK(h != NULL);
	if (!h)
		return;
	CHECK_U64(q1(h, "SELECT count(*) FROM runs"), 1);
	CHECK_U64(q1(h, "SELECT count(*) FROM events"), 1000);
	CHECK_U64(q1(h, "SELECT count(*) FROM events e JOIN syscall_names n ON n.id = e.sys "
		      "WHERE n.name = 'read'"), 500);
	CHECK_U64(q1(h, "SELECT events_kept FROM runs"), 1);
	sqlite3_close(h);
}

/* Operations years apart, or at the end of the clock, cost one timeline row
 * each: the per-second table holds the seconds with operations, not the
 * span. A return of INT64_MIN is an error with no errno of its own. */
static void test_timeline_span(void)
{
	const char *db = db_path("span.db");
	struct run_acc *a = run_acc_new(RUN_CAPTURE);
	struct run_meta meta = { .kind = RUN_CAPTURE, .label = "span" };
	char err[512] = "";
	int64_t id;
	sqlite3 *h;
	struct run_op o;

	o = op(RIOT_SYS_read, 1000, 10, 4096);
	run_acc_op(a, &o);
	o = op(RIOT_SYS_read, 94608000000000000ull, 10, 4096);	/* 3 years later */
	run_acc_op(a, &o);
	o = op(RIOT_SYS_openat, UINT64_MAX - 100, 10, INT64_MIN);	/* end of the clock */
	run_acc_op(a, &o);
	CHECK_EQ(run_acc_store(a, db, &meta, NULL, &id, err, sizeof(err)), 0);
	if (err[0])
		fprintf(stderr, "store: %s\n", err);
	run_acc_free(a);
	h = report_db_open_ro(db, err, sizeof(err));
	CHECK(h != NULL);
	if (!h)
		return;
	CHECK_U64(q1(h, "SELECT count(*) FROM timeline"), 3);
	CHECK_U64(q1(h, "SELECT ops FROM timeline WHERE second = 94608000 AND class = 'data_read'"), 1);
	CHECK_U64(q1(h, "SELECT ops FROM timeline WHERE second = 18446744073 AND class = 'metadata'"), 1);
	CHECK_U64(q1(h, "SELECT errors FROM runs"), 1);
	sqlite3_close(h);
}

/* Throughput buckets follow the span: 10 us wide up to 2.56 ms, then
 * merged in pairs as often as needed (10 ms: 40 us), every op kept. */
static void test_rate_buckets(void)
{
	const char *db = db_path("rates.db");
	struct run_acc *a = run_acc_new(RUN_REPLAY), *b = run_acc_new(RUN_REPLAY);
	struct run_meta ma = { .kind = RUN_REPLAY, .label = "long", .complete = 1 };
	struct run_meta mb = { .kind = RUN_REPLAY, .label = "short", .complete = 1 };
	char err[512] = "";
	sqlite3 *h;

	/* long: 101 reads completing every 100 us, 0..10 ms; short: 20 reads
	 * completing every 50 us, 0..950 us, and a stat (metadata) */
	for (unsigned i = 0; i <= 100; i++) {
		struct run_op o = op(RIOT_SYS_read, i * 100000ull, 0, 4096);

		run_acc_op(a, &o);
	}
	for (unsigned i = 0; i < 20; i++) {
		struct run_op o = op(RIOT_SYS_read, i * 50000ull, 0, 100);

		run_acc_op(b, &o);
	}
	{
		struct run_op o = op(RIOT_SYS_newfstatat, 5000, 1000, 0);

		run_acc_op(b, &o);
	}
	CHECK_EQ(run_acc_store(a, db, &ma, NULL, NULL, err, sizeof(err)), 0);
	CHECK_EQ(run_acc_store(b, db, &mb, NULL, NULL, err, sizeof(err)), 0);
	if (err[0])
		fprintf(stderr, "store: %s\n", err);
	run_acc_free(a);
	run_acc_free(b);
	h = report_db_open_ro(db, err, sizeof(err));
	CHECK(h != NULL);
	if (!h)
		return;
	CHECK_U64(q1(h, "SELECT DISTINCT width_ns FROM rates r JOIN runs u ON u.id = r.run_id "
		      "WHERE u.label = 'long'"), 40000);
	CHECK_U64(q1(h, "SELECT sum(r.ops) FROM rates r JOIN runs u ON u.id = r.run_id "
		      "WHERE u.label = 'long'"), 101);
	CHECK_U64(q1(h, "SELECT sum(bytes) FROM rates r JOIN runs u ON u.id = r.run_id "
		      "WHERE u.label = 'long'"), 101 * 4096);
	/* one read a bucket: 100 us apart; the last at 10 ms, bucket 250 */
	CHECK_U64(q1(h, "SELECT count(*) FROM rates r JOIN runs u ON u.id = r.run_id "
		      "WHERE u.label = 'long'"), 101);
	CHECK_U64(q1(h, "SELECT r.ops FROM rates r JOIN runs u ON u.id = r.run_id "
		      "WHERE u.label = 'long' AND t_ns = 10000000"), 1);
	CHECK_U64(q1(h, "SELECT DISTINCT width_ns FROM rates r JOIN runs u ON u.id = r.run_id "
		      "WHERE u.label = 'short'"), 10000);
	CHECK_U64(q1(h, "SELECT count(*) FROM rates r JOIN runs u ON u.id = r.run_id "
		      "WHERE u.label = 'short'"), 20);
	/* the stat completes at 6 us, with the read of 0 us: bucket 0 */
	CHECK_U64(q1(h, "SELECT r.ops FROM rates r JOIN runs u ON u.id = r.run_id "
		      "WHERE u.label = 'short' AND t_ns = 0"), 2);
	sqlite3_close(h);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_compare_arithmetic();
	test_percentiles();
	test_tables();
	test_file_counts();
	test_labels_and_errors();
	test_events();
	test_timeline_span();
	test_rate_buckets();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return unit_done();
}
