/* report/merge.c: `riot report merge A.db B.db ... -o ALL.db`: the runs of
 * several reports (one per client of a fleet) in one new report, each
 * under a unique label, plus a fleet run that sums them.
 *
 * The fleet run sums the replays among the runs (the captures when there
 * is no replay) that no fleet holds yet: a merged report's fleet runs and
 * their members (runs.fleet_id) are copied as they are, so a merge of
 * merges counts nothing twice and keeps each fleet apart (this storage's
 * beside that one's); it makes no new fleet when every run is in one. Exact: ops, errors, bytes, busy
 * time, per syscall counts, errors, bytes and latency histograms (buckets
 * add, so its percentiles are those of every operation of every run),
 * per class (merged from the syscalls' histograms, as for any run), per
 * path, per pid, per errno, divergences. Aligned on the wall clock (each
 * run's start_unix_ns): its start is the earliest start, its duration
 * reaches the latest end, and its timeline and rates put each run's
 * seconds and buckets where they fell in that span (a rate bucket of a run
 * counts whole in the fleet bucket where it starts). A second's p99 in
 * the fleet's timeline is the largest of the runs' p99s for it: an upper
 * bound, as the runs' latencies of that second are not kept. Divergence
 * samples stay with their runs; a device counts once per host (the most
 * one run of the host saw), its write amplification over the fleet's
 * bytes written. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/log.h"
#include "report/columns.h"
#include "report/report_int.h"
#include "lib/cli.h"

#define MERGE_MAX_INPUTS 4096
/* run_id tables copied row by row; 'runs' is written apart */
#define FLEET_SET "(SELECT id FROM temp.fleet_src)"

struct merge {
	sqlite3 *db;
	char err[PATH_MAX + 512];
	int rc;
};

/* Records the first SQLite error of db in m. */
static int sql_fail(struct merge *m)
{
	if (!m->rc) {
		snprintf(m->err, sizeof(m->err), "%s", sqlite3_errmsg(m->db));
		m->rc = -EIO;
	}
	return m->rc;
}

static int exec(struct merge *m, const char *sql)
{
	if (m->rc)
		return m->rc;
	if (sqlite3_exec(m->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return sql_fail(m);
	return 0;
}

static sqlite3_stmt *prep(struct merge *m, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (!m->rc && sqlite3_prepare_v2(m->db, sql, -1, &st, NULL) != SQLITE_OK)
		sql_fail(m);
	return st;
}

/* Steps st to its end. */
static void run_stmt(struct merge *m, sqlite3_stmt *st)
{
	if (st && !m->rc && sqlite3_step(st) != SQLITE_DONE)
		sql_fail(m);
	sqlite3_finalize(st);
}

/* ---- copying the runs ---- */

/* The columns of table in schema, as "a","b",... of both main and src
 * (an older source lacks newer columns: they stay NULL). */
static int common_columns(struct merge *m, const char *table, char *out, size_t len,
			  bool *has_run_id)
{
	sqlite3_stmt *st = prep(m, "SELECT name FROM pragma_table_info(?1, 'main') "
				"WHERE name IN (SELECT name FROM pragma_table_info(?1, 'src')) "
				"AND name NOT IN ('id', 'label')");
	size_t n = 0;

	*out = '\0';
	*has_run_id = false;
	if (!st)
		return m->rc;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);

		if (strcmp(c, "run_id") == 0) {
			*has_run_id = true;
			continue;
		}
		n += (size_t)snprintf(out + n, len > n ? len - n : 0, ",\"%s\"", c);
	}
	sqlite3_finalize(st);
	if (n >= len) {
		snprintf(m->err, sizeof(m->err), "table %s has too many columns", table);
		return m->rc = -E2BIG;
	}
	return 0;
}

/* label@tag, or label@tag-2, -3... when taken. */
static int unique_label(struct merge *m, const char *want, char *out, size_t len)
{
	sqlite3_stmt *st = prep(m, "SELECT 1 FROM runs WHERE label = ?");

	if (!st)
		return m->rc;
	snprintf(out, len, "%s", want);
	for (unsigned i = 2; ; i++) {
		int taken;

		sqlite3_bind_text(st, 1, out, -1, SQLITE_STATIC);
		taken = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_reset(st);
		if (!taken)
			break;
		snprintf(out, len, "%s-%u", want, i);
	}
	sqlite3_finalize(st);
	return 0;
}

