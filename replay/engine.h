/* replay/engine.h: what a replay engine implements, private to replay/.
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
 * Every op goes the same way whatever the engine (drive.h): wait for its
 * dependencies, resolve its paths, prepare its data, wait until it is due
 * (pace.h), issue, account. An engine only supplies the issue step, with
 * exec.h's plain calls or calls of its own; its threads take their ops from
 * queues (queue.h). This header is what every engine is given: the run's
 * context, its threads' start, and the engine's descriptor.
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
#include <stdio.h>
#include <pthread.h>

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

struct replay_ctx {
	struct replay_plan *plan;
	const struct replay_root *root;
	struct fill fill;
	double speed;		/* 0: as fast as possible */
	bool think;		/* --timing think: ops due by their anchors
				 * and gaps (plan.h), not by speed */
	_Atomic uint64_t vmax;	/* think: the latest virtual end (drive.c) */
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

#endif
