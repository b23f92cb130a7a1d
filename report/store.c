/* report/store.c: run_acc_store(): one run into a report database, in one
 * transaction. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/log.h"
#include "report/columns.h"
#include "report/report_int.h"
#include "lib/cli.h"
#include "lib/sha256.h"
#include "model/model.h"

struct store {
	sqlite3 *db;
	int64_t run;
	char *err;
	size_t errlen;
	int rc;
};

/* Binds the arguments by fmt (i: int64_t, u: uint64_t, d: double, t: text
 * or NULL, n: NULL), steps and resets. Records the first error in st. */
static void row(struct store *s, sqlite3_stmt *st, const char *fmt, ...)
{
	va_list ap;
	int col = 1;

	if (s->rc)
		return;
	va_start(ap, fmt);
	for (const char *f = fmt; *f; f++, col++) {
		switch (*f) {
		case 'i':
			sqlite3_bind_int64(st, col, va_arg(ap, int64_t));
			break;
		case 'u':
			sqlite3_bind_int64(st, col, (int64_t)va_arg(ap, uint64_t));
			break;
		case 'd':
			sqlite3_bind_double(st, col, va_arg(ap, double));
			break;
		case 't':
			sqlite3_bind_text(st, col, va_arg(ap, const char *), -1, SQLITE_TRANSIENT);
			break;
		default:
			sqlite3_bind_null(st, col);
			break;
		}
	}
	va_end(ap);
	if (sqlite3_step(st) != SQLITE_DONE) {
		snprintf(s->err, s->errlen, "%s: %s", sqlite3_db_filename(s->db, "main"),
			 sqlite3_errmsg(s->db));
		s->rc = -EIO;
	}
	sqlite3_reset(st);
}

static sqlite3_stmt *prep(struct store *s, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (s->rc)
		return NULL;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(s->err, s->errlen, "%s: %s", sqlite3_db_filename(s->db, "main"),
			 sqlite3_errmsg(s->db));
		s->rc = -EIO;
	}
	return st;
}

static const char *sys_name(unsigned sys)
{
	return riot_sys_info(sys)->name;
}

/* ---- per syscall and class ---- */

/* The histograms rows of h (HISTOGRAM_COLUMNS): its buckets that hold
 * values. */
static void store_hist(struct store *s, sqlite3_stmt *st, const char *sys, const char *metric,
		       const struct hist *h)
{
	int64_t run = s->run;

	for (unsigned b = 0; b < HIST_BUCKETS && !s->rc; b++) {
		int col = 0;

		if (!h->b[b])
			continue;
		sqlite3_clear_bindings(st);
		HISTOGRAM_COLUMNS(COLUMN_BIND)
		row(s, st, "");
	}
}

/* The INSERT of every column of table t. */
static sqlite3_stmt *prep_insert(struct store *s, const struct column_table *t)
{
	char sql[1024];

	if (!s->rc && columns_insert(t, sql, sizeof(sql)) < 0) {
		snprintf(s->err, s->errlen, "the %s table has too many columns", t->name);
		s->rc = -E2BIG;
	}
	return prep(s, sql);
}

/* The syscalls row of syscall i (SYSCALL_COLUMNS). */
static void store_syscall_row(struct store *s, sqlite3_stmt *st, unsigned i,
			      const struct sys_acc *x)
{
	const struct hist *h = &x->lat;
	const struct hist *d = x->delay && x->delay->count ? x->delay : NULL;
	int64_t run = s->run;
	int col = 0;

	if (s->rc)
		return;
	sqlite3_clear_bindings(st);
	SYSCALL_COLUMNS(COLUMN_BIND)
	row(s, st, "");
}

