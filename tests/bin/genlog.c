/* genlog: writes a deterministic synthetic .riot log for tests, benchmarks,
 * the demo and the fuzzer's seed corpus.
 *
 * usage: genlog -o FILE -n EVENTS [--shape seqread|mixed|all|paths] [--seed N]
 *               [--block-bytes N] [--zstd-level N] [-v]
 *
 * seqread  a few processes and threads: openat, fstat, long runs of
 *          sequential read/pread64 of 4-128 KiB, close; jittered timing
 * mixed    seqread plus a writer (mkdir, creat/write/fsync/rename/unlink,
 *          stats that fail) and children (fork, exec, a few reads, exit)
 * all      first one record of every record type and of every syscall in
 *          bpf/syscalls.def, then mixed; writes at least that many events
 * paths    one thread stat()ing EVENTS distinct paths of --path-bytes
 *          bytes (default 210, at least 40) that do not exist (ENOENT),
 *          1000 to a directory: a log whose readers' memory is the
 *          paths' (benchmarks/paths_memory.sh)
 *
 * The same arguments always give the same file. EVENTS counts every record
 * but the interned strings. Prints nothing on success (a summary with -v).
 */
#include "formats/log.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define START_T		5000000000ull	/* 5 s after boot */
#define WALL_AT_START	1733000000000000000ll
#define MAX_THREADS	8

enum shape { SHAPE_SEQREAD, SHAPE_MIXED, SHAPE_ALL, SHAPE_PATHS };
enum role { ROLE_READER, ROLE_WRITER, ROLE_CHILD };
enum phase { PH_OPEN, PH_FSTAT, PH_IO, PH_FSYNC, PH_CLOSE, PH_RENAME, PH_EXIT };

struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static uint64_t rng_range(struct rng *r, uint64_t lo, uint64_t hi)
{
	return lo + rng_next(r) % (hi - lo + 1);
}

static bool rng_chance(struct rng *r, unsigned one_in)
{
	return rng_next(r) % one_in == 0;
}

struct task {
	enum role role;
	uint32_t pid, tid;
	const char *comm;
	uint64_t next_t;
	enum phase phase;
	int32_t fd;
	unsigned file;		/* which file of the task's set */
	uint64_t size, off, ino;
	uint32_t req;
	bool vectorless_pread;	/* pread64 rather than read */
	unsigned left;		/* writes / reads left in this file */
	bool alive;
};

struct gen {
	struct riot_writer *w;
	struct rng rng;
	enum shape shape;
	uint64_t events, target;
	struct task tasks[MAX_THREADS];
	unsigned ntasks;
	uint32_t next_pid;
	unsigned batch;
	int err;
	char path[256], path2[256];
	unsigned path_bytes;	/* --shape paths */
};

static void add(struct gen *g, const struct riot_rec *r)
{
	if (g->err)
		return;
	int rc = riot_writer_add(g->w, r);
	if (rc) {
		g->err = rc;
		return;
	}
	g->events++;
}

/* Realistic-looking durations: a base cost plus a copy at ~12 GB/s,
 * jittered, with rare slow outliers (a cache miss, a preemption). */
static uint64_t io_dur(struct gen *g, uint64_t bytes)
{
	uint64_t base = 300 + bytes / 12;
	uint64_t d = base + rng_range(&g->rng, 0, base / 4 + 200);

	if (rng_chance(&g->rng, 1000))
		d += rng_range(&g->rng, 50000, 2000000);
	return d;
}

static uint64_t think(struct gen *g)
{
	uint64_t gap = rng_range(&g->rng, 500, 5000);

	if (rng_chance(&g->rng, 200))
		gap += rng_range(&g->rng, 20000, 500000);
	return gap;
}

static struct riot_rec sc_rec(struct task *k, unsigned sys, uint64_t dur)
{
	struct riot_rec r = { .type = RIOT_REC_SYSCALL };

