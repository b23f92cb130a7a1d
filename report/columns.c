/* report/columns.c: see columns.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "report/columns.h"

/* One column's description: its name, type and fleet value (columns.h). */
#define COLUMN_DESC(n, t, w, v, ...) { .name = #n, .type = t, __VA_ARGS__ },
#define COLUMN_TABLE(var, table, LIST, ...) \
	static const struct column var##_cols[] = { LIST(COLUMN_DESC) }; \
	const struct column_table column_##var = { \
		.name = table, .cols = var##_cols, \
		.n = sizeof(var##_cols) / sizeof(var##_cols[0]), __VA_ARGS__ \
	};

COLUMN_TABLE(syscalls, "syscalls", SYSCALL_COLUMNS)
COLUMN_TABLE(classes, "classes", CLASS_COLUMNS)
COLUMN_TABLE(files, "files", FILE_COLUMNS)
COLUMN_TABLE(processes, "processes", PROCESS_COLUMNS)
COLUMN_TABLE(histograms, "histograms", HISTOGRAM_COLUMNS)
COLUMN_TABLE(timeline, "timeline", TIMELINE_COLUMNS)
COLUMN_TABLE(rates, "rates", RATE_COLUMNS)
COLUMN_TABLE(errors, "errors", ERROR_COLUMNS)
COLUMN_TABLE(divergences, "divergences", DIVERGENCE_COLUMNS)
COLUMN_TABLE(divergence_samples, "divergence_samples", DIVERGENCE_SAMPLE_COLUMNS)
COLUMN_TABLE(stacks, "stacks", STACK_COLUMNS)
COLUMN_TABLE(filesystems, "filesystems", FILESYSTEM_COLUMNS)
COLUMN_TABLE(events, "events", EVENT_COLUMNS)
COLUMN_TABLE(devices, "devices", DEVICE_COLUMNS, .fleet_from =
	     "FROM (SELECT d.*, row_number() OVER (PARTITION BY coalesce(r.host, ''), d.dev "
	     "ORDER BY d.write_bytes DESC, d.read_bytes DESC, d.run_id) AS k FROM devices d "
	     "JOIN runs r ON r.id = d.run_id WHERE d.run_id IN %s) x WHERE x.k = 1")
COLUMN_TABLE(device_depth, "device_depth", DEVICE_DEPTH_COLUMNS)

const struct column_table *const column_tables[] = {
	&column_syscalls, &column_classes, &column_files, &column_processes,
	&column_histograms, &column_timeline, &column_rates, &column_errors,
	&column_divergences, &column_divergence_samples, &column_stacks,
	&column_filesystems, &column_events, &column_devices, &column_device_depth,
};
const size_t column_ntables = sizeof(column_tables) / sizeof(column_tables[0]);

static const char *const sql_type[] = {
	[CT_ID] = "INTEGER NOT NULL", [CT_KEY] = "INTEGER NOT NULL", [CT_TEXT] = "TEXT NOT NULL",
	[CT_U64] = "INTEGER NOT NULL", [CT_REAL] = "REAL NOT NULL", [CT_U64_NULL] = "INTEGER",
	[CT_I64_NULL] = "INTEGER", [CT_REAL_NULL] = "REAL", [CT_TEXT_NULL] = "TEXT",
};

/* Appends to out[len] at *n; false once it no longer fits. */
static bool put(char *out, size_t len, size_t *n, const char *a, const char *b)
{
	int k = snprintf(out + *n, len - *n, "%s%s", a, b);

	if (k < 0 || (size_t)k >= len - *n)
		return false;
	*n += (size_t)k;
	return true;
}

int columns_ddl(const struct column_table *t, char *out, size_t len)
{
	size_t n = 0;

	if (!len)
		return -E2BIG;
	*out = '\0';
	for (size_t i = 0; i < t->n; i++)
		if (!put(out, len, &n, i ? ", " : "", t->cols[i].name) ||
		    !put(out, len, &n, " ", sql_type[t->cols[i].type]))
			return -E2BIG;
	return 0;
}

int columns_insert(const struct column_table *t, char *out, size_t len)
{
	size_t n = 0;

	if (!len)
		return -E2BIG;
	*out = '\0';
	if (!put(out, len, &n, "INSERT INTO ", t->name) || !put(out, len, &n, " (", ""))
		return -E2BIG;
	for (size_t i = 0; i < t->n; i++)
		if (!put(out, len, &n, i ? ", " : "", t->cols[i].name))
			return -E2BIG;
	if (!put(out, len, &n, ") VALUES (", ""))
		return -E2BIG;
	for (size_t i = 0; i < t->n; i++)
		if (!put(out, len, &n, i ? ", ?" : "?", ""))
			return -E2BIG;
	return put(out, len, &n, ")", "") ? 0 : -E2BIG;
}

