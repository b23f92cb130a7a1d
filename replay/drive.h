/* replay/drive.h: the way every op goes, whatever the engine (drive.c),
 * private to replay/. */
#ifndef RIOT_REPLAY_DRIVE_H
#define RIOT_REPLAY_DRIVE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "replay/engine.h"
#include "replay/pace.h"

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

/* Issues op and blocks until it is done: result or -errno; is->t0 and
 * is->t1 set by replay_issue_start() and replay_issue_stop() around the
 * call alone. */
typedef int64_t (*replay_issue_fn)(void *arg, const struct replay_op *op,
				   struct replay_issue *is);
/* All six steps for an engine whose issue blocks. */
void replay_drive_op(struct replay_ctx *cx, struct replay_pace *pace,
		     struct replay_stats *s, pthread_mutex_t *lock, struct replay_op *op,
		     replay_issue_fn issue, void *arg);

/* When op is due (CLOCK_MONOTONIC ns), 0 when unpaced. */
uint64_t replay_due_ns(const struct replay_ctx *cx, const struct replay_op *op);

#endif
