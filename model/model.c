/* model/model.c: processes, tasks, fd tables, cwds and file objects; the
 * rules are in model.h. */
#include "model/model.h"
#include "model/path.h"
#include "model/pool.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "lib/map.h"
#include "lib/grow.h"
#include "lib/pathname.h"
#include "formats/semantics.h"

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1u << 1)
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1u << 2)
#endif

/* An fd table maps fd -> file slot << 1 | cloexec. */
#define FD_CLOEXEC_BIT 1u

struct fd_table {
	uint32_t refs;		/* tasks and processes holding it */
	struct u64map fds;
};

struct fs_info {		/* what CLONE_FS shares */
	uint32_t refs;
	uint32_t cwd;		/* path id; 0 unknown */
};

struct file_obj {
	uint32_t refs;		/* fds referring to it */
	uint64_t made_t;	/* when the call that made it ended (a found
				 * fd: when it was found); 0: at the start */
	struct model_file pub;
};

struct task {
	uint32_t tid, pid;
	uint32_t proc;		/* slot in procs */
	uint32_t fdt, fs;	/* one reference each */
	uint64_t last_end;	/* end (t + dur) of its last call, when
				 * has_end: the start of its think time */
	bool has_end;
};

struct proc {
	uint32_t pid;
	uint32_t ntasks;
	uint32_t fdt, fs;	/* what a thread first seen in a record
				 * shares; one reference each */
};

enum { ROLE_PATH2 = 1u << 0 };	/* path2 is a path of the process */

struct model {
	uint64_t seed;
	struct path_table paths;
	struct pool fdts, fss, files, tasks, procs;
	struct u64map task_by_tid, proc_by_pid, file_by_id;
	struct u64map fixed;	/* io_uring registered files: ring id << 32
				 * | index -> file slot << 1 */
	uint32_t *released;	/* file slots freed at the next apply */
	uint32_t nreleased, released_cap;
	uint64_t next_file_id;
	uint64_t rec_end;	/* end of the record being applied; 0: a
				 * start-state one */
	uint8_t role[RIOT_SYS_COUNT];
	bool tables_only;	/* model_new_tables() */
	struct model_stats st;
	char buf[MODEL_PATH_MAX];
};

static struct fd_table *FDT(struct model *m, uint32_t i) { return pool_at(&m->fdts, i); }
static struct fs_info *FS(struct model *m, uint32_t i) { return pool_at(&m->fss, i); }
static struct file_obj *FILEO(struct model *m, uint32_t i) { return pool_at(&m->files, i); }
static struct task *TASK(struct model *m, uint32_t i) { return pool_at(&m->tasks, i); }
static struct proc *PROC(struct model *m, uint32_t i) { return pool_at(&m->procs, i); }

/* ---- file objects ---- */

static void file_unref(struct model *m, uint32_t fi)
{
	struct file_obj *f = FILEO(m, fi);

	if (--f->refs)
		return;
	if (GROW(m->released, m->released_cap, m->nreleased + 1, 64)) {
		/* free now: only model_file() of it is lost */
		map_del(&m->file_by_id, f->pub.id, NULL);
		pool_put(&m->files, fi);
		return;
	}
	m->released[m->nreleased++] = fi;
}

static void files_flush_released(struct model *m)
{
	for (uint32_t i = 0; i < m->nreleased; i++) {
		uint32_t fi = m->released[i];

		map_del(&m->file_by_id, FILEO(m, fi)->pub.id, NULL);
		pool_put(&m->files, fi);
	}
	m->nreleased = 0;
}

/* A new file object with no fd yet (refs 0: the caller installs it). */
static uint32_t file_new(struct model *m, uint32_t path_id, bool truncated)
{
	uint32_t fi = pool_alloc(&m->files);
	struct file_obj *f;

	if (!fi)
		return 0;
	f = FILEO(m, fi);
	f->made_t = m->rec_end;
	f->pub.id = ++m->next_file_id;
	f->pub.path_id = path_id;
	f->pub.flags = truncated ? MODEL_FILE_TRUNCATED : 0;
	if (map_put(&m->file_by_id, f->pub.id, fi)) {
		pool_put(&m->files, fi);
		errno = ENOMEM;
		return 0;
	}
	m->st.files++;
	return fi;
}

/* ---- fd tables ---- */

static uint32_t fdt_new(struct model *m)
{
	uint32_t ti = pool_alloc(&m->fdts);

	if (!ti)
		return 0;
	FDT(m, ti)->refs = 1;
	map_init(&FDT(m, ti)->fds, m->seed);
	return ti;
}

static uint32_t fdt_ref(struct model *m, uint32_t ti)
{
	FDT(m, ti)->refs++;
	return ti;
}

static void fdt_unref(struct model *m, uint32_t ti)
{
	struct fd_table *t = FDT(m, ti);

	if (--t->refs)
		return;
	for (uint32_t i = 0; i < t->fds.cap; i++)
		if (t->fds.keys[i] != MAP_EMPTY)
			file_unref(m, t->fds.vals[i] >> 1);
	map_fini(&t->fds);
	pool_put(&m->fdts, ti);
}

/* A private copy (fork without CLONE_FILES, unshare). 0 + errno. */
static uint32_t fdt_copy(struct model *m, uint32_t src)
{
	uint32_t ti = pool_alloc(&m->fdts);
	struct fd_table *t;

	if (!ti)
		return 0;
	t = FDT(m, ti);
	if (map_copy(&t->fds, &FDT(m, src)->fds)) {
		pool_put(&m->fdts, ti);
		errno = ENOMEM;
		return 0;
	}
	t->refs = 1;
	for (uint32_t i = 0; i < t->fds.cap; i++)
		if (t->fds.keys[i] != MAP_EMPTY)
			FILEO(m, t->fds.vals[i] >> 1)->refs++;
	return ti;
}

static bool fd_valid(int64_t fd)
{
	return fd >= 0 && fd <= INT32_MAX;
}

/* File slot behind fd in table ti, or 0. */
static uint32_t fd_file(struct model *m, uint32_t ti, int64_t fd)
{
	uint64_t *v;

	if (!fd_valid(fd))
		return 0;
	v = map_get(&FDT(m, ti)->fds, (uint64_t)fd);
	return v ? *v >> 1 : 0;
}

/* File fi at key of map fds (an fd table, or the registered files), in
 * place of what was there. */
static int slot_install(struct model *m, struct u64map *fds, uint64_t key, uint32_t fi,
			bool cloexec)
{
	uint64_t *v;
	uint32_t old = 0;

	v = map_get(fds, key);
	if (v)
		old = *v >> 1;
	if (map_put(fds, key, fi << 1 | (cloexec ? FD_CLOEXEC_BIT : 0)))
		return -ENOMEM;
	FILEO(m, fi)->refs++;
	if (old)
		file_unref(m, old);
	return 0;
}

static int fd_install(struct model *m, uint32_t ti, int64_t fd, uint32_t fi, bool cloexec)
{
	if (!fd_valid(fd))
		return 0;
	return slot_install(m, &FDT(m, ti)->fds, (uint64_t)fd, fi, cloexec);
}

static void fd_close(struct model *m, uint32_t ti, int64_t fd)
{
	uint64_t v;

	if (fd_valid(fd) && map_del(&FDT(m, ti)->fds, (uint64_t)fd, &v))
		file_unref(m, v >> 1);
}

