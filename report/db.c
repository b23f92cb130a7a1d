/* report/db.c: opening a report database: creating the schema, refusing
 * files that are not riot reports or come from a newer riot. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "formats/log.h"
#include "report/columns.h"
#include "report/report_int.h"
#include "report_schema.h"

const char *report_db_schema(void)
{
	return report_schema_sql;
}

/* How long a report command waits for another riot (or any SQLite
 * client) holding the database's lock before it gives up. */
#define REPORT_DB_BUSY_MS 3000

static int lock_error(const char *path, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: database is locked by another process (waited %d s)",
		 path, REPORT_DB_BUSY_MS / 1000);
	return -EBUSY;
}

int report_db_exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);

	if (rc == SQLITE_OK)
		return 0;
	sqlite3_free(msg);
	if (rc == SQLITE_BUSY)
		return lock_error(sqlite3_db_filename(db, "main"), err, errlen);
	snprintf(err, errlen, "%s: %s", sqlite3_db_filename(db, "main"), sqlite3_errmsg(db));
	return -EIO;
}

/* The number of tables, -EBUSY when another process holds the lock, or -1
 * when the file is not an SQLite database. */
static int count_tables(sqlite3 *db)
{
	sqlite3_stmt *st;
	int n = -1, rc;

	rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc == SQLITE_BUSY ? -EBUSY : -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	else if (rc == SQLITE_BUSY)
		n = -EBUSY;
	sqlite3_finalize(st);
	return n;
}

/* meta.value of key, copied into out; -ENOENT when absent or no meta. */
static int meta_get(sqlite3 *db, const char *key, char *out, size_t len)
{
	sqlite3_stmt *st;
	int rc = -ENOENT;

	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL) != SQLITE_OK)
		return -ENOENT;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

/* 0 when db is a riot report this riot can read. */
static int check_report(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	char app[32], ver[32];
	long v;
	int n = count_tables(db);

	if (n == -EBUSY)
		return lock_error(path, err, errlen);
	if (n < 0) {
		snprintf(err, errlen, "%s: not a riot report (%s)", path, sqlite3_errmsg(db));
		return -EINVAL;
	}
	if (meta_get(db, "application", app, sizeof(app)) < 0 || strcmp(app, "riot") != 0 ||
	    meta_get(db, "schema_version", ver, sizeof(ver)) < 0) {
		snprintf(err, errlen, "%s: not a riot report (no riot meta table)", path);
		return -EINVAL;
	}
	v = strtol(ver, NULL, 10);
	if (v > REPORT_SCHEMA_VERSION) {
		snprintf(err, errlen, "%s: written by a newer riot (report schema %ld; "
			 "this riot reads up to %d)", path, v, REPORT_SCHEMA_VERSION);
		return -EPROTONOSUPPORT;
	}
	if (v < 1) {
		snprintf(err, errlen, "%s: not a riot report (schema version '%s')", path, ver);
		return -EINVAL;
	}
	return 0;
}

/* Commits the open transaction when rc is 0, else rolls it back. */
static int end_transaction(sqlite3 *db, int rc, char *err, size_t errlen)
{
	if (!rc)
		return report_db_exec(db, "COMMIT", err, errlen);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

static int create_schema(sqlite3 *db, char *err, size_t errlen)
{
	char sql[256];
	int rc;

	rc = report_db_exec(db, "BEGIN IMMEDIATE", err, errlen);
	if (rc)
		return rc;
	if (count_tables(db) != 0) {	/* another riot created it meanwhile */
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return 0;
	}
	snprintf(sql, sizeof(sql), "INSERT INTO meta VALUES ('application', 'riot'), "
		 "('schema_version', '%d'), ('created_by', 'riot ' || '%s')",
		 REPORT_SCHEMA_VERSION, RIOT_VERSION);
	rc = report_db_exec(db, report_schema_sql, err, errlen);
	return end_transaction(db, rc ? rc : report_db_exec(db, sql, err, errlen), err, errlen);
}

static sqlite3 *db_open(const char *path, int flags, char *err, size_t errlen)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		errno = ENOENT;
		return NULL;
	}
	sqlite3_busy_timeout(db, REPORT_DB_BUSY_MS);
	sqlite3_extended_result_codes(db, 0);
	return db;
}

