/* Unit tests of model/: fd tables, processes, cwd and path resolution, fed
 * synthetic records. */
#include "tests/unit/unit.h"

#include "model/model.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>

#define CLONE_PTHREAD (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD)

static struct model *m;
static struct model_op op;
static int apply_errors;

static void apply(const struct riot_rec *r)
{
	if (model_apply(m, r, &op))
		apply_errors++;
}

static const struct model_stats *st(void)
{
	return model_stats(m);
}

static void fresh(void)
{
	model_free(m);
	m = model_new();
	if (!m) {
		perror("model_new");
		exit(1);
	}
}

/* ---- record builders ---- */

static struct riot_rec sysrec(unsigned sys, uint32_t pid, uint32_t tid, int64_t ret)
{
	struct riot_rec r = { .type = RIOT_REC_SYSCALL };

	r.sc.sys = (uint16_t)sys;
	r.sc.pid = pid;
	r.sc.tid = tid;
	r.sc.ret = ret;
	return r;
}

static void snap_proc(uint32_t pid, const char *cwd)
{
	struct riot_rec r = { .type = RIOT_REC_SNAP_PROC };

	r.sproc.pid = pid;
	r.sproc.cwd.s = cwd;
	apply(&r);
}

static uint64_t snap_fd(uint32_t pid, int fd, const char *path, uint32_t flags)
{
	struct riot_rec r = { .type = RIOT_REC_SNAP_FD };

	r.sfd.pid = pid;
	r.sfd.fd = fd;
	r.sfd.path.s = path;
	r.sfd.flags = flags;
	r.sfd.size = 4096;
	r.sfd.pos = 100;
	r.sfd.ftype = 0100000;
	apply(&r);
	return op.file;
}

/* openat(dirfd, path, flags) = ret; returns the file id the op names. */
static uint64_t openat_(uint32_t pid, uint32_t tid, int dirfd, const char *path,
			uint64_t flags, int64_t ret)
{
	struct riot_rec r = sysrec(RIOT_SYS_openat, pid, tid, ret);

	r.sc.has = RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_FLAGS;
	r.sc.dirfd = dirfd;
	r.sc.path.s = path;
	r.sc.flags = flags;
	apply(&r);
	return op.file;
}

static uint64_t open_(uint32_t pid, const char *path, uint64_t flags, int64_t ret)
{
	struct riot_rec r = sysrec(RIOT_SYS_open, pid, pid, ret);

	r.sc.has = RIOT_HAS_PATH | RIOT_HAS_FLAGS;
	r.sc.path.s = path;
	r.sc.flags = flags;
	apply(&r);
	return op.file;
}

/* A syscall with fd (and fd2 when >= 0 is wanted); returns op.file. */
static uint64_t fdcall(unsigned sys, uint32_t pid, uint32_t tid, int fd, int64_t ret)
{
	struct riot_rec r = sysrec(sys, pid, tid, ret);

	r.sc.has = RIOT_HAS_FD;
	r.sc.fd = fd;
	apply(&r);
	return op.file;
}

static uint64_t rd(uint32_t pid, int fd)
{
	return fdcall(RIOT_SYS_read, pid, pid, fd, 10);
}

static void close_(uint32_t pid, int fd, int64_t ret)
{
	fdcall(RIOT_SYS_close, pid, pid, fd, ret);
}

static void dup2_(unsigned sys, uint32_t pid, int fd, int fd2, uint64_t flags, int64_t ret)
{
	struct riot_rec r = sysrec(sys, pid, pid, ret);

	r.sc.has = RIOT_HAS_FD | RIOT_HAS_FD2 | (sys == RIOT_SYS_dup3 ? RIOT_HAS_FLAGS : 0);
	r.sc.fd = fd;
	r.sc.fd2 = fd2;
	r.sc.flags = flags;
	apply(&r);
}

static void fcntl_(uint32_t pid, int fd, uint32_t cmd, uint64_t arg, int64_t ret)
{
	struct riot_rec r = sysrec(RIOT_SYS_fcntl, pid, pid, ret);

	r.sc.has = RIOT_HAS_FD | RIOT_HAS_CMD | RIOT_HAS_ARG;
	r.sc.fd = fd;
	r.sc.cmd = cmd;
	r.sc.arg = arg;
	apply(&r);
}

static void close_range_(uint32_t pid, unsigned lo, unsigned hi, uint64_t flags, int64_t ret)
{
	struct riot_rec r = sysrec(RIOT_SYS_close_range, pid, pid, ret);

	r.sc.has = RIOT_HAS_FD | RIOT_HAS_FD2 | RIOT_HAS_FLAGS;
	r.sc.fd = (int32_t)lo;
	r.sc.fd2 = (int32_t)hi;
	r.sc.flags = flags;
	apply(&r);
}

static void chdir_(uint32_t pid, uint32_t tid, const char *path, int64_t ret)
{
	struct riot_rec r = sysrec(RIOT_SYS_chdir, pid, tid, ret);

	r.sc.has = RIOT_HAS_PATH;
	r.sc.path.s = path;
	apply(&r);
}

/* stat(path): the resolved path, or NULL. */
static const char *stat_(uint32_t pid, uint32_t tid, const char *path)
{
	struct riot_rec r = sysrec(RIOT_SYS_stat, pid, tid, 0);

	r.sc.has = RIOT_HAS_PATH;
	r.sc.path.s = path;
	apply(&r);
	return op.path;
}

static void proc_ev(uint8_t kind, uint32_t pid, uint32_t tid, uint32_t cpid, uint32_t ctid,
		    uint64_t flags)
{
	struct riot_rec r = { .type = RIOT_REC_PROC };

	r.proc.kind = kind;
	r.proc.pid = pid;
	r.proc.tid = tid;
	r.proc.child_pid = cpid;
	r.proc.child_tid = ctid;
	r.proc.clone_flags = flags;
	apply(&r);
}

static void fork_(uint32_t pid, uint32_t tid, uint32_t cpid, uint32_t ctid, uint64_t flags)
{
	proc_ev(RIOT_PROC_FORK, pid, tid, cpid, ctid, flags);
}

static void exit_(uint32_t pid, uint32_t tid)
{
	proc_ev(RIOT_PROC_EXIT, pid, tid, 0, 0, 0);
}

static void exec_(uint32_t pid, uint32_t tid, const char *path)
{
	struct riot_rec r = { .type = RIOT_REC_PROC };

	r.proc.kind = RIOT_PROC_EXEC;
	r.proc.pid = pid;
	r.proc.tid = tid;
	r.proc.path.s = path;
	apply(&r);
}

/* ---- tests ---- */

/* model_new_tables(): fds and cwds followed as the full model follows
 * them; reads and stats not applied (nothing counted, no path interned). */
static void test_tables_only(void)
{
	const struct model_file *f;
	uint64_t paths;

	model_free(m);
	m = model_new_tables();
	CHECK(m != NULL);
	if (!m)
		exit(1);
	snap_proc(1, "/w");
	CHECK(open_(1, "a", O_RDONLY, 3) != 0);
	f = model_fd_file(m, 1, 1, 3);
	CHECK(f != NULL);
	CHECK_STR(model_fd_path(m, 1, 1, 3), "/w/a");
	CHECK_EQ(rd(1, 3), 0);				/* not applied */
	CHECK_EQ(rd(1, 9), 0);
	CHECK_EQ(st()->unresolved_fd, 0);
	paths = st()->paths;
	CHECK(stat_(1, 1, "/elsewhere/x") == NULL);
	CHECK_EQ(st()->paths, paths);
	dup2_(RIOT_SYS_dup2, 1, 3, 5, 0, 5);
	CHECK(model_fd_file(m, 1, 1, 5) == model_fd_file(m, 1, 1, 3));
	close_(1, 3, 0);
	CHECK(model_fd_file(m, 1, 1, 3) == NULL);
	fcntl_(1, 5, F_DUPFD_CLOEXEC, 7, 7);
	CHECK_STR(model_fd_path(m, 1, 1, 7), "/w/a");
	close_range_(1, 5, 6, 0, 0);
	CHECK(!model_fd_known(m, 1, 1, 5));
	chdir_(1, 1, "sub/..//sub2", 0);
	CHECK_STR(model_cwd(m, 1, 1), "/w/sub2");
	fork_(1, 1, 2, 2, 0);
	CHECK_STR(model_fd_path(m, 2, 2, 7), "/w/a");
	CHECK_STR(model_cwd(m, 2, 2), "/w/sub2");
	exec_(2, 2, "/bin/true");			/* 7 is close-on-exec */
	CHECK(model_fd_file(m, 2, 2, 7) == NULL);
	CHECK(model_fd_file(m, 1, 1, 7) != NULL);
	CHECK_EQ(apply_errors, 0);
	fresh();
}

