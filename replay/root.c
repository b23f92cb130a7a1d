/* replay/root.c: confinement of captured paths beneath roots (root.h).
 *
 * The string work here only decides which root a path belongs to and
 * refuses what is plainly hostile; the guarantee is the kernel's: every
 * lookup is openat2(RESOLVE_IN_ROOT) relative to a root's directory fd, so
 * ".." and symlinks met during resolution are clamped at that root. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/pathname.h"
#include "lib/cli.h"
#include "replay/root.h"

struct root_dir {
	char *prefix;		/* captured prefix without trailing '/'; "" is / */
	size_t len;
	int fd;
	dev_t dev;		/* the directory's identity, for
				 * replay_root_is_top() */
	ino_t ino;
	char *real;		/* its path as the kernel names it */
	size_t real_len;
	char *name;		/* the prefix is this name inside fd, or NULL */
};

struct replay_root {
	struct root_dir *dirs;	/* dirs[0]: the main root (prefix "") */
	unsigned n;
};

static int open_resolved(int dirfd, const char *path, int flags, mode_t mode, uint64_t resolve)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = resolve,
	};
	long fd;

	/* openat2 refuses a mode without O_CREAT / O_TMPFILE */
	if (flags & O_CREAT || (flags & O_TMPFILE) == O_TMPFILE)
		how.mode = mode;
	fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	return fd < 0 ? -errno : (int)fd;
}

int replay_root_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	return open_resolved(dirfd, path, flags, mode, REPLAY_RESOLVE);
}

int replay_root_openat_beneath(int dirfd, const char *path, int flags, mode_t mode)
{
	return open_resolved(dirfd, path, flags, mode, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
}

/* A component-wise check: absolute, no "." or ".." components. Empty
 * components (repeated '/') are harmless and the kernel collapses them. */
static bool path_is_clean(const char *p)
{
	const char *c;
	size_t n;

	if (p[0] != '/')
		return false;
	while (path_next(&p, &c, &n))
		if (path_is_dot(c, n) || path_is_dotdot(c, n))
			return false;
	return true;
}

/* True when a and b name the same components ("/a//b/" is "/a/b"). */
static bool same_components(const char *a, const char *b)
{
	const char *ca = NULL, *cb = NULL;
	size_t na = 0, nb = 0;

	for (;;) {
		bool ma = path_next(&a, &ca, &na), mb = path_next(&b, &cb, &nb);

		if (ma != mb)
			return false;
		if (!ma)
			return true;
		if (na != nb || memcmp(ca, cb, na) != 0)
			return false;
	}
}

/* Where a rewritten link is made before it replaces the old one
 * (replay_root_relink()): riot's name, refused to captured paths as the
 * marker's is, so no workload's file is ever taken for it. */
#define RELINK_TMP REPLAY_ROOT_MARKER ".relink"

static bool last_is(const char *p, size_t n, const char *name)
{
	size_t m = strlen(name);

	return n >= m && memcmp(p + n - m, name, m) == 0 && (n == m || p[n - m - 1] == '/');
}

/* True when the last component of p is the marker's name (or the name
 * riot rewrites links under): such a path is refused wherever it lies, so
 * no symlink to the root's top can lead a replayed call to the marker (and
 * symlink targets ending in it are refused: replay_root_check_target()). */
static bool names_marker(const char *p)
{
	size_t n = strlen(p);

	while (n > 0 && p[n - 1] == '/')
		n--;
	return last_is(p, n, REPLAY_ROOT_MARKER) || last_is(p, n, RELINK_TMP);
}

/* True when p is prefix or lies beneath it, by whole components. */
static bool under_prefix(const char *p, const char *prefix, size_t len)
{
	return strncmp(p, prefix, len) == 0 && (p[len] == '/' || p[len] == '\0');
}

static bool is_pseudo_fs(const char *p)
{
	while (*p == '/')
		p++;
	return under_prefix(p, "proc", 4) || under_prefix(p, "sys", 3) ||
	       under_prefix(p, "dev", 3);
}

static int open_dir_fd(const char *dir, char *err, size_t errlen)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", dir, strerror(e));
		return -e;
	}
	return fd;
}

