/* replay/plan.h: the replay plan, private to replay/.
 *
 * One producer thread streams the log through riot_reader and the model and
 * turns every syscall record into a struct replay_op: what to issue (act),
 * on which captured thread (stream), against which file object or paths,
 * with every data operation made positional (the captured position is
 * computed here per file object, so replay is deterministic and streams on
 * different workers cannot race a shared position), the captured result to
 * compare with, and the sequence numbers it must wait for.
 *
 * Ops live in a window: a ring of REPLAY_WINDOW slots indexed by sequence
 * number (log order, from 1). The producer never runs more than the window
 * ahead of the oldest incomplete op, so memory stays bounded whatever the
 * log's length. An op is complete when its slot's `done` holds a value >=
 * its seq: `done` only grows, so a dependency check is one load and no
 * worker ever scans; a thread that must sleep on a dependency sleeps on
 * that op alone (replay_plan_wait_op).
 *
 * Ordering (dep[]): a stream's first op waits for every op logged before
 * the fork or clone that made its thread, and its first op after an exec
 * for every op logged before the exec (a prefix barrier up to the last op
 * planned before the FORK or EXEC record: its creator's ops, and those of
 * the children it waited for), whatever the order; and a thread's op
 * after a child process exited (since the thread's previous op ended)
 * waits for the child's last op, as the thread waited for the child
 * (thread and resource order; strict waits for all); so does a read that
 * got bytes from a pipe the log made, for the last write to it, and a
 * thread's call after a page fault of its own, for that page. Thread
 * order waits for nothing else; resource order waits
 * for the previous op (in log order) on each file object and path the op
 * touches (an open touches its path and the object it creates, a rename
 * both its paths); strict order waits for the previous op of the log.
 * Within a stream, ops are issued one at a time in order by the engine.
 *
 * Asynchronous requests (RIOT_SF_ASYNC: io_uring:*, aio:*, mmap:*) are
 * planned like their syscall twins (io_uring:read as a pread64, aio:fsync
 * as an fsync, mmap:write as a pwrite64 of the same range of the file
 * the mmap the log shows at the record's ctx maps), on a stream of
 * their own per captured context (pid, ctx) instead of per thread: an
 * asynchronous stream (OPF_ASYNC), whose ops an engine may keep in flight
 * together, up to each op's captured depth (op->depth: the requests of its
 * context submitted and not yet complete when it was submitted, itself
 * included, from the captured t and t + dur), with the ring's link and
 * drain flags (op->sqe_flags). Resource order never makes an op of an
 * asynchronous stream wait for an op of the same stream: the stream's
 * order and depth are the capture's. Strict order keeps every op waiting
 * for the previous one, as it says.
 */
#ifndef RIOT_REPLAY_PLAN_H
#define RIOT_REPLAY_PLAN_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "formats/log.h"
#include "lib/fleet.h"
#include "replay/classify.h"

#define REPLAY_WINDOW (1u << 17)	/* ops planned ahead of the oldest
					 * incomplete one */
#define REPLAY_WINDOW_REFILL (REPLAY_WINDOW / 16)	/* slots a full window waits for */
#define REPLAY_MAX_DEPS 6	/* file, file2, path, path2 and their parents */
/* A dep with this bit is a prefix barrier: every op up to its seq done. */
#define REPLAY_DEP_PREFIX (1ull << 63)

/* op->opflags */
enum {
	OPF_NOFOLLOW = 1u << 0,	/* act on a final symlink itself */
	OPF_IMPLICIT = 1u << 1,	/* read/write at the file position (the
				 * plan made it positional) */
	OPF_RELEASE = 1u << 2,	/* ACT_CLOSE of a file the workload let go
				 * without a close of its own (dup2 onto its
				 * fd, close_range, exec, exit): no captured
				 * syscall, counted apart (sys is close) */
	OPF_ASYNC = 1u << 3,	/* an asynchronous request (RIOT_SF_ASYNC) on
				 * its context's stream */
};