/* The tables other than runs that hold rows of a run (run_id). */
static const char *const run_tables[] = {
	"syscalls", "classes", "histograms", "files", "processes", "timeline", "rates",
	"errors", "divergences", "divergence_samples", "filesystems", "events", "devices",
	"device_depth", "stacks",
};

static bool src_has_table(struct merge *m, const char *table)
{
	sqlite3_stmt *st = prep(m, "SELECT 1 FROM src.sqlite_master WHERE type = 'table' "
				"AND name = ?");
	bool has;

	if (!st)
		return false;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	has = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return has;
}

/* Copies run old of src as a new run labelled label; its rows in every
 * table follow it. */
static int copy_run(struct merge *m, int64_t old, const char *label)
{
	char cols[4096], sql[9000];
	sqlite3_stmt *st;
	int64_t id;
	bool has;

	if (common_columns(m, "runs", cols, sizeof(cols), &has))
		return m->rc;
	snprintf(sql, sizeof(sql), "INSERT INTO main.runs (label%s) SELECT ?1%s FROM src.runs "
		 "WHERE id = ?2", cols, cols);
	if (!(st = prep(m, sql)))
		return m->rc;
	sqlite3_bind_text(st, 1, label, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, old);
	run_stmt(m, st);
	id = sqlite3_last_insert_rowid(m->db);
	for (size_t t = 0; !m->rc && t < sizeof(run_tables) / sizeof(run_tables[0]); t++) {
		if (!src_has_table(m, run_tables[t]))
			continue;
		if (common_columns(m, run_tables[t], cols, sizeof(cols), &has) || !has)
			continue;
		snprintf(sql, sizeof(sql), "INSERT INTO main.%s (run_id%s) SELECT ?1%s FROM "
			 "src.%s WHERE run_id = ?2", run_tables[t], cols, cols, run_tables[t]);
		if (!(st = prep(m, sql)))
			break;
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, old);
		run_stmt(m, st);
	}
	if ((st = prep(m, "INSERT INTO temp.idmap VALUES (?1, ?2)"))) {
		sqlite3_bind_int64(st, 1, old);
		sqlite3_bind_int64(st, 2, id);
	}
	run_stmt(m, st);
	return m->rc;
}

/* After a source's runs are copied (temp.idmap: their ids there and
 * here): their fleet_id names the fleet's new id; a source older than
 * fleet_id with one fleet run had every other run of its kind in it. Then
 * the runs in no fleet are the new fleet's candidates. */
static const char *const after_source[] = {
	"UPDATE main.runs SET fleet_id = (SELECT new FROM temp.idmap WHERE old = "
	"main.runs.fleet_id) WHERE id IN (SELECT new FROM temp.idmap) AND fleet_id IS NOT NULL",
	"UPDATE main.runs SET fleet_id = (SELECT id FROM main.runs WHERE fleet_runs IS NOT NULL "
	"AND id IN (SELECT new FROM temp.idmap)) WHERE id IN (SELECT new FROM temp.idmap) AND "
	"fleet_runs IS NULL AND NOT EXISTS (SELECT 1 FROM pragma_table_info('runs', 'src') "
	"WHERE name = 'fleet_id') AND kind = (SELECT kind FROM main.runs WHERE fleet_runs IS NOT "
	"NULL AND id IN (SELECT new FROM temp.idmap)) AND (SELECT count(*) FROM main.runs WHERE "
	"fleet_runs IS NOT NULL AND id IN (SELECT new FROM temp.idmap)) = 1",
	"INSERT INTO temp.fleet_src SELECT id, kind FROM main.runs WHERE id IN (SELECT new FROM "
	"temp.idmap) AND fleet_runs IS NULL AND fleet_id IS NULL",
	"DELETE FROM temp.idmap",
};

/* "dir/host1.db" -> "host1" */
static void source_tag(const char *path, char *out, size_t len)
{
	char buf[PATH_MAX];
	char *b, *dot;

	snprintf(buf, sizeof(buf), "%s", path);
	b = basename(buf);
	dot = strrchr(b, '.');
	if (dot && dot != b)
		*dot = '\0';
	snprintf(out, len, "%s", b);
}