static void fd_set_cloexec(struct model *m, uint32_t ti, int64_t fd, bool on)
{
	uint64_t *v = fd_valid(fd) ? map_get(&FDT(m, ti)->fds, (uint64_t)fd) : NULL;

	if (v)
		*v = on ? *v | FD_CLOEXEC_BIT : *v & ~FD_CLOEXEC_BIT;
}

/* Closes (or, with mark, sets close-on-exec on) fds in [lo, hi] of table
 * ti; only_cloexec limits closing to close-on-exec fds (exec). */
static void fds_close_where(struct model *m, uint32_t ti, uint64_t lo, uint64_t hi,
			    bool only_cloexec, bool mark)
{
	struct u64map *fds = &FDT(m, ti)->fds;

	for (uint32_t i = 0; i < fds->cap;) {
		uint64_t fd = fds->keys[i];
		uint32_t v = fds->vals[i];

		if (fd == MAP_EMPTY || fd < lo || fd > hi ||
		    (only_cloexec && !(v & FD_CLOEXEC_BIT))) {
			i++;
			continue;
		}
		if (mark) {
			fds->vals[i] |= FD_CLOEXEC_BIT;
			i++;
			continue;
		}
		map_del_at(fds, i);	/* slot i may now hold a later fd */
		file_unref(m, v >> 1);
	}
}

/* ---- cwd ---- */

static uint32_t fs_new(struct model *m, uint32_t cwd)
{
	uint32_t si = pool_alloc(&m->fss);

	if (!si)
		return 0;
	FS(m, si)->refs = 1;
	FS(m, si)->cwd = cwd;
	return si;
}

static uint32_t fs_ref(struct model *m, uint32_t si)
{
	FS(m, si)->refs++;
	return si;
}

static void fs_unref(struct model *m, uint32_t si)
{
	if (--FS(m, si)->refs == 0)
		pool_put(&m->fss, si);
}

/* ---- tasks and processes ---- */

/* Frees task slot ki, already out of task_by_tid; keeps its process. */
static void task_release(struct model *m, uint32_t ki)
{
	struct task t = *TASK(m, ki);

	PROC(m, t.proc)->ntasks--;
	fdt_unref(m, t.fdt);
	fs_unref(m, t.fs);
	pool_put(&m->tasks, ki);
}

/* Drops every task of process pi except keep. */
static void proc_drop_tasks(struct model *m, uint32_t pi, uint32_t keep)
{
	struct u64map *mp = &m->task_by_tid;

	for (uint32_t i = 0; i < mp->cap && PROC(m, pi)->ntasks > (keep ? 1 : 0);) {
		uint32_t ki = mp->vals[i];

		if (mp->keys[i] == MAP_EMPTY || ki == keep || TASK(m, ki)->proc != pi) {
			i++;
			continue;
		}
		map_del_at(mp, i);
		task_release(m, ki);
	}
}

static void proc_end(struct model *m, uint32_t pi)
{
	struct proc p;

	proc_drop_tasks(m, pi, 0);
	p = *PROC(m, pi);
	map_del(&m->proc_by_pid, p.pid, NULL);
	fdt_unref(m, p.fdt);
	fs_unref(m, p.fs);
	pool_put(&m->procs, pi);
}

static void task_exit(struct model *m, uint32_t ki)
{
	uint32_t pi = TASK(m, ki)->proc;

	map_del(&m->task_by_tid, TASK(m, ki)->tid, NULL);
	task_release(m, ki);
	if (PROC(m, pi)->ntasks == 0)
		proc_end(m, pi);
}

/* A new entry of pool found under key in by_key, owning the references fdt
 * and fs; 0 + errno, the references then dropped. */
static uint32_t keyed_new(struct model *m, struct pool *pool, struct u64map *by_key, uint64_t key,
			 uint32_t fdt, uint32_t fs)
{
	uint32_t i = pool_alloc(pool);

	if (!i || map_put(by_key, key, i)) {
		if (i)
			pool_put(pool, i);
		fdt_unref(m, fdt);
		fs_unref(m, fs);
		errno = ENOMEM;
		return 0;
	}
	return i;
}

/* A process for pid owning the given references; a live process of that
 * pid (its exit was lost) ends first. 0 + errno; the references are
 * dropped on failure. */
static uint32_t proc_new(struct model *m, uint32_t pid, uint32_t fdt, uint32_t fs)
{
	uint64_t *v = map_get(&m->proc_by_pid, pid);
	uint32_t pi;

	if (v)
		proc_end(m, *v);
	pi = keyed_new(m, &m->procs, &m->proc_by_pid, pid, fdt, fs);
	if (!pi)
		return 0;
	*PROC(m, pi) = (struct proc){ .pid = pid, .fdt = fdt, .fs = fs };
	m->st.processes++;
	return pi;
}

/* A process seen with nothing known: empty fd table, unknown cwd. */
static uint32_t proc_new_unknown(struct model *m, uint32_t pid)
{
	uint32_t fdt = fdt_new(m), fs = fdt ? fs_new(m, 0) : 0;
	uint32_t pi;

	if (!fs) {
		if (fdt)
			fdt_unref(m, fdt);
		errno = ENOMEM;
		return 0;
	}
	pi = proc_new(m, pid, fdt, fs);
	if (pi)
		m->st.unknown_processes++;
	return pi;
}

static uint32_t proc_find(struct model *m, uint32_t pid)
{
	uint64_t *v = map_get(&m->proc_by_pid, pid);

	return v ? *v : 0;
}

/* Task tid of process pi owning the given references; a live task of that
 * tid ends first. 0 + errno; the references are dropped on failure. */
static uint32_t task_add(struct model *m, uint32_t pi, uint32_t tid, uint32_t fdt, uint32_t fs)
{
	uint64_t *v = map_get(&m->task_by_tid, tid);
	uint32_t ki;

	if (v) {
		uint32_t old = *v, opi = TASK(m, old)->proc;

		map_del(&m->task_by_tid, tid, NULL);
		task_release(m, old);
		if (opi != pi && PROC(m, opi)->ntasks == 0)
			proc_end(m, opi);
	}
	ki = keyed_new(m, &m->tasks, &m->task_by_tid, tid, fdt, fs);
	if (!ki)
		return 0;
	*TASK(m, ki) = (struct task){ .tid = tid, .pid = PROC(m, pi)->pid, .proc = pi,
				      .fdt = fdt, .fs = fs };
	PROC(m, pi)->ntasks++;
	m->st.threads++;
	return ki;
}

/* The task a record names, made when first seen. 0 + errno. */
static uint32_t task_of(struct model *m, uint32_t pid, uint32_t tid)
{
	uint64_t *v = map_get(&m->task_by_tid, tid);
	uint32_t pi;

	if (v && TASK(m, *v)->pid == pid)
		return *v;
	pi = proc_find(m, pid);
	if (!pi)
		pi = proc_new_unknown(m, pid);
	if (!pi)
		return 0;
	return task_add(m, pi, tid, fdt_ref(m, PROC(m, pi)->fdt),
			fs_ref(m, PROC(m, pi)->fs));
}

/* Gives task ki a private fd table if it shares one. 0 or -ENOMEM. */
static int task_unshare_fdt(struct model *m, uint32_t ki)
{
	uint32_t old = TASK(m, ki)->fdt, copy;

	if (FDT(m, old)->refs == 1)
		return 0;
	copy = fdt_copy(m, old);
	if (!copy)
		return -ENOMEM;
	TASK(m, ki)->fdt = copy;
	fdt_unref(m, old);
	return 0;
}

/* ---- paths ---- */