/* Whether db's table has column col. */
static int has_column(sqlite3_stmt *st, const char *table, const char *col)
{
	int rc;

	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -EIO;
}

static int prep_has_column(sqlite3 *db, sqlite3_stmt **st)
{
	return sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1,
				  st, NULL) == SQLITE_OK ? 0 : -EIO;
}

int columns_select(sqlite3 *db, const struct column_table *t, const char *alias, char *out,
		   size_t len)
{
	sqlite3_stmt *st;
	size_t n = 0;
	int rc = prep_has_column(db, &st);

	if (rc)
		return rc;
	if (!len)
		rc = -E2BIG;
	else
		*out = '\0';
	for (size_t i = 0; i < t->n && !rc; i++) {
		int has = has_column(st, t->name, t->cols[i].name);

		if (has < 0)
			rc = has;
		else if (!put(out, len, &n, i ? ", " : "", has ? alias : "NULL") ||
			 (has && (!put(out, len, &n, ".", t->cols[i].name))))
			rc = -E2BIG;
	}
	sqlite3_finalize(st);
	return rc;
}

int columns_prepare(sqlite3 *db, const struct column_table *t, const char *tail,
		    sqlite3_stmt **st)
{
	char cols[2048], sql[3072];
	int rc = columns_select(db, t, "x", cols, sizeof(cols));

	*st = NULL;
	if (rc)
		return rc;
	if ((size_t)snprintf(sql, sizeof(sql), "SELECT %s FROM %s x %s", cols, t->name, tail) >=
	    sizeof(sql))
		return -E2BIG;
	return sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK ? 0 : -EIO;
}

int columns_upgrade(sqlite3 *db, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	char sql[256];
	int rc = prep_has_column(db, &st);

	for (size_t k = 0; k < column_ntables && !rc; k++) {
		const struct column_table *t = column_tables[k];
		/* a table db lacks is made whole later (add_new_tables()) */
		int exists = has_column(st, t->name, t->cols[0].name);

		if (exists < 0)
			rc = exists;
		for (size_t i = 0; i < t->n && !rc && exists > 0; i++) {
			const struct column *c = &t->cols[i];
			bool null = c->type == CT_U64_NULL || c->type == CT_I64_NULL ||
				    c->type == CT_REAL_NULL || c->type == CT_TEXT_NULL;
			int has = null ? has_column(st, t->name, c->name) : 1;

			if (has < 0) {
				rc = has;
			} else if (!has) {
				snprintf(sql, sizeof(sql), "ALTER TABLE %s ADD COLUMN %s %s",
					 t->name, c->name, sql_type[c->type]);
				if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
					rc = -EIO;
			}
		}
	}
	if (rc)
		snprintf(err, errlen, "%s: %s", sqlite3_db_filename(db, "main"), sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc;
}

int columns_fleet(const struct column_table *t, const char *runs, char *out, size_t len)
{
	size_t n = 0, k = 0;
	bool ok = len > 0, any = false;

	if (ok)
		*out = '\0';
	ok = ok && put(out, len, &n, "INSERT INTO ", t->name) && put(out, len, &n, " (", "");
	for (size_t i = 0; ok && i < t->n; i++)
		if (t->cols[i].fleet) {
			ok = put(out, len, &n, any ? ", " : "", t->cols[i].name);
			any = true;
		}
	if (!any)
		return -ENOENT;
	ok = ok && put(out, len, &n, ") SELECT ", "");
	for (size_t i = 0, m = 0; ok && i < t->n; i++)
		if (t->cols[i].fleet)
			ok = put(out, len, &n, m++ ? ", " : "", t->cols[i].fleet);
	if (ok && t->fleet_from) {
		char from[1024];
		int k = snprintf(from, sizeof(from), t->fleet_from, runs);

		ok = k > 0 && (size_t)k < sizeof(from) && put(out, len, &n, " ", from);
	} else {
		ok = ok && put(out, len, &n, " FROM ", t->name) &&
		     put(out, len, &n, " x JOIN runs r ON r.id = x.run_id WHERE x.run_id IN ",
			 runs);
	}
	/* the keys by their place in the SELECT */
	for (size_t i = 0, m = 0; ok && i < t->n; i++) {
		char place[32];

		if (!t->cols[i].fleet)
			continue;
		m++;
		if (!t->cols[i].fleet_key)
			continue;
		snprintf(place, sizeof(place), "%zu", m);
		ok = put(out, len, &n, k++ ? ", " : " GROUP BY ", place);
	}
	return ok ? 0 : -E2BIG;
}