static int copy_source(struct merge *m, const char *path)
{
	sqlite3_stmt *st, *runs;
	char tag[256], want[1024], label[1100];

	if (!(st = prep(m, "ATTACH DATABASE ?1 AS src")))
		return m->rc;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	run_stmt(m, st);
	source_tag(path, tag, sizeof(tag));
	/* a transaction per source: SQLite attaches and detaches outside
	 * one; a failed merge removes ALL.db anyway */
	exec(m, "BEGIN IMMEDIATE");
	runs = prep(m, "SELECT id, label FROM src.runs ORDER BY id");
	while (runs && !m->rc && sqlite3_step(runs) == SQLITE_ROW) {
		int64_t old = sqlite3_column_int64(runs, 0);

		snprintf(want, sizeof(want), "%s@%s", (const char *)sqlite3_column_text(runs, 1),
			 tag);
		if (unique_label(m, want, label, sizeof(label)) == 0)
			copy_run(m, old, label);
	}
	sqlite3_finalize(runs);
	for (size_t i = 0; i < sizeof(after_source) / sizeof(after_source[0]); i++)
		exec(m, after_source[i]);
	exec(m, "COMMIT");
	if (m->rc)
		snprintf(m->err + strlen(m->err), sizeof(m->err) - strlen(m->err), " (merging %s)",
			 path);
	if (m->rc)
		sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL);
	exec(m, "DETACH DATABASE src");
	return m->rc;
}

/* ---- the fleet run ---- */

/* One value when every run has the same, else NULL. */
#define ONE(c) "CASE WHEN count(DISTINCT " c ") = 1 AND count(" c ") = count(*) " \
	       "THEN min(" c ") END"
#define ALL_STARTS "count(start_unix_ns) = count(*)"

/* The fleet run's value of a column (RUN_COLUMNS' fleet), from its runs'. */
#define FLEET_ONE(c) ONE(#c)
#define FLEET_SUM(c) "sum(" #c ")"
#define FLEET_MIN(c) "min(" #c ")"
#define FLEET_MAX(c) "max(" #c ")"
#define FLEET_NONE(c) "NULL"
#define FLEET_ZERO(c) "0"
#define FLEET_COUNT(c) "count(*)"
#define FLEET_LABEL(c) "?1"
#define FLEET_CMDLINE(c) "?2"
#define FLEET_START(c) "CASE WHEN " ALL_STARTS " THEN min(start_unix_ns) END"
#define FLEET_DURATION(c) "CASE WHEN " ALL_STARTS " THEN max(start_unix_ns + duration_ns) - " \
	"min(start_unix_ns) ELSE max(duration_ns) END"
#define FLEET_COL(name, ...) ", " #name
#define FLEET_VALUE(name, type, when, value, fleet) ", " FLEET_##fleet(name)

static int64_t fleet_row(struct merge *m, const char *label, const char *cmdline)
{
	static const char sql[] =
		"INSERT INTO runs (created_unix" RUN_COLUMNS(FLEET_COL) ") "
		"SELECT strftime('%s','now')" RUN_COLUMNS(FLEET_VALUE)
		" FROM runs WHERE id IN " FLEET_SET;
	sqlite3_stmt *st = prep(m, sql);

	if (!st)
		return 0;
	sqlite3_bind_text(st, 1, label, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, cmdline, -1, SQLITE_STATIC);
	run_stmt(m, st);
	return m->rc ? 0 : sqlite3_last_insert_rowid(m->db);
}

/* The histogram (metric) of sys over the fleet's runs into h; the sum of
 * its buckets, which must be the runs' count. */
static uint64_t fleet_hist(struct merge *m, const char *sys, const char *metric,
			   struct hist *h)
{
	sqlite3_stmt *st = prep(m, "SELECT bucket, sum(count) FROM histograms WHERE sys = ?1 "
				"AND metric = ?2 AND run_id IN " FLEET_SET " GROUP BY bucket");
	uint64_t n = 0;

	if (st) {
		sqlite3_bind_text(st, 1, sys, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, metric, -1, SQLITE_STATIC);
	}
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		int64_t b = sqlite3_column_int64(st, 0), c = sqlite3_column_int64(st, 1);

		if (b < 0 || b >= HIST_BUCKETS || c < 0)
			continue;
		h->b[b] += (uint64_t)c;
		n += (uint64_t)c;
	}
	sqlite3_finalize(st);
	h->count = n;
	return n;
}

/* What a fleet's syscall is rebuilt from besides its runs' histograms:
 * (column of syscalls, how its runs' values make the fleet's). The fleet's
 * row is then stored from the rebuilt accumulator, as any run's is. */
#define FLEET_SYSCALL_SUMS(X) \
	X(count, sum) X(errors, sum) X(bytes, sum) X(lat_sum_ns, sum) X(lat_min_ns, min) \
	X(lat_max_ns, max) X(delay_count, sum) X(delay_max_ns, max)
