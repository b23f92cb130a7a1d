/* report/view.c: loading runs back from a report database. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/log.h"
#include "lib/grow.h"
#include "report/columns.h"
#include "report/report_int.h"
#include "report/view.h"

const char *const view_class_names[VIEW_CLASSES] = {
	"data_read", "data_write", "sync", "metadata", "all",
};

static char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? strdup((const char *)s) : NULL;
}

static uint64_t col_u64(sqlite3_stmt *st, int i)
{
	return (uint64_t)sqlite3_column_int64(st, i);
}

static int prep(sqlite3 *db, const char *sql, sqlite3_stmt **st, char *err, size_t errlen)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK)
		return 0;
	snprintf(err, errlen, "%s: %s", sqlite3_db_filename(db, "main"), sqlite3_errmsg(db));
	return -EIO;
}

int view_run_ids(sqlite3 *db, int64_t **ids, unsigned *n)
{
	sqlite3_stmt *st;
	unsigned cap = 0;
	int64_t *v = NULL;

	*n = 0;
	if (sqlite3_prepare_v2(db, "SELECT id FROM runs ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (GROW(v, cap, (size_t)*n + 1, 16) < 0) {
			free(v);
			sqlite3_finalize(st);
			return -ENOMEM;
		}
		v[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	*ids = v;
	return 0;
}

int view_find_run(sqlite3 *db, const char *db_path, const char *spec, int64_t *id,
		  char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc;

	rc = prep(db, "SELECT id FROM runs WHERE label = ?1 OR CAST(id AS TEXT) = ?1 "
		  "ORDER BY label = ?1 DESC LIMIT 1", &st, err, errlen);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, spec, -1, SQLITE_STATIC);
	rc = -ENOENT;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		rc = 0;
	} else {
		snprintf(err, errlen, "%s: no run '%s' (riot report show %s lists them)",
			 db_path, spec, db_path);
	}
	sqlite3_finalize(st);
	return rc;
}

/* Reading a column's value by its type (RUN_COLUMNS). */
static char *load_RC_TEXT(sqlite3_stmt *st, int i)
{
	return col_str(st, i);
}

static uint64_t load_RC_U64(sqlite3_stmt *st, int i)
{
	return col_u64(st, i);
}

static int64_t load_RC_OPT(sqlite3_stmt *st, int i)
{
	return sqlite3_column_int64(st, i);
}

static double load_RC_REAL(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_double(st, i);
}

