/* replay/stats.h: what a replay measured. Every op the plan produces, issued
 * or not, flows through replay_account() exactly once; summaries, the JSON
 * output and the SQLite report (report/report.h) all read from here.
 *
 * A struct replay_stats is fed by one thread at a time (each worker owns
 * one, the sync engine shares a few under locks); replay_stats_merge()
 * adds them up at the end. Memory grows with the syscalls seen (one
 * latency histogram each) and the run's length in seconds.
 */
#ifndef RIOT_REPLAY_STATS_H
#define RIOT_REPLAY_STATS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/hist.h"
#include "replay/plan.h"
#include "report/report.h"

#define REPLAY_DIV_EXAMPLES 5	/* kept per syscall */

struct replay_div_example {
	uint64_t seq;
	int64_t captured, replayed;
	char path[160];
};

struct replay_sys_stats {
	uint64_t ops;		/* planned ops of this syscall */
	uint64_t issued;	/* performed against the root */
	uint64_t errors;	/* replay results < 0 */
	uint64_t bytes;		/* bytes moved by successful data ops */
	uint64_t fallbacks;	/* issued on the synchronous pool */
	uint64_t here;		/* uring: run by the worker itself, not
				 * handed to io-wq (run_here()) */
	uint64_t state_only;	/* nothing to issue (lseek, dup...) */
	uint64_t failed_as_captured;	/* a captured failure accounted, not
					 * issued (ACT_FAILED) */
	uint64_t skipped;	/* not replayable safely: see skip_by */
	uint64_t unreplayable;	/* mmap I/O, workload io_uring / AIO */
	uint64_t div[RUN_DIV_COUNT];	/* divergences by kind */
	unsigned nexamples;
	struct replay_div_example examples[REPLAY_DIV_EXAMPLES];
	struct hist *lat;	/* submission to completion, issued ops */
};

/* One asynchronous stream's depths (async.c): its thread's, which serves
 * more than one context (the first one's pid and ctx here) when a log
 * has more contexts than async.c has threads. */
struct replay_async_stream {
	uint32_t pid;
	uint64_t ctx;
	uint32_t contexts;
	uint64_t requests;	/* issued */
	uint32_t captured_max, replayed_max;
	uint64_t first_ns, last_ns;	/* its first issue and last completion,
					 * ns after the run's start: the
					 * stream's own time, for its rate */
};

struct replay_stats {
	struct replay_sys_stats sys[RIOT_SYS_COUNT];
	struct hist delay;	/* issue delay against the schedule (paced) */
	uint64_t late;		/* paced ops issued over REPLAY_LATE_NS late */
	uint64_t ops, issued, bytes_read, bytes_written;
	uint64_t skip_by[SKIP_COUNT];
	uint64_t reopened;	/* files a worker opened again by path */
	uint64_t missed_wakeups;	/* uring: waits a worker ended at its
					 * backstop timer with the op it waited
					 * for complete (no one woke it: up to
					 * 10 ms of elapsed time each) */
	uint64_t released;	/* implicit closes issued (OPF_RELEASE): not
				 * in ops, no captured syscall of their own */
	uint64_t released_failed;	/* of those, failed other than EBADF */
	uint64_t flips;		/* issued ops that succeeded where the
				 * capture failed, or the reverse */
	uint64_t skipped_read, skipped_written;	/* captured bytes of data
						 * ops not issued */
	uint64_t *per_second;	/* completions per second of the run */
	uint64_t nseconds;
	uint64_t last_end_ns;	/* latest completion, ns after start */
	uint64_t think_vend_ns;	/* --timing think: the latest end of an op,
				 * issued or not, on the program's virtual
				 * clock (drive.c), ns after start */
	/* asynchronous streams: in-flight depth at each request's issue,
	 * captured and replayed (NULL until the first) */
	struct hist *depth_captured, *depth_replayed;
	struct replay_async_stream *astreams;
	uint32_t nastreams;
};

/* Where the report goes, shared by every thread (NULL: no report). */
struct replay_report {
	pthread_mutex_t lock;
	struct run_acc *acc;
};
/* A log's process record for the report's process names (ctx: a
 * struct replay_report); the plan's on_proc hook. */
void replay_report_proc(void *ctx, const struct riot_rec *r);

/* One finished op. result: the replay's return value (-errno), ignored
 * for ops not issued; t_ns: issue time after the start; lat_ns:
 * submission to completion; delay_ns: issue time minus scheduled time,
 * < 0 when unpaced or not issued; fallback: issued on the sync pool;
 * here: run by a uring worker itself. */