static void test_normalise(void)
{
	fresh();
	snap_proc(1, "/home/u");
	CHECK_STR(stat_(1, 1, "a/b"), "/home/u/a/b");
	CHECK_STR(stat_(1, 1, "./a/./b/."), "/home/u/a/b");
	CHECK_STR(stat_(1, 1, "a//b///c"), "/home/u/a/b/c");
	CHECK_STR(stat_(1, 1, "../x"), "/home/x");
	CHECK_STR(stat_(1, 1, "../../../../x"), "/x");
	CHECK_STR(stat_(1, 1, "/../.."), "/");
	CHECK_STR(stat_(1, 1, "//etc//passwd/"), "/etc/passwd");
	CHECK_STR(stat_(1, 1, "/a/b/../../c/./d/.."), "/c");
	CHECK_STR(stat_(1, 1, "."), "/home/u");
	CHECK_STR(stat_(1, 1, ".."), "/home");
	CHECK_STR(stat_(1, 1, "..."), "/home/u/...");
	CHECK_STR(stat_(1, 1, ".hidden/..x"), "/home/u/.hidden/..x");
	CHECK_STR(stat_(1, 1, "/"), "/");
	CHECK_EQ(op.flags, 0);
	/* the same path has one id */
	stat_(1, 1, "/etc/passwd");
	uint32_t id = op.path_id;
	stat_(1, 1, "/etc/../etc/passwd");
	CHECK_EQ(op.path_id, id);
	CHECK_STR(model_path(m, id), "/etc/passwd");
	CHECK(model_path(m, 0) == NULL);
	CHECK(model_path(m, 1000000) == NULL);
	CHECK_EQ(apply_errors, 0);
}

static void test_same_fd_two_processes(void)
{
	fresh();
	snap_proc(10, "/");
	snap_proc(20, "/");
	uint64_t a = open_(10, "/data/a", O_RDONLY, 3);
	uint64_t b = open_(20, "/data/b", O_RDONLY, 3);
	CHECK(a != 0 && b != 0 && a != b);
	CHECK_U64(rd(10, 3), a);
	CHECK_STR(op.path, "/data/a");
	CHECK_U64(rd(20, 3), b);
	CHECK_STR(op.path, "/data/b");
	close_(10, 3, 0);
	CHECK_U64(rd(20, 3), b);
	CHECK_U64(rd(10, 3), 0);
	CHECK_EQ(op.flags, MODEL_OP_FD_UNKNOWN);
	CHECK_EQ(apply_errors, 0);
}

static void test_snapshot_fds(void)
{
	fresh();
	snap_proc(5, "/srv");
	uint64_t f = snap_fd(5, 7, "/var/log//app.log", O_WRONLY | O_APPEND);
	CHECK(f != 0);
	CHECK_STR(op.path, "/var/log/app.log");
	uint64_t p = snap_fd(5, 8, "pipe:[1234]", O_RDONLY);
	CHECK_STR(op.path, "pipe:[1234]");
	CHECK_U64(rd(5, 7), f);
	CHECK_STR(op.path, "/var/log/app.log");
	CHECK_EQ(op.flags, 0);
	const struct model_file *mf = model_file(m, f);
	CHECK(mf != NULL);
	if (mf) {
		CHECK_EQ(mf->flags, MODEL_FILE_SNAPSHOT);
		CHECK_U64(mf->open_flags, O_WRONLY | O_APPEND);
		CHECK_U64(mf->size, 4096);
		CHECK_U64(mf->pos, 100);
		CHECK_STR(model_path(m, mf->path_id), "/var/log/app.log");
	}
	CHECK_U64(rd(5, 8), p);
	/* a pipe is not a directory to resolve against */
	CHECK(openat_(5, 5, 8, "x", O_RDONLY, -ENOTDIR) == 0);
	CHECK_EQ(op.flags, MODEL_OP_DIRFD_UNKNOWN);
	CHECK(op.path == NULL);
	CHECK_EQ(st()->unresolved_fd, 1);
	CHECK_EQ(st()->processes, 1);
	CHECK_EQ(st()->unknown_processes, 0);
	CHECK_EQ(apply_errors, 0);
}

/* A SNAP_FD during the capture introduces an fd capture did not see made
 * (SCM_RIGHTS, pidfd_getfd, io_uring). On an fd the model already holds
 * on the same file (same inode, else same path, or both naming no file)
 * it keeps the object; otherwise it makes a new one. */
static struct riot_rec found_fd(uint32_t pid, int fd, const char *path, uint64_t ino)
{
	struct riot_rec r = { .type = RIOT_REC_SNAP_FD };

	r.sfd.pid = pid;
	r.sfd.fd = fd;
	r.sfd.t = 1000;
	r.sfd.path.s = path;
	r.sfd.flags = O_RDWR;
	r.sfd.ftype = path ? 0100000 : 0140000;
	r.sfd.ino = ino;
	r.sfd.dev = ino ? 2049 : 0;
	return r;
}

static void test_found_fds(void)
{
	struct riot_rec r;
	uint64_t f, g;

	fresh();
	snap_proc(5, "/srv");
	f = open_(5, "/srv/a", O_RDWR, 3);
	r = found_fd(5, 3, "/srv/a", 0);
	apply(&r);
	CHECK_U64(op.file, f);	/* same path: the same object */
	CHECK_U64(rd(5, 3), f);
	/* opened through a symlink: another path, the same inode */
	r = sysrec(RIOT_SYS_open, 5, 5, 4);
	r.sc.has = RIOT_HAS_PATH | RIOT_HAS_FLAGS | RIOT_HAS_INO | RIOT_HAS_DEV;
	r.sc.path.s = "/srv/link/b";
	r.sc.flags = O_RDONLY;
	r.sc.ino = 77;
	r.sc.dev = 2049;
	apply(&r);
	g = op.file;
	r = found_fd(5, 4, "/srv/real/b", 77);
	apply(&r);
	CHECK_U64(op.file, g);
	CHECK_STR(op.path, "/srv/link/b");
	/* another inode at the same fd: a new object with the found path */
	r = found_fd(5, 4, "/srv/real/b", 78);
	apply(&r);
	CHECK(op.file != g && op.file != 0);
	CHECK_STR(op.path, "/srv/real/b");
	CHECK_U64(rd(5, 4), op.file);
	CHECK_STR(op.path, "/srv/real/b");
	/* an fd the model did not hold: received over a socket */
	r = found_fd(5, 9, "/srv/c", 0);
	apply(&r);
	g = op.file;
	CHECK(g != 0);
	CHECK_U64(rd(5, 9), g);
	CHECK_STR(op.path, "/srv/c");
	/* no path: a pipe or socket, counted as a non-file, not as a loss */
	r = found_fd(5, 10, NULL, 0);
	apply(&r);
	CHECK_U64(rd(5, 10), op.file);
	CHECK(op.file != 0);
	CHECK_EQ(st()->unresolved_fd, 0);
	CHECK_EQ(st()->nonfile_fd, 1);
	CHECK_EQ(apply_errors, 0);
}

static void test_threads_share(void)
{
	fresh();
	snap_proc(100, "/w");
	fork_(100, 100, 100, 101, CLONE_PTHREAD);
	uint64_t f = openat_(100, 101, AT_FDCWD, "t.dat", O_RDWR, 4);
	CHECK_STR(op.path, "/w/t.dat");
	CHECK_U64(fdcall(RIOT_SYS_write, 100, 100, 4, 1), f);
	/* a thread from before the capture, never seen in a FORK */
	CHECK_U64(fdcall(RIOT_SYS_write, 100, 150, 4, 1), f);
	/* and cwd is shared: a chdir in one thread moves all */
	chdir_(100, 150, "sub", 0);
	CHECK_STR(stat_(100, 100, "x"), "/w/sub/x");
	fdcall(RIOT_SYS_close, 100, 101, 4, 0);
	CHECK_U64(fdcall(RIOT_SYS_read, 100, 100, 4, 1), 0);
	CHECK_EQ(st()->threads, 3);
	CHECK_EQ(st()->processes, 1);
	/* a thread's exit keeps the process and its fds */
	openat_(100, 100, AT_FDCWD, "/k", O_RDONLY, 5);
	exit_(100, 101);
	exit_(100, 150);
	CHECK(rd(100, 5) != 0);
	CHECK_EQ(st()->live_processes, 1);
	CHECK_EQ(apply_errors, 0);
}