#define FLEET_SYS_INDEX(name, agg) FLEET_SYS_##name,
#define FLEET_SYS_SELECT(name, agg) #agg "(" #name "), "
enum { FLEET_SYSCALL_SUMS(FLEET_SYS_INDEX) };

/* Per syscall: counts summed, histograms added bucket by bucket. */
static int fleet_syscalls(struct merge *m, struct run_acc *a, uint64_t *delay_p99)
{
	sqlite3_stmt *st = prep(m, "SELECT " FLEET_SYSCALL_SUMS(FLEET_SYS_SELECT) "1 FROM "
				"syscalls WHERE sys = ?1 AND run_id IN " FLEET_SET);
	struct hist *all_delay = calloc(1, sizeof(*all_delay));

	if (!all_delay) {
		snprintf(m->err, sizeof(m->err), "out of memory");
		m->rc = -ENOMEM;
	}
	hist_init(all_delay ? all_delay : &(struct hist){ 0 });
	for (unsigned i = 0; st && !m->rc && i < RIOT_SYS_COUNT; i++) {
		const char *name = riot_sys_info(i)->name;
		struct sys_acc *x;
		uint64_t count;

		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int64(st, FLEET_SYS_count) <= 0) {
			sqlite3_reset(st);
			continue;
		}
		x = a->sys[i] = calloc(1, sizeof(*x));
		if (!x) {
			snprintf(m->err, sizeof(m->err), "out of memory");
			m->rc = -ENOMEM;
			break;
		}
		hist_init(&x->lat);
		count = (uint64_t)sqlite3_column_int64(st, FLEET_SYS_count);
		x->errors = (uint64_t)sqlite3_column_int64(st, FLEET_SYS_errors);
		x->bytes = (uint64_t)sqlite3_column_int64(st, FLEET_SYS_bytes);
		if (fleet_hist(m, name, "latency", &x->lat) != count) {
			snprintf(m->err, sizeof(m->err), "the latency histograms of %s do not hold "
				 "its %" PRIu64 " operations", name, count);
			m->rc = -EINVAL;
		}
		x->lat.sum = (uint64_t)sqlite3_column_int64(st, FLEET_SYS_lat_sum_ns);
		x->lat.min = (uint64_t)sqlite3_column_int64(st, FLEET_SYS_lat_min_ns);
		x->lat.max = (uint64_t)sqlite3_column_int64(st, FLEET_SYS_lat_max_ns);
		if (sqlite3_column_int64(st, FLEET_SYS_delay_count) > 0) {
			x->delay = calloc(1, sizeof(*x->delay));
			if (!x->delay) {
				snprintf(m->err, sizeof(m->err), "out of memory");
				m->rc = -ENOMEM;
			} else {
				hist_init(x->delay);
				fleet_hist(m, name, "issue_delay", x->delay);
				x->delay->max = (uint64_t)sqlite3_column_int64(st, FLEET_SYS_delay_max_ns);
				x->delay->min = 0;
				if (all_delay)
					hist_merge(all_delay, x->delay);
			}
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	*delay_p99 = all_delay && all_delay->count ? hist_quantile(all_delay, 0.99) : 0;
	free(all_delay);
	return m->rc;
}

/* Appends fmt's text to sql[len] at *n; false once it no longer fits. */
__attribute__((format(printf, 4, 5)))
static bool add(char *sql, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n >= len)
		return false;
	va_start(ap, fmt);
	k = vsnprintf(sql + *n, len - *n, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= len - *n)
		return false;
	*n += (size_t)k;
	return true;
}

/* "INSERT INTO t (every column) SELECT ?1, key", each CT_U64 column (its
 * usage, columns.h) as ", name" or ", sum(name)", then tail. */
static bool usage_sql(const struct column_table *t, const char *key, bool sum,
		      const char *tail, char *sql, size_t len)
{
	size_t n = 0;
	bool ok = add(sql, len, &n, "INSERT INTO %s (", t->name);

	for (size_t i = 0; ok && i < t->n; i++)
		ok = add(sql, len, &n, "%s%s", i ? ", " : "", t->cols[i].name);
	ok = ok && add(sql, len, &n, ") SELECT ?1, %s", key);
	for (size_t i = 0; ok && i < t->n; i++)
		if (t->cols[i].type == CT_U64)
			ok = add(sql, len, &n, sum ? ", sum(%s)" : ", %s", t->cols[i].name);
	return ok && add(sql, len, &n, "%s", tail);
}

