/* test_filter: capture's --path filter (capture/filter.c). From records
 * alone it follows cwds, fd tables, dups, forks and exits, and keeps
 * exactly the calls that touch the prefix; a directory outside the prefix
 * that a kept call uses as its base is logged once, as a SNAP_FD, first. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>

#include "capture/capture_int.h"
#include "tests/unit/unit.h"

struct emitted {
	unsigned n;
	int32_t fd[8];
	uint32_t pid[8];
	char path[8][64];
};

static int emit(void *ctx, const struct riot_rec *rec)
{
	struct emitted *e = ctx;

	CHECK_EQ(rec->type, RIOT_REC_SNAP_FD);
	if (e->n < 8) {
		e->fd[e->n] = rec->sfd.fd;
		e->pid[e->n] = rec->sfd.pid;
		snprintf(e->path[e->n], sizeof(e->path[0]), "%s", rec->sfd.path.s ? rec->sfd.path.s : "");
	}
	e->n++;
	return 0;
}

static struct path_filter *f;
static struct emitted em;

static bool keep(const struct riot_rec *r)
{
	return path_filter_keep(f, r, emit, &em);
}

static bool snap_proc(uint32_t pid, const char *cwd)
{
	struct riot_rec r = { .type = RIOT_REC_SNAP_PROC };

	r.sproc = (struct riot_snap_proc){ .pid = pid, .ppid = 1, .cwd = { cwd, false } };
	return keep(&r);
}

static bool snap_fd(uint32_t pid, int32_t fd, const char *path)
{
	struct riot_rec r = { .type = RIOT_REC_SNAP_FD };

	r.sfd = (struct riot_snap_fd){ .pid = pid, .fd = fd, .path = { path, false },
				       .ftype = 0100000 };
	return keep(&r);
}

static bool op_open(uint32_t pid, int32_t dirfd, const char *path, int64_t ret)
{
	struct riot_rec r = { .type = RIOT_REC_SYSCALL };

	r.sc = (struct riot_syscall){ .sys = RIOT_SYS_openat, .pid = pid, .tid = pid, .ret = ret,
				      .has = RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_FLAGS,
				      .dirfd = dirfd, .path = { path, false } };
	return keep(&r);
}

/* A call on one fd (read, close, dup, fchdir), with its result. */
static bool on_fd(uint16_t sys, uint32_t pid, int32_t fd, int64_t ret)
{
	struct riot_rec r = { .type = RIOT_REC_SYSCALL };

	r.sc = (struct riot_syscall){ .sys = sys, .pid = pid, .tid = pid, .ret = ret,
				      .has = RIOT_HAS_FD, .fd = fd };
	if (sys == RIOT_SYS_read) {
		r.sc.has |= RIOT_HAS_COUNT;
		r.sc.count = 4096;
	}
	return keep(&r);
}

static bool fcntl_dup(uint32_t pid, int32_t fd, uint32_t cmd, int64_t ret)
{
	struct riot_rec r = { .type = RIOT_REC_SYSCALL };

	r.sc = (struct riot_syscall){ .sys = RIOT_SYS_fcntl, .pid = pid, .tid = pid, .ret = ret,
				      .has = RIOT_HAS_FD | RIOT_HAS_CMD, .fd = fd, .cmd = cmd };
	return keep(&r);
}

/* A call naming one path (stat, chdir, unlink): sys's argument roles. */
static bool on_path(uint16_t sys, uint32_t pid, const char *path, int64_t ret)
{
	struct riot_rec r = { .type = RIOT_REC_SYSCALL };

	r.sc = (struct riot_syscall){ .sys = sys, .pid = pid, .tid = pid, .ret = ret,
				      .has = RIOT_HAS_PATH, .path = { path, false } };
	return keep(&r);
}

static bool proc(uint8_t kind, uint32_t pid, uint32_t child)
{
	struct riot_rec r = { .type = RIOT_REC_PROC };

	r.proc = (struct riot_proc){ .kind = kind, .pid = pid, .tid = pid,
				     .child_pid = child, .child_tid = child };
	return keep(&r);
}

static bool bare(uint16_t sys, uint32_t pid)
{
	struct riot_rec r = { .type = RIOT_REC_SYSCALL };

	r.sc = (struct riot_syscall){ .sys = sys, .pid = pid, .tid = pid };
	return keep(&r);
}

/* dup2/dup3(fd, to): the new fd is the result. */
static bool dup_to(uint16_t sys, uint32_t pid, int32_t fd, int32_t to)
{
	struct riot_rec r = { .type = RIOT_REC_SYSCALL };

	r.sc = (struct riot_syscall){ .sys = sys, .pid = pid, .tid = pid, .ret = to,
				      .has = RIOT_HAS_FD | RIOT_HAS_FD2, .fd = fd, .fd2 = to };
	return keep(&r);
}

