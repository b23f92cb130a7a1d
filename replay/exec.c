/* replay/exec.c: one op with plain syscalls (exec.h), and the files,
 * buffers and data it needs.
 *
 * Every path goes through replay/root.h: files are opened with openat2
 * RESOLVE_IN_ROOT, calls acting on a final component get a confined parent
 * fd and the name, and calls that take a path but follow symlinks (stat,
 * access, chmod...) act on a confined O_PATH fd instead, so no symlink can
 * lead them out of the root. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "replay/engine.h"
#include "replay/exec.h"
#include "replay/pace.h"

static __thread void *scratch;
static __thread size_t scratch_cap;
static __thread uint64_t scratch_filled;	/* seq of the write whose data
						 * the buffer holds, 0: none */

void *replay_scratch(size_t len)
{
	if (len <= scratch_cap)
		return scratch;
	if (len > REPLAY_BUF_BYTES)
		return NULL;
	replay_scratch_release();
	if (len < 65536)
		len = 65536;
	if (posix_memalign(&scratch, 4096, len) != 0) {
		scratch = NULL;
		return NULL;
	}
	scratch_cap = len;
	return scratch;
}

void replay_scratch_release(void)
{
	free(scratch);
	scratch = NULL;
	scratch_cap = 0;
	scratch_filled = 0;
}

void replay_prepare_data(const struct replay_ctx *cx, const struct replay_op *op)
{
	size_t cap = replay_buf_len(replay_rw_len(op));	/* as exec_data() */
	void *buf = replay_scratch(cap);

	scratch_filled = 0;
	if (!buf)
		return;	/* the write finds no buffer either and says so */
	fill_bytes(&cx->fill, op->path_id, op->off, buf, cap);
	scratch_filled = op->seq;
}

size_t replay_rw_len(const struct replay_op *op)
{
	return op->count > REPLAY_RW_MAX ? REPLAY_RW_MAX : (size_t)op->count;
}

size_t replay_buf_len(uint64_t count)
{
	return !count ? 1 : count > REPLAY_BUF_BYTES ? REPLAY_BUF_BYTES : (size_t)count;
}

unsigned replay_rw_iov(void *buf, size_t cap, size_t len, struct iovec *iov)
{
	unsigned n = 0;

	do {
		iov[n].iov_base = buf;
		iov[n].iov_len = len < cap ? len : cap;
		len -= iov[n++].iov_len;
	} while (len && n < REPLAY_IOV_MAX);
	return n;
}

unsigned replay_skip_of(int err)
{
	switch (err) {
	case -EXDEV: return SKIP_PSEUDO;
	case -EPERM: case -EINVAL: return SKIP_HOSTILE;
	default: return SKIP_NONE;
	}
}

uint64_t replay_open_flags(uint64_t captured)
{
	const uint64_t valid = O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND |
		O_NONBLOCK | O_DSYNC | O_SYNC | O_DIRECT | O_LARGEFILE | O_DIRECTORY |
		O_NOFOLLOW | O_NOATIME | O_PATH | O_TMPFILE;

	return (captured & valid) | O_CLOEXEC;
}

int replay_reopen(const struct replay_ctx *cx, const struct replay_op *op, bool second)
{
	uint64_t fl = replay_open_flags(op->file_flags) & ~(uint64_t)(O_CREAT | O_EXCL | O_TRUNC);

	if (second)	/* a copy's output: only its path is known */
		return replay_root_open_path(cx->root, op->path2, O_RDWR | O_CLOEXEC, 0);
	if ((fl & O_TMPFILE) == O_TMPFILE)
		return -ENOENT;	/* an anonymous file cannot be found again */
	return replay_root_open_path(cx->root, op->path, (int)fl, 0);
}

int replay_path_fd(const struct replay_ctx *cx, const struct replay_op *op)
{
	int fl = O_PATH | O_CLOEXEC | ((op->opflags & OPF_NOFOLLOW) ? O_NOFOLLOW : 0);

	return replay_root_open_path(cx->root, op->path, fl, 0);
}

static int64_t neg(long rc)
{
	return rc < 0 ? -errno : rc;
}

/* Calls that change a file's own attributes. */
static bool changes_attrs(unsigned act)
{
	return act == ACT_CHMOD || act == ACT_CHOWN || act == ACT_UTIMENS ||
	       act == ACT_XATTR_SET || act == ACT_XATTR_REMOVE;
}

/* A fifo or socket node is made as an empty regular file of that name:
 * the namespace calls on it behave as captured, and no open of it can
 * block the replay (devices are skipped by the plan). */
