/* replay/engine.h: replay engines, private to replay/.
 *
 * An engine issues the plan's ops (plan.h) against the root. Engines sit
 * behind a function table and are listed in one table (engines.c): an
 * engine is one file plus one entry there; `riot replay --engine` and its
 * help come from that table. `sync` (the default) gives every stream an OS
 * thread issuing plain blocking syscalls, as the captured threads did;
 * `uring` gives each one a worker thread with an io_uring ring, which
 * multiplexes streams when there are more than --workers. replay/ENGINES.md
 * says which measurements chose the default.
 *
 * Every op goes the same way whatever the engine (drive.c): wait for its
 * dependencies, resolve its paths, prepare its data, wait until it is due,
 * issue, account. An engine only supplies the issue step.
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
#include <stdio.h>
#include <pthread.h>
#include <sys/uio.h>

#include "replay/fill.h"
#include "replay/plan.h"
#include "replay/root.h"
#include "replay/stats.h"

/* An engine gives each stream a thread of its own, up to this many; beyond
 * it streams share them. Their stacks are this size. */
#define REPLAY_MAX_THREADS 1024
#define REPLAY_THREAD_STACK (256u << 10)
/* Starts an engine thread with a stack of stack bytes: true when it runs. */
bool replay_thread_start(pthread_t *th, size_t stack, void *(*fn)(void *), void *arg);
/* What such a thread spins before a due time (replay_wait_until()): more
 * threads than CPUs must not spin long, or they starve each other and
 * every op is late. */
#define REPLAY_SPIN_NS 30000

struct replay_ctx {
	struct replay_plan *plan;
	const struct replay_root *root;
	struct fill fill;
	double speed;		/* 0: as fast as possible */
	bool think;		/* --timing think: ops due by their anchors
				 * and gaps (plan.h), not by speed */
	unsigned workers;	/* uring: --workers, 0: one per stream */
	uint64_t start_ns;	/* CLOCK_MONOTONIC at the start */
	uint64_t clock_bias_ns;	/* taken off every call's latency:
				 * replay_clock_bias() */
	uint64_t timer_lag_ns;	/* paced: replay_timer_lag(), 0 unpaced */
	struct replay_report *report;	/* NULL: no --report */
	_Atomic uint64_t completed;	/* ops accounted, for progress */
	_Atomic uint32_t started;	/* the gate: no op is issued before it
					 * (a futex word: 0 closed, 1 open) */
	/* Set by an engine whose threads wait for ops elsewhere than on the
	 * ops themselves (uring's workers sleep in their rings): called when
	 * a thread outside the engine (an asynchronous stream) completed op
	 * seq, so the engine wakes whoever waits for it. NULL: none. */
	void (*notify)(void *arg, uint64_t seq);
	void *notify_arg;
};

/* Opens the gate (start_ns is set) / waits for it, in engine threads. */
void replay_ctx_open_gate(struct replay_ctx *cx);
void replay_ctx_wait_gate(struct replay_ctx *cx);