static bool close_range(uint32_t pid, int32_t lo, int32_t hi)
{
	struct riot_rec r = { .type = RIOT_REC_SYSCALL };

	r.sc = (struct riot_syscall){ .sys = RIOT_SYS_close_range, .pid = pid, .tid = pid,
				      .has = RIOT_HAS_FD | RIOT_HAS_FD2 | RIOT_HAS_FLAGS,
				      .fd = lo, .fd2 = hi };
	return keep(&r);
}

/* renameat(dirfd, path, dirfd2, path2) */
static bool rename_at(uint32_t pid, int32_t dirfd, const char *path, int32_t dirfd2,
		      const char *path2)
{
	struct riot_rec r = { .type = RIOT_REC_SYSCALL };

	r.sc = (struct riot_syscall){ .sys = RIOT_SYS_renameat, .pid = pid, .tid = pid,
				      .has = RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_DIRFD2 |
					     RIOT_HAS_PATH2,
				      .dirfd = dirfd, .path = { path, false },
				      .dirfd2 = dirfd2, .path2 = { path2, false } };
	return keep(&r);
}

/* A read by a thread (tid) of pid. */
static bool thread_read(uint32_t pid, uint32_t tid, int32_t fd)
{
	struct riot_rec r = { .type = RIOT_REC_SYSCALL };

	r.sc = (struct riot_syscall){ .sys = RIOT_SYS_read, .pid = pid, .tid = tid, .ret = 1,
				      .has = RIOT_HAS_FD | RIOT_HAS_COUNT, .fd = fd, .count = 1 };
	return keep(&r);
}