	r.sc.sys = (uint16_t)sys;
	r.sc.pid = k->pid;
	r.sc.tid = k->tid;
	r.sc.t = k->next_t;
	r.sc.dur = dur;
	return r;
}

static void emit_sc(struct gen *g, struct task *k, struct riot_rec *r)
{
	add(g, r);
	k->next_t = r->sc.t + r->sc.dur + think(g);
}

static void file_path(struct gen *g, const struct task *k, unsigned file)
{
	if (k->role == ROLE_READER)
		snprintf(g->path, sizeof(g->path), "/srv/data/%s/part-%05u.dat",
			 k->comm, file);
	else if (k->role == ROLE_WRITER)
		snprintf(g->path, sizeof(g->path), "/srv/out/batch-%04u/.seg-%03u.tmp",
			 g->batch, file);
	else
		snprintf(g->path, sizeof(g->path), "/srv/data/%s/part-%05u.dat",
			 "dbreader", file);
}

static void do_open(struct gen *g, struct task *k)
{
	bool writer = k->role == ROLE_WRITER;
	struct riot_rec r = sc_rec(k, RIOT_SYS_openat, rng_range(&g->rng, 1500, 6000));

	file_path(g, k, k->file);
	k->fd = 3 + (int32_t)(k->tid - k->pid);
	k->size = writer ? 0 : (8ull << 20) + rng_range(&g->rng, 0, 56) * (4ull << 20);
	k->ino = 100000 + (uint64_t)k->pid * 1000 + k->file;
	k->off = 0;
	r.sc.has = RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_FLAGS | RIOT_HAS_MODE |
		   RIOT_HAS_SIZE | RIOT_HAS_FTYPE | RIOT_HAS_INO | RIOT_HAS_DEV |
		   RIOT_HAS_CREATED;
	r.sc.dirfd = -100;
	r.sc.path.s = g->path;
	r.sc.flags = writer ? (O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC) : (O_RDONLY | O_CLOEXEC);
	r.sc.mode = writer ? 0644 : 0;
	r.sc.ret = k->fd;
	r.sc.size = k->size;
	r.sc.ftype = S_IFREG;
	r.sc.ino = k->ino;
	r.sc.dev = 0x10302;
	r.sc.created = writer;
	emit_sc(g, k, &r);
	k->phase = writer ? PH_IO : PH_FSTAT;
	k->req = (uint32_t)(4096u << rng_range(&g->rng, 0, 5));
	k->vectorless_pread = rng_chance(&g->rng, 2);
	k->left = writer ? (unsigned)rng_range(&g->rng, 4, 64) :
		  (k->role == ROLE_CHILD ? (unsigned)rng_range(&g->rng, 2, 8) : ~0u);
}

static void do_fstat(struct gen *g, struct task *k)
{
	struct riot_rec r = sc_rec(k, RIOT_SYS_fstat, rng_range(&g->rng, 250, 900));

	r.sc.has = RIOT_HAS_FD | RIOT_HAS_SIZE | RIOT_HAS_FTYPE | RIOT_HAS_INO | RIOT_HAS_DEV;
	r.sc.fd = k->fd;
	r.sc.size = k->size;
	r.sc.ftype = S_IFREG;
	r.sc.ino = k->ino;
	r.sc.dev = 0x10302;
	emit_sc(g, k, &r);
	k->phase = PH_IO;
}

static void do_read(struct gen *g, struct task *k)
{
	uint64_t n = k->size - k->off < k->req ? k->size - k->off : k->req;
	unsigned sys = k->vectorless_pread ? RIOT_SYS_pread64 : RIOT_SYS_read;
	struct riot_rec r = sc_rec(k, sys, io_dur(g, n));

	r.sc.has = RIOT_HAS_FD | RIOT_HAS_COUNT;
	r.sc.fd = k->fd;
	r.sc.count = k->req;
	r.sc.ret = (int64_t)n;
	if (k->vectorless_pread) {
		r.sc.has |= RIOT_HAS_OFF;
		r.sc.off = k->off;
	}
	emit_sc(g, k, &r);
	k->off += n;
	/* read() sees end of file as a 0 return; pread64 users know the size */
	if ((n == 0 || (k->vectorless_pread && k->off >= k->size)) || --k->left == 0)
		k->phase = PH_CLOSE;
}