struct replay_engine {
	const char *name;	/* --engine NAME */
	const char *alias;	/* another accepted name, or NULL */
	const char *report_name;	/* runs.replay_engine in reports */
	const char *help;	/* what it does, for --help (wrapped lines) */
	/* Threads issuing ops (for the summary), once the run has ended. */
	unsigned (*threads)(void *eng);
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

/* The engine table (engines.c, where each engine's descriptor is named);
 * the first entry is the default. */
extern const struct replay_engine *const replay_engines[];
extern const unsigned replay_nengines;
/* The engine called name (or its alias), NULL when none is. */
const struct replay_engine *replay_engine_find(const char *name);
/* "sync, uring": the names, for error messages. */
void replay_engine_names(char *buf, size_t len);
/* Every engine and its help, for riot replay --help. */
void replay_engines_help(FILE *out);

/* ---- the queue of one engine thread (queue.c) ----
 *
 * Op seqs handed by the plan's producer to one thread, in log order: a
 * ring that grows (its capacity a power of two), under a lock. */
struct replay_queue {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t *q;
	size_t head, len, cap;
	bool closed;
};
int replay_queue_init(struct replay_queue *q);	/* 0, -ENOMEM */
int replay_queue_push(struct replay_queue *q, uint64_t seq);	/* 0, -ENOMEM */
/* The next seq: 1; 0 when there is none (with wait, sleeps until one
 * comes or the queue is closed); -1 when closed and empty. */
int replay_queue_pop(struct replay_queue *q, bool wait, uint64_t *seq);
/* Up to max seqs at once, under one lock: how many (> 0); 0 and -1 as
 * replay_queue_pop(). */
int replay_queue_take(struct replay_queue *q, bool wait, uint64_t *seqs, unsigned max);
/* No more seqs will come: wakes the thread. */
void replay_queue_close(struct replay_queue *q);
void replay_queue_free(struct replay_queue *q);

/* ---- asynchronous streams (async.c) ----
 *
 * The streams of the program's own io_uring rings, AIO contexts and file
 * mappings (plan.h) go to these, whichever engine runs the threads: each
 * gets a thread and an io_uring of its own and keeps up to each request's
 * captured depth in flight, in captured order, with its links and drains.
 * The plan routes and pushes to them (replay_plan_opts.route_async,
 * push_async) from its producer thread. */
struct replay_async;
/* NULL + errno. */
struct replay_async *replay_async_new(struct replay_ctx *cx);
int replay_async_route(void *ra, uint32_t stream, uint32_t pid);
int replay_async_push(void *ra, unsigned lane, uint64_t seq);
/* Waits for every op, merges the streams' stats (and their depths, per
 * stream) into total. */
int replay_async_finish(struct replay_async *ra, struct replay_stats *total);
unsigned replay_async_threads(const struct replay_async *ra);
void replay_async_free(struct replay_async *ra);

/* ---- the per-op driver (drive.c) ---- */

/* Where a driven op stands after replay_drive_begin(). */
enum replay_step {
	STEP_ISSUE,	/* issue it now (d->due set, 0 when unpaced) */
	STEP_DONE,	/* nothing to issue (state only, unreplayable, or
			 * skipped: d->skip): account it with replay_drive_end() */
	STEP_BLOCKED,	/* a dependency is not complete: *what is its seq */
	STEP_NOT_DUE,	/* due later than now: *what is when; the caller
			 * waits (replay_wait_until()) for the earliest of
			 * its ops, or does other work meanwhile */
};

/* How the threads of an engine wait for ops' due times: each sleeps
 * (clock_nanosleep, timer slack 1 ns) until spin_ns before, then spins the
 * rest, for a timer wakes late (tens of microseconds on a quiet machine).
 * At most max_spinners threads spin at once, one CPU fewer than the
 * machine has: the kernel threads a replay depends on (io-wq, the
 * journal, writeback) and the log reader must get a CPU; a thread over
 * the budget sleeps the whole way. */
uint64_t replay_now_ns(void);

struct replay_pace {
	uint64_t spin_ns;
	int max_spinners;
	_Atomic int spinning;
};

/* spin_ns: the engine's spin before a due time, to which the context's
 * timer lag is added (at most REPLAY_SPIN_MAX_NS in all). */
void replay_pace_init(struct replay_pace *p, const struct replay_ctx *cx, uint64_t spin_ns);
#define REPLAY_SPIN_MAX_NS 2000000u
/* A long sleep ends later than a short one: on this VM a thread sleeping
 * 100 ms woke 116 us late at p50 (the idle vCPU's wake-up), one sleeping
 * 50 us 24 us late, and replay_timer_lag() times 100 us sleeps. So a wait
 * longer than this (beyond the spin) first sleeps until this long before
 * the spin starts, then sleeps again, a short sleep, to the spin. */
#define REPLAY_WAKE_NS 500000u
/* Returns at due_ns (or as soon after as the machine allows). */
void replay_wait_until(struct replay_pace *p, uint64_t due_ns);

/* One turn of a spin-wait: tells the CPU (x86 pause, arm64 yield) so it
 * spends less power and leaves a sibling hyperthread more. */
static inline void replay_spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* Steps 1 to 4 of op: dependencies, paths, data, due time. With wait,
 * sleeps on dependencies and never returns BLOCKED or NOT_DUE (the wait
 * until due is the issue's: replay_issue_start(), after its lookups);
 * without, returns them for the caller's loop to come back. d is reset
 * here. */
enum replay_step replay_drive_begin(const struct replay_ctx *cx, struct replay_op *op, bool wait,
				    struct replay_done *d, uint64_t *what);
/* Step 5's measurement around an issue that has finished: t0 when the
 * call was made, t1 when it returned, result its return value. */
void replay_drive_issued(const struct replay_ctx *cx, struct replay_done *d, uint64_t t0,
			 uint64_t t1, int64_t result);
/* Step 6: accounts op into s (under lock when not NULL), counts it for
 * progress and completes it, waking whoever waits on it. */
void replay_drive_end(struct replay_ctx *cx, struct replay_stats *s, pthread_mutex_t *lock,
		      struct replay_op *op, const struct replay_done *d);

/* The clock of one issue (step 5): the engine finds what the call needs
 * (replay_exec_prep()), then replay_issue_start() waits until the op is
 * due and starts the clock, replay_issue_stop() stops it. */
struct replay_issue {
	struct replay_pace *pace;
	uint64_t due_ns;	/* 0: unpaced */
	uint64_t t0, t1;
};

static inline void replay_issue_start(struct replay_issue *is)
{
	if (is->due_ns)
		replay_wait_until(is->pace, is->due_ns);
	is->t0 = replay_now_ns();
}

static inline void replay_issue_stop(struct replay_issue *is)
{
	is->t1 = replay_now_ns();
}

/* Issues op and blocks until it is done: result or -errno; is->t0 and
 * is->t1 set by replay_issue_start() and replay_issue_stop() around the
 * call alone. */
typedef int64_t (*replay_issue_fn)(void *arg, const struct replay_op *op,
				   struct replay_issue *is);
/* All six steps for an engine whose issue blocks. */
void replay_drive_op(struct replay_ctx *cx, struct replay_pace *pace,
		     struct replay_stats *s, pthread_mutex_t *lock, struct replay_op *op,
		     replay_issue_fn issue, void *arg);

/* What timing a call from user space adds to the call's own time: the
 * median of timed null syscalls (getppid), clock reads and syscall entry
 * and exit (ns). A capture times each call inside the kernel, from its
 * sys_enter to its sys_exit: a replayed call's latency less this is
 * measured as the captured one was. */
uint64_t replay_clock_bias(void);
/* How late this machine's timers wake a thread: the 99th percentile of
 * 201 absolute sleeps of 100 us (timer slack 1 ns), in ns. A paced
 * replay spins for this much more before an op is due (replay_pace_init()):
 * on a VM whose timers wake 50-150 us late, a thread that sleeps until
 * 30 us before its op is late for every op. */
uint64_t replay_timer_lag(void);
/* When op is due (CLOCK_MONOTONIC ns), 0 when unpaced. */
uint64_t replay_due_ns(const struct replay_ctx *cx, const struct replay_op *op);

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