static mode_t replay_node_mode(uint32_t mode)
{
	return (mode & ~(uint32_t)S_IFMT & 07777) | S_IFREG;
}

int replay_link_source(const struct replay_ctx *cx, const struct replay_op *op, char *name,
			size_t namelen, int *flags)
{
	int fd;

	*flags = 0;
	if (!(op->flags & AT_SYMLINK_FOLLOW))
		return replay_root_parent(cx->root, op->path, name, namelen);
	fd = replay_path_fd(cx, op);
	if (fd < 0)
		return fd;
	snprintf(name, namelen, "/proc/thread-self/fd/%d", fd);
	*flags = AT_SYMLINK_FOLLOW;
	return fd;
}

/* readlink acts on the final component itself, from its confined parent:
 * a regular file gives EINVAL as it did when captured (readlinkat of an
 * O_PATH fd with an empty name would say ENOENT). */
static int64_t exec_readlink(const struct replay_op *op, const struct replay_prep *p)
{
	size_t n = replay_buf_len(op->count);
	void *buf = replay_scratch(n);

	return buf ? neg(readlinkat(p->pfd, p->name, buf, n)) : -ENOMEM;
}

/* Namespace ops: confined parents, a symlink's target, found before the
 * clock starts (replay_exec_prep()). */
static int prep_at(const struct replay_ctx *cx, const struct replay_op *op,
		   struct replay_prep *p)
{
	int64_t rc;

	p->pfd = op->act == ACT_LINK ?
		 replay_link_source(cx, op, p->name, sizeof(p->name), &p->lflags) :
		 replay_root_parent(cx->root, op->path, p->name, sizeof(p->name));
	if (p->pfd < 0)
		return p->pfd;
	if (op->act == ACT_SYMLINK &&
	    (rc = replay_root_link_target(cx->root, op->path, p->pfd, op->text ? op->text : "",
					  p->target, sizeof(p->target))) < 0)
		return (int)rc;
	if (op->act == ACT_RENAME || op->act == ACT_LINK) {
		p->pfd2 = replay_root_parent(cx->root, op->path2, p->name2, sizeof(p->name2));
		if (p->pfd2 < 0)
			return p->pfd2;
	}
	return 0;
}

static int64_t exec_at(const struct replay_op *op, const struct replay_prep *p)
{
	int pfd = p->pfd;
	const char *name = p->name;

	switch (op->act) {
	case ACT_MKDIR: return neg(mkdirat(pfd, name, op->mode));
	case ACT_UNLINK: return neg(unlinkat(pfd, name, 0));
	case ACT_RMDIR: return neg(unlinkat(pfd, name, AT_REMOVEDIR));
	case ACT_RENAME: return neg(renameat2(pfd, name, p->pfd2, p->name2, (unsigned)op->flags));
	case ACT_LINK: return neg(linkat(pfd, name, p->pfd2, p->name2, p->lflags));
	case ACT_SYMLINK: return neg(symlinkat(p->target, pfd, name));
	case ACT_MKNOD: return neg(mknodat(pfd, name, replay_node_mode(op->mode), 0));
	default: return -ENOSYS;
	}
}

static int64_t exec_stat(int fd)
{
	struct statx stx;

	return neg(statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx));
}

static int64_t exec_statfs(int fd)
{
	struct statfs st;

	return neg(fstatfs(fd, &st));
}

/* A set's value: the captured bytes (plan.c), fill bytes after them or in
 * their place (user. and trusted. names only: the plan skips the rest). */
static int64_t exec_xattr(const struct replay_ctx *cx, const struct replay_op *op,
			  const char *proc, int fd)
{
	size_t n = op->count > 65536 ? 65536 : op->count;
	void *buf = replay_scratch(n ? n : 1);
	const char *name = op->text ? op->text : "";

	if (!buf)
		return -ENOMEM;
	switch (op->act) {
	case ACT_XATTR_GET:
		return proc ? neg(getxattr(proc, name, buf, n)) : neg(fgetxattr(fd, name, buf, n));
	case ACT_XATTR_LIST:
		return proc ? neg(listxattr(proc, buf, n)) : neg(flistxattr(fd, buf, n));
	case ACT_XATTR_REMOVE:
		return proc ? neg(removexattr(proc, name)) : neg(fremovexattr(fd, name));
	default:
		fill_bytes(&cx->fill, op->path_id, 0, buf, n);
		if (op->value)
			memcpy(buf, op->value, op->value_len < n ? op->value_len : n);
		return proc ? neg(setxattr(proc, name, buf, n, (int)op->flags)) :
			      neg(fsetxattr(fd, name, buf, n, (int)op->flags));
	}
}

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

