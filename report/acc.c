/* report/acc.c: the streaming run accumulator (report.h). The per-op path
 * indexes flat arrays: by syscall, by path id, by pid (open addressing) and
 * by second; nothing here grows with the number of operations. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/log.h"
#include "lib/grow.h"
#include "report/columns.h"
#include "report/report_int.h"

const char *const tl_class_names[TL_COUNT] = {
	[TL_DATA_READ] = "data_read",
	[TL_DATA_WRITE] = "data_write",
	[TL_SYNC] = "sync",
	[TL_METADATA] = "metadata",
};

/* A syscall's report class, by its class in bpf/syscalls.def: every
 * class is listed, so a new one does not fall to TL_NONE unseen. */
int tl_class_of(unsigned cls)
{
	switch ((enum riot_class)cls) {
	case RIOT_CLASS_DATA_READ:
		return TL_DATA_READ;
	case RIOT_CLASS_DATA_WRITE:
	case RIOT_CLASS_DATA_COPY:	/* a copy's cost is its write */
		return TL_DATA_WRITE;
	case RIOT_CLASS_SYNC:
		return TL_SYNC;
	case RIOT_CLASS_OPEN:
	case RIOT_CLASS_FD:
	case RIOT_CLASS_STAT:
	case RIOT_CLASS_DIR:
	case RIOT_CLASS_NAMESPACE:
	case RIOT_CLASS_CWD:
	case RIOT_CLASS_ATTR:
	case RIOT_CLASS_XATTR:
		return TL_METADATA;
	case RIOT_CLASS_MMAP:	/* the I/O is its pages' records (mmap:read, ...) */
	case RIOT_CLASS_ASYNC:	/* the I/O is its requests' (io_uring:read, ...) */
	case RIOT_CLASS_PROC:
	case RIOT_CLASS_COUNT:
		break;
	}
	return TL_NONE;
}

void run_bytes(unsigned sys, int64_t ret, uint64_t *read, uint64_t *written)
{
	const struct riot_sys_info *si = riot_sys_info(sys);

	*read = *written = 0;
	if (!si || ret <= 0)
		return;
	if (si->cls == RIOT_CLASS_DATA_READ || si->cls == RIOT_CLASS_DATA_COPY)
		*read = (uint64_t)ret;
	if (si->cls == RIOT_CLASS_DATA_WRITE || si->cls == RIOT_CLASS_DATA_COPY)
		*written = (uint64_t)ret;
}

struct run_acc *run_acc_new(enum run_kind kind)
{
	struct run_acc *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->kind = kind;
	a->tl_top = -1;
	map_init(&a->proc_ix, map_seed());
	map_init(&a->tl_ix, map_seed());
	a->rate_width = RUN_RATE_MIN_WIDTH;
	stacks_init(&a->stacks);
	a->stacks_max = RUN_STACKS_DEFAULT;
	a->win = malloc(sizeof(*a->win) * RUN_TIMELINE_WINDOW * TL_COUNT);
	if (!a->win) {
		free(a);
		errno = ENOMEM;
		return NULL;
	}
	for (unsigned i = 0; i < RUN_TIMELINE_WINDOW; i++) {
		a->win_sec[i] = -1;
		for (unsigned c = 0; c < TL_COUNT; c++)
			hist_init(&a->win[i * TL_COUNT + c]);
	}
	return a;
}

void run_acc_free(struct run_acc *a)
{
	if (!a)
		return;
	for (unsigned s = 0; s < RIOT_SYS_COUNT; s++) {
		if (!a->sys[s])
			continue;
		free(a->sys[s]->delay);
		free(a->sys[s]->gap);
		free(a->sys[s]->errnos);
		free(a->sys[s]);
	}
	for (uint32_t i = 0; i < a->procs_len; i++)
		free(a->procs[i].comm);
	for (unsigned i = 0; i < a->nsamples; i++)
		free(a->samples[i].path);
	if (a->ins_event)
		sqlite3_finalize(a->ins_event);
	if (a->db) {
		sqlite3_exec(a->db, "ROLLBACK", NULL, NULL, NULL);
		sqlite3_close(a->db);
	}
	free(a->samples);
	free(a->files);
	free(a->wide);
	free(a->procs);
	map_fini(&a->proc_ix);
	free(a->tl);
	map_fini(&a->tl_ix);
	free(a->win);
	stacks_fini(&a->stacks);
	free(a);
}

uint64_t run_acc_ops(const struct run_acc *a)
{
	return a->ops;
}

static struct sys_acc *sys_get(struct run_acc *a, unsigned sys)
{
	struct sys_acc *s = a->sys[sys];

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s) {
		a->oom = -ENOMEM;
		return NULL;
	}
	hist_init(&s->lat);
	a->sys[sys] = s;
	return s;
}