/* The statements version 3 added: the end of schema.sql from its marker. */
static const char *schema_v3_sql(void)
{
	const char *m = strstr(report_schema_sql, "-- Added in version 3");

	return m ? m : "";
}

/* A merge before version 7 made one fleet run of every other run of its
 * kind: they are its members. */
#define FLEET_OF_OLD_MERGE \
	"UPDATE runs SET fleet_id = (SELECT id FROM runs WHERE fleet_runs IS NOT NULL) " \
	"WHERE fleet_runs IS NULL AND kind = (SELECT kind FROM runs WHERE fleet_runs IS NOT " \
	"NULL) AND (SELECT count(*) FROM runs WHERE fleet_runs IS NOT NULL) = 1"

/* Brings a report of an older schema to this one: versions only add
 * tables and columns, so older readers still read it. */
static int upgrade_schema(sqlite3 *db, char *err, size_t errlen)
{
	char ver[32], sql[128];
	long v;
	int rc;

	if (meta_get(db, "schema_version", ver, sizeof(ver)) < 0 ||
	    strtol(ver, NULL, 10) >= REPORT_SCHEMA_VERSION)
		return 0;
	rc = report_db_exec(db, "BEGIN IMMEDIATE", err, errlen);
	if (rc)
		return rc;
	/* read again: another riot may have upgraded it meanwhile */
	v = meta_get(db, "schema_version", ver, sizeof(ver)) == 0 ? strtol(ver, NULL, 10) : 0;
	if (v == 1)
		rc = report_db_exec(db, "ALTER TABLE runs ADD COLUMN timing_kept INTEGER; "
				    "ALTER TABLE runs ADD COLUMN late_ops INTEGER; "
				    "ALTER TABLE runs ADD COLUMN delay_p99_ns INTEGER; "
				    "ALTER TABLE runs ADD COLUMN delay_max_ns INTEGER", err, errlen);
	if (!rc && v >= 1 && v < 3)
		rc = report_db_exec(db, schema_v3_sql(), err, errlen);
	if (!rc && v >= 1 && v < 4)
		rc = report_db_exec(db, "ALTER TABLE runs ADD COLUMN start_late_ns INTEGER; "
				    "ALTER TABLE runs ADD COLUMN shard TEXT; "
				    "ALTER TABLE runs ADD COLUMN fleet_runs INTEGER", err, errlen);
	if (!rc && v >= 1 && v < 5)
		rc = report_db_exec(db, "ALTER TABLE runs ADD COLUMN probe_ns INTEGER", err, errlen);
	if (!rc && v >= 1 && v < 6)
		rc = report_db_exec(db, "ALTER TABLE runs ADD COLUMN replay_timing TEXT; "
				    "ALTER TABLE runs ADD COLUMN predicted_ns INTEGER; "
				    "ALTER TABLE runs ADD COLUMN captured_ns INTEGER; "
				    "ALTER TABLE runs ADD COLUMN unreliable INTEGER; "
				    "ALTER TABLE runs ADD COLUMN warning TEXT", err, errlen);
	if (!rc && v >= 1 && v < 7)
		rc = report_db_exec(db, "ALTER TABLE runs ADD COLUMN fleet_id INTEGER; "
				    "ALTER TABLE runs ADD COLUMN device_shared INTEGER; "
				    "ALTER TABLE runs ADD COLUMN device_other_writers INTEGER; "
				    "ALTER TABLE runs ADD COLUMN device_other_bytes INTEGER; "
				    FLEET_OF_OLD_MERGE, err, errlen);
	/* version 8's stacks table: add_new_tables(); the NULL-able columns
	 * of the tables columns.h describes (classes' gap_* of version 8) */
	if (!rc && v >= 1)
		rc = columns_upgrade(db, err, errlen);
	snprintf(sql, sizeof(sql), "UPDATE meta SET value = '%d' WHERE key = 'schema_version'",
		 REPORT_SCHEMA_VERSION);
	return end_transaction(db, rc ? rc : report_db_exec(db, sql, err, errlen), err, errlen);
}

/* The tables schema.sql makes "IF NOT EXISTS": added to a version 2
 * database that lacks them (readers do without them). */
