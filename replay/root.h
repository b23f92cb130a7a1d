/* replay/root.h: confinement. Every path in a log is hostile; this is the
 * only way replay and init turn a captured path into something to touch.
 *
 * A captured absolute path maps beneath a root directory the user named
 * (`--root DIR`: /a/b becomes DIR/a/b), or beneath another directory for a
 * captured subtree (`--map /captured/prefix=DIR2`, longest prefix wins,
 * matched by whole components: /mnt/1 never matches /mnt/10), or to a name
 * inside a directory (a map's `name`: the prefix is DIR2/name, so it can be
 * absent, made and removed like any path). Resolution
 * is the kernel's: openat2(2) with RESOLVE_IN_ROOT relative to the root's
 * directory fd, so "..", absolute and relative symlinks (including ones
 * the replay itself created) cannot leave the root. String checks are a
 * first filter, never the guarantee. Captured paths under /proc, /sys and
 * /dev are never replayed (-EXDEV: the caller skips and counts them).
 */
#ifndef RIOT_REPLAY_ROOT_H
#define RIOT_REPLAY_ROOT_H

#include <stddef.h>
#include <sys/types.h>

/* Every confined lookup uses these openat2 resolve flags. */
#define REPLAY_RESOLVE (RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS)

struct replay_map {
	const char *prefix;	/* captured absolute prefix, normalised */
	const char *dir;	/* where that subtree goes */
	const char *name;	/* NULL; or the prefix is dir/name, a name
				 * inside dir (replay_maps_for_log()) */
	char *owned;		/* freed by replay_maps_release() */
};

struct replay_root;

/* Opens dir and every map's dir as roots (O_PATH | O_DIRECTORY). They must
 * exist. NULL + errno, with a one-line reason in err. */
struct replay_root *replay_root_open(const char *dir, const struct replay_map *maps,
				     unsigned nmaps, char *err, size_t errlen);
void replay_root_close(struct replay_root *r);

/* Where a captured absolute path goes: the root's dirfd and the path
 * relative to it ("." for the root itself). 0, -EXDEV (/proc, /sys, /dev),
 * -EINVAL (not absolute, or holds "." / ".." components: the model
 * normalises every path, so such a path is hostile), -ENAMETOOLONG,
 * -EPERM (the root's marker file, REPLAY_ROOT_MARKER in replay/init.h:
 * a workload never touches it). */
int replay_root_locate(const struct replay_root *r, const char *abs,
		       int *rootfd, char *rel, size_t rellen);

/* The checks replay_root_locate makes that need no root: 0, -EXDEV,
 * -EINVAL, -ENAMETOOLONG (relative part PATH_MAX or longer), -EPERM (a
 * top-level REPLAY_ROOT_MARKER; a --map directory's own marker is
 * refused only by replay_root_locate). For plans without a root. */
int replay_root_check_path(const char *abs);

/* openat2 of a captured path beneath its root. fd or -errno. */
int replay_root_open_path(const struct replay_root *r, const char *abs,
			  int flags, mode_t mode);

/* The parent directory of a captured path, opened O_PATH beneath its root,
 * and the final component in name: for the *at calls that act on the last
 * component without following it (mkdirat, unlinkat, renameat2, linkat,
 * symlinkat, mknodat, fchownat/utimensat with AT_SYMLINK_NOFOLLOW). fd (the
 * caller closes it) or -errno. The root itself has no parent: -EINVAL. */
int replay_root_parent(const struct replay_root *r, const char *abs,
		       char *name, size_t namelen);

#endif