/* The fleet's files and processes: its runs' usage summed, per path (paths
 * get new ids: a path id is a run's own) and per pid. */
static int fleet_usage(struct merge *m, int64_t fleet)
{
	char sums[512], sql[2048];
	size_t n = 0;
	bool ok = add(sums, sizeof(sums), &n, " FROM (SELECT coalesce(path, '') AS p");
	sqlite3_stmt *st;

	for (size_t i = 0; ok && i < column_files.n; i++)
		if (column_files.cols[i].type == CT_U64)
			ok = add(sums, sizeof(sums), &n, ", sum(%s) AS %s", column_files.cols[i].name,
				 column_files.cols[i].name);
	ok = ok && add(sums, sizeof(sums), &n, " FROM files WHERE run_id IN " FLEET_SET
		       " GROUP BY p)");
	ok = ok && usage_sql(&column_files, "CASE WHEN p = '' THEN 0 ELSE row_number() OVER "
			     "(ORDER BY p) END, nullif(p, '')", false, sums, sql, sizeof(sql));
	if (ok && (st = prep(m, sql))) {
		sqlite3_bind_int64(st, 1, fleet);
		run_stmt(m, st);
	}
	ok = ok && usage_sql(&column_processes, "pid, max(comm)", true, " FROM processes "
			     "WHERE run_id IN " FLEET_SET " GROUP BY pid", sql, sizeof(sql));
	if (ok && (st = prep(m, sql))) {
		sqlite3_bind_int64(st, 1, fleet);
		run_stmt(m, st);
	}
	if (!ok && !m->rc) {
		snprintf(m->err, sizeof(m->err), "the files or processes table has too many columns");
		m->rc = -E2BIG;
	}
	return m->rc;
}

/* The rate buckets' width for a span: as the accumulator chooses it. */
static uint64_t rate_width(uint64_t span_ns)
{
	uint64_t w = RUN_RATE_MIN_WIDTH;

	while (w * RUN_RATE_BUCKETS <= span_ns && w < UINT64_MAX / 2 / RUN_RATE_BUCKETS)
		w *= 2;
	return w;
}

/* Runs sql, columns_fleet()'s statement of the fleet's rows of a table: ?1
 * the fleet's id, ?2 its start (ns since the epoch; NULL: runs are not
 * shifted), ?3 the width of its rate buckets. */
static void fleet_sum(struct merge *m, const char *sql, int64_t fleet, const int64_t *start,
		      int64_t span)
{
	sqlite3_stmt *st = prep(m, sql);

	if (!st)
		return;
	sqlite3_bind_int64(st, 1, fleet);
	if (start)
		sqlite3_bind_int64(st, 2, *start);
	else
		sqlite3_bind_null(st, 2);
	if (sqlite3_bind_parameter_count(st) >= 3)
		sqlite3_bind_int64(st, 3, (int64_t)rate_width(span > 0 ? (uint64_t)span : 0));
	run_stmt(m, st);
}

static int fleet_tables(struct merge *m, int64_t fleet)
{
	sqlite3_stmt *st = prep(m, "SELECT start_unix_ns, duration_ns FROM runs WHERE id = ?1");
	bool start_known = false;
	int64_t start = 0, span = 0;

	if (st) {
		sqlite3_bind_int64(st, 1, fleet);
		if (sqlite3_step(st) == SQLITE_ROW) {
			start_known = sqlite3_column_type(st, 0) != SQLITE_NULL;
			start = sqlite3_column_int64(st, 0);
			span = sqlite3_column_int64(st, 1);
		}
		sqlite3_finalize(st);
	}
	fleet_usage(m, fleet);
	for (size_t i = 0; !m->rc && i < column_ntables; i++) {
		char sql[2048];
		int rc = columns_fleet(column_tables[i], FLEET_SET, sql, sizeof(sql));

		if (rc == -E2BIG) {
			snprintf(m->err, sizeof(m->err), "the %s table has too many columns",
				 column_tables[i]->name);
			m->rc = rc;
		} else if (!rc) {
			fleet_sum(m, sql, fleet, start_known ? &start : NULL, span);
		}
	}
	return m->rc;
}

