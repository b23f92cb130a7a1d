/* replay/drive.c: the way every op goes, whatever the engine (drive.h).
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
#include <time.h>

#include "replay/drive.h"
#include "replay/engine.h"
#include "replay/exec.h"
#include "replay/pace.h"

uint64_t replay_due_ns(const struct replay_ctx *cx, const struct replay_op *op)
{
	double at;

	if (cx->speed <= 0)
		return 0;
	/* a time the log puts beyond 2^64 ns saturates, never wraps */
	at = (double)cx->start_ns + (double)op->t / cx->speed;
	return at >= 18446744073709549568.0 ? UINT64_MAX - 2048 :
	       cx->start_ns + (uint64_t)((double)op->t / cx->speed);
}

/* --timing think keeps two clocks. The real one issues each op at its
 * due time: its anchor's real end (or due time) plus its captured gap,
 * so the storage sees the program's pauses. The virtual one is the
 * program's: an op starts at its anchor's virtual end plus its gap (and
 * not before the virtual end of an op it waits for), and lasts what the
 * storage took for its call (its latency; a call not issued, its captured
 * duration). riot's own time between calls (lookups in the root, waking
 * up, queueing behind another stream on a shared worker) is in the real
 * clock, not in the virtual one, whose latest end is the prediction. */

/* The virtual end + 1 of op seq, 0 when unknown: its slot still holds it
 * unless the window moved past it, read and checked again so a slot
 * rewritten meanwhile is not taken. *cend: its captured end. */
static uint64_t op_vend(const struct replay_ctx *cx, uint64_t seq, uint64_t *cend)
{
	const struct replay_op *d = replay_plan_op(cx->plan, seq);
	uint64_t e, c;

	if (d->seq != seq)
		return 0;
	e = atomic_load(&d->vend);
	c = d->t + d->dur;
	if (d->seq != seq)
		return 0;
	*cend = c;
	return e;
}

/* The latest virtual end of the ops op waits for by seq that had ended
 * when op began in the capture: an op it overlapped there (a read of a
 * file another thread was writing) is ordered in the replay, but was no
 * cause of its start. Prefixes are the creator's ops (THINK_OP). */
static uint64_t deps_vend(const struct replay_ctx *cx, const struct replay_op *op)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < REPLAY_MAX_DEPS && op->dep[i]; i++) {
		uint64_t e, cend = 0;

		if (op->dep[i] & REPLAY_DEP_PREFIX)
			continue;
		e = op_vend(cx, op->dep[i], &cend);
		if (e > v && cend <= op->t)
			v = e;
	}
	return v ? v - 1 : 0;
}

/* When op is due on both clocks, from its anchor (plan.h), computed once
 * (an engine that multiplexes asks again while it is not due). */
static uint64_t think_due(const struct replay_ctx *cx, struct replay_op *op)
{
	struct replay_clock *own = replay_plan_clock(cx->plan, op->stream);
	uint64_t base, vbase, dv;

	if (op->due)
		return op->due;
	switch (op->think) {
	case THINK_END:
		base = atomic_load(&replay_plan_clock(cx->plan, op->anchor)->end);
		vbase = atomic_load(&replay_plan_clock(cx->plan, op->anchor)->vend);
		break;
	case THINK_ISSUE:
		base = atomic_load(&own->due);
		vbase = atomic_load(&own->vstart);
		break;
	case THINK_OP: {
		uint64_t cend, e = op_vend(cx, op->anchor_seq, &cend);

		base = replay_now_ns();
		vbase = e ? e - 1 : atomic_load(&cx->vmax);
		break;
	}
	case THINK_READY:
		base = replay_now_ns();
		vbase = atomic_load(&cx->vmax);
		break;
	default:
		base = cx->start_ns;
		vbase = 0;
		break;
	}
	if (!base)
		base = replay_now_ns();
	op->due = base + op->gap;
	op->vstart = vbase + op->gap;
	if ((dv = deps_vend(cx, op)) > op->vstart)
		op->vstart = dv;
	atomic_store(&own->due, op->due);
	atomic_store(&own->vstart, op->vstart);
	return op->due;
}

/* The end of op on its stream's clocks, and the run's latest virtual end;
 * an op not issued ends its captured duration after its due time (or now,
 * when its dependencies came later) on the real clock. */
static void think_done(struct replay_ctx *cx, struct replay_stats *s,
		       struct replay_op *op, const struct replay_done *d)
{
	struct replay_clock *own = replay_plan_clock(cx->plan, op->stream);
	uint64_t end, now, vend = op->vstart + (d->issued ? d->lat_ns : op->dur);
	uint64_t vmax = atomic_load(&cx->vmax);

	if (d->issued) {
		end = cx->start_ns + d->t_ns + d->lat_ns;
	} else {
		now = replay_now_ns();
		end = (d->due_ns > now ? d->due_ns : now) + op->dur;
	}
	atomic_store(&op->vend, vend + 1);
	if (!(op->opflags & OPF_ASYNC)) {
		atomic_store(&own->end, end);
		atomic_store(&own->vend, vend);
	}
	while (vend > vmax && !atomic_compare_exchange_weak(&cx->vmax, &vmax, vend))
		;
	if (vend > s->think_vend_ns)
		s->think_vend_ns = vend;
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
