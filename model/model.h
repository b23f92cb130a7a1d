/* model/model.h: the resolver. It turns a log's records, in log order, into
 * operations on file objects with resolved absolute paths. replay, report,
 * dump and info read traces through it and nothing else.
 *
 * Feed every record to model_apply() in log order: the start state
 * (SNAP_PROC, SNAP_FD) first, then SYSCALL, PROC and DROP records, and
 * SNAP_FD records of fds found in use later (formats/FORMAT.md).
 *
 * Rules
 *
 * Tasks and processes. A record's pid is the tgid, tid the thread. Every
 * task (thread) has an fd table and a cwd; tasks share them as the kernel
 * does: FORK with CLONE_FILES shares the fd table, without it copies it;
 * CLONE_FS shares the cwd, without it copies it; CLONE_THREAD makes the new
 * task a thread of the parent's process. A thread first seen in a record
 * (one that existed before the capture) shares its process's tables. A
 * process ends when the last task the model knows of exits (EXIT records
 * come per task; exit_group reports every thread); a FORK naming a pid still
 * live in the model ends the old process first (its exit was lost). A pid
 * seen with neither a snapshot nor a FORK starts with an empty fd table and
 * an unknown cwd, and is counted in unknown_processes.
 *
 * fds. Only successful syscalls (ret >= 0) change state, with one
 * exception: close releases the fd unless it fails with EBADF, as Linux
 * does. open/openat/openat2/creat install a new file object at ret; dup,
 * dup2, dup3, fcntl F_DUPFD/F_DUPFD_CLOEXEC add an fd for the same object;
 * close, close_range (CLOSE_RANGE_CLOEXEC marks instead of closing,
 * CLOSE_RANGE_UNSHARE unshares the table first) remove fds. close-on-exec
 * comes from O_CLOEXEC (open flags, dup3, snapshot fdinfo flags),
 * F_DUPFD_CLOEXEC and F_SETFD; EXEC unshares the fd table and closes those
 * fds. execve/clone syscall records change nothing: the PROC records do.
 *
 * File objects. One per open file description: made by a successful open
 * or found in the snapshot (SNAP_FD; a SNAP_FD on an fd already held on
 * the same file keeps that object), shared by dup and fork, alive while
 * an fd refers to it. Ids count up from 1 and are never reused. A file's
 * open flags are those it was opened with (fcntl F_SETFL is left to the
 * consumer of the op). Snapshot fds of different processes are distinct
 * objects even when the processes shared a description before the capture.
 *
 * Paths. Relative paths resolve against the task's cwd, *at paths against
 * the dirfd's file object (AT_FDCWD: the cwd), absolute paths as they are;
 * then they are normalised lexically: repeated '/' collapsed, '.' removed,
 * '..' drops the previous component and never climbs above '/'. Symlinks
 * are not followed (a log cannot show them), so "/a/link/.." is "/a". Bytes
 * other than '/' and NUL mean nothing to the model and are kept. A path
 * longer than MODEL_PATH_MAX - 1 bytes keeps its leading components that
 * fit and is flagged truncated, as is a path the capture cut.
 * A path naming an fd through /proc ("/proc/self/fd/N", "/proc/thread-self/
 * fd/N", "/proc/PID/fd/N", "/proc/PID/task/TID/fd/N", with PID a process
 * the model knows; glibc's fchmodat fallback uses them) resolves to the path
 * of the file behind that fd, and what follows N beneath it; an fd the
 * model does not know leaves the /proc path as it is. utimensat with no
 * path (futimens) acts on its dirfd's file, like an fd op. path2 is
 * resolved only where it is a path (rename, link families: the PATH2 role);
 * a symlink target, readlink content or xattr name is passed through
 * untouched in op->text. Snapshot fds whose target is not a path (pipe:[..],
 * socket:[..], anon_inode:..) keep the kernel's text, which never starts
 * with '/', and cannot serve as a dirfd.
 *
 * Counted (struct model_stats). An operation naming an fd or dirfd the
 * model does not know (never opened in the trace, not in the snapshot; a
 * pipe or socket made by an untraced call counts too), except one failing
 * with EBADF: unresolved_fd, per syscall too; its file is 0. A relative
 * path with an unknown cwd: unknown_cwd (per path), its path NULL. A
 * truncated path: truncated_paths (per path).
 *
 * Lifetimes. Path strings live as long as the model. op pointers and
 * model_file() results are valid until the next model_apply(); a file
 * object closed by one record is still readable through model_file() until
 * the next model_apply(), then it is freed.
 *
 * Memory grows with live state (tasks, open fds, referenced file objects)
 * and with the distinct paths; nothing is allocated per record in steady
 * state. Functions return 0 or -errno; model_new() NULL + errno. After an
 * -ENOMEM from model_apply() the model may have missed that record's
 * effect; stop using it.
 */
