/* test_columns: the column lists of report/columns.h are report/schema.sql's
 * tables (the same columns, in the same order, of the same types), the
 * fleet's rows of `report merge` are made from them, and a new report says
 * the schema version schema.sql names. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <sqlite3.h>
#include <unistd.h>

#include "report/columns.h"
#include "report/report_int.h"
#include "tests/unit/unit.h"

/* The columns of schema's CREATE TABLE t as columns_ddl() writes them:
 * comments, constraints past NOT NULL and table keys left out. */
static int schema_ddl(const char *schema, const char *t, char *out, size_t len)
{
	char head[128], body[8192];
	const char *p, *end;
	size_t n = 0, b = 0;

	snprintf(head, sizeof(head), "CREATE TABLE %s (\n", t);
	p = strstr(schema, head);
	if (!p) {	/* a table a later version added */
		snprintf(head, sizeof(head), "CREATE TABLE IF NOT EXISTS %s (\n", t);
		p = strstr(schema, head);
	}
	if (!p)
		return -1;
	p += strlen(head);
	end = strstr(p, "\n);");
	if (!end)
		return -1;
	/* the body without comments, a CHECK's commas hidden (';') */
	for (int depth = 0; p < end && b + 1 < sizeof(body); p++) {
		if (p[0] == '-' && p[1] == '-') {
			while (p + 1 < end && p[1] != '\n')
				p++;
			continue;
		}
		depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
		body[b++] = *p == ',' && depth > 0 ? ';' : *p;
	}
	body[b] = '\0';
	*out = '\0';
	for (char *save = NULL, *def = strtok_r(body, ",", &save); def;
	     def = strtok_r(NULL, ",", &save)) {
		char name[64] = "", type[32] = "";

		while (isspace((unsigned char)*def))
			def++;
		if (strncmp(def, "PRIMARY KEY", 11) == 0)
			break;	/* the table's key ends the columns */
		if (sscanf(def, "%63s %31s", name, type) != 2)
			return -1;
		n += (size_t)snprintf(out + n, len - n, "%s%s %s%s", n ? ", " : "", name, type,
				      strstr(def, "NOT NULL") ? " NOT NULL" : "");
		if (n >= len)
			return -1;
	}
	return 0;
}

static void test_tables_match_schema(void)
{
	const char *schema = report_db_schema();

	for (size_t k = 0; k < column_ntables; k++) {
		const struct column_table *t = column_tables[k];
		char want[4096], got[4096];

		CHECK_EQ(schema_ddl(schema, t->name, want, sizeof(want)), 0);
		CHECK_EQ(columns_ddl(t, got, sizeof(got)), 0);
		CHECK_STR(got, want);
	}
	CHECK_EQ(column_syscalls.n, SYSCALL_NCOLS);
	CHECK_EQ(column_classes.n, CLASS_NCOLS);
	CHECK_STR(column_syscalls.cols[SYSCALL_COL_delay_count].name, "delay_count");
	CHECK_STR(column_classes.cols[CLASS_COL_gap_sum_ns].name, "gap_sum_ns");
}

static void test_insert(void)
{
	char sql[1024], small[16];

	CHECK_EQ(columns_insert(&column_classes, sql, sizeof(sql)), 0);
	CHECK_STR(sql, "INSERT INTO classes (run_id, class, count, errors, bytes, lat_sum_ns, "
		  "lat_p50_ns, lat_p90_ns, lat_p99_ns, lat_p999_ns, lat_max_ns, gap_count, "
		  "gap_sum_ns, gap_p50_ns, gap_p99_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
		  "?, ?, ?)");
	CHECK_EQ(columns_insert(&column_syscalls, small, sizeof(small)), -E2BIG);
	CHECK_EQ(columns_ddl(&column_syscalls, small, sizeof(small)), -E2BIG);
}