static void usage_add(struct usage *u, const struct run_op *op, uint64_t rd, uint64_t wr);

void run_acc_file(const struct run_acc *a, uint32_t id, struct usage *u)
{
	const struct file_usage *f = id < a->nfiles ? &a->files[id] : NULL;

	if (f && f->ops == FILE_WIDE) {
		*u = a->wide[f->errors];
		return;
	}
	*u = (struct usage){ 0 };
	if (f)
		*u = (struct usage){ .ops = f->ops, .errors = f->errors,
				     .bytes_read = f->bytes_read,
				     .bytes_written = f->bytes_written, .lat_sum = f->lat_sum };
}

/* Adds op to the usage of its path: in 32-bit counts while they hold it,
 * else in a wide entry from then on. */
static void file_add(struct run_acc *a, const struct run_op *op, uint64_t rd, uint64_t wr)
{
	uint32_t id = op->path_id;
	struct file_usage *f;
	struct usage u;

	if (GROW(a->files, a->nfiles, (size_t)id + 1, 1024) < 0) {
		a->oom = -ENOMEM;
		return;
	}
	f = &a->files[id];
	if (f->ops == FILE_WIDE) {
		usage_add(&a->wide[f->errors], op, rd, wr);
		return;
	}
	run_acc_file(a, id, &u);
	usage_add(&u, op, rd, wr);
	if (u.ops < FILE_WIDE && u.errors <= UINT32_MAX && u.bytes_read <= UINT32_MAX &&
	    u.bytes_written <= UINT32_MAX && u.lat_sum <= UINT32_MAX) {
		*f = (struct file_usage){ .ops = (uint32_t)u.ops, .errors = (uint32_t)u.errors,
					  .bytes_read = (uint32_t)u.bytes_read,
					  .bytes_written = (uint32_t)u.bytes_written,
					  .lat_sum = (uint32_t)u.lat_sum };
		return;
	}
	if (GROW(a->wide, a->wide_cap, (size_t)a->nwide + 1, 64) < 0) {
		a->oom = -ENOMEM;
		return;
	}
	a->wide[a->nwide] = u;
	*f = (struct file_usage){ .ops = FILE_WIDE, .errors = a->nwide++ };
}

/* The row of pid, made when new; pid 0 (never a user process) is not
 * tracked. NULL when out of memory (a->oom set) or for pid 0. */
static struct proc_acc *proc_get(struct run_acc *a, uint32_t pid)
{
	uint64_t *ix;

	if (!pid)
		return NULL;
	ix = map_get(&a->proc_ix, pid);
	if (ix)
		return &a->procs[*ix];
	if (GROW(a->procs, a->procs_cap, (size_t)a->procs_len + 1, 64) < 0) {
		a->oom = -ENOMEM;
		return NULL;
	}
	if (map_put(&a->proc_ix, pid, a->procs_len)) {
		a->oom = -ENOMEM;
		return NULL;
	}
	memset(&a->procs[a->procs_len], 0, sizeof(a->procs[0]));
	a->procs[a->procs_len].pid = pid;
	return &a->procs[a->procs_len++];
}

int run_acc_process(struct run_acc *a, uint32_t pid, const char *comm)
{
	struct proc_acc *p = proc_get(a, pid);
	char *c;

	if (!p)
		return pid ? -ENOMEM : -EINVAL;
	c = strdup(comm ? comm : "");
	if (!c)
		return -ENOMEM;
	free(p->comm);
	p->comm = c;
	p->comm_id = stacks_comm(&a->stacks, c);
	return 0;
}

int run_acc_proc_record(struct run_acc *a, const struct riot_rec *r)
{
	const struct proc_acc *parent;
	char *comm;
	int rc;

	if (r->type == RIOT_REC_SNAP_PROC && r->sproc.comm.s)
		return run_acc_process(a, r->sproc.pid, r->sproc.comm.s);
	if (r->type != RIOT_REC_PROC)
		return 0;
	if (r->proc.kind == RIOT_PROC_EXEC && r->proc.comm.s)
		return run_acc_process(a, r->proc.pid, r->proc.comm.s);
	if (r->proc.kind != RIOT_PROC_FORK || !r->proc.child_pid ||
	    r->proc.child_pid == r->proc.pid)	/* a thread: same process */
		return 0;
	parent = proc_get(a, r->proc.pid);
	if (!parent || !parent->comm)
		return a->oom;
	comm = strdup(parent->comm);	/* proc_get may move the parent */
	if (!comm)
		return -ENOMEM;
	rc = run_acc_process(a, r->proc.child_pid, comm);
	free(comm);
	return rc;
}