static void do_write(struct gen *g, struct task *k)
{
	bool positional = k->vectorless_pread;
	struct riot_rec r = sc_rec(k, positional ? RIOT_SYS_pwrite64 : RIOT_SYS_write,
				   io_dur(g, k->req) * 2);

	r.sc.has = RIOT_HAS_FD | RIOT_HAS_COUNT;
	r.sc.fd = k->fd;
	r.sc.count = k->req;
	r.sc.ret = k->req;
	if (positional) {
		r.sc.has |= RIOT_HAS_OFF;
		r.sc.off = k->off;
	}
	emit_sc(g, k, &r);
	k->off += k->req;
	if (--k->left == 0)
		k->phase = PH_FSYNC;
}

static void do_fd_only(struct gen *g, struct task *k, unsigned sys, uint64_t dur)
{
	struct riot_rec r = sc_rec(k, sys, dur);

	r.sc.has = RIOT_HAS_FD;
	r.sc.fd = k->fd;
	emit_sc(g, k, &r);
}

static void do_rename(struct gen *g, struct task *k)
{
	struct riot_rec r = sc_rec(k, RIOT_SYS_rename, rng_range(&g->rng, 3000, 15000));

	file_path(g, k, k->file);
	snprintf(g->path2, sizeof(g->path2), "/srv/out/batch-%04u/seg-%03u.dat",
		 g->batch, k->file);
	r.sc.has = RIOT_HAS_PATH | RIOT_HAS_PATH2;
	r.sc.path.s = g->path;
	r.sc.path2.s = g->path2;
	emit_sc(g, k, &r);
}

/* Namespace noise of the writer: a failing stat, an unlink, a new batch. */
static void writer_extras(struct gen *g, struct task *k)
{
	struct riot_rec r = sc_rec(k, RIOT_SYS_newfstatat, rng_range(&g->rng, 800, 3000));

	snprintf(g->path, sizeof(g->path), "/srv/out/batch-%04u/seg-%03u.dat",
		 g->batch, k->file + 1);
	r.sc.has = RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_FLAGS;
	r.sc.dirfd = -100;
	r.sc.path.s = g->path;
	r.sc.ret = -ENOENT;
	emit_sc(g, k, &r);
	if (k->file >= 2 && rng_chance(&g->rng, 3)) {
		r = sc_rec(k, RIOT_SYS_unlink, rng_range(&g->rng, 2000, 9000));
		snprintf(g->path, sizeof(g->path), "/srv/out/batch-%04u/seg-%03u.dat",
			 g->batch, k->file - 2);
		r.sc.has = RIOT_HAS_PATH;
		r.sc.path.s = g->path;
		emit_sc(g, k, &r);
	}
	if (k->file % 16 == 15) {
		g->batch++;
		r = sc_rec(k, RIOT_SYS_mkdir, rng_range(&g->rng, 4000, 20000));
		snprintf(g->path, sizeof(g->path), "/srv/out/batch-%04u", g->batch);
		r.sc.has = RIOT_HAS_PATH | RIOT_HAS_MODE;
		r.sc.path.s = g->path;
		r.sc.mode = 0755;
		emit_sc(g, k, &r);
	}
}

static void proc_event(struct gen *g, struct task *k, unsigned kind)
{
	struct riot_rec r = { .type = RIOT_REC_PROC };

	r.proc.kind = (uint8_t)kind;
	r.proc.pid = k->pid;
	r.proc.tid = k->tid;
	r.proc.t = k->next_t;
	add(g, &r);
	k->next_t += think(g);
}