struct replay_op {
	_Atomic uint64_t done;	/* == seq once complete; only grows */
	uint64_t seq;
	uint64_t dep[REPLAY_MAX_DEPS];	/* seqs to wait for, 0: none */
	uint64_t t;		/* captured entry, ns after the first op */
	uint64_t dur;		/* captured duration */
	int64_t ret;		/* captured result */
	uint64_t file, file2;	/* model file objects, 0: none */
	uint64_t file_flags;	/* O_* the file object was opened with */
	const char *path;	/* resolved absolute, model-owned; for fd ops
				 * the file's path */
	const char *path2;	/* rename/link destination */
	char *text;		/* owned: symlink target, xattr name */
	uint8_t *value;		/* owned: a setxattr's captured value bytes
				 * (value_len of count), NULL: none */
	uint32_t value_len;
	uint64_t off, count;
	uint64_t flags;		/* open flags, *at flags, fallocate mode... */
	uint64_t arg;
	uint32_t mode, uid, gid;
	uint32_t path_id, path2_id;
	uint32_t stream;	/* index into the plan's streams */
	uint32_t pid, tid;
	uint16_t sys;		/* RIOT_SYS_* */
	uint8_t act;		/* enum replay_act */
	uint8_t walk;		/* a relative path (to a dirfd or the cwd):
				 * the components the program's lookup
				 * walked, at most 255; 0: an absolute path,
				 * one with "..", or none */
	uint8_t skip;		/* enum replay_skip */
	uint32_t opflags;	/* OPF_* */
	uint32_t depth;		/* OPF_ASYNC: captured in-flight depth at its
				 * submission, itself included (at most
				 * REPLAY_ASYNC_DEPTH_MAX) */
	uint8_t sqe_flags;	/* OPF_ASYNC io_uring data and sync requests:
				 * IOSQE_IO_LINK, IOSQE_IO_DRAIN,
				 * IOSQE_IO_HARDLINK as captured */
	uint64_t next;		/* engine-owned: next seq of the stream */
	_Atomic uint32_t waiters;	/* threads sleeping on its completion */
	/* --timing think (replay_plan_opts.think): when it is due, from
	 * what the program did before it: */
	uint8_t think;		/* enum replay_think */
	uint32_t anchor;	/* THINK_END: the stream whose last op's end
				 * it follows */
	uint64_t anchor_seq;	/* THINK_OP: the op whose end it follows */
	uint64_t gap;		/* the captured think time after that point */
	uint64_t due;		/* drive-owned: the due time once computed
				 * (CLOCK_MONOTONIC), 0: not yet */
	uint64_t vstart;	/* drive-owned: its start on the program's
				 * virtual clock (ns after the start) */
	_Atomic uint64_t vend;	/* its virtual end + 1, 0: not yet */
};

/* --timing think: an op is due the captured gap (op->gap) after ... */
enum replay_think {
	THINK_START,	/* the run's start: gap is op->t (the stream's
			 * first op, no creator known) */
	THINK_END,	/* the replayed end of the last op of stream
			 * op->anchor: its own stream's previous op (a
			 * thread's think time), or the last op of a child
			 * process that exited meanwhile (the wait for it) */
	THINK_ISSUE,	/* its own stream's previous op's due time: an
			 * asynchronous stream's requests keep their
			 * captured submission gaps */
	THINK_READY,	/* its dependencies' completion: the first op of a
			 * forked thread whose creator made no op before */
	THINK_OP,	/* the end of op anchor_seq: the first op of a forked
			 * thread, after its creator's last op before the
			 * fork */
};

/* The replayed times of a stream's last op under --timing think
 * (CLOCK_MONOTONIC ns), written by the thread that drives the stream. */
struct replay_clock {
	_Atomic uint64_t end;	/* its completion (a call not issued: its due
				 * time + its captured duration) */
	_Atomic uint64_t due;	/* its due time */
	/* the same on the program's virtual clock (drive.c), ns after the
	 * start: its start, and its end (its start + its call's latency) */
	_Atomic uint64_t vstart, vend;
};

struct replay_stream {
	uint32_t pid, tid;	/* an asynchronous stream: tid 0 */
	uint64_t ops;		/* planned so far */
	bool async;		/* the requests of one ring, AIO context or
				 * mapping (ctx) */
	uint64_t ctx;
};

/* The largest in-flight depth an asynchronous stream keeps (io_uring's
 * and Linux AIO's usual limits are far above what programs use). */
#define REPLAY_ASYNC_DEPTH_MAX 1024u

enum replay_order { ORDER_THREAD, ORDER_RESOURCE, ORDER_STRICT };

struct replay_plan;

/* Called by the producer for every new stream, before its first op is
 * handed over; returns the lane (worker) the stream's ops go to, or
 * -errno: the run stops there and fails. */