/* chmod of a confined O_PATH fd: fchmodat2's AT_EMPTY_PATH (Linux 6.6),
 * or the fd's /proc/thread-self/fd name on older kernels. */
static int64_t chmod_fd(int ofd, mode_t mode)
{
	char proc[64];

	if (syscall(SYS_fchmodat2, ofd, "", mode, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != ENOSYS && errno != EINVAL)
		return -errno;
	snprintf(proc, sizeof(proc), "/proc/thread-self/fd/%d", ofd);
	return neg(fchmodat(AT_FDCWD, proc, mode, 0));
}

/* A path call on the object itself, a confined O_PATH fd (following a
 * final symlink as captured): AT_EMPTY_PATH forms, or its
 * /proc/thread-self/fd name where the call has none (the xattr calls).
 * thread-self, not self: a lane may have an fd table of its own
 * (engine_sync.c). */
static int64_t exec_on_fd(const struct replay_ctx *cx, const struct replay_op *op, int ofd)
{
	char proc[64];

	switch (op->act) {
	case ACT_STAT: return exec_stat(ofd);
	case ACT_ACCESS: return neg(faccessat(ofd, "", (int)op->mode, AT_EMPTY_PATH));
	case ACT_CHMOD: return chmod_fd(ofd, op->mode);
	case ACT_CHOWN: return neg(fchownat(ofd, "", op->uid, op->gid, AT_EMPTY_PATH));
	case ACT_UTIMENS: return neg(utimensat(ofd, "", NULL, AT_EMPTY_PATH));
	case ACT_STATFS: return exec_statfs(ofd);
	default:
		snprintf(proc, sizeof(proc), "/proc/thread-self/fd/%d", ofd);
		return exec_xattr(cx, op, proc, -1);
	}
}

/* A final symlink to follow: the confined route, inside the clock (the
 * captured call followed it too). */
static int64_t exec_followed(const struct replay_ctx *cx, const struct replay_op *op)
{
	int ofd = replay_path_fd(cx, op);
	int64_t rc;

	if (ofd < 0)
		return ofd;
	rc = changes_attrs(op->act) && replay_root_is_top(cx->root, ofd) ? -EPERM :
	     exec_on_fd(cx, op, ofd);
	close(ofd);
	return rc;
}

/* The xattr calls on a name in a directory fd, never following it:
 * setxattrat and friends (Linux 6.13), or the l* calls on the directory's
 * /proc/thread-self/fd name and the final name on older kernels. */
#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#define SYS_getxattrat 464
#define SYS_listxattrat 465
#define SYS_removexattrat 466
#endif
struct riot_xattr_args {
	uint64_t value;
	uint32_t size, flags;
};
static _Atomic bool no_xattrat;

static int64_t xattr_in_parent(const struct replay_ctx *cx, const struct replay_op *op,
			       const struct replay_prep *p)
{
	size_t n = op->count > 65536 ? 65536 : op->count;
	void *buf = replay_scratch(n ? n : 1);
	const char *name = op->text ? op->text : "";
	struct riot_xattr_args a = { .value = (uintptr_t)buf, .size = (uint32_t)n };
	char proc[64 + NAME_MAX];
	long rc;

	if (!buf)
		return -ENOMEM;
	if (op->act == ACT_XATTR_SET) {
		fill_bytes(&cx->fill, op->path_id, 0, buf, n);
		if (op->value)
			memcpy(buf, op->value, op->value_len < n ? op->value_len : n);
		a.flags = (uint32_t)op->flags;
	}
	if (!atomic_load_explicit(&no_xattrat, memory_order_relaxed)) {
		switch (op->act) {
		case ACT_XATTR_GET:
			rc = syscall(SYS_getxattrat, p->pfd, p->name, AT_SYMLINK_NOFOLLOW, name,
				     &a, sizeof(a));
			break;
		case ACT_XATTR_SET:
			rc = syscall(SYS_setxattrat, p->pfd, p->name, AT_SYMLINK_NOFOLLOW, name,
				     &a, sizeof(a));
			break;
		case ACT_XATTR_LIST:
			rc = syscall(SYS_listxattrat, p->pfd, p->name, AT_SYMLINK_NOFOLLOW, buf, n);
			break;
		default:
			rc = syscall(SYS_removexattrat, p->pfd, p->name, AT_SYMLINK_NOFOLLOW, name);
			break;
		}
		if (rc >= 0 || errno != ENOSYS)
			return neg(rc);
		atomic_store_explicit(&no_xattrat, true, memory_order_relaxed);
	}
	snprintf(proc, sizeof(proc), "/proc/thread-self/fd/%d/%s", p->pfd, p->name);
	switch (op->act) {
	case ACT_XATTR_GET: return neg(lgetxattr(proc, name, buf, n));
	case ACT_XATTR_SET: return neg(lsetxattr(proc, name, buf, n, (int)op->flags));
	case ACT_XATTR_LIST: return neg(llistxattr(proc, buf, n));
	default: return neg(lremovexattr(proc, name));
	}
}

/* stat, access, the xattr calls: the confined parent was found before
 * the clock; the call looks up the final name itself (a cold inode is
 * read inside the clock, as it was for the program). A final symlink the
 * call must follow is never followed from here: it takes the confined
 * route. */
static int64_t exec_in_parent(const struct replay_ctx *cx, const struct replay_op *op,
			      const struct replay_prep *p)
{
	bool follow = !(op->opflags & OPF_NOFOLLOW);
	struct statx stx;

	if (op->act == ACT_STAT || follow) {
		if (statx(p->pfd, p->name, AT_SYMLINK_NOFOLLOW,
			  op->act == ACT_STAT ? STATX_BASIC_STATS : STATX_TYPE, &stx) < 0)
			return -errno;
		if (follow && S_ISLNK(stx.stx_mode))
			return exec_followed(cx, op);
		if (op->act == ACT_STAT)
			return 0;
	}
	if (op->act != ACT_ACCESS)
		return xattr_in_parent(cx, op, p);
	return neg(faccessat(p->pfd, p->name, (int)op->mode, AT_SYMLINK_NOFOLLOW));
}

/* Path-named calls: stat, access and the xattr calls look up their final
 * name in the clock (exec_in_parent()); chmod, chown, utimensat and
 * statfs act on a confined O_PATH fd opened before it (AT_EMPTY_PATH). */
static bool in_parent(unsigned act)
{
	return act == ACT_STAT || act == ACT_ACCESS || act == ACT_XATTR_GET ||
	       act == ACT_XATTR_SET || act == ACT_XATTR_LIST || act == ACT_XATTR_REMOVE;
}

static int prep_on_path(const struct replay_ctx *cx, const struct replay_op *op,
			struct replay_prep *p)
{
	size_t n = strlen(op->path);

	if (in_parent(op->act) && n > 1 && op->path[n - 1] != '/') {
		p->pfd = replay_root_parent(cx->root, op->path, p->name, sizeof(p->name));
		if (p->pfd != -EINVAL)	/* -EINVAL: the root itself */
			return p->pfd < 0 ? p->pfd : 0;
	}
	p->pfd = replay_path_fd(cx, op);
	if (p->pfd < 0)
		return p->pfd;
	p->ofd = true;
	if (changes_attrs(op->act) && replay_root_is_top(cx->root, p->pfd))
		return -EPERM;
	return 0;
}

static int64_t exec_truncate(const struct replay_op *op, const struct replay_prep *p)
{
	int fd = replay_root_openat(p->rootfd, p->rel, O_WRONLY | O_CLOEXEC, 0);
	int64_t rc;

	if (fd < 0)
		return fd;
	rc = neg(ftruncate(fd, (off_t)op->off));
	close(fd);
	return rc;
}

/* One call whatever the count, as captured: an op larger than the buffer
 * goes as preadv/pwritev over the buffer repeated. */
static int64_t exec_data(const struct replay_ctx *cx, const struct replay_op *op, int fd)
{
	size_t len = replay_rw_len(op), cap = replay_buf_len(len);
	void *buf = replay_scratch(cap);
	struct iovec iov[REPLAY_IOV_MAX];
	unsigned n;

	if (!buf)
		return -ENOMEM;
	if (op->act == ACT_WRITE && scratch_filled != op->seq)
		fill_bytes(&cx->fill, op->path_id, op->off, buf, cap < len ? cap : len);
	scratch_filled = 0;
	/* the raw syscalls: glibc's pread and pwrite are cancellation points,
	 * which costs two calls around every one on the replay's clock */
	if (len <= cap)
		return op->act == ACT_READ ? neg(syscall(SYS_pread64, fd, buf, len, (off_t)op->off)) :
					     neg(syscall(SYS_pwrite64, fd, buf, len, (off_t)op->off));
	n = replay_rw_iov(buf, cap, len, iov);
	return op->act == ACT_READ ? neg(preadv(fd, iov, (int)n, (off_t)op->off)) :
				     neg(pwritev(fd, iov, (int)n, (off_t)op->off));
}

/* An fd op that would change a root's top is refused before the clock:
 * replay_exec_timed(). */
static int64_t exec_fd(const struct replay_ctx *cx, const struct replay_op *op, int fd, int fd2)
{
	switch (op->act) {
	case ACT_READ: case ACT_WRITE: return exec_data(cx, op, fd);
	case ACT_FSYNC: return neg(fsync(fd));
	case ACT_FDATASYNC: return neg(fdatasync(fd));
	case ACT_SYNC_RANGE:
		return neg(sync_file_range(fd, (off_t)op->off, (off_t)op->count, (unsigned)op->flags));
	case ACT_FALLOCATE:
		return neg(fallocate(fd, (int)op->flags, (off_t)op->off, (off_t)op->count));
	case ACT_FTRUNCATE: return neg(ftruncate(fd, (off_t)op->off));
	case ACT_FADVISE:
		return -posix_fadvise(fd, (off_t)op->off, (off_t)op->count, (int)op->arg);
	case ACT_FSTAT: return exec_stat(fd);
	case ACT_GETDENTS: {
		size_t n = op->count ? replay_buf_len(op->count) : 32768;
		void *buf = replay_scratch(n);

		return buf ? neg(syscall(SYS_getdents64, fd, buf, n)) : -ENOMEM;
	}
	case ACT_CHMOD: return neg(fchmod(fd, op->mode));
	case ACT_CHOWN: return neg(fchown(fd, op->uid, op->gid));
	case ACT_UTIMENS: return neg(futimens(fd, NULL));
	case ACT_SYNCFS: return neg(syncfs(fd));
	case ACT_STATFS: return exec_statfs(fd);
	/* Never waits: a lock held in the replay by a stream this worker
	 * also runs would never be released. A wait the capture saw shows
	 * as a divergence (EWOULDBLOCK). */
	case ACT_FLOCK: return neg(flock(fd, (int)op->arg | LOCK_NB));
	case ACT_READAHEAD: return neg(readahead(fd, (off64_t)op->off, op->count));
	case ACT_COPY: {
		loff_t in = (loff_t)op->off, out = (loff_t)op->arg;

		return neg(copy_file_range(fd, &in, fd2, &out, op->count, 0));
	}
	case ACT_CLONE: {
		struct file_clone_range r = {
			.src_fd = fd2, .src_offset = op->off, .src_length = op->count,
			.dest_offset = op->arg,
		};

		if (op->flags == FICLONE)
			return neg(ioctl(fd, FICLONE, fd2));
		return neg(ioctl(fd, FICLONERANGE, &r));
	}
	default: return exec_xattr(cx, op, NULL, fd);
	}
}

/* An open of a path relative to a directory walks, in the clock, what
 * the program's walked: rel's last op->walk components, beneath a confined
 * O_PATH fd of the directory before them, opened before the clock (tar
 * -xf -C DIR opens "./pkg/file" from DIR's fd; from the root, the replay
 * walked the captured tree's whole depth: 4,000 such opens 8 levels deep,
 * p50 2.1 us against the capture's 1.5 us). A rel no deeper than the walk is walked whole from the
 * root, and so is any rel whose directory the lookup cannot open (the
 * call then fails, or succeeds, as it would). */
static void prep_walk(const struct replay_op *op, struct replay_prep *p)
{
	size_t len = strlen(p->rel);
	unsigned n = 0;
	char *c;

	while (len > 1 && p->rel[len - 1] == '/')
		p->rel[--len] = '\0';
	for (c = p->rel + len; c > p->rel; c--)
		if (c[-1] == '/' && *c != '/' && ++n == op->walk)
			break;
	if (c == p->rel)
		return;	/* no deeper than the walk */
	c[-1] = '\0';
	p->bfd = replay_root_openat(p->rootfd, p->rel, O_PATH | O_DIRECTORY, 0);
	c[-1] = '/';
	if (p->bfd >= 0)
		p->tail = c;
	else
		p->bfd = -1;
}

int replay_exec_prep(const struct replay_ctx *cx, const struct replay_op *op,
		     struct replay_prep *p)
{
	int rc = 0;

	p->pfd = p->pfd2 = p->bfd = -1;
	p->ofd = false;
	p->lflags = 0;
	switch (op->act) {
	case ACT_OPEN: case ACT_TRUNCATE:
		rc = replay_root_locate(cx->root, op->path, &p->rootfd, p->rel, sizeof(p->rel));
		if (!rc && op->act == ACT_OPEN && op->walk)
			prep_walk(op, p);
		break;
	case ACT_MKDIR: case ACT_UNLINK: case ACT_RMDIR: case ACT_RENAME: case ACT_LINK:
	case ACT_SYMLINK: case ACT_MKNOD:
		rc = prep_at(cx, op, p);
		break;
	case ACT_READLINK:
		p->pfd = rc = replay_root_parent(cx->root, op->path, p->name, sizeof(p->name));
		break;	/* -EINVAL: the root itself, a directory: as readlink says */
	case ACT_CLOSE: case ACT_SYNC:
		break;
	default:
		if (!op->file)
			rc = prep_on_path(cx, op, p);
		break;
	}
	p->err = rc < 0 ? rc : 0;
	return p->err;
}

void replay_exec_unprep(struct replay_prep *p)
{
	if (p->pfd >= 0)
		close(p->pfd);
	if (p->pfd2 >= 0)
		close(p->pfd2);
	if (p->bfd >= 0)
		close(p->bfd);
	p->pfd = p->pfd2 = p->bfd = -1;
}

int64_t replay_exec_call(const struct replay_ctx *cx, const struct replay_op *op, int fd,
			 int fd2, const struct replay_prep *p)
{
	if (p->err)
		return p->err;
	switch (op->act) {
	case ACT_OPEN:
		if (p->bfd >= 0)
			return replay_root_openat_beneath(p->bfd, p->tail,
							  (int)replay_open_flags(op->flags), op->mode);
		return replay_root_openat(p->rootfd, p->rel, (int)replay_open_flags(op->flags),
					  op->mode);
	case ACT_CLOSE:
		return neg(close(fd));
	case ACT_SYNC:
		sync();
		return 0;
	case ACT_MKDIR: case ACT_UNLINK: case ACT_RMDIR: case ACT_RENAME: case ACT_LINK:
	case ACT_SYMLINK: case ACT_MKNOD:
		return exec_at(op, p);
	case ACT_TRUNCATE:
		return exec_truncate(op, p);
	case ACT_READLINK:
		return exec_readlink(op, p);
	default:
		break;
	}
	if (op->file)
		return fd < 0 ? -EBADF : exec_fd(cx, op, fd, fd2);
	return p->ofd ? exec_on_fd(cx, op, p->pfd) : exec_in_parent(cx, op, p);
}

/* Climbing links riot made that a rename or link moves (root.h,
 * replay_root_relink()): their depths, before and after. */
struct link_move {
	int d1, d2;		/* the depths of the source's and target's
				 * parents below the top; on: both known */
	bool on, exchange;
};

static bool moves_links(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       (S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode));
}