/* The writer forks a short-lived child that execs, reads a bit, exits. */
static void spawn_child(struct gen *g, struct task *parent)
{
	struct task *c = NULL;

	for (unsigned i = 0; i < g->ntasks; i++)
		if (!g->tasks[i].alive && g->tasks[i].role == ROLE_CHILD)
			c = &g->tasks[i];
	if (!c && g->ntasks < MAX_THREADS)
		c = &g->tasks[g->ntasks++];
	if (!c)
		return;
	struct riot_rec r = { .type = RIOT_REC_PROC };
	r.proc.kind = RIOT_PROC_FORK;
	r.proc.pid = parent->pid;
	r.proc.tid = parent->tid;
	r.proc.t = parent->next_t;
	r.proc.child_pid = r.proc.child_tid = g->next_pid++;
	r.proc.clone_flags = 17;	/* SIGCHLD: a plain fork */
	add(g, &r);
	parent->next_t += rng_range(&g->rng, 30000, 90000);
	*c = (struct task){ .role = ROLE_CHILD, .pid = r.proc.child_pid,
			    .tid = r.proc.child_tid, .comm = "gzip", .alive = true,
			    .next_t = r.proc.t + rng_range(&g->rng, 20000, 60000),
			    .phase = PH_OPEN, .file = (unsigned)rng_range(&g->rng, 0, 9) };
	r = (struct riot_rec){ .type = RIOT_REC_PROC };
	r.proc.kind = RIOT_PROC_EXEC;
	r.proc.pid = c->pid;
	r.proc.tid = c->tid;
	r.proc.t = c->next_t;
	r.proc.comm.s = "gzip";
	r.proc.path.s = "/usr/bin/gzip";
	add(g, &r);
	c->next_t += rng_range(&g->rng, 200000, 800000);
}

static void step_reader(struct gen *g, struct task *k)
{
	switch (k->phase) {
	case PH_OPEN:
		do_open(g, k);
		break;
	case PH_FSTAT:
		do_fstat(g, k);
		break;
	case PH_IO:
		do_read(g, k);
		break;
	default:
		do_fd_only(g, k, RIOT_SYS_close, rng_range(&g->rng, 200, 700));
		k->file = (k->file + 1) % 12;
		k->phase = k->role == ROLE_CHILD ? PH_EXIT : PH_OPEN;
		break;
	}
}

static void step_writer(struct gen *g, struct task *k)
{
	switch (k->phase) {
	case PH_OPEN:
		do_open(g, k);
		break;
	case PH_IO:
		do_write(g, k);
		break;
	case PH_FSYNC:
		do_fd_only(g, k, RIOT_SYS_fsync, rng_range(&g->rng, 200000, 3000000));
		k->phase = PH_CLOSE;
		break;
	case PH_CLOSE:
		do_fd_only(g, k, RIOT_SYS_close, rng_range(&g->rng, 200, 700));
		k->phase = PH_RENAME;
		break;
	default:
		do_rename(g, k);
		writer_extras(g, k);
		k->file++;
		k->phase = PH_OPEN;
		if (rng_chance(&g->rng, 8))
			spawn_child(g, k);
		break;
	}
}

static void step(struct gen *g, struct task *k)
{
	if (k->role == ROLE_WRITER) {
		step_writer(g, k);
	} else if (k->phase == PH_EXIT) {
		struct riot_rec r = { .type = RIOT_REC_PROC };
		r.proc.kind = RIOT_PROC_EXIT;
		r.proc.pid = k->pid;
		r.proc.tid = k->tid;
		r.proc.t = k->next_t;
		add(g, &r);
		k->alive = false;
	} else {
		step_reader(g, k);
	}
}

static void add_task(struct gen *g, enum role role, uint32_t pid, uint32_t tid,
		     const char *comm)
{
	struct task *k = &g->tasks[g->ntasks++];

	*k = (struct task){ .role = role, .pid = pid, .tid = tid, .comm = comm,
			    .alive = true, .phase = PH_OPEN,
			    .next_t = START_T + 1000000 + rng_range(&g->rng, 0, 100000),
			    .file = (unsigned)rng_range(&g->rng, 0, 11) };
}