/* Copies a map prefix without trailing '/', refusing what is not clean. */
static int set_prefix(struct root_dir *d, const char *prefix, char *err, size_t errlen)
{
	size_t len = strlen(prefix);

	if (!path_is_clean(prefix)) {
		snprintf(err, errlen, "map prefix '%s': must be absolute, without . or ..",
			 prefix);
		return -EINVAL;
	}
	while (len > 0 && prefix[len - 1] == '/')
		len--;
	d->prefix = strndup(prefix, len);
	if (!d->prefix) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	d->len = len;
	return 0;
}

struct replay_root *replay_root_open(const char *dir, const struct replay_map *maps,
				     unsigned nmaps, char *err, size_t errlen)
{
	struct replay_root *r = calloc(1, sizeof(*r));
	struct stat st;
	int rc = -ENOMEM;

	if (!r || !(r->dirs = calloc(nmaps + 1, sizeof(*r->dirs)))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (unsigned i = 0; i <= nmaps; i++) {
		struct root_dir *d = &r->dirs[i];

		d->fd = -1;
		r->n = i + 1;
		rc = i ? set_prefix(d, maps[i - 1].prefix, err, errlen) :
			 set_prefix(d, "/", err, errlen);
		if (rc < 0)
			goto fail;
		rc = open_dir_fd(i ? maps[i - 1].dir : dir, err, errlen);
		if (rc < 0)
			goto fail;
		d->fd = rc;
		if (fstat(d->fd, &st) < 0) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", i ? maps[i - 1].dir : dir, strerror(-rc));
			goto fail;
		}
		d->dev = st.st_dev;
		d->ino = st.st_ino;
		if (!(d->real = realpath(i ? maps[i - 1].dir : dir, NULL))) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", i ? maps[i - 1].dir : dir, strerror(-rc));
			goto fail;
		}
		d->real_len = strlen(d->real);
		if (i && maps[i - 1].name && !(d->name = strdup(maps[i - 1].name))) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
			goto fail;
		}
	}
	return r;
fail:
	replay_root_close(r);
	errno = -rc;
	return NULL;
}

int replay_root_sync(const struct replay_root *r)
{
	for (unsigned i = 0; i < r->n; i++) {
		bool done = false;

		/* maps on the same filesystem are written back once */
		for (unsigned j = 0; j < i && !done; j++)
			done = r->dirs[j].dev == r->dirs[i].dev;
		if (done || r->dirs[i].fd < 0)
			continue;
		/* the roots are O_PATH fds, which syncfs refuses */
		int fd = openat(r->dirs[i].fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0 || syncfs(fd) < 0) {
			int e = errno;

			if (fd >= 0)
				close(fd);
			return -e;
		}
		close(fd);
	}
	return 0;
}

void replay_root_close(struct replay_root *r)
{
	if (!r)
		return;
	for (unsigned i = 0; i < r->n; i++) {
		if (r->dirs[i].fd >= 0)
			close(r->dirs[i].fd);
		free(r->dirs[i].prefix);
		free(r->dirs[i].real);
		free(r->dirs[i].name);
	}
	free(r->dirs);
	free(r);
}

/* The root whose prefix is the longest one abs lies beneath: a map
 * before the main root, so --map /=DIR takes everything. */
static const struct root_dir *pick_root(const struct replay_root *r, const char *abs)
{
	const struct root_dir *best = NULL;

	for (unsigned i = 1; i < r->n; i++)
		if ((!best || r->dirs[i].len > best->len) &&
		    under_prefix(abs, r->dirs[i].prefix, r->dirs[i].len))
			best = &r->dirs[i];
	return best ? best : &r->dirs[0];
}

int replay_map_arg(char *arg, struct replay_map *maps, unsigned *n)
{
	char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1] || *n == REPLAY_MAPS_MAX)
		return riot_usage("--map wants PREFIX=DIR (at most %d)", REPLAY_MAPS_MAX);
	*eq = '\0';
	maps[(*n)++] = (struct replay_map){ .prefix = arg, .dir = eq + 1 };
	return 0;
}