static void usage_add(struct usage *u, const struct run_op *op, uint64_t rd, uint64_t wr)
{
	u->ops++;
	u->errors += op->ret < 0;
	u->bytes_read += rd;
	u->bytes_written += wr;
	u->lat_sum += op->lat_ns;
}

/* ---- timeline ---- */

/* The row of a second, made when new: rows exist only for seconds that
 * hold operations. NULL when out of memory. */
static struct tl_row *tl_row_of(struct run_acc *a, int64_t sec)
{
	uint64_t *ix = map_get(&a->tl_ix, (uint64_t)sec);
	struct tl_row *r;

	if (ix)
		return &a->tl[*ix];
	if (GROW(a->tl, a->tl_cap, a->tl_used + 1, 64) < 0)
		return NULL;
	if (map_put(&a->tl_ix, (uint64_t)sec, a->tl_used))
		return NULL;
	r = &a->tl[a->tl_used++];
	memset(r, 0, sizeof(*r));
	r->sec = sec;
	for (unsigned c = 0; c < TL_COUNT; c++)
		r->p99[c] = UINT64_MAX;
	return r;
}

/* Moves the p99 of the second held in window slot i into its row and frees
 * the slot. */
static void win_retire(struct run_acc *a, unsigned i)
{
	int64_t sec = a->win_sec[i];
	uint64_t *ix;

	if (sec < 0)
		return;
	for (unsigned c = 0; c < TL_COUNT; c++) {
		struct hist *h = &a->win[i * TL_COUNT + c];

		if (!h->count)
			continue;
		ix = map_get(&a->tl_ix, (uint64_t)sec);
		if (ix)	/* a second in the window has its row */
			a->tl[*ix].p99[c] = hist_quantile(h, 0.99);
		hist_init(h);
	}
	a->win_sec[i] = -1;
}

void run_acc_flush_timeline(struct run_acc *a)
{
	for (unsigned i = 0; i < RUN_TIMELINE_WINDOW; i++)
		win_retire(a, i);
}

static void tl_add(struct run_acc *a, int cls, uint64_t end_ns, uint64_t lat, uint64_t bytes)
{
	int64_t sec = (int64_t)(end_ns / 1000000000u);
	unsigned slot = (unsigned)(sec % RUN_TIMELINE_WINDOW);
	struct tl_row *r = tl_row_of(a, sec);

	if (!r) {
		a->oom = -ENOMEM;
		return;
	}
	r->ops[cls]++;
	r->bytes[cls] += bytes;
	if (sec > a->tl_top)
		a->tl_top = sec;
	if (sec <= a->tl_top - RUN_TIMELINE_WINDOW) {
		a->tl_late++;
		return;
	}
	if (a->win_sec[slot] != sec) {
		win_retire(a, slot);
		a->win_sec[slot] = sec;
	}
	hist_add(&a->win[slot * TL_COUNT + (unsigned)cls], lat);
}

/* ---- operations ---- */

static void note_sys(struct sys_acc *s, const struct run_op *op, uint64_t bytes)
{
	hist_add(&s->lat, op->lat_ns);
	s->bytes += bytes;
	if (op->ret < 0) {
		uint64_t e = 0 - (uint64_t)op->ret;	/* INT64_MIN too */

		s->errors++;
		if (!s->errnos)
			s->errnos = calloc(RUN_ERRNO_MAX, sizeof(*s->errnos));
		if (s->errnos)
			s->errnos[e < RUN_ERRNO_MAX ? e : 0]++;
	}
	if (op->issue_delay_ns >= 0) {
		if (!s->delay && (s->delay = malloc(sizeof(*s->delay))))
			hist_init(s->delay);
		if (s->delay)
			hist_add(s->delay, (uint64_t)op->issue_delay_ns);
	}
	if (op->has_gap) {
		if (!s->gap && (s->gap = malloc(sizeof(*s->gap))))
			hist_init(s->gap);
		if (s->gap)
			hist_add(s->gap, op->gap_ns);
	}
}

static void event_insert(struct run_acc *a, const struct run_op *op)
{
	sqlite3_stmt *st = a->ins_event;
	int rc;

	int64_t run = a->run_id;
	int col = 0;

	sqlite3_clear_bindings(st);
	EVENT_COLUMNS(COLUMN_BIND)
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE && !a->events_err)
		a->events_err = rc == SQLITE_FULL ? -ENOSPC : -EIO;
}

