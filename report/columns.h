/* report/columns.h: the columns of the report tables whose rows a run's
 * accumulator fills (syscalls, classes, files, processes), described once.
 * The list gives each column's name, its SQL type and how store.c computes
 * its value; from it come the DDL fragment (checked against
 * report/schema.sql by tests/unit/test_columns.c), the INSERT and its
 * bindings (store.c), the SELECT and the index each value is read at
 * (view.c), the columns an older report gains when it is opened for
 * writing (db.c) and the fleet's rows of `report merge` (merge.c: files'
 * and processes' usage summed; syscalls and classes stored from the
 * accumulator it rebuilds, through run_store_syscalls()). merge copies a
 * run's rows by the columns both reports have.
 *
 * A new column is its line here and its line in schema.sql (with the new
 * version's number on its first line). It is NULL-able (a _NULL type): an
 * older report gains it by ALTER TABLE, its old rows NULL. Private to
 * report/.
 *
 * COL(name, type, when, value):
 * - type: CT_ID (the run's id), CT_KEY (int64_t: a pid, a path id),
 *   CT_TEXT (const char *), CT_U64 (uint64_t), CT_REAL (double): NOT NULL;
 *   CT_U64_NULL (uint64_t), CT_TEXT_NULL (const char *): NULL unless when;
 * - when: the value is stored only when this holds (the _NULL types), else 1;
 * - value: its expression in store.c. Syscalls: over i (the syscall's
 *   index), x (its struct sys_acc), h (its latency histogram) and d (its
 *   issue-delay histogram, NULL when it has none or it is empty); classes:
 *   over name (the class's), c (its struct class_sum), h (its latency
 *   histogram) and g (its gap histogram); files and processes: below; all
 *   over run (the run's id). */
#ifndef RIOT_REPORT_COLUMNS_H
#define RIOT_REPORT_COLUMNS_H

#include <sqlite3.h>
#include <stddef.h>

#define SYSCALL_COLUMNS(COL) \
	COL(run_id, CT_ID, 1, run) \
	COL(sys, CT_TEXT, 1, riot_sys_info(i)->name) \
	COL(class, CT_TEXT, 1, riot_class_name(riot_sys_info(i)->cls)) \
	COL(count, CT_U64, 1, h->count) \
	COL(errors, CT_U64, 1, x->errors) \
	COL(bytes, CT_U64, 1, x->bytes) \
	COL(lat_sum_ns, CT_U64, 1, h->sum) \
	COL(lat_mean_ns, CT_REAL, 1, hist_mean(h)) \
	COL(lat_min_ns, CT_U64, 1, h->min) \
	COL(lat_p50_ns, CT_U64, 1, hist_quantile(h, 0.5)) \
	COL(lat_p90_ns, CT_U64, 1, hist_quantile(h, 0.9)) \
	COL(lat_p99_ns, CT_U64, 1, hist_quantile(h, 0.99)) \
	COL(lat_p999_ns, CT_U64, 1, hist_quantile(h, 0.999)) \
	COL(lat_max_ns, CT_U64, 1, h->max) \
	COL(delay_count, CT_U64, 1, d ? d->count : 0) \
	COL(delay_p50_ns, CT_U64_NULL, d, hist_quantile(d, 0.5)) \
	COL(delay_p99_ns, CT_U64_NULL, d, hist_quantile(d, 0.99)) \
	COL(delay_max_ns, CT_U64_NULL, d, d->max)

