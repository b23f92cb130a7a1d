/* replay/exec.h: an op issued with plain syscalls, and the files, buffers
 * and data it needs (exec.c), private to replay/. */
#ifndef RIOT_REPLAY_EXEC_H
#define RIOT_REPLAY_EXEC_H

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "replay/engine.h"
#include "replay/pace.h"

/* An op with plain syscalls (the sync engine, the uring engine's worker
 * and pool), in three steps so that the clock covers the call alone. fd,
 * fd2: real fds of op->file, op->file2 (-1 when none). For ACT_OPEN the
 * result is the new fd (the caller owns it). Result or -errno; -EXDEV etc.
 * from the root mean the path was refused: see replay_skip_of(). The
 * confinement lookups (a namespace call's parents, the object a
 * chmod acts on, a stat's parent; an open's place beneath its root) are
 * made by replay_exec_prep() before it starts; replay_exec_call() makes
 * the call (a stat or access looks up its final name there, as the
 * program did), replay_exec_unprep() closes what prep opened. A lookup
 * that failed is the call's result (p->err). */
struct replay_prep {
	int pfd, pfd2;		/* confined parents, or (ofd) the object */
	bool ofd;		/* pfd is an O_PATH fd of the object itself */
	int lflags;		/* linkat's flags */
	int rootfd;		/* open, truncate: beneath rootfd, at rel */
	int bfd;		/* an open of a relative path: the confined
				 * directory it walked from, tail beneath
				 * it; -1: the whole rel from rootfd */
	const char *tail;
	int64_t err;
	char name[NAME_MAX + 1], name2[NAME_MAX + 1];
	char rel[PATH_MAX];
	char target[PATH_MAX];	/* a symlink's, rewritten (root.h) */
};
int replay_exec_prep(const struct replay_ctx *cx, const struct replay_op *op,
		     struct replay_prep *p);
/* Whether replay_exec_prep() has lookups to make for op (an fd op, a close
 * or a sync has none). */
static inline bool replay_exec_has_prep(const struct replay_op *op)
{
	return op->act != ACT_CLOSE && op->act != ACT_SYNC && (!op->file || op->act == ACT_OPEN);
}
int64_t replay_exec_call(const struct replay_ctx *cx, const struct replay_op *op, int fd,
			 int fd2, const struct replay_prep *p);
void replay_exec_unprep(struct replay_prep *p);
/* The three around the clock of is: prep, then replay_issue_start() (the
 * wait until is->due_ns, if any), the call, replay_issue_stop(). A lookup
 * that fails is the result, timed as long as the lookup took. */
int64_t replay_exec_timed(const struct replay_ctx *cx, const struct replay_op *op, int fd,
			  int fd2, struct replay_issue *is);
/* The skip reason for an error from the root's path mapping, or 0. */
unsigned replay_skip_of(int err);
/* O_* an op may pass to openat2 (unknown bits make openat2 fail). */
uint64_t replay_open_flags(uint64_t captured);
/* Opens a file object again by its path, for a thread that does not hold
 * it yet: its flags without creating or truncating. fd or -errno. */
int replay_reopen(const struct replay_ctx *cx, const struct replay_op *op, bool second);
/* A confined O_PATH fd of op's path (following a final symlink unless
 * OPF_NOFOLLOW): what stat, access and the attr calls act on. */
int replay_path_fd(const struct replay_ctx *cx, const struct replay_op *op);
/* The source of a link op for linkat(fd, name, ..., *flags): its confined
 * parent and final name; with AT_SYMLINK_FOLLOW captured, the
 * /proc/thread-self/fd name of a confined O_PATH fd of it, followed (*flags
 * AT_SYMLINK_FOLLOW).
 * fd (the caller closes it) or -errno. */
int replay_link_source(const struct replay_ctx *cx, const struct replay_op *op, char *name,
		       size_t namelen, int *flags);
/* The skip reason when the root refuses op's paths (/proc, hostile), or 0. */
unsigned replay_check_paths(const struct replay_ctx *cx, const struct replay_op *op);

/* File object id -> value, for ids counting up from 1; lock-free reads and
 * writes of distinct ids from any thread. Values are int64 >= 0. */