static int64_t load_RC_FLAG(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

#define COL_NAME(name, ...) #name,
static const char *const run_col_names[] = { RUN_COLUMNS(COL_NAME) };
#define RUN_NCOLS (sizeof(run_col_names) / sizeof(run_col_names[0]))

/* SELECT of every column of RUN_COLUMNS: NULL for those an older report
 * lacks (it is read as it is). */
static int run_select(sqlite3 *db, char *sql, size_t len, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	size_t n = (size_t)snprintf(sql, len, "SELECT ");
	int rc = prep(db, "SELECT 1 FROM pragma_table_info('runs') WHERE name = ?", &st, err,
		      errlen);

	if (rc)
		return rc;
	for (size_t c = 0; c < RUN_NCOLS && n < len; c++) {
		sqlite3_bind_text(st, 1, run_col_names[c], -1, SQLITE_STATIC);
		n += (size_t)snprintf(sql + n, len - n, "%s, ", sqlite3_step(st) == SQLITE_ROW ?
				      run_col_names[c] : "NULL");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (n < len)
		n += (size_t)snprintf(sql + n, len - n, "id FROM runs WHERE id = ?");
	return n < len ? 0 : -E2BIG;
}

#define LOAD_COL(name, type, ...) v->name = load_##type(st, i++);

static void load_run_row(sqlite3_stmt *st, struct run_view *v)
{
	int i = 0;

	RUN_COLUMNS(LOAD_COL)
}

static void load_div(struct sys_view *s, const char *div)
{
	static const char *const kinds[4] = { "result=", "bytes=", "skipped=", "other=" };

	for (unsigned k = 0; div && k < 4; k++) {
		const char *p = strstr(div, kinds[k]);

		if (p)
			s->div[k] = strtoull(p + strlen(kinds[k]), NULL, 10);
	}
}

/* load_syscalls()'s SELECT: the syscalls columns, then these. */
enum { SYS_SEL_DIVERGENCES = SYSCALL_NCOLS, SYS_SEL_NAME };

/* A syscalls row, read by its columns (columns.h). */
static void load_sys_row(sqlite3_stmt *st, struct sys_view *s)
{
	s->name = col_str(st, SYS_SEL_NAME);
	s->cls = col_str(st, SYSCALL_COL_class);
	if (!s->cls && s->name) {
		const struct riot_sys_info *si = riot_sys_info((unsigned)riot_sys_by_name(s->name));

		s->cls = strdup(riot_class_name(si ? si->cls : ~0u));
	}
	s->count = col_u64(st, SYSCALL_COL_count);
	s->errors = col_u64(st, SYSCALL_COL_errors);
	s->bytes = col_u64(st, SYSCALL_COL_bytes);
	s->lat_sum = col_u64(st, SYSCALL_COL_lat_sum_ns);
	s->mean = sqlite3_column_double(st, SYSCALL_COL_lat_mean_ns);
	s->lat_min = col_u64(st, SYSCALL_COL_lat_min_ns);
	s->p50 = col_u64(st, SYSCALL_COL_lat_p50_ns);
	s->p90 = col_u64(st, SYSCALL_COL_lat_p90_ns);
	s->p99 = col_u64(st, SYSCALL_COL_lat_p99_ns);
	s->p999 = col_u64(st, SYSCALL_COL_lat_p999_ns);
	s->lat_max = col_u64(st, SYSCALL_COL_lat_max_ns);
	s->delay_count = col_u64(st, SYSCALL_COL_delay_count);
	s->delay_p50 = col_u64(st, SYSCALL_COL_delay_p50_ns);
	s->delay_p99 = col_u64(st, SYSCALL_COL_delay_p99_ns);
	s->delay_max = col_u64(st, SYSCALL_COL_delay_max_ns);
	load_div(s, (const char *)sqlite3_column_text(st, SYS_SEL_DIVERGENCES));
}

static int load_syscalls(struct run_view *v, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	unsigned cap = 0;
	char cols[2048], sql[3072];
	/* a syscall none of whose ops was issued (all skipped) has no
	 * syscalls row: it comes from its divergences, every column NULL
	 * (count 0); after the columns, its divergences and its name */
	int rc = columns_select(v->db, &column_syscalls, "s", cols, sizeof(cols));

	if (!rc && (size_t)snprintf(sql, sizeof(sql), "SELECT %s, (SELECT group_concat(kind || "
				    "'=' || count) FROM divergences d WHERE d.run_id = ?1 AND "
				    "d.sys = n.sys), n.sys FROM (SELECT sys FROM syscalls WHERE "
				    "run_id = ?1 UNION SELECT sys FROM divergences WHERE run_id = ?1) "
				    "n LEFT JOIN syscalls s ON s.run_id = ?1 AND s.sys = n.sys "
				    "ORDER BY coalesce(s.count, 0) DESC, n.sys", cols) >= sizeof(sql))
		rc = -E2BIG;
	if (rc) {
		snprintf(err, errlen, "%s: cannot read its syscalls", v->db_path);
		return rc;
	}
	rc = prep(v->db, sql, &st, err, errlen);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, v->id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct sys_view *s;

		if (GROW(v->sys, cap, (size_t)v->nsys + 1, 32) < 0) {
			sqlite3_finalize(st);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		s = &v->sys[v->nsys++];
		memset(s, 0, sizeof(*s));
		load_sys_row(st, s);
	}
	sqlite3_finalize(st);
	return 0;
}

static void class_shares(struct run_view *v)
{
	const struct class_view *all = &v->cls[VIEW_CLASSES - 1];
	double total = (double)all->lat_sum + (double)all->gap_sum;

	for (unsigned k = 0; k < VIEW_CLASSES; k++)
		v->cls[k].think_share = total > 0 && v->cls[k].gap_count ?
			(double)v->cls[k].gap_sum / total : NAN;
}

/* A classes row, read by its columns (columns.h). */
static void load_class_row(sqlite3_stmt *st, struct class_view *c)
{
	c->count = col_u64(st, CLASS_COL_count);
	c->errors = col_u64(st, CLASS_COL_errors);
	c->bytes = col_u64(st, CLASS_COL_bytes);
	c->lat_sum = col_u64(st, CLASS_COL_lat_sum_ns);
	c->p50 = col_u64(st, CLASS_COL_lat_p50_ns);
	c->p90 = col_u64(st, CLASS_COL_lat_p90_ns);
	c->p99 = col_u64(st, CLASS_COL_lat_p99_ns);
	c->p999 = col_u64(st, CLASS_COL_lat_p999_ns);
	c->lat_max = col_u64(st, CLASS_COL_lat_max_ns);
	c->gap_count = col_u64(st, CLASS_COL_gap_count);
	c->gap_sum = col_u64(st, CLASS_COL_gap_sum_ns);
	c->gap_p50 = col_u64(st, CLASS_COL_gap_p50_ns);
	c->gap_p99 = col_u64(st, CLASS_COL_gap_p99_ns);
}

static int load_classes(struct run_view *v, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	char cols[2048], sql[2560];
	/* an older report lacks the gap columns: they read as NULL */
	int rc = columns_select(v->db, &column_classes, "c", cols, sizeof(cols));

	if (!rc && (size_t)snprintf(sql, sizeof(sql), "SELECT %s FROM classes c WHERE "
				    "run_id = ?", cols) >= sizeof(sql))
		rc = -E2BIG;
	if (rc) {
		snprintf(err, errlen, "%s: cannot read its classes", v->db_path);
		return rc;
	}
	rc = prep(v->db, sql, &st, err, errlen);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, v->id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, CLASS_COL_class);

		for (unsigned k = 0; name && k < VIEW_CLASSES; k++)
			if (strcmp(name, view_class_names[k]) == 0)
				load_class_row(st, &v->cls[k]);
	}
	class_shares(v);
	sqlite3_finalize(st);
	return 0;
}