/* The number of rows sql counts, or -1. */
static int64_t count_of(struct merge *m, const char *sql)
{
	sqlite3_stmt *st = prep(m, sql);
	int64_t n = -1;

	if (st && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static int make_fleet(struct merge *m, const char *want, const char *cmdline)
{
	struct run_acc *a;
	char label[1100];
	uint64_t p99 = 0;
	int64_t fleet;
	sqlite3_stmt *st;

	/* the replays, or the captures when there is no replay */
	exec(m, "DELETE FROM temp.fleet_src WHERE kind <> (SELECT max(kind) FROM "
	     "temp.fleet_src)");
	if (count_of(m, "SELECT count(*) FROM temp.fleet_src") == 0) {
		/* every run is in a fleet of a merged report already */
		if (count_of(m, "SELECT count(*) FROM runs WHERE fleet_runs IS NOT NULL") > 0)
			return m->rc;
		snprintf(m->err, sizeof(m->err), "no run to merge: the reports hold none");
		m->rc = -ENOENT;
	}
	if (unique_label(m, want, label, sizeof(label)))
		return m->rc;
	fleet = fleet_row(m, label, cmdline);
	a = m->rc ? NULL : run_acc_new(RUN_REPLAY);
	if (!m->rc && !a) {
		snprintf(m->err, sizeof(m->err), "out of memory");
		return m->rc = -ENOMEM;
	}
	if (a && fleet_syscalls(m, a, &p99) == 0)
		m->rc = run_store_syscalls(m->db, fleet, a, m->err, sizeof(m->err));
	run_acc_free(a);
	fleet_tables(m, fleet);
	if (!m->rc)
		m->rc = device_amplification(m->db, fleet, m->err, sizeof(m->err));
	if ((st = prep(m, "UPDATE runs SET delay_p99_ns = ?2 WHERE id = ?1 AND "
		       "delay_max_ns IS NOT NULL"))) {
		sqlite3_bind_int64(st, 1, fleet);
		sqlite3_bind_int64(st, 2, (int64_t)p99);
	}
	run_stmt(m, st);
	if ((st = prep(m, "UPDATE runs SET fleet_id = ?1 WHERE id IN " FLEET_SET)))
		sqlite3_bind_int64(st, 1, fleet);
	run_stmt(m, st);
	return m->rc;
}

/* ---- the command ---- */

static int merge_usage(void)
{
	return riot_usage("report merge wants A.db [B.db...] -o ALL.db [--label NAME]");
}

int report_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "label", required_argument, NULL, 'l' }, { 0 },
	};
	struct merge m = { 0 };
	const char *out = NULL, *label = "fleet";
	char cmdline[4096] = "riot report merge";
	size_t n = strlen(cmdline);
	sqlite3 *src;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		if (c == 'o')
			out = optarg;
		else if (c == 'l' && *optarg)
			label = optarg;
		else
			return merge_usage();
	}
	if (!out || optind >= argc || argc - optind > MERGE_MAX_INPUTS)
		return merge_usage();
	if (access(out, F_OK) == 0) {
		riot_err("%s exists already: merge writes a new report", out);
		return RIOT_EXIT_FAIL;
	}
	/* every input must be a report this riot reads before anything is
	 * written */
	for (int i = optind; i < argc; i++) {
		if (!(src = report_db_open_ro(argv[i], m.err, sizeof(m.err)))) {
			riot_err("%s", m.err);
			return RIOT_EXIT_FAIL;
		}
		sqlite3_close(src);
		n += (size_t)snprintf(cmdline + n, n < sizeof(cmdline) ? sizeof(cmdline) - n : 0,
				      " %s", argv[i]);
	}
	if (n < sizeof(cmdline))
		snprintf(cmdline + n, sizeof(cmdline) - n, " -o %s", out);
	if (!(m.db = report_db_open_rw(out, m.err, sizeof(m.err)))) {
		riot_err("%s", m.err);
		return RIOT_EXIT_FAIL;
	}
	exec(&m, "CREATE TEMP TABLE fleet_src (id INTEGER PRIMARY KEY, kind TEXT); "
	     "CREATE TEMP TABLE idmap (old INTEGER, new INTEGER)");
	for (int i = optind; i < argc && !m.rc; i++)
		copy_source(&m, argv[i]);
	exec(&m, "BEGIN IMMEDIATE");
	if (!m.rc)
		make_fleet(&m, label, cmdline);
	if (!m.rc)
		exec(&m, "COMMIT");
	if (m.rc)
		sqlite3_exec(m.db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(m.db);
	if (m.rc) {
		unlink(out);
		riot_err("%s", m.err);
		return RIOT_EXIT_FAIL;
	}
	return RIOT_EXIT_OK;
}
