/* report/columns.h: the columns of the report tables whose rows a run's
 * accumulator fills (syscalls, classes, files, processes, histograms,
 * timeline, rates, errors, divergences and their samples, stacks,
 * filesystems, events, devices and their depth), described once. The list gives each column's
 * name, its SQL type and how store.c (acc.c: events; device.c: devices)
 * computes its value;
 * from it come the DDL fragment (checked against report/schema.sql by
 * tests/unit/test_columns.c), the INSERT and its bindings, the SELECT and
 * the index each value is read at (view.c, show.c), the columns an older
 * report gains when it is opened for writing (db.c) and the fleet's rows
 * of `report merge` (merge.c: files' and processes' usage summed; syscalls,
 * classes and histograms stored from the accumulator it rebuilds, through
 * run_store_syscalls(); the others by their FLEET values, below). merge
 * copies a run's rows by the columns both reports have. Runs' columns are
 * RUN_COLUMNS (report_int.h).
 *
 * A new column is its line here and its line in schema.sql (with the new
 * version's number on its first line). It is NULL-able (a _NULL type): an
 * older report gains it by ALTER TABLE, its old rows NULL. Private to
 * report/.
 *
 * COL(name, type, when, value[, fleet]):
 * - type: CT_ID (the run's id), CT_KEY (int64_t: a pid, a path id),
 *   CT_TEXT (const char *), CT_U64 (uint64_t), CT_REAL (double): NOT NULL;
 *   CT_U64_NULL (uint64_t), CT_I64_NULL (int64_t), CT_REAL_NULL (double),
 *   CT_TEXT_NULL (const char *): NULL unless when;
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
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* The tables below are a run's rows of another kind. After the value
 * comes how `report merge` makes the fleet's rows of the table from its
 * runs' (merge.c: INSERT ... SELECT over the runs' rows, x, joined with
 * their runs, r; ?1 the fleet's id, ?2 its start in ns since the epoch or
 * NULL, ?3 its rate buckets' width): FLEET_KEY(sql), a column the runs'
 * rows are grouped by, or FLEET(sql), an aggregate of the group. A table
 * without them has no fleet rows or gets them elsewhere (histograms: from
 * the accumulator merge.c rebuilds). */
#define FLEET_KEY(sql) .fleet = sql, .fleet_key = true
#define FLEET(sql) .fleet = sql

/* Histograms: bucket b of h, the metric's histogram of syscall sys. */
#define HISTOGRAM_COLUMNS(COL) \
	COL(run_id, CT_ID, 1, run) \
	COL(sys, CT_TEXT, 1, sys) \
	COL(metric, CT_TEXT, 1, metric) \
	COL(bucket, CT_KEY, 1, (int64_t)b) \
	COL(low_ns, CT_U64, 1, hist_bucket_low(b)) \
	COL(high_ns, CT_U64, 1, hist_bucket_high(b)) \
	COL(count, CT_U64, 1, h->b[b])

/* The timeline: class c of r, a second's struct tl_row. Runs are shifted
 * to the fleet's start (unshifted when a start is unknown). */
#define TIMELINE_COLUMNS(COL) \
	COL(run_id, CT_ID, 1, run, FLEET("?1")) \
	COL(second, CT_KEY, 1, r->sec, \
	    FLEET_KEY("x.second + coalesce((r.start_unix_ns - ?2) / 1000000000, 0)")) \
	COL(class, CT_TEXT, 1, tl_class_names[c], FLEET_KEY("x.class")) \
	COL(ops, CT_U64, 1, r->ops[c], FLEET("sum(x.ops)")) \
	COL(bytes, CT_U64, 1, r->bytes[c], FLEET("sum(x.bytes)")) \
	COL(lat_p99_ns, CT_U64_NULL, r->p99[c] != UINT64_MAX, r->p99[c], \
	    FLEET("max(x.lat_p99_ns)"))

/* Rates: bucket i of the accumulator a. */
#define RATE_COLUMNS(COL) \
	COL(run_id, CT_ID, 1, run, FLEET("?1")) \
	COL(t_ns, CT_U64, 1, (uint64_t)i * a->rate_width, \
	    FLEET_KEY("(x.t_ns + coalesce(r.start_unix_ns - ?2, 0)) / ?3 * ?3")) \
	COL(width_ns, CT_U64, 1, a->rate_width, FLEET("?3")) \
	COL(ops, CT_U64, 1, a->rate_ops[i], FLEET("sum(x.ops)")) \
	COL(bytes, CT_U64, 1, a->rate_bytes[i], FLEET("sum(x.bytes)"))