static int add_new_tables(sqlite3 *db, char *err, size_t errlen)
{
	static const char mark[] = "CREATE TABLE IF NOT EXISTS";
	const char *p = report_schema_sql;
	int rc = 0;

	while (!rc && (p = strstr(p, mark))) {
		/* a statement ends with ");" at the start of a line: its
		 * comments may hold ';' */
		const char *end = strstr(p, "\n);");
		char *sql;

		if (!end)
			break;
		end += 2;
		sql = strndup(p, (size_t)(end - p));
		if (!sql)
			return -ENOMEM;
		rc = report_db_exec(db, sql, err, errlen);
		free(sql);
		p = end;
	}
	return rc;
}

sqlite3 *report_db_open_rw(const char *path, char *err, size_t errlen)
{
	sqlite3 *db = db_open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, err, errlen);
	int rc;

	if (!db)
		return NULL;
	rc = count_tables(db);
	rc = rc == -EBUSY ? lock_error(path, err, errlen) :
	     rc == 0 ? create_schema(db, err, errlen) : 0;
	if (!rc)
		rc = check_report(db, path, err, errlen);
	if (!rc)
		rc = upgrade_schema(db, err, errlen);
	if (!rc)
		rc = add_new_tables(db, err, errlen);
	if (!rc)
		rc = report_db_exec(db, "PRAGMA foreign_keys = ON", err, errlen);
	if (rc) {
		sqlite3_close(db);
		errno = -rc;
		return NULL;
	}
	return db;
}

sqlite3 *report_db_open_ro(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	sqlite3 *db;
	int rc;

	/* SQLite would report a missing file as "unable to open" */
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	fclose(f);
	db = db_open(path, SQLITE_OPEN_READONLY, err, errlen);
	if (!db)
		return NULL;
	rc = check_report(db, path, err, errlen);
	if (rc) {
		sqlite3_close(db);
		errno = -rc;
		return NULL;
	}
	return db;
}

int report_db_reserve_run(sqlite3 *db, int64_t *id, char *err, size_t errlen)
{
	char sql[1024];
	int rc;

	/* a unique placeholder label, replaced when the run is stored; the
	 * caller's transaction hides it from readers */
	snprintf(sql, sizeof(sql),
		 "INSERT INTO runs (label, kind, created_unix" RUN_COLUMNS(RC_NUMERIC_COL) ") "
		 "VALUES ('(writing ' || hex(randomblob(8)) || ')', 'capture', %lld"
		 RUN_COLUMNS(RC_NUMERIC_ZERO) ")", (long long)time(NULL));
	rc = report_db_exec(db, sql, err, errlen);
	if (!rc)
		*id = sqlite3_last_insert_rowid(db);
	return rc;
}

/* The write lock of a database is a lock on this byte of its file (the
 * unix VFS's RESERVED_BYTE: PENDING_BYTE, 0x40000000, plus one). A writer
 * takes it before it makes the journal and lets it go after it removed
 * the journal, so a journal without it is a dead writer's. */
#define RESERVED_BYTE 0x40000001

static bool journal_id(const char *jpath, struct stat *st)
{
	return lstat(jpath, st) == 0 && S_ISREG(st->st_mode);
}

static bool unfinished(const char *db_path)
{
	char jpath[4096];
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = RESERVED_BYTE,
			    .l_len = 1 };
	struct stat j1, j2;
	int fd, n = snprintf(jpath, sizeof(jpath), "%s-journal", db_path);
	bool unlocked;

	if (n < 0 || (size_t)n >= sizeof(jpath) || !journal_id(jpath, &j1))
		return false;
	fd = open(db_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	unlocked = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type == F_UNLCK;
	close(fd);
	/* the same journal still there: not one a writer removed meanwhile */
	return unlocked && journal_id(jpath, &j2) && j1.st_ino == j2.st_ino &&
	       j1.st_dev == j2.st_dev;
}

int run_db_recover(const char *db_path, bool *found, char *err, size_t errlen)
{
	sqlite3 *db;
	int n;

	*found = unfinished(db_path);
	if (!*found)
		return 0;
	/* the first read of a writable connection rolls the journal back */
	db = db_open(db_path, SQLITE_OPEN_READWRITE, err, errlen);
	if (!db)
		return -errno;
	n = count_tables(db);
	sqlite3_close(db);
	if (n == -EBUSY)
		return lock_error(db_path, err, errlen);
	if (n < 0) {
		snprintf(err, errlen, "%s: cannot roll back the run left unfinished", db_path);
		return -EIO;
	}
	return 0;
}