struct replay_done {
	uint64_t due_ns;	/* when it was due (CLOCK_MONOTONIC), 0 unpaced */
	int64_t result;
	uint64_t t_ns, lat_ns;
	int64_t delay_ns;
	bool issued, fallback, here;
	uint8_t skip;		/* set when skipped at issue (SKIP_*) */
};

/* A paced replay keeps time unless its issue delay p99 is over
 * REPLAY_LATE_P99_NS or an op was issued over REPLAY_LATE_MAX_NS late;
 * an op over REPLAY_LATE_NS late counts as late. */
#define REPLAY_LATE_NS 1000000ull
#define REPLAY_LATE_P99_NS 1000000ull
#define REPLAY_LATE_MAX_NS 10000000ull

struct replay_timing {
	bool kept;		/* true for an unpaced replay too */
	uint64_t paced, late;	/* ops with an issue delay; of those late */
	uint64_t p99_ns, max_ns;	/* issue delay */
};

/* Whether the replay kept its schedule, from its issue delays. */
void replay_timing_of(const struct replay_stats *s, struct replay_timing *t);
/* The line a summary prints when it did not: "warning: timing not kept:
 * ..." without a newline. */
void replay_timing_warning(const struct replay_timing *t, char *buf, size_t len);

/* A function every accounted op is handed to as well (riot replay --top's
 * feed), from whichever thread accounts it; NULL: none. Set before the
 * run, cleared after. */
typedef void replay_tap_fn(void *ctx, const struct replay_op *op, const struct replay_done *d);
void replay_stats_tap(replay_tap_fn *fn, void *ctx);

void replay_stats_init(struct replay_stats *s);
void replay_stats_free(struct replay_stats *s);
void replay_account(struct replay_stats *s, struct replay_report *rep,
		    const struct replay_op *op, const struct replay_done *d);
/* Makes s ready to account an op of op's syscall without allocating (its
 * latency histogram, 30 KiB): what a paced thread does before it waits
 * for the op's due time, so that the first op of each syscall does not
 * make the ones due after it late. */
void replay_stats_ready(struct replay_stats *s, const struct replay_op *op);
/* A request of an asynchronous stream issued at these depths. */
void replay_account_depth(struct replay_stats *s, uint32_t captured, uint32_t replayed);
/* Lists one asynchronous stream. 0 or -ENOMEM. */
int replay_stats_add_async_stream(struct replay_stats *s, const struct replay_async_stream *a);
/* Adds from into into. 0 or -ENOMEM. */
int replay_stats_merge(struct replay_stats *into, const struct replay_stats *from);

struct replay_summary_info {
	const char *engine, *order;
	const char *timing;	/* "fast", "think" or "captured" */
	double speed;
	uint64_t predicted_ns;	/* think: stats' think_vend_ns + the time
				 * outside the calls */
	uint64_t captured_ns;	/* replay_plan_captured_ns() */
	unsigned workers;
	uint64_t elapsed_ns;
	uint64_t clock_bias_ns;	/* replay_clock_bias(), taken off latencies */
	uint64_t timer_lag_ns;	/* paced: replay_timer_lag() */
	uint32_t streams;
	bool log_complete;
	int64_t start_unix_ns;	/* wall-clock time of the schedule's start */
	bool start_at;		/* --start-at given: */
	int64_t start_at_ns;	/* its time, */
	uint64_t start_late_ns;	/* how far past it the start was */
	uint32_t shard_k, shard_n;	/* --shard K/N; n 0: none */
};

/* Whether a run did the captured I/O: it did not (unreliable) when its
 * divergences, skipped ops that lose storage I/O (all but those on pipes,
 * sockets, devices and pseudo files) and unreplayable ops are over
 * REPLAY_UNRELIABLE_SHARE of its ops, or any call's success or failure
 * turned round; warning then holds the summary's first line, "warning:
 * ..." without a newline. */
#define REPLAY_UNRELIABLE_SHARE 0.01
struct replay_trust {
	bool unreliable;
	uint64_t off;		/* divergences + skipped + unreplayable */
	char warning[320];
};
void replay_trust_of(const struct replay_stats *s, struct replay_trust *t);

void replay_print_summary(FILE *out, const struct replay_stats *s,
			  const struct replay_summary_info *si);
void replay_print_json(FILE *out, const struct replay_stats *s,
		       const struct replay_summary_info *si);

#endif
