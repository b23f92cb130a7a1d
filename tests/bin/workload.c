/* tests/bin/workload.c: a deterministic file I/O workload for the capture
 * integration tests.
 *
 *   workload --dir DIR [--no-wait] [--exit N] SCENARIO...
 *
 * `all` runs every scenario but heavy and replayops.
 *
 * Before the go signal it prepares everything the scenarios need (files
 * with fixed sizes, path strings, thread stacks), makes its fd table exactly
 * {0, 1, 2, 3} where fd 3 is DIR/prefd.dat (5000 bytes, O_RDWR, position
 * 1000: the "fd opened before the capture"), changes into DIR, prints
 * "PID ready" on stdout and blocks SIGUSR1 in sigwaitinfo() until the test
 * sends it. From then on it issues the scenarios' syscalls and nothing
 * else that syscalls.def lists: no stdio, raw syscall() where glibc would
 * pick a different syscall, and it ends with exit_group. Every scenario
 * closes what it opens, so each starts with fd 4 as the lowest free fd,
 * whether run alone or within `all`.
 *
 * With --no-wait (for `riot capture -- CMD`) it neither prints nor waits.
 *
 * Each call's result is checked against what the kernel must return; the
 * tests compare the capture to the same numbers. On any mismatch the
 * workload writes the list to stderr and exits 1, so a test can tell a
 * workload problem from a capture problem. Otherwise it exits with --exit
 * (default 0).
 *
 * Directory entry sizes, xattr list lengths and F_GETFL values below are
 * what the VFS computes on Linux x86_64 and arm64 for the names used
 * here; DIR must be on a filesystem with user xattrs (ext4, xfs, btrfs;
 * not tmpfs before 6.6 without the option).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/falloc.h>
#include <linux/futex.h>
#include <linux/io_uring.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452	/* Linux 6.6 */
#endif
/* O_LARGEFILE as the kernel sets it on every file of a 64-bit process
 * (F_GETFL shows it); libc's is 0 there. */
#if defined(__aarch64__)
#define KERNEL_O_LARGEFILE 0400000
#else
#define KERNEL_O_LARGEFILE 0100000
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* A raw syscall whose failure reads as -errno, as the capture records it. */
#define SC(...) ({ long _r = syscall(__VA_ARGS__); _r == -1 ? -(long)errno : _r; })

/* The legacy calls, which the generic syscall table of arm64 and newer
 * architectures lacks (<sys/syscall.h> has no SYS_open there). Without
 * them the workload makes the call that does the same, an *at call or
 * clone: the scenarios then run as on x86_64 and check the same results,
 * but a capture records that call (openat where x86_64 records open), so
 * its counts differ from x86_64's, which the capture tests expect. */
#ifdef SYS_open
#define SC_open(path, flags, mode) SC(SYS_open, path, flags, mode)
#define SC_creat(path, mode) SC(SYS_creat, path, mode)
#define SC_stat(path, st) SC(SYS_stat, path, st)
#define SC_lstat(path, st) SC(SYS_lstat, path, st)
#define SC_access(path, mode) SC(SYS_access, path, mode)
#define SC_getdents(fd, b, n) SC(SYS_getdents, fd, b, n)
#define SC_mkdir(path, mode) SC(SYS_mkdir, path, mode)
#define SC_rmdir(path) SC(SYS_rmdir, path)
#define SC_unlink(path) SC(SYS_unlink, path)
#define SC_rename(from, to) SC(SYS_rename, from, to)
#define SC_link(from, to) SC(SYS_link, from, to)
#define SC_symlink(target, path) SC(SYS_symlink, target, path)
#define SC_readlink(path, b, n) SC(SYS_readlink, path, b, n)
#define SC_mknod(path, mode, dev) SC(SYS_mknod, path, mode, dev)
#define SC_chmod(path, mode) SC(SYS_chmod, path, mode)
#define SC_chown(path, uid, gid) SC(SYS_chown, path, uid, gid)
#define SC_lchown(path, uid, gid) SC(SYS_lchown, path, uid, gid)
#define SC_utime(path, t) SC(SYS_utime, path, t)
#define SC_utimes(path, t) SC(SYS_utimes, path, t)
#define SC_futimesat(dfd, path, t) SC(SYS_futimesat, dfd, path, t)
#define SC_dup2(fd, fd2) SC(SYS_dup2, fd, fd2)
#define SC_fork() SC(SYS_fork)
#else
#define SC_open(path, flags, mode) SC(SYS_openat, AT_FDCWD, path, flags, mode)
#define SC_creat(path, mode) SC(SYS_openat, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode)
#define SC_stat(path, st) SC(SYS_newfstatat, AT_FDCWD, path, st, 0)
#define SC_lstat(path, st) SC(SYS_newfstatat, AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW)
#define SC_access(path, mode) SC(SYS_faccessat, AT_FDCWD, path, mode)
/* linux_dirent64 records of these names are as long as linux_dirent's */
#define SC_getdents(fd, b, n) SC(SYS_getdents64, fd, b, n)
#define SC_mkdir(path, mode) SC(SYS_mkdirat, AT_FDCWD, path, mode)
#define SC_rmdir(path) SC(SYS_unlinkat, AT_FDCWD, path, AT_REMOVEDIR)
#define SC_unlink(path) SC(SYS_unlinkat, AT_FDCWD, path, 0)
#define SC_rename(from, to) SC(SYS_renameat, AT_FDCWD, from, AT_FDCWD, to)
#define SC_link(from, to) SC(SYS_linkat, AT_FDCWD, from, AT_FDCWD, to, 0)
#define SC_symlink(target, path) SC(SYS_symlinkat, target, AT_FDCWD, path)
#define SC_readlink(path, b, n) SC(SYS_readlinkat, AT_FDCWD, path, b, n)
#define SC_mknod(path, mode, dev) SC(SYS_mknodat, AT_FDCWD, path, mode, dev)
#define SC_chmod(path, mode) SC(SYS_fchmodat, AT_FDCWD, path, mode)
#define SC_chown(path, uid, gid) SC(SYS_fchownat, AT_FDCWD, path, uid, gid, 0)
#define SC_lchown(path, uid, gid) SC(SYS_fchownat, AT_FDCWD, path, uid, gid, AT_SYMLINK_NOFOLLOW)
/* NULL times: now, for all three */
#define SC_utime(path, t) SC(SYS_utimensat, AT_FDCWD, path, t, 0)
#define SC_utimes(path, t) SC(SYS_utimensat, AT_FDCWD, path, t, 0)
#define SC_futimesat(dfd, path, t) SC(SYS_utimensat, dfd, path, t, 0)
/* dup3 refuses fd == fd2, which dup2 takes; the fds here differ */
#define SC_dup2(fd, fd2) SC(SYS_dup3, fd, fd2, 0)
#define SC_fork() SC(SYS_clone, SIGCHLD, 0, NULL, NULL, 0)
#endif

static const char *dir;
static char buf[65536];
static char rbuf[65536];

/* ---- result checking: nothing is printed until the end ---- */

static char fail_log[8192];
static size_t fail_len;
static int fail_count;

static void fail_add(const char *s)
{
	size_t n = strlen(s);
	if (fail_len + n + 1 < sizeof(fail_log)) {
		memcpy(fail_log + fail_len, s, n);
		fail_len += n;
	}
}

static void fail_num(long v)
{
	char tmp[24];
	int i = sizeof(tmp) - 1;
	unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;
	tmp[i] = 0;
	do {
		tmp[--i] = '0' + u % 10;
		u /= 10;
	} while (u);
	if (v < 0)
		tmp[--i] = '-';
	fail_add(tmp + i);
}