typedef int (*replay_route_fn)(void *eng, uint32_t stream, uint32_t pid);
/* Hands op seq to lane; the engine wakes the lane if it sleeps. 0, or
 * -errno when the engine could not take it: the plan completes it for
 * the ops that wait on it, counts it lost (replay_plan_lost()) and
 * stops, so the run ends and fails. */
typedef int (*replay_push_fn)(void *eng, unsigned lane, uint64_t seq);

struct replay_plan_opts {
	const struct riot_logs *logs;	/* the log: a file or segments */
	enum replay_order order;
	replay_route_fn route;
	replay_push_fn push;
	void *eng;
	/* Where asynchronous streams go (replay_async in async.h), whichever
	 * the engine; NULL: to route and push with the thread streams. */
	replay_route_fn route_async;
	replay_push_fn push_async;
	void *eng_async;
	/* Called on the producer thread with every process record (PROC,
	 * SNAP_PROC), for the report's process names; may be NULL. */
	void (*on_proc)(void *ctx, const struct riot_rec *r);
	void *proc_ctx;
	/* Only the calls of the processes in this shard become ops (n 0:
	 * all); the others still move file positions and sizes, and the
	 * schedule's time 0 is the whole log's first call. */
	struct riot_shard shard;
	/* --timing think: every op gets its anchor and gap (struct
	 * replay_op) */
	bool think;
};

/* Opens the log and the model. NULL + errno, with a reason in err. */
struct replay_plan *replay_plan_new(const struct replay_plan_opts *o, char *err, size_t errlen);
void replay_plan_free(struct replay_plan *p);

/* Streams the whole log into the window (blocking while the window is
 * full). Runs on the producer thread. 0 or -errno with replay_plan_error(). */
int replay_plan_run(struct replay_plan *p);
const char *replay_plan_error(const struct replay_plan *p);

/* The op of seq (valid while it is in the window). */
struct replay_op *replay_plan_op(struct replay_plan *p, uint64_t seq);
/* Brings op's memory into the cache ahead of its turn. */
static inline void replay_op_prefetch(const struct replay_op *op)
{
	for (size_t b = 0; b < sizeof(*op); b += 64)
		__builtin_prefetch((const char *)op + b);
}
/* The first dependency of op not complete yet (a seq), 0 when ready. */
uint64_t replay_op_blocker(const struct replay_plan *p, const struct replay_op *op);
/* Marks op complete and wakes whoever waits for completions. */
void replay_op_complete(struct replay_plan *p, struct replay_op *op);

/* Whether op seq (in the window, or before it) is complete. */
bool replay_plan_op_done(const struct replay_plan *p, uint64_t seq);
/* Sleeps until op seq completes (or a backstop timeout passes: callers
 * re-check). Only that op's completion wakes the caller, so a thread
 * blocked on one dependency costs the others nothing. */
void replay_plan_wait_op(struct replay_plan *p, uint64_t seq);
/* futex(2) on a 32-bit word (FUTEX_WAIT_PRIVATE, FUTEX_WAKE_PRIVATE...). */
struct timespec;
long replay_futex(_Atomic uint32_t *addr, int op, uint32_t val, const struct timespec *ts);

/* The clock of stream i (--timing think): good for the plan's life once
 * the stream's first op has been handed over. */
struct replay_clock *replay_plan_clock(struct replay_plan *p, uint32_t i);
/* The captured program's elapsed time: from its start (a process record
 * before its first call, such as the exec of a `-- CMD` capture; else its
 * first call) to the latest of its last call's end and its last exit; of
 * it, the time outside the span of its calls (before the first, after the
 * last), which no storage changes. Once the plan has finished. */
uint64_t replay_plan_captured_ns(const struct replay_plan *p);
uint64_t replay_plan_outside_ns(const struct replay_plan *p);

/* Set once the producer handed over the last op. */
bool replay_plan_finished(const struct replay_plan *p);
uint64_t replay_plan_planned(const struct replay_plan *p);	/* ops so far */
uint64_t replay_plan_lost(const struct replay_plan *p);	/* of them, never issued */
const struct replay_stream *replay_plan_stream(const struct replay_plan *p, uint32_t i);
uint32_t replay_plan_nstreams(const struct replay_plan *p);
/* The model (path strings for reports); only once the plan has finished. */
const struct model *replay_plan_model(const struct replay_plan *p);
bool replay_plan_log_complete(const struct replay_plan *p);
uint64_t replay_plan_skipped_ops(const struct replay_plan *p, unsigned skip);

#endif