static const char *path_str(struct model *m, uint32_t id, size_t *len)
{
	*len = paths_len(&m->paths, id);
	return paths_get(&m->paths, id);
}

static uint32_t intern(struct model *m, const char *s, size_t len)
{
	uint32_t id = paths_intern(&m->paths, s, len);

	m->st.paths = m->paths.n ? m->paths.n - 1 : 0;
	return id;
}

/* An absolute path from the start state or an exec, normalised; text that
 * is not a path (pipe:[..]) kept as it is, cut to MODEL_PATH_MAX - 1. */
static uint32_t intern_text(struct model *m, const struct riot_str *s, bool *truncated)
{
	size_t len;

	*truncated = s->truncated;
	if (s->s[0] == '/') {
		len = path_resolve(m->buf, sizeof(m->buf), "/", 1, s->s, truncated);
	} else {
		len = strnlen(s->s, sizeof(m->buf));
		if (len == sizeof(m->buf)) {
			len--;
			*truncated = true;
		}
		memcpy(m->buf, s->s, len);
	}
	if (*truncated)
		m->st.truncated_paths++;
	return intern(m, m->buf, len);
}

/* The fd a /proc path names through a process's fd table: "/proc/self/fd/N",
 * "/proc/thread-self/fd/N", "/proc/PID/fd/N" or "/proc/PID/task/TID/fd/N"
 * for a process the model knows. *rest gets what follows N ("" or "/..."),
 * *fdt the table. false when p is none of those. */
static bool proc_fd_of(struct model *m, uint32_t ki, const char *p, uint32_t *fdt,
		       int64_t *fd, const char **rest)
{
	const char *q;
	char *end;
	unsigned long pid = 0, tid;

	if (strncmp(p, "/proc/", 6) != 0)
		return false;
	q = p + 6;
	if (strncmp(q, "self/", 5) == 0) {
		q += 5;
	} else if (strncmp(q, "thread-self/", 12) == 0) {
		q += 12;
	} else if (*q >= '1' && *q <= '9') {
		pid = strtoul(q, &end, 10);
		q = end;
		if (*q++ != '/' || pid > UINT32_MAX)
			return false;
		if (strncmp(q, "task/", 5) == 0) {
			tid = strtoul(q + 5, &end, 10);
			if (end == q + 5 || *end != '/' || tid > UINT32_MAX)
				return false;
			q = end + 1;
		}
	} else {
		return false;
	}
	if (strncmp(q, "fd/", 3) != 0 || q[3] < '0' || q[3] > '9')
		return false;
	*fd = (int64_t)strtoul(q + 3, &end, 10);
	if (*end && *end != '/')
		return false;
	*rest = end;
	if (!pid) {
		*fdt = TASK(m, ki)->fdt;
	} else {
		uint32_t pi = proc_find(m, (uint32_t)pid);

		if (!pi)
			return false;
		*fdt = PROC(m, pi)->fdt;
		if (pid == TASK(m, ki)->pid)
			*fdt = TASK(m, ki)->fdt;
	}
	return true;
}

/* A resolved path in m->buf (len bytes) that names an fd through /proc
 * (glibc's fchmodat and fchownat fallbacks: chmod("/proc/self/fd/N")) is
 * the path of the file behind that fd, when the model knows it: what the
 * call acted on. Returns the new length. */
static size_t proc_fd_path(struct model *m, uint32_t ki, size_t len, bool *truncated)
{
	char rest[MODEL_PATH_MAX];
	const char *r, *fpath;
	uint32_t fdt, fi;
	int64_t fd;
	size_t flen;

	if (!proc_fd_of(m, ki, m->buf, &fdt, &fd, &r))
		return len;
	fi = fd_file(m, fdt, fd);
	if (!fi || (FILEO(m, fi)->pub.flags & MODEL_FILE_TRUNCATED))
		return len;
	fpath = path_str(m, FILEO(m, fi)->pub.path_id, &flen);
	if (!fpath || fpath[0] != '/')
		return len;
	memcpy(rest, r, strlen(r) + 1);
	return path_resolve(m->buf, sizeof(m->buf), fpath, flen, rest[0] ? rest + 1 : "",
			    truncated);
}

struct path_arg {
	const struct riot_str *s;
	bool has_dirfd;
	int64_t dirfd;
	uint32_t truncated_flag;	/* MODEL_OP_PATH(2)_TRUNCATED */
};

/* Resolves a recorded path for task ki. Returns 0 with *id set (0 when it
 * cannot be resolved, the reason added to *flags), or -ENOMEM. */
static int resolve(struct model *m, uint32_t ki, const struct path_arg *a,
		   uint32_t *id, uint32_t *flags)
{
	const char *base = "/";
	size_t blen = 1, len;
	bool truncated = a->s->truncated;

	*id = 0;
	if (!a->s->s)
		return 0;
	if (a->s->s[0] != '/' && (!a->has_dirfd || a->dirfd == AT_FDCWD)) {
		uint32_t cwd = FS(m, TASK(m, ki)->fs)->cwd;

		if (!cwd) {
			*flags |= MODEL_OP_CWD_UNKNOWN;
			m->st.unknown_cwd++;
			return 0;
		}
		base = path_str(m, cwd, &blen);
	} else if (a->s->s[0] != '/') {
		uint32_t fi = fd_file(m, TASK(m, ki)->fdt, a->dirfd);
		const struct model_file *f = fi ? &FILEO(m, fi)->pub : NULL;

		base = f ? path_str(m, f->path_id, &blen) : NULL;
		if (!base || base[0] != '/') {
			*flags |= MODEL_OP_DIRFD_UNKNOWN;
			return 0;
		}
		truncated |= f->flags & MODEL_FILE_TRUNCATED;
	}
	len = path_resolve(m->buf, sizeof(m->buf), base, blen, a->s->s, &truncated);
	if (!truncated)
		len = proc_fd_path(m, ki, len, &truncated);
	if (truncated) {
		*flags |= a->truncated_flag;
		m->st.truncated_paths++;
	}
	*id = intern(m, m->buf, len);
	return *id ? 0 : -ENOMEM;
}

/* ---- syscalls ---- */

static uint64_t file_id(struct model *m, uint32_t fi)
{
	return fi ? FILEO(m, fi)->pub.id : 0;
}

/* The file object an open makes, with the facts its record holds; 0 when
 * out of memory. */
static uint32_t open_object(struct model *m, const struct riot_syscall *sc,
			    const struct model_op *op, uint64_t flags)
{
	uint32_t fi;
	struct model_file *f;

	/* an unresolved path (path_id 0) still makes an object for the fd */
	fi = file_new(m, op->path_id, op->flags & MODEL_OP_PATH_TRUNCATED);
	if (!fi)
		return 0;
	f = &FILEO(m, fi)->pub;
	f->open_flags = flags;
	f->mode = sc->mode;
	f->has = sc->has & (RIOT_HAS_SIZE | RIOT_HAS_FTYPE | RIOT_HAS_INO |
			    RIOT_HAS_DEV | RIOT_HAS_CREATED | RIOT_HAS_PERM);
	f->perm = sc->perm;
	f->size = sc->size;
	f->ino = sc->ino;
	f->dev = sc->dev;
	f->ftype = sc->ftype;
	f->created = sc->created;
	f->end = sc->size;
	return fi;
}

static int sys_open(struct model *m, uint32_t ki, const struct riot_syscall *sc,
		    struct model_op *op)
{
	uint64_t flags = riot_open_flags(sc);
	uint32_t fi = open_object(m, sc, op, flags);

