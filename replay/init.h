/* replay/init.h: the file tree a workload expected to find, derived from its
 * log and created beneath a confined root (replay/root.h), filled per
 * replay/fill.h. `riot init` and `riot replay` (and its --dry-run) use it.
 *
 * Derivation streams the log once through riot_reader and the model; memory
 * is one entry per distinct path (plus one per live file object for read
 * positions), never one per event.
 *
 * Rules. The first evidence about a path, in log order, decides whether it
 * was there at the start:
 *   - present: opened without creating it (no O_CREAT, or the open's
 *     `created` fact is 0), a successful stat/statx/access, a read, a
 *     successful readlink, a successful unlink/rmdir/truncate/chdir/attr/
 *     xattr call, the source of a successful rename or link, an EEXIST or
 *     EISDIR failure, an fd or cwd in the start snapshot (an fd of an
 *     unlinked file, "... (deleted)", is left out); exec'd files are not
 *     considered (replay does not exec);
 *   - absent: created by the workload (open with `created` set, or with
 *     O_CREAT|O_EXCL, or O_CREAT with no `created` fact; mkdir, mknod,
 *     symlink; the target of link or rename), or a failure with ENOENT
 *     (the workload expected it absent: it is never created).
 * Every ancestor of a path used successfully was present at that moment:
 * an ancestor with no evidence of its own becomes a present directory.
 * A path beneath an absent ancestor is not part of the initial tree (it
 * lives in a subtree the workload made or renamed into place).
 *
 * Kinds: the S_IFMT fact of an open, stat or snapshot; a readlink makes a
 * symlink (its captured target text, made to lead only into the root by
 * replay_root_link_target() when it is created); O_DIRECTORY,
 * mkdir EEXIST, rmdir, chdir, getdents and having present children make a
 * directory; anything else present is a regular file.
 *
 * Modes of files and directories: the permission bits the first open,
 * stat or snapshot fd saw (capture records them from format 1.1 on), unless
 * the workload changed them (chmod family) before; else 0755 for a
 * directory or a file access(X_OK) found executable, 0644 for a file.
 *
 * Extended attributes of files and directories: a name of the user. or
 * trusted. namespace that a getxattr found (with the size it returned),
 * unless a set, a removal or an ENODATA came first, is created with fill
 * bytes of that size (other namespaces have value syntaxes: never
 * invented).
 *
 * Sizes of regular files: the largest of the size at open, the stat size
 * and the furthest byte read (offset + bytes returned, positions tracked
 * per open file description), each counted only until the workload first
 * changes the file (write, truncate, fallocate, O_TRUNC open, copy into
 * it, unlink, or a rename onto or away from its path): after that, what it
 * observes is its own doing.
 *
 * Skipped and counted (per distinct path, enum init_skip): paths under
 * /proc, /sys and /dev; sockets, fifos and devices; truncated paths;
 * symlinks whose target the log does not hold (an lstat without readlink);
 * paths that are not confined-representable (hostile "." / ".." components,
 * too long, ending in the root marker's name) and symlinks whose target
 * ends in the marker's name.
 *
 * Creation: directories (parents first), then symlinks, on one thread;
 * then regular files in parallel, written in full (never sparse, so reads
 * of them hit the device). Every operation goes through replay/root.h
 * (openat2 RESOLVE_IN_ROOT, *at calls with one component on confined
 * parent fds). Before anything is written, the files' total per root must
 * fit the free space of its file system (-ENOSPC otherwise). At the end
 * every root's file system is synced (syncfs), so init's write-back does
 * not land in a replay's measurements.
 *
 * Re-running init on a root rewrites it to the same state: paths the
 * workload expected absent are removed (recursively, without following
 * symlinks), existing directories are kept, every regular file and every
 * symlink with another target is rewritten, and a file or symlink where a
 * directory belongs is replaced (file content is a pure function of the
 * fill, the seed and the captured path, so a re-run yields identical
 * bytes). A directory where a file or symlink belongs is a failure,
 * counted, never forced.
 *
 * Functions return 0 or -errno; where they take err, a one-line reason is
 * written there and nothing is printed.
 */
#ifndef RIOT_REPLAY_INIT_H
#define RIOT_REPLAY_INIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/log.h"
#include "lib/fleet.h"
#include "replay/fill.h"
#include "replay/root.h"

/* A --map whose captured prefix the workload found absent at its start
 * (it made it, or found it missing) must be absent in the replay too, not a
 * prepared directory: such a map becomes (the parent of its dir, the
 * name of its dir), so the marker goes in the parent and the directory
 * itself is made, or removed, as the log says. Derives the tree of
 * log_path to know. 0 or -errno with the reason in err; the maps hold
 * memory until replay_maps_release(). */
int replay_maps_for_log(const struct riot_logs *logs, struct replay_map *maps, unsigned nmaps,
			char *err, size_t errlen);
void replay_maps_release(struct replay_map *maps, unsigned nmaps);