int view_stacks(const struct run_view *v, struct stack_folded **out, size_t *n)
{
	struct stack_folded *a = NULL;
	size_t len = 0, cap = 0;
	sqlite3_stmt *st;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (columns_prepare(v->db, &column_stacks, "WHERE run_id = ? ORDER BY count DESC, stack",
			    &st))
		return 0;	/* an older report: no stacks */
	sqlite3_bind_int64(st, 1, v->id);
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(st, STACK_COL_stack);

		if (GROW(a, cap, len + 1, 64) < 0 || !(a[len].stack = strdup(s ? s : ""))) {
			rc = -ENOMEM;
			break;
		}
		a[len].w[STACK_COUNT] = col_u64(st, STACK_COL_count);
		a[len].w[STACK_TIME] = col_u64(st, STACK_COL_time_ns);
		a[len].w[STACK_BYTES] = col_u64(st, STACK_COL_bytes);
		len++;
	}
	sqlite3_finalize(st);
	if (rc) {
		stacks_folded_free(a, len);
		return rc;
	}
	*out = a;
	*n = len;
	return 0;
}

int view_load(sqlite3 *db, const char *db_path, int64_t id, struct run_view *v,
	      char *err, size_t errlen)
{
	char sql[2048];
	sqlite3_stmt *st;
	int rc;

	memset(v, 0, sizeof(*v));
	v->db = db;
	v->db_path = db_path;
	v->id = id;
	rc = run_select(db, sql, sizeof(sql), err, errlen);
	if (!rc)
		rc = prep(db, sql, &st, err, errlen);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		snprintf(err, errlen, "%s: no run %lld", db_path, (long long)id);
		return -ENOENT;
	}
	load_run_row(st, v);
	sqlite3_finalize(st);
	rc = load_syscalls(v, err, errlen);
	if (!rc)
		rc = load_classes(v, err, errlen);
	return rc;
}