/* Whether op moves climbing links, and their depths: out of the clock. */
static void links_find(const struct replay_ctx *cx, const struct replay_op *op,
		       const struct replay_prep *p, struct link_move *mv)
{
	mv->on = false;
	mv->exchange = op->act == ACT_RENAME && (op->flags & RENAME_EXCHANGE);
	if (op->act != ACT_RENAME || p->err)
		return;
	if (!moves_links(p->pfd, p->name) && !(mv->exchange && moves_links(p->pfd2, p->name2)))
		return;
	mv->d1 = replay_root_depth(cx->root, op->path, p->pfd);
	mv->d2 = replay_root_depth(cx->root, op->path2, p->pfd2);
	mv->on = mv->d1 >= 0 && mv->d2 >= 0 && mv->d1 != mv->d2;
}

/* Before the rename, once it is due: the links it moves up climb no
 * further than they will lie deep. */
static void links_before(const struct replay_prep *p, const struct link_move *mv)
{
	if (mv->d2 < mv->d1)
		(void)replay_root_relink(p->pfd, p->name, mv->d1, mv->d2 - mv->d1);
	if (mv->exchange && mv->d1 < mv->d2)
		(void)replay_root_relink(p->pfd2, p->name2, mv->d2, mv->d1 - mv->d2);
}