	if (!fi)
		return -ENOMEM;
	op->file = FILEO(m, fi)->pub.id;
	return fd_install(m, TASK(m, ki)->fdt, sc->ret, fi, flags & O_CLOEXEC);
}

/* ---- io_uring requests ----
 *
 * A request on a registered file (IOSQE_FIXED_FILE in its SQE flags, or a
 * direct descriptor) names an index in its ring's table of registered
 * files, not an fd. The model keeps one table for all rings, keyed by
 * (ring id, index): a direct open installs its file there, a direct close
 * removes it, and a request whose record carries its registered file's
 * path (capture adds it when it has not seen that file at that index)
 * binds the index to a file of that path. */
#define IOSQE_FIXED_FILE_BIT 1u

static bool uring_row(uint32_t sys)
{
	const struct riot_sys_sem *sem = riot_sys_sem(sys);

	return sem && sem->model == RIOT_MODEL_URING;
}

static bool uring_open(uint32_t sys)
{
	return sys == RIOT_SYS_uring_openat || sys == RIOT_SYS_uring_openat2;
}

/* Whether sc's fd is an index of its ring's registered files. */
static bool uring_fixed(const struct riot_syscall *sc)
{
	if (!uring_row(sc->sys) || !(sc->has & RIOT_HAS_FD) || !(sc->has & RIOT_HAS_CTX))
		return false;
	if (uring_open(sc->sys))	/* fd: the direct descriptor's slot */
		return true;
	return (sc->has & RIOT_HAS_FLAGS) && (sc->flags & IOSQE_FIXED_FILE_BIT);
}

static uint64_t fixed_key(const struct riot_syscall *sc)
{
	return (sc->ctx & 0xffffffffu) << 32 | (uint32_t)sc->fd;
}

static uint32_t fixed_file(struct model *m, const struct riot_syscall *sc)
{
	uint64_t *v = map_get(&m->fixed, fixed_key(sc));

	return v ? *v >> 1 : 0;
}

/* A direct open: its file at the slot; a direct close: the slot empty. */
static int uring_apply(struct model *m, uint32_t ki, const struct riot_syscall *sc,
		       struct model_op *op)
{
	uint64_t v;
	uint32_t fi;

	if (uring_open(sc->sys)) {
		if (!uring_fixed(sc))
			return sys_open(m, ki, sc, op);
		fi = open_object(m, sc, op, sc->flags);
		if (!fi)
			return -ENOMEM;
		op->file = FILEO(m, fi)->pub.id;
		return slot_install(m, &m->fixed, fixed_key(sc), fi, false);
	}
	if (sc->sys == RIOT_SYS_uring_close) {
		if (!uring_fixed(sc))
			fd_close(m, TASK(m, ki)->fdt, sc->fd);
		else if (map_del(&m->fixed, fixed_key(sc), &v))
			file_unref(m, v >> 1);
	}
	return 0;
}

/* The file object an fd of table ti holds open on path_id, or 0. */
static uint32_t fd_on_path(struct model *m, uint32_t ti, uint32_t path_id)
{
	const struct u64map *fds = &FDT(m, ti)->fds;

	for (uint32_t i = 0; i < fds->cap; i++) {
		uint32_t fi = (uint32_t)(fds->vals[i] >> 1);

		if (fds->keys[i] != MAP_EMPTY && FILEO(m, fi)->pub.path_id == path_id)
			return fi;
	}
	return 0;
}

/* A request on a registered file whose record carries that file's path:
 * the index holds a file of that path: the one it held, if its path is
 * the same; else the one an fd of the process holds on that path (a
 * program registers its open fds), with its open flags (O_DIRECT, the
 * access mode); else a new one. *fi becomes its slot. 0 or -ENOMEM. */
static int uring_bind(struct model *m, uint32_t ki, const struct riot_syscall *sc,
		      struct model_op *op, uint32_t *fi)
{
	uint32_t nf;

	if (!uring_fixed(sc) || uring_open(sc->sys) || sc->sys == RIOT_SYS_uring_close ||
	    !(sc->has & RIOT_HAS_PATH) || !op->path_id)
		return 0;
	if (*fi && FILEO(m, *fi)->pub.path_id == op->path_id)
		return 0;
	nf = fd_on_path(m, TASK(m, ki)->fdt, op->path_id);
	if (!nf)
		nf = open_object(m, sc, op, 0);
	if (!nf || slot_install(m, &m->fixed, fixed_key(sc), nf, false))
		return -ENOMEM;
	*fi = nf;
	op->file = FILEO(m, nf)->pub.id;
	op->flags &= ~MODEL_OP_FD_UNKNOWN;
	return 0;
}

/* dup family: fd's object also at ret. */
static int sys_dup(struct model *m, uint32_t ki, const struct riot_syscall *sc,
		   uint32_t fi, bool cloexec, struct model_op *op)
{
	if (!fi)
		return 0;	/* ret stays unknown: later use counts */
	op->file2 = op->file;
	if (sc->ret == sc->fd)	/* dup2(fd, fd): nothing changes */
		return 0;
	return fd_install(m, TASK(m, ki)->fdt, sc->ret, fi, cloexec);
}

static int sys_close_range(struct model *m, uint32_t ki, const struct riot_syscall *sc)
{
	uint64_t lo = (uint32_t)sc->fd;
	uint64_t hi = sc->has & RIOT_HAS_FD2 ? (uint32_t)sc->fd2 : UINT32_MAX;

	if (sc->flags & CLOSE_RANGE_UNSHARE && task_unshare_fdt(m, ki))
		return -ENOMEM;
	fds_close_where(m, TASK(m, ki)->fdt, lo, hi, false, sc->flags & CLOSE_RANGE_CLOEXEC);
	return 0;
}

static int sys_fcntl(struct model *m, uint32_t ki, const struct riot_syscall *sc,
		     uint32_t fi, struct model_op *op)
{
	switch (sc->cmd) {
	case F_DUPFD:
		return sys_dup(m, ki, sc, fi, false, op);
	case F_DUPFD_CLOEXEC:
		return sys_dup(m, ki, sc, fi, true, op);
	case F_SETFD:
		fd_set_cloexec(m, TASK(m, ki)->fdt, sc->fd, sc->arg & FD_CLOEXEC);
		return 0;
	}
	return 0;
}

static void sys_chdir(struct model *m, uint32_t ki, uint32_t path_id, uint32_t op_flags)
{
	/* A cwd the model cannot name exactly is unknown from here on. */
	if (op_flags & (MODEL_OP_PATH_TRUNCATED | MODEL_OP_FD_UNKNOWN))
		path_id = 0;
	if (path_id && paths_get(&m->paths, path_id)[0] != '/')
		path_id = 0;
	FS(m, TASK(m, ki)->fs)->cwd = path_id;
}

/* State changes of a syscall that succeeded (close: that did not fail with
 * EBADF). fi is the fd's file slot. */
/* Whether the call fills an int[2] with new fds (pipe, socketpair). */
static bool makes_fd_pair(const struct riot_sys_info *si)
{
	for (int i = 0; si && i < 6; i++)
		if (si->args[i] == RIOT_ARG_FDPAIR)
			return true;
	return false;
}

/* A new fd that names no file: a pipe end, a socket, an eventfd... Its
 * object has no path, so its uses are told from lost opens. */
