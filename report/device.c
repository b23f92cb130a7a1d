/* report/device.c: what reached the block devices (schema.sql's devices
 * and device_depth tables): storing a run's, and showing them in
 * `report show`, `compare`, the HTML page and the replay summary. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/text.h"
#include "report/columns.h"
#include "report/report_int.h"
#include "lib/cli.h"
#include "lib/json.h"
#include "report/view.h"

/* One device of a run as shown: from a recording or from the database. */
struct dev_row {
	char name[32], kind[16], note[320];
	uint64_t window_ns, flush_ns;
	uint64_t reqs[RUN_DEV_OPS], bytes[RUN_DEV_OPS];
	uint64_t p50[2], p99[2], max[2];
	double depth_mean;
	uint64_t depth_peak, untimed;
};

static const char *const op_names[RUN_DEV_OPS] = { "read", "write", "discard", "flush" };

static double depth_mean(uint64_t lat_sum, uint64_t window_ns)
{
	return window_ns ? (double)lat_sum / (double)window_ns : 0;
}

static void row_of_device(const struct run_device *d, const struct run_block *b,
			  struct dev_row *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", d->name);
	snprintf(r->kind, sizeof(r->kind), "%s", d->kind);
	snprintf(r->note, sizeof(r->note), "%s", d->note);
	r->window_ns = b->window_ns;
	r->flush_ns = b->synced ? b->flush_ns : 0;
	memcpy(r->reqs, d->reqs, sizeof(r->reqs));
	memcpy(r->bytes, d->bytes, sizeof(r->bytes));
	for (unsigned k = 0; k < 2; k++) {
		r->p50[k] = hist_quantile(&d->lat[k], 0.5);
		r->p99[k] = hist_quantile(&d->lat[k], 0.99);
		r->max[k] = d->lat[k].max;
	}
	r->depth_mean = depth_mean(d->lat_sum_all, b->window_ns);
	r->depth_peak = d->depth_peak;
	r->untimed = d->untimed;
}

/* What the workload wrote to files, the write amplification's divisor: a
 * replay's bytes written (it writes files under its root only); for a
 * capture, the bytes written to files with a path outside /dev, /proc and
 * /sys (not to pipes, sockets, terminals or /dev/null). ?1 is the run. */
#define WORKLOAD_WRITTEN \
	"SELECT CASE r.kind WHEN 'replay' THEN r.bytes_written ELSE " \
	"(SELECT coalesce(sum(f.bytes_written), 0) FROM files f WHERE f.run_id = r.id " \
	"AND f.path_id != 0 AND f.path NOT LIKE '/dev/%' AND f.path NOT LIKE '/proc/%' " \
	"AND f.path NOT LIKE '/sys/%') END FROM runs r WHERE r.id = ?1"

