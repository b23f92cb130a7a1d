/* replay/engine.h: replay engines, private to replay/.
 *
 * An engine issues the plan's ops (plan.h) against the root. Engines sit
 * behind a function table: `uring` multiplexes the streams over a few
 * workers, each with its own io_uring ring and registered (direct) file
 * table; `sync` gives every stream an OS thread issuing plain blocking
 * syscalls: the honest baseline. Both take ops from the same producer,
 * keep the same ordering and schedule, and account every op through
 * replay_account().
 *
 * One rule for the files of both: a file object whose replayed open failed
 * (where the capture's succeeded) has no fd in the replay, so every later
 * op on it, its close included, fails with EBADF without reaching the
 * kernel, and counts as a divergence of its own; a file object this run
 * never opened (an fd from before the capture) is opened again by its path
 * (replay_reopen()) at its first use.
 */
#ifndef RIOT_REPLAY_ENGINE_H
#define RIOT_REPLAY_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <sys/uio.h>

#include "fill.h"
#include "plan.h"
#include "root.h"
#include "stats.h"

struct replay_ctx {
	struct replay_plan *plan;
	const struct replay_root *root;
	struct fill fill;
	double speed;		/* 0: as fast as possible */
	unsigned workers;
	uint64_t start_ns;	/* CLOCK_MONOTONIC at the start */
	struct replay_report *report;	/* NULL: no --report */
	_Atomic uint64_t completed;	/* ops accounted, for progress */
	_Atomic uint32_t started;	/* the gate: no op is issued before it
					 * (a futex word: 0 closed, 1 open) */
};

/* Opens the gate (start_ns is set) / waits for it, in engine threads. */
void replay_ctx_open_gate(struct replay_ctx *cx);
void replay_ctx_wait_gate(struct replay_ctx *cx);

struct replay_engine {
	const char *name;
	/* Makes the engine's state; NULL + errno with a reason in err. */
	void *(*create)(struct replay_ctx *cx, char *err, size_t errlen);
	replay_route_fn route;
	replay_push_fn push;
	/* Starts the threads; the plan exists and start_ns is set. */
	int (*start)(void *eng, char *err, size_t errlen);
	/* Waits for every op, merges the threads' stats into total. */
	int (*finish)(void *eng, struct replay_stats *total);
	void (*destroy)(void *eng);
};

extern const struct replay_engine replay_engine_uring;
extern const struct replay_engine replay_engine_sync;

uint64_t replay_now_ns(void);
/* When op is due (CLOCK_MONOTONIC ns), 0 when unpaced. */
uint64_t replay_due_ns(const struct replay_ctx *cx, const struct replay_op *op);
/* Sleeps until spin_ns before due, then spins to it: a timer wakes late
 * (tens of microseconds on a quiet machine, far more on a busy VM), so
 * the last stretch is spun for precision. */
void replay_wait_until(uint64_t due_ns, uint64_t spin_ns);

/* Performs op with plain syscalls: the sync engine and the uring engine's
 * fallback pool. fd, fd2: real fds of op->file, op->file2 (-1 when none).
 * For ACT_OPEN returns the new fd (the caller owns it). Result or -errno;
 * -EXDEV etc. from the root mean the path was refused: see
 * replay_skip_of(). */
int64_t replay_exec(const struct replay_ctx *cx, const struct replay_op *op, int fd, int fd2);
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
 * parent and final name; with AT_SYMLINK_FOLLOW captured, the /proc/self/fd
 * name of a confined O_PATH fd of it, followed (*flags AT_SYMLINK_FOLLOW).
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
int64_t replay_fdmap_get(struct replay_fdmap *m, uint64_t id);	/* -1: none */
int replay_fdmap_set(struct replay_fdmap *m, uint64_t id, int64_t v);	/* 0, -ENOMEM */
int64_t replay_fdmap_take(struct replay_fdmap *m, uint64_t id);	/* get + clear */
/* Calls fn on every value still set. */
void replay_fdmap_drain(struct replay_fdmap *m, void (*fn)(int64_t v, void *arg), void *arg);
void replay_fdmap_free(struct replay_fdmap *m);

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

/* A thread-local buffer of at least len bytes (at most REPLAY_BUF_BYTES),
 * 4 KiB aligned (O_DIRECT). NULL when out of memory or len is larger. */
void *replay_scratch(size_t len);
/* Frees the calling thread's buffer (before the thread ends). */
void replay_scratch_release(void);

#endif