static void test_fork_copies(void)
{
	fresh();
	snap_proc(1, "/p");
	uint64_t f = open_(1, "/f", O_RDONLY, 3);
	fork_(1, 1, 2, 2, 0);
	CHECK_U64(rd(2, 3), f);		/* the same object, shared by fork */
	close_(2, 3, 0);
	CHECK_U64(rd(1, 3), f);		/* the parent still has it */
	CHECK_U64(rd(2, 3), 0);
	CHECK_EQ(op.flags, MODEL_OP_FD_UNKNOWN);
	/* an fd opened by the child after the fork is its own */
	uint64_t g = open_(2, "/g", O_RDONLY, 4);
	CHECK_U64(rd(1, 4), 0);
	CHECK_U64(rd(2, 4), g);
	/* cwd copied, not shared */
	chdir_(2, 2, "/elsewhere", 0);
	CHECK_STR(stat_(1, 1, "x"), "/p/x");
	CHECK_STR(stat_(2, 2, "x"), "/elsewhere/x");
	CHECK_EQ(st()->processes, 2);
	CHECK_EQ(apply_errors, 0);
}

static void test_clone_files_and_fs(void)
{
	fresh();
	snap_proc(1, "/p");
	uint64_t f = open_(1, "/f", O_RDONLY, 3);
	fork_(1, 1, 2, 2, CLONE_FILES | CLONE_FS);
	close_(2, 3, 0);
	CHECK_U64(rd(1, 3), 0);		/* shared table: gone for both */
	uint64_t g = open_(2, "/g", O_RDONLY, 5);
	CHECK_U64(rd(1, 5), g);
	chdir_(2, 2, "/q", 0);
	CHECK_STR(stat_(1, 1, "x"), "/q/x");
	/* the parent exits; the child keeps the shared table */
	exit_(1, 1);
	CHECK_U64(rd(2, 5), g);
	CHECK_EQ(st()->live_processes, 1);
	(void)f;
	/* CLONE_FS without CLONE_FILES */
	fork_(2, 2, 3, 3, CLONE_FS);
	chdir_(3, 3, "/r", 0);
	CHECK_STR(stat_(2, 2, "x"), "/r/x");
	close_(3, 5, 0);
	CHECK_U64(rd(2, 5), g);
	CHECK_EQ(apply_errors, 0);
}

static void test_exec_cloexec(void)
{
	fresh();
	snap_proc(1, "/bin");
	uint64_t keep = open_(1, "/keep", O_RDONLY, 3);
	open_(1, "/gone", O_RDONLY | O_CLOEXEC, 4);
	uint64_t set = open_(1, "/setfd", O_RDONLY, 5);
	fcntl_(1, 5, F_SETFD, FD_CLOEXEC, 0);
	uint64_t unset = open_(1, "/unset", O_RDONLY | O_CLOEXEC, 6);
	fcntl_(1, 6, F_SETFD, 0, 0);
	dup2_(RIOT_SYS_dup3, 1, 3, 7, O_CLOEXEC, 7);
	fcntl_(1, 3, F_DUPFD_CLOEXEC, 10, 10);
	CHECK_U64(op.file2, keep);
	fcntl_(1, 3, F_DUPFD, 10, 11);
	CHECK_U64(op.file2, keep);
	CHECK_U64(rd(1, 10), keep);
	CHECK_U64(rd(1, 7), keep);
	/* dup2 onto itself keeps close-on-exec */
	uint64_t self = open_(1, "/self", O_RDONLY | O_CLOEXEC, 13);
	dup2_(RIOT_SYS_dup2, 1, 13, 13, 0, 13);
	CHECK_U64(op.file2, self);
	uint64_t snapc = snap_fd(1, 12, "/snap", O_RDONLY | O_CLOEXEC);
	CHECK(snapc != 0);
	exec_(1, 1, "tool");
	CHECK_STR(op.path, "/bin/tool");
	CHECK_U64(rd(1, 3), keep);
	CHECK_U64(rd(1, 4), 0);
	CHECK_U64(rd(1, 5), 0);
	CHECK_U64(rd(1, 6), unset);
	CHECK_U64(rd(1, 7), 0);
	CHECK_U64(rd(1, 10), 0);
	CHECK_U64(rd(1, 11), keep);
	CHECK_U64(rd(1, 12), 0);
	CHECK_U64(rd(1, 13), 0);
	CHECK(model_file(m, set) == NULL);	/* freed a call later */
	CHECK_EQ(apply_errors, 0);
}

static void test_exec_unshares_and_ends_threads(void)
{
	fresh();
	snap_proc(1, "/");
	fork_(1, 1, 2, 2, CLONE_FILES);		/* a child sharing the fd table */
	uint64_t f = open_(2, "/c", O_RDONLY | O_CLOEXEC, 3);
	exec_(2, 2, "/bin/x");
	CHECK_U64(rd(2, 3), 0);
	CHECK_U64(rd(1, 3), f);		/* exec unshared before closing */
	/* a thread execs: the other threads go, the table survives */
	fork_(1, 1, 1, 8, CLONE_PTHREAD);
	fork_(1, 1, 1, 9, CLONE_PTHREAD);
	uint64_t g = open_(1, "/g", O_RDONLY, 4);
	exec_(1, 9, "/bin/y");
	CHECK_EQ(st()->threads, 4);	/* 1, 2, 8, 9 */
	CHECK_U64(fdcall(RIOT_SYS_read, 1, 1, 4, 1), g);
	CHECK_EQ(st()->live_processes, 2);
	exit_(1, 1);
	CHECK_EQ(st()->live_processes, 1);
	CHECK_EQ(apply_errors, 0);
}

static void test_exit_closes(void)
{
	fresh();
	snap_proc(1, "/");
	uint64_t f = open_(1, "/a", O_RDONLY, 3);
	fork_(1, 1, 1, 2, CLONE_PTHREAD);
	exit_(1, 1);			/* leader gone, thread alive */
	CHECK_U64(fdcall(RIOT_SYS_read, 1, 2, 3, 1), f);
	exit_(1, 2);
	CHECK_EQ(st()->live_processes, 0);
	CHECK(model_file(m, f) != NULL);	/* released by the last call */
	CHECK_EQ(st()->live_files, 1);
	rd(1, 3);			/* the pid again: a new, unknown process */
	CHECK_U64(op.file, 0);
	CHECK_EQ(op.flags, MODEL_OP_FD_UNKNOWN);
	CHECK(model_file(m, f) == NULL);
	CHECK_EQ(st()->live_files, 0);
	CHECK_EQ(st()->unknown_processes, 1);
	CHECK_EQ(st()->processes, 2);
	/* an exit of a task never seen changes nothing */
	snap_proc(7, "/");
	open_(7, "/z", O_RDONLY, 3);
	exit_(7, 77);
	CHECK(rd(7, 3) != 0);
	CHECK_EQ(apply_errors, 0);
}

static void test_dup_family(void)
{
	fresh();
	snap_proc(1, "/");
	uint64_t a = open_(1, "/a", O_RDONLY, 3);
	uint64_t b = open_(1, "/b", O_RDONLY, 4);
	fdcall(RIOT_SYS_dup, 1, 1, 3, 5);
	CHECK_U64(op.file, a);
	CHECK_U64(op.file2, a);
	CHECK_STR(op.path2, "/a");
	CHECK_U64(rd(1, 5), a);
	dup2_(RIOT_SYS_dup2, 1, 3, 4, 0, 4);	/* replaces b at 4 */
	CHECK_U64(op.file2, a);
	CHECK(model_file(m, b) != NULL);	/* until the next call */
	CHECK_U64(rd(1, 4), a);
	CHECK(model_file(m, b) == NULL);	/* its last fd went */
	dup2_(RIOT_SYS_dup2, 1, 3, 3, 0, 3);	/* same fd: nothing */
	CHECK_U64(rd(1, 3), a);
	dup2_(RIOT_SYS_dup3, 1, 3, 9, 0, 9);
	CHECK_U64(rd(1, 9), a);
	fcntl_(1, 3, F_DUPFD, 20, 20);
	CHECK_U64(rd(1, 20), a);
	/* closing the original leaves the duplicates */
	close_(1, 3, 0);
	CHECK_U64(rd(1, 5), a);
	CHECK_U64(rd(1, 3), 0);
	/* dup of an unknown fd: counted, the new fd stays unknown */
	fdcall(RIOT_SYS_dup, 1, 1, 30, 31);
	CHECK_EQ(op.flags, MODEL_OP_FD_UNKNOWN);
	CHECK_U64(rd(1, 31), 0);
	CHECK_EQ(st()->unresolved_fd_by_sys[RIOT_SYS_dup], 1);
	CHECK_EQ(apply_errors, 0);
}

