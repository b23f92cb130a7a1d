/* replay/tree_create.c: creates the initial tree beneath a confined root
 * (replay/init.h): stale paths removed, directories and symlinks in order
 * on this thread, regular files filled in parallel. Every file system call
 * names its object through replay/root.h: an fd from openat2
 * RESOLVE_IN_ROOT, or an *at call on a confined parent fd with a single
 * component. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "replay/init.h"
#include "replay/tree_derive.h"
#include "lib/cli.h"
#include "lib/text.h"

#define INIT_CHUNK (1u << 20)	/* bytes of a file's fill made at once */
/* Bytes per write call of that fill. The page cache keeps a file in
 * folios as large as the writes that made it (ext4, xfs and btrfs on
 * recent kernels), and a small write into a large folio costs in
 * proportion to the folio: a 4 KiB pwrite costs 3.8 us in a file written
 * 4 KiB at a time, 25 us in one written 1 MiB at a time (ext4, Linux
 * 6.18). Databases, fio's layout and most programs write their files in
 * pages: init does the same, so a replay's overwrites cost what they did
 * for the captured program, not what init's write size makes them. */
#define INIT_WRITE 4096u

static const char *const skip_names[INIT_SKIP_COUNT] = {
	[INIT_SKIP_PSEUDO] = "pseudo",
	[INIT_SKIP_SPECIAL] = "special",
	[INIT_SKIP_TRUNCATED] = "truncated",
	[INIT_SKIP_NO_TARGET] = "no_target",
	[INIT_SKIP_HOSTILE] = "hostile",
};

const char *init_skip_name(enum init_skip s)
{
	return (unsigned)s < INIT_SKIP_COUNT ? skip_names[s] : "unknown";
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- shared state of one creation ---- */

struct creation {
	const struct replay_root *root;
	const struct fill *fill;
	const struct init_opts *o;
	const struct init_tree *t;
	struct init_result *res;
	atomic_size_t next_file;	/* index into the files group */
	atomic_size_t next_read;	/* ... for read_worker() */
	atomic_size_t files_done;
	atomic_uint_fast64_t bytes_done;
	atomic_uint_fast64_t failed;
	pthread_mutex_t lock;		/* res->first_failure */
};

static void record_failure(struct creation *c, const char *path, const char *what, int rc)
{
	atomic_fetch_add(&c->failed, 1);
	pthread_mutex_lock(&c->lock);
	if (!c->res->first_failure[0])
		snprintf(c->res->first_failure, sizeof(c->res->first_failure), "%s: %s: %s",
			 path, what, strerror(-rc));
	pthread_mutex_unlock(&c->lock);
}

/* ---- removal of what the workload expected absent ---- */

static int remove_tree(int dirfd, const char *name);

static int remove_entry(int dirfd, const char *name, bool is_dir)
{
	if (is_dir)
		return remove_tree(dirfd, name);
	return unlinkat(dirfd, name, 0) < 0 ? -errno : 0;
}

/* Removes directory name beneath dirfd and everything in it, never
 * following a symlink (O_NOFOLLOW, single components from readdir). */
static int remove_tree(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), rc = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		rc = -errno;
		close(fd);
		return rc;
	}
	while (rc == 0 && (de = readdir(d))) {
		struct stat st;
		bool is_dir = de->d_type == DT_DIR;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (de->d_type == DT_UNKNOWN &&
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			is_dir = S_ISDIR(st.st_mode);
		rc = remove_entry(fd, de->d_name, is_dir);
	}
	closedir(d);
	if (rc == 0 && unlinkat(dirfd, name, AT_REMOVEDIR) < 0)
		rc = -errno;
	return rc;
}