static int fd_new_nonfile(struct model *m, uint32_t ki, int64_t fd, uint32_t ftype,
			  bool cloexec, struct model_op *op, uint32_t *slot)
{
	uint32_t fi;
	struct model_file *f;

	if (!fd_valid(fd))
		return 0;
	fi = file_new(m, 0, false);
	if (slot)
		*slot = fi;
	if (!fi)
		return -ENOMEM;
	f = &FILEO(m, fi)->pub;
	f->flags |= MODEL_FILE_NONFILE;
	f->ftype = ftype;
	f->has = RIOT_HAS_FTYPE;
	if (!op->file)
		op->file = f->id;
	return fd_install(m, TASK(m, ki)->fdt, fd, fi, cloexec);
}

/* What a call that makes fds naming no file made. */
static int sys_fd_make(struct model *m, uint32_t ki, const struct riot_syscall *sc,
		       const struct riot_sys_info *si, struct model_op *op)
{
	/* O_CLOEXEC, SOCK_CLOEXEC, EFD_CLOEXEC, ... share the bit. */
	bool cloexec = (sc->has & RIOT_HAS_FLAGS) && (sc->flags & O_CLOEXEC);
	uint32_t ftype = sc->sys == RIOT_SYS_socketpair ? S_IFSOCK : S_IFIFO;
	int err;

	if (makes_fd_pair(si)) {
		uint32_t a = 0, b = 0;

		if ((sc->has & (RIOT_HAS_FD | RIOT_HAS_FD2)) != (RIOT_HAS_FD | RIOT_HAS_FD2))
			return 0;
		err = fd_new_nonfile(m, ki, sc->fd, ftype, cloexec, op, &a);
		if (!err)
			err = fd_new_nonfile(m, ki, sc->fd2, ftype, cloexec, op, &b);
		if (!err && a && b) {
			FILEO(m, a)->pub.pair = FILEO(m, b)->pub.id;
			FILEO(m, b)->pub.pair = FILEO(m, a)->pub.id;
		}
		return err;
	}
	return fd_new_nonfile(m, ki, sc->ret, sc->has & RIOT_HAS_FTYPE ? sc->ftype : 0,
			      cloexec, op, NULL);
}

/* A call's effect on the fd tables and cwds, by its model column in
 * formats/semantics.def. */
static int sys_apply(struct model *m, uint32_t ki, const struct riot_syscall *sc,
		     uint32_t fi, struct model_op *op)
{
	const struct riot_sys_info *si = riot_sys_info(sc->sys);
	const struct riot_sys_sem *sem = riot_sys_sem(sc->sys);

	if (!si || !sem)
		return 0;
	switch ((enum riot_model)sem->model) {
	case RIOT_MODEL_UNSET:	/* no row has it: test_semantics */
	case RIOT_MODEL_COUNT:
	case RIOT_MODEL_NONE:
		return 0;
	case RIOT_MODEL_MAKE_FD:
		return sys_fd_make(m, ki, sc, si, op);
	case RIOT_MODEL_URING:
		return uring_apply(m, ki, sc, op);
	case RIOT_MODEL_OPEN:
		return sys_open(m, ki, sc, op);
	case RIOT_MODEL_CLOSE:
		if (fi)	/* 0: not known, or not the file it closed */
			fd_close(m, TASK(m, ki)->fdt, sc->fd);
		return 0;
	case RIOT_MODEL_CLOSE_RANGE:
		return sys_close_range(m, ki, sc);
	case RIOT_MODEL_DUP:
		return sys_dup(m, ki, sc, fi, false, op);
	case RIOT_MODEL_DUP3:
		return sys_dup(m, ki, sc, fi, sc->flags & O_CLOEXEC, op);
	case RIOT_MODEL_FCNTL:
		return sys_fcntl(m, ki, sc, fi, op);
	case RIOT_MODEL_CHDIR:
		sys_chdir(m, ki, op->path_id, op->flags);
		return 0;
	case RIOT_MODEL_FCHDIR:
		sys_chdir(m, ki, fi ? FILEO(m, fi)->pub.path_id : 0,
			  fi ? 0 : MODEL_OP_FD_UNKNOWN);
		return 0;
	}
	return 0;
}

/* fd operands: fd (not close_range's, a bound) and, for copies and
 * ioctl clones (FICLONE, FICLONERANGE: their source), fd2. */
static uint32_t resolve_fds(struct model *m, uint32_t ki, const struct riot_syscall *sc,
			    const struct riot_sys_info *si, struct model_op *op, uint32_t *fi2)
{
	uint32_t fdt = TASK(m, ki)->fdt, fi = 0;

	if (makes_fd_pair(si))
		return 0;
	if (uring_fixed(sc)) {
		if (uring_open(sc->sys))	/* fd: the slot it fills */
			return 0;
		fi = fixed_file(m, sc);
		op->file = file_id(m, fi);
		if (!fi)
			op->flags |= MODEL_OP_FD_UNKNOWN;
		return fi;
	}
	if (sc->has & RIOT_HAS_FD && sc->sys != RIOT_SYS_close_range && fd_valid(sc->fd)) {
		fi = fd_file(m, fdt, sc->fd);
		/* Linux frees the fd as a close begins; records come in the
		 * order calls end. A file made at that fd after the close
		 * began (another thread's open while this close still
		 * flushed) is not the one it closed: that one is gone. */
		if (fi && sc->sys == RIOT_SYS_close && FILEO(m, fi)->made_t > sc->t)
			fi = 0;
		op->file = file_id(m, fi);
		if (!fi)
			op->flags |= MODEL_OP_FD_UNKNOWN;
	}
	/* utimensat(fd, NULL, ...) (futimens) acts on the dirfd's file */
	if (sc->sys == RIOT_SYS_utimensat && !(sc->has & RIOT_HAS_PATH) &&
	    sc->has & RIOT_HAS_DIRFD && fd_valid(sc->dirfd)) {
		fi = fd_file(m, fdt, sc->dirfd);
		op->file = file_id(m, fi);
		if (!fi)
			op->flags |= MODEL_OP_FD_UNKNOWN;
	}
	if (sc->has & RIOT_HAS_FD2 && si &&
	    (si->cls == RIOT_CLASS_DATA_COPY || sc->sys == RIOT_SYS_ioctl) &&
	    fd_valid(sc->fd2)) {
		*fi2 = fd_file(m, fdt, sc->fd2);
		op->file2 = file_id(m, *fi2);
		if (!op->file2)
			op->flags |= MODEL_OP_FD2_UNKNOWN;
	}
	return fi;
}

static int resolve_paths(struct model *m, uint32_t ki, const struct riot_syscall *sc,
			 struct model_op *op)
{
	struct path_arg a = { &sc->path, sc->has & RIOT_HAS_DIRFD, sc->dirfd,
			      MODEL_OP_PATH_TRUNCATED };
	int err = 0;

	if (sc->has & RIOT_HAS_PATH)
		err = resolve(m, ki, &a, &op->path_id, &op->flags);
	if (!err && sc->has & RIOT_HAS_PATH && a.has_dirfd && sc->path.s &&
	    sc->path.s[0] == '\0' && !op->file)	/* AT_EMPTY_PATH: the dirfd */
		op->file = file_id(m, fd_file(m, TASK(m, ki)->fdt, sc->dirfd));
	if (err || !(sc->has & RIOT_HAS_PATH2))
		return err;
	if (sc->sys < RIOT_SYS_COUNT && m->role[sc->sys] & ROLE_PATH2) {
		a = (struct path_arg){ &sc->path2, sc->has & RIOT_HAS_DIRFD2, sc->dirfd2,
				       MODEL_OP_PATH2_TRUNCATED };
		return resolve(m, ki, &a, &op->path2_id, &op->flags);
	}
	op->text = sc->path2.s;
	return 0;
}