/* Errors: errno e of syscall sys, named name, failed n times. */
#define ERROR_COLUMNS(COL) \
	COL(run_id, CT_ID, 1, run, FLEET("?1")) \
	COL(sys, CT_TEXT, 1, sys, FLEET_KEY("x.sys")) \
	COL(errno, CT_KEY, 1, (int64_t)e, FLEET_KEY("x.errno")) \
	COL(name, CT_TEXT, 1, name, FLEET("min(x.name)")) \
	COL(count, CT_U64, 1, n, FLEET("sum(x.count)"))

/* Divergences: n of kind of syscall sys. */
#define DIVERGENCE_COLUMNS(COL) \
	COL(run_id, CT_ID, 1, run, FLEET("?1")) \
	COL(sys, CT_TEXT, 1, sys, FLEET_KEY("x.sys")) \
	COL(kind, CT_TEXT, 1, kind, FLEET_KEY("x.kind")) \
	COL(count, CT_U64, 1, n, FLEET("sum(x.count)"))

/* A run's first divergences: d, the seq'th (struct div_sample). */
#define DIVERGENCE_SAMPLE_COLUMNS(COL) \
	COL(run_id, CT_ID, 1, run) \
	COL(seq, CT_KEY, 1, (int64_t)seq) \
	COL(sys, CT_TEXT, 1, riot_sys_info(d->sys)->name) \
	COL(kind, CT_TEXT, 1, div_names[d->kind]) \
	COL(captured_ret, CT_I64_NULL, 1, d->captured_ret) \
	COL(replay_ret, CT_I64_NULL, 1, d->replay_ret) \
	COL(path, CT_TEXT_NULL, d->path, d->path)

/* Stacks: f, a struct stack_folded. Each run's stacks are capped already:
 * the fleet's are theirs, summed. */
#define STACK_COLUMNS(COL) \
	COL(run_id, CT_ID, 1, run, FLEET("?1")) \
	COL(stack, CT_TEXT, 1, f->stack, FLEET_KEY("x.stack")) \
	COL(count, CT_U64, 1, f->w[STACK_COUNT], FLEET("sum(x.count)")) \
	COL(time_ns, CT_U64, 1, f->w[STACK_TIME], FLEET("sum(x.time_ns)")) \
	COL(bytes, CT_U64, 1, f->w[STACK_BYTES], FLEET("sum(x.bytes)"))

/* Filesystems: fs, a struct run_fs (its empty strings NULL). */
#define FILESYSTEM_COLUMNS(COL) \
	COL(run_id, CT_ID, 1, run, FLEET("?1")) \
	COL(dev, CT_U64_NULL, 1, fs->dev, FLEET_KEY("x.dev")) \
	COL(fs_type, CT_TEXT_NULL, or_null(fs->fs_type), fs->fs_type, FLEET_KEY("x.fs_type")) \
	COL(device, CT_TEXT_NULL, or_null(fs->device), fs->device, FLEET_KEY("x.device")) \
	COL(mount_point, CT_TEXT_NULL, or_null(fs->mount_point), fs->mount_point, \
	    FLEET_KEY("x.mount_point")) \
	COL(mount_options, CT_TEXT_NULL, or_null(fs->mount_options), fs->mount_options, \
	    FLEET_KEY("x.mount_options")) \
	COL(ops, CT_U64, 1, fs->ops, FLEET("sum(x.ops)"))

/* --events: op, a struct run_op of the run (acc.c). */
#define EVENT_COLUMNS(COL) \
	COL(run_id, CT_ID, 1, run) \
	COL(t_ns, CT_U64, 1, op->t_ns) \
	COL(lat_ns, CT_U64, 1, op->lat_ns) \
	COL(sys, CT_KEY, 1, op->sys) \
	COL(pid, CT_KEY, 1, op->pid) \
	COL(tid, CT_KEY, 1, op->tid) \
	COL(file, CT_U64, 1, op->file) \
	COL(path_id, CT_KEY, 1, op->path_id) \
	COL(ret, CT_KEY, 1, op->ret) \
	COL(issue_delay_ns, CT_I64_NULL, op->issue_delay_ns >= 0, op->issue_delay_ns)

/* The devices (device.c): d, a struct run_device of b, the run's struct
 * run_block, shown as r, its struct dev_row. A fleet's device (merge.c,
 * over column_devices.fleet_from) is the one run of each host that saw it
 * most: the runs of one host that recorded one device saw the same
 * requests in windows that overlap, so its traffic is the most one of
 * them saw (its window's; at least the fleet's), not their sum; hosts'
 * devices are their own and add. Its write amplification comes after
 * (device_amplification()). */