static void test_close_range(void)
{
	fresh();
	snap_proc(1, "/");
	uint64_t f[8];
	for (int fd = 3; fd < 8; fd++)
		f[fd] = open_(1, "/x", O_RDONLY, fd);
	fdcall(RIOT_SYS_dup, 1, 1, 3, 1000);
	close_range_(1, 4, 5, 0, 0);
	CHECK_U64(rd(1, 3), f[3]);
	CHECK_U64(rd(1, 4), 0);
	CHECK_U64(rd(1, 5), 0);
	CHECK_U64(rd(1, 6), f[6]);
	CHECK_EQ(st()->unresolved_fd_by_sys[RIOT_SYS_close_range], 0);
	close_range_(1, 6, ~0u, 4 /* CLOSE_RANGE_CLOEXEC */, 0);
	CHECK_U64(rd(1, 6), f[6]);	/* only marked */
	CHECK_U64(rd(1, 1000), f[3]);
	/* UNSHARE: a CLONE_FILES sharer keeps its view */
	fork_(1, 1, 2, 2, CLONE_FILES);
	close_range_(2, 0, ~0u, 2 /* CLOSE_RANGE_UNSHARE */, 0);
	CHECK_U64(rd(2, 3), 0);
	CHECK_U64(rd(1, 3), f[3]);
	exec_(1, 1, "/bin/sh");
	CHECK_U64(rd(1, 3), f[3]);
	CHECK_U64(rd(1, 6), 0);
	CHECK_U64(rd(1, 7), 0);
	CHECK_U64(rd(1, 1000), 0);
	/* a failed close_range changes nothing */
	close_range_(1, 0, ~0u, 0, -EINVAL);
	CHECK_U64(rd(1, 3), f[3]);
	CHECK_EQ(apply_errors, 0);
}

static void test_fd_reuse(void)
{
	fresh();
	snap_proc(1, "/");
	uint64_t a = open_(1, "/same", O_RDONLY, 3);
	close_(1, 3, 0);
	uint64_t b = open_(1, "/same", O_RDONLY, 3);
	CHECK(a != 0 && b != 0 && a != b);
	CHECK_U64(rd(1, 3), b);
	const struct model_file *fa = model_file(m, a), *fb = model_file(m, b);
	CHECK(fa == NULL);
	CHECK(fb != NULL);
	/* an open at an fd the model thinks is taken (a lost close) wins */
	uint64_t c = open_(1, "/other", O_RDONLY, 3);
	CHECK(c != b);
	CHECK_U64(rd(1, 3), c);
	CHECK_STR(op.path, "/other");
	CHECK_EQ(st()->files, 3);
	CHECK_EQ(apply_errors, 0);
}

/* A slow close(5) of one thread ends after another thread's open got fd 5:
 * records come in the order calls end, but the close freed fd 5 as it
 * began, so the new file stays at fd 5 for the writes after. */
static void test_close_overlaps_reuse(void)
{
	fresh();
	snap_proc(1, "/");
	fork_(1, 1, 1, 2, CLONE_PTHREAD);
	struct riot_rec r = sysrec(RIOT_SYS_openat, 1, 1, 5);
	r.sc.has = RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_FLAGS;
	r.sc.dirfd = AT_FDCWD;
	r.sc.path.s = "/old";
	r.sc.t = 10;
	r.sc.dur = 10;
	apply(&r);
	uint64_t old = op.file;
	/* thread 2 opens /new at fd 5 in [200, 300], writes it in [400, 450];
	 * thread 1's close(5) ran over [100, 1100] */
	r.sc.tid = 2;
	r.sc.path.s = "/new";
	r.sc.t = 200;
	r.sc.dur = 100;
	apply(&r);
	uint64_t nf = op.file;
	CHECK(nf != old);
	struct riot_rec w = sysrec(RIOT_SYS_write, 1, 2, 1);
	w.sc.has = RIOT_HAS_FD;
	w.sc.fd = 5;
	w.sc.t = 400;
	w.sc.dur = 50;
	apply(&w);
	CHECK_U64(op.file, nf);
	struct riot_rec c = sysrec(RIOT_SYS_close, 1, 1, 0);
	c.sc.has = RIOT_HAS_FD;
	c.sc.fd = 5;
	c.sc.t = 100;
	c.sc.dur = 1000;
	apply(&c);
	CHECK_U64(op.file, 0);	/* the file it closed was /old, gone */
	w.sc.t = 1200;
	apply(&w);
	CHECK_U64(op.file, nf);
	CHECK_STR(op.path, "/new");
	/* a close that began after the open closes it */
	c.sc.tid = 2;
	c.sc.t = 1300;
	c.sc.dur = 5;
	apply(&c);
	CHECK_U64(op.file, nf);
	w.sc.t = 1400;
	apply(&w);
	CHECK_U64(op.file, 0);
	CHECK_EQ(apply_errors, 0);
}

static void test_chdir_fchdir(void)
{
	fresh();
	snap_proc(1, "/home");
	chdir_(1, 1, "u/../v", 0);
	CHECK_STR(op.path, "/home/v");
	CHECK_STR(stat_(1, 1, "f"), "/home/v/f");
	chdir_(1, 1, "/nope", -ENOENT);
	CHECK_STR(stat_(1, 1, "f"), "/home/v/f");
	openat_(1, 1, AT_FDCWD, "/etc", O_RDONLY | O_DIRECTORY, 3);
	fdcall(RIOT_SYS_fchdir, 1, 1, 3, 0);
	CHECK_STR(op.path, "/etc");
	CHECK_STR(stat_(1, 1, "hosts"), "/etc/hosts");
	/* fchdir to an fd the model does not know: cwd unknown from then */
	fdcall(RIOT_SYS_fchdir, 1, 1, 44, 0);
	CHECK(stat_(1, 1, "hosts") == NULL);
	CHECK_EQ(op.flags, MODEL_OP_CWD_UNKNOWN);
	CHECK_STR(stat_(1, 1, "/abs"), "/abs");
	chdir_(1, 1, "/back", 0);
	CHECK_STR(stat_(1, 1, "x"), "/back/x");
	CHECK_EQ(apply_errors, 0);
}

static void test_at_paths(void)
{
	fresh();
	snap_proc(1, "/cwd");
	openat_(1, 1, AT_FDCWD, "/data/dir", O_RDONLY | O_DIRECTORY, 3);
	uint64_t f = openat_(1, 1, 3, "sub/../file", O_RDONLY, 4);
	CHECK_STR(op.path, "/data/dir/file");
	CHECK_U64(rd(1, 4), f);
	openat_(1, 1, AT_FDCWD, "rel", O_RDONLY, 5);
	CHECK_STR(op.path, "/cwd/rel");
	openat_(1, 1, 3, "/abs/x", O_RDONLY, 6);	/* dirfd ignored */
	CHECK_STR(op.path, "/abs/x");
	openat_(1, 1, 99, "/abs/y", O_RDONLY, 7);	/* even unknown */
	CHECK_STR(op.path, "/abs/y");
	CHECK_EQ(op.flags, 0);
	openat_(1, 1, 3, "..", O_RDONLY, 8);
	CHECK_STR(op.path, "/data");
	/* unknown dirfd with a relative path: counted, no path */
	CHECK(openat_(1, 1, 99, "z", O_RDONLY, 9) != 0);
	CHECK(op.path == NULL);
	CHECK_EQ(op.flags, MODEL_OP_DIRFD_UNKNOWN);
	CHECK_EQ(st()->unresolved_fd_by_sys[RIOT_SYS_openat], 1);
	/* AT_EMPTY_PATH names the dirfd's file */
	struct riot_rec r = sysrec(RIOT_SYS_newfstatat, 1, 1, 0);
	r.sc.has = RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_FLAGS;
	r.sc.dirfd = 4;
	r.sc.path.s = "";
	apply(&r);
	CHECK_U64(op.file, f);
	CHECK_STR(op.path, "/data/dir/file");
	/* renameat: both paths, each against its own dirfd */
	r = sysrec(RIOT_SYS_renameat, 1, 1, 0);
	r.sc.has = RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_DIRFD2 | RIOT_HAS_PATH2;
	r.sc.dirfd = 3;
	r.sc.path.s = "old";
	r.sc.dirfd2 = AT_FDCWD;
	r.sc.path2.s = "new";
	apply(&r);
	CHECK_STR(op.path, "/data/dir/old");
	CHECK_STR(op.path2, "/cwd/new");
	CHECK(op.text == NULL);
	CHECK_EQ(apply_errors, 0);
}