/* The fd-table calls one by one: what each leaves decides later calls. */
static void fd_table_cases(void)
{
	f = path_filter_new("/data");
	CHECK(f != NULL);
	if (!f)
		return;
	em.n = 0;
	CHECK(snap_proc(40, "/data/in"));
	CHECK(op_open(40, AT_FDCWD, "a", 3));			/* /data/in/a */
	CHECK(!op_open(40, AT_FDCWD, "/etc/b", 4));
	CHECK(thread_read(40, 41, 3));				/* a thread shares them */
	CHECK(!thread_read(40, 41, 4));

	/* dup2 and dup3 onto a taken fd: it now names the copy's file */
	CHECK(dup_to(RIOT_SYS_dup2, 40, 3, 4));
	CHECK(on_fd(RIOT_SYS_read, 40, 4, 1));
	CHECK(!op_open(40, AT_FDCWD, "/etc/c", 5));
	CHECK(dup_to(RIOT_SYS_dup3, 40, 5, 3));			/* onto an fd inside */
	CHECK(!on_fd(RIOT_SYS_read, 40, 3, 1));
	CHECK(!dup_to(RIOT_SYS_dup3, 40, 5, 6));
	CHECK(!on_fd(RIOT_SYS_read, 40, 6, 1));
	CHECK(!on_fd(RIOT_SYS_dup2, 40, 9, -9));		/* failed: nothing changes */
	CHECK(on_fd(RIOT_SYS_read, 40, 4, 1));

	/* fcntl F_DUPFD of a file inside, and a failed one */
	CHECK(fcntl_dup(40, 4, F_DUPFD, 7));
	CHECK(on_fd(RIOT_SYS_read, 40, 7, 1));
	CHECK(fcntl_dup(40, 4, F_DUPFD_CLOEXEC, -24));
	CHECK(!on_fd(RIOT_SYS_read, 40, 8, 1));

	/* close_range: kept when it closes an fd inside; the fds are gone */
	CHECK(!close_range(40, 5, 6));
	CHECK(close_range(40, 6, 7));
	CHECK(!on_fd(RIOT_SYS_read, 40, 7, 1));
	CHECK(on_fd(RIOT_SYS_read, 40, 4, 1));
	CHECK(close_range(40, 0, 100));
	CHECK(!on_fd(RIOT_SYS_read, 40, 4, 1));

	/* ".." folded against the cwd and against a dirfd */
	CHECK(op_open(40, AT_FDCWD, "/data", 10));
	CHECK(!op_open(40, 10, "../etc/d", 11));
	CHECK(op_open(40, 10, "x/../../data/e", 12));
	CHECK(!op_open(40, AT_FDCWD, "../../../etc/f", 13));
	CHECK(op_open(40, AT_FDCWD, "../../../data/g", 14));
	CHECK(op_open(40, AT_FDCWD, "/../..//data/./h/", 15));
	CHECK(op_open(40, 12, "sub", 16));			/* /data/e/sub: a dirfd inside */
	CHECK(op_open(40, 99, "../../etc/i", -2));	/* unknown dirfd: kept */
	CHECK(rename_at(40, AT_FDCWD, "/etc/j", 10, "in/j"));	/* its second path */
	CHECK(!rename_at(40, 10, "../etc/k", AT_FDCWD, "/etc/l"));
	CHECK_EQ(em.n, 0);

	/* chdir, fchdir: relative paths follow the cwd */
	CHECK(on_path(RIOT_SYS_chdir, 40, "/etc", 0));
	CHECK(!op_open(40, AT_FDCWD, "m", 17));
	CHECK(on_path(RIOT_SYS_chdir, 40, "../data/in/./", 0));
	CHECK(op_open(40, AT_FDCWD, "n", 18));			/* /data/in/n */
	CHECK(on_path(RIOT_SYS_chdir, 40, "/nowhere", -2));	/* failed: stays */
	CHECK(op_open(40, AT_FDCWD, "o", 19));
	CHECK(on_fd(RIOT_SYS_fchdir, 40, 10, 0));		/* into /data */
	CHECK(op_open(40, AT_FDCWD, "p", 20));
	CHECK(!op_open(40, AT_FDCWD, "../etc/q", 21));
	CHECK(!op_open(40, AT_FDCWD, "/etc", 22));
	CHECK(on_fd(RIOT_SYS_fchdir, 40, 22, 0));		/* outside: logged first */
	CHECK_EQ(em.n, 1);
	CHECK_EQ(em.fd[0], 22);
	CHECK_STR(em.path[0], "/etc");
	CHECK(!op_open(40, AT_FDCWD, "r", 23));
	CHECK(on_fd(RIOT_SYS_fchdir, 40, 77, 0));		/* unknown fd: cwd unknown */
	CHECK(op_open(40, AT_FDCWD, "s", 24));			/* so kept */
	CHECK(on_path(RIOT_SYS_chdir, 40, "/data", 0));

	/* a base outside the prefix, shown once: its copies and its fork
	 * child's copy are shown too, until closed */
	CHECK(!op_open(40, AT_FDCWD, "/", 30));
	CHECK(op_open(40, 30, "data/t", 31));
	CHECK_EQ(em.n, 2);
	CHECK_EQ(em.fd[1], 30);
	CHECK(on_fd(RIOT_SYS_dup, 40, 30, 32));			/* a shown fd's copy */
	CHECK(op_open(40, 32, "data/u", 33));
	CHECK_EQ(em.n, 2);					/* not logged again */
	CHECK(fcntl_dup(40, 32, F_DUPFD_CLOEXEC, 34));
	CHECK(on_fd(RIOT_SYS_close, 40, 34, 0));
	CHECK(proc(RIOT_PROC_FORK, 40, 50));
	CHECK(on_fd(RIOT_SYS_read, 50, 31, 1));			/* inherited fds */
	CHECK(op_open(50, AT_FDCWD, "v", 35));			/* inherited cwd: /data/v */
	CHECK(on_path(RIOT_SYS_chdir, 50, "/etc", 0));
	CHECK(op_open(40, AT_FDCWD, "w", 36));			/* the parent's cwd stays */
	CHECK(!op_open(50, AT_FDCWD, "x", 36));
	CHECK(on_fd(RIOT_SYS_close, 50, 30, 0));		/* inherited as shown */
	CHECK(!on_fd(RIOT_SYS_close, 50, 30, 0));		/* gone */
	CHECK(!op_open(50, AT_FDCWD, "/", 30));			/* reopened: not shown */
	CHECK(!on_fd(RIOT_SYS_dup, 50, 30, 37));
	CHECK(op_open(50, 30, "data/y", 38));			/* shown for 50 now */
	CHECK_EQ(em.n, 3);
	CHECK_EQ(em.pid[2], 50);
	CHECK(!on_fd(RIOT_SYS_close, 50, 37, 0));		/* copied before: not shown */
	CHECK(proc(RIOT_PROC_EXIT, 50, 0));
	CHECK(!on_fd(RIOT_SYS_read, 50, 31, 1));
	CHECK(on_fd(RIOT_SYS_close, 40, 32, 0));
	CHECK(on_fd(RIOT_SYS_close, 40, 30, 0));
	CHECK(!op_open(40, AT_FDCWD, "/", 30));
	CHECK(!on_fd(RIOT_SYS_close, 40, 30, 0));
	CHECK_EQ(em.n, 3);
	path_filter_free(f);
}