/* Records a mismatch without any syscall, so the trace stays exact. */
static long want(const char *what, long got, long expect)
{
	if (got != expect) {
		fail_count++;
		fail_add("workload: ");
		fail_add(what);
		fail_add(": got ");
		fail_num(got);
		fail_add(", want ");
		fail_num(expect);
		fail_add("\n");
	}
	return got;
}

static void want_true(const char *what, int ok)
{
	if (!ok)
		want(what, 0, 1);
}

/* ---- paths: built without libc I/O ---- */

static char pathbufs[8][4096];
static unsigned pathnext;

/* DIR/name in one of 8 rotating buffers. */
static const char *P(const char *name)
{
	char *p = pathbufs[pathnext++ % 8];
	size_t dl = strlen(dir), nl = strlen(name);
	if (dl + nl + 2 > sizeof(pathbufs[0]))
		abort();
	memcpy(p, dir, dl);
	p[dl] = '/';
	memcpy(p + dl + 1, name, nl + 1);
	return p;
}

/* ---- setup (before the go signal; libc is fine here) ---- */

static void die(const char *what)
{
	fprintf(stderr, "workload: setup: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void mkfile(const char *name, size_t size)
{
	int fd = open(P(name), O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0)
		die(name);
	while (size) {
		size_t n = size < sizeof(buf) ? size : sizeof(buf);
		if (write(fd, buf, n) != (ssize_t)n)
			die(name);
		size -= n;
	}
	close(fd);
}

static void mkdirp(const char *name)
{
	if (mkdir(P(name), 0755) && errno != EEXIST)
		die(name);
}

static void mksym(const char *target, const char *name)
{
	unlink(P(name));
	if (symlink(target, P(name)))
		die(name);
}

/* ---- scenarios ---- */

static void setup_rw(void)
{
	unlink(P("rw.dat"));
}

static void run_rw(void)
{
	want("rw openat", SC(SYS_openat, AT_FDCWD, P("rw.dat"), O_CREAT | O_RDWR | O_TRUNC, 0644), 4);
	want("rw write 1", SC(SYS_write, 4, buf, 4096), 4096);
	want("rw write 2", SC(SYS_write, 4, buf, 4096), 4096);
	want("rw write 3", SC(SYS_write, 4, buf, 100), 100);
	want("rw close", SC(SYS_close, 4), 0);
	want("rw openat 2", SC(SYS_openat, AT_FDCWD, P("rw.dat"), O_RDONLY, 0), 4);
	want("rw read 1", SC(SYS_read, 4, rbuf, 8192), 8192);
	want("rw read 2", SC(SYS_read, 4, rbuf, 8192), 100);
	want("rw read 3", SC(SYS_read, 4, rbuf, 8192), 0);
	want("rw close 2", SC(SYS_close, 4), 0);
}

static void setup_pread(void)
{
	mkfile("pread.dat", 65536);
}

static void run_pread(void)
{
	want("pread openat", SC(SYS_openat, AT_FDCWD, P("pread.dat"), O_RDWR, 0), 4);
	want("pread64 mid", SC(SYS_pread64, 4, rbuf, 4096, 8192), 4096);
	want("pread64 tail", SC(SYS_pread64, 4, rbuf, 4096, 65536 - 1000), 1000);
	want("pread64 eof", SC(SYS_pread64, 4, rbuf, 4096, 70000), 0);
	want("pwrite64", SC(SYS_pwrite64, 4, buf, 512, 100000), 512);
	want("pread close", SC(SYS_close, 4), 0);
}

static void setup_vector(void)
{
	unlink(P("vec.dat"));
}

static void run_vector(void)
{
	struct iovec w3[3] = { { buf, 100 }, { buf, 200 }, { buf, 300 } };
	struct iovec w2[2] = { { buf, 512 }, { buf, 512 } };
	struct iovec w1[1] = { { buf, 1000 } };
	struct iovec r2[2] = { { rbuf, 4096 }, { rbuf + 4096, 4096 } };
	struct iovec r2b[2] = { { rbuf, 1000 }, { rbuf + 1000, 1000 } };
	struct iovec r3[3] = { { rbuf, 100 }, { rbuf, 200 }, { rbuf, 300 } };

	want("vector openat", SC(SYS_openat, AT_FDCWD, P("vec.dat"), O_CREAT | O_RDWR | O_TRUNC, 0600), 4);
	want("writev", SC(SYS_writev, 4, w3, 3), 600);
	/* x86_64 passes the whole offset in pos_l; pos_h is 0. */
	want("pwritev", SC(SYS_pwritev, 4, w2, 2, 4096, 0), 1024);
	want("pwritev2", SC(SYS_pwritev2, 4, w1, 1, 8192, 0, RWF_DSYNC), 1000);
	want("preadv", SC(SYS_preadv, 4, r2, 2, 0, 0), 8192);
	want("preadv2", SC(SYS_preadv2, 4, r2b, 2, 8192, 0, RWF_HIPRI), 1000);
	want("readv", SC(SYS_readv, 4, r3, 3), 600);
	want("vector close", SC(SYS_close, 4), 0);
}

static void setup_open(void)
{
	unlink(P("open1.dat"));
	unlink(P("open2.dat"));
	unlink(P("open3.dat"));
}

static void run_open(void)
{
	struct open_how how = {
		.flags = O_CREAT | O_RDWR, .mode = 0600, .resolve = RESOLVE_NO_SYMLINKS,
	};

	want("open creat", SC_open(P("open1.dat"), O_CREAT | O_WRONLY | O_EXCL, 0640), 4);
	want("open write", SC(SYS_write, 4, buf, 10), 10);
	want("open close", SC(SYS_close, 4), 0);
	want("openat existing", SC(SYS_openat, AT_FDCWD, P("open1.dat"), O_RDONLY, 0), 4);
	want("openat close", SC(SYS_close, 4), 0);
	want("openat2", SC(SYS_openat2, AT_FDCWD, P("open2.dat"), &how, sizeof(how)), 4);
	want("openat2 close", SC(SYS_close, 4), 0);
	want("creat", SC_creat(P("open3.dat"), 0644), 4);
	want("creat close", SC(SYS_close, 4), 0);
}

static void setup_stat(void)
{
	mkfile("st.dat", 1234);
	mksym("st.dat", "st.lnk");
}

static void run_stat(void)
{
	struct stat st;
	struct statx stx;

	want("stat", SC_stat(P("st.dat"), &st), 0);
	want("stat size", st.st_size, 1234);
	want("lstat", SC_lstat(P("st.lnk"), &st), 0);
	want("lstat size", st.st_size, 6);
	want("stat openat", SC(SYS_openat, AT_FDCWD, P("st.dat"), O_RDONLY, 0), 4);
	want("fstat", SC(SYS_fstat, 4, &st), 0);
	want("stat close", SC(SYS_close, 4), 0);
	want("newfstatat follow", SC(SYS_newfstatat, AT_FDCWD, P("st.lnk"), &st, 0), 0);
	want("newfstatat follow size", st.st_size, 1234);
	want("newfstatat nofollow", SC(SYS_newfstatat, AT_FDCWD, P("st.lnk"), &st, AT_SYMLINK_NOFOLLOW), 0);
	want("newfstatat nofollow type", st.st_mode & S_IFMT, S_IFLNK);
	want("statx", SC(SYS_statx, AT_FDCWD, P("st.dat"), 0, STATX_BASIC_STATS, &stx), 0);
	want("statx size", stx.stx_size, 1234);
	want("access", SC_access(P("st.dat"), R_OK), 0);
	want("faccessat", SC(SYS_faccessat, AT_FDCWD, P("st.dat"), W_OK), 0);
	want("faccessat2", SC(SYS_faccessat2, AT_FDCWD, P("st.lnk"), F_OK, AT_SYMLINK_NOFOLLOW), 0);
}

static void setup_dir(void)
{
	mkdirp("d");
	mkfile("d/a", 0);
	mkfile("d/b", 0);
	mkfile("d/c", 0);
}

/* ".", "..", "a", "b", "c": 24-byte records in both dirent layouts. */
static void run_dir(void)
{
	want("dir openat", SC(SYS_openat, AT_FDCWD, P("d"), O_RDONLY | O_DIRECTORY, 0), 4);
	want("getdents64", SC(SYS_getdents64, 4, rbuf, 32768), 120);
	want("getdents64 end", SC(SYS_getdents64, 4, rbuf, 32768), 0);
	want("dir close", SC(SYS_close, 4), 0);
	want("dir openat 2", SC(SYS_openat, AT_FDCWD, P("d"), O_RDONLY | O_DIRECTORY, 0), 4);
	want("getdents", SC_getdents(4, rbuf, 32768), 120);
	want("getdents end", SC_getdents(4, rbuf, 32768), 0);
	want("dir close 2", SC(SYS_close, 4), 0);
}

static void setup_ns(void)
{
}

static void run_ns(void)
{
	want("mkdir", SC_mkdir(P("ns"), 0755), 0);
	want("mkdirat", SC(SYS_mkdirat, AT_FDCWD, P("ns/sub"), 0700), 0);
	want("ns open", SC_open(P("ns/f1"), O_CREAT | O_WRONLY, 0644), 4);
	want("ns close", SC(SYS_close, 4), 0);
	want("rename", SC_rename(P("ns/f1"), P("ns/f2")), 0);
	want("renameat", SC(SYS_renameat, AT_FDCWD, P("ns/f2"), AT_FDCWD, P("ns/sub/f3")), 0);
	want("renameat2", SC(SYS_renameat2, AT_FDCWD, P("ns/sub/f3"), AT_FDCWD, P("ns/f4"), RENAME_NOREPLACE), 0);
	want("link", SC_link(P("ns/f4"), P("ns/h1")), 0);
	want("linkat", SC(SYS_linkat, AT_FDCWD, P("ns/f4"), AT_FDCWD, P("ns/h2"), 0), 0);
	want("symlink", SC_symlink("f4", P("ns/s1")), 0);
	want("symlinkat", SC(SYS_symlinkat, "/nonexistent/target", AT_FDCWD, P("ns/s2")), 0);
	want("readlink", SC_readlink(P("ns/s1"), rbuf, 256), 2);
	want("readlinkat", SC(SYS_readlinkat, AT_FDCWD, P("ns/s2"), rbuf, 256), 19);
	want("mknod", SC_mknod(P("ns/fifo"), S_IFIFO | 0644, 0), 0);
	want("mknodat", SC(SYS_mknodat, AT_FDCWD, P("ns/fifo2"), S_IFIFO | 0600, 0), 0);
	want("unlink h1", SC_unlink(P("ns/h1")), 0);
	want("unlink h2", SC_unlink(P("ns/h2")), 0);
	want("unlink s1", SC_unlink(P("ns/s1")), 0);
	want("unlink s2", SC_unlink(P("ns/s2")), 0);
	want("unlink fifo", SC_unlink(P("ns/fifo")), 0);
	want("unlinkat fifo2", SC(SYS_unlinkat, AT_FDCWD, P("ns/fifo2"), 0), 0);
	want("unlinkat f4", SC(SYS_unlinkat, AT_FDCWD, P("ns/f4"), 0), 0);
	want("rmdir", SC_rmdir(P("ns/sub")), 0);
	want("unlinkat dir", SC(SYS_unlinkat, AT_FDCWD, P("ns"), AT_REMOVEDIR), 0);
}

static void setup_trunc(void)
{
	mkfile("tr.dat", 10000);
}

static void run_trunc(void)
{
	want("truncate", SC(SYS_truncate, P("tr.dat"), 5000), 0);
	want("trunc openat", SC(SYS_openat, AT_FDCWD, P("tr.dat"), O_RDWR, 0), 4);
	want("ftruncate", SC(SYS_ftruncate, 4, 20000), 0);
	want("fallocate", SC(SYS_fallocate, 4, 0, 0, 65536), 0);
	want("fallocate keep", SC(SYS_fallocate, 4, FALLOC_FL_KEEP_SIZE, 65536, 4096), 0);
	want("fallocate punch", SC(SYS_fallocate, 4, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096), 0);
	want("trunc close", SC(SYS_close, 4), 0);
}

static void setup_sync(void)
{
	unlink(P("sy.dat"));
}

static void run_sync(void)
{
	want("sync openat", SC(SYS_openat, AT_FDCWD, P("sy.dat"), O_CREAT | O_RDWR | O_TRUNC, 0644), 4);
	want("sync write", SC(SYS_write, 4, buf, 4096), 4096);
	want("fsync", SC(SYS_fsync, 4), 0);
	want("fdatasync", SC(SYS_fdatasync, 4), 0);
	want("sync_file_range", SC(SYS_sync_file_range, 4, 0, 4096, SYNC_FILE_RANGE_WRITE), 0);
	want("syncfs", SC(SYS_syncfs, 4), 0);
	want("sync", SC(SYS_sync), 0);
	want("sync close", SC(SYS_close, 4), 0);
}

static int pipefd[2];

static void setup_copy(void)
{
	mkfile("cp.src", 10000);
	unlink(P("cp.dst"));
}

static void run_copy(void)
{
	loff_t in_off = 1000, out_off = 0, sf_off = 5000, sp_in = 0, sp_out = 20000;

	want("copy openat src", SC(SYS_openat, AT_FDCWD, P("cp.src"), O_RDONLY, 0), 4);
	want("copy openat dst", SC(SYS_openat, AT_FDCWD, P("cp.dst"), O_CREAT | O_WRONLY | O_TRUNC, 0644), 5);
	want("copy_file_range offs", SC(SYS_copy_file_range, 4, &in_off, 5, &out_off, 4096, 0), 4096);
	want("copy_file_range pos", SC(SYS_copy_file_range, 4, NULL, 5, NULL, 3000, 0), 3000);
	want("sendfile off", SC(SYS_sendfile, 5, 4, &sf_off, 2000), 2000);
	want("sendfile pos", SC(SYS_sendfile, 5, 4, NULL, 1000), 1000);
	/* pipe2 is not in the table: fds 6 (read end) and 7 appear unresolved. */
	want("pipe2", SC(SYS_pipe2, pipefd, 0), 0);
	want("pipe fds", pipefd[0] * 10 + pipefd[1], 67);
	want("splice file->pipe", SC(SYS_splice, 4, &sp_in, 7, NULL, 4096, 0), 4096);
	want("splice pipe->file", SC(SYS_splice, 6, NULL, 5, &sp_out, 4096, 0), 4096);
	want("copy close 7", SC(SYS_close, 7), 0);
	want("copy close 6", SC(SYS_close, 6), 0);
	want("copy close 5", SC(SYS_close, 5), 0);
	want("copy close 4", SC(SYS_close, 4), 0);
}

/* fchmodat2 came with Linux 6.6: what the kernel must answer is ENOSYS
 * before it. Probed before the go signal (an invalid flag: EINVAL where
 * it exists). */
static long fchmodat2_ok;

static void setup_attr(void)
{
	mkfile("at.dat", 100);
	mksym("at.dat", "at.lnk");
	fchmodat2_ok = SC(SYS_fchmodat2, AT_FDCWD, "", 0, ~0) != -ENOSYS;
}

static void run_attr(void)
{
	struct timespec ts[2] = { { 1000000000, 0 }, { 1000000000, 500 } };

	want("chmod", SC_chmod(P("at.dat"), 0600), 0);
	want("attr openat", SC(SYS_openat, AT_FDCWD, P("at.dat"), O_RDONLY, 0), 4);
	want("fchmod", SC(SYS_fchmod, 4, 0640), 0);
	want("fchmodat", SC(SYS_fchmodat, AT_FDCWD, P("at.dat"), 0644), 0);
	want("fchmodat2", SC(SYS_fchmodat2, AT_FDCWD, P("at.dat"), 0604, 0),
	     fchmodat2_ok ? 0 : -ENOSYS);
	want("fchmodat2 symlink", SC(SYS_fchmodat2, AT_FDCWD, P("at.lnk"), 0600, AT_SYMLINK_NOFOLLOW),
	     fchmodat2_ok ? -EOPNOTSUPP : -ENOSYS);
	want("chown", SC_chown(P("at.dat"), 1000, 1000), 0);
	want("fchown", SC(SYS_fchown, 4, 0, 0), 0);
	want("lchown", SC_lchown(P("at.lnk"), 1001, 1001), 0);
	want("fchownat", SC(SYS_fchownat, AT_FDCWD, P("at.dat"), -1, 1002, 0), 0);
	want("utimensat", SC(SYS_utimensat, AT_FDCWD, P("at.dat"), ts, 0), 0);
	want("utimensat nofollow", SC(SYS_utimensat, AT_FDCWD, P("at.lnk"), NULL, AT_SYMLINK_NOFOLLOW), 0);
	want("attr close", SC(SYS_close, 4), 0);
}

static void setup_xattr(void)
{
	mkfile("xa.dat", 10);
	mksym("xa.dat", "xa.lnk");
}

/* "user.riot\0user.l\0user.f\0" is 24 bytes. User xattrs are refused on
 * symlinks: EPERM to set, ENODATA to get. */
static void run_xattr(void)
{
	want("setxattr", SC(SYS_setxattr, P("xa.dat"), "user.riot", "value1", 6, 0), 0);
	want("lsetxattr", SC(SYS_lsetxattr, P("xa.dat"), "user.l", "v", 1, XATTR_CREATE), 0);
	want("lsetxattr symlink", SC(SYS_lsetxattr, P("xa.lnk"), "user.l", "v", 1, 0), -EPERM);
	want("xattr openat", SC(SYS_openat, AT_FDCWD, P("xa.dat"), O_RDWR, 0), 4);
	want("fsetxattr", SC(SYS_fsetxattr, 4, "user.f", "abc", 3, 0), 0);
	want("getxattr", SC(SYS_getxattr, P("xa.dat"), "user.riot", rbuf, 64), 6);
	want("getxattr missing", SC(SYS_getxattr, P("xa.dat"), "user.none", rbuf, 64), -ENODATA);
	want("lgetxattr", SC(SYS_lgetxattr, P("xa.dat"), "user.l", rbuf, 64), 1);
	want("fgetxattr", SC(SYS_fgetxattr, 4, "user.f", rbuf, 64), 3);
	want("listxattr", SC(SYS_listxattr, P("xa.dat"), rbuf, 256), 24);
	want("llistxattr symlink", SC(SYS_llistxattr, P("xa.lnk"), rbuf, 256), 0);
	want("flistxattr", SC(SYS_flistxattr, 4, rbuf, 256), 24);
	want("removexattr", SC(SYS_removexattr, P("xa.dat"), "user.riot"), 0);
	want("lremovexattr", SC(SYS_lremovexattr, P("xa.dat"), "user.l"), 0);
	want("fremovexattr", SC(SYS_fremovexattr, 4, "user.f"), 0);
	want("fremovexattr again", SC(SYS_fremovexattr, 4, "user.f"), -ENODATA);
	want("xattr close", SC(SYS_close, 4), 0);
}

static void setup_fdops(void)
{
	mkfile("fd.dat", 8192);
}

static void run_fdops(void)
{
	want("fdops openat", SC(SYS_openat, AT_FDCWD, P("fd.dat"), O_RDWR, 0), 4);
	want("dup", SC(SYS_dup, 4), 5);
	want("dup2", SC_dup2(4, 10), 10);
	want("dup3", SC(SYS_dup3, 4, 11, O_CLOEXEC), 11);
	want("F_DUPFD", SC(SYS_fcntl, 4, F_DUPFD, 20), 20);
	want("F_DUPFD_CLOEXEC", SC(SYS_fcntl, 4, F_DUPFD_CLOEXEC, 30), 30);
	/* The kernel adds O_LARGEFILE on 64-bit. */
	want("F_GETFL", SC(SYS_fcntl, 4, F_GETFL, 0), O_RDWR | KERNEL_O_LARGEFILE);
	want("F_SETFL", SC(SYS_fcntl, 4, F_SETFL, O_APPEND | O_NONBLOCK), 0);
	want("lseek set", SC(SYS_lseek, 4, 100, SEEK_SET), 100);
	want("lseek cur (shared description)", SC(SYS_lseek, 5, 50, SEEK_CUR), 150);
	want("lseek end", SC(SYS_lseek, 10, 0, SEEK_END), 8192);
	want("lseek set 8000", SC(SYS_lseek, 11, 8000, SEEK_SET), 8000);
	want("read via dup3 fd", SC(SYS_read, 11, rbuf, 500), 192);
	want("append via F_DUPFD_CLOEXEC fd", SC(SYS_write, 30, buf, 10), 10);
	want("fadvise64", SC(SYS_fadvise64, 4, 0, 4096, POSIX_FADV_SEQUENTIAL), 0);
	want("close_range", SC(SYS_close_range, 10, 11, 0), 0);
	want("close_range cloexec", SC(SYS_close_range, 20, 30, CLOSE_RANGE_CLOEXEC), 0);
	want("read closed fd", SC(SYS_read, 10, rbuf, 1), -EBADF);
	want("fdops close 5", SC(SYS_close, 5), 0);
	want("fdops close 4", SC(SYS_close, 4), 0);
	want("fdops close 20", SC(SYS_close, 20), 0);
	want("fdops close 30", SC(SYS_close, 30), 0);
}

static void setup_cwd(void)
{
	mkdirp("cw");
	mkdirp("cw/sub");
	mkfile("cw/sub/f.dat", 300);
}

/* Starts in DIR (the captured start cwd) and ends there. */
static void run_cwd(void)
{
	struct stat st;

	want("cwd access relative to start cwd", SC_access("cw/sub/f.dat", F_OK), 0);
	want("chdir relative", SC(SYS_chdir, "cw"), 0);
	want("cwd open relative", SC_open("sub/f.dat", O_RDONLY, 0), 4);
	want("cwd read", SC(SYS_read, 4, rbuf, 1000), 300);
	want("cwd close", SC(SYS_close, 4), 0);
	want("cwd openat dir", SC(SYS_openat, AT_FDCWD, "sub", O_RDONLY | O_DIRECTORY, 0), 4);
	want("fchdir", SC(SYS_fchdir, 4), 0);
	want("cwd close dir", SC(SYS_close, 4), 0);
	want("cwd stat", SC_stat("f.dat", &st), 0);
	want("cwd stat dotdot", SC_stat("../sub/./f.dat", &st), 0);
	want("cwd mkdir", SC_mkdir("new", 0755), 0);
	want("cwd rename", SC_rename("new", "../new2"), 0);
	want("chdir dotdot", SC(SYS_chdir, ".."), 0);
	want("cwd rmdir", SC_rmdir("new2"), 0);
	want("chdir back", SC(SYS_chdir, dir), 0);
}

static void setup_dirfd(void)
{
	mkdirp("df");
	mkfile("df/in.dat", 777);
}

static void run_dirfd(void)
{
	struct stat st;
	struct statx stx;

	want("dirfd openat dir", SC(SYS_openat, AT_FDCWD, P("df"), O_RDONLY | O_DIRECTORY, 0), 4);
	want("dirfd openat", SC(SYS_openat, 4, "in.dat", O_RDONLY, 0), 5);
	want("dirfd read", SC(SYS_read, 5, rbuf, 1000), 777);
	want("dirfd close 5", SC(SYS_close, 5), 0);
	want("dirfd newfstatat", SC(SYS_newfstatat, 4, "in.dat", &st, 0), 0);
	want("dirfd newfstatat empty", SC(SYS_newfstatat, 4, "", &st, AT_EMPTY_PATH), 0);
	want("dirfd mkdirat", SC(SYS_mkdirat, 4, "sub", 0755), 0);
	want("dirfd openat dotdot", SC(SYS_openat, 4, "sub/../out.dat", O_CREAT | O_WRONLY, 0644), 5);
	want("dirfd write", SC(SYS_write, 5, buf, 33), 33);
	want("dirfd close 5b", SC(SYS_close, 5), 0);
	want("dirfd renameat", SC(SYS_renameat, 4, "out.dat", 4, "sub/out2.dat"), 0);
	want("dirfd linkat", SC(SYS_linkat, 4, "in.dat", 4, "sub/in.lnk", 0), 0);
	want("dirfd symlinkat", SC(SYS_symlinkat, "in.dat", 4, "sym"), 0);
	want("dirfd readlinkat", SC(SYS_readlinkat, 4, "sym", rbuf, 64), 6);
	want("dirfd fchmodat", SC(SYS_fchmodat, 4, "in.dat", 0600), 0);
	want("dirfd fchownat", SC(SYS_fchownat, 4, "in.dat", 0, 0, 0), 0);
	want("dirfd faccessat", SC(SYS_faccessat, 4, "in.dat", R_OK), 0);
	want("dirfd utimensat", SC(SYS_utimensat, 4, "in.dat", NULL, 0), 0);
	want("dirfd statx", SC(SYS_statx, 4, "in.dat", 0, STATX_SIZE, &stx), 0);
	want("dirfd unlinkat sym", SC(SYS_unlinkat, 4, "sym", 0), 0);
	want("dirfd unlinkat lnk", SC(SYS_unlinkat, 4, "sub/in.lnk", 0), 0);
	want("dirfd unlinkat out2", SC(SYS_unlinkat, 4, "sub/out2.dat", 0), 0);
	want("dirfd unlinkat sub", SC(SYS_unlinkat, 4, "sub", AT_REMOVEDIR), 0);
	want("dirfd close 4", SC(SYS_close, 4), 0);
}

static void setup_mmap(void)
{
	mkfile("mm.dat", 16384);
}

static void run_mmap(void)
{
	long p;

	want("mmap openat", SC(SYS_openat, AT_FDCWD, P("mm.dat"), O_RDWR, 0), 4);
	p = SC(SYS_mmap, 0, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, 4, 4096);
	want_true("mmap", p > 0);
	if (p > 0) {
		((char *)p)[0] = 'x';
		want("msync", SC(SYS_msync, p, 8192, MS_SYNC), 0);
		want("munmap", SC(SYS_munmap, p, 8192), 0);
	}
	want("mmap close", SC(SYS_close, 4), 0);
}

static void setup_uring(void)
{
	unlink(P("ur.dat"));
}

/* io_uring_setup makes the ring, fd 4; mmaps and io_uring_enter use it. */
static void run_uring(void)
{
	struct io_uring_params prm;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	size_t sq_sz, cq_sz, ring_sz;
	long ring, sqe_map;
	int rfd, i;

	memset(&prm, 0, sizeof(prm));
	rfd = want("io_uring_setup", SC(SYS_io_uring_setup, 4, &prm), 4);
	want("io_uring single mmap", !!(prm.features & IORING_FEAT_SINGLE_MMAP), 1);
	want("uring openat", SC(SYS_openat, AT_FDCWD, P("ur.dat"), O_CREAT | O_RDWR | O_TRUNC, 0644), 5);
	sq_sz = prm.sq_off.array + prm.sq_entries * sizeof(unsigned);
	cq_sz = prm.cq_off.cqes + prm.cq_entries * sizeof(struct io_uring_cqe);
	ring_sz = sq_sz > cq_sz ? sq_sz : cq_sz;
	ring = SC(SYS_mmap, 0, ring_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, rfd, IORING_OFF_SQ_RING);
	sqe_map = SC(SYS_mmap, 0, prm.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_POPULATE, rfd, IORING_OFF_SQES);
	if (ring <= 0 || sqe_map <= 0 || rfd != 4) {
		want_true("io_uring mmap", 0);
		return;
	}
	sq_tail = (unsigned *)(ring + prm.sq_off.tail);
	sq_mask = (unsigned *)(ring + prm.sq_off.ring_mask);
	sq_array = (unsigned *)(ring + prm.sq_off.array);
	cq_head = (unsigned *)(ring + prm.cq_off.head);
	cq_tail = (unsigned *)(ring + prm.cq_off.tail);
	cq_mask = (unsigned *)(ring + prm.cq_off.ring_mask);
	cqes = (struct io_uring_cqe *)(ring + prm.cq_off.cqes);
	sqes = (struct io_uring_sqe *)sqe_map;

	for (i = 0; i < 2; i++) {
		unsigned tail = *sq_tail, idx = tail & *sq_mask, head;
		struct io_uring_sqe *sqe = &sqes[idx];

		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = i == 0 ? IORING_OP_WRITE : IORING_OP_READ;
		sqe->fd = 5;
		sqe->addr = (uint64_t)(uintptr_t)(i == 0 ? buf : rbuf);
		sqe->len = 4096;
		sqe->off = 0;
		sq_array[idx] = idx;
		__atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
		want("io_uring_enter", SC(SYS_io_uring_enter, rfd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0), 1);
		head = *cq_head;
		if (head == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE)) {
			want_true("io_uring cqe", 0);
			continue;
		}
		want("io_uring cqe res", cqes[head & *cq_mask].res, 4096);
		__atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
	}
	want("uring munmap sqes", SC(SYS_munmap, sqe_map, prm.sq_entries * sizeof(struct io_uring_sqe)), 0);
	want("uring munmap ring", SC(SYS_munmap, ring, ring_sz), 0);
	want("uring close 5", SC(SYS_close, 5), 0);
	want("uring close 4", SC(SYS_close, 4), 0);
}

static void setup_aio(void)
{
	unlink(P("aio.dat"));
}

static void aio_cb(struct iocb *cb, unsigned op, int fd, const void *b, uint64_t n, int64_t off)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_lio_opcode = op;
	cb->aio_fildes = fd;
	cb->aio_buf = (uint64_t)(uintptr_t)b;
	cb->aio_nbytes = n;
	cb->aio_offset = off;
}