static void test_path2_roles(void)
{
	fresh();
	snap_proc(1, "/d");
	struct riot_rec r = sysrec(RIOT_SYS_symlink, 1, 1, 0);
	r.sc.has = RIOT_HAS_PATH | RIOT_HAS_PATH2;
	r.sc.path.s = "link";
	r.sc.path2.s = "../target/./x";
	apply(&r);
	CHECK_STR(op.path, "/d/link");
	CHECK(op.path2 == NULL);
	CHECK_STR(op.text, "../target/./x");
	r = sysrec(RIOT_SYS_symlinkat, 1, 1, 0);
	r.sc.has = RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_PATH2;
	r.sc.dirfd = AT_FDCWD;
	r.sc.path.s = "l2";
	r.sc.path2.s = "t";
	apply(&r);
	CHECK_STR(op.path, "/d/l2");
	CHECK_STR(op.text, "t");
	r = sysrec(RIOT_SYS_getxattr, 1, 1, 5);
	r.sc.has = RIOT_HAS_PATH | RIOT_HAS_PATH2;
	r.sc.path.s = "f";
	r.sc.path2.s = "user.x";
	apply(&r);
	CHECK_STR(op.text, "user.x");
	CHECK(op.path2 == NULL);
	r = sysrec(RIOT_SYS_link, 1, 1, 0);
	r.sc.has = RIOT_HAS_PATH | RIOT_HAS_PATH2;
	r.sc.path.s = "a";
	r.sc.path2.s = "b/../c";
	apply(&r);
	CHECK_STR(op.path2, "/d/c");
	r = sysrec(RIOT_SYS_readlink, 1, 1, 3);
	r.sc.has = RIOT_HAS_PATH | RIOT_HAS_PATH2;
	r.sc.path.s = "l";
	r.sc.path2.s = "abc";
	apply(&r);
	CHECK_STR(op.text, "abc");
	CHECK_EQ(apply_errors, 0);
}

static void test_copy_fd2(void)
{
	fresh();
	snap_proc(1, "/");
	uint64_t in = open_(1, "/in", O_RDONLY, 3);
	uint64_t out = open_(1, "/out", O_WRONLY, 4);
	struct riot_rec r = sysrec(RIOT_SYS_sendfile, 1, 1, 10);
	r.sc.has = RIOT_HAS_FD | RIOT_HAS_FD2;
	r.sc.fd = 3;
	r.sc.fd2 = 4;
	apply(&r);
	CHECK_U64(op.file, in);
	CHECK_U64(op.file2, out);
	CHECK_STR(op.path, "/in");
	CHECK_STR(op.path2, "/out");
	r.sc.sys = RIOT_SYS_copy_file_range;
	r.sc.fd2 = 40;
	apply(&r);
	CHECK_EQ(op.flags, MODEL_OP_FD2_UNKNOWN);
	CHECK_EQ(st()->unresolved_fd_by_sys[RIOT_SYS_copy_file_range], 1);
	CHECK_EQ(apply_errors, 0);
}

static void test_failed_changes_nothing(void)
{
	fresh();
	snap_proc(1, "/");
	CHECK_U64(open_(1, "/missing", O_RDONLY, -ENOENT), 0);
	CHECK_STR(op.path, "/missing");
	CHECK_EQ(st()->files, 0);
	uint64_t a = open_(1, "/a", O_RDONLY, 3);
	dup2_(RIOT_SYS_dup2, 1, 3, 4, 0, -EBADF);
	CHECK_U64(rd(1, 4), 0);
	fdcall(RIOT_SYS_dup, 1, 1, 3, -EMFILE);
	fcntl_(1, 3, F_DUPFD, 0, -EINVAL);
	fcntl_(1, 3, F_SETFD, FD_CLOEXEC, -EINVAL);
	chdir_(1, 1, "/x", -ENOENT);
	CHECK_STR(stat_(1, 1, "y"), "/y");
	exec_(1, 1, "/bin/true");
	CHECK_U64(rd(1, 3), a);		/* F_SETFD failed: not close-on-exec */
	close_(1, 3, -EBADF);
	CHECK_U64(rd(1, 3), a);
	/* close is the exception: Linux frees the fd even on EINTR/EIO */
	close_(1, 3, -EINTR);
	CHECK_U64(rd(1, 3), 0);
	/* EBADF on an unknown fd is not a model gap */
	uint64_t before = st()->unresolved_fd;
	fdcall(RIOT_SYS_read, 1, 1, 50, -EBADF);
	CHECK_U64(st()->unresolved_fd, before);
	CHECK_EQ(apply_errors, 0);
}

static void test_unknown_fd_counted(void)
{
	fresh();
	snap_proc(1, "/");
	rd(1, 3);
	rd(1, 3);
	fdcall(RIOT_SYS_fsync, 1, 1, 9, 0);
	fdcall(RIOT_SYS_pwrite64, 1, 1, 9, 0);
	fdcall(RIOT_SYS_mmap, 1, 1, -1, 0);	/* anonymous: no fd */
	CHECK_EQ(op.flags, 0);
	CHECK_EQ(st()->unresolved_fd, 4);
	CHECK_EQ(st()->unresolved_fd_by_sys[RIOT_SYS_read], 2);
	CHECK_EQ(st()->unresolved_fd_by_sys[RIOT_SYS_fsync], 1);
	CHECK_EQ(st()->unresolved_fd_by_sys[RIOT_SYS_pwrite64], 1);
	CHECK_EQ(st()->unresolved_fd_by_sys[RIOT_SYS_mmap], 0);
	CHECK_EQ(apply_errors, 0);
}

static void test_unknown_cwd(void)
{
	fresh();
	/* pid 9: no snapshot, no fork */
	CHECK(stat_(9, 9, "rel") == NULL);
	CHECK_EQ(op.flags, MODEL_OP_CWD_UNKNOWN);
	CHECK_STR(stat_(9, 9, "/abs/./p"), "/abs/p");
	CHECK(openat_(9, 9, AT_FDCWD, "f", O_RDONLY, 3) != 0);
	CHECK(op.path == NULL);
	uint64_t f = rd(9, 3);
	CHECK(f != 0);			/* the fd is known, its path is not */
	CHECK(op.path == NULL);
	chdir_(9, 9, "sub", 0);		/* relative to unknown: still unknown */
	CHECK(stat_(9, 9, "rel") == NULL);
	CHECK_EQ(st()->unknown_cwd, 4);
	CHECK_EQ(st()->unknown_processes, 1);
	/* a child inherits what the parent knows */
	chdir_(9, 9, "/known", 0);
	fork_(9, 9, 10, 10, 0);
	CHECK_STR(stat_(10, 10, "x"), "/known/x");
	/* a snapshot without a cwd */
	snap_proc(11, NULL);
	CHECK(stat_(11, 11, "x") == NULL);
	CHECK_EQ(st()->unknown_cwd, 5);
	CHECK_EQ(apply_errors, 0);
}

static void test_hostile_paths(void)
{
	fresh();
	snap_proc(1, "/r");
	const char bytes[] = "\x01\xff\n\t ../\xc3\x28/..%s\\x";
	CHECK_STR(stat_(1, 1, bytes), "/r/\x01\xff\n\t ../\xc3\x28/..%s\\x");
	CHECK_STR(stat_(1, 1, "a/\xff/../b"), "/r/a/b");
	/* a capture-cut path is flagged and counted */
	struct riot_rec r = sysrec(RIOT_SYS_stat, 1, 1, 0);
	r.sc.has = RIOT_HAS_PATH;
	r.sc.path.s = "/cut/pa";
	r.sc.path.truncated = true;
	apply(&r);
	CHECK_STR(op.path, "/cut/pa");
	CHECK_EQ(op.flags, MODEL_OP_PATH_TRUNCATED);
	CHECK_EQ(st()->truncated_paths, 1);
	/* an open of a cut path makes a file flagged truncated */
	r = sysrec(RIOT_SYS_open, 1, 1, 3);
	r.sc.has = RIOT_HAS_PATH;
	r.sc.path.s = "/cut/pa";
	r.sc.path.truncated = true;
	apply(&r);
	const struct model_file *f = model_file(m, op.file);
	CHECK(f && f->flags == MODEL_FILE_TRUNCATED);
	/* and a path resolved against it is truncated too */
	openat_(1, 1, 3, "x", O_RDONLY, 4);
	CHECK_STR(op.path, "/cut/pa/x");
	CHECK_EQ(op.flags, MODEL_OP_PATH_TRUNCATED);
	/* a cut cwd is no cwd */
	r = (struct riot_rec){ .type = RIOT_REC_SNAP_PROC };
	r.sproc.pid = 2;
	r.sproc.cwd.s = "/home/us";
	r.sproc.cwd.truncated = true;
	apply(&r);
	CHECK_EQ(op.flags, MODEL_OP_PATH_TRUNCATED);
	CHECK(stat_(2, 2, "x") == NULL);
	CHECK_EQ(op.flags, MODEL_OP_CWD_UNKNOWN);
	CHECK_STR(stat_(2, 2, "/y"), "/y");
	/* a record without its path string */
	r = sysrec(RIOT_SYS_stat, 1, 1, 0);
	r.sc.has = RIOT_HAS_PATH;
	apply(&r);
	CHECK(op.path == NULL);
	CHECK_EQ(op.flags, 0);
	/* a hostile fd number costs nothing */
	open_(1, "/big", O_RDONLY, 2147483647);
	CHECK(rd(1, 2147483647) != 0);
	open_(1, "/neg", O_RDONLY, 5000000000LL);
	CHECK_EQ(apply_errors, 0);
}

