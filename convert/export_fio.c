/* convert/export_fio.c: a .riot log as fio iolog v3 files and a job file,
 * so fio can replay the same data operations (convert/fio.h).
 *
 * The log is streamed once through the model, which names the file object
 * and path of every operation. Reads and writes without an offset use the
 * file position as the captured program saw it, tracked here per file
 * object (shared by dup and fork, as the kernel does): 0 at open, the
 * snapshot's position for fds open at the start, += bytes moved, set by
 * lseek; a write to an O_APPEND file goes to the end, tracked per path from
 * the sizes the log shows (open, stat) and the writes and truncations it
 * makes. Lengths are the bytes the call moved (its return value), so fio
 * never reads past what the workload saw.
 *
 * One iolog per captured thread, each replayed by its own fio job, so the
 * threads run side by side as captured and each one's calls stay in order.
 * fio's v3 timestamps are microseconds since the job started (fio's own
 * write_iolog writes them so); fio waits for the difference to the
 * previous line, and treats the first line as time 0, so every iolog
 * starts with an "add" at 1 µs: the first operation then keeps its offset
 * from the start of the capture.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert/fio.h"
#include "lib/grow.h"
#include "lib/map.h"
#include "formats/log.h"
#include "formats/semantics.h"
#include "model/model.h"

#define FIO_NAME_MAX 256	/* fio reads file names with "%256s" */
#define OPEN_IOLOGS 64		/* iolog files kept open at once */

static const char *const skip_names[FIO_SKIP_COUNT] = {
	[FIO_SKIP_FAILED] = "failed",
	[FIO_SKIP_UNRESOLVED] = "unresolved",
	[FIO_SKIP_NOT_FILE] = "not_file",
	[FIO_SKIP_NAME] = "name",
	[FIO_SKIP_UNSUPPORTED] = "unsupported",
	[FIO_SKIP_SYMLINK] = "symlink",
};

const char *fio_skip_name(enum fio_skip s)
{
	return s < FIO_SKIP_COUNT ? skip_names[s] : "unknown";
}

/* ---- jobs: one iolog per captured thread ---- */

struct job {
	uint32_t tid;
	FILE *f;		/* NULL while closed to bound open files */
	uint64_t last_use;
	uint64_t last_us;	/* timestamps never go back within a job */
	uint64_t ios;		/* read/write lines: fio refuses a job
				 * without any */
	bool started;		/* its first line is written */
};

struct exporter {
	const struct fio_export_opts *o;
	const char *dir;
	struct model *m;
	struct fio_export_stats *st;
	uint64_t t0;		/* ns of timestamp 0 */
	struct job *jobs;
	size_t njobs, jobs_cap;
	struct u64map job_by_tid;	/* tid -> index + 1 */
	struct u64map pos;		/* file id -> position */
	struct u64map size;		/* path id -> size */
	struct u64map opened;		/* tid << 32 | path id -> opens + 1
					 * (1: added, not open) */
	struct u64map links;		/* path ids the log shows as symlinks */
	struct u64map made_dirs;	/* path ids of directories the
					 * workload made (mkdir) */
	unsigned open_files;
	uint64_t use_clock;
	char name[PATH_MAX + FIO_NAME_MAX];
	char err[256];
};