static void free_RC_TEXT(char **s)
{
	free(*s);
	*s = NULL;
}

#define FREE_COL(name, type, ...) type##_FREE(&v->name)
#define RC_TEXT_FREE(p) free_RC_TEXT(p);
#define RC_U64_FREE(p)
#define RC_OPT_FREE(p)
#define RC_REAL_FREE(p)
#define RC_FLAG_FREE(p)

int view_load_shards(struct run_view *v, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	unsigned cap = 0;
	int rc = 0;

	/* a report older than fleet_id has no column to ask: no shards */
	if (sqlite3_prepare_v2(v->db, "SELECT id FROM runs WHERE fleet_id = ? ORDER BY id", -1,
			       &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, v->id);
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		if (v->nshards == cap) {
			struct run_view *n = realloc(v->shards, (cap ? cap * 2 : 8) * sizeof(*n));

			if (!n) {
				snprintf(err, errlen, "out of memory");
				rc = -ENOMEM;
				break;
			}
			v->shards = n;
			cap = cap ? cap * 2 : 8;
		}
		memset(&v->shards[v->nshards], 0, sizeof(v->shards[0]));
		rc = view_load(v->db, v->db_path, sqlite3_column_int64(st, 0),
			       &v->shards[v->nshards], err, errlen);
		if (!rc)
			v->nshards++;
		else
			view_free(&v->shards[v->nshards]);
	}
	sqlite3_finalize(st);
	return rc;
}

void view_free(struct run_view *v)
{
	for (unsigned i = 0; i < v->nshards; i++)
		view_free(&v->shards[i]);
	free(v->shards);
	v->shards = NULL;
	v->nshards = 0;
	RUN_COLUMNS(FREE_COL)
	for (unsigned i = 0; i < v->nsys; i++) {
		free(v->sys[i].name);
		free(v->sys[i].cls);
	}
	free(v->sys);
	v->sys = NULL;
	v->nsys = 0;
}

const struct sys_view *view_sys(const struct run_view *v, const char *name)
{
	for (unsigned i = 0; i < v->nsys; i++)
		if (strcmp(v->sys[i].name, name) == 0)
			return &v->sys[i];
	return NULL;
}

bool view_same_log(const struct run_view *runs, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!runs[i].trace_sha256 || !runs[0].trace_sha256 ||
		    strcmp(runs[i].trace_sha256, runs[0].trace_sha256) != 0)
			return false;
	return true;
}

bool view_is_replay(const struct run_view *v)
{
	return v->kind && strcmp(v->kind, "replay") == 0;
}

int view_hist(const struct run_view *v, const char *sys, const char *metric, struct hist *h)
{
	const struct sys_view *s = view_sys(v, sys);
	bool lat = strcmp(metric, "latency") == 0;
	sqlite3_stmt *st;

	hist_init(h);
	if (columns_prepare(v->db, &column_histograms, "WHERE run_id = ? AND sys = ? AND "
			    "metric = ?", &st))
		return -EIO;
	sqlite3_bind_int64(st, 1, v->id);
	sqlite3_bind_text(st, 2, sys, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, metric, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t b = sqlite3_column_int64(st, HISTOGRAM_COL_bucket);
		uint64_t n = col_u64(st, HISTOGRAM_COL_count);

		if (b < 0 || b >= HIST_BUCKETS)
			continue;
		h->b[b] += n;
		h->count += n;
		if (hist_bucket_low((unsigned)b) < h->min)
			h->min = hist_bucket_low((unsigned)b);
		if (hist_bucket_high((unsigned)b) > h->max || h->max == 0)
			h->max = hist_bucket_high((unsigned)b);
	}
	sqlite3_finalize(st);
	if (s && lat && h->count) {
		h->sum = s->lat_sum;
		h->min = s->lat_min;
		h->max = s->lat_max;
	} else if (s && !lat && h->count) {
		h->max = s->delay_max;
	}
	return 0;
}

