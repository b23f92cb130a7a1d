/* replay/drive.c: the way every op goes, whatever the engine (engine.h).
 *
 *   1. wait for its dependencies (plan.h's ordering)
 *   2. resolve its paths: the root refuses /proc, hostile names... (skip)
 *   3. prepare its data: a write's bytes are made before its clock starts
 *   4. wait until it is due (paced replays)
 *   5. issue: the engine's part, timed from the call to its return
 *   6. account: stats, report, progress, completion
 *
 * A blocking engine runs all six in replay_drive_op(); an engine that
 * multiplexes streams runs 1-4 without blocking (replay_drive_begin()),
 * issues asynchronously and ends with replay_drive_end().
 */
#include <errno.h>
#include <sched.h>
#include <sys/sysinfo.h>
#include <time.h>

#include "replay/engine.h"

void replay_pace_init(struct replay_pace *p, const struct replay_ctx *cx, uint64_t spin_ns)
{
	int cpus = get_nprocs();

	spin_ns += cx->timer_lag_ns;
	p->spin_ns = spin_ns < REPLAY_SPIN_MAX_NS ? spin_ns : REPLAY_SPIN_MAX_NS;
	p->max_spinners = cpus > 1 ? cpus - 1 : 1;
	atomic_init(&p->spinning, 0);
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

void replay_wait_until(struct replay_pace *p, uint64_t due_ns)
{
	uint64_t now = replay_now_ns();

	if (due_ns <= now)
		return;
	if (due_ns > now + p->spin_ns + REPLAY_WAKE_NS) {
		sleep_until(due_ns - p->spin_ns - REPLAY_WAKE_NS);
		now = replay_now_ns();
	}
	if (due_ns > now + p->spin_ns)
		sleep_until(due_ns - p->spin_ns);
	if (atomic_fetch_add(&p->spinning, 1) < p->max_spinners) {
		while (replay_now_ns() < due_ns)
			replay_spin_pause();
	} else {
		/* over the budget of spinners: a timer would wake this thread
		 * late; yielding keeps it ready without holding a CPU that
		 * io-wq, writeback or another stream wants */
		while (replay_now_ns() < due_ns)
			sched_yield();
	}
	atomic_fetch_sub(&p->spinning, 1);
}

enum replay_step replay_drive_begin(const struct replay_ctx *cx, struct replay_op *op, bool wait,
				    struct replay_done *d, uint64_t *what)
{
	uint64_t seq, due;

	*d = (struct replay_done){ .delay_ns = -1 };
	while ((seq = replay_op_blocker(cx->plan, op))) {
		if (!wait) {
			*what = seq;
			return STEP_BLOCKED;
		}
		replay_plan_wait_op(cx->plan, seq);
	}
	if (op->act <= ACT_UNREPLAYABLE)
		return STEP_DONE;
	d->skip = (uint8_t)replay_check_paths(cx, op);
	if (d->skip)
		return STEP_DONE;
	due = replay_due_ns(cx, op);
	/* a multiplexing engine waits itself, for the earliest of its
	 * streams' ops: spinning here for this one would hold back another
	 * stream's op due before it (4 threads a pread every 25 us each, one
	 * uring worker: half the ops over 17 ms late) */
	if (due && !wait && due > replay_now_ns()) {
		*what = due;
		return STEP_NOT_DUE;
	}
	/* a multiplexing engine's buffers outlive the call: it fills its own;
	 * a blocking engine waits in its issue, after its lookups */
	if (op->act == ACT_WRITE && wait)
		replay_prepare_data(cx, op);
	d->due_ns = due;
	return STEP_ISSUE;
}

void replay_drive_issued(const struct replay_ctx *cx, struct replay_done *d, uint64_t t0,
			 uint64_t t1, int64_t result)
{
	d->result = result;
	d->issued = true;
	d->t_ns = t0 > cx->start_ns ? t0 - cx->start_ns : 0;
	d->lat_ns = t1 > t0 + cx->clock_bias_ns ? t1 - t0 - cx->clock_bias_ns : 0;
	d->delay_ns = d->due_ns ? (int64_t)(t0 - d->due_ns) : -1;
}

void replay_drive_end(struct replay_ctx *cx, struct replay_stats *s, pthread_mutex_t *lock,
		      struct replay_op *op, const struct replay_done *d)
{
	if (lock)
		pthread_mutex_lock(lock);
	replay_account(s, cx->report, op, d);
	if (lock)
		pthread_mutex_unlock(lock);
	atomic_fetch_add_explicit(&cx->completed, 1, memory_order_relaxed);
	replay_op_complete(cx->plan, op);
}

void replay_drive_op(struct replay_ctx *cx, struct replay_pace *pace,
		     struct replay_stats *s, pthread_mutex_t *lock, struct replay_op *op,
		     replay_issue_fn issue, void *arg)
{
	struct replay_done d;
	uint64_t what;

	if (replay_drive_begin(cx, op, true, &d, &what) == STEP_ISSUE) {
		struct replay_issue is = { .pace = pace, .due_ns = d.due_ns };

		if (d.due_ns) {
			/* before the wait for the due time, not after the call:
			 * the first op of each syscall allocates its histogram
			 * (30 KiB), which the ops due after it would wait for */
			if (lock)
				pthread_mutex_lock(lock);
			replay_stats_ready(s, op);
			if (lock)
				pthread_mutex_unlock(lock);
		}
		int64_t rc = issue(arg, op, &is);

		replay_drive_issued(cx, &d, is.t0, is.t1, rc);
	}
	replay_drive_end(cx, s, lock, op, &d);
}