static void count_unresolved(struct model *m, const struct riot_syscall *sc, uint32_t flags)
{
	if (!(flags & (MODEL_OP_FD_UNKNOWN | MODEL_OP_FD2_UNKNOWN | MODEL_OP_DIRFD_UNKNOWN)))
		return;
	if (sc->ret == -EBADF)	/* the fd did not exist: nothing to resolve */
		return;
	m->st.unresolved_fd++;
	if (sc->sys < RIOT_SYS_COUNT)
		m->st.unresolved_fd_by_sys[sc->sys]++;
}

static bool sys_succeeded(const struct riot_syscall *sc)
{
	if (sc->sys == RIOT_SYS_close)	/* Linux frees the fd even on error */
		return sc->ret != -EBADF;
	return sc->ret >= 0;
}

/* A pipe, socket or the like: made so in the capture, or found open
 * under a name that is no path ("pipe:[123]"). */
static bool file_names_nothing(struct model *m, uint32_t fi)
{
	const struct model_file *f;
	const char *p;

	if (!fi)
		return false;
	f = &FILEO(m, fi)->pub;
	if (f->flags & MODEL_FILE_NONFILE)
		return true;
	p = paths_get(&m->paths, f->path_id);
	return (f->flags & MODEL_FILE_SNAPSHOT) && p && p[0] != '/';
}

#ifndef FALLOC_FL_KEEP_SIZE
#define FALLOC_FL_KEEP_SIZE 0x01
#endif

/* Where data moved: at off when the call names one, else at the file
 * position (an O_APPEND write: at the end), which then moves past it. */
static void file_moved(struct model_file *f, bool has_off, uint64_t off, bool write,
		       uint64_t moved)
{
	if (!has_off || off == UINT64_MAX) {	/* preadv2 and co: -1 is "no offset" */
		off = write && (f->open_flags & O_APPEND) ? f->end : f->at;
		f->at = off + moved;
	}
	if (write && off + moved > f->end)
		f->end = off + moved;
}

/* The position and size (model_file at, end) a successful call implies
 * for the objects of fd (fi) and fd2 (fi2). */
static void file_track(struct model *m, const struct riot_syscall *sc,
		       const struct riot_sys_info *si, uint32_t fi, uint32_t fi2)
{
	struct model_file *f = fi ? &FILEO(m, fi)->pub : NULL;
	uint64_t moved = sc->ret > 0 ? (uint64_t)sc->ret : 0;
	bool write;

	if (!si || !f || sc->ret < 0)
		return;
	switch (si->cls) {
	case RIOT_CLASS_DATA_READ:
	case RIOT_CLASS_DATA_WRITE:
		write = si->cls == RIOT_CLASS_DATA_WRITE;
		if (sc->sys == RIOT_SYS_ftruncate)
			f->end = sc->off;
		else if (sc->sys == RIOT_SYS_fallocate) {
			if (!(sc->flags & FALLOC_FL_KEEP_SIZE) && sc->off + sc->count > f->end)
				f->end = sc->off + sc->count;
		} else if (sc->sys != RIOT_SYS_truncate)
			file_moved(f, sc->has & RIOT_HAS_OFF, sc->off, write, moved);
		break;
	case RIOT_CLASS_DATA_COPY:
		file_moved(f, sc->has & RIOT_HAS_OFF, sc->off, false, moved);
		if (fi2)
			file_moved(&FILEO(m, fi2)->pub, sc->has & RIOT_HAS_OFF2, sc->off2, true,
				   moved);
		break;
	case RIOT_CLASS_FD:
		if (sc->sys == RIOT_SYS_lseek)
			f->at = (uint64_t)sc->ret;
		break;
	default:
		break;
	}
}

/* Whether a syscall may change an fd table, a cwd or a ring's registered
 * files: every call sys_apply() and uring_bind() act on, and a few more. */
static bool sys_changes_tables(const struct riot_syscall *sc, const struct riot_sys_info *si)
{
	return si->cls == RIOT_CLASS_OPEN || si->cls == RIOT_CLASS_FD ||
	       si->cls == RIOT_CLASS_CWD || (si->flags & RIOT_SF_RET_FD) ||
	       makes_fd_pair(si) || uring_row(sc->sys);
}

/* The think time before a call: since the end of the task's previous
 * call. An asynchronous request is no call of the thread: it neither has
 * a gap nor ends one. */
static void note_gap(struct task *k, const struct riot_syscall *sc,
		     const struct riot_sys_info *si, struct model_op *op)
{
	if (si && (si->flags & RIOT_SF_ASYNC))
		return;
	if (k->has_end) {
		op->has_gap = true;
		op->gap_ns = sc->t > k->last_end ? sc->t - k->last_end : 0;
	}
	k->last_end = sc->t + sc->dur;
	k->has_end = true;
}

bool model_changes_tables(const struct riot_syscall *sc)
{
	const struct riot_sys_info *si = riot_sys_info(sc->sys);

	return !si || sys_changes_tables(sc, si);
}

static int apply_syscall(struct model *m, const struct riot_syscall *sc, struct model_op *op)
{
	const struct riot_sys_info *si = riot_sys_info(sc->sys);
	uint32_t ki, fi, fi2 = 0;
	int err;

	if (m->tables_only && si && !sys_changes_tables(sc, si))
		return 0;
	ki = task_of(m, sc->pid, sc->tid);
	if (!ki)
		return -ENOMEM;
	note_gap(TASK(m, ki), sc, si, op);
	fi = resolve_fds(m, ki, sc, si, op, &fi2);
	if (file_names_nothing(m, fi) || file_names_nothing(m, fi2))
		m->st.nonfile_fd++;
	err = resolve_paths(m, ki, sc, op);
	if (err)
		return err;
	err = uring_bind(m, ki, sc, op, &fi);
	if (err)
		return err;
	count_unresolved(m, sc, op->flags);
	if (sys_succeeded(sc)) {
		err = sys_apply(m, ki, sc, fi, op);
		if (err)
			return err;
		file_track(m, sc, si, fi, fi2);
	}
	/* fd-based ops name their files' paths (a closed file's slot is
	 * still intact: it is freed at the next apply) */
	if (!op->path_id && fi)
		op->path_id = FILEO(m, fi)->pub.path_id;
	if (op->file2 && !fi2)
		fi2 = op->file2 == op->file ? fi : 0;	/* dup family */
	if (!op->path2_id && fi2)
		op->path2_id = FILEO(m, fi2)->pub.path_id;
	return 0;
}

/* ---- process events and start state ---- */

static int apply_fork(struct model *m, const struct riot_proc *p)
{
	uint32_t ki = task_of(m, p->pid, p->tid), fdt, fs, pi;
	uint32_t child_tid = p->child_tid ? p->child_tid : p->child_pid;

	if (!ki)
		return -ENOMEM;
	fdt = p->clone_flags & CLONE_FILES ? fdt_ref(m, TASK(m, ki)->fdt)
					   : fdt_copy(m, TASK(m, ki)->fdt);
	if (!fdt)
		return -ENOMEM;
	fs = p->clone_flags & CLONE_FS ? fs_ref(m, TASK(m, ki)->fs)
				       : fs_new(m, FS(m, TASK(m, ki)->fs)->cwd);
	if (!fs) {
		fdt_unref(m, fdt);
		return -ENOMEM;
	}
	if (p->clone_flags & CLONE_THREAD) {
		pi = TASK(m, ki)->proc;
	} else {
		pi = proc_new(m, p->child_pid, fdt_ref(m, fdt), fs_ref(m, fs));
		if (!pi) {
			fdt_unref(m, fdt);
			fs_unref(m, fs);
			return -ENOMEM;
		}
	}
	return task_add(m, pi, child_tid, fdt, fs) ? 0 : -ENOMEM;
}