#ifndef RIOT_MODEL_MODEL_H
#define RIOT_MODEL_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/log.h"

#define MODEL_PATH_MAX 4096	/* bytes of a resolved path, with its NUL */
/* The distinct paths of a log are held in memory for the model's life:
 * their text may take at most this many bytes (NULs included), about 2.5M
 * paths of 100 bytes, so a log of millions of distinct long paths (which
 * compress to little: 320k paths of 4 KB fit in a 2.3 MB log) cannot take
 * all of the machine's memory. Beyond it model_apply() fails with -E2BIG;
 * model_strerror() says why. */
#define MODEL_PATH_BYTES_MAX (256ull << 20)

struct model;

/* MODEL_OP_*: what could not be resolved for an op. */
enum {
	MODEL_OP_FD_UNKNOWN = 1u << 0,	/* fd not known: file is 0 */
	MODEL_OP_FD2_UNKNOWN = 1u << 1,	/* copy output fd not known */
	MODEL_OP_DIRFD_UNKNOWN = 1u << 2,	/* a relative path's dirfd not
						 * known: that path is NULL */
	MODEL_OP_CWD_UNKNOWN = 1u << 3,	/* a relative path, cwd unknown */
	MODEL_OP_PATH_TRUNCATED = 1u << 4,
	MODEL_OP_PATH2_TRUNCATED = 1u << 5,
};

/* The result of one record. Zero ids and NULL strings mean "none". */
struct model_op {
	const struct riot_rec *rec;	/* the record applied */
	uint64_t file;		/* SYSCALL: the fd's file object, the one an
				 * open created, or dirfd's for an empty path;
				 * SNAP_FD: the object made */
	uint64_t file2;		/* fd2's: dup/dup2/dup3/F_DUPFD's new fd,
				 * copy_file_range/sendfile/splice output,
				 * an ioctl clone's source */
	uint32_t path_id, path2_id;
	const char *path;	/* resolved path; for fd-based ops the file's
				 * path; SNAP_PROC: the cwd; EXEC: the file */
	const char *path2;	/* resolved path2 (rename, link), or file2's */
	const char *text;	/* symlink target, readlink content, xattr
				 * name: as recorded, not a path here */
	uint32_t flags;		/* MODEL_OP_* */
	/* SYSCALL: the thread's think time before the call, t minus the end
	 * (t + dur) of the same task's previous call (0 when they overlap);
	 * has_gap false for a task's first call, and for asynchronous
	 * requests (RIOT_SF_ASYNC), which neither have nor end a gap */
	bool has_gap;
	uint64_t gap_ns;
};

/* MODEL_FILE_*: where a file object came from. */
enum {
	MODEL_FILE_SNAPSHOT = 1u << 0,	/* open before the capture (SNAP_FD) */
	MODEL_FILE_TRUNCATED = 1u << 1,	/* its path is truncated */
	MODEL_FILE_NONFILE = 1u << 2,	/* made by pipe, socket, eventfd, ...:
					 * names no file */
};

struct model_file {
	uint64_t id;
	uint32_t path_id;
	uint32_t flags;		/* MODEL_FILE_* */
	uint64_t open_flags;	/* O_* as opened (snapshot: fdinfo flags) */
	uint32_t mode;		/* creation mode passed to open */
	uint32_t has;		/* RIOT_HAS_SIZE/FTYPE/INO/DEV/CREATED/PERM:
				 * facts recorded at open */
	uint64_t size, ino, dev;
	uint32_t ftype;		/* S_IFMT bits */
	uint32_t perm;		/* permission bits at open */
	uint8_t created;	/* the open created the file */
	uint64_t pos;		/* snapshot: file position at capture start */
	uint64_t at;		/* the file position the log implies after
				 * the records applied so far: 0 at an open,
				 * pos at a snapshot, moved by the read and
				 * write family without an offset (an O_APPEND
				 * write to end), copies, lseek */
	uint64_t pair;		/* the other end of a pipe or socketpair made
				 * in the log (one call made both), 0: none */
	uint64_t end;		/* the size the log implies: size at the
				 * open or snapshot, grown by writes and
				 * fallocate, set by ftruncate (truncate by
				 * path, mmap and writes through other objects
				 * are not seen) */
};