int view_timeline(const struct run_view *v, uint64_t **ops, uint64_t **bytes,
		  uint64_t **p99, unsigned *n, uint64_t *width)
{
	sqlite3_stmt *st;
	uint64_t secs = v->duration_ns / 1000000000u + 1;
	uint64_t w = (secs + VIEW_TIMELINE_POINTS - 1) / VIEW_TIMELINE_POINTS;
	uint64_t points = (secs + w - 1) / w;
	int rc = -ENOMEM;

	*n = 0;
	*width = w;
	*ops = calloc(points, sizeof(**ops));
	*bytes = calloc(points, sizeof(**bytes));
	*p99 = calloc(points, sizeof(**p99));
	if (!*ops || !*bytes || !*p99)
		goto fail;
	rc = -EIO;
	if (columns_prepare(v->db, &column_timeline, "WHERE run_id = ?", &st))
		goto fail;
	sqlite3_bind_int64(st, 1, v->id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t s = sqlite3_column_int64(st, TIMELINE_COL_second);
		uint64_t p = col_u64(st, TIMELINE_COL_lat_p99_ns);

		if (s < 0 || (uint64_t)s >= secs)
			continue;
		(*ops)[(uint64_t)s / w] += col_u64(st, TIMELINE_COL_ops);
		(*bytes)[(uint64_t)s / w] += col_u64(st, TIMELINE_COL_bytes);
		if (p > (*p99)[(uint64_t)s / w])
			(*p99)[(uint64_t)s / w] = p;
	}
	sqlite3_finalize(st);
	if (w > 1)
		for (uint64_t i = 0; i < points; i++) {
			(*ops)[i] /= w;
			(*bytes)[i] /= w;
		}
	*n = (unsigned)points;
	return 0;
fail:
	free(*ops);
	free(*bytes);
	free(*p99);
	*ops = *bytes = *p99 = NULL;
	return rc;
}

/* Whether syscall i of v belongs to class k (view_class_names[k]; "all"
 * takes every one) and, when common, is one every compared run made. */
static bool in_class(const struct run_view *v, unsigned i, unsigned k, bool common)
{
	int id = riot_sys_by_name(v->sys[i].name);
	const struct riot_sys_info *si = id >= 0 ? riot_sys_info((unsigned)id) : NULL;

	if (!si || (k < TL_COUNT && tl_class_of(si->cls) != (int)k))
		return false;
	return !common || !v->sys[i].left_out;
}

static int class_hist(const struct run_view *v, unsigned k, bool common, struct hist *h)
{
	struct hist *one = malloc(sizeof(*one));

	if (!one)
		return -ENOMEM;
	hist_init(h);
	for (unsigned i = 0; i < v->nsys; i++)
		if (in_class(v, i, k, common) &&
		    view_hist(v, v->sys[i].name, "latency", one) == 0 && one->count)
			hist_merge(h, one);
	free(one);
	return 0;
}

int view_class_hist(const struct run_view *v, unsigned k, struct hist *h)
{
	return class_hist(v, k, v->cls_common, h);
}

/* A syscall every run made and timed: a replay leaves out calls it does
 * not issue, a capture's page faults have no duration (a replay's call
 * may time at 0 ns, quicker than the clock's own cost: it was made). */
static bool made_by_all(const struct run_view *runs, unsigned n, const char *name)
{
	for (unsigned r = 0; r < n; r++) {
		const struct sys_view *s = view_sys(&runs[r], name);

		if (!s || !s->count || (!s->lat_sum && !view_is_replay(&runs[r])))
			return false;
	}
	return true;
}