/* The start state capture would find: processes and their cwd. */
static void snapshot(struct gen *g)
{
	uint32_t last = 0;
	uint64_t t = START_T;

	for (unsigned i = 0; i < g->ntasks; i++) {
		struct task *k = &g->tasks[i];
		if (k->pid == last)
			continue;
		last = k->pid;
		struct riot_rec r = { .type = RIOT_REC_SNAP_PROC };
		r.sproc.pid = k->pid;
		r.sproc.ppid = 1;
		r.sproc.t = t += rng_range(&g->rng, 5000, 20000);
		r.sproc.cwd.s = "/srv";
		r.sproc.comm.s = k->comm;
		add(g, &r);
	}
}

static void fill_arg(struct gen *g, struct riot_syscall *sc, enum riot_arg a,
		     const char *name)
{
	switch (a) {
	case RIOT_ARG_FD: sc->has |= RIOT_HAS_FD; sc->fd = 3; break;
	case RIOT_ARG_FD2: sc->has |= RIOT_HAS_FD2; sc->fd2 = 4; break;
	case RIOT_ARG_DFD: sc->has |= RIOT_HAS_DIRFD; sc->dirfd = -100; break;
	case RIOT_ARG_DFD2: sc->has |= RIOT_HAS_DIRFD2; sc->dirfd2 = 5; break;
	case RIOT_ARG_PATH:
		snprintf(g->path, sizeof(g->path), "/srv/all/%s", name);
		sc->has |= RIOT_HAS_PATH;
		sc->path.s = g->path;
		break;
	case RIOT_ARG_PATH2: case RIOT_ARG_TARGET: case RIOT_ARG_LINKBUF:
	case RIOT_ARG_XNAME:
		snprintf(g->path2, sizeof(g->path2), "/srv/all/%s.2", name);
		sc->has |= RIOT_HAS_PATH2;
		sc->path2.s = g->path2;
		break;
	case RIOT_ARG_CNT: sc->has |= RIOT_HAS_COUNT; sc->count = 4096; break;
	case RIOT_ARG_OFF: case RIOT_ARG_OFFP:
		sc->has |= RIOT_HAS_OFF; sc->off = 8192; break;
	case RIOT_ARG_OFF2P: sc->has |= RIOT_HAS_OFF2; sc->off2 = 16384; break;
	case RIOT_ARG_FLAGS: case RIOT_ARG_CLONEARGS:
		sc->has |= RIOT_HAS_FLAGS; sc->flags = 0x80000; break;
	case RIOT_ARG_MODE: sc->has |= RIOT_HAS_MODE; sc->mode = 0640; break;
	case RIOT_ARG_CMD: sc->has |= RIOT_HAS_CMD; sc->cmd = 1; break;
	case RIOT_ARG_ARG: case RIOT_ARG_ADDR:
		sc->has |= RIOT_HAS_ARG; sc->arg = 0x7f0000001000ull; break;
	case RIOT_ARG_IOVCNT: sc->has |= RIOT_HAS_IOVCNT; sc->iovcnt = 2; break;
	case RIOT_ARG_UID: sc->has |= RIOT_HAS_UID; sc->uid = 1000; break;
	case RIOT_ARG_GID: sc->has |= RIOT_HAS_GID; sc->gid = 1000; break;
	case RIOT_ARG_HOW:
		sc->has |= RIOT_HAS_FLAGS | RIOT_HAS_MODE | RIOT_HAS_ARG;
		sc->flags = O_RDONLY;
		sc->arg = 8;	/* RESOLVE_NO_SYMLINKS */
		break;
	default:
		break;	/* NONE, BUF, IOV, STATBUF: nothing stored */
	}
}