static void test_long_paths(void)
{
	enum { N = 3 * MODEL_PATH_MAX };
	char *p = malloc(2 * N), *exp = malloc(MODEL_PATH_MAX);
	if (!p || !exp)
		exit(1);
	fresh();
	snap_proc(1, "/");
	/* 3 x 4096 bytes of "/abcdefg" components */
	for (int i = 0; i < N; i += 8)
		memcpy(p + i, "/abcdefg", 8);
	p[N] = '\0';
	const char *got = stat_(1, 1, p);
	CHECK_EQ(op.flags, MODEL_OP_PATH_TRUNCATED);
	/* 511 whole components fit in 4095 bytes (8 each = 4088) */
	memcpy(exp, p, 4088);
	exp[4088] = '\0';
	CHECK_STR(got, exp);
	CHECK_EQ(strlen(got), 4088);
	CHECK_EQ(st()->truncated_paths, 1);
	/* long on the way, short at the end: not truncated */
	p[N / 2] = '\0';	/* 1.5 x 4096 bytes of components */
	for (int i = 0; i < N / 16; i++)
		strcat(p, "/..");
	strcat(p, "/fine");
	CHECK_STR(stat_(1, 1, p), "/fine");
	CHECK_EQ(op.flags, 0);
	CHECK_EQ(st()->truncated_paths, 1);
	/* one component longer than the limit */
	memset(p, 'x', N);
	p[0] = '/';
	p[N] = '\0';
	CHECK_STR(stat_(1, 1, p), "/");
	CHECK_EQ(op.flags, MODEL_OP_PATH_TRUNCATED);
	/* a deep cwd plus a relative path */
	for (int i = 0; i < 4000; i += 8)
		memcpy(p + i, "/abcdefg", 8);
	p[4000] = '\0';
	chdir_(1, 1, p, 0);
	CHECK_EQ(op.flags, 0);
	CHECK_EQ(strlen(stat_(1, 1, "ok")), 4003);
	CHECK_EQ(op.flags, 0);
	stat_(1, 1, "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz");
	CHECK_EQ(op.flags, MODEL_OP_PATH_TRUNCATED);
	CHECK_EQ(strlen(op.path), 4000);
	/* a huge snapshot target that is not a path is cut, not overrun */
	memset(p, 'p', N);
	p[N] = '\0';
	snap_fd(1, 3, p, 0);
	CHECK_EQ(strlen(op.path), MODEL_PATH_MAX - 1);
	CHECK_EQ(op.flags, MODEL_OP_PATH_TRUNCATED);
	free(p);
	free(exp);
	CHECK_EQ(apply_errors, 0);
}

static void test_pid_reuse(void)
{
	fresh();
	snap_proc(1, "/");
	fork_(1, 1, 2, 2, 0);
	fork_(2, 2, 2, 21, CLONE_PTHREAD);
	open_(2, "/old", O_RDONLY, 3);
	/* pid 2's exits were lost; a new fork reuses it: its threads are gone */
	fork_(1, 1, 2, 2, 0);
	CHECK_U64(rd(2, 3), 0);
	CHECK_U64(fdcall(RIOT_SYS_read, 2, 21, 3, 1), 0);
	CHECK_EQ(st()->live_processes, 2);
	CHECK_EQ(apply_errors, 0);
}

static void test_other_records(void)
{
	fresh();
	struct riot_rec r = { .type = RIOT_REC_DROP };
	r.drop.count = 17;
	apply(&r);
	apply(&r);
	CHECK_EQ(st()->dropped_events, 34);
	r.type = RIOT_REC_STRING;
	apply(&r);
	r.type = 200;			/* a newer log's record */
	apply(&r);
	CHECK(op.rec == &r);
	CHECK_EQ(op.file, 0);
	/* a syscall id this riot does not know */
	struct riot_rec s = sysrec(RIOT_SYS_COUNT + 5, 1, 1, 0);
	s.sc.has = RIOT_HAS_FD | RIOT_HAS_PATH2;
	s.sc.fd = 3;
	s.sc.path2.s = "x";
	apply(&s);
	CHECK_EQ(op.flags, MODEL_OP_FD_UNKNOWN);
	CHECK_STR(op.text, "x");
	CHECK_EQ(st()->unresolved_fd, 1);
	/* no op wanted: state and counters only */
	CHECK_EQ(model_apply(m, &s, NULL), 0);
	CHECK_EQ(st()->unresolved_fd, 2);
	CHECK_EQ(apply_errors, 0);
}

/* Memory stays bounded by live state: many opens and closes. */
static void test_steady_state(void)
{
	fresh();
	snap_proc(1, "/");
	for (int i = 0; i < 100000; i++) {
		open_(1, "/hot", O_RDONLY, 3 + i % 4);
		close_(1, 3 + i % 4, 0);
	}
	CHECK_EQ(st()->files, 100000);
	CHECK_EQ(st()->paths, 2);	/* "/" (the cwd) and "/hot" */
	rd(1, 3);
	CHECK_EQ(st()->live_files, 0);
	for (int i = 0; i < 1000; i++) {
		fork_(1, 1, 1000 + i, 1000 + i, 0);
		exit_(1000 + i, 1000 + i);
	}
	CHECK_EQ(st()->live_processes, 1);
	CHECK_EQ(apply_errors, 0);
}

/* Random records must never crash the model (run under ASan too). */
static void test_random(void)
{
	static const char *paths[] = { "a", "/b", "../c", "", ".", "/", "d/e/..", "\xff" };
	unsigned seed = 12345;
	fresh();
	snap_proc(1, "/");
	for (int i = 0; i < 200000; i++) {
		seed = seed * 1103515245 + 12345;
		unsigned x = seed >> 8;
		uint32_t pid = 1 + x % 5, tid = pid + (x >> 3) % 3;
		struct riot_rec r;
		if (x % 11 == 0) {
			r = (struct riot_rec){ .type = RIOT_REC_PROC };
			r.proc.kind = 1 + (x >> 5) % 3;
			r.proc.pid = pid;
			r.proc.tid = tid;
			r.proc.child_pid = (x >> 9) % 2 ? pid : 1 + (x >> 11) % 5;
			r.proc.child_tid = 1 + (x >> 13) % 9;
			r.proc.clone_flags = (x >> 15) % 2 ? CLONE_PTHREAD : (x >> 16) % 2 ? CLONE_FILES : 0;
			r.proc.path.s = paths[(x >> 17) % 8];
		} else {
			r = sysrec((x >> 4) % RIOT_SYS_COUNT, pid, tid, (int)((x >> 10) % 12) - 2);
			r.sc.has = ~0u;
			r.sc.fd = (int)((x >> 12) % 10) - 1;
			r.sc.fd2 = (int)((x >> 14) % 10);
			r.sc.dirfd = (x >> 16) % 2 ? AT_FDCWD : (int)((x >> 17) % 10);
			r.sc.dirfd2 = AT_FDCWD;
			r.sc.path.s = paths[(x >> 18) % 8];
			r.sc.path2.s = paths[(x >> 21) % 8];
			r.sc.flags = (x >> 20) % 2 ? O_CLOEXEC : 0;
			r.sc.cmd = (x >> 22) % 3;
		}
		apply(&r);
	}
	CHECK(st()->live_files <= st()->files);
	CHECK_EQ(apply_errors, 0);
}

/* Queries answer as the next record would see it, and change nothing. */
static void test_queries(void)
{
	struct model_stats before;

	fresh();
	snap_proc(10, "/srv");
	snap_fd(10, 3, "/srv/db", O_RDWR);
	open_(10, "/srv/log", O_WRONLY, 4);
	before = *st();
	CHECK(model_fd_known(m, 10, 10, 3));
	CHECK(model_fd_known(m, 10, 10, 4));
	CHECK(!model_fd_known(m, 10, 10, 5));
	CHECK(model_fd_known(m, 10, 11, 3));	/* a thread not seen yet */
	CHECK(!model_fd_known(m, 20, 20, 3));	/* a process not seen */
	CHECK(!model_fd_known(m, 10, 10, -1));
	CHECK_STR(model_cwd(m, 10, 11), "/srv");
	CHECK(model_cwd(m, 20, 20) == NULL);
	CHECK_U64(st()->processes, before.processes);
	CHECK_U64(st()->threads, before.threads);
	CHECK_U64(st()->unresolved_fd, before.unresolved_fd);
	CHECK_U64(st()->unknown_cwd, before.unknown_cwd);
	chdir_(10, 10, "data", 0);
	CHECK_STR(model_cwd(m, 10, 10), "/srv/data");
	close_(10, 4, 0);
	CHECK(!model_fd_known(m, 10, 10, 4));
}

