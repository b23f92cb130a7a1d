/* replay/root_setup.c: replay_root_prepare and replay_root_setup
 * (replay/init.h): the checks that keep init and replay from writing where
 * they could damage data. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/init.h"

/* Where the marker is written before it is renamed into place (with the
 * writer's pid after it: the replays of a fleet may mark one shared root
 * at once); a run killed in between leaves it, so a name starting so does
 * not make a root non-empty. */
#define MARKER_TEMP REPLAY_ROOT_MARKER ".tmp"

/* mkdir -p: every missing component of dir, 0755. */
static int make_path(const char *dir)
{
	char buf[PATH_MAX];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(buf))
		return n ? -ENAMETOOLONG : -ENOENT;
	memcpy(buf, dir, n + 1);
	for (char *p = buf + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			return 0;
	}
}

/* 1 when the marker is riot's, 0 when there is none, -errno otherwise
 * (-EEXIST: a marker riot did not write). */
static int read_marker(int dirfd)
{
	char buf[sizeof(REPLAY_ROOT_MAGIC) - 1];
	int fd = openat(dirfd, REPLAY_ROOT_MARKER, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n == (ssize_t)sizeof(buf) && memcmp(buf, REPLAY_ROOT_MAGIC, sizeof(buf)) == 0 ?
	       1 : -EEXIST;
}

/* Empty, or holding only lost+found (a fresh file system's mount point). */
static int is_empty(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;
	int empty = 1;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	while (empty && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strcmp(de->d_name, "lost+found") &&
		    strncmp(de->d_name, MARKER_TEMP, sizeof(MARKER_TEMP) - 1))
			empty = 0;
	closedir(d);
	return empty;
}

/* The marker appears whole or not at all: written to MARKER_TEMP, synced,
 * then renamed into place (a full disk leaves no empty marker that would
 * make every later run refuse the root). */
static int write_marker(int dirfd)
{
	char tmp[sizeof(MARKER_TEMP) + 16];
	int fd, rc = 0;
	static const char text[] = REPLAY_ROOT_MAGIC
		"This directory is a riot replay root: `riot init` and `riot replay`\n"
		"create, change and remove files beneath it.\n";
	ssize_t n;

	snprintf(tmp, sizeof(tmp), "%s.%d", MARKER_TEMP, (int)getpid());
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	n = write(fd, text, sizeof(text) - 1);
	if (n != (ssize_t)sizeof(text) - 1)
		rc = n < 0 ? -errno : -ENOSPC;
	else if (fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && renameat(dirfd, tmp, dirfd, REPLAY_ROOT_MARKER) < 0)
		rc = -errno;
	if (rc < 0) {
		unlinkat(dirfd, tmp, 0);
		return rc;
	}
	return fsync(dirfd) < 0 ? -errno : 0;
}

/* A missing dir can be made when its nearest existing ancestor is a
 * directory. */
static int check_makeable(const char *dir, char *err, size_t errlen)
{
	char buf[PATH_MAX];
	struct stat st;
	char *slash;
	size_t n = strlen(dir);

	if (n >= sizeof(buf)) {
		snprintf(err, errlen, "%s: cannot create: %s", dir, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	memcpy(buf, dir, n + 1);
	while ((slash = strrchr(buf, '/'))) {
		*slash = '\0';
		if (stat(slash == buf ? "/" : buf, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				return 0;
			snprintf(err, errlen, "%s: cannot create: %s", dir, strerror(ENOTDIR));
			return -ENOTDIR;
		}
		if (errno != ENOENT) {
			int rc = -errno;

			snprintf(err, errlen, "%s: cannot create: %s", dir, strerror(-rc));
			return rc;
		}
	}
	return 0;	/* relative to the working directory, which exists */
}

/* real must hold riot's marker or be empty; with mark, an empty one gets
 * the marker. */
static int check_marked(const char *real, bool mark, char *err, size_t errlen)
{
	int fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", real, strerror(-rc));
		return rc;
	}
	rc = read_marker(fd);
	if (rc == 0) {
		rc = is_empty(fd);
		if (rc > 0 && mark && (rc = write_marker(fd)) < 0) {
			snprintf(err, errlen, "%s/%s: %s", real, REPLAY_ROOT_MARKER, strerror(-rc));
			goto out;
		}
		/* not empty: another riot may have marked it (and begun to
		 * fill it) since the first look, as the replays of a fleet on
		 * one shared root do; its marker came first */
		if (rc == 0 && (rc = read_marker(fd)) == 0) {
			snprintf(err, errlen, "%s is not empty and has no %s marker: "
				 "refusing to write into it", real, REPLAY_ROOT_MARKER);
			rc = -ENOTEMPTY;
			goto out;
		}
	}
	if (rc == -EEXIST)
		snprintf(err, errlen, "%s/%s was not written by riot: refusing to use %s",
			 real, REPLAY_ROOT_MARKER, real);
	else if (rc < 0)
		snprintf(err, errlen, "%s/%s: %s", real, REPLAY_ROOT_MARKER, strerror(-rc));
out:
	close(fd);
	return rc < 0 ? rc : 0;
}

/* With make: creates dir when missing and marks it. Without: only says
 * whether that would succeed, changing nothing. */
static int examine_root(const char *dir, bool make, char *err, size_t errlen)
{
	char real[PATH_MAX];
	struct stat st;
	int rc;

	if (!dir || !*dir) {
		snprintf(err, errlen, "an empty root directory name");
		return -EINVAL;
	}
	/* "/" exists: it is refused below without anything being made */
	if (stat(dir, &st) < 0 && errno == ENOENT) {
		if (!make)
			return check_makeable(dir, err, errlen);
		if ((rc = make_path(dir)) < 0) {
			snprintf(err, errlen, "%s: cannot create: %s", dir, strerror(-rc));
			return rc;
		}
	}
	if (!realpath(dir, real)) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(-rc));
		return rc;
	}
	if (strcmp(real, "/") == 0) {
		snprintf(err, errlen, "%s is /: refusing to replay onto the root file system's top",
			 dir);
		return -EPERM;
	}
	return check_marked(real, make, err, errlen);
}

int replay_root_prepare(const char *dir, char *err, size_t errlen)
{
	return examine_root(dir, true, err, errlen);
}

struct replay_root *replay_root_setup(const char *dir, const struct replay_map *maps,
				      unsigned nmaps, char *err, size_t errlen)
{
	int rc = replay_map_check(maps, nmaps, err, errlen);

	if (rc < 0) {
		errno = -rc;
		return NULL;
	}
	/* every directory is checked before any is made or marked */
	for (int make = 0; make <= 1; make++)
		for (unsigned i = 0; i <= nmaps; i++) {
			rc = examine_root(i ? maps[i - 1].dir : dir, make, err, errlen);
			if (rc < 0) {
				errno = -rc;
				return NULL;
			}
		}
	return replay_root_open(dir, maps, nmaps, err, errlen);
}