/* exec: the other threads are gone, the survivor takes the pid as tid,
 * the fd table is unshared and its close-on-exec fds closed. */
static int apply_exec(struct model *m, const struct riot_proc *p, struct model_op *op)
{
	uint32_t ki = task_of(m, p->pid, p->tid), pi;
	uint64_t *v;
	struct path_arg a = { &p->path, false, 0, MODEL_OP_PATH_TRUNCATED };

	if (!ki)
		return -ENOMEM;
	pi = TASK(m, ki)->proc;
	proc_drop_tasks(m, pi, ki);
	if (TASK(m, ki)->tid != p->pid) {
		v = map_get(&m->task_by_tid, p->pid);
		if (v)
			task_exit(m, *v);	/* a stale task of another process */
		map_del(&m->task_by_tid, TASK(m, ki)->tid, NULL);
		if (map_put(&m->task_by_tid, p->pid, ki)) {
			task_release(m, ki);
			return -ENOMEM;
		}
		TASK(m, ki)->tid = p->pid;
	}
	if (task_unshare_fdt(m, ki))
		return -ENOMEM;
	fds_close_where(m, TASK(m, ki)->fdt, 0, UINT64_MAX - 1, true, false);
	fdt_unref(m, PROC(m, pi)->fdt);
	PROC(m, pi)->fdt = fdt_ref(m, TASK(m, ki)->fdt);
	return resolve(m, ki, &a, &op->path_id, &op->flags);
}

static void apply_exit(struct model *m, const struct riot_proc *p)
{
	uint64_t *v = map_get(&m->task_by_tid, p->tid);

	/* A task the model never saw: nothing of it is held. */
	if (v && TASK(m, *v)->pid == p->pid)
		task_exit(m, *v);
}

static int apply_snap_proc(struct model *m, const struct riot_snap_proc *s,
			   struct model_op *op)
{
	uint32_t pi = proc_find(m, s->pid), cwd = 0;
	bool truncated = false;

	if (s->cwd.s && s->cwd.s[0] == '/') {
		cwd = intern_text(m, &s->cwd, &truncated);
		if (!cwd)
			return -ENOMEM;
		op->path_id = cwd;
		if (truncated) {
			op->flags |= MODEL_OP_PATH_TRUNCATED;
			cwd = 0;	/* a cut cwd would misplace every path */
		}
	}
	if (!pi) {
		uint32_t fdt = fdt_new(m), fs = fdt ? fs_new(m, cwd) : 0;

		if (!fs) {
			if (fdt)
				fdt_unref(m, fdt);
			return -ENOMEM;
		}
		pi = proc_new(m, s->pid, fdt, fs);
		if (!pi || !task_add(m, pi, s->pid, fdt_ref(m, fdt), fs_ref(m, fs)))
			return -ENOMEM;
		return 0;
	}
	FS(m, PROC(m, pi)->fs)->cwd = cwd;
	return 0;
}

/* Whether the file object fi is the file a SNAP_FD of path path_id
 * describes: the same inode when both know it, else the same path, or
 * both naming no file. */
static bool snap_same_file(struct model *m, uint32_t fi, const struct riot_snap_fd *s,
			   uint32_t path_id)
{
	const struct model_file *f = &FILEO(m, fi)->pub;
	const uint32_t id = RIOT_HAS_INO | RIOT_HAS_DEV;

	if ((f->has & id) == id && (s->ino || s->dev))
		return f->ino == s->ino && f->dev == s->dev;
	if (!path_id)
		return file_names_nothing(m, fi);
	return f->path_id == path_id;
}

/* A SNAP_FD: an fd open at the start, or one capture found in use without
 * having seen it made (formats/FORMAT.md). An fd the model already holds
 * on the same file keeps its object (offset and sharing with other fds
 * included); any other makes a new object. */
static int apply_snap_fd(struct model *m, const struct riot_snap_fd *s, struct model_op *op)
{
	uint32_t pi = proc_find(m, s->pid), path_id = 0, fi;
	bool truncated = false;
	struct model_file *f;

	if (!pi)
		pi = proc_new_unknown(m, s->pid);
	if (!pi)
		return -ENOMEM;
	if (s->path.s) {
		path_id = intern_text(m, &s->path, &truncated);
		if (!path_id)
			return -ENOMEM;
	}
	fi = fd_file(m, PROC(m, pi)->fdt, s->fd);
	if (fi && snap_same_file(m, fi, s, path_id)) {
		f = &FILEO(m, fi)->pub;
		op->file = f->id;
		op->path_id = f->path_id;
		return 0;
	}
	fi = file_new(m, path_id, truncated);
	if (!fi)
		return -ENOMEM;
	f = &FILEO(m, fi)->pub;
	f->flags |= MODEL_FILE_SNAPSHOT | (s->path.s ? 0 : MODEL_FILE_NONFILE);
	f->open_flags = s->flags;
	f->has = RIOT_HAS_SIZE | RIOT_HAS_FTYPE | RIOT_HAS_INO | RIOT_HAS_DEV |
		 (s->has_perm ? RIOT_HAS_PERM : 0);
	f->perm = s->perm;
	f->size = s->size;
	f->ino = s->ino;
	f->dev = s->dev;
	f->ftype = s->ftype;
	f->pos = s->pos;
	f->at = s->pos;
	f->end = s->size;
	op->file = f->id;
	op->path_id = path_id;
	if (truncated)
		op->flags |= MODEL_OP_PATH_TRUNCATED;
	if (!fd_valid(s->fd)) {	/* nothing refers to it: free it next */
		FILEO(m, fi)->refs = 1;
		file_unref(m, fi);
		return 0;
	}
	return fd_install(m, PROC(m, pi)->fdt, s->fd, fi, s->flags & O_CLOEXEC);
}

/* ---- API ---- */


struct model *model_new(void)
{
	struct model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->seed = map_seed();
	paths_init(&m->paths, m->seed, MODEL_PATH_BYTES_MAX);
	pool_init(&m->fdts, sizeof(struct fd_table));
	pool_init(&m->fss, sizeof(struct fs_info));
	pool_init(&m->files, sizeof(struct file_obj));
	pool_init(&m->tasks, sizeof(struct task));
	pool_init(&m->procs, sizeof(struct proc));
	map_init(&m->task_by_tid, m->seed);
	map_init(&m->proc_by_pid, m->seed);
	map_init(&m->file_by_id, m->seed);
	map_init(&m->fixed, m->seed);
	for (unsigned s = 0; s < RIOT_SYS_COUNT; s++) {
		const struct riot_sys_info *si = riot_sys_info(s);

		for (unsigned a = 0; si && a < 6; a++)
			if (si->args[a] == RIOT_ARG_PATH2)
				m->role[s] |= ROLE_PATH2;
	}
	return m;
}

struct model *model_new_tables(void)
{
	struct model *m = model_new();

	if (m)
		m->tables_only = true;
	return m;
}