/* Makes dir usable as a root: creates it (and missing parents) when absent;
 * refuses "/" (after realpath), a non-directory, and a non-empty directory
 * without riot's marker; writes the marker into an empty one. 0 or -errno
 * with the reason in err. `riot init` and `riot replay --root` both call
 * it, for --root and for every --map directory. */
int replay_root_prepare(const char *dir, char *err, size_t errlen);
/* replay_root_prepare() for dir and every map's dir, then
 * replay_root_open(): what `riot init` and `riot replay` do before they
 * touch anything. NULL + errno with the reason in err. */
struct replay_root *replay_root_setup(const char *dir, const struct replay_map *maps,
				      unsigned nmaps, char *err, size_t errlen);

enum init_kind { INIT_DIR = 1, INIT_FILE, INIT_SYMLINK };

enum init_skip {
	INIT_SKIP_PSEUDO,	/* under /proc, /sys, /dev */
	INIT_SKIP_SPECIAL,	/* socket, fifo, character or block device */
	INIT_SKIP_TRUNCATED,	/* the capture or the model cut the path */
	INIT_SKIP_NO_TARGET,	/* a symlink whose target is not in the log */
	INIT_SKIP_HOSTILE,	/* not confinable: "."/".." components, too
				 * long, ending in the marker's name, a
				 * symlink to the marker's name */
	INIT_SKIP_COUNT
};

/* "pseudo", "special", ... for summaries and JSON keys. */
const char *init_skip_name(enum init_skip s);

/* An extended attribute of an entry: a getxattr found it with a value of
 * size bytes before the workload set or removed it. */
struct init_xattr {
	const struct init_xattr *next;
	const char *name;
	uint32_t size;
	bool create;		/* false: found absent, or the workload's own */
};

/* One entry of the initial tree (valid during the callback only). */
struct init_entry {
	enum init_kind kind;
	const char *path;	/* captured absolute path */
	uint64_t size;		/* INIT_FILE */
	const char *target;	/* INIT_SYMLINK: captured target text */
	const struct init_xattr *xattrs;	/* files and directories */
	bool has_mode;		/* the log says its permission bits */
	uint32_t mode;		/* those bits (07777); else 0755 for a
				 * directory, 0644 for a file */
};

/* The most file-creation threads init runs (--threads). */
#define INIT_MAX_THREADS 8

struct init_opts {
	unsigned threads;	/* file-creation threads, 1..INIT_MAX_THREADS; 0:
				 * online CPUs, 2..INIT_MAX_THREADS */
	uint64_t seed;		/* mixed into every file's fill seed */
	bool progress;		/* a progress bar on stderr (caller checks
				 * isatty) */
	struct riot_shard shard;	/* n 0: the whole tree; else every
					 * directory and the files, symlinks
					 * and stale paths whose path hashes
					 * to shard k (lib/fleet.h) */
};

struct init_result {
	uint64_t dirs, files, symlinks;	/* in the initial tree */
	uint64_t bytes;			/* sum of file sizes */
	uint64_t removed;		/* stale paths removed from the root */
	uint64_t failed;		/* entries that could not be created */
	uint64_t skipped[INIT_SKIP_COUNT];
	uint64_t max_open;		/* the most files the whole log holds
					 * open at once (the model's live file
					 * objects): what a replay keeps open */
	double seconds;			/* wall time of the whole call */
	char first_failure[256];	/* "path: reason" of the first failure */
};

/* Derives the tree from log_path and creates it beneath root. A failed
 * entry does not stop the others: it is counted in res->failed (0 returned;
 * the caller decides whether a failure fails the command). -errno (with
 * err) for an unreadable or corrupt log, out of memory, or no threads. */
int replay_init_run(const struct riot_logs *logs, const struct replay_root *root,
		    const struct fill *fill, const struct init_opts *o,
		    struct init_result *res, char *err, size_t errlen);

/* Derives the tree (of shard only, when not NULL: see init_opts) and
 * calls fn for every entry (directories, then symlinks, then files, each
 * group in path order) without touching the file system; res gets the
 * counts (removed and failed stay 0). fn returning non-zero stops the
 * walk and is returned. */
int replay_init_plan(const struct riot_logs *logs, const struct riot_shard *shard,
		     int (*fn)(const struct init_entry *e, void *arg), void *arg,
		     struct init_result *res, char *err, size_t errlen);

/* The most files the log holds open at once (init_result's max_open),
 * from a pass of the model alone, for a replay without init. 0 or -errno
 * with a reason in err. */
int replay_init_max_open(const struct riot_logs *logs, uint64_t *max_open, char *err,
			 size_t errlen);

/* An fn for replay_init_plan printing "dir PATH", "file PATH SIZE",
 * "symlink PATH -> TARGET" lines to the FILE * in arg, bytes outside
 * printable ASCII escaped as \xHH. */
int replay_init_print_entry(const struct init_entry *e, void *arg);

#endif