struct replay_fdmap {
	_Atomic(int64_t *) chunks[1u << 16];
};
/* An empty map whose first 65,536 ids have their cells mapped already (a
 * run's first open does not map them between two paced ops: 30 us here).
 * NULL: out of memory. */
struct replay_fdmap *replay_fdmap_new(void);
int64_t replay_fdmap_get(struct replay_fdmap *m, uint64_t id);	/* -1: none */
int replay_fdmap_set(struct replay_fdmap *m, uint64_t id, int64_t v);	/* 0, -ENOMEM */
int64_t replay_fdmap_take(struct replay_fdmap *m, uint64_t id);	/* get + clear */
/* Calls fn on every value still set. */
void replay_fdmap_drain(struct replay_fdmap *m, void (*fn)(int64_t v, void *arg), void *arg);
void replay_fdmap_free(struct replay_fdmap *m);

/* The real fds of a replay's file objects, one table for all the threads of
 * an engine: the file a captured thread opened is the one every thread of
 * its process uses, and its close drops the file's last reference, as the
 * program's did. A file object whose replayed open failed holds
 * REPLAY_OPEN_FAILED. */
#define REPLAY_OPEN_FAILED ((int64_t)INT32_MAX + 1)
/* The real fd of op's file (second: file2), opened by path when this run
 * has not opened it (an fd from before the capture: *reopened set true);
 * -EBADF when its replayed open failed, or -errno. */
int replay_files_fd(const struct replay_ctx *cx, struct replay_fdmap *fds,
		    const struct replay_op *op, bool second, bool *reopened);
/* Keeps what open op returned (fd or -errno) as its file object's. */
void replay_files_opened(struct replay_fdmap *fds, const struct replay_op *op, int64_t rc);
/* Closes every fd the table holds, keeping them in it. */
void replay_fdmap_close(struct replay_fdmap *fds);
/* Closes every fd still held and frees the table (the end of a replay);
 * NULL: nothing. */
void replay_files_free(struct replay_fdmap *fds);

/* The kernel moves at most MAX_RW_COUNT (INT_MAX & PAGE_MASK) bytes in one
 * read or write call, whatever count it is given; a replayed data op moves
 * at most that too, in both engines. */
#define REPLAY_RW_MAX ((size_t)INT_MAX & ~(size_t)4095)
/* Memory behind one op's data, whatever count the log claims: a read or
 * write larger than this reuses the same bytes (replay_rw_iov()). */
#define REPLAY_BUF_BYTES ((size_t)4 << 20)
#define REPLAY_IOV_MAX (REPLAY_RW_MAX / REPLAY_BUF_BYTES + 1)

/* Bytes one read or write of op moves: its count, at most REPLAY_RW_MAX. */
size_t replay_rw_len(const struct replay_op *op);
/* Bytes of buffer a call other than read/write gets for a count from the
 * log (readlink, getdents): at least 1, at most REPLAY_BUF_BYTES. */
size_t replay_buf_len(uint64_t count);
/* The data of a read or write of len bytes (replay_rw_len()) over buf of
 * cap bytes (min(len, REPLAY_BUF_BYTES)): the buffer repeated until len
 * bytes are covered, so a 2 GiB write costs 4 MiB of memory. Returns the
 * entries written to iov (at most REPLAY_IOV_MAX). A write of more than
 * cap bytes writes the fill of its first cap bytes again and again. */
unsigned replay_rw_iov(void *buf, size_t cap, size_t len, struct iovec *iov);

/* Fills the calling thread's buffer with what write op writes, before its
 * clock starts: replay_exec_call() of that op then writes it as it is, so the
 * time to make the data is not counted as the write's latency. */
void replay_prepare_data(const struct replay_ctx *cx, const struct replay_op *op);

/* A thread-local buffer of at least len bytes (at most REPLAY_BUF_BYTES),
 * 4 KiB aligned (O_DIRECT). NULL when out of memory or len is larger. */
void *replay_scratch(size_t len);
/* Frees the calling thread's buffer (before the thread ends). */
void replay_scratch_release(void);

#endif
