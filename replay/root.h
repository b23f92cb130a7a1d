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

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Every confined lookup uses these openat2 resolve flags. */
#define REPLAY_RESOLVE (RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS)

/* Name of the marker file at the top of every root (and --map directory)
 * riot prepares; its content starts with REPLAY_ROOT_MAGIC. It is written
 * to REPLAY_ROOT_MARKER ".tmp", synced and renamed into place, so it is
 * whole or absent. Captured paths ending in its name are refused wherever
 * they lie (replay_root_locate: -EPERM). */
#define REPLAY_ROOT_MARKER ".riot-root"
#define REPLAY_ROOT_MAGIC "riot replay root\n"

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
/* Writes back the filesystems of the root and of every map (syncfs):
 * after init, so a replay does not start with init's dirty pages, which
 * the captured program never had. 0 or -errno. */
int replay_root_sync(const struct replay_root *r);
#define REPLAY_MAPS_MAX 64	/* --map options a command takes */

/* One --map PREFIX=DIR argument into maps[*n] (arg is cut at its '='; the
 * map points into it): 0, or the usage exit code after one line saying
 * what is wrong (no '=', an empty side, more than REPLAY_MAPS_MAX). The
 * prefix itself is checked by replay_map_check(). */
int replay_map_arg(char *arg, struct replay_map *maps, unsigned *n);
/* The checks of the maps that need no file system (prefixes absolute and
 * clean, directories named): made before any directory is created or
 * marked. 0 or -EINVAL with the reason in err. */
int replay_map_check(const struct replay_map *maps, unsigned nmaps, char *err, size_t errlen);

/* Where a captured absolute path goes: the root's dirfd and the path
 * relative to it ("." for the root itself). 0, -EXDEV (/proc, /sys, /dev),
 * -EINVAL (not absolute, or holds "." / ".." components: the model
 * normalises every path, so such a path is hostile), -ENAMETOOLONG,
 * -EPERM (a path whose last component is the root's marker name,
 * REPLAY_ROOT_MARKER, or that name with ".relink"
 * (replay_root_relink()'s), wherever it lies: through a symlink to the
 * top it would be the marker, which a workload never touches). */
int replay_root_locate(const struct replay_root *r, const char *abs,
		       int *rootfd, char *rel, size_t rellen);

/* The checks replay_root_locate makes that need no root: 0, -EXDEV,
 * -EINVAL, -ENAMETOOLONG (relative part PATH_MAX or longer), -EPERM (the
 * last component is REPLAY_ROOT_MARKER). For plans without a root. */
int replay_root_check_path(const char *abs);

/* True when fd is the top directory of the root or of a --map directory:
 * the replayed workload never changes their mode, owner, times or
 * attributes. */
bool replay_root_is_top(const struct replay_root *r, int fd);

/* openat2 of rel (from replay_root_locate()) beneath rootfd, with
 * REPLAY_RESOLVE and O_CLOEXEC. fd or -errno. */
int replay_root_openat(int rootfd, const char *rel, int flags, mode_t mode);
/* openat2 of rel beneath dirfd, a confined directory of the root, with
 * RESOLVE_BENEATH (no "..", symlink or absolute path out of dirfd: -EXDEV)
 * and RESOLVE_NO_MAGICLINKS, and O_CLOEXEC. fd or -errno. */
int replay_root_openat_beneath(int dirfd, const char *rel, int flags, mode_t mode);

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

/* Symlinks riot makes (init's tree, the replayed workload's symlink
 * calls) must not lead any tool out of the root, riot or not. The target a
 * symlink at captured path abs gets (in out), its parent directory opened
 * as pfd (replay_root_parent()): a relative target without ".." is kept as
 * captured; any other is resolved lexically (absolute: from the top of
 * abs's root, less the prefix of a --map directory it lies beneath;
 * relative: from the link's directory; ".." stops at the top, as
 * RESOLVE_IN_ROOT does) and written relative to the link's directory:
 * "../" once per directory between it and the top as the kernel finds
 * them now, then the path beneath the top. So an absolute /a/b from
 * /x/y/link becomes ../../a/b: ROOT/a/b for riot and for fio alike.
 * -EPERM when the target resolves to a name of the marker (as
 * replay_root_locate refuses), -ENAMETOOLONG, -EXDEV (the parent is not
 * beneath the root). */
int replay_root_link_target(const struct replay_root *r, const char *abs, int pfd,
			    const char *target, char *out, size_t outlen);
/* A climbing target ("../" once per directory above the link, then the
 * path beneath the top) is exact at one depth only: moved up by a
 * replayed rename, it would climb out of the root for every tool but
 * riot. No text with ".." can be right at every depth, and an absolute
 * one leaves the root for every tool but riot, so riot keeps this
 * invariant instead: a climbing link riot made never climbs more levels
 * than it lies deep, at every moment. Links that only descend (relative,
 * no "..") stay beneath their own directory wherever it moves, and are
 * never touched. replay_root_relink() rewrites the climbing links at name
 * in dirfd (the link itself, or every one beneath the directory) to climb
 * (their depth + shift) levels, never below 0, each by an atomic
 * replacement: before a rename that moves them up (shift: how far up,
 * negative) and after one that moves them down (shift 0). depth is
 * dirfd's depth below the top (replay_root_depth(): of the directory
 * fd, beneath abs's root, or -EXDEV). 0 or -errno (the first error; the
 * walk goes on). */
int replay_root_depth(const struct replay_root *r, const char *abs, int dirfd);
int replay_root_relink(int dirfd, const char *name, int depth, int shift);

/* The part of those checks that needs no root: -EPERM when target, taken
 * lexically from abs's directory, ends in the marker's name;
 * -ENAMETOOLONG; -EINVAL. */
int replay_root_check_target(const char *abs, const char *target);

#endif