/* io_getevents and io_pgetevents fail with EINTR where the kernel has
 * task work queued for the thread (io_uring's, left by the scenario
 * before: seen on Debian 12's 6.1 under QEMU): they are called again, and
 * a count of them takes the failed calls off (riot info's op_errors). */
#define AIO_WAIT(...)                                                        \
	({                                                                   \
		long _w;                                                     \
		while ((_w = SC(__VA_ARGS__)) == -EINTR)                     \
			;                                                    \
		_w;                                                          \
	})

/* io_setup, io_submit, io_getevents, io_pgetevents and io_destroy are
 * recorded, and each request the kernel took: a pwrite (beside an iocb
 * on a bad fd that io_submit refuses), a pwritev of two iovecs reaped by
 * io_pgetevents, an fdsync and a pread. */
static void run_aio(void)
{
	aio_context_t ctx = 0;
	struct iocb cb[2], *cbp[2] = { &cb[0], &cb[1] };
	struct iovec iov[2] = { { buf, 1000 }, { buf + 1000, 3096 } };
	struct io_event ev;

	want("aio openat", SC(SYS_openat, AT_FDCWD, P("aio.dat"), O_CREAT | O_RDWR | O_TRUNC, 0644), 4);
	want("io_setup", SC(SYS_io_setup, 8, &ctx), 0);
	aio_cb(&cb[0], IOCB_CMD_PWRITE, 4, buf, 4096, 0);
	aio_cb(&cb[1], IOCB_CMD_PWRITE, 99, buf, 4096, 0);
	want("io_submit of a good and a bad iocb", SC(SYS_io_submit, ctx, 2, cbp), 1);
	want("io_getevents", AIO_WAIT(SYS_io_getevents, ctx, 1, 1, &ev, NULL), 1);
	want("aio pwrite res", ev.res, 4096);
	aio_cb(&cb[0], IOCB_CMD_PWRITEV, 4, iov, 2, 4096);
	want("io_submit pwritev", SC(SYS_io_submit, ctx, 1, cbp), 1);
	want("io_pgetevents", AIO_WAIT(SYS_io_pgetevents, ctx, 1, 1, &ev, NULL, NULL), 1);
	want("aio pwritev res", ev.res, 4096);
	aio_cb(&cb[0], IOCB_CMD_FDSYNC, 4, NULL, 0, 0);
	want("io_submit fdsync", SC(SYS_io_submit, ctx, 1, cbp), 1);
	want("io_getevents fdsync", AIO_WAIT(SYS_io_getevents, ctx, 1, 1, &ev, NULL), 1);
	want("aio fdsync res", ev.res, 0);
	aio_cb(&cb[0], IOCB_CMD_PREAD, 4, rbuf, 4096, 4096);
	want("io_submit pread", SC(SYS_io_submit, ctx, 1, cbp), 1);
	want("io_getevents pread", AIO_WAIT(SYS_io_getevents, ctx, 1, 1, &ev, NULL), 1);
	want("aio pread res", ev.res, 4096);
	want("io_destroy", SC(SYS_io_destroy, ctx), 0);
	want("aio close", SC(SYS_close, 4), 0);
}