static int job_path(const struct exporter *x, uint32_t tid, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/riot-%u.iolog", x->dir, tid);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Closes the least recently used iolog, keeping at most OPEN_IOLOGS. */
static int job_evict(struct exporter *x)
{
	struct job *lru = NULL;

	for (size_t i = 0; i < x->njobs; i++)
		if (x->jobs[i].f && (!lru || x->jobs[i].last_use < lru->last_use))
			lru = &x->jobs[i];
	if (!lru)
		return 0;
	x->open_files--;
	if (fclose(lru->f)) {
		lru->f = NULL;
		return -errno;
	}
	lru->f = NULL;
	return 0;
}

static struct job *job_get(struct exporter *x, uint32_t tid, int *rc)
{
	uint64_t *ix = map_slot(&x->job_by_tid, (uint64_t)tid + 1);
	char path[PATH_MAX + 32];
	struct job *j;
	bool fresh = false;

	*rc = -ENOMEM;
	if (!ix)
		return NULL;
	if (!*ix) {
		if (GROW(x->jobs, x->jobs_cap, x->njobs + 1, 16))
			return NULL;
		x->jobs[x->njobs] = (struct job){ .tid = tid };
		*ix = ++x->njobs;
		fresh = true;
	}
	j = &x->jobs[*ix - 1];
	j->last_use = ++x->use_clock;
	if (j->f)
		return j;
	if (x->open_files >= OPEN_IOLOGS && (*rc = job_evict(x)))
		return NULL;
	if ((*rc = job_path(x, tid, path, sizeof(path))))
		return NULL;
	j->f = fopen(path, fresh ? "we" : "ae");
	if (!j->f) {
		*rc = -errno;
		return NULL;
	}
	x->open_files++;
	if (fresh && fputs("fio version 3 iolog\n", j->f) < 0) {
		*rc = -EIO;
		return NULL;
	}
	*rc = 0;
	return j;
}

static uint64_t rel_us(struct exporter *x, struct job *j, uint64_t t)
{
	uint64_t us = t > x->t0 ? (t - x->t0) / 1000 : 0;

	if (us < 2)
		us = 2;		/* after the job's first line at 1 µs */
	if (us < j->last_us)
		us = j->last_us;
	j->last_us = us;
	if (us > x->st->duration_us)
		x->st->duration_us = us;
	return us;
}

/* ---- file names ---- */

static bool pseudo_path(const char *p)
{
	static const char *const tops[] = { "/proc", "/sys", "/dev" };

	for (unsigned i = 0; i < 3; i++) {
		size_t n = strlen(tops[i]);

		if (strncmp(p, tops[i], n) == 0 && (p[n] == '/' || p[n] == 0))
			return true;
	}
	return false;
}

/* Whether path or a directory above it is a symlink as far as the log
 * tells: fio would follow it with no root to keep it in. */
static bool crosses_link(struct exporter *x, const char *path)
{
	size_t n = strlen(path);

	if (!x->links.len)
		return false;
	for (size_t i = 1; i <= n; i++) {
		uint32_t id;

		if (i < n && path[i] != '/')
			continue;
		id = model_path_find(x->m, path, i);
		if (id && map_get(&x->links, id))
			return true;
	}
	return false;
}

/* Notes the paths a record shows to be symlinks: read by readlink, made
 * by symlink, seen by lstat, or a symlink renamed. */
static int note_links(struct exporter *x, const struct riot_syscall *sc,
		      const struct model_op *op, unsigned fio)
{
	uint32_t id = 0;

	if (sc->ret < 0)
		return 0;
	switch (fio) {
	case RIOT_FIO_LINK:
		id = op->path_id;
		break;
	case RIOT_FIO_RENAME:
		if (op->path_id && map_get(&x->links, op->path_id))
			id = op->path2_id;
		break;
	default:	/* any other call shows a symlink by the type it found */
		if ((sc->has & RIOT_HAS_FTYPE) && (sc->ftype & S_IFMT) == S_IFLNK)
			id = op->path_id;
		break;
	}
	return id && !map_slot(&x->links, id) ? -ENOMEM : 0;
}

/* -ENOTSUP (the reason in x->err) when a file fio would use lies beneath
 * a directory the workload made: riot init does not make it (it is not part
 * of the starting tree) and fio does not make directories, so the printed
 * route would fail on it. */
static int check_made_dir(struct exporter *x, const char *path)
{
	for (const char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		uint32_t id = model_path_find(x->m, path, (size_t)(s - path));

		if (id && map_get(&x->made_dirs, id)) {
			snprintf(x->err, sizeof(x->err),
				 "%.*s is a directory the workload made, and fio cannot make "
				 "directories: replay this log with riot replay", (int)(s - path), path);
			return -ENOTSUP;
		}
	}
	return 0;
}

/* The name fio gets for a captured path: root + path. */
static int fio_name(struct exporter *x, uint64_t file, const char *path,
		    enum fio_skip *why)
{
	const struct model_file *f = file ? model_file(x->m, file) : NULL;
	int n;

	if (!file || !path) {
		*why = FIO_SKIP_UNRESOLVED;
		return -1;
	}
	if (path[0] != '/' || pseudo_path(path) ||
	    (f && (f->has & RIOT_HAS_FTYPE) && f->ftype && f->ftype != S_IFREG)) {
		*why = FIO_SKIP_NOT_FILE;
		return -1;
	}
	if (crosses_link(x, path)) {
		*why = FIO_SKIP_SYMLINK;
		return -1;
	}
	n = snprintf(x->name, sizeof(x->name), "%s%s", x->o->root, path);
	if (n < 0 || n > FIO_NAME_MAX || strpbrk(x->name, " \t\n\r\v\f")) {
		*why = FIO_SKIP_NAME;
		return -1;
	}
	return 0;
}

/* ---- lines ---- */

static int put_line(struct exporter *x, struct job *j, uint64_t us, const char *act,
		    uint64_t off, uint64_t len, bool io)
{
	int n;

	if (!j->started)	/* fio takes the first line as time 0 */
		us = 1;
	j->started = true;
	n = io ? fprintf(j->f, "%" PRIu64 " %s %s %" PRIu64 " %" PRIu64 "\n",
			     us, x->name, act, off, len)
		   : fprintf(j->f, "%" PRIu64 " %s %s\n", us, x->name, act);

	return n < 0 ? -EIO : 0;
}

/* Makes x->name added (state 1) and open (state 2) in job j. Files open
 * lazily, at their first operation in a thread, and close at that
 * thread's captured close: a thread that never uses a file it opened does
 * not make fio open it. */
static int ensure_open(struct exporter *x, struct job *j, uint32_t path_id, uint64_t us)
{
	uint64_t *v = map_slot(&x->opened, (uint64_t)j->tid << 32 | path_id);
	int rc = 0;

	if (!v)
		return -ENOMEM;
	if (*v == 0) {
		rc = put_line(x, j, us, "add", 0, 0, false);
		*v = 1;
	}
	if (!rc && *v == 1) {
		rc = put_line(x, j, us, "open", 0, 0, false);
		x->st->opens++;
		*v = 2;
	}
	return rc;
}

static void count_io(struct exporter *x, const char *act, uint64_t len)
{
	if (act[0] == 'r') {
		x->st->reads++;
		x->st->bytes_read += len;
	} else if (act[0] == 'w') {
		x->st->writes++;
		x->st->bytes_written += len;
	} else {
		x->st->syncs++;
	}
}

static int do_io(struct exporter *x, const struct riot_syscall *sc, uint64_t file,
		 const char *path, uint32_t path_id, const char *act, uint64_t off,
		 uint64_t len)
{
	enum fio_skip why;
	struct job *j;
	uint64_t us;
	int rc;

	if (fio_name(x, file, path, &why)) {
		x->st->skipped[why]++;
		return 0;
	}
	if ((rc = check_made_dir(x, path)))
		return rc;
	if (x->o->on_io) {
		count_io(x, act, len);
		return x->o->on_io(x->o->on_io_arg, sc->tid, sc->t, x->name, act, off, len);
	}
	j = job_get(x, sc->tid, &rc);
	if (!j)
		return rc;
	us = rel_us(x, j, sc->t);
	if ((rc = ensure_open(x, j, path_id, us)))
		return rc;
	if (act[0] == 'r' || act[0] == 'w') {
		j->ios++;
		count_io(x, act, len);
		return put_line(x, j, us, act, off, len, true);
	}
	count_io(x, act, len);
	return put_line(x, j, us, act, 0, 0, true);
}

/* ---- positions and sizes ---- */

static uint64_t *pos_of(struct exporter *x, uint64_t file)
{
	return map_slot(&x->pos, file);
}

static void size_at_least(struct exporter *x, uint32_t path_id, uint64_t size)
{
	uint64_t *v = path_id ? map_slot(&x->size, path_id) : NULL;

	if (v && size > *v)
		*v = size;
}

static void size_set(struct exporter *x, uint32_t path_id, uint64_t size)
{
	uint64_t *v = path_id ? map_slot(&x->size, path_id) : NULL;

	if (v)
		*v = size;
}

static uint32_t file_path_id(struct exporter *x, uint64_t file)
{
	const struct model_file *f = file ? model_file(x->m, file) : NULL;

	return f ? f->path_id : 0;
}

/* Offset of a read or write without one (or with -1, preadv2's "current
 * position"), advancing the file's position. */
static int io_offset(struct exporter *x, uint64_t file, bool write, uint64_t ret,
		     uint64_t *off)
{
	const struct model_file *f = model_file(x->m, file);
	uint64_t *pos = pos_of(x, file);

	if (!pos)
		return -ENOMEM;
	if (write && f && (f->open_flags & O_APPEND)) {
		uint64_t *sz = map_slot(&x->size, f->path_id);

		*off = sz ? *sz : *pos;
	} else {
		*off = *pos;
	}
	*pos = *off + ret;
	return 0;
}

static bool has_offset(const struct riot_syscall *sc)
{
	return (sc->has & RIOT_HAS_OFF) && sc->off != UINT64_MAX;
}

static int do_data(struct exporter *x, const struct riot_syscall *sc,
		   const struct model_op *op, bool write)
{
	uint64_t ret = (uint64_t)sc->ret, off;
	int rc;

	if (sc->ret <= 0) {
		x->st->skipped[FIO_SKIP_FAILED]++;
		return 0;
	}
	if (!op->file) {
		x->st->skipped[FIO_SKIP_UNRESOLVED]++;
		return 0;
	}
	if (has_offset(sc))
		off = sc->off;
	else if ((rc = io_offset(x, op->file, write, ret, &off)))
		return rc;
	if (write)
		size_at_least(x, op->path_id ? op->path_id : file_path_id(x, op->file), off + ret);
	return do_io(x, sc, op->file, op->path, file_path_id(x, op->file),
		     write ? "write" : "read", off, ret);
}

/* copy_file_range, sendfile, splice: a read of fd and a write of fd2,
 * each at its explicit offset or its file's position. */
static int do_copy(struct exporter *x, const struct riot_syscall *sc,
		   const struct model_op *op)
{
	uint64_t ret = (uint64_t)sc->ret, in_off, out_off;
	bool in_explicit = sc->has & RIOT_HAS_OFF, out_explicit = sc->has & RIOT_HAS_OFF2;
	int rc;

	if (sc->ret <= 0) {
		x->st->skipped[FIO_SKIP_FAILED]++;
		return 0;
	}
	if (!op->file || !op->file2) {
		x->st->skipped[FIO_SKIP_UNRESOLVED]++;
		return 0;
	}
	in_off = sc->off;
	out_off = sc->off2;
	if (sc->sys == RIOT_SYS_sendfile)	/* sendfile has no out offset */
		out_explicit = false;
	if (!in_explicit && (rc = io_offset(x, op->file, false, ret, &in_off)))
		return rc;
	if (!out_explicit && (rc = io_offset(x, op->file2, true, ret, &out_off)))
		return rc;
	size_at_least(x, file_path_id(x, op->file2), out_off + ret);
	rc = do_io(x, sc, op->file, op->path, file_path_id(x, op->file), "read", in_off, ret);
	if (!rc)
		rc = do_io(x, sc, op->file2, op->path2, file_path_id(x, op->file2), "write",
			   out_off, ret);
	return rc;
}

static int do_open(struct exporter *x, const struct riot_syscall *sc,
		   const struct model_op *op)
{
	uint64_t *pos;
	uint32_t path_id = file_path_id(x, op->file);

	if (sc->ret < 0 || !op->file)
		return 0;
	pos = pos_of(x, op->file);
	if (!pos)
		return -ENOMEM;
	*pos = 0;
	if (sc->has & RIOT_HAS_SIZE)
		size_at_least(x, path_id, sc->size);
	if (sc->flags & O_TRUNC)
		size_set(x, path_id, 0);
	return 0;
}

/* A captured close: fio's close when the thread's job has it open from a
 * captured open and this was the last of them. */
static int do_close(struct exporter *x, const struct riot_syscall *sc,
		    const struct model_op *op)
{
	uint32_t path_id = file_path_id(x, op->file);
	uint64_t *v, *ix;
	enum fio_skip why;
	struct job *j;
	int rc;

	if (sc->ret < 0 || !path_id)
		return 0;
	v = map_get(&x->opened, (uint64_t)sc->tid << 32 | path_id);
	ix = map_get(&x->job_by_tid, (uint64_t)sc->tid + 1);
	if (!v || *v != 2 || !ix || fio_name(x, op->file, op->path, &why))
		return 0;
	j = job_get(x, sc->tid, &rc);
	if (!j)
		return rc;
	*v = 1;
	x->st->closes++;
	return put_line(x, j, rel_us(x, j, sc->t + sc->dur), "close", 0, 0, false);
}

/* A call, by its fio column in formats/semantics.def. */
static int do_syscall(struct exporter *x, const struct riot_syscall *sc,
		      const struct model_op *op)
{
	const struct riot_sys_sem *sem = riot_sys_sem(sc->sys);
	uint64_t *pos;

	if (!sem)
		return 0;
	if (note_links(x, sc, op, sem->fio))
		return -ENOMEM;
	switch ((enum riot_fio)sem->fio) {
	case RIOT_FIO_UNSET:	/* no row has it: test_semantics */
	case RIOT_FIO_COUNT:
	case RIOT_FIO_NONE:
	case RIOT_FIO_LINK:
	case RIOT_FIO_RENAME:
		return 0;
	case RIOT_FIO_MKDIR:
		if (sc->ret >= 0 && op->path_id && !map_slot(&x->made_dirs, op->path_id))
			return -ENOMEM;
		return 0;
	case RIOT_FIO_READ:
		return do_data(x, sc, op, false);
	case RIOT_FIO_WRITE:
		return do_data(x, sc, op, true);
	case RIOT_FIO_COPY:
		return do_copy(x, sc, op);
	case RIOT_FIO_OPEN:
		return do_open(x, sc, op);
	case RIOT_FIO_CLOSE:
		return do_close(x, sc, op);
	case RIOT_FIO_SEEK:
		if (sc->ret >= 0 && op->file && (pos = pos_of(x, op->file)))
			*pos = (uint64_t)sc->ret;
		return 0;
	case RIOT_FIO_FSYNC:
	case RIOT_FIO_FDATASYNC:
		if (sc->ret < 0)
			return 0;
		return do_io(x, sc, op->file, op->path, file_path_id(x, op->file),
			     sem->fio == RIOT_FIO_FSYNC ? "sync" : "datasync", 0, 0);
	case RIOT_FIO_TRUNCATE:
		if (sc->ret == 0)
			size_set(x, op->path_id ? op->path_id : file_path_id(x, op->file), sc->off);
		x->st->skipped[FIO_SKIP_UNSUPPORTED]++;
		return 0;
	case RIOT_FIO_FALLOCATE:
		if (sc->ret == 0 && !(sc->flags & 1))	/* FALLOC_FL_KEEP_SIZE */
			size_at_least(x, file_path_id(x, op->file), sc->off + sc->count);
		x->st->skipped[FIO_SKIP_UNSUPPORTED]++;
		return 0;
	case RIOT_FIO_STAT:
		if (sc->ret == 0 && (sc->has & RIOT_HAS_SIZE))
			size_set(x, op->path_id ? op->path_id : file_path_id(x, op->file), sc->size);
		return 0;
	case RIOT_FIO_UNSUPPORTED:
		x->st->skipped[FIO_SKIP_UNSUPPORTED]++;
		return 0;
	case RIOT_FIO_MMAP:
		if (op->file)
			x->st->skipped[FIO_SKIP_UNSUPPORTED]++;
		return 0;
	}
	return 0;
}

/* Drops positions of file objects the model has freed, so memory follows
 * the live files. */
static void sweep_positions(struct exporter *x)
{
	for (size_t i = 0; i < x->pos.cap;) {
		if (x->pos.keys[i] != MAP_EMPTY && !model_file(x->m, x->pos.keys[i]))
			map_del_at(&x->pos, (uint32_t)i);	/* slot i refilled: look again */
		else
			i++;
	}
}

static int do_record(struct exporter *x, const struct riot_rec *r)
{
	struct model_op op;
	uint64_t *pos;
	int rc = model_apply(x->m, r, &op);

	if (rc)
		return rc;
	x->st->records++;
	if ((x->st->records & 0xffff) == 0)
		sweep_positions(x);
	if (r->type == RIOT_REC_SNAP_FD && op.file) {
		pos = pos_of(x, op.file);
		if (!pos)
			return -ENOMEM;
		*pos = r->sfd.pos;
		return 0;
	}
	if (r->type != RIOT_REC_SYSCALL)
		return 0;
	return do_syscall(x, &r->sc, &op);
}

/* ---- the job file ---- */

static int write_jobfile(struct exporter *x, const char *log_path)
{
	char path[PATH_MAX + 32], iolog[PATH_MAX + 32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/riot.fio", x->dir);
	f = fopen(path, "we");
	if (!f)
		return -errno;
	fprintf(f, "; fio jobs replaying the data operations of %s\n"
		"; written by riot export fio: one job per captured thread.\n"
		"; Files live under %s (the captured path appended);\n"
		"; create them first with: riot init %s --root %s\n"
		"; Run: fio %s\n\n"
		"[global]\n"
		"ioengine=%s\n"
		"iodepth=%u\n"
		"thread=1\n"
		"replay_no_stall=%d\n\n",
		log_path, x->o->root, log_path, x->o->root, path,
		x->o->engine == FIO_ENGINE_PSYNC ? "psync" : "io_uring",
		x->o->engine == FIO_ENGINE_PSYNC || !x->o->iodepth ? 1 : x->o->iodepth,
		x->o->no_stall ? 1 : 0);
	for (size_t i = 0; i < x->njobs; i++) {
		if (!x->jobs[i].ios)
			continue;
		job_path(x, x->jobs[i].tid, iolog, sizeof(iolog));
		fprintf(f, "[tid-%u]\nread_iolog=%s\n\n", x->jobs[i].tid, iolog);
		x->st->jobs++;
	}
	return fclose(f) ? -errno : 0;
}

/* Closes every iolog and removes those of jobs without I/O. */
static int finish_jobs(struct exporter *x)
{
	char path[PATH_MAX + 32];
	int rc = 0;

	for (size_t i = 0; i < x->njobs; i++) {
		struct job *j = &x->jobs[i];

		if (j->f && fclose(j->f) && !rc)
			rc = -errno;
		j->f = NULL;
		if (!j->ios && !job_path(x, j->tid, path, sizeof(path)))
			unlink(path);
	}
	return rc;
}

static int export_stream(struct exporter *x, struct riot_reader *rd, char *err, size_t errlen)
{
	const struct riot_log_header *h = riot_reader_header(rd);
	struct riot_rec r;
	int rc;

	x->t0 = h->start_t;
	while ((rc = riot_reader_next(rd, &r)) > 0) {
		if (!x->t0 && r.type == RIOT_REC_SYSCALL)
			x->t0 = r.sc.t;
		rc = do_record(x, &r);
		if (rc) {
			snprintf(err, errlen, "%s", x->err[0] ? x->err : strerror(-rc));
			return rc;
		}
	}
	if (rc < 0)
		snprintf(err, errlen, "%s", riot_reader_error(rd));
	return rc;
}

int fio_export(const struct riot_logs *logs, const char *dir, const struct fio_export_opts *o,
	       struct fio_export_stats *st, char *err, size_t errlen)
{
	struct exporter x = { .o = o, .dir = dir, .st = st };
	struct riot_reader *rd;
	int rc, rc2;

	map_init(&x.job_by_tid, map_seed());
	map_init(&x.pos, map_seed());
	map_init(&x.size, map_seed());
	map_init(&x.opened, map_seed());
	map_init(&x.links, map_seed());
	map_init(&x.made_dirs, map_seed());
	memset(st, 0, sizeof(*st));
	if (!o->root || o->root[0] != '/') {
		snprintf(err, errlen, "the root must be an absolute path");
		return -EINVAL;
	}
	if (!o->on_io && mkdir(dir, 0755) && errno != EEXIST) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return rc;
	}
	rd = riot_reader_open_logs(logs, err, errlen);
	if (!rd)
		return errno ? -errno : -EINVAL;
	x.m = model_new();
	if (!x.m) {
		riot_reader_close(rd);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = export_stream(&x, rd, err, errlen);
	rc2 = finish_jobs(&x);
	if (!rc && rc2) {
		rc = rc2;
		snprintf(err, errlen, "%s: %s", dir, strerror(-rc));
	}
	if (!rc && !o->on_io) {
		char *names = riot_logs_join(logs);

		rc = names ? write_jobfile(&x, names) : -ENOMEM;
		if (rc)
			snprintf(err, errlen, "%s/riot.fio: %s", dir, strerror(-rc));
		free(names);
	}
	model_free(x.m);
	riot_reader_close(rd);
	free(x.jobs);
	map_fini(&x.job_by_tid);
	map_fini(&x.pos);
	map_fini(&x.size);
	map_fini(&x.opened);
	map_fini(&x.links);
	map_fini(&x.made_dirs);
	return rc;
}