#define DEVICE_LAT_COLUMNS(COL, op, k) \
	COL(op##_p50_ns, CT_U64_NULL, d->lat[k].count > 0, r->p50[k]) \
	COL(op##_p99_ns, CT_U64_NULL, d->lat[k].count > 0, r->p99[k]) \
	COL(op##_max_ns, CT_U64_NULL, d->lat[k].count > 0, r->max[k])
#define DEVICE_COLUMNS(COL) \
	COL(run_id, CT_ID, 1, run, FLEET("?1")) \
	COL(dev, CT_KEY, 1, (int64_t)d->dev, FLEET_KEY("x.dev")) \
	COL(name, CT_TEXT, 1, r->name, FLEET("min(x.name)")) \
	COL(kind, CT_TEXT, 1, r->kind, FLEET("min(x.kind)")) \
	COL(note, CT_TEXT_NULL, r->note[0], r->note, \
	    FLEET("'fleet: on each of ' || count(*) || ' host(s), the most one run saw " \
		  "(their windows overlap), not their sum'")) \
	COL(window_ns, CT_U64, 1, r->window_ns, FLEET("max(x.window_ns)")) \
	COL(flush_ns, CT_U64_NULL, b->synced, b->flush_ns) \
	COL(read_reqs, CT_U64, 1, r->reqs[RUN_DEV_READ], FLEET("sum(x.read_reqs)")) \
	COL(read_bytes, CT_U64, 1, r->bytes[RUN_DEV_READ], FLEET("sum(x.read_bytes)")) \
	COL(write_reqs, CT_U64, 1, r->reqs[RUN_DEV_WRITE], FLEET("sum(x.write_reqs)")) \
	COL(write_bytes, CT_U64, 1, r->bytes[RUN_DEV_WRITE], FLEET("sum(x.write_bytes)")) \
	COL(discard_reqs, CT_U64, 1, r->reqs[RUN_DEV_DISCARD], FLEET("sum(x.discard_reqs)")) \
	COL(discard_bytes, CT_U64, 1, r->bytes[RUN_DEV_DISCARD], FLEET("sum(x.discard_bytes)")) \
	COL(flush_reqs, CT_U64, 1, r->reqs[RUN_DEV_FLUSH], FLEET("sum(x.flush_reqs)")) \
	DEVICE_LAT_COLUMNS(COL, read, 0) \
	DEVICE_LAT_COLUMNS(COL, write, 1) \
	COL(depth_mean, CT_REAL, 1, r->depth_mean, FLEET("max(x.depth_mean)")) \
	COL(depth_peak, CT_U64, 1, r->depth_peak, FLEET("max(x.depth_peak)")) \
	COL(untimed, CT_U64, 1, r->untimed, FLEET("sum(x.untimed)")) \
	COL(write_amplification, CT_REAL_NULL, 0, 0.0)

/* A device's queue depth series: p, the point of d. */
#define DEVICE_DEPTH_COLUMNS(COL) \
	COL(run_id, CT_ID, 1, run) \
	COL(dev, CT_KEY, 1, (int64_t)d->dev) \
	COL(t_ns, CT_U64, 1, p->t_ns) \
	COL(step_ns, CT_U64, 1, d->depth_step_ns) \
	COL(depth, CT_REAL, 1, p->depth) \
	COL(depth_max, CT_U64, 1, p->depth_max)

/* A column's index in its table's list (and in columns_select()'s
 * SELECT): SYSCALL_COL_count, CLASS_COL_gap_sum_ns, STACK_COL_bytes... */
#define SYSCALL_COLUMN_INDEX(name, ...) SYSCALL_COL_##name,
#define CLASS_COLUMN_INDEX(name, ...) CLASS_COL_##name,
#define HISTOGRAM_COLUMN_INDEX(name, ...) HISTOGRAM_COL_##name,
#define TIMELINE_COLUMN_INDEX(name, ...) TIMELINE_COL_##name,
#define RATE_COLUMN_INDEX(name, ...) RATE_COL_##name,
#define ERROR_COLUMN_INDEX(name, ...) ERROR_COL_##name,
#define STACK_COLUMN_INDEX(name, ...) STACK_COL_##name,
#define DEVICE_COLUMN_INDEX(name, ...) DEVICE_COL_##name,
#define DEVICE_DEPTH_COLUMN_INDEX(name, ...) DEVICE_DEPTH_COL_##name,
enum { SYSCALL_COLUMNS(SYSCALL_COLUMN_INDEX) SYSCALL_NCOLS };
enum { CLASS_COLUMNS(CLASS_COLUMN_INDEX) CLASS_NCOLS };
enum { HISTOGRAM_COLUMNS(HISTOGRAM_COLUMN_INDEX) HISTOGRAM_NCOLS };
enum { TIMELINE_COLUMNS(TIMELINE_COLUMN_INDEX) TIMELINE_NCOLS };
enum { RATE_COLUMNS(RATE_COLUMN_INDEX) RATE_NCOLS };
enum { ERROR_COLUMNS(ERROR_COLUMN_INDEX) ERROR_NCOLS };
enum { STACK_COLUMNS(STACK_COLUMN_INDEX) STACK_NCOLS };
enum { DEVICE_COLUMNS(DEVICE_COLUMN_INDEX) DEVICE_NCOLS };
enum { DEVICE_DEPTH_COLUMNS(DEVICE_DEPTH_COLUMN_INDEX) DEVICE_DEPTH_NCOLS };

enum column_type {
	CT_ID, CT_KEY, CT_TEXT, CT_U64, CT_REAL, CT_U64_NULL, CT_I64_NULL, CT_REAL_NULL,
	CT_TEXT_NULL
};

struct column {
	const char *name;
	enum column_type type;
	const char *fleet;		/* its fleet's value, or NULL */
	bool fleet_key;			/* the fleet's rows are grouped by it */
};

struct column_table {
	const char *name;
	const struct column *cols;
	size_t n;
	/* the rows a fleet's are made of: "FROM ... WHERE", "%s" the runs
	 * (columns_fleet()); NULL: every row of those runs, x, and its run, r */
	const char *fleet_from;
};

extern const struct column_table column_syscalls, column_classes, column_files,
	column_processes, column_histograms, column_timeline, column_rates, column_errors,
	column_divergences, column_divergence_samples, column_stacks, column_filesystems,
	column_events, column_devices, column_device_depth;
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
/* *st: "SELECT every column of t (columns_select()) FROM t x tail"; a
 * value is read at its index (STACK_COL_count...). 0, -E2BIG, or -EIO
 * (an older report may lack t). */
int columns_prepare(sqlite3 *db, const struct column_table *t, const char *tail,
		    sqlite3_stmt **st);
/* Adds to db's tables the NULL-able columns they lack (a report older than
 * them). 0, or -EIO with the reason in err. */
int columns_upgrade(sqlite3 *db, char *err, size_t errlen);
/* "INSERT INTO t (columns with a fleet value) SELECT their fleet values
 * FROM t x JOIN runs r ON r.id = x.run_id WHERE x.run_id IN runs GROUP BY
 * the fleet's keys": the fleet's rows of t from those of runs (an SQL
 * list). 0, -ENOENT (t has no fleet rows) or -E2BIG. */
int columns_fleet(const struct column_table *t, const char *runs, char *out, size_t len);

/* Binding a column's value by its type, as store.c's and acc.c's
 * COLUMN_BIND do; one not bound (its when does not hold) is NULL, so a
 * row starts with cleared bindings. */
static inline void column_bind_CT_ID(sqlite3_stmt *st, int col, int64_t v)
{
	sqlite3_bind_int64(st, col, v);
}

static inline void column_bind_CT_TEXT(sqlite3_stmt *st, int col, const char *v)
{
	sqlite3_bind_text(st, col, v, -1, SQLITE_TRANSIENT);
}

static inline void column_bind_CT_U64(sqlite3_stmt *st, int col, uint64_t v)
{
	sqlite3_bind_int64(st, col, (int64_t)v);
}

static inline void column_bind_CT_REAL(sqlite3_stmt *st, int col, double v)
{
	sqlite3_bind_double(st, col, v);
}

#define column_bind_CT_KEY column_bind_CT_ID
#define column_bind_CT_I64_NULL column_bind_CT_ID
#define column_bind_CT_U64_NULL column_bind_CT_U64
#define column_bind_CT_REAL_NULL column_bind_CT_REAL
#define column_bind_CT_TEXT_NULL column_bind_CT_TEXT

/* Binds a row's columns in the list's order, with an int col at 0 in
 * scope; the values' names (columns.h, each list) in scope too. */
#define COLUMN_BIND(name, type, when, value, ...) \
	col++; \
	if (when) \
		column_bind_##type(st, col, (value));

#endif