static uint64_t workload_written(sqlite3 *db, int64_t run)
{
	sqlite3_stmt *st;
	uint64_t n = 0;

	if (sqlite3_prepare_v2(db, WORKLOAD_WRITTEN, -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, run);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* ---- storing ---- */

static int step(sqlite3 *db, sqlite3_stmt *st, char *err, size_t errlen)
{
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;

	if (rc)
		snprintf(err, errlen, "%s: %s", sqlite3_db_filename(db, "main"), sqlite3_errmsg(db));
	sqlite3_reset(st);
	return rc;
}

/* The devices row of d (DEVICE_COLUMNS). */
static int store_device(sqlite3 *db, sqlite3_stmt *st, int64_t run, const struct run_device *d,
			const struct run_block *b, char *err, size_t errlen)
{
	struct dev_row row, *r = &row;
	int col = 0;

	row_of_device(d, b, r);
	sqlite3_clear_bindings(st);
	DEVICE_COLUMNS(COLUMN_BIND)
	return step(db, st, err, errlen);
}

/* The device_depth rows of d (DEVICE_DEPTH_COLUMNS). */
static int store_depth(sqlite3 *db, sqlite3_stmt *st, int64_t run, const struct run_device *d,
		       char *err, size_t errlen)
{
	int rc = 0;

	for (unsigned i = 0; i < d->ndepth && !rc; i++) {
		const struct run_depth_point *p = &d->depth[i];
		int col = 0;

		sqlite3_clear_bindings(st);
		DEVICE_DEPTH_COLUMNS(COLUMN_BIND)
		rc = step(db, st, err, errlen);
	}
	return rc;
}

static const char wa_sql[] =
	"UPDATE devices SET write_amplification = write_bytes * 1.0 / (" WORKLOAD_WRITTEN
	") WHERE run_id = ?1 AND (" WORKLOAD_WRITTEN ") > 0";

int device_amplification(sqlite3 *db, int64_t run, char *err, size_t errlen)
{
	sqlite3_stmt *wa;
	int rc;

	if (sqlite3_prepare_v2(db, wa_sql, -1, &wa, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", sqlite3_db_filename(db, "main"), sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(wa, 1, run);
	rc = step(db, wa, err, errlen);
	sqlite3_finalize(wa);
	return rc;
}

int device_store(sqlite3 *db, int64_t run, const struct run_block *b, char *err, size_t errlen)
{
	sqlite3_stmt *dev = NULL, *depth = NULL, *wa = NULL;
	char dev_sql[1024], depth_sql[256];
	int rc = columns_insert(&column_devices, dev_sql, sizeof(dev_sql));

	if (!rc)
		rc = columns_insert(&column_device_depth, depth_sql, sizeof(depth_sql));
	if (rc) {
		snprintf(err, errlen, "the devices tables have too many columns");
		return rc;
	}
	if (sqlite3_prepare_v2(db, dev_sql, -1, &dev, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, depth_sql, -1, &depth, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, wa_sql, -1, &wa, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", sqlite3_db_filename(db, "main"), sqlite3_errmsg(db));
		rc = -EIO;
	}
	for (unsigned i = 0; i < b->ndev && !rc; i++) {
		rc = store_device(db, dev, run, &b->dev[i], b, err, errlen);
		if (!rc)
			rc = store_depth(db, depth, run, &b->dev[i], err, errlen);
	}
	if (!rc) {
		sqlite3_bind_int64(wa, 1, run);
		rc = step(db, wa, err, errlen);
	}
	sqlite3_finalize(dev);
	sqlite3_finalize(depth);
	sqlite3_finalize(wa);
	return rc;
}

/* ---- reading back ---- */

static uint64_t col_u64(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? 0 : (uint64_t)sqlite3_column_int64(st, i);
}

static void col_text(sqlite3_stmt *st, int i, char *buf, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	snprintf(buf, len, "%s", t ? (const char *)t : "");
}

/* The devices of run id, at most max; a report older than version 3 has
 * none. Returns how many. */
static unsigned load_devices(sqlite3 *db, int64_t id, struct dev_row *rows, unsigned max)
{
	sqlite3_stmt *st;
	unsigned n = 0;

	if (columns_prepare(db, &column_devices, "WHERE run_id = ? ORDER BY write_bytes + "
			    "read_bytes DESC, dev", &st))
		return 0;
	sqlite3_bind_int64(st, 1, id);
	while (n < max && sqlite3_step(st) == SQLITE_ROW) {
		struct dev_row *r = &rows[n++];

		memset(r, 0, sizeof(*r));
		col_text(st, DEVICE_COL_name, r->name, sizeof(r->name));
		col_text(st, DEVICE_COL_kind, r->kind, sizeof(r->kind));
		col_text(st, DEVICE_COL_note, r->note, sizeof(r->note));
		r->window_ns = col_u64(st, DEVICE_COL_window_ns);
		r->flush_ns = col_u64(st, DEVICE_COL_flush_ns);
		r->reqs[RUN_DEV_READ] = col_u64(st, DEVICE_COL_read_reqs);
		r->bytes[RUN_DEV_READ] = col_u64(st, DEVICE_COL_read_bytes);
		r->reqs[RUN_DEV_WRITE] = col_u64(st, DEVICE_COL_write_reqs);
		r->bytes[RUN_DEV_WRITE] = col_u64(st, DEVICE_COL_write_bytes);
		r->reqs[RUN_DEV_DISCARD] = col_u64(st, DEVICE_COL_discard_reqs);
		r->bytes[RUN_DEV_DISCARD] = col_u64(st, DEVICE_COL_discard_bytes);
		r->reqs[RUN_DEV_FLUSH] = col_u64(st, DEVICE_COL_flush_reqs);
		r->p50[0] = col_u64(st, DEVICE_COL_read_p50_ns);
		r->p99[0] = col_u64(st, DEVICE_COL_read_p99_ns);
		r->max[0] = col_u64(st, DEVICE_COL_read_max_ns);
		r->p50[1] = col_u64(st, DEVICE_COL_write_p50_ns);
		r->p99[1] = col_u64(st, DEVICE_COL_write_p99_ns);
		r->max[1] = col_u64(st, DEVICE_COL_write_max_ns);
		r->depth_mean = sqlite3_column_double(st, DEVICE_COL_depth_mean);
		r->depth_peak = col_u64(st, DEVICE_COL_depth_peak);
		r->untimed = col_u64(st, DEVICE_COL_untimed);
	}
	sqlite3_finalize(st);
	return n;
}

/* ---- text ---- */

/* A stored run's sharing (runs.device_shared and the others). */
static struct run_dev_sharing view_sharing(const struct run_view *v)
{
	struct run_dev_sharing sh = {
		.sharing = v->device_shared == 1 ? RUN_DEV_SHARED :
			   v->device_shared == 0 ? RUN_DEV_SOLE : 0,
		.others = v->device_other_writers, .other_bytes = v->device_other_bytes,
	};

	unsigned k, n;

	if (v->shard && sscanf(v->shard, "%u/%u", &k, &n) == 2)
		sh.shard_n = n;
	return sh;
}

/* The line saying whose traffic the device's was. */
static void print_sharing(FILE *out, const struct run_dev_sharing *sh)
{
	char b[24];

	if (!sh)
		return;
	if (!sh->sharing) {
		fprintf(out, "device traffic: the device's in the window, whoever sent it (riot "
			"cannot tell whether others wrote: it does not see every process of this "
			"host)\n");
		return;
	}
	if (sh->sharing == RUN_DEV_SOLE) {
		fprintf(out, "device traffic: this run's alone (no other process of this host "
			"wrote to storage in the window)\n");
		return;
	}
	fprintf(out, "device traffic: the device's in the window, shared, not this run's "
		"alone:");
	if (sh->shard_n > 1)
		fprintf(out, " a shard of %u, whose fleet writes the same storage%s", sh->shard_n,
			sh->others ? ";" : "");
	if (sh->others)
		fprintf(out, " %llu other process%s of this host wrote %s meanwhile",
			(unsigned long long)sh->others, sh->others > 1 ? "es" : "",
			riot_fmt_bytes(sh->other_bytes, b, sizeof(b)));
	fprintf(out, "\n");
}

static void print_rows(FILE *out, const struct dev_row *rows, unsigned n, uint64_t wrote,
		       const struct run_dev_sharing *sh)
{
	bool shared = sh && sh->sharing == RUN_DEV_SHARED;
	uint64_t dev_wrote = 0;

	for (unsigned i = 0; i < n; i++) {
		const struct dev_row *r = &rows[i];
		char b[4][24];

		fprintf(out, "device %s (%s%s%s)\n", r->name, r->kind, r->note[0] ? "; " : "",
			r->note);
		fprintf(out, "  %-8s %10s %12s %10s %10s %10s\n", "", "requests", "bytes", "p50",
			"p99", "max");
		for (unsigned k = 0; k < RUN_DEV_OPS; k++) {
			fprintf(out, "  %-8s %10llu %12s", op_names[k], (unsigned long long)r->reqs[k],
				k == RUN_DEV_FLUSH ? "-" : riot_fmt_bytes(r->bytes[k], b[0], 24));
			if (k < 2 && r->reqs[k])
				fprintf(out, " %10s %10s %10s", riot_fmt_ns(r->p50[k], b[1], 24),
					riot_fmt_ns(r->p99[k], b[2], 24), riot_fmt_ns(r->max[k], b[3], 24));
			fprintf(out, "\n");
		}
		fprintf(out, "  queue depth: mean %.2f, peak %llu; window %s%s%s%s\n", r->depth_mean,
			(unsigned long long)r->depth_peak, riot_fmt_ns(r->window_ns, b[0], 24),
			r->flush_ns ? ", ended by syncfs (" : " (no syncfs at the end)",
			r->flush_ns ? riot_fmt_ns(r->flush_ns, b[1], 24) : "", r->flush_ns ? ")" : "");
		dev_wrote += r->bytes[RUN_DEV_WRITE];
	}
	if (n)
		print_sharing(out, sh);
	if (wrote == RUN_BYTES_UNKNOWN) {
		return;
	} else if (n && wrote && shared) {
		char b[2][24];

		/* the device's bytes over this run's: not this run's figure */
		fprintf(out, "write amplification: %.3f for the device in the window, shared "
			"(%s reached the device%s; this run wrote %s to files)%s\n",
			(double)dev_wrote / (double)wrote, riot_fmt_bytes(dev_wrote, b[0], 24),
			n > 1 ? "s" : "", riot_fmt_bytes(wrote, b[1], 24), sh->shard_n > 1 ?
			"; the fleet's, once per device: riot report merge" : "");
	} else if (n && wrote) {
		char b[2][24];

		fprintf(out, "write amplification: %.3f (%s reached the device%s, the workload "
			"wrote %s to files)\n", (double)dev_wrote / (double)wrote,
			riot_fmt_bytes(dev_wrote, b[0], 24), n > 1 ? "s" : "",
			riot_fmt_bytes(wrote, b[1], 24));
	} else if (n) {
		fprintf(out, "write amplification: - (the workload wrote nothing)\n");
	}
}

void run_block_print(FILE *out, const struct run_block *b, uint64_t bytes_written,
		     const struct run_dev_sharing *sh)
{
	struct dev_row *rows = calloc(b->ndev ? b->ndev : 1, sizeof(*rows));

	if (!rows)
		return;
	for (unsigned i = 0; i < b->ndev; i++)
		row_of_device(&b->dev[i], b, &rows[i]);
	print_rows(out, rows, b->ndev, bytes_written, sh);
	free(rows);
}

#define SHOW_DEVS_MAX 16

void device_show(FILE *out, const struct run_view *v)
{
	struct dev_row rows[SHOW_DEVS_MAX];
	unsigned n = load_devices(v->db, v->id, rows, SHOW_DEVS_MAX);

	if (!n)
		return;
	fprintf(out, "\nwhat reached the storage (block layer)\n");
	{
		/* NULL: unknown (a fleet run, a report older than version 7) */
		struct run_dev_sharing sh = view_sharing(v);

		print_rows(out, rows, n, workload_written(v->db, v->id),
			   v->device_shared >= 0 ? &sh : NULL);
	}
}

void device_json(struct json *j, const struct run_view *v)
{
	struct dev_row rows[SHOW_DEVS_MAX];
	unsigned n = load_devices(v->db, v->id, rows, SHOW_DEVS_MAX);
	uint64_t wrote = n ? workload_written(v->db, v->id) : 0, dev_wrote = 0;

	json_arr_open(j, "devices");
	for (unsigned i = 0; i < n; i++) {
		const struct dev_row *r = &rows[i];

		json_obj_open(j, NULL);
		json_str(j, "name", r->name);
		json_str(j, "kind", r->kind);
		json_str(j, "note", r->note[0] ? r->note : NULL);
		json_u64(j, "window_ns", r->window_ns);
		json_u64(j, "flush_ns", r->flush_ns);
		for (unsigned k = 0; k < RUN_DEV_OPS; k++) {
			char key[32];

			snprintf(key, sizeof(key), "%s_reqs", op_names[k]);
			json_u64(j, key, r->reqs[k]);
			if (k == RUN_DEV_FLUSH)
				continue;
			snprintf(key, sizeof(key), "%s_bytes", op_names[k]);
			json_u64(j, key, r->bytes[k]);
		}
		for (unsigned k = 0; k < 2; k++) {
			char key[32];

			snprintf(key, sizeof(key), "%s_p50_ns", op_names[k]);
			json_u64(j, key, r->p50[k]);
			snprintf(key, sizeof(key), "%s_p99_ns", op_names[k]);
			json_u64(j, key, r->p99[k]);
			snprintf(key, sizeof(key), "%s_max_ns", op_names[k]);
			json_u64(j, key, r->max[k]);
		}
		json_double(j, "depth_mean", r->depth_mean);
		json_u64(j, "depth_peak", r->depth_peak);
		json_obj_close(j);
		dev_wrote += r->bytes[RUN_DEV_WRITE];
	}
	json_arr_close(j);
	if (wrote)
		json_double(j, "write_amplification", (double)dev_wrote / (double)wrote);
	else
		json_null(j, "write_amplification");
	/* whose traffic: true shared, false this run's alone, null unknown */
	if (n && v->device_shared >= 0)
		json_bool(j, "device_shared", v->device_shared == 1);
	else
		json_null(j, "device_shared");
}

/* ---- compare ---- */

/* A run's devices summed; latencies and depth from its busiest device. */
struct dev_sum {
	unsigned n;
	uint64_t wrote;			/* workload_written() */
	char names[96];
	struct dev_row t;
};

static void sum_devices(const struct run_view *v, struct dev_sum *s)
{
	struct dev_row rows[SHOW_DEVS_MAX];

	memset(s, 0, sizeof(*s));
	s->n = load_devices(v->db, v->id, rows, SHOW_DEVS_MAX);
	if (!s->n)
		return;
	s->wrote = workload_written(v->db, v->id);
	s->t = rows[0];		/* the busiest: load_devices' order */
	for (unsigned i = 0; i < s->n; i++) {
		size_t l = strlen(s->names);

		snprintf(s->names + l, sizeof(s->names) - l, "%s%s", i ? "+" : "", rows[i].name);
		if (i == 0)
			continue;
		for (unsigned k = 0; k < RUN_DEV_OPS; k++) {
			s->t.reqs[k] += rows[i].reqs[k];
			s->t.bytes[k] += rows[i].bytes[k];
		}
	}
}

enum dev_metric {
	DM_WRITE_BYTES, DM_WRITE_REQS, DM_READ_BYTES, DM_READ_REQS, DM_DISCARD_BYTES,
	DM_FLUSH_REQS, DM_WRITE_P50, DM_WRITE_P99, DM_READ_P50, DM_READ_P99, DM_DEPTH_MEAN,
	DM_DEPTH_PEAK, DM_WA, DM_COUNT
};

static const char *const dm_names[DM_COUNT] = {
	"bytes written", "write requests", "bytes read", "read requests", "bytes discarded",
	"flush requests", "write p50", "write p99", "read p50", "read p99", "queue depth mean",
	"queue depth peak", "write amplification",
};

/* The value of m for a run, and whether it has one. */
static bool dm_value(const struct dev_sum *s, const struct run_view *v, enum dev_metric m,
		     double *out)
{
	const struct dev_row *t = &s->t;

	switch (m) {
	case DM_WRITE_BYTES: *out = (double)t->bytes[RUN_DEV_WRITE]; return true;
	case DM_WRITE_REQS: *out = (double)t->reqs[RUN_DEV_WRITE]; return true;
	case DM_READ_BYTES: *out = (double)t->bytes[RUN_DEV_READ]; return true;
	case DM_READ_REQS: *out = (double)t->reqs[RUN_DEV_READ]; return true;
	case DM_DISCARD_BYTES: *out = (double)t->bytes[RUN_DEV_DISCARD]; return true;
	case DM_FLUSH_REQS: *out = (double)t->reqs[RUN_DEV_FLUSH]; return true;
	case DM_WRITE_P50: *out = (double)t->p50[1]; return t->reqs[RUN_DEV_WRITE] > 0;
	case DM_WRITE_P99: *out = (double)t->p99[1]; return t->reqs[RUN_DEV_WRITE] > 0;
	case DM_READ_P50: *out = (double)t->p50[0]; return t->reqs[RUN_DEV_READ] > 0;
	case DM_READ_P99: *out = (double)t->p99[0]; return t->reqs[RUN_DEV_READ] > 0;
	case DM_DEPTH_MEAN: *out = t->depth_mean; return true;
	case DM_DEPTH_PEAK: *out = (double)t->depth_peak; return true;
	case DM_WA:
		*out = s->wrote ? (double)t->bytes[RUN_DEV_WRITE] / (double)s->wrote : 0;
		return s->wrote > 0;
	default: return false;
	}
}

static const char *dm_fmt(enum dev_metric m, double v, char *buf, size_t len)
{
	switch (m) {
	case DM_WRITE_BYTES: case DM_READ_BYTES: case DM_DISCARD_BYTES:
		return riot_fmt_bytes((uint64_t)v, buf, (unsigned)len);
	case DM_WRITE_P50: case DM_WRITE_P99: case DM_READ_P50: case DM_READ_P99:
		return riot_fmt_ns((uint64_t)v, buf, len);
	case DM_DEPTH_MEAN:
		snprintf(buf, len, "%.2f", v);
		return buf;
	case DM_WA:
		snprintf(buf, len, "%.3f", v);
		return buf;
	default:
		snprintf(buf, len, "%.0f", v);
		return buf;
	}
}

/* The device sums of runs[0..n); false when none has devices. */
static bool sum_all(struct run_view *runs, unsigned n, struct dev_sum *s)
{
	bool any = false;

	for (unsigned i = 0; i < n; i++) {
		sum_devices(&runs[i], &s[i]);
		any |= s[i].n > 0;
	}
	return any;
}

void device_compare(FILE *out, struct run_view *runs, unsigned n)
{
	struct dev_sum *s = calloc(n, sizeof(*s));
	int w = 20;

	if (!s || !sum_all(runs, n, s)) {
		free(s);
		return;
	}
	for (unsigned i = 0; i < n; i++)
		if ((int)strlen(runs[i].label) > w)
			w = (int)strlen(runs[i].label);
	fprintf(out, "\nwhat reached the storage (block layer; ratios against %s)\n",
		runs[0].label);
	fprintf(out, "  %-20s", "");
	for (unsigned i = 0; i < n; i++)
		fprintf(out, " %*s", w, runs[i].label);
	fprintf(out, "\n  %-20s", "devices");
	for (unsigned i = 0; i < n; i++)
		fprintf(out, " %*s", w, s[i].n ? s[i].names : "(not recorded)");
	fprintf(out, "\n");
	for (unsigned m = 0; m < DM_COUNT; m++) {
		double base = 0, v;
		bool base_ok = dm_value(&s[0], &runs[0], m, &base) && s[0].n;
		char buf[64];

		fprintf(out, "  %-20s", dm_names[m]);
		for (unsigned i = 0; i < n; i++)
			fprintf(out, " %*s", w, s[i].n && dm_value(&s[i], &runs[i], m, &v) ?
				dm_fmt(m, v, buf, sizeof(buf)) : "-");
		for (unsigned i = 1; i < n; i++) {
			if (s[i].n && base_ok && base > 0 && dm_value(&s[i], &runs[i], m, &v))
				fprintf(out, "  x%.3f", v / base);
			else
				fprintf(out, "  -");
		}
		fprintf(out, "\n");
	}
	free(s);
}

/* ---- HTML ---- */

#define DEPTH_W 640
#define DEPTH_H 160

/* A run's queue depth series of its busiest device as an SVG polyline. */
static void html_depth(FILE *f, const struct run_view *v)
{
	sqlite3_stmt *st;
	double top = 1;
	uint64_t span = 1;

	if (sqlite3_prepare_v2(v->db, "SELECT max(depth_max), max(t_ns + step_ns) FROM device_depth "
			       "WHERE run_id = ?1 AND dev = (SELECT dev FROM devices WHERE run_id = ?1 "
			       "ORDER BY write_bytes + read_bytes DESC, dev LIMIT 1)", -1, &st,
			       NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, v->id);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		top = sqlite3_column_double(st, 0) > 1 ? sqlite3_column_double(st, 0) : 1;
		span = col_u64(st, 1) ? col_u64(st, 1) : 1;
	} else {
		sqlite3_finalize(st);
		return;
	}
	sqlite3_finalize(st);
	fprintf(f, "<figure><figcaption>queue depth of ");
	text_put_html(f, v->label);
	fprintf(f, " (mean per point, and the most in flight; 0 to %.0f over %.3f s)"
		"</figcaption><svg class=\"depth\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%d\"><rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		"fill=\"none\" stroke=\"#999\"/>\n", top, (double)span / 1e9, DEPTH_W, DEPTH_H,
		DEPTH_W, DEPTH_H);
	for (int pass = 0; pass < 2; pass++) {
		if (columns_prepare(v->db, &column_device_depth, "WHERE run_id = ?1 AND dev = "
				    "(SELECT dev FROM devices WHERE run_id = ?1 ORDER BY write_bytes "
				    "+ read_bytes DESC, dev LIMIT 1) ORDER BY t_ns", &st))
			return;
		sqlite3_bind_int64(st, 1, v->id);
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" points=\"",
			pass ? "#d62728" : "#1f77b4");
		while (sqlite3_step(st) == SQLITE_ROW) {
			double x = (double)(col_u64(st, DEVICE_DEPTH_COL_t_ns) +
					    col_u64(st, DEVICE_DEPTH_COL_step_ns) / 2) / (double)span;
			double y = sqlite3_column_double(st, pass ? DEVICE_DEPTH_COL_depth_max :
							 DEVICE_DEPTH_COL_depth) / top;

			fprintf(f, "%.1f,%.1f ", x * DEPTH_W, DEPTH_H - y * (DEPTH_H - 4));
		}
		fprintf(f, "\"/>\n");
		sqlite3_finalize(st);
	}
	fprintf(f, "</svg></figure>\n");
}

void device_html(FILE *f, struct run_view *runs, unsigned n)
{
	struct dev_sum *s = calloc(n, sizeof(*s));

	if (!s || !sum_all(runs, n, s)) {
		free(s);
		return;
	}
	fprintf(f, "<h2>what reached the storage (block layer)</h2>\n<table class=\"devices\">"
		"<tr><th></th>");
	for (unsigned i = 0; i < n; i++) {
		fprintf(f, "<th>");
		text_put_html(f, runs[i].label);
		fprintf(f, "</th>");
	}
	fprintf(f, "</tr>\n<tr><td>devices</td>");
	for (unsigned i = 0; i < n; i++) {
		fprintf(f, "<td>");
		text_put_html(f, s[i].n ? s[i].names : "(not recorded)");
		fprintf(f, "</td>");
	}
	fprintf(f, "</tr>\n");
	for (unsigned m = 0; m < DM_COUNT; m++) {
		char buf[64];
		double v;

		fprintf(f, "<tr><td>%s</td>", dm_names[m]);
		for (unsigned i = 0; i < n; i++)
			fprintf(f, "<td>%s</td>", s[i].n && dm_value(&s[i], &runs[i], m, &v) ?
				dm_fmt(m, v, buf, sizeof(buf)) : "-");
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</table>\n");
	for (unsigned i = 0; i < n; i++) {
		if (s[i].n && s[i].t.note[0]) {
			fprintf(f, "<p>");
			text_put_html(f, runs[i].label);
			fprintf(f, ": ");
			text_put_html(f, s[i].names);
			fprintf(f, ": ");
			text_put_html(f, s[i].t.note);
			fprintf(f, "</p>\n");
		}
		if (s[i].n)
			html_depth(f, &runs[i]);
	}
	free(s);
}