static void rate_add(struct run_acc *a, uint64_t end_ns, uint64_t bytes)
{
	uint64_t i;

	/* a hostile log's times may be near 2^64: the width stops at 2^63 */
	while (end_ns / a->rate_width >= RUN_RATE_BUCKETS && a->rate_width <= UINT64_MAX / 2) {
		for (unsigned k = 0; k < RUN_RATE_BUCKETS / 2; k++) {
			a->rate_ops[k] = a->rate_ops[2 * k] + a->rate_ops[2 * k + 1];
			a->rate_bytes[k] = a->rate_bytes[2 * k] + a->rate_bytes[2 * k + 1];
		}
		memset(a->rate_ops + RUN_RATE_BUCKETS / 2, 0, sizeof(a->rate_ops) / 2);
		memset(a->rate_bytes + RUN_RATE_BUCKETS / 2, 0, sizeof(a->rate_bytes) / 2);
		a->rate_width *= 2;
	}
	i = end_ns / a->rate_width;
	if (i >= RUN_RATE_BUCKETS)
		i = RUN_RATE_BUCKETS - 1;
	a->rate_ops[i]++;
	a->rate_bytes[i] += bytes;
}

void run_acc_op(struct run_acc *a, const struct run_op *op)
{
	const struct riot_sys_info *si = riot_sys_info(op->sys);
	struct sys_acc *s;
	struct proc_acc *p;
	uint64_t rd, wr;
	int cls;

	if (!si || !(s = sys_get(a, op->sys)))
		return;
	a->ops++;
	run_bytes(op->sys, op->ret, &rd, &wr);
	note_sys(s, op, si->cls == RIOT_CLASS_DATA_WRITE ? wr : rd);
	file_add(a, op, rd, wr);
	p = proc_get(a, op->pid);
	if (p)
		usage_add(&p->u, op, rd, wr);
	if (stacks_add(&a->stacks, p ? p->comm_id : 0, op->sys, op->path_id, op->lat_ns,
		       rd > wr ? rd : wr))
		a->oom = -ENOMEM;
	if (op->t_ns + op->lat_ns > a->max_end)
		a->max_end = op->t_ns + op->lat_ns;
	cls = tl_class_of(si->cls);
	if (cls != TL_NONE) {
		tl_add(a, cls, op->t_ns + op->lat_ns, op->lat_ns,
		       cls == TL_DATA_WRITE ? wr : rd);
		rate_add(a, op->t_ns + op->lat_ns, cls == TL_DATA_WRITE ? wr : rd);
	}
	if (a->ins_event)
		event_insert(a, op);
}

void run_acc_divergence(struct run_acc *a, unsigned sys, enum run_divergence kind,
			int64_t captured_ret, int64_t replay_ret, const char *path)
{
	struct sys_acc *s;
	struct div_sample *d;

	if (sys >= RIOT_SYS_COUNT || kind < RUN_DIV_RESULT || kind >= RUN_DIV_COUNT ||
	    !(s = sys_get(a, sys)))
		return;
	s->div[kind]++;
	if (a->nsamples >= RUN_DIV_SAMPLES)
		return;
	if (!a->samples && !(a->samples = calloc(RUN_DIV_SAMPLES, sizeof(*a->samples)))) {
		a->oom = -ENOMEM;
		return;
	}
	d = &a->samples[a->nsamples++];
	d->sys = (uint16_t)sys;
	d->kind = (uint8_t)kind;
	d->captured_ret = captured_ret;
	d->replay_ret = replay_ret;
	d->path = path ? strdup(path) : NULL;
}

int run_acc_keep_events(struct run_acc *a, const char *db_path, char *err, size_t errlen)
{
	char ins[512];
	int rc = columns_insert(&column_events, ins, sizeof(ins));

	if (rc)
		return rc;

	if (a->db || a->ops)
		return -EINVAL;
	a->db = report_db_open_rw(db_path, err, errlen);
	if (!a->db)
		return -errno;
	rc = report_db_exec(a->db, "BEGIN IMMEDIATE", err, errlen);
	if (!rc)
		rc = report_db_reserve_run(a->db, &a->run_id, err, errlen);
	if (!rc && sqlite3_prepare_v2(a->db, ins, -1, &a->ins_event, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", db_path, sqlite3_errmsg(a->db));
		rc = -EIO;
	}
	return rc;
}

void run_acc_stacks_max(struct run_acc *a, uint32_t max)
{
	a->stacks_max = max ? max : 1;
}

int run_acc_folded(const struct run_acc *a, const struct model *m, enum stack_weight w,
		   FILE *out)
{
	struct stack_folded *v;
	size_t n;
	int rc = stacks_fold(&a->stacks, m, 1u << w, a->stacks_max, &v, &n);

	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++)
		if (v[i].w[w])
			fprintf(out, "%s %llu\n", v[i].stack, (unsigned long long)v[i].w[w]);
	stacks_folded_free(v, n);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

int run_acc_events_error(const struct run_acc *a)
{
	return a->events_err;
}