/* After it: the links it moved down climb to the top again; when it
 * failed, the ones shortened before are made whole where they are. A
 * hard link to a symlink gets its own link, climbing from its depth. */
static void links_after(const struct replay_ctx *cx, const struct replay_op *op,
			const struct replay_prep *p, const struct link_move *mv, int64_t rc)
{
	struct stat st;
	int d;

	if (op->act == ACT_LINK && !rc &&
	    fstatat(p->pfd2, p->name2, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode) &&
	    (d = replay_root_depth(cx->root, op->path2, p->pfd2)) >= 0)
		(void)replay_root_relink(p->pfd2, p->name2, d, 0);
	if (!mv->on)
		return;
	if (rc == 0) {
		if (mv->d2 > mv->d1)
			(void)replay_root_relink(p->pfd2, p->name2, mv->d2, 0);
		if (mv->exchange && mv->d1 > mv->d2)
			(void)replay_root_relink(p->pfd, p->name, mv->d1, 0);
	} else {
		if (mv->d2 < mv->d1)
			(void)replay_root_relink(p->pfd, p->name, mv->d1, 0);
		if (mv->exchange && mv->d1 < mv->d2)
			(void)replay_root_relink(p->pfd2, p->name2, mv->d2, 0);
	}
}

int64_t replay_exec_timed(const struct replay_ctx *cx, const struct replay_op *op, int fd,
			  int fd2, struct replay_issue *is)
{
	/* only an op with lookups can fail them: t is then set */
	uint64_t t = replay_exec_has_prep(op) ? replay_now_ns() : 0;
	struct replay_prep p;
	int64_t rc;

	/* the file's path was checked at issue; the fd itself may be a
	 * root's top reached another way (its path renamed since the open):
	 * looked at here, not in the clock (an fstat there made tar's
	 * fchmod, fchown and utimensat 1.6-2.0x the capture's p50) */
	if (op->file && fd >= 0 && changes_attrs(op->act) && replay_root_is_top(cx->root, fd)) {
		replay_issue_start(is);
		is->t1 = is->t0;
		return -EPERM;
	}
	if (replay_exec_prep(cx, op, &p) < 0) {
		t = replay_now_ns() - t;
		replay_issue_start(is);
		is->t1 = is->t0 + t;
		rc = p.err;
	} else {
		struct link_move mv;

		links_find(cx, op, &p, &mv);
		if (mv.on) {
			if (is->due_ns)
				replay_wait_until(is->pace, is->due_ns);
			links_before(&p, &mv);
		}
		replay_issue_start(is);
		rc = replay_exec_call(cx, op, fd, fd2, &p);
		replay_issue_stop(is);
		if (op->act == ACT_RENAME || op->act == ACT_LINK)
			links_after(cx, op, &p, &mv, rc);
		if (rc == -EXDEV && p.bfd >= 0) {
			/* the walk left its directory (a symlink to an
			 * absolute path, or up out of it): the whole path
			 * from the root, timed alone */
			close(p.bfd);
			p.bfd = -1;
			replay_issue_start(is);
			rc = replay_exec_call(cx, op, fd, fd2, &p);
			replay_issue_stop(is);
		}
	}
	replay_exec_unprep(&p);
	return rc;
}

