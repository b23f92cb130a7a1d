/* test_root: confinement (replay/root.h). Hostile captured paths and
 * symlinks planted in a root, including ones pointing at /, at /etc and
 * climbing with "..", must never reach a sentinel directory beside the
 * root: nothing there is created, changed or opened. openat2 needs no
 * privilege, so this runs as any user. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/init.h"
#include "replay/root.h"
#include "tests/unit/unit.h"

/* short, fixed names under /tmp: small buffers keep the formats in bounds */
static char base[64], root_dir[128], outside[128];
static char map1[128], map10[128];

/* A listing of a directory tree: names, sizes, mtimes, atimes. */
static void listing(const char *dir, char *out, size_t len)
{
	char cmd[512];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "find '%s' -printf '%%p %%y %%s %%T@ %%A@\\n' | sort", dir);
	p = popen(cmd, "r");
	n = p ? fread(out, 1, len - 1, p) : 0;
	out[n] = '\0';
	if (p)
		pclose(p);
}

static void setup(void)
{
	char path[256];
	int fd;

	snprintf(base, sizeof(base), "/tmp/riot-test-root.XXXXXX");
	if (!mkdtemp(base))
		exit(1);
	snprintf(root_dir, sizeof(root_dir), "%s/root", base);
	snprintf(outside, sizeof(outside), "%s/outside", base);
	snprintf(map1, sizeof(map1), "%s/map1", base);
	snprintf(map10, sizeof(map10), "%s/map10", base);
	mkdir(root_dir, 0755);
	mkdir(outside, 0755);
	mkdir(map1, 0755);
	mkdir(map10, 0755);
	snprintf(path, sizeof(path), "%s/secret", outside);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	if (fd < 0 || write(fd, "secret\n", 7) != 7)
		exit(1);
	close(fd);
}

static void plant(const char *dir, const char *name, const char *target)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	CHECK_EQ(symlink(target, path), 0);
}

static int locate(const struct replay_root *r, const char *abs, int *fd, char *rel)
{
	return replay_root_locate(r, abs, fd, rel, PATH_MAX);
}

static void test_locate(const struct replay_root *r)
{
	char rel[PATH_MAX], long_path[PATH_MAX + 16];
	int fd, rootfd, fd1, fd10;

	CHECK_EQ(locate(r, "/", &rootfd, rel), 0);
	CHECK_STR(rel, ".");
	CHECK_EQ(locate(r, "/a/b", &fd, rel), 0);
	CHECK_STR(rel, "a/b");
	CHECK_EQ(fd, rootfd);
	/* prefixes match whole components; the longest wins */
	CHECK_EQ(locate(r, "/mnt/1/x", &fd1, rel), 0);
	CHECK_STR(rel, "x");
	CHECK(fd1 != rootfd);
	CHECK_EQ(locate(r, "/mnt/10/x", &fd10, rel), 0);
	CHECK_STR(rel, "x");
	CHECK(fd10 != fd1 && fd10 != rootfd);
	CHECK_EQ(locate(r, "/mnt/1", &fd, rel), 0);
	CHECK_STR(rel, ".");
	CHECK_EQ(fd, fd1);
	CHECK_EQ(locate(r, "/mnt/100/x", &fd, rel), 0);
	CHECK_STR(rel, "mnt/100/x");
	CHECK_EQ(fd, rootfd);
	CHECK_EQ(locate(r, "/mnt/1x", &fd, rel), 0);
	CHECK_EQ(fd, rootfd);
	/* pseudo file systems, hostile and oversized paths */
	CHECK_EQ(locate(r, "/proc", &fd, rel), -EXDEV);
	CHECK_EQ(locate(r, "/proc/self/fd/3", &fd, rel), -EXDEV);
	CHECK_EQ(locate(r, "/sys/kernel", &fd, rel), -EXDEV);
	CHECK_EQ(locate(r, "/dev/sda", &fd, rel), -EXDEV);
	CHECK_EQ(locate(r, "//dev/sda", &fd, rel), -EXDEV);
	CHECK_EQ(locate(r, "/procfs/x", &fd, rel), 0);
	CHECK_EQ(locate(r, "/a/../../etc", &fd, rel), -EINVAL);
	CHECK_EQ(locate(r, "/..", &fd, rel), -EINVAL);
	CHECK_EQ(locate(r, "/a/./b", &fd, rel), -EINVAL);
	CHECK_EQ(locate(r, "a/b", &fd, rel), -EINVAL);
	CHECK_EQ(locate(r, "", &fd, rel), -EINVAL);
	CHECK_EQ(locate(r, "/" REPLAY_ROOT_MARKER, &fd, rel), -EPERM);
	CHECK_EQ(locate(r, "/mnt/1/" REPLAY_ROOT_MARKER, &fd, rel), -EPERM);
	/* the name links are rewritten under (replay_root_relink()) */
	CHECK_EQ(locate(r, "/x/" REPLAY_ROOT_MARKER ".relink", &fd, rel), -EPERM);
	CHECK_EQ(locate(r, "/x/" REPLAY_ROOT_MARKER ".relinks", &fd, rel), 0);
	CHECK_EQ(replay_root_locate(r, "/abc", &fd, rel, 3), -ENAMETOOLONG);
	memset(long_path, 'a', sizeof(long_path) - 1);
	long_path[0] = '/';
	long_path[sizeof(long_path) - 1] = '\0';
	CHECK_EQ(locate(r, long_path, &fd, rel), -ENAMETOOLONG);
	CHECK_EQ(replay_root_check_path(long_path), -ENAMETOOLONG);
	CHECK_EQ(replay_root_check_path("/dev"), -EXDEV);
	CHECK_EQ(replay_root_check_path("/a/.."), -EINVAL);
	CHECK_EQ(replay_root_check_path("/a/b"), 0);
	CHECK_EQ(replay_root_open_path(r, "/proc/self/status", O_RDONLY, 0), -EXDEV);
	CHECK_EQ(replay_root_open_path(r, long_path, O_RDONLY, 0), -ENAMETOOLONG);
	CHECK_EQ(replay_root_parent(r, "/", rel, sizeof(rel)), -EINVAL);
}