int main(void)
{
	f = path_filter_new("/data");
	CHECK(f != NULL);
	if (!f)
		return unit_done();

	/* start state: a cwd outside, one fd inside, one outside */
	CHECK(snap_proc(10, "/home"));
	CHECK(snap_fd(10, 3, "/data/a"));
	CHECK(!snap_fd(10, 4, "/etc/x"));
	CHECK(on_fd(RIOT_SYS_read, 10, 3, 4096));
	CHECK(!on_fd(RIOT_SYS_read, 10, 4, 4096));

	/* relative to the cwd, folded lexically */
	CHECK(op_open(10, AT_FDCWD, "../data/b", 5));
	CHECK(on_fd(RIOT_SYS_read, 10, 5, 4096));
	CHECK(!op_open(10, AT_FDCWD, "notes", 6));
	CHECK(!on_fd(RIOT_SYS_read, 10, 6, 4096));
	CHECK(op_open(10, AT_FDCWD, "/data/./f//g", 13));
	CHECK(!op_open(10, AT_FDCWD, "/data/../data2/x", 14));	/* /data2 is not /data */
	CHECK(!op_open(10, AT_FDCWD, "/database", 15));
	CHECK(op_open(10, AT_FDCWD, "/data", 16));		/* the prefix itself */
	CHECK(op_open(10, AT_FDCWD, "/data/missing", -2));	/* failed, but names it */
	CHECK_EQ(em.n, 0);

	/* a base outside the prefix: logged once, before the first call */
	CHECK(!op_open(10, AT_FDCWD, "/", 7));
	CHECK(op_open(10, 7, "data/c", 8));
	CHECK_EQ(em.n, 1);
	CHECK_EQ(em.fd[0], 7);
	CHECK_EQ(em.pid[0], 10);
	CHECK_STR(em.path[0], "/");
	CHECK(op_open(10, 7, "data/d", 17));
	CHECK(!op_open(10, 7, "etc/passwd", 18));
	CHECK_EQ(em.n, 1);
	CHECK(on_fd(RIOT_SYS_close, 10, 7, 0));	/* shown: its close too */

	/* dup, fcntl F_DUPFD_CLOEXEC: the copy follows the file */
	CHECK(on_fd(RIOT_SYS_dup, 10, 5, 9));
	CHECK(on_fd(RIOT_SYS_read, 10, 9, 4096));
	CHECK(on_fd(RIOT_SYS_close, 10, 5, 0));
	CHECK(!on_fd(RIOT_SYS_read, 10, 5, 4096));	/* closed: unknown */
	CHECK(!on_fd(RIOT_SYS_close, 10, 6, 0));
	CHECK(fcntl_dup(10, 3, F_DUPFD_CLOEXEC, 11));
	CHECK(on_fd(RIOT_SYS_write, 10, 11, 4096));
	CHECK(!fcntl_dup(10, 4, F_DUPFD, 12));
	CHECK(!on_fd(RIOT_SYS_write, 10, 12, 4096));

	/* chdir: later relative paths resolve from there */
	CHECK(on_path(RIOT_SYS_chdir, 10, "/data/sub", 0));
	CHECK(op_open(10, AT_FDCWD, "e", 19));
	CHECK(!on_path(RIOT_SYS_stat, 10, "../../etc/passwd", 0));
	CHECK(on_path(RIOT_SYS_stat, 10, "../a", 0));

	/* fork: the child inherits fds and cwd; its exit forgets them */
	CHECK(proc(RIOT_PROC_FORK, 10, 20));
	CHECK(on_fd(RIOT_SYS_read, 20, 9, 4096));
	CHECK(!on_fd(RIOT_SYS_read, 20, 4, 4096));
	CHECK(op_open(20, AT_FDCWD, "h", 21));		/* /data/sub/h */
	CHECK(proc(RIOT_PROC_EXIT, 20, 0));
	CHECK(!on_fd(RIOT_SYS_read, 20, 9, 4096));
	CHECK(on_fd(RIOT_SYS_read, 10, 9, 4096));	/* the parent's stay */

	/* calls naming no file concern every file; unknown bases are kept */
	CHECK(bare(RIOT_SYS_sync, 10));
	CHECK(op_open(30, AT_FDCWD, "x", 3));		/* pid 30: no cwd known */
	CHECK_EQ(em.n, 1);

	path_filter_free(f);

	/* prefix "/" keeps every absolute path */
	f = path_filter_new("/");
	CHECK(f != NULL);
	if (f) {
		CHECK(snap_proc(1, "/"));
		CHECK(op_open(1, AT_FDCWD, "/etc/hostname", 3));
		CHECK(on_fd(RIOT_SYS_read, 1, 3, 10));
		path_filter_free(f);
	}
	fd_table_cases();
	path_filter_free(NULL);
	return unit_done();
}