int view_common_classes(struct run_view *runs, unsigned n)
{
	struct hist *h = malloc(sizeof(*h));
	int left = 0, rc = 0;

	if (!h)
		return -ENOMEM;
	bool replays = false;
	for (unsigned r = 0; r < n; r++)
		replays |= view_is_replay(&runs[r]);
	for (unsigned r = 0; r < n && replays; r++)
		for (unsigned i = 0; i < runs[r].nsys; i++) {
			runs[r].sys[i].left_out = !made_by_all(runs, n, runs[r].sys[i].name);
			left += runs[r].sys[i].left_out;
		}
	for (unsigned r = 0; r < n && left && !rc; r++) {
		struct run_view *v = &runs[r];

		v->cls_common = true;
		for (unsigned k = 0; k < VIEW_CLASSES && !rc; k++) {
			struct class_view *c = &v->cls[k];

			*c = (struct class_view){ 0 };
			for (unsigned i = 0; i < v->nsys; i++)
				if (in_class(v, i, k, true)) {
					c->count += v->sys[i].count;
					c->errors += v->sys[i].errors;
					c->bytes += v->sys[i].bytes;
				}
			if (!c->count || (rc = class_hist(v, k, true, h)) < 0)
				continue;
			c->lat_sum = h->sum;
			c->p50 = hist_quantile(h, 0.50);
			c->p90 = hist_quantile(h, 0.90);
			c->p99 = hist_quantile(h, 0.99);
			c->p999 = hist_quantile(h, 0.999);
			c->lat_max = h->max;
		}
	}
	free(h);
	return rc < 0 ? rc : left;
}

/* The timeline's seconds as rates, for runs stored without rates. */
static int rates_of_timeline(const struct run_view *v, double **ops, double **bytes,
			     unsigned *n, uint64_t *width_ns)
{
	uint64_t *o, *b, *p99, w;
	int rc = view_timeline(v, &o, &b, &p99, n, &w);

	if (rc)
		return rc;
	*ops = malloc(sizeof(**ops) * (*n ? *n : 1));
	*bytes = malloc(sizeof(**bytes) * (*n ? *n : 1));
	if (*ops && *bytes)
		for (unsigned i = 0; i < *n; i++) {
			(*ops)[i] = (double)o[i];
			(*bytes)[i] = (double)b[i];
		}
	else
		rc = -ENOMEM;
	*width_ns = w * 1000000000u;
	free(o);
	free(b);
	free(p99);
	return rc;
}

int view_rates(const struct run_view *v, double **ops, double **bytes, unsigned *n,
	       uint64_t *width_ns)
{
	uint64_t w = 0, end = v->duration_ns;
	sqlite3_stmt *st;
	unsigned k;

	*ops = *bytes = NULL;
	*n = 0;
	if (columns_prepare(v->db, &column_rates, "WHERE run_id = ? ORDER BY t_ns", &st))
		return rates_of_timeline(v, ops, bytes, n, width_ns);
	sqlite3_bind_int64(st, 1, v->id);
	*ops = calloc(RUN_RATE_BUCKETS, sizeof(**ops));
	*bytes = calloc(RUN_RATE_BUCKETS, sizeof(**bytes));
	if (!*ops || !*bytes) {
		sqlite3_finalize(st);
		free(*ops);
		free(*bytes);
		*ops = *bytes = NULL;
		return -ENOMEM;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint64_t t = col_u64(st, RATE_COL_t_ns), rw = col_u64(st, RATE_COL_width_ns);

		if (!w)
			w = rw;
		if (!rw || rw != w || t / w >= RUN_RATE_BUCKETS)
			continue;	/* not written by riot */
		(*ops)[t / w] = (double)col_u64(st, RATE_COL_ops) * 1e9 / (double)w;
		(*bytes)[t / w] = (double)col_u64(st, RATE_COL_bytes) * 1e9 / (double)w;
		if (t + w > end)
			end = t + w;
	}
	sqlite3_finalize(st);
	if (!w) {
		free(*ops);
		free(*bytes);
		return rates_of_timeline(v, ops, bytes, n, width_ns);
	}
	k = (unsigned)((end + w - 1) / w);
	*n = k < RUN_RATE_BUCKETS ? k : RUN_RATE_BUCKETS;
	*width_ns = w;
	return 0;
}

double view_rate(uint64_t n, uint64_t duration_ns)
{
	return duration_ns ? (double)n * 1e9 / (double)duration_ns : 0;
}