/* 1 when something was removed, 0 when nothing was there, -errno. */
static int remove_stale(const struct replay_root *r, const char *path)
{
	char name[NAME_MAX + 1];
	struct stat st;
	int pfd = replay_root_parent(r, path, name, sizeof(name)), rc;

	if (pfd == -ENOENT || pfd == -ENOTDIR || pfd == -EINVAL)
		return 0;	/* no parent, or a root itself: nothing to do */
	if (pfd < 0)
		return pfd;
	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		rc = errno == ENOENT ? 0 : -errno;
	else
		rc = remove_entry(pfd, name, S_ISDIR(st.st_mode)) ?: 1;
	close(pfd);
	return rc;
}

static void remove_all_stale(struct creation *c)
{
	for (size_t i = 0; i < c->t->nabsent; i++) {
		int rc = remove_stale(c->root, c->t->absent[i]);

		if (rc > 0)
			c->res->removed++;
		else if (rc < 0)
			record_failure(c, c->t->absent[i], "removing a stale path", rc);
	}
}

/* ---- directories and symlinks ---- */

static int is_root_itself(const struct replay_root *r, const char *path)
{
	char rel[PATH_MAX];
	int rootfd;

	return replay_root_locate(r, path, &rootfd, rel, sizeof(rel)) == 0 &&
	       strcmp(rel, ".") == 0;
}

/* Something not a directory is where one belongs: a leftover of an
 * earlier run; files and symlinks are rewritten anyway, so it goes. */
static int make_dir(const struct replay_root *r, const char *path)
{
	char name[NAME_MAX + 1];
	struct stat st;
	int pfd, rc;

	if (is_root_itself(r, path))
		return 0;
	pfd = replay_root_parent(r, path, name, sizeof(name));
	if (pfd < 0)
		return pfd;
	rc = mkdirat(pfd, name, 0755) < 0 ? -errno : 0;
	if (rc == -EEXIST && fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode))
			rc = 0;
		else if (unlinkat(pfd, name, 0) == 0)
			rc = mkdirat(pfd, name, 0755) < 0 ? -errno : 0;
	}
	close(pfd);
	return rc;
}

static bool same_link(int pfd, const char *name, const char *target)
{
	char buf[PATH_MAX + 1];
	ssize_t n = readlinkat(pfd, name, buf, sizeof(buf));

	return n >= 0 && (size_t)n == strlen(target) && memcmp(buf, target, (size_t)n) == 0;
}

/* The captured target as replay_root_link_target() makes it, so the link
 * leads no tool out of the root. */
static int make_symlink(const struct replay_root *r, const char *path, const char *captured)
{
	char name[NAME_MAX + 1], target[PATH_MAX];
	struct stat st;
	int pfd = replay_root_parent(r, path, name, sizeof(name)), rc;

	if (pfd < 0)
		return pfd;
	rc = replay_root_link_target(r, path, pfd, captured, target, sizeof(target));
	if (rc < 0) {
		close(pfd);
		return rc;
	}
	rc = symlinkat(target, pfd, name) < 0 ? -errno : 0;
	if (rc == -EEXIST && fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode) && same_link(pfd, name, target))
			rc = 0;
		else if (S_ISDIR(st.st_mode))
			rc = -EISDIR;
		else if (unlinkat(pfd, name, 0) == 0)
			rc = symlinkat(target, pfd, name) < 0 ? -errno : 0;
	}
	close(pfd);
	return rc;
}

static void make_dirs_and_links(struct creation *c)
{
	const struct init_tree *t = c->t;

	for (size_t i = 0; i < t->ndirs + t->nsymlinks; i++) {
		const struct init_entry *e = &t->ents[i];
		int rc = e->kind == INIT_DIR ? make_dir(c->root, e->path) :
			 make_symlink(c->root, e->path, e->target);

		if (rc < 0)
			record_failure(c, e->path, e->kind == INIT_DIR ? "mkdir" : "symlink", rc);
	}
}

/* The extended attributes a file or directory had, with fill bytes of
 * their sizes. 0 or -errno. */