/* One record of every syscall the table knows, filled by argument role. */
static void every_syscall(struct gen *g, struct task *k)
{
	for (unsigned s = 0; s < RIOT_SYS_COUNT; s++) {
		const struct riot_sys_info *si = riot_sys_info(s);
		struct riot_rec r = sc_rec(k, s, rng_range(&g->rng, 300, 9000));
		for (unsigned a = 0; a < 6; a++)
			fill_arg(g, &r.sc, si->args[a], si->name);
		if (si->flags & (RIOT_SF_RET_FD | RIOT_SF_STAT | RIOT_SF_STATX)) {
			r.sc.has |= RIOT_HAS_SIZE | RIOT_HAS_FTYPE | RIOT_HAS_INO | RIOT_HAS_DEV;
			r.sc.size = 12345;
			r.sc.ftype = S_IFREG;
			r.sc.ino = 777;
			r.sc.dev = 0x10302;
		}
		if (si->flags & RIOT_SF_RET_FD) {
			r.sc.has |= RIOT_HAS_CREATED;
			r.sc.created = 1;
			r.sc.ret = 6;
		} else {
			r.sc.ret = (r.sc.has & RIOT_HAS_COUNT) ? 4000 : 0;
		}
		emit_sc(g, k, &r);
	}
}

static void every_type(struct gen *g, struct task *k)
{
	struct riot_rec r = { .type = RIOT_REC_SNAP_FD };

	r.sfd.pid = k->pid;
	r.sfd.fd = 0;
	r.sfd.t = START_T + 500;
	r.sfd.path.s = "/dev/pts/0";
	r.sfd.flags = O_RDWR;
	r.sfd.ftype = S_IFCHR;
	r.sfd.ino = 3;
	r.sfd.dev = 0x16;
	add(g, &r);
	r.sfd.fd = 7;
	r.sfd.path.s = "/srv/data/dbreader/part-00001.dat";
	r.sfd.flags = O_RDONLY;
	r.sfd.pos = 1 << 20;
	r.sfd.size = 64 << 20;
	r.sfd.ftype = S_IFREG;
	r.sfd.ino = 100001;
	r.sfd.dev = 0x10302;
	add(g, &r);
	r = (struct riot_rec){ .type = RIOT_REC_DROP };
	r.drop.cpu = 1;
	r.drop.count = 17;
	r.drop.t_first = k->next_t;
	r.drop.t_last = k->next_t + 250000;
	add(g, &r);
	spawn_child(g, k);
	/* a thread that exits at once: EXIT is there however short the log */
	struct task gone = { .pid = k->pid, .tid = k->pid + 99, .next_t = k->next_t };
	proc_event(g, &gone, RIOT_PROC_EXIT);
}

#define PATHS_LEN 210	/* bytes of each path of --shape paths */
#define PATHS_MIN 40

static int run_paths(struct gen *g)
{
	struct task k = { .pid = 4242, .tid = 4242, .comm = "indexer", .next_t = START_T };
	struct riot_rec r = { .type = RIOT_REC_SNAP_PROC };
	char name[sizeof(g->path)];

	r.sproc.pid = k.pid;
	r.sproc.ppid = 1;
	r.sproc.cwd = (struct riot_str){ .s = "/" };
	r.sproc.comm = (struct riot_str){ .s = k.comm };
	add(g, &r);
	memset(name, 'n', sizeof(name));
	while (!g->err && g->events < g->target) {
		uint64_t i = g->events;
		int n = snprintf(g->path, sizeof(g->path), "/bench/paths/d%06llu/f%010llu-",
				 (unsigned long long)(i / 1000), (unsigned long long)i);

		snprintf(g->path + n, sizeof(g->path) - (size_t)n, "%.*s", (int)g->path_bytes - n,
			 name);
		r = sc_rec(&k, RIOT_SYS_stat, rng_range(&g->rng, 800, 3000));
		r.sc.has = RIOT_HAS_PATH;
		r.sc.path = (struct riot_str){ .s = g->path };
		r.sc.ret = -ENOENT;
		emit_sc(g, &k, &r);
	}
	return g->err;
}

