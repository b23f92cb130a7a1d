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

/* --timing think: when op is due, from its anchor (plan.h), computed once
 * (an engine that multiplexes asks again while it is not due). */
static uint64_t think_due(const struct replay_ctx *cx, struct replay_op *op)
{
	struct replay_clock *own = replay_plan_clock(cx->plan, op->stream);
	uint64_t base;

	if (op->due)
		return op->due;
	switch (op->think) {
	case THINK_END:
		base = atomic_load(&replay_plan_clock(cx->plan, op->anchor)->end);
		break;
	case THINK_ISSUE:
		base = atomic_load(&own->due);
		break;
	case THINK_READY:
		base = replay_now_ns();
		break;
	default:
		base = cx->start_ns;
		break;
	}
	if (!base)
		base = replay_now_ns();
	op->due = base + op->gap;
	atomic_store(&own->due, op->due);
	return op->due;
}

/* --timing think: the end of op on its stream's clock, and the latest
 * end of the run; an op not issued takes its captured duration from its
 * due time (or now, when its dependencies came later), as the program's
 * call did. */
static void think_done(const struct replay_ctx *cx, struct replay_stats *s,
		       const struct replay_op *op, const struct replay_done *d)
{
	uint64_t end, now;

	if (d->issued) {
		end = cx->start_ns + d->t_ns + d->lat_ns;
	} else {
		now = replay_now_ns();
		end = (d->due_ns > now ? d->due_ns : now) + op->dur;
	}
	if (!(op->opflags & OPF_ASYNC))
		atomic_store(&replay_plan_clock(cx->plan, op->stream)->end, end);
	if (end > cx->start_ns && end - cx->start_ns > s->think_end_ns)
		s->think_end_ns = end - cx->start_ns;
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
	if (cx->think)
		d->due_ns = think_due(cx, op);
	if (!replay_act_issues(op->act))
		return STEP_DONE;
	d->skip = (uint8_t)replay_check_paths(cx, op);
	if (d->skip)
		return STEP_DONE;
	due = cx->think ? d->due_ns : replay_due_ns(cx, op);
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
	if (cx->think)
		think_done(cx, s, op, d);
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