static void store_syscalls(struct store *s, const struct run_acc *a)
{
	sqlite3_stmt *st = prep_insert(s, &column_syscalls);
	sqlite3_stmt *hs = prep_insert(s, &column_histograms);

	for (unsigned i = 0; i < RIOT_SYS_COUNT && !s->rc; i++) {
		const struct sys_acc *x = a->sys[i];

		if (!x || !x->lat.count)
			continue;
		store_syscall_row(s, st, i, x);
		store_hist(s, hs, sys_name(i), "latency", &x->lat);
		if (x->delay)
			store_hist(s, hs, sys_name(i), "issue_delay", x->delay);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(hs);
}

struct class_sum {
	uint64_t errors, bytes;
	struct hist lat, gap;
};

/* The classes row of a class (CLASS_COLUMNS); none when it has no op. */
static void store_class_row(struct store *s, sqlite3_stmt *st, const char *name,
			    const struct class_sum *c)
{
	const struct hist *h = &c->lat;
	const struct hist *g = &c->gap;
	int64_t run = s->run;
	int col = 0;

	if (s->rc || !h->count)
		return;
	sqlite3_clear_bindings(st);
	CLASS_COLUMNS(COLUMN_BIND)
	row(s, st, "");
}

/* Class histograms are merged from the syscalls': exact, as buckets add. */
static void store_classes(struct store *s, const struct run_acc *a)
{
	struct class_sum *c = calloc(TL_COUNT + 1, sizeof(*c));
	sqlite3_stmt *st;

	if (!c) {
		s->rc = -ENOMEM;
		snprintf(s->err, s->errlen, "out of memory");
		return;
	}
	for (unsigned k = 0; k <= TL_COUNT; k++) {
		hist_init(&c[k].lat);
		hist_init(&c[k].gap);
	}
	for (unsigned i = 0; i < RIOT_SYS_COUNT; i++) {
		const struct sys_acc *x = a->sys[i];
		int k = tl_class_of(riot_sys_info(i)->cls);

		if (!x || !x->lat.count)
			continue;
		/* "all": every operation summarised, replayable or not */
		hist_merge(&c[TL_COUNT].lat, &x->lat);
		if (x->gap)
			hist_merge(&c[TL_COUNT].gap, x->gap);
		c[TL_COUNT].errors += x->errors;
		c[TL_COUNT].bytes += x->bytes;
		if (k == TL_NONE)
			continue;
		hist_merge(&c[k].lat, &x->lat);
		if (x->gap)
			hist_merge(&c[k].gap, x->gap);
		c[k].errors += x->errors;
		c[k].bytes += x->bytes;
	}
	st = prep_insert(s, &column_classes);
	for (unsigned k = 0; k < TL_COUNT; k++)
		store_class_row(s, st, tl_class_names[k], &c[k]);
	store_class_row(s, st, "all", &c[TL_COUNT]);
	sqlite3_finalize(st);
	free(c);
}

/* ---- files, processes, timeline, errors, divergences ---- */

/* The files row of path id (FILE_COLUMNS). */
static void store_file_row(struct store *s, sqlite3_stmt *st, int64_t id, const char *path,
			   const struct usage *u)
{
	int64_t run = s->run;
	int col = 0;

	if (s->rc)
		return;
	sqlite3_clear_bindings(st);
	FILE_COLUMNS(COLUMN_BIND)
	row(s, st, "");
}

static void store_files(struct store *s, const struct run_acc *a, const struct model *m)
{
	sqlite3_stmt *st = prep_insert(s, &column_files);

	for (uint32_t id = 0; id < a->nfiles && !s->rc; id++) {
		const char *path = id && m ? model_path(m, id) : NULL;
		struct usage u;

		run_acc_file(a, id, &u);
		if (u.ops)
			store_file_row(s, st, id, path, &u);
	}
	sqlite3_finalize(st);
}

/* The processes row of p (PROCESS_COLUMNS). */
static void store_process_row(struct store *s, sqlite3_stmt *st, const struct proc_acc *p)
{
	const struct usage *u = &p->u;
	int64_t run = s->run;
	int col = 0;

	if (s->rc)
		return;
	sqlite3_clear_bindings(st);
	PROCESS_COLUMNS(COLUMN_BIND)
	row(s, st, "");
}

static void store_processes(struct store *s, const struct run_acc *a)
{
	sqlite3_stmt *st = prep_insert(s, &column_processes);

	for (uint32_t i = 0; i < a->procs_len && !s->rc; i++) {
		const struct proc_acc *p = &a->procs[i];

		if (p->pid && p->u.ops)
			store_process_row(s, st, p);
	}
	sqlite3_finalize(st);
}

static int tl_row_cmp(const void *x, const void *y)
{
	int64_t a = (*(const struct tl_row *const *)x)->sec;
	int64_t b = (*(const struct tl_row *const *)y)->sec;

	return (a > b) - (a < b);
}

/* Rows in order of second; only seconds that hold operations exist. */
static void store_timeline(struct store *s, const struct run_acc *a)
{
	int64_t run = s->run;
	sqlite3_stmt *st;
	const struct tl_row **rows = malloc(sizeof(*rows) * (a->tl_used ? a->tl_used : 1));
	uint64_t n = 0;

	if (!rows) {
		s->rc = -ENOMEM;
		return;
	}
	for (uint64_t i = 0; i < a->tl_used; i++)
		rows[n++] = &a->tl[i];
	qsort(rows, n, sizeof(*rows), tl_row_cmp);
	st = prep_insert(s, &column_timeline);
	for (uint64_t i = 0; i < n && !s->rc; i++) {
		const struct tl_row *r = rows[i];

		for (unsigned c = 0; c < TL_COUNT; c++) {
			int col = 0;

			if (!r->ops[c])
				continue;
			sqlite3_clear_bindings(st);
			TIMELINE_COLUMNS(COLUMN_BIND)
			row(s, st, "");
		}
	}
	sqlite3_finalize(st);
	free(rows);
}

static void store_rates(struct store *s, const struct run_acc *a)
{
	sqlite3_stmt *st = prep_insert(s, &column_rates);
	int64_t run = s->run;

	for (unsigned i = 0; i < RUN_RATE_BUCKETS && !s->rc; i++) {
		int col = 0;

		if (!a->rate_ops[i])
			continue;
		sqlite3_clear_bindings(st);
		RATE_COLUMNS(COLUMN_BIND)
		row(s, st, "");
	}
	sqlite3_finalize(st);
}

static void store_errors(struct store *s, const struct run_acc *a)
{
	sqlite3_stmt *st = prep_insert(s, &column_errors);
	int64_t run = s->run;

	for (unsigned i = 0; i < RIOT_SYS_COUNT && !s->rc; i++) {
		const struct sys_acc *x = a->sys[i];
		const char *sys = sys_name(i);

		for (unsigned e = 0; x && x->errnos && e < RUN_ERRNO_MAX && !s->rc; e++) {
			const char *name = e ? strerrorname_np((int)e) : NULL;
			uint64_t n = x->errnos[e];
			int col = 0;

			if (!n)
				continue;
			name = name ? name : "unknown";
			sqlite3_clear_bindings(st);
			ERROR_COLUMNS(COLUMN_BIND)
			row(s, st, "");
		}
	}
	sqlite3_finalize(st);
}

static const char *const div_names[RUN_DIV_COUNT] = {
	[RUN_DIV_RESULT] = "result", [RUN_DIV_BYTES] = "bytes",
	[RUN_DIV_SKIPPED] = "skipped", [RUN_DIV_OTHER] = "other",
};

static void store_divergences(struct store *s, const struct run_acc *a)
{
	sqlite3_stmt *st = prep_insert(s, &column_divergences);
	int64_t run = s->run;

	for (unsigned i = 0; i < RIOT_SYS_COUNT && !s->rc; i++) {
		const char *sys = sys_name(i);

		for (unsigned k = RUN_DIV_RESULT; a->sys[i] && k < RUN_DIV_COUNT; k++) {
			const char *kind = div_names[k];
			uint64_t n = a->sys[i]->div[k];
			int col = 0;

			if (!n)
				continue;
			sqlite3_clear_bindings(st);
			DIVERGENCE_COLUMNS(COLUMN_BIND)
			row(s, st, "");
		}
	}
	sqlite3_finalize(st);
}

static void store_div_samples(struct store *s, const struct run_acc *a)
{
	sqlite3_stmt *st = prep_insert(s, &column_divergence_samples);
	int64_t run = s->run;

	for (unsigned seq = 0; seq < a->nsamples && !s->rc; seq++) {
		const struct div_sample *d = &a->samples[seq];
		int col = 0;

		sqlite3_clear_bindings(st);
		DIVERGENCE_SAMPLE_COLUMNS(COLUMN_BIND)
		row(s, st, "");
	}
	sqlite3_finalize(st);
}

/* The stacks, capped by each weight (run_acc_stacks_max()). */
static void store_stacks(struct store *s, const struct run_acc *a, const struct model *m)
{
	struct stack_folded *v = NULL;
	sqlite3_stmt *st;
	size_t n = 0;

	if (s->rc)
		return;
	if (stacks_fold(&a->stacks, m, (1u << STACK_WEIGHTS) - 1, a->stacks_max, &v, &n)) {
		snprintf(s->err, s->errlen, "out of memory");
		s->rc = -ENOMEM;
		return;
	}
	st = prep_insert(s, &column_stacks);
	for (size_t i = 0; i < n && !s->rc; i++) {
		const struct stack_folded *f = &v[i];
		int64_t run = s->run;
		int col = 0;

		sqlite3_clear_bindings(st);
		STACK_COLUMNS(COLUMN_BIND)
		row(s, st, "");
	}
	sqlite3_finalize(st);
	stacks_folded_free(v, n);
}

static void store_syscall_names(struct store *s)
{
	sqlite3_stmt *st = prep(s, "INSERT OR REPLACE INTO syscall_names VALUES (?,?,?)");

	for (unsigned i = 0; i < RIOT_SYS_COUNT && !s->rc; i++)
		row(s, st, "itt", (int64_t)i, sys_name(i), riot_class_name(riot_sys_info(i)->cls));
	sqlite3_finalize(st);
}

/* ---- the run row ---- */

struct run_facts {
	struct host_facts here;
	bool same_host;			/* CPU, memory are this machine's */
	struct run_fs own_fs;		/* meta->fs_path's */
	char fs_buf[8192];
	const struct run_fs *fs;	/* the run's filesystem, or NULL */
	char label[256];
	char sha[65];
};

static void pick_fs(struct run_facts *f, const struct run_meta *meta)
{
	f->fs = NULL;
	if (meta->fs_path && run_fs_of_path(meta->fs_path, &f->own_fs, f->fs_buf,
					    sizeof(f->fs_buf)) == 0) {
		f->fs = &f->own_fs;
		return;
	}
	for (unsigned i = 0; i < meta->nfs; i++)
		if (!f->fs || meta->fs[i].ops > f->fs->ops)
			f->fs = &meta->fs[i];
}

static bool label_taken(struct store *s, const char *label)
{
	sqlite3_stmt *st = prep(s, "SELECT 1 FROM runs WHERE label = ? AND id != ?");
	bool taken;

	if (!st)
		return false;
	sqlite3_bind_text(st, 1, label, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, s->run);
	taken = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return taken;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* A label given by the user must be 1-255 bytes, not a number, and free
 * in s->db (when there is one). */
static void check_label(struct store *s, const char *label)
{
	if (!*label || all_digits(label) || strlen(label) >= sizeof(((struct run_facts *)0)->label)) {
		snprintf(s->err, s->errlen, "label '%s' must be 1-255 bytes and not a "
			 "number (numbers name runs by id)", label);
		s->rc = -EINVAL;
	} else if (s->db && label_taken(s, label)) {
		snprintf(s->err, s->errlen, "%s: a run labelled '%s' exists already",
			 sqlite3_db_filename(s->db, "main"), label);
		s->rc = -EEXIST;
	}
}

int run_db_check(const char *db_path, const char *label, char *err, size_t errlen)
{
	struct store s = { .err = err, .errlen = errlen };
	struct stat st;
	int rc;

	if (stat(db_path, &st) < 0 || st.st_size == 0) {
		/* a new (or empty) database gets the schema: only the label's
		 * form can be wrong */
		rc = riot_check_output(db_path);
		if (rc < 0) {
			snprintf(err, errlen, "%s: cannot write: %s", db_path, strerror(-rc));
			return rc;
		}
		if (label)
			check_label(&s, label);
		return s.rc;
	}
	if (S_ISDIR(st.st_mode) || (rc = riot_check_output(db_path)) < 0) {
		rc = S_ISDIR(st.st_mode) ? -EISDIR : rc;
		snprintf(err, errlen, "%s: cannot write: %s", db_path, strerror(-rc));
		return rc;
	}
	s.db = report_db_open_ro(db_path, err, errlen);
	if (!s.db)
		return -errno;
	if (label)
		check_label(&s, label);
	sqlite3_close(s.db);
	return s.rc;
}

/* The given label (which must be free), or one derived from the
 * filesystem and made unique. */
static void choose_label(struct store *s, struct run_facts *f, const struct run_meta *meta)
{
	char base[200];
	const char *dev;

	if (meta->label) {
		check_label(s, meta->label);
		snprintf(f->label, sizeof(f->label), "%s", meta->label);
		return;
	}
	const char *type = f->fs && f->fs->fs_type ? f->fs->fs_type : NULL;

	dev = type && f->fs->device ? strrchr(f->fs->device, '/') : NULL;
	dev = dev ? dev + 1 : type && f->fs->device ? f->fs->device : NULL;
	snprintf(base, sizeof(base), "%s%s%s%s%s", meta->kind == RUN_CAPTURE ? "capture" : "replay",
		 type ? "-" : "", type ? type : "", dev && *dev ? "-" : "", dev ? dev : "");
	snprintf(f->label, sizeof(f->label), "%s", base);
	for (unsigned n = 2; label_taken(s, f->label) && !s->rc; n++)
		snprintf(f->label, sizeof(f->label), "%s-%u", base, n);
}

static void gather_facts(struct store *s, struct run_facts *f, const struct run_meta *meta)
{
	host_facts_get(&f->here);
	f->same_host = !meta->host || strcmp(meta->host, f->here.host) == 0;
	pick_fs(f, meta);
	f->sha[0] = 0;
	if (meta->trace_file && sha256_file(meta->trace_file, f->sha) < 0)
		f->sha[0] = 0;
	choose_label(s, f, meta);
}

static const char *or_null(const char *a)
{
	return a && *a ? a : NULL;
}

/* What the runs columns' values are computed from besides the meta, the
 * facts and the accumulator (RUN_COLUMNS' t). */
struct run_totals {
	bool replay;
	bool timed;			/* a replay whose timing is known */
	uint64_t errors, bytes_read, bytes_written, busy_ns;
	const char *cpu_model;
	uint64_t cpu_count, memory_bytes;
	char shard[32];
};

static void run_totals(struct run_totals *t, const struct run_acc *a, const struct run_meta *m,
		       const struct run_facts *f)
{
	memset(t, 0, sizeof(*t));
	t->replay = m->kind == RUN_REPLAY;
	t->timed = t->replay && m->timing_known;
	t->cpu_model = m->cpu_model ? m->cpu_model : f->same_host ? or_null(f->here.cpu_model) : NULL;
	t->cpu_count = m->cpu_count ? m->cpu_count : f->same_host ? f->here.cpu_count : 0;
	t->memory_bytes = m->memory_bytes ? m->memory_bytes : f->same_host ? f->here.memory_bytes : 0;
	for (unsigned i = 0; i < RIOT_SYS_COUNT; i++) {
		if (!a->sys[i])
			continue;
		t->errors += a->sys[i]->errors;
		t->busy_ns += a->sys[i]->lat.sum;
	}
	for (uint32_t i = 0; i < a->nfiles; i++) {
		struct usage u;

		run_acc_file(a, i, &u);
		t->bytes_read += u.bytes_read;
		t->bytes_written += u.bytes_written;
	}
	snprintf(t->shard, sizeof(t->shard), "%u/%u", m->shard_k, m->shard_n);
}

/* Binding a column's value by its type (RUN_COLUMNS). */
static void bind_RC_TEXT(sqlite3_stmt *st, int col, const char *v)
{
	sqlite3_bind_text(st, col, or_null(v), -1, SQLITE_TRANSIENT);
}

static void bind_RC_U64(sqlite3_stmt *st, int col, uint64_t v)
{
	sqlite3_bind_int64(st, col, (int64_t)v);
}

static void bind_RC_OPT(sqlite3_stmt *st, int col, int64_t v)
{
	if (v)
		sqlite3_bind_int64(st, col, v);
}

static void bind_RC_REAL(sqlite3_stmt *st, int col, double v)
{
	sqlite3_bind_double(st, col, v);
}

static void bind_RC_FLAG(sqlite3_stmt *st, int col, int64_t v)
{
	sqlite3_bind_int64(st, col, v);
}

#define SET_COL(name, ...) ", " #name "=?"
#define BIND_COL(name, type, when, value, fleet) \
	col++; \
	if (when) \
		bind_##type(st, col, (value));

/* The run's row: every column of RUN_COLUMNS, NULL where unknown. */
static void store_run(struct store *s, const struct run_acc *a, const struct run_meta *m,
		      const struct run_facts *f)
{
	static const char sql[] = "UPDATE runs SET created_unix=strftime('%s','now')"
		RUN_COLUMNS(SET_COL) " WHERE id=?";
	sqlite3_stmt *st = prep(s, sql);
	struct run_totals tot, *t = &tot;
	int col = 0;

	if (!st)
		return;
	run_totals(t, a, m, f);
	RUN_COLUMNS(BIND_COL)
	sqlite3_bind_int64(st, col + 1, s->run);
	row(s, st, "");
	sqlite3_finalize(st);
}

int run_store_syscalls(sqlite3 *db, int64_t run, const struct run_acc *a, char *err,
			size_t errlen)
{
	struct store s = { .db = db, .run = run, .err = err, .errlen = errlen };

	store_syscalls(&s, a);
	store_classes(&s, a);
	store_syscall_names(&s);
	return s.rc;
}

static void store_filesystems(struct store *s, const struct run_meta *m, const struct run_facts *f)
{
	sqlite3_stmt *st = prep_insert(s, &column_filesystems);
	const struct run_fs *list = m->nfs ? m->fs : f->fs;
	unsigned n = m->nfs ? m->nfs : f->fs ? 1 : 0;
	int64_t run = s->run;

	for (unsigned i = 0; i < n && !s->rc; i++) {
		const struct run_fs *fs = &list[i];
		int col = 0;

		sqlite3_clear_bindings(st);
		FILESYSTEM_COLUMNS(COLUMN_BIND)
		row(s, st, "");
	}
	sqlite3_finalize(st);
}

static int store_all(struct store *s, struct run_acc *a, const struct run_meta *meta,
		     const struct model *m)
{
	struct run_facts *f = calloc(1, sizeof(*f));

	if (!f) {
		snprintf(s->err, s->errlen, "out of memory");
		return -ENOMEM;
	}
	run_acc_flush_timeline(a);
	gather_facts(s, f, meta);
	store_run(s, a, meta, f);
	store_syscalls(s, a);
	store_classes(s, a);
	store_files(s, a, m);
	store_processes(s, a);
	store_stacks(s, a, m);
	store_timeline(s, a);
	store_rates(s, a);
	store_errors(s, a);
	store_divergences(s, a);
	store_div_samples(s, a);
	store_filesystems(s, meta, f);
	if (!s->rc && meta->block)
		s->rc = device_store(s->db, s->run, meta->block, s->err, s->errlen);
	store_syscall_names(s);
	free(f);
	return s->rc;
}

int run_acc_store(struct run_acc *a, const char *db_path, const struct run_meta *meta,
		  const struct model *m, int64_t *run_id, char *err, size_t errlen)
{
	struct store s = { .err = err, .errlen = errlen };

	if (a->oom) {
		snprintf(err, errlen, "out of memory while summarising the run");
		return a->oom;
	}
	if (a->events_err) {
		snprintf(err, errlen, "%s: storing events: %s", db_path, strerror(-a->events_err));
		return a->events_err;
	}
	s.db = a->db;
	if (!s.db) {
		s.db = report_db_open_rw(db_path, err, errlen);
		if (!s.db)
			return -errno;
		s.rc = report_db_exec(s.db, "BEGIN IMMEDIATE", err, errlen);
		if (!s.rc)
			s.rc = report_db_reserve_run(s.db, &a->run_id, err, errlen);
	}
	s.run = a->run_id;
	if (!s.rc)
		s.rc = store_all(&s, a, meta, m);
	if (a->ins_event) {
		sqlite3_finalize(a->ins_event);
		a->ins_event = NULL;
	}
	if (!s.rc)
		s.rc = report_db_exec(s.db, "COMMIT", err, errlen);
	if (s.rc)
		sqlite3_exec(s.db, "ROLLBACK", NULL, NULL, NULL);
	else if (run_id)
		*run_id = s.run;
	sqlite3_close(s.db);
	a->db = NULL;
	return s.rc;
}