/* Whether op would change the mode, owner, times or attributes of a root's
 * top directory (chmod("/"), or through a symlink to it): never done. */
static bool touches_top(const struct replay_ctx *cx, const struct replay_op *op,
			const char *rel)
{
	int fd;
	bool top;

	if (!changes_attrs(op->act))
		return false;
	if (strcmp(rel, ".") == 0)
		return true;
	fd = replay_path_fd(cx, op);
	if (fd < 0)
		return false;	/* the call fails the same way */
	top = replay_root_is_top(cx->root, fd);
	close(fd);
	return top;
}

unsigned replay_check_paths(const struct replay_ctx *cx, const struct replay_op *op)
{
	char rel[PATH_MAX];
	int fd, rc = 0;

	/* the plan skipped what the root refuses by its name alone; an fd
	 * op needs its path only to keep the root's top unchanged */
	if (op->file && op->act != ACT_OPEN && !changes_attrs(op->act))
		return SKIP_NONE;
	if (op->path)
		rc = replay_root_locate(cx->root, op->path, &fd, rel, sizeof(rel));
	if (!rc && op->path && touches_top(cx, op, rel))
		rc = -EPERM;
	if (!rc && op->act == ACT_SYMLINK)
		rc = replay_root_check_target(op->path, op->text ? op->text : "");
	if (!rc && op->path2 && (op->act == ACT_RENAME || op->act == ACT_LINK))
		rc = replay_root_locate(cx->root, op->path2, &fd, rel, sizeof(rel));
	if (rc == -EXDEV)
		return SKIP_PSEUDO;
	if (rc == -EPERM || rc == -EINVAL)
		return SKIP_HOSTILE;
	return SKIP_NONE;
}