/* Opens through planted symlinks: each must stay beneath the root. */
static void test_escapes(const struct replay_root *r)
{
	char abs[512], name[NAME_MAX + 1], path[512];
	struct stat st;
	int fd, pfd;

	plant(root_dir, "abs", outside);		/* absolute, to the sentinel */
	plant(root_dir, "rel", "../outside");		/* relative, climbing */
	plant(root_dir, "up", "../../../../../../../..");
	plant(root_dir, "etc", "/etc");
	plant(root_dir, "self", "/");
	plant(map1, "out", "../outside");		/* climbing out of a map */

	CHECK_EQ(replay_root_open_path(r, "/abs/secret", O_RDONLY, 0), -ENOENT);
	CHECK_EQ(replay_root_open_path(r, "/rel/secret", O_RDONLY, 0), -ENOENT);
	CHECK_EQ(replay_root_open_path(r, "/up/tmp", O_RDONLY, 0), -ENOENT);
	/* root/etc -> /etc is root/etc again: a loop, never the host's /etc */
	CHECK_EQ(replay_root_open_path(r, "/etc/passwd", O_RDONLY, 0), -ELOOP);
	CHECK_EQ(replay_root_open_path(r, "/mnt/1/out/secret", O_RDONLY, 0), -ENOENT);
	CHECK_EQ(replay_root_open_path(r, "/abs/new", O_WRONLY | O_CREAT, 0644), -ENOENT);
	CHECK_EQ(replay_root_open_path(r, "/rel/new", O_WRONLY | O_CREAT, 0644), -ENOENT);

	/* "/up" resolves to the root itself: a file made through it lands there */
	fd = replay_root_open_path(r, "/up/made-via-up", O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/made-via-up", root_dir);
	CHECK_EQ(stat(path, &st), 0);

	/* "/self" is /: the root again, however often it is repeated */
	fd = replay_root_open_path(r, "/self/self/self/via-self", O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/via-self", root_dir);
	CHECK_EQ(stat(path, &st), 0);

	/* the parent of a path through a symlink is confined too */
	pfd = replay_root_parent(r, "/up/dir-via-up", name, sizeof(name));
	CHECK(pfd >= 0);
	CHECK_STR(name, "dir-via-up");
	if (pfd >= 0) {
		CHECK_EQ(mkdirat(pfd, name, 0755), 0);
		close(pfd);
	}
	snprintf(path, sizeof(path), "%s/dir-via-up", root_dir);
	CHECK_EQ(stat(path, &st), 0);

	/* a symlink the replay itself makes, pointing at /, stays harmless */
	pfd = replay_root_parent(r, "/made-link", name, sizeof(name));
	CHECK(pfd >= 0);
	if (pfd >= 0) {
		CHECK_EQ(symlinkat("/", pfd, name), 0);
		close(pfd);
	}
	snprintf(abs, sizeof(abs), "/made-link%s/secret", outside);
	CHECK_EQ(replay_root_open_path(r, abs, O_RDONLY, 0), -ENOENT);
	snprintf(abs, sizeof(abs), "/made-link%s", outside);
	CHECK_EQ(replay_root_parent(r, abs, name, sizeof(name)), -ENOENT);

	/* the absolute symlink's target, recreated inside, is what it reaches */
	snprintf(path, sizeof(path), "mkdir -p '%s%s'", root_dir, outside);
	CHECK_EQ(system(path), 0);
	fd = replay_root_open_path(r, "/abs/inside", O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s%s/inside", root_dir, outside);
	CHECK_EQ(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/inside", outside);
	CHECK_EQ(stat(path, &st), -1);

}

/* Targets of symlinks riot makes: relative to the link's directory as the
 * kernel finds it, never above the top, never to the marker. */
static void link_target(const struct replay_root *r, const char *link, const char *target,
			int want_rc, const char *want)
{
	char name[NAME_MAX + 1], out[PATH_MAX];
	int pfd = replay_root_parent(r, link, name, sizeof(name));

	CHECK(pfd >= 0);
	if (pfd < 0)
		return;
	CHECK_EQ(replay_root_link_target(r, link, pfd, target, out, sizeof(out)), want_rc);
	if (!want_rc)
		CHECK_STR(out, want);
	close(pfd);
}

static void test_link_targets(const struct replay_root *r)
{
	char path[256], rel[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/x", root_dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/x/y", root_dir);
	mkdir(path, 0755);
	link_target(r, "/x/y/link", "/a/b", 0, "../../a/b");
	link_target(r, "/x/y/link", "/", 0, "../..");
	link_target(r, "/x/y/link", "../../../../../etc", 0, "../../etc");
	link_target(r, "/x/y/link", "../c", 0, "../../x/c");
	link_target(r, "/x/y/link", "a/./b", 0, "a/./b");	/* descends: kept */
	link_target(r, "/link", "/", 0, ".");
	link_target(r, "/link", "/a/../../b", 0, "b");
	/* a map's own prefix is stripped: the target is where the map put it */
	link_target(r, "/mnt/1/link", "/mnt/1/db/t", 0, "db/t");
	link_target(r, "/mnt/1/link", "/etc/x", 0, "etc/x");
	/* the marker by any name */
	link_target(r, "/x/y/link", "/" REPLAY_ROOT_MARKER, -EPERM, NULL);
	link_target(r, "/x/y/link", "../../" REPLAY_ROOT_MARKER "/", -EPERM, NULL);
	link_target(r, "/link", REPLAY_ROOT_MARKER, -EPERM, NULL);
	CHECK_EQ(replay_root_check_target("/x/l", "/x/../" REPLAY_ROOT_MARKER), -EPERM);
	CHECK_EQ(replay_root_check_target("/x/l", REPLAY_ROOT_MARKER "x"), 0);
	CHECK_EQ(locate(r, "/x/l/" REPLAY_ROOT_MARKER, &fd, rel), -EPERM);
	CHECK_EQ(locate(r, "/x/" REPLAY_ROOT_MARKER "/", &fd, rel), -EPERM);
	CHECK_EQ(locate(r, "/x/" REPLAY_ROOT_MARKER "x", &fd, rel), 0);
	CHECK_EQ(replay_root_check_path("/l/" REPLAY_ROOT_MARKER), -EPERM);
	/* the tops of the root and of the maps */
	fd = open(root_dir, O_PATH | O_DIRECTORY);
	CHECK(replay_root_is_top(r, fd));
	close(fd);
	fd = open(map10, O_PATH | O_DIRECTORY);
	CHECK(replay_root_is_top(r, fd));
	close(fd);
	fd = open(path, O_PATH | O_DIRECTORY);
	CHECK(!replay_root_is_top(r, fd));
	close(fd);
}

/* --map /=DIR takes every path; bad maps are refused before anything. */
static void test_map_all(void)
{
	struct replay_map all = { .prefix = "/", .dir = map10 };
	struct replay_map bad[] = { { .prefix = "/a", .dir = map1 }, { .prefix = "a/b", .dir = map1 } };
	char rel[PATH_MAX], err[256];
	struct replay_root *r = replay_root_open(root_dir, &all, 1, err, sizeof(err));
	int fd, mapfd;

	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_EQ(locate(r, "/a/b", &fd, rel), 0);
	CHECK_STR(rel, "a/b");
	mapfd = open(map10, O_PATH | O_DIRECTORY);
	CHECK(replay_root_is_top(r, fd) && replay_root_is_top(r, mapfd));
	close(mapfd);
	replay_root_close(r);
	CHECK_EQ(replay_map_check(bad, 2, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "'a/b'") != NULL);
	CHECK_EQ(replay_map_check(bad, 1, err, sizeof(err)), 0);
}

/* A map whose top is a name inside its directory (a --map onto a
 * directory the workload makes): the marker is refused beneath it as
 * anywhere, and an absolute symlink target under its prefix leads to that
 * name, not to the directory holding it. */
static void test_name_map(void)
{
	struct replay_map named = { .prefix = "/data/dst", .dir = map1, .name = "dst" };
	char rel[PATH_MAX], err[256], path[256];
	struct replay_root *r = replay_root_open(root_dir, &named, 1, err, sizeof(err));
	int fd, mapfd;

	CHECK(r != NULL);
	if (!r)
		return;
	mapfd = open(map1, O_PATH | O_DIRECTORY);
	CHECK_EQ(locate(r, "/data/dst/f", &fd, rel), 0);
	CHECK_STR(rel, "dst/f");
	CHECK(replay_root_is_top(r, fd) && replay_root_is_top(r, mapfd));
	CHECK_EQ(locate(r, "/data/dst", &fd, rel), 0);
	CHECK_STR(rel, "dst");
	CHECK_EQ(locate(r, "/data/dst/" REPLAY_ROOT_MARKER, &fd, rel), -EPERM);
	CHECK_EQ(locate(r, "/data/dst/sub/" REPLAY_ROOT_MARKER "/", &fd, rel), -EPERM);
	close(mapfd);
	snprintf(path, sizeof(path), "%s/dst", map1);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/dst/sub", map1);
	mkdir(path, 0755);
	link_target(r, "/data/dst/sub/link", "/data/dst/f", 0, "../../dst/f");
	link_target(r, "/data/dst/sub/link", "/data/dst", 0, "../../dst");
	link_target(r, "/data/dst/link", "/data/dst/sub/g", 0, "../dst/sub/g");
	link_target(r, "/data/dst/link", "/etc/x", 0, "../etc/x");
	replay_root_close(r);
}

static void test_open_errors(void)
{
	char err[512];
	struct replay_map bad = { .prefix = "/a/../b", .dir = map1 };
	struct replay_map missing = { .prefix = "/a", .dir = "/nonexistent/riot-test" };

	CHECK(replay_root_open(root_dir, &bad, 1, err, sizeof(err)) == NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK(replay_root_open(root_dir, &missing, 1, err, sizeof(err)) == NULL);
	CHECK_EQ(errno, ENOENT);
	CHECK(strstr(err, "/nonexistent/riot-test") != NULL);
}

int main(void)
{
	struct replay_map maps[] = { { "/mnt/1", map1, NULL, NULL }, { "/mnt/10/", map10, NULL, NULL } };
	char before[16384], after[16384], cmd[256];
	struct replay_root *r;
	char err[512];

	setup();
	/* twice: the first listing itself moves the directory's atime
	 * (relatime); after it, only a read of the secret would */
	listing(outside, before, sizeof(before));
	listing(outside, before, sizeof(before));
	r = replay_root_open(root_dir, maps, 2, err, sizeof(err));
	CHECK(r != NULL);
	if (!r) {
		fprintf(stderr, "%s\n", err);
		return unit_done();
	}
	test_locate(r);
	test_escapes(r);
	test_link_targets(r);
	test_map_all();
	test_name_map();
	test_open_errors();
	replay_root_close(r);
	/* nothing beside the root was created, changed or even read */
	listing(outside, after, sizeof(after));
	CHECK_STR(after, before);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", base);
	return unit_done();
}