static void test_fleet(void)
{
	static const struct column cols[] = {
		{ .name = "run_id", .type = CT_ID, FLEET("?1") },
		{ .name = "k1", .type = CT_TEXT, FLEET_KEY("x.k1") },
		{ .name = "note", .type = CT_TEXT_NULL },	/* none: NULL */
		{ .name = "k2", .type = CT_KEY, FLEET_KEY("x.k2") },
		{ .name = "n", .type = CT_U64, FLEET("sum(x.n)") },
	};
	static const struct column_table example = { .name = "t", .cols = cols, .n = 5 };
	char sql[1024];

	CHECK_EQ(columns_fleet(&example, "(1)", sql, sizeof(sql)), 0);
	CHECK_STR(sql, "INSERT INTO t (run_id, k1, k2, n) SELECT ?1, x.k1, x.k2, sum(x.n) FROM t "
		  "x JOIN runs r ON r.id = x.run_id WHERE x.run_id IN (1) GROUP BY 2, 3");
	CHECK_EQ(columns_fleet(&column_histograms, "(1)", sql, sizeof(sql)), -ENOENT);
	CHECK_EQ(columns_fleet(&column_syscalls, "(1)", sql, sizeof(sql)), -ENOENT);
	for (size_t k = 0; k < column_ntables; k++) {
		int rc = columns_fleet(column_tables[k], "(1)", sql, sizeof(sql));

		CHECK(rc == 0 || rc == -ENOENT);
		/* a fleet's rows are its own (run_id ?1); none, no fleet value */
		if (rc == 0)
			CHECK_STR(column_tables[k]->cols[0].fleet, "?1");
		for (size_t i = 0; rc && i < column_tables[k]->n; i++)
			CHECK(column_tables[k]->cols[i].fleet == NULL);
	}
	/* the devices: the rows its fleet_from picks, grouped by device */
	CHECK_EQ(columns_fleet(&column_devices, "(1)", sql, sizeof(sql)), 0);
	CHECK(strstr(sql, "WHERE d.run_id IN (1)) x WHERE x.k = 1 GROUP BY 2") != NULL);
	CHECK(strstr(sql, "flush_ns") == NULL);
}

/* A new report: the version schema.sql names, every column selectable; a
 * classes table without the gap columns (version 7) gains them. */
static void test_report_db(void)
{
	char dir[] = "/tmp/riot-test-columns.XXXXXX", path[128], err[512] = "", sel[2048];
	const char *schema = report_db_schema();
	const char *v = strstr(schema, "(schema version ");
	int version = v ? atoi(v + strlen("(schema version ")) : -1;
	sqlite3_stmt *st;
	sqlite3 *db;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		CHECK(0);
		return;
	}
	snprintf(path, sizeof(path), "%s/r.db", dir);
	CHECK(v != NULL);
	CHECK(strstr(schema, "\n") > v);	/* on the first line */
	CHECK(version >= 8);
	db = report_db_open_rw(path, err, sizeof(err));
	CHECK(db != NULL);
	if (!db)
		goto out;
	CHECK_EQ(sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'schema_version'", -1,
				    &st, NULL), SQLITE_OK);
	CHECK_EQ(sqlite3_step(st), SQLITE_ROW);
	CHECK_EQ(sqlite3_column_int(st, 0), version);
	sqlite3_finalize(st);
	CHECK_EQ(columns_select(db, &column_classes, "c", sel, sizeof(sel)), 0);
	CHECK(strstr(sel, "NULL") == NULL);
	CHECK(strncmp(sel, "c.run_id, c.class, ", 19) == 0);

	/* a version 7 report: no gap columns, read as NULL, added on upgrade */
	CHECK_EQ(report_db_exec(db, "DROP TABLE classes; CREATE TABLE classes (run_id INTEGER "
				"NOT NULL, class TEXT NOT NULL, count INTEGER NOT NULL, errors "
				"INTEGER NOT NULL, bytes INTEGER NOT NULL, lat_sum_ns INTEGER NOT "
				"NULL, lat_p50_ns INTEGER NOT NULL, lat_p90_ns INTEGER NOT NULL, "
				"lat_p99_ns INTEGER NOT NULL, lat_p999_ns INTEGER NOT NULL, "
				"lat_max_ns INTEGER NOT NULL); UPDATE meta SET value = '7' WHERE "
				"key = 'schema_version'", err, sizeof(err)), 0);
	CHECK_EQ(columns_select(db, &column_classes, "c", sel, sizeof(sel)), 0);
	CHECK(strstr(sel, "c.lat_max_ns, NULL, NULL, NULL, NULL") != NULL);
	sqlite3_close(db);
	db = report_db_open_rw(path, err, sizeof(err));
	CHECK(db != NULL);
	if (!db)
		goto out;
	CHECK_EQ(columns_select(db, &column_classes, "c", sel, sizeof(sel)), 0);
	CHECK(strstr(sel, "NULL") == NULL);
	CHECK_EQ(sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'schema_version'", -1,
				    &st, NULL), SQLITE_OK);
	CHECK_EQ(sqlite3_step(st), SQLITE_ROW);
	CHECK_EQ(sqlite3_column_int(st, 0), version);
	sqlite3_finalize(st);
	sqlite3_close(db);
out:
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	test_tables_match_schema();
	test_insert();
	test_fleet();
	test_report_db();
	return unit_done();
}