struct model_stats {
	uint64_t processes;	/* processes seen */
	uint64_t unknown_processes;	/* of those, seen first in a record
					 * without snapshot or FORK */
	uint64_t threads;	/* tasks seen, leaders included */
	uint64_t files;		/* file objects made */
	uint64_t paths;		/* distinct paths interned */
	uint64_t unresolved_fd;	/* ops with an unknown fd, fd2 or dirfd */
	uint64_t unresolved_fd_by_sys[RIOT_SYS_COUNT];
	uint64_t nonfile_fd;	/* ops on an fd that names no file: pipes,
				 * sockets, eventfds, ... (not losses) */
	uint64_t unknown_cwd;	/* relative paths with the cwd unknown */
	uint64_t truncated_paths;
	uint64_t dropped_events;	/* summed from DROP records: the model's
					 * state may be wrong after them */
	uint64_t live_processes, live_files;
};

struct model *model_new(void);
/* A model that follows only the state: processes, fd tables, cwds and
 * file objects (capture's --path filter asks it about fds and cwds). A
 * syscall that can change none of them (read, write, stat, ...) is not
 * applied: it is not counted, moves no position, interns no path, and its
 * op says nothing. */
struct model *model_new_tables(void);
void model_free(struct model *m);

/* Applies one record and describes it in *op (always filled; op may be
 * NULL when only the state and the counters matter). Records of types the
 * model does not know are ignored. 0, -ENOMEM, or -E2BIG when the log's
 * distinct paths exceed MODEL_PATH_BYTES_MAX. */
int model_apply(struct model *m, const struct riot_rec *r, struct model_op *op);
/* Whether a syscall may change what the resolver keeps (fd tables, cwds,
 * rings' registered files): a reader that feeds the model only some of
 * the calls (riot top, sampling) must still feed it these, and every
 * record that is not a syscall. The others resolve against it. */
bool model_changes_tables(const struct riot_syscall *sc);
/* The message for an error of model_apply(). */
const char *model_strerror(int err);

/* The string of a path id (valid for the model's life), or NULL. */
const char *model_path(const struct model *m, uint32_t id);
/* The id of a path the model has seen (a resolved, normalised path), or 0
 * when it has none: it never interns, so it changes no count. */
uint32_t model_path_find(const struct model *m, const char *s, size_t len);
/* The id of path s[0..len) (resolved, normalised), interned when new: for
 * a reader that keeps paths the model never saw (the ancestors of those it
 * did) by id, its strings then living as long as the model. 0 with errno
 * ENOMEM, or E2BIG past MODEL_PATH_BYTES_MAX of text. */
uint32_t model_path_intern(struct model *m, const char *s, size_t len);
/* Questions about a task, answered as the next record of (pid, tid) would
 * see it; they make nothing and count nothing. Whether fd is open: */
bool model_fd_known(struct model *m, uint32_t pid, uint32_t tid, int32_t fd);
/* Its cwd, or NULL when unknown (valid for the model's life). */
const char *model_cwd(struct model *m, uint32_t pid, uint32_t tid);
/* The path of the file behind fd, as a dirfd-relative path of the task
 * resolves against it: NULL when the fd is unknown, its path truncated or
 * not a path (pipe:[..]). Valid for the model's life. */
const char *model_fd_path(struct model *m, uint32_t pid, uint32_t tid, int32_t fd);
/* The file object behind fd, or NULL when the fd is unknown (valid until
 * the next model_apply()). */
const struct model_file *model_fd_file(struct model *m, uint32_t pid, uint32_t tid,
				       int32_t fd);
/* A live file object (or one released by the last model_apply), or NULL. */
const struct model_file *model_file(const struct model *m, uint64_t id);
/* The i-th file object the last model_apply() released (no fd refers to
 * it any more: a close, dup2/dup3 onto its last fd, close_range, exec of
 * its close-on-exec fds, the exit of the last task holding it), or NULL
 * past the last one. Valid until the next model_apply(). */
const struct model_file *model_released(const struct model *m, uint32_t i);
const struct model_stats *model_stats(const struct model *m);

/* The state the records applied so far left, as a start state restates
 * it: every live process in pid order (cwd NULL when unknown), each
 * followed by its open fds in fd order, as its main thread (or any
 * thread) sees them. A callback's non-zero return stops the walk and is
 * returned; else 0 or -ENOMEM. */
typedef int (*model_proc_fn)(void *ctx, uint32_t pid, const char *cwd);
typedef int (*model_fd_fn)(void *ctx, uint32_t pid, int32_t fd, bool cloexec,
			   const struct model_file *f);
int model_walk(struct model *m, model_proc_fn on_proc, model_fd_fn on_fd, void *ctx);

#endif