void model_free(struct model *m)
{
	if (!m)
		return;
	for (uint32_t i = 1; i < m->fdts.top; i++)
		if (FDT(m, i)->refs)
			map_fini(&FDT(m, i)->fds);
	pool_fini(&m->fdts);
	pool_fini(&m->fss);
	pool_fini(&m->files);
	pool_fini(&m->tasks);
	pool_fini(&m->procs);
	map_fini(&m->task_by_tid);
	map_fini(&m->proc_by_pid);
	map_fini(&m->fixed);
	map_fini(&m->file_by_id);
	paths_fini(&m->paths);
	free(m->released);
	free(m);
}

int model_apply(struct model *m, const struct riot_rec *r, struct model_op *op)
{
	struct model_op scratch;
	int err = 0;

	if (!op)
		op = &scratch;

	files_flush_released(m);
	memset(op, 0, sizeof(*op));
	op->rec = r;
	m->rec_end = r->type == RIOT_REC_SYSCALL ? r->sc.t + r->sc.dur :
		     r->type == RIOT_REC_SNAP_FD ? r->sfd.t : 0;
	switch (r->type) {
	case RIOT_REC_SYSCALL:
		err = apply_syscall(m, &r->sc, op);
		break;
	case RIOT_REC_PROC:
		if (r->proc.kind == RIOT_PROC_FORK)
			err = apply_fork(m, &r->proc);
		else if (r->proc.kind == RIOT_PROC_EXEC)
			err = apply_exec(m, &r->proc, op);
		else if (r->proc.kind == RIOT_PROC_EXIT)
			apply_exit(m, &r->proc);
		break;
	case RIOT_REC_SNAP_PROC:
		err = apply_snap_proc(m, &r->sproc, op);
		break;
	case RIOT_REC_SNAP_FD:
		err = apply_snap_fd(m, &r->sfd, op);
		break;
	case RIOT_REC_DROP:
		m->st.dropped_events += r->drop.count;
		break;
	}
	op->path = paths_get(&m->paths, op->path_id);
	op->path2 = paths_get(&m->paths, op->path2_id);
	m->st.live_processes = m->procs.live;
	m->st.live_files = m->files.live;
	if (err == -ENOMEM && m->paths.full)
		err = -E2BIG;
	return err;
}

const char *model_strerror(int err)
{
	static char msg[128];

	if (err != -E2BIG)
		return strerror(-err);
	snprintf(msg, sizeof(msg), "the log names more than %llu MiB of distinct paths, "
		 "more than riot holds in memory", MODEL_PATH_BYTES_MAX >> 20);
	return msg;
}

const char *model_path(const struct model *m, uint32_t id)
{
	return paths_get(&m->paths, id);
}

/* The fd table and fs of (pid, tid) as its next record would find them,
 * without making anything: 0 when the model knows neither. */
static void tables_of(struct model *m, uint32_t pid, uint32_t tid, uint32_t *fdt,
		      uint32_t *fs)
{
	uint64_t *v = map_get(&m->task_by_tid, tid);
	uint32_t pi;

	*fdt = *fs = 0;
	if (v && TASK(m, *v)->pid == pid) {
		*fdt = TASK(m, *v)->fdt;
		*fs = TASK(m, *v)->fs;
	} else if ((pi = proc_find(m, pid))) {
		*fdt = PROC(m, pi)->fdt;
		*fs = PROC(m, pi)->fs;
	}
}

const struct model_file *model_fd_file(struct model *m, uint32_t pid, uint32_t tid,
				       int32_t fd)
{
	uint32_t fdt, fs, fi;

	tables_of(m, pid, tid, &fdt, &fs);
	fi = fdt ? fd_file(m, fdt, fd) : 0;
	return fi ? &FILEO(m, fi)->pub : NULL;
}

bool model_fd_known(struct model *m, uint32_t pid, uint32_t tid, int32_t fd)
{
	return model_fd_file(m, pid, tid, fd) != NULL;
}

const char *model_cwd(struct model *m, uint32_t pid, uint32_t tid)
{
	uint32_t fdt, fs;

	tables_of(m, pid, tid, &fdt, &fs);
	return fs && FS(m, fs)->cwd ? paths_get(&m->paths, FS(m, fs)->cwd) : NULL;
}

const char *model_fd_path(struct model *m, uint32_t pid, uint32_t tid, int32_t fd)
{
	const struct model_file *f = model_fd_file(m, pid, tid, fd);
	const char *p;

	if (!f || (f->flags & MODEL_FILE_TRUNCATED))
		return NULL;
	p = paths_get(&m->paths, f->path_id);
	return p && p[0] == '/' ? p : NULL;
}

uint32_t model_path_find(const struct model *m, const char *s, size_t len)
{
	return paths_find(&m->paths, s, len);
}

uint32_t model_path_intern(struct model *m, const char *s, size_t len)
{
	return paths_intern(&m->paths, s, len);
}

const struct model_file *model_file(const struct model *m, uint64_t id)
{
	uint64_t *v = id ? map_get(&m->file_by_id, id) : NULL;

	return v ? &((const struct file_obj *)pool_at(&m->files, *v))->pub : NULL;
}

const struct model_file *model_released(const struct model *m, uint32_t i)
{
	return i < m->nreleased ? &((const struct file_obj *)pool_at(&m->files,
								     m->released[i]))->pub : NULL;
}

const struct model_stats *model_stats(const struct model *m)
{
	return &m->st;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The keys of mp, sorted, into a new array (*n of them); NULL + ENOMEM. */
static uint64_t *map_sorted_keys(const struct u64map *mp, uint32_t *n)
{
	uint64_t *k = malloc(((size_t)mp->len + 1) * sizeof(*k));

	*n = 0;
	if (!k)
		return NULL;
	for (uint32_t i = 0; i < mp->cap; i++)
		if (mp->keys[i] != MAP_EMPTY)
			k[(*n)++] = mp->keys[i];
	qsort(k, *n, sizeof(*k), cmp_u64);
	return k;
}

static int walk_fds(struct model *m, uint32_t pid, uint32_t fdt, model_fd_fn on_fd, void *ctx)
{
	const struct u64map *fds = &FDT(m, fdt)->fds;
	uint32_t n;
	uint64_t *fd = map_sorted_keys(fds, &n);
	int rc = 0;

	if (!fd)
		return -ENOMEM;
	for (uint32_t i = 0; !rc && i < n; i++) {
		uint32_t v = *map_get(fds, fd[i]);

		rc = on_fd(ctx, pid, (int32_t)fd[i], v & FD_CLOEXEC_BIT, &FILEO(m, v >> 1)->pub);
	}
	free(fd);
	return rc;
}

int model_walk(struct model *m, model_proc_fn on_proc, model_fd_fn on_fd, void *ctx)
{
	uint32_t n, fdt, fs;
	uint64_t *pid = map_sorted_keys(&m->proc_by_pid, &n);
	int rc = 0;

	if (!pid)
		return -ENOMEM;
	for (uint32_t i = 0; !rc && i < n; i++) {
		tables_of(m, (uint32_t)pid[i], (uint32_t)pid[i], &fdt, &fs);
		rc = on_proc(ctx, (uint32_t)pid[i],
			     fs && FS(m, fs)->cwd ? paths_get(&m->paths, FS(m, fs)->cwd) : NULL);
		if (!rc && fdt)
			rc = walk_fds(m, (uint32_t)pid[i], fdt, on_fd, ctx);
	}
	free(pid);
	return rc;
}