static int run(struct gen *g)
{
	if (g->shape == SHAPE_PATHS)
		return run_paths(g);
	add_task(g, ROLE_READER, 4242, 4242, "dbreader");
	add_task(g, ROLE_READER, 4242, 4243, "dbreader");
	add_task(g, ROLE_READER, 5150, 5150, "scanner");
	if (g->shape != SHAPE_SEQREAD)
		add_task(g, ROLE_WRITER, 6100, 6100, "ingest");
	g->next_pid = 7000;
	snapshot(g);
	if (g->shape == SHAPE_ALL) {
		every_type(g, &g->tasks[g->ntasks - 1]);
		every_syscall(g, &g->tasks[0]);
	}
	while (!g->err && g->events < g->target) {
		struct task *k = NULL;
		for (unsigned i = 0; i < g->ntasks; i++)
			if (g->tasks[i].alive && (!k || g->tasks[i].next_t < k->next_t))
				k = &g->tasks[i];
		step(g, k);
	}
	return g->err;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: genlog -o FILE -n EVENTS [--shape seqread|mixed|all|paths] [--seed N]\n"
		   "              [--block-bytes N] [--zstd-level N] [--path-bytes N] [-v]\n"
		   "defaults: --shape seqread --seed 1 --block-bytes 0 (writer default)"
		   " --zstd-level 0 (writer default) --path-bytes 210 (40..255)\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "shape", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "block-bytes", required_argument, NULL, 'b' },
		{ "zstd-level", required_argument, NULL, 'z' },
		{ "path-bytes", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gen g = { .shape = SHAPE_SEQREAD, .path_bytes = PATHS_LEN };
	struct riot_writer_opts wo = { 0 };
	const char *out = NULL, *shape = "seqread";
	unsigned long long seed = 1;
	bool verbose = false;
	int c;

	while ((c = getopt_long(argc, argv, "o:n:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'n': g.target = strtoull(optarg, NULL, 0); break;
		case 's': shape = optarg; break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		case 'b': wo.block_bytes = strtoull(optarg, NULL, 0); break;
		case 'z': wo.zstd_level = atoi(optarg); break;
		case 'p': g.path_bytes = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'v': verbose = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!strcmp(shape, "seqread"))
		g.shape = SHAPE_SEQREAD;
	else if (!strcmp(shape, "mixed"))
		g.shape = SHAPE_MIXED;
	else if (!strcmp(shape, "all"))
		g.shape = SHAPE_ALL;
	else if (!strcmp(shape, "paths"))
		g.shape = SHAPE_PATHS;
	else
		shape = NULL;
	if (!out || optind != argc || !shape || g.path_bytes < PATHS_MIN ||
	    g.path_bytes >= sizeof(g.path)) {
		usage(stderr);
		return 2;
	}
	g.rng.s = seed;
	char opt_text[128];
	snprintf(opt_text, sizeof(opt_text), "shape=%s seed=%llu events=%llu", shape,
		 seed, (unsigned long long)g.target);
	struct riot_log_header h = {
		.host = "genlog", .kernel = "6.1.0-synthetic", .arch = "x86_64",
		.riot_version = RIOT_VERSION, .cmdline = "genlog", .options = opt_text,
		.target = "synthetic workload", .boot_to_wall_ns = WALL_AT_START - (int64_t)START_T,
		.start_t = START_T,
	};
	g.w = riot_writer_open(out, &h, &wo);
	if (!g.w) {
		fprintf(stderr, "genlog: %s: %s\n", out, strerror(errno));
		return 1;
	}
	int rc = run(&g);
	uint64_t strings = riot_writer_count(g.w, RIOT_REC_STRING);
	int crc = riot_writer_close(g.w);
	if (rc || crc) {
		fprintf(stderr, "genlog: %s: %s\n", out, strerror(-(rc ? rc : crc)));
		return 1;
	}
	if (verbose) {
		struct stat sb;
		stat(out, &sb);
		printf("%s: %llu events, %llu strings, %lld bytes, %.2f bytes/event\n", out,
		       (unsigned long long)g.events, (unsigned long long)strings,
		       (long long)sb.st_size, g.events ? (double)sb.st_size / (double)g.events : 0.0);
	}
	return 0;
}