/* Threads by raw clone() on stacks prepared before the go signal, so the
 * trace holds no allocator or pthread housekeeping. They share the
 * parent's TLS; they only make syscalls that succeed, so errno is never
 * written. */
#define NTHREADS 2
#define THREAD_FLAGS (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | \
		      CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)
static char thread_stack[NTHREADS][65536] __attribute__((aligned(16)));
static volatile pid_t thread_tid[NTHREADS];
static long thread_ret[NTHREADS][5];

static int thread_main(void *arg)
{
	long i = (long)arg;
	int k;

	/* fd 4 for thread 0, 5 for thread 1; 4 writes of 4096 each. */
	for (k = 0; k < 4; k++)
		thread_ret[i][k] = syscall(SYS_pwrite64, 4 + i, buf, 4096, k * 4096L);
	thread_ret[i][4] = syscall(SYS_fdatasync, 4 + i);
	return 0;
}

static void setup_threads(void)
{
	unlink(P("th0.dat"));
	unlink(P("th1.dat"));
}

static void run_threads(void)
{
	long i;
	int k;

	want("threads openat 0", SC(SYS_openat, AT_FDCWD, P("th0.dat"), O_CREAT | O_WRONLY | O_TRUNC, 0644), 4);
	want("threads openat 1", SC(SYS_openat, AT_FDCWD, P("th1.dat"), O_CREAT | O_WRONLY | O_TRUNC, 0644), 5);
	for (i = 0; i < NTHREADS; i++) {
		int r = clone(thread_main, thread_stack[i] + sizeof(thread_stack[i]), THREAD_FLAGS,
			      (void *)i, &thread_tid[i], NULL, &thread_tid[i]);
		want_true("clone thread", r > 0);
	}
	/* CLONE_CHILD_CLEARTID zeroes the tid and wakes the futex at exit. */
	for (i = 0; i < NTHREADS; i++) {
		pid_t t;
		while ((t = thread_tid[i]) != 0)
			syscall(SYS_futex, &thread_tid[i], FUTEX_WAIT, t, NULL, NULL, 0);
	}
	for (i = 0; i < NTHREADS; i++) {
		for (k = 0; k < 4; k++)
			want("thread pwrite64", thread_ret[i][k], 4096);
		want("thread fdatasync", thread_ret[i][4], 0);
	}
	want("threads close 5", SC(SYS_close, 5), 0);
	want("threads close 4", SC(SYS_close, 4), 0);
}