static int set_xattrs(struct creation *c, const struct init_entry *e, int fd)
{
	uint64_t seed = init_path_seed(e->path, c->o->seed);

	for (const struct init_xattr *x = e->xattrs; x; x = x->next) {
		unsigned char *buf;
		int rc;

		if (!x->create)
			continue;
		buf = malloc(x->size ? x->size : 1);
		if (!buf)
			return -ENOMEM;
		fill_bytes(c->fill, seed ^ 0x9e3779b97f4a7c15ull, 0, buf, x->size);
		rc = fsetxattr(fd, x->name, buf, x->size, 0) < 0 ? -errno : 0;
		free(buf);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Gives directories the modes the workload saw, once everything beneath
 * them exists (a mode without write permission would stop their filling by
 * anyone but root). A root itself keeps its own. */
static void set_dir_modes(struct creation *c)
{
	const struct init_tree *t = c->t;

	for (size_t i = t->ndirs; i-- > 0;) {
		const struct init_entry *e = &t->ents[i];
		char name[NAME_MAX + 1];
		int pfd, fd, rc = 0;

		if (is_root_itself(c->root, e->path))
			continue;
		pfd = replay_root_parent(c->root, e->path, name, sizeof(name));
		if (pfd < 0)
			continue;	/* counted when mkdir failed */
		fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fchmod(fd, e->has_mode ? e->mode : 0755) < 0)
			rc = -errno;
		else
			rc = set_xattrs(c, e, fd);
		if (fd >= 0)
			close(fd);
		close(pfd);
		if (rc < 0)
			record_failure(c, e->path, "chmod", rc);
	}
}

/* ---- files ---- */

static int write_all(int fd, const unsigned char *buf, size_t len, uint64_t off)
{
	while (len > 0) {
		size_t want = len < INIT_WRITE ? len : INIT_WRITE - (size_t)(off % INIT_WRITE);
		ssize_t n = pwrite(fd, buf, want, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		buf += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Opens a file for rewriting; a symlink where the file belongs (an earlier
 * run's leftover) is removed, never written through. */
static int open_for_fill(const struct replay_root *r, const char *path)
{
	int flags = O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW;
	int fd = replay_root_open_path(r, path, flags, 0644);
	char name[NAME_MAX + 1];
	int pfd;

	if (fd != -ELOOP)
		return fd;
	pfd = replay_root_parent(r, path, name, sizeof(name));
	if (pfd < 0)
		return pfd;
	fd = unlinkat(pfd, name, 0) < 0 ? -errno : 0;
	close(pfd);
	return fd < 0 ? fd : replay_root_open_path(r, path, flags, 0644);
}

static int fill_file(struct creation *c, const struct init_entry *e, unsigned char *buf)
{
	uint64_t seed = init_path_seed(e->path, c->o->seed);
	int fd = open_for_fill(c->root, e->path), rc = 0;

	if (fd < 0)
		return fd;
	for (uint64_t off = 0; off < e->size && rc == 0;) {
		size_t n = e->size - off < INIT_CHUNK ? (size_t)(e->size - off) : INIT_CHUNK;

		fill_bytes(c->fill, seed, off, buf, n);
		rc = write_all(fd, buf, n, off);
		off += n;
		atomic_fetch_add(&c->bytes_done, n);
	}
	/* the mode the workload saw (umask and an earlier run's mode aside) */
	if (rc == 0 && fchmod(fd, e->has_mode ? e->mode : 0644) < 0)
		rc = -errno;
	if (rc == 0)
		rc = set_xattrs(c, e, fd);
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	return rc;
}

static void *file_worker(void *arg)
{
	struct creation *c = arg;
	const struct init_tree *t = c->t;
	size_t first = t->ndirs + t->nsymlinks;
	unsigned char *buf = malloc(INIT_CHUNK);
	size_t i;

	while ((i = atomic_fetch_add(&c->next_file, 1)) < t->nfiles) {
		const struct init_entry *e = &t->ents[first + i];
		int rc = buf ? fill_file(c, e, buf) : -ENOMEM;

		if (rc < 0)
			record_failure(c, e->path, "writing", rc);
		atomic_fetch_add(&c->files_done, 1);
	}
	free(buf);
	return NULL;
}

/* A file init made has its atime equal to its mtime and ctime, and a
 * directory an atime older than the entries made in it, so under relatime
 * (the default mount option) a replay's first read of each file and
 * first listing of each directory wrote its atime, which the captured
 * program's read of a file read before since it last changed did not:
 * git add's reads, 1.5 us p50 when captured, were replayed at 2.4 us, and
 * at 0.9 us on a noatime mount (ext4). Once the tree is made, and the
 * coarse clock the kernel stamps inodes with has moved past the last
 * change, each file is read once and each directory listed once, so its
 * atime is newer than its mtime and ctime. Best effort: what cannot be
 * read here (its making failed and was counted, or its mode keeps a
 * non-root init out) stays as it is. */
static void next_coarse_tick(void);

/* Whether st's atime is past its mtime and ctime (what relatime asks). */
static bool atime_newer(const struct stat *st)
{
	const struct timespec *a = &st->st_atim, *m = &st->st_mtim, *c = &st->st_ctim;

	return (a->tv_sec > m->tv_sec || (a->tv_sec == m->tv_sec && a->tv_nsec > m->tv_nsec)) &&
	       (a->tv_sec > c->tv_sec || (a->tv_sec == c->tv_sec && a->tv_nsec > c->tv_nsec));
}

/* Whether fd's filesystem writes atimes on reads (not noatime; for a
 * directory, not nodiratime). */
static bool atime_kept(int fd, bool dir)
{
	struct statvfs sv;

	return fstatvfs(fd, &sv) == 0 && !(sv.f_flag & ST_NOATIME) &&
	       !(dir && (sv.f_flag & ST_NODIRATIME));
}

static void read_entry(const struct replay_root *root, const struct init_entry *e)
{
	bool dir = e->kind == INIT_DIR;
	int fd = replay_root_open_path(root, e->path,
				       O_RDONLY | O_NOFOLLOW | (dir ? O_DIRECTORY : 0), 0);
	char buf[1024];
	struct stat st;

	if (fd < 0)
		return;
	/* a kernel that stamped the last change finer than its coarse clock
	 * (multigrain timestamps) can give the read the same time: once
	 * more after the next tick */
	for (int tries = 0; tries < 2; tries++) {
		if (dir && lseek(fd, 0, SEEK_SET) < 0)
			break;
		if ((dir ? getdents64(fd, buf, sizeof(buf)) : pread(fd, buf, 1, 0)) < 0)
			break;	/* the atime stays as it was */
		if (fstat(fd, &st) < 0 || atime_newer(&st) || !atime_kept(fd, dir))
			break;
		next_coarse_tick();
	}
	close(fd);
}

static void *read_worker(void *arg)
{
	struct creation *c = arg;
	const struct init_tree *t = c->t;
	size_t i;

	while ((i = atomic_fetch_add(&c->next_read, 1)) < t->ndirs + t->nfiles)
		read_entry(c->root, &t->ents[i < t->ndirs ? i : i + t->nsymlinks]);
	return NULL;
}

/* Returns once the coarse real-time clock has ticked (at most one tick,
 * 1-10 ms, after the call). */
static void next_coarse_tick(void)
{
	struct timespec t0, t, ms = { 0, 1000000 };

	clock_gettime(CLOCK_REALTIME_COARSE, &t0);
	do {
		nanosleep(&ms, NULL);
		clock_gettime(CLOCK_REALTIME_COARSE, &t);
	} while (t.tv_sec == t0.tv_sec && t.tv_nsec == t0.tv_nsec);
}

static unsigned thread_count(const struct init_opts *o)
{
	long n = o->threads ? (long)o->threads : sysconf(_SC_NPROCESSORS_ONLN);

	if (n < (o->threads ? 1 : 2))
		n = o->threads ? 1 : 2;
	return n > INIT_MAX_THREADS ? INIT_MAX_THREADS : (unsigned)n;
}

static void draw_progress(struct creation *c, bool last)
{
	uint64_t done = atomic_load(&c->bytes_done), total = c->t->bytes;
	size_t files = atomic_load(&c->files_done);
	unsigned width = 30, fill = total ? (unsigned)(done * width / total) : width;
	char a[32], b[32], bar[31];

	memset(bar, '#', fill);
	memset(bar + fill, '.', width - fill);
	bar[width] = '\0';
	fprintf(stderr, "\rinit [%s] %3u%% %s / %s, %zu / %zu files%s", bar,
		total ? (unsigned)(done * 100 / total) : 100,
		riot_fmt_bytes(done, a, sizeof(a)), riot_fmt_bytes(total, b, sizeof(b)),
		files, c->t->nfiles, last ? "\n" : "");
	fflush(stderr);
}

/* Starts thread_count() threads of fn(c) in tids: how many started, 0
 * with *rc the error of the first that did not. */
static unsigned start_workers(struct creation *c, void *(*fn)(void *), pthread_t *tids, int *rc)
{
	unsigned n = thread_count(c->o), started = 0;

	*rc = 0;
	for (; started < n; started++)
		if ((*rc = -pthread_create(&tids[started], NULL, fn, c)) < 0)
			break;
	return started;
}

/* Runs the file workers; this thread draws the progress bar meanwhile. */
static int make_files(struct creation *c)
{
	pthread_t tids[INIT_MAX_THREADS];
	struct timespec tick = { 0, 200 * 1000 * 1000 };
	int rc;
	unsigned started = start_workers(c, file_worker, tids, &rc);

	if (started == 0)
		return rc;
	while (c->o->progress && atomic_load(&c->files_done) < c->t->nfiles) {
		draw_progress(c, false);
		nanosleep(&tick, NULL);
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	if (c->o->progress)
		draw_progress(c, true);
	return 0;
}

/* read_worker() over the tree, once every time of it is set. */
static void read_tree(struct creation *c)
{
	pthread_t tids[INIT_MAX_THREADS];
	unsigned started;
	int rc;

	if (!c->t->ndirs && !c->t->nfiles)
		return;
	next_coarse_tick();
	started = start_workers(c, read_worker, tids, &rc);
	if (started == 0)
		read_worker(c);	/* no thread: this one reads it all */
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
}

/* Flushes every root's file system, so the write-back of init's data does
 * not land in the measurements of a replay that follows. */
static void sync_roots(const struct replay_root *r, const struct init_tree *t)
{
	int rootfd;
	char rel[PATH_MAX];

	if (replay_root_locate(r, "/", &rootfd, rel, sizeof(rel)) == 0)
		syncfs(rootfd);
	for (size_t i = 0; i < t->n; i++)
		if (t->ents[i].kind == INIT_DIR && is_root_itself(r, t->ents[i].path) &&
		    replay_root_locate(r, t->ents[i].path, &rootfd, rel, sizeof(rel)) == 0)
			syncfs(rootfd);
}

/* ---- free space ---- */

/* Bytes of the regular files already at the tree's file paths beneath
 * rootfd: a re-run rewrites them in place, so they count as free. */
static uint64_t existing_bytes(const struct replay_root *r, const struct init_tree *t,
			       int rootfd)
{
	char rel[PATH_MAX];
	uint64_t sum = 0;

	for (size_t i = t->ndirs + t->nsymlinks; i < t->n; i++) {
		struct stat st;
		int fd, rfd;

		if (replay_root_locate(r, t->ents[i].path, &rfd, rel, sizeof(rel)) < 0 ||
		    rfd != rootfd)
			continue;
		fd = replay_root_open_path(r, t->ents[i].path, O_PATH | O_NOFOLLOW, 0);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
			sum += (uint64_t)st.st_blocks * 512;
		close(fd);
	}
	return sum;
}

/* Refuses a tree larger than the free space of the root it goes to, so a
 * too-big (or hostile) log fails before it fills a disk. */
static int check_space(const struct replay_root *r, const struct init_tree *t,
		       char *err, size_t errlen)
{
	struct { int fd; uint64_t bytes; } need[16];
	unsigned nneed = 0;
	char rel[PATH_MAX], a[32], b[32];

	for (size_t i = t->ndirs + t->nsymlinks; i < t->n; i++) {
		int rootfd;
		unsigned k;

		if (replay_root_locate(r, t->ents[i].path, &rootfd, rel, sizeof(rel)) < 0)
			continue;
		for (k = 0; k < nneed && need[k].fd != rootfd; k++)
			;
		if (k == nneed) {
			if (nneed == 16)
				continue;
			need[nneed++] = (typeof(need[0])){ rootfd, 0 };
		}
		need[k].bytes += t->ents[i].size;
	}
	for (unsigned k = 0; k < nneed; k++) {
		struct statvfs sv;

		if (fstatvfs(need[k].fd, &sv) < 0)
			continue;
		/* leave room for metadata: 2 % of the need, at least 1 MiB */
		if (need[k].bytes + need[k].bytes / 50 + (1u << 20) >
		    (uint64_t)sv.f_bavail * sv.f_frsize + existing_bytes(r, t, need[k].fd)) {
			snprintf(err, errlen, "the tree needs %s but its file system has %s free",
				 riot_fmt_bytes(need[k].bytes, a, sizeof(a)),
				 riot_fmt_bytes((uint64_t)sv.f_bavail * sv.f_frsize, b, sizeof(b)));
			return -ENOSPC;
		}
	}
	return 0;
}

/* ---- entry points ---- */

static void tree_counts(const struct init_tree *t, struct init_result *res)
{
	res->dirs = t->ndirs;
	res->files = t->nfiles;
	res->symlinks = t->nsymlinks;
	res->bytes = t->bytes;
	res->max_open = t->max_open;
	memcpy(res->skipped, t->skipped, sizeof(res->skipped));
}

/* Keeps the entries of o->shard: every directory (each shard makes the
 * ones its files need; mkdir of an existing one is no error), the
 * symlinks, files and stale paths whose path hashes to it. The shards of
 * one N together make the whole tree, each entry once. */
static void tree_shard(struct init_tree *t, const struct riot_shard *s)
{
	size_t w = t->ndirs, nlinks = 0, nfiles = 0, nabsent = 0;

	if (!s->n)
		return;
	t->bytes = 0;
	for (size_t i = t->ndirs; i < t->n; i++) {
		const struct init_entry *e = &t->ents[i];

		if (!riot_shard_has_path(s, e->path))
			continue;
		nlinks += e->kind == INIT_SYMLINK;
		nfiles += e->kind == INIT_FILE;
		t->bytes += e->kind == INIT_FILE ? e->size : 0;
		t->ents[w++] = *e;
	}
	t->n = w;
	t->nsymlinks = nlinks;
	t->nfiles = nfiles;
	for (size_t i = 0; i < t->nabsent; i++)
		if (riot_shard_has_path(s, t->absent[i]))
			t->absent[nabsent++] = t->absent[i];
	t->nabsent = nabsent;
}

int replay_init_run(const struct riot_logs *logs, const struct replay_root *root,
		    const struct fill *fill, const struct init_opts *o,
		    struct init_result *res, char *err, size_t errlen)
{
	double start = now_s();
	struct init_tree t;
	struct creation c = { .root = root, .fill = fill, .o = o, .t = &t, .res = res };
	int rc;

	memset(res, 0, sizeof(*res));
	rc = init_tree_build(logs, &t, err, errlen);
	if (rc < 0)
		return rc;
	tree_shard(&t, &o->shard);
	tree_counts(&t, res);
	rc = check_space(root, &t, err, errlen);
	if (rc < 0)
		goto out;
	pthread_mutex_init(&c.lock, NULL);
	remove_all_stale(&c);
	make_dirs_and_links(&c);
	rc = make_files(&c);
	if (rc < 0) {
		snprintf(err, errlen, "cannot start file threads: %s", strerror(-rc));
	} else {
		set_dir_modes(&c);
		read_tree(&c);
		sync_roots(root, &t);
	}
	res->failed = atomic_load(&c.failed);
	pthread_mutex_destroy(&c.lock);
out:
	init_tree_free(&t);
	res->seconds = now_s() - start;
	return rc;
}

/* Whether the tree holds path as absent at the start, or beneath such. */
static bool tree_absent(const struct init_tree *t, const char *path)
{
	for (size_t i = 0; i < t->nabsent; i++) {
		size_t n = strlen(t->absent[i]);

		if (strncmp(path, t->absent[i], n) == 0 && (path[n] == '\0' || path[n] == '/'))
			return true;
	}
	return false;
}

/* dir split into its parent and its last name, in one allocation. */
static int split_dir(struct replay_map *m, char *err, size_t errlen)
{
	size_t n = strlen(m->dir);
	char *buf, *slash;

	while (n > 1 && m->dir[n - 1] == '/')
		n--;
	buf = malloc(n + 3);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(buf, m->dir, n);
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash) {	/* "dst": ".", "dst" */
		memmove(buf + 2, buf, n + 1);
		buf[0] = '.';
		buf[1] = '\0';
		m->name = buf + 2;
	} else {
		*slash = '\0';
		m->name = slash + 1;
		if (slash == buf) {	/* "/dst": "/", "dst" */
			memmove(buf + 2, slash + 1, strlen(slash + 1) + 1);
			buf[0] = '/';
			buf[1] = '\0';
			m->name = buf + 2;
		}
	}
	if (!*m->name || strcmp(m->name, ".") == 0 || strcmp(m->name, "..") == 0) {
		snprintf(err, errlen, "--map %s=%s: the workload made %s, so the directory must "
			 "be named by its last component", m->prefix, m->dir, m->prefix);
		free(buf);
		m->name = NULL;
		return -EINVAL;
	}
	m->dir = buf;
	m->owned = buf;
	return 0;
}

int replay_maps_for_log(const struct riot_logs *logs, struct replay_map *maps, unsigned nmaps,
			char *err, size_t errlen)
{
	struct init_tree t;
	int rc = 0;

	if (!nmaps)
		return 0;
	rc = init_tree_build(logs, &t, err, errlen);
	if (rc < 0)
		return rc;
	for (unsigned i = 0; i < nmaps && rc == 0; i++)
		if (!maps[i].name && tree_absent(&t, maps[i].prefix))
			rc = split_dir(&maps[i], err, errlen);
	init_tree_free(&t);
	return rc;
}

void replay_maps_release(struct replay_map *maps, unsigned nmaps)
{
	for (unsigned i = 0; i < nmaps; i++) {
		free(maps[i].owned);
		maps[i].owned = NULL;
	}
}

int replay_init_plan(const struct riot_logs *logs, const struct riot_shard *shard,
		     int (*fn)(const struct init_entry *e, void *arg), void *arg,
		     struct init_result *res, char *err, size_t errlen)
{
	double start = now_s();
	struct init_tree t;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = init_tree_build(logs, &t, err, errlen);
	if (rc < 0)
		return rc;
	if (shard)
		tree_shard(&t, shard);
	tree_counts(&t, res);
	for (size_t i = 0; i < t.n && rc == 0; i++)
		rc = fn(&t.ents[i], arg);
	init_tree_free(&t);
	res->seconds = now_s() - start;
	return rc;
}

int replay_init_max_open(const struct riot_logs *logs, uint64_t *max_open, char *err,
			 size_t errlen)
{
	return init_tree_max_open(logs, max_open, err, errlen);
}

int replay_init_print_entry(const struct init_entry *e, void *arg)
{
	FILE *out = arg;

	fputs(e->kind == INIT_DIR ? "dir " : e->kind == INIT_FILE ? "file " : "symlink ", out);
	text_put(out, e->path);
	if (e->kind == INIT_FILE)
		fprintf(out, " %llu", (unsigned long long)e->size);
	if (e->kind == INIT_SYMLINK) {
		fputs(" -> ", out);
		text_put(out, e->target);
	}
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}