#define CLASS_COLUMNS(COL) \
	COL(run_id, CT_ID, 1, run) \
	COL(class, CT_TEXT, 1, name) \
	COL(count, CT_U64, 1, h->count) \
	COL(errors, CT_U64, 1, c->errors) \
	COL(bytes, CT_U64, 1, c->bytes) \
	COL(lat_sum_ns, CT_U64, 1, h->sum) \
	COL(lat_p50_ns, CT_U64, 1, hist_quantile(h, 0.5)) \
	COL(lat_p90_ns, CT_U64, 1, hist_quantile(h, 0.9)) \
	COL(lat_p99_ns, CT_U64, 1, hist_quantile(h, 0.99)) \
	COL(lat_p999_ns, CT_U64, 1, hist_quantile(h, 0.999)) \
	COL(lat_max_ns, CT_U64, 1, h->max) \
	COL(gap_count, CT_U64_NULL, g->count, g->count) \
	COL(gap_sum_ns, CT_U64_NULL, g->count, g->sum) \
	COL(gap_p50_ns, CT_U64_NULL, g->count, hist_quantile(g, 0.5)) \
	COL(gap_p99_ns, CT_U64_NULL, g->count, hist_quantile(g, 0.99))

/* A file's or a process's usage (u, a struct usage), after its key: the
 * fleet of `report merge` sums every CT_U64 column of files and
 * processes over its runs. */
#define USAGE_COLUMNS(COL) \
	COL(ops, CT_U64, 1, u->ops) \
	COL(errors, CT_U64, 1, u->errors) \
	COL(bytes_read, CT_U64, 1, u->bytes_read) \
	COL(bytes_written, CT_U64, 1, u->bytes_written) \
	COL(lat_sum_ns, CT_U64, 1, u->lat_sum)

/* Files: over id (the path id) and path (NULL: none). */
#define FILE_COLUMNS(COL) \
	COL(run_id, CT_ID, 1, run) \
	COL(path_id, CT_KEY, 1, id) \
	COL(path, CT_TEXT_NULL, path, path) \
	USAGE_COLUMNS(COL)

/* Processes: over p (the struct proc_acc). */
#define PROCESS_COLUMNS(COL) \
	COL(run_id, CT_ID, 1, run) \
	COL(pid, CT_KEY, 1, p->pid) \
	COL(comm, CT_TEXT_NULL, p->comm, p->comm) \
	USAGE_COLUMNS(COL)

/* A column's index in its table's list (and in columns_select()'s
 * SELECT): SYSCALL_COL_count, CLASS_COL_gap_sum_ns... */
#define SYSCALL_COLUMN_INDEX(name, ...) SYSCALL_COL_##name,
#define CLASS_COLUMN_INDEX(name, ...) CLASS_COL_##name,
enum { SYSCALL_COLUMNS(SYSCALL_COLUMN_INDEX) SYSCALL_NCOLS };
enum { CLASS_COLUMNS(CLASS_COLUMN_INDEX) CLASS_NCOLS };

enum column_type { CT_ID, CT_KEY, CT_TEXT, CT_U64, CT_REAL, CT_U64_NULL, CT_TEXT_NULL };

struct column {
	const char *name;
	enum column_type type;
};

struct column_table {
	const char *name;
	const struct column *cols;
	size_t n;
};

extern const struct column_table column_syscalls, column_classes, column_files,
	column_processes;
/* Every table described here, for the schema's checks and upgrades. */
extern const struct column_table *const column_tables[];
extern const size_t column_ntables;

/* "name TYPE[ NOT NULL], ..." of every column, as schema.sql declares
 * them (its constraints and keys aside). 0 or -E2BIG. */
int columns_ddl(const struct column_table *t, char *out, size_t len);
/* "INSERT INTO table (a, b, ...) VALUES (?, ?, ...)". 0 or -E2BIG. */
int columns_insert(const struct column_table *t, char *out, size_t len);
/* "alias.a, alias.b, ..." of every column, "NULL" in place of one that db's
 * table lacks (a report older than the column), so column k of the result
 * is the list's k. 0, -EIO or -E2BIG. */
int columns_select(sqlite3 *db, const struct column_table *t, const char *alias, char *out,
		   size_t len);
/* Adds to db's tables the NULL-able columns they lack (a report older than
 * them). 0, or -EIO with the reason in err. */
int columns_upgrade(sqlite3 *db, char *err, size_t errlen);

#endif
