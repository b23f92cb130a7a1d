/* replay/root.c: confinement of captured paths beneath roots (root.h).
 *
 * The string work here only decides which root a path belongs to and
 * refuses what is plainly hostile; the guarantee is the kernel's: every
 * lookup is openat2(RESOLVE_IN_ROOT) relative to a root's directory fd, so
 * ".." and symlinks met during resolution are clamped at that root. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "init.h"
#include "lib/pathname.h"
#include "root.h"

struct root_dir {
	char *prefix;		/* captured prefix without trailing '/'; "" is / */
	size_t len;
	int fd;
	char *name;		/* the prefix is this name inside fd, or NULL */
};

struct replay_root {
	struct root_dir *dirs;	/* dirs[0]: the main root (prefix "") */
	unsigned n;
};

static int sys_openat2(int dirfd, const char *path, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = REPLAY_RESOLVE,
	};
	long fd;

	/* openat2 refuses a mode without O_CREAT / O_TMPFILE */
	if (flags & O_CREAT || (flags & O_TMPFILE) == O_TMPFILE)
		how.mode = mode;
	fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	return fd < 0 ? -errno : (int)fd;
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

void replay_root_close(struct replay_root *r)
{
	if (!r)
		return;
	for (unsigned i = 0; i < r->n; i++) {
		if (r->dirs[i].fd >= 0)
			close(r->dirs[i].fd);
		free(r->dirs[i].prefix);
		free(r->dirs[i].name);
	}
	free(r->dirs);
	free(r);
}

/* The root whose prefix is the longest one abs lies beneath. */
static const struct root_dir *pick_root(const struct replay_root *r, const char *abs)
{
	const struct root_dir *best = &r->dirs[0];

	for (unsigned i = 1; i < r->n; i++)
		if (r->dirs[i].len > best->len &&
		    under_prefix(abs, r->dirs[i].prefix, r->dirs[i].len))
			best = &r->dirs[i];
	return best;
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
	if (strcmp(p, REPLAY_ROOT_MARKER) == 0)
		return -EPERM;
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
	return strcmp(abs, REPLAY_ROOT_MARKER) == 0 ? -EPERM : 0;
}

int replay_root_open_path(const struct replay_root *r, const char *abs,
			  int flags, mode_t mode)
{
	char rel[PATH_MAX];
	int rootfd, rc = replay_root_locate(r, abs, &rootfd, rel, sizeof(rel));

	return rc < 0 ? rc : sys_openat2(rootfd, rel, flags, mode);
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
		return sys_openat2(rootfd, ".", O_PATH | O_DIRECTORY, 0);
	*slash = '\0';
	return sys_openat2(rootfd, rel, O_PATH | O_DIRECTORY, 0);
}