/* futimens: utimensat with a NULL path acts on its fd's file. */
static void test_futimens(void)
{
	fresh();
	snap_proc(1, "/cwd");
	uint64_t f = openat_(1, 1, AT_FDCWD, "t.dat", O_WRONLY | O_CREAT, 3);
	struct riot_rec r = sysrec(RIOT_SYS_utimensat, 1, 1, 0);

	r.sc.has = RIOT_HAS_DIRFD | RIOT_HAS_FLAGS;
	r.sc.dirfd = 3;
	apply(&r);
	CHECK_U64(op.file, f);
	CHECK_STR(op.path, "/cwd/t.dat");
	CHECK_EQ(op.flags, 0);
	r.sc.dirfd = 9;	/* an fd the model does not know: counted */
	apply(&r);
	CHECK_U64(op.file, 0);
	CHECK_EQ(op.flags, MODEL_OP_FD_UNKNOWN);
	CHECK_EQ(st()->unresolved_fd_by_sys[RIOT_SYS_utimensat], 1);
	CHECK_EQ(apply_errors, 0);
}

static const char *chmod_path(uint32_t pid, uint32_t tid, const char *path)
{
	struct riot_rec r = sysrec(RIOT_SYS_chmod, pid, tid, 0);

	r.sc.has = RIOT_HAS_PATH | RIOT_HAS_MODE;
	r.sc.path.s = path;
	r.sc.mode = 0755;
	apply(&r);
	return op.path;
}

/* A /proc path naming an fd is the path of the file behind it: glibc's
 * fchmodat fallback chmod("/proc/self/fd/N"). */
static void test_proc_fd_paths(void)
{
	fresh();
	snap_proc(1, "/cwd");
	snap_proc(2, "/other");
	openat_(1, 1, AT_FDCWD, "/data/dir", O_RDONLY | O_DIRECTORY, 3);
	openat_(2, 2, AT_FDCWD, "/elsewhere/f", O_RDONLY, 3);
	fork_(1, 1, 1, 5, CLONE_PTHREAD);
	CHECK_STR(chmod_path(1, 1, "/proc/self/fd/3"), "/data/dir");
	CHECK_STR(chmod_path(1, 5, "/proc/thread-self/fd/3"), "/data/dir");
	CHECK_STR(chmod_path(1, 1, "/proc/1/fd/3"), "/data/dir");
	CHECK_STR(chmod_path(1, 5, "/proc/1/task/5/fd/3/sub/x"), "/data/dir/sub/x");
	CHECK_STR(chmod_path(1, 1, "/proc/2/fd/3"), "/elsewhere/f");	/* another traced pid */
	/* not an fd the model knows, not an fd path, an unknown pid: as they are */
	CHECK_STR(chmod_path(1, 1, "/proc/self/fd/7"), "/proc/self/fd/7");
	CHECK_STR(chmod_path(1, 1, "/proc/self/fdinfo/3"), "/proc/self/fdinfo/3");
	CHECK_STR(chmod_path(1, 1, "/proc/99/fd/3"), "/proc/99/fd/3");
	CHECK_STR(chmod_path(1, 1, "/proc/self/fd/3x"), "/proc/self/fd/3x");
	/* relative to a cwd in /proc */
	struct riot_rec r = sysrec(RIOT_SYS_chdir, 1, 1, 0);
	r.sc.has = RIOT_HAS_PATH;
	r.sc.path.s = "/proc/self";
	apply(&r);
	CHECK_STR(chmod_path(1, 1, "fd/3"), "/data/dir");
	CHECK_EQ(apply_errors, 0);
}

/* What each record let go: model_released() lists the file objects no fd
 * refers to any more after it, for the replay's implicit closes. */
static unsigned released(uint64_t *ids)
{
	const struct model_file *f;
	unsigned n = 0;

	while ((f = model_released(m, n)))
		ids[n++] = f->id;
	return n;
}

static void test_released(void)
{
	uint64_t ids[8];

	fresh();
	snap_proc(1, "/");
	uint64_t a = open_(1, "/a", O_RDONLY, 3);
	uint64_t b = open_(1, "/b", O_RDONLY, 4);
	CHECK_EQ(released(ids), 0);
	dup2_(RIOT_SYS_dup2, 1, 3, 4, 0, 4);	/* b's last fd replaced */
	CHECK_EQ(released(ids), 1);
	CHECK_U64(ids[0], b);
	rd(1, 4);
	CHECK_EQ(released(ids), 0);
	close_(1, 3, 0);	/* a is still at 4 */
	CHECK_EQ(released(ids), 0);
	uint64_t c = open_(1, "/c", O_RDONLY | O_CLOEXEC, 5);
	uint64_t d = open_(1, "/d", O_RDONLY, 6);
	exec_(1, 1, "/bin/x");	/* c: close-on-exec */
	CHECK_EQ(released(ids), 1);
	CHECK_U64(ids[0], c);
	close_range_(1, 6, 6, 0, 0);
	CHECK_EQ(released(ids), 1);
	CHECK_U64(ids[0], d);
	fork_(1, 1, 2, 2, 0);	/* the child holds a copy of fd 4 */
	exit_(1, 1);
	CHECK_EQ(released(ids), 0);
	exit_(2, 2);
	CHECK_EQ(released(ids), 1);
	CHECK_U64(ids[0], a);
	CHECK_EQ(apply_errors, 0);
}

/* A data call on fd: count bytes moved (ret), at off when has_off. */
static void data_(unsigned sys, uint32_t pid, int fd, int64_t ret, bool has_off, uint64_t off)
{
	struct riot_rec r = sysrec(sys, pid, pid, ret);

	r.sc.has = RIOT_HAS_FD | RIOT_HAS_COUNT | (has_off ? RIOT_HAS_OFF : 0);
	r.sc.fd = fd;
	r.sc.count = ret > 0 ? (uint64_t)ret : 10;
	r.sc.off = off;
	apply(&r);
}

/* model_file at and end: the position and size the log implies. */
static void test_position_and_size(void)
{
	const struct model_file *f;
	uint64_t a, l, s;

	fresh();
	snap_proc(7, "/w");
	s = snap_fd(7, 3, "/w/snap", O_RDWR);	/* pos 100, size 4096 */
	a = open_(7, "/w/a", O_RDWR | O_CREAT, 4);	/* sc.size 0 */
	data_(RIOT_SYS_write, 7, 4, 4096, false, 0);
	data_(RIOT_SYS_write, 7, 4, 100, false, 0);
	data_(RIOT_SYS_pread64, 7, 4, 50, true, 10);	/* position stays */
	f = model_file(m, a);
	CHECK(f && f->at == 4196 && f->end == 4196);
	fdcall(RIOT_SYS_lseek, 7, 7, 4, 1000);
	data_(RIOT_SYS_read, 7, 4, 24, false, 0);
	data_(RIOT_SYS_pwrite64, 7, 4, 10, true, 8000);	/* grows, position stays */
	f = model_file(m, a);
	CHECK(f && f->at == 1024 && f->end == 8010);
	data_(RIOT_SYS_preadv2, 7, 4, 6, true, UINT64_MAX);	/* -1: at the position */
	f = model_file(m, a);
	CHECK(f && f->at == 1030);
	{
		struct riot_rec r = sysrec(RIOT_SYS_ftruncate, 7, 7, 0);

		r.sc.has = RIOT_HAS_FD | RIOT_HAS_OFF;
		r.sc.fd = 4;
		r.sc.off = 20;
		apply(&r);
	}
	f = model_file(m, a);
	CHECK(f && f->at == 1030 && f->end == 20);
	/* a dup shares the position */
	dup2_(RIOT_SYS_dup2, 7, 4, 9, 0, 9);
	data_(RIOT_SYS_read, 7, 9, 5, false, 0);
	f = model_file(m, a);
	CHECK(f && f->at == 1035);
	/* O_APPEND writes go to the end and leave the position there */
	l = open_(7, "/w/log", O_WRONLY | O_APPEND, 5);
	f = model_file(m, l);
	CHECK(f && f->at == 0 && f->end == 0);
	data_(RIOT_SYS_write, 7, 5, 30, false, 0);
	data_(RIOT_SYS_write, 7, 5, 30, false, 0);
	f = model_file(m, l);
	CHECK(f && f->at == 60 && f->end == 60);
	/* a snapshot fd starts where the snapshot found it; a failed read
	 * moves nothing */
	data_(RIOT_SYS_read, 7, 3, 8, false, 0);
	data_(RIOT_SYS_read, 7, 3, -5, false, 0);
	f = model_file(m, s);
	CHECK(f && f->at == 108 && f->end == 4096);
	CHECK_EQ(apply_errors, 0);
}