int replay_map_check(const struct replay_map *maps, unsigned nmaps, char *err, size_t errlen)
{
	for (unsigned i = 0; i < nmaps; i++) {
		if (!maps[i].dir || !maps[i].dir[0]) {
			snprintf(err, errlen, "map prefix '%s': an empty directory",
				 maps[i].prefix);
			return -EINVAL;
		}
		if (!path_is_clean(maps[i].prefix)) {
			snprintf(err, errlen, "map prefix '%s': must be absolute, without . or ..",
				 maps[i].prefix);
			return -EINVAL;
		}
		for (unsigned j = 0; j < i; j++)
			if (same_components(maps[i].prefix, maps[j].prefix)) {
				snprintf(err, errlen, "map prefix '%s' is given twice",
					 maps[i].prefix);
				return -EINVAL;
			}
	}
	return 0;
}

int replay_root_locate(const struct replay_root *r, const char *abs,
		       int *rootfd, char *rel, size_t rellen)
{
	const struct root_dir *d;
	const char *p;
	size_t n;

	if (!abs || !path_is_clean(abs))
		return -EINVAL;
	if (is_pseudo_fs(abs))
		return -EXDEV;
	d = pick_root(r, abs);
	p = abs + d->len;
	while (*p == '/')
		p++;
	if (!*p)
		p = ".";
	if (names_marker(p))
		return -EPERM;
	if (d->name) {	/* the prefix is a name inside the root */
		int k = strcmp(p, ".") ? snprintf(rel, rellen, "%s/%s", d->name, p) :
			snprintf(rel, rellen, "%s", d->name);

		if (k < 0 || (size_t)k >= rellen || k >= PATH_MAX)
			return -ENAMETOOLONG;
		*rootfd = d->fd;
		return 0;
	}
	n = strlen(p);
	if (n >= rellen || n >= PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(rel, p, n + 1);
	*rootfd = d->fd;
	return 0;
}

int replay_root_check_path(const char *abs)
{
	size_t n;

	if (!abs || !path_is_clean(abs))
		return -EINVAL;
	if (is_pseudo_fs(abs))
		return -EXDEV;
	while (*abs == '/')
		abs++;
	n = strlen(abs);
	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	return names_marker(abs) ? -EPERM : 0;
}

bool replay_root_is_top(const struct replay_root *r, int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return false;
	for (unsigned i = 0; i < r->n; i++)
		if (r->dirs[i].dev == st.st_dev && r->dirs[i].ino == st.st_ino)
			return true;
	return false;
}

int replay_root_open_path(const struct replay_root *r, const char *abs,
			  int flags, mode_t mode)
{
	char rel[PATH_MAX];
	int rootfd, rc = replay_root_locate(r, abs, &rootfd, rel, sizeof(rel));

	return rc < 0 ? rc : replay_root_openat(rootfd, rel, flags, mode);
}

int replay_root_parent(const struct replay_root *r, const char *abs,
		       char *name, size_t namelen)
{
	char rel[PATH_MAX];
	int rootfd, rc = replay_root_locate(r, abs, &rootfd, rel, sizeof(rel));
	char *slash;
	size_t n;

	if (rc < 0)
		return rc;
	if (strcmp(rel, ".") == 0)
		return -EINVAL;
	/* trailing '/' would leave an empty final component */
	n = strlen(rel);
	while (n > 1 && rel[n - 1] == '/')
		rel[--n] = '\0';
	slash = strrchr(rel, '/');
	if (strlen(slash ? slash + 1 : rel) >= namelen)
		return -ENAMETOOLONG;
	strcpy(name, slash ? slash + 1 : rel);
	if (!slash)
		return replay_root_openat(rootfd, ".", O_PATH | O_DIRECTORY, 0);
	*slash = '\0';
	return replay_root_openat(rootfd, rel, O_PATH | O_DIRECTORY, 0);
}

int replay_root_check_target(const char *abs, const char *target)
{
	char res[PATH_MAX];
	const char *slash = strrchr(abs, '/');
	bool cut = false;

	if (!slash || !target)
		return -EINVAL;
	path_resolve(res, sizeof(res), abs, slash > abs ? (size_t)(slash - abs) : 1, target,
		     &cut);
	if (cut)
		return -ENAMETOOLONG;
	return names_marker(res) ? -EPERM : 0;
}

/* True when target only descends: relative, without ".." components. */
static bool descends(const char *target)
{
	const char *p = target, *c;
	size_t n;

	if (target[0] == '/')
		return false;
	while (path_next(&p, &c, &n))
		if (path_is_dotdot(c, n))
			return false;
	return true;
}

/* Where directory fd lies beneath d's top, from the name the kernel gives
 * it: "/" for the top, "/x/y" two levels down; the depth, or -EXDEV when
 * fd is not beneath d (a bind mount, or a directory moved out meanwhile). */
static int place_below(const struct root_dir *d, int fd, char *out, size_t outlen)
{
	char link[64], phys[PATH_MAX];
	const char *p, *c;
	ssize_t n;
	size_t len, cn;
	int depth = 0;

	snprintf(link, sizeof(link), "/proc/thread-self/fd/%d", fd);
	n = readlink(link, phys, sizeof(phys) - 1);
	if (n < 0)
		return -errno;
	phys[n] = '\0';
	if (strncmp(phys, d->real, d->real_len) != 0 ||
	    (phys[d->real_len] != '/' && phys[d->real_len] != '\0'))
		return -EXDEV;
	p = phys + d->real_len;
	len = strlen(p);
	if (len + 2 > outlen)
		return -ENAMETOOLONG;
	snprintf(out, outlen, "%s", *p ? p : "/");
	while (path_next(&p, &c, &cn))
		depth++;
	return depth;
}

int replay_root_link_target(const struct replay_root *r, const char *abs, int pfd,
			    const char *target, char *out, size_t outlen)
{
	const struct root_dir *d = pick_root(r, abs);
	char base[PATH_MAX], res[PATH_MAX], named[PATH_MAX];
	bool cut = false;
	size_t len = 0, n;
	int depth, rc = replay_root_check_target(abs, target);

	if (rc < 0)
		return rc;
	if (descends(target)) {
		if (strlen(target) >= outlen)
			return -ENAMETOOLONG;
		strcpy(out, target);
		return 0;
	}
	depth = place_below(d, pfd, base, sizeof(base));
	if (depth < 0)
		return depth;
	/* a captured path beneath the map's own prefix is where the map put
	 * it; any other absolute target stays in this directory, as
	 * RESOLVE_IN_ROOT keeps it */
	if (target[0] == '/' && d->len && under_prefix(target, d->prefix, d->len)) {
		target += d->len;
		if (d->name) {	/* the map's top is a name inside d->fd */
			int k = snprintf(named, sizeof(named), "/%s%s", d->name, target);

			if (k < 0 || (size_t)k >= sizeof(named))
				return -ENAMETOOLONG;
			target = named;
		}
	}
	path_resolve(res, sizeof(res), base, strlen(base), *target ? target : "/", &cut);
	if (cut || names_marker(res))
		return cut ? -ENAMETOOLONG : -EPERM;
	for (int i = 0; i < depth; i++) {
		if (len + 4 > outlen)
			return -ENAMETOOLONG;
		memcpy(out + len, "../", 3);
		len += 3;
	}
	n = strlen(res + 1);
	if (len + n + 2 > outlen)
		return -ENAMETOOLONG;
	if (n)
		memcpy(out + len, res + 1, n + 1);
	else if (len)
		out[len - 1] = '\0';	/* the top itself: "../.." */
	else
		strcpy(out, ".");
	return 0;
}

int replay_root_depth(const struct replay_root *r, const char *abs, int dirfd)
{
	char place[PATH_MAX];

	return place_below(pick_root(r, abs), dirfd, place, sizeof(place));
}

/* The text of a climbing link (replay_root_link_target()'s form: "../"
 * repeated, then the path beneath the top) with k "../" instead: the path
 * beneath the top is what the link means, the count only has to match the
 * link's depth. Anything else in the text is resolved lexically from the
 * top, ".." stopping there as RESOLVE_IN_ROOT does. 0 or -ENAMETOOLONG. */
static int climb_text(const char *text, int k, char *out, size_t outlen)
{
	char below[PATH_MAX];
	const char *p = text, *c;
	size_t n, len = 0, b;
	bool cut = false;

	while (*p) {
		const char *q = p;

		if (!path_next(&q, &c, &n) || !path_is_dotdot(c, n))
			break;
		p = q;
	}
	path_resolve(below, sizeof(below), "/", 1, *p ? p : "/", &cut);
	if (cut)
		return -ENAMETOOLONG;
	b = strlen(below + 1);
	for (int i = 0; i < k; i++) {
		if (len + 4 > outlen)
			return -ENAMETOOLONG;
		memcpy(out + len, "../", 4);
		len += 3;
	}
	if (len + b + 2 > outlen)
		return -ENAMETOOLONG;
	if (b)
		memcpy(out + len, below + 1, b + 1);
	else if (len)
		out[len - 1] = '\0';	/* the top itself */
	else
		strcpy(out, ".");
	return 0;
}

/* Rewrites the climbing link name in dirfd (at depth below the top) to
 * climb k levels; an atomic replacement (a new link renamed over the old),
 * so no tool ever finds the name missing. 0 or -errno. */
static int relink_one(int dirfd, const char *name, int k)
{
	char text[PATH_MAX], want[PATH_MAX];
	ssize_t n = readlinkat(dirfd, name, text, sizeof(text) - 1);
	int rc;

	if (n < 0)
		return errno == EINVAL || errno == ENOENT ? 0 : -errno;
	text[n] = '\0';
	if (descends(text))
		return 0;	/* beneath its own directory wherever it goes */
	rc = climb_text(text, k < 0 ? 0 : k, want, sizeof(want));
	if (rc < 0 || strcmp(text, want) == 0)
		return rc;
	(void)unlinkat(dirfd, RELINK_TMP, 0);
	if (symlinkat(want, dirfd, RELINK_TMP) < 0)
		return -errno;
	if (renameat(dirfd, RELINK_TMP, dirfd, name) < 0) {
		rc = -errno;
		(void)unlinkat(dirfd, RELINK_TMP, 0);
	}
	return rc;
}

/* Every climbing link in directory fd (at depth) and beneath it. Each
 * level holds one directory stream; the depth of a tree is bounded by
 * PATH_MAX, as every path a replay makes is. */
static int relink_dir(int fd, int depth, int shift)
{
	DIR *dir = fdopendir(fd);
	struct dirent *de;
	int rc = 0;

	if (!dir) {
		rc = -errno;
		close(fd);
		return rc;
	}
	while ((de = readdir(dir))) {
		unsigned char type = de->d_type;
		int r = 0;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (type == DT_UNKNOWN) {
			struct stat st;

			if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			type = S_ISLNK(st.st_mode) ? DT_LNK : S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
		}
		if (type == DT_LNK) {
			r = relink_one(dirfd(dir), de->d_name, depth + shift);
		} else if (type == DT_DIR) {
			int sub = replay_root_openat_beneath(dirfd(dir), de->d_name,
							     O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);

			r = sub < 0 ? sub : relink_dir(sub, depth + 1, shift);
		}
		if (r < 0 && !rc)
			rc = r;
	}
	closedir(dir);
	return rc;
}

int replay_root_relink(int dirfd, const char *name, int depth, int shift)
{
	struct stat st;
	int fd;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode))
		return relink_one(dirfd, name, depth + shift);
	if (!S_ISDIR(st.st_mode))
		return 0;
	fd = replay_root_openat_beneath(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	return fd < 0 ? fd : relink_dir(fd, depth + 1, shift);
}