static void setup_fork(void)
{
	unlink(P("fk_shared.dat"));
	unlink(P("fk_child.dat"));
	unlink(P("cl_child.dat"));
}

static void wait_child(const char *what, long pid, int want_status)
{
	int status = -1;
	if (pid <= 0) {
		want_true(what, 0);
		return;
	}
	want(what, SC(SYS_wait4, pid, &status, 0, NULL), pid);
	want(what, status, want_status);
}

/* fork: the child writes to the inherited fd 4 (the copied fd table) and
 * to a file of its own, and exits 7. clone(SIGCHLD): a child that exits 0.
 * vfork: a child that execs /bin/true. */
/* The program the fork scenario's child execs: its loader's calls are in
 * the trace, so `make kernels` gives every kernel the same one (busybox's
 * true) through WORKLOAD_TRUE, read before the go signal. */
static const char *true_path = "/bin/true";

static void run_fork(void)
{
	static char *const argv[] = { "true", NULL };
	static char *const envp[] = { NULL };
	long pid;

	want("fork openat shared", SC(SYS_openat, AT_FDCWD, P("fk_shared.dat"), O_CREAT | O_RDWR | O_TRUNC, 0644), 4);
	pid = SC_fork();
	if (pid == 0) {
		syscall(SYS_pwrite64, 4, buf, 100, 0);
		syscall(SYS_openat, AT_FDCWD, P("fk_child.dat"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
		syscall(SYS_write, 5, buf, 111);
		syscall(SYS_close, 5);
		syscall(SYS_exit_group, 7);
	}
	wait_child("fork child", pid, 7 << 8);
	want("fork parent write", SC(SYS_pwrite64, 4, buf, 50, 100), 50);
	want("fork close", SC(SYS_close, 4), 0);

	pid = SC(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
	if (pid == 0) {
		syscall(SYS_openat, AT_FDCWD, P("cl_child.dat"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
		syscall(SYS_write, 4, buf, 222);
		syscall(SYS_close, 4);
		syscall(SYS_exit_group, 0);
	}
	wait_child("clone child", pid, 0);

	pid = vfork();
	if (pid == 0) {
		execve(true_path, argv, envp);
		_exit(127);
	}
	wait_child("vfork child", pid, 0);
}

static void setup_errors(void)
{
	unlink(P("er.dat"));
	rmdir(P("er_dir"));
}

static void run_errors(void)
{
	struct stat st;

	want("open ENOENT", SC_open(P("missing/none"), O_RDONLY, 0), -ENOENT);
	want("openat ENOENT", SC(SYS_openat, AT_FDCWD, P("nofile"), O_RDONLY, 0), -ENOENT);
	want("stat ENOENT", SC_stat(P("nofile"), &st), -ENOENT);
	want("unlink ENOENT", SC_unlink(P("nofile")), -ENOENT);
	want("read EBADF", SC(SYS_read, 99, rbuf, 10), -EBADF);
	want("close EBADF", SC(SYS_close, 99), -EBADF);
	want("fstat EBADF", SC(SYS_fstat, 98, &st), -EBADF);
	want("dup2 EBADF", SC_dup2(97, 5), -EBADF);
	want("mkdir", SC_mkdir(P("er_dir"), 0755), 0);
	want("mkdir EEXIST", SC_mkdir(P("er_dir"), 0755), -EEXIST);
	want("open excl", SC_open(P("er.dat"), O_CREAT | O_EXCL | O_WRONLY, 0644), 4);
	want("errors close", SC(SYS_close, 4), 0);
	want("open excl EEXIST", SC_open(P("er.dat"), O_CREAT | O_EXCL | O_WRONLY, 0644), -EEXIST);
	want("write EBADF after close", SC(SYS_write, 4, buf, 1), -EBADF);
	want("rmdir", SC_rmdir(P("er_dir")), 0);
}

static void setup_prefd(void)
{
}

/* fd 3: opened before the go signal, 5000 bytes, position 1000. */
static void run_prefd(void)
{
	struct stat st;

	want("prefd read", SC(SYS_read, 3, rbuf, 500), 500);
	want("prefd pwrite64", SC(SYS_pwrite64, 3, buf, 100, 6000), 100);
	want("prefd fstat", SC(SYS_fstat, 3, &st), 0);
	want("prefd size", st.st_size, 6100);
	want("prefd lseek", SC(SYS_lseek, 3, 0, SEEK_CUR), 1500);
}

static void setup_fdkinds(void)
{
}

/* fds that name no file: a pipe, a socket pair, an eventfd, an epoll fd,
 * a memfd and a socket, used, then closed: fds 4 to 11; then a read of an
 * fd that is not open. */
static void run_fdkinds(void)
{
	int p[2] = { -1, -1 }, sv[2] = { -1, -1 };
	uint64_t one = 1;
	struct stat st;

	want("pipe2", SC(SYS_pipe2, p, O_CLOEXEC), 0);
	want("pipe2 fds", p[0] * 100 + p[1], 405);
	want("pipe write", SC(SYS_write, 5, buf, 10), 10);
	want("pipe read", SC(SYS_read, 4, rbuf, 10), 10);
	want("socketpair", SC(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, sv), 0);
	want("socketpair fds", sv[0] * 100 + sv[1], 607);
	want("socket write", SC(SYS_write, 6, buf, 7), 7);
	want("socket read", SC(SYS_read, 7, rbuf, 7), 7);
	want("eventfd2", SC(SYS_eventfd2, 0, 0), 8);
	want("eventfd write", SC(SYS_write, 8, &one, 8), 8);
	want("epoll_create1", SC(SYS_epoll_create1, 0), 9);
	want("memfd_create", SC(SYS_memfd_create, "riot", 0), 10);
	want("memfd pwrite64", SC(SYS_pwrite64, 10, buf, 100, 0), 100);
	want("memfd fstat", SC(SYS_fstat, 10, &st), 0);
	want("socket", SC(SYS_socket, AF_UNIX, SOCK_DGRAM, 0), 11);
	for (int fd = 4; fd <= 11; fd++)
		want("fdkinds close", SC(SYS_close, fd), 0);
	want("read of no fd", SC(SYS_read, 20, rbuf, 1), -EBADF);
}

static void setup_misc(void)
{
	mkfile("misc.dat", 8192);
	umask(022);
}

/* File calls beside reads and writes: locks, readahead, statfs, the
 * utime family, ioctl, getcwd, umask. */
static void run_misc(void)
{
	struct statfs sfs;
	int n = -1;

	want("misc openat", SC(SYS_openat, AT_FDCWD, P("misc.dat"), O_RDWR, 0), 4);
	want("flock ex", SC(SYS_flock, 4, LOCK_EX), 0);
	want("flock un", SC(SYS_flock, 4, LOCK_UN), 0);
	want("readahead", SC(SYS_readahead, 4, 0, 4096), 0);
	want("fstatfs", SC(SYS_fstatfs, 4, &sfs), 0);
	want("ioctl FIONREAD", SC(SYS_ioctl, 4, FIONREAD, &n), 0);
	want("FIONREAD bytes", n, 8192);
	want("misc close", SC(SYS_close, 4), 0);
	want("statfs", SC(SYS_statfs, P("misc.dat"), &sfs), 0);
	want("utime", SC_utime(P("misc.dat"), NULL), 0);
	want("utimes", SC_utimes(P("misc.dat"), NULL), 0);
	want("futimesat", SC_futimesat(AT_FDCWD, "misc.dat", NULL), 0);
	want("getcwd", SC(SYS_getcwd, rbuf, sizeof(rbuf)), (long)strlen(dir) + 1);
	want("umask", SC(SYS_umask, 022), 022);
}

static void setup_madvise(void)
{
	mkfile("mv.dat", 16384);
}

/* madvise and mremap of a file mapping, and of anonymous memory (which
 * capture leaves out, as it does anonymous mmaps). */
static void run_madvise(void)
{
	long f, a, g;

	want("madvise openat", SC(SYS_openat, AT_FDCWD, P("mv.dat"), O_RDONLY, 0), 4);
	f = SC(SYS_mmap, 0, 8192, PROT_READ, MAP_SHARED, 4, 4096);
	want_true("madvise mmap", f > 0);
	a = SC(SYS_mmap, 0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	want_true("madvise anonymous mmap", a > 0);
	if (f <= 0 || a <= 0)
		return;
	/* WILLNEED leaves the mapping whole; SEQUENTIAL on part of it
	 * would split it, and mremap takes one mapping only */
	want("madvise willneed", SC(SYS_madvise, f + 4096, 4096, MADV_WILLNEED), 0);
	want("madvise sequential", SC(SYS_madvise, f, 8192, MADV_SEQUENTIAL), 0);
	want("madvise anonymous", SC(SYS_madvise, a, 8192, MADV_DONTNEED), 0);
	a = SC(SYS_mremap, a, 8192, 16384, MREMAP_MAYMOVE);
	want_true("mremap anonymous", a > 0);
	g = SC(SYS_mremap, f, 8192, 12288, MREMAP_MAYMOVE);
	want_true("mremap", g > 0);
	if (g > 0)
		want("munmap", SC(SYS_munmap, g, 12288), 0);
	if (a > 0)
		want("munmap anonymous", SC(SYS_munmap, a, 16384), 0);
	want("madvise close", SC(SYS_close, 4), 0);
}

static void setup_paths(void)
{
	mkdirp("in");
	mkdirp("out");
	mkfile("in/a", 100);
	mkfile("out/b", 100);
	mkfile("out/c", 100);
	unlink(P("out/d"));
	unlink(P("in/d"));
	rmdir(P("out/e"));
}

/* For the filters (--path DIR/in): calls on files outside it by absolute
 * and relative paths, through dup'ed fds, with names that fold back into
 * it, and renames across its edge. */
static void run_paths(void)
{
	struct stat st;

	want("out openat", SC(SYS_openat, AT_FDCWD, P("out/b"), O_RDONLY, 0), 4);
	want("out pread64", SC(SYS_pread64, 4, rbuf, 10, 0), 10);
	want("out fstat", SC(SYS_fstat, 4, &st), 0);
	want("out dup", SC(SYS_dup, 4), 5);
	want("out pread64 dup", SC(SYS_pread64, 5, rbuf, 10, 20), 10);
	want("out close dup", SC(SYS_close, 5), 0);
	want("out close", SC(SYS_close, 4), 0);
	want("in openat", SC(SYS_openat, AT_FDCWD, P("in/a"), O_RDWR, 0), 4);
	want("in pwrite64", SC(SYS_pwrite64, 4, buf, 10, 0), 10);
	want("in close", SC(SYS_close, 4), 0);
	want("out stat", SC(SYS_newfstatat, AT_FDCWD, P("out/b"), &st, 0), 0);
	want("folded stat", SC(SYS_newfstatat, AT_FDCWD, P("out/../in/a"), &st, 0), 0);
	want("out rename", SC_rename(P("out/c"), P("out/d")), 0);
	want("rename in", SC_rename(P("out/d"), P("in/d")), 0);
	want("chdir out", SC(SYS_chdir, P("out")), 0);
	want("relative openat", SC(SYS_openat, AT_FDCWD, "b", O_RDONLY, 0), 4);
	want("relative pread64", SC(SYS_pread64, 4, rbuf, 10, 50), 10);
	want("relative close", SC(SYS_close, 4), 0);
	want("chdir back", SC(SYS_chdir, dir), 0);
	want("out mkdir", SC_mkdir(P("out/e"), 0755), 0);
	want("out rmdir", SC_rmdir(P("out/e")), 0);
	want("in unlink", SC_unlink(P("in/d")), 0);
	/* A directory outside, as the dirfd of a path that leads inside. */
	want("out dir openat", SC(SYS_openat, AT_FDCWD, P("out"),
				  O_RDONLY | O_DIRECTORY, 0), 4);
	want("dirfd stat in", SC(SYS_newfstatat, 4, "../in/a", &st, 0), 0);
	want("out dir close", SC(SYS_close, 4), 0);
}

static void setup_heavy(void)
{
	mkfile("heavy.dat", 1 << 20);
}

/* A stream of varied preads for the kill and full-disk tests: runs until
 * killed, or 50 million calls. */
static void run_heavy(void)
{
	unsigned long i;
	int fd = SC(SYS_openat, AT_FDCWD, P("heavy.dat"), O_RDONLY, 0);

	for (i = 0; i < 50000000UL; i++)
		syscall(SYS_pread64, fd, rbuf, 1 + (i * 7919) % 4096, (i * 104729) % (1 << 20));
	syscall(SYS_close, fd);
}

/* Calls whose replay needs more than the captured arguments: not part of
 * `all` (the capture tests' exact sequences stay as they are). */
static void setup_replayops(void)
{
	mkfile("rp.dat", 3000);
	mkfile("rp.exe", 100);
	mkfile("rp.sh", 10);
	if (chmod(P("rp.exe"), 0750) || chmod(P("rp.sh"), 0755))
		die("rp.exe");
	mksym("rp.dat", "rp.lnk");
	unlink(P("rp.hard"));
}

static void run_replayops(void)
{
	char proc[32] = "/proc/self/fd/4";

	/* a regular file: EINVAL, and proof that it exists */
	want("readlink file", SC_readlink(P("rp.dat"), rbuf, 256), -EINVAL);
	want("readlink link", SC_readlink(P("rp.lnk"), rbuf, 256), 6);
	/* a mode stat saw; one only access(X_OK) tells about */
	want("stat rp.exe", SC_stat(P("rp.exe"), rbuf), 0);
	want("access X_OK", SC_access(P("rp.exe"), X_OK), 0);
	want("access X_OK sh", SC_access(P("rp.sh"), X_OK), 0);
	want("open rp.dat", SC(SYS_openat, AT_FDCWD, P("rp.dat"), O_RDONLY, 0), 4);
	/* futimens(4, NULL) */
	want("futimens", SC(SYS_utimensat, 4, NULL, NULL, 0), 0);
	/* glibc's fchmodat fallback */
	want("chmod /proc/self/fd", SC_chmod(proc, 0600), 0);
	want("close rp.dat", SC(SYS_close, 4), 0);
	want("linkat follow", SC(SYS_linkat, AT_FDCWD, P("rp.lnk"), AT_FDCWD, P("rp.hard"),
				 AT_SYMLINK_FOLLOW), 0);
}

struct scenario {
	const char *name;
	void (*setup)(void);
	void (*run)(void);
};

/* `all` runs these in this order; heavy is never part of it. */
static const struct scenario scenarios[] = {
	{ "rw", setup_rw, run_rw },
	{ "pread", setup_pread, run_pread },
	{ "vector", setup_vector, run_vector },
	{ "open", setup_open, run_open },
	{ "stat", setup_stat, run_stat },
	{ "dir", setup_dir, run_dir },
	{ "ns", setup_ns, run_ns },
	{ "trunc", setup_trunc, run_trunc },
	{ "sync", setup_sync, run_sync },
	{ "copy", setup_copy, run_copy },
	{ "attr", setup_attr, run_attr },
	{ "xattr", setup_xattr, run_xattr },
	{ "fdops", setup_fdops, run_fdops },
	{ "cwd", setup_cwd, run_cwd },
	{ "dirfd", setup_dirfd, run_dirfd },
	{ "mmap", setup_mmap, run_mmap },
	{ "uring", setup_uring, run_uring },
	{ "aio", setup_aio, run_aio },
	{ "threads", setup_threads, run_threads },
	{ "fork", setup_fork, run_fork },
	{ "errors", setup_errors, run_errors },
	{ "prefd", setup_prefd, run_prefd },
	{ "paths", setup_paths, run_paths },
	{ "fdkinds", setup_fdkinds, run_fdkinds },
	{ "misc", setup_misc, run_misc },
	{ "madvise", setup_madvise, run_madvise },
};
#define NSCEN (sizeof(scenarios) / sizeof(scenarios[0]))
static const struct scenario heavy = { "heavy", setup_heavy, run_heavy };
static const struct scenario replayops = { "replayops", setup_replayops, run_replayops };

static void usage(void)
{
	size_t i;

	fprintf(stderr, "usage: workload --dir DIR [--no-wait] [--exit N] SCENARIO...\n"
		"scenarios: all heavy replayops");
	for (i = 0; i < NSCEN; i++)
		fprintf(stderr, " %s", scenarios[i].name);
	fprintf(stderr, "\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const struct scenario *todo[64];
	size_t ntodo = 0, i, j;
	int nowait = 0, exit_code = 0, fd, a;
	sigset_t set;
	siginfo_t si;

	if (getenv("WORKLOAD_TRUE"))
		true_path = getenv("WORKLOAD_TRUE");

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--dir") && a + 1 < argc) {
			dir = argv[++a];
		} else if (!strcmp(argv[a], "--no-wait")) {
			nowait = 1;
		} else if (!strcmp(argv[a], "--exit") && a + 1 < argc) {
			exit_code = atoi(argv[++a]);
		} else if (!strcmp(argv[a], "all")) {
			for (i = 0; i < NSCEN && ntodo < 64; i++)
				todo[ntodo++] = &scenarios[i];
		} else if (!strcmp(argv[a], "heavy") || !strcmp(argv[a], "replayops")) {
			if (ntodo < 64)
				todo[ntodo++] = argv[a][0] == 'h' ? &heavy : &replayops;
		} else {
			for (j = 0; j < NSCEN; j++)
				if (!strcmp(argv[a], scenarios[j].name))
					break;
			if (j == NSCEN || ntodo == 64)
				usage();
			todo[ntodo++] = &scenarios[j];
		}
	}
	if (!dir || dir[0] != '/')
		usage();

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 131 + 7);

	/* Exactly fds 0-2 plus fd 3, whatever the caller leaked. */
	if (syscall(SYS_close_range, 3, ~0U, 0))
		die("close_range");
	if (chdir(dir))
		die(dir);
	for (i = 0; i < ntodo; i++)
		todo[i]->setup();
	if (!nowait || ntodo) {
		mkfile("prefd.dat", 5000);
		fd = open(P("prefd.dat"), O_RDWR);
		if (fd != 3 || lseek(fd, 1000, SEEK_SET) != 1000)
			die("prefd.dat");
	}

	if (!nowait) {
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		if (sigprocmask(SIG_BLOCK, &set, NULL))
			die("sigprocmask");
		printf("%d ready\n", (int)getpid());
		fflush(stdout);
		/* The go signal: rt_sigtimedwait is not in the table. */
		while (sigwaitinfo(&set, &si) != SIGUSR1)
			;
	}

	for (i = 0; i < ntodo; i++)
		todo[i]->run();

	if (fail_count) {
		fail_add("workload: ");
		fail_num(fail_count);
		fail_add(" unexpected results\n");
		syscall(SYS_write, 2, fail_log, fail_len);
		syscall(SYS_exit_group, 1);
	}
	syscall(SYS_exit_group, exit_code);
	return 0;
}