struct walked {
	char text[512];
	size_t len;
};

static int walk_proc(void *ctx, uint32_t pid, const char *cwd)
{
	struct walked *w = ctx;

	w->len += (size_t)snprintf(w->text + w->len, sizeof(w->text) - w->len, "P%u:%s ", pid,
				   cwd ? cwd : "?");
	return 0;
}

static int walk_fd(void *ctx, uint32_t pid, int32_t fd, bool cloexec, const struct model_file *f)
{
	struct walked *w = ctx;

	w->len += (size_t)snprintf(w->text + w->len, sizeof(w->text) - w->len, "%u/%d%s@%llu:%s ",
				   pid, fd, cloexec ? "e" : "", (unsigned long long)f->at,
				   model_path(m, f->path_id) ? model_path(m, f->path_id) : "-");
	return 0;
}

static int walk_stop(void *ctx, uint32_t pid, const char *cwd)
{
	(void)ctx;
	(void)cwd;
	return pid == 8 ? -EINTR : 0;
}

/* model_walk: processes by pid, each with its fds by fd, as they are now. */
static void test_walk(void)
{
	struct walked w = { "", 0 };

	fresh();
	snap_proc(9, "/nine");
	snap_proc(7, "/w");
	snap_fd(9, 3, "/nine/x", O_RDONLY);
	open_(7, "/w/b", O_RDONLY | O_CLOEXEC, 12);
	open_(7, "/w/a", O_RDONLY, 4);
	rd(7, 4);
	fork_(7, 7, 8, 8, 0);		/* a copy of 7's table and cwd */
	close_(8, 12, 0);
	chdir_(8, 8, "/eight", 0);
	CHECK_EQ(model_walk(m, walk_proc, walk_fd, &w), 0);
	CHECK_STR(w.text, "P7:/w 7/4@10:/w/a 7/12e@0:/w/b P8:/eight 8/4@10:/w/a "
			  "P9:/nine 9/3@100:/nine/x ");
	CHECK_EQ(model_walk(m, walk_stop, walk_fd, &w), -EINTR);
	exit_(8, 8);
	w.len = 0;
	w.text[0] = 0;
	CHECK_EQ(model_walk(m, walk_proc, walk_fd, &w), 0);
	CHECK_STR(w.text, "P7:/w 7/4@10:/w/a 7/12e@0:/w/b P9:/nine 9/3@100:/nine/x ");
	CHECK_EQ(apply_errors, 0);
}

/* ---- io_uring requests ---- */

/* An io_uring request of ring ctx on fd (flags: the SQE's); op.file. */
static uint64_t ureq(unsigned sys, uint32_t pid, uint64_t ctx, int fd, uint64_t flags,
		     const char *path, int64_t ret)
{
	struct riot_rec r = sysrec(sys, pid, pid + 1, ret);

	r.sc.has = RIOT_HAS_FD | RIOT_HAS_FLAGS | RIOT_HAS_CTX | (path ? RIOT_HAS_PATH : 0);
	r.sc.fd = fd;
	r.sc.flags = flags;
	r.sc.ctx = ctx;
	r.sc.path.s = path;
	apply(&r);
	return op.file;
}

/* openat through ring ctx: to an fd (slot < 0) or into a direct slot. */
static uint64_t uopen(uint32_t pid, uint64_t ctx, const char *path, int slot, int64_t ret)
{
	struct riot_rec r = sysrec(RIOT_SYS_uring_openat, pid, pid, ret);

	r.sc.has = RIOT_HAS_DIRFD | RIOT_HAS_PATH | RIOT_HAS_FLAGS | RIOT_HAS_CTX |
		   (slot >= 0 ? RIOT_HAS_FD : 0);
	r.sc.dirfd = AT_FDCWD;
	r.sc.path.s = path;
	r.sc.flags = O_RDWR;
	r.sc.ctx = ctx;
	r.sc.fd = slot;
	apply(&r);
	return op.file;
}

static void test_uring(void)
{
	uint64_t a, b, c;

	fresh();
	snap_proc(70, "/w");
	snap_fd(70, 0, "/dev/null", O_RDONLY);
	/* an fd the ring opened serves requests and syscalls */
	a = uopen(70, 1, "a", -1, 5);
	CHECK(a != 0);
	CHECK_U64(ureq(RIOT_SYS_uring_read, 70, 1, 5, 0, NULL, 10), a);
	CHECK_STR(op.path, "/w/a");
	CHECK_U64(rd(70, 5), a);
	/* a direct open fills slot 0 of its ring, not fd 0 */
	b = uopen(70, 1, "/w/b", 0, 0);
	CHECK(b != 0 && b != a);
	CHECK_U64(ureq(RIOT_SYS_uring_write, 70, 1, 0, 1, NULL, 10), b);
	CHECK_STR(op.path, "/w/b");
	CHECK(rd(70, 0) != b);			/* fd 0 is still /dev/null */
	/* slot 0 of another ring is not known */
	CHECK_U64(ureq(RIOT_SYS_uring_write, 70, 2, 0, 1, NULL, 10), 0);
	CHECK_EQ(st()->unresolved_fd, 1);
	/* its path, carried by the request, binds it; the same path keeps
	 * the object */
	c = ureq(RIOT_SYS_uring_write, 70, 2, 0, 1, "/w/c", 10);
	CHECK(c != 0 && c != b);
	CHECK_U64(ureq(RIOT_SYS_uring_read, 70, 2, 0, 1, "/w/c", 10), c);
	CHECK_U64(ureq(RIOT_SYS_uring_read, 70, 2, 0, 1, NULL, 10), c);
	CHECK_U64(ureq(RIOT_SYS_uring_read, 70, 1, 0, 1, "/w/b", 10), b);
	/* a registered fd of the process: the slot holds the fd's own file,
	 * with its open flags */
	{
		uint64_t d = open_(70, "/w/d", O_RDWR | O_DIRECT, 7);
		const struct model_file *f;

		CHECK_U64(ureq(RIOT_SYS_uring_write, 70, 3, 4, 1, "/w/d", 10), d);
		f = model_file(m, d);
		CHECK(f && f->open_flags == (O_RDWR | O_DIRECT));
		close_(70, 7, 0);
		CHECK_U64(ureq(RIOT_SYS_uring_write, 70, 3, 4, 1, NULL, 10), d);
	}
	/* a direct close empties the slot; a plain one closes the fd */
	ureq(RIOT_SYS_uring_close, 70, 1, 0, 1, NULL, 0);
	CHECK_U64(ureq(RIOT_SYS_uring_read, 70, 1, 0, 1, NULL, 10), 0);
	ureq(RIOT_SYS_uring_close, 70, 1, 5, 0, NULL, 0);
	CHECK_U64(rd(70, 5), 0);
	CHECK_EQ(st()->unresolved_fd, 3);
	/* an AIO request's flags are no SQE flags */
	CHECK_U64(ureq(RIOT_SYS_aio_pread, 70, 1, 0, 1, NULL, 10), rd(70, 0));
	CHECK_EQ(apply_errors, 0);
}

int main(void)
{
	test_position_and_size();
	test_walk();
	test_normalise();
	test_same_fd_two_processes();
	test_snapshot_fds();
	test_found_fds();
	test_tables_only();
	test_threads_share();
	test_fork_copies();
	test_clone_files_and_fs();
	test_exec_cloexec();
	test_exec_unshares_and_ends_threads();
	test_exit_closes();
	test_dup_family();
	test_released();
	test_close_range();
	test_fd_reuse();
	test_close_overlaps_reuse();
	test_chdir_fchdir();
	test_at_paths();
	test_futimens();
	test_proc_fd_paths();
	test_path2_roles();
	test_copy_fd2();
	test_failed_changes_nothing();
	test_queries();
	test_unknown_fd_counted();
	test_unknown_cwd();
	test_hostile_paths();
	test_long_paths();
	test_pid_reuse();
	test_other_records();
	test_steady_state();
	test_uring();
	test_random();
	model_free(m);
	return unit_done();
}