/* ---- file object id -> value ---- */

#define CHUNK_BITS 16
#define CHUNK (1u << CHUNK_BITS)

static _Atomic int64_t *fdmap_cell(struct replay_fdmap *m, uint64_t id, bool make)
{
	uint64_t c = id >> CHUNK_BITS;
	int64_t *chunk;

	if (c >= (1u << 16))
		return NULL;
	chunk = atomic_load(&m->chunks[c]);
	if (!chunk && make) {
		/* mapped, not calloc'd: a calloc of 512 KiB served from the
		 * heap zeroes it all (a fio job's first open took 100 us more,
		 * out of the clock but between two paced ops); a mapping's
		 * pages are zero until touched */
		int64_t *fresh = mmap(NULL, CHUNK * sizeof(*fresh), PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		int64_t *none = NULL;

		if (fresh == MAP_FAILED)
			return NULL;
		if (atomic_compare_exchange_strong(&m->chunks[c], &none, fresh))
			chunk = fresh;
		else {
			munmap(fresh, CHUNK * sizeof(*fresh));
			chunk = none;
		}
	}
	return chunk ? (_Atomic int64_t *)&chunk[id & (CHUNK - 1)] : NULL;
}

struct replay_fdmap *replay_fdmap_new(void)
{
	struct replay_fdmap *m = calloc(1, sizeof(*m));
	_Atomic int64_t *c = m ? fdmap_cell(m, 1, true) : NULL;

	if (c)
		atomic_store(c, 0);	/* its page faulted in: still empty */
	return m;
}

int64_t replay_fdmap_get(struct replay_fdmap *m, uint64_t id)
{
	_Atomic int64_t *c = fdmap_cell(m, id, false);

	return c ? atomic_load(c) - 1 : -1;
}

int replay_fdmap_set(struct replay_fdmap *m, uint64_t id, int64_t v)
{
	_Atomic int64_t *c = fdmap_cell(m, id, true);

	if (!c)
		return -ENOMEM;
	atomic_store(c, v + 1);
	return 0;
}

int64_t replay_fdmap_take(struct replay_fdmap *m, uint64_t id)
{
	_Atomic int64_t *c = fdmap_cell(m, id, false);

	return c ? atomic_exchange(c, 0) - 1 : -1;
}

void replay_fdmap_free(struct replay_fdmap *m)
{
	for (unsigned i = 0; i < (1u << 16); i++) {
		int64_t *chunk = atomic_load(&m->chunks[i]);

		if (chunk)
			munmap(chunk, CHUNK * sizeof(*chunk));
	}
}

void replay_fdmap_drain(struct replay_fdmap *m, void (*fn)(int64_t v, void *arg), void *arg)
{
	for (unsigned c = 0; c < (1u << 16); c++) {
		int64_t *chunk = atomic_load(&m->chunks[c]);

		for (unsigned i = 0; chunk && i < CHUNK; i++)
			if (chunk[i])
				fn(chunk[i] - 1, arg);
	}
}

/* Two threads reopening the same file at once would both keep an fd. */
static pthread_mutex_t reopen_lock = PTHREAD_MUTEX_INITIALIZER;

int replay_files_fd(const struct replay_ctx *cx, struct replay_fdmap *fds,
		    const struct replay_op *op, bool second, bool *reopened)
{
	uint64_t id = second ? op->file2 : op->file;
	int64_t fd = replay_fdmap_get(fds, id);

	if (fd == REPLAY_OPEN_FAILED)
		return -EBADF;
	if (fd >= 0)
		return (int)fd;
	pthread_mutex_lock(&reopen_lock);
	fd = replay_fdmap_get(fds, id);
	if (fd < 0) {
		fd = replay_reopen(cx, op, second);
		if (fd >= 0 && replay_fdmap_set(fds, id, fd) < 0) {
			close((int)fd);
			fd = -ENOMEM;
		}
		*reopened = fd >= 0;
	}
	pthread_mutex_unlock(&reopen_lock);
	return fd == REPLAY_OPEN_FAILED ? -EBADF : (int)fd;
}

void replay_files_opened(struct replay_fdmap *fds, const struct replay_op *op, int64_t rc)
{
	if (rc >= 0 && (!op->file || replay_fdmap_set(fds, op->file, rc) < 0))
		close((int)rc);	/* a failed capture has no file object */
	else if (rc < 0 && op->file)
		replay_fdmap_set(fds, op->file, REPLAY_OPEN_FAILED);
}

static void close_fd(int64_t fd, void *arg)
{
	(void)arg;
	if (fd != REPLAY_OPEN_FAILED)
		close((int)fd);
}

void replay_fdmap_close(struct replay_fdmap *fds)
{
	replay_fdmap_drain(fds, close_fd, NULL);
}

void replay_files_free(struct replay_fdmap *fds)
{
	if (!fds)
		return;
	replay_fdmap_close(fds);
	replay_fdmap_free(fds);
	free(fds);
}
