/* replay/async.c: the asynchronous streams (async.h), whichever engine
 * replays the threads.
 *
 * Each captured io_uring ring, AIO context or file mapping is a stream of
 * its own (plan.h) with a thread of its own and an io_uring of its own, so
 * its requests overlap as the program's did even under the sync engine.
 * The thread submits them in captured order and keeps up to each one's
 * captured depth in flight: before a request goes, completions are reaped
 * one at a time until fewer than its depth are in flight. A request linked
 * to the next one (IOSQE_IO_LINK, HARDLINK) is submitted with it, and the
 * rest of its chain is never held back by the depth, so the ring runs the
 * chain as the program's did; IOSQE_IO_DRAIN is passed on. aio:* requests
 * go through this ring as the same reads, writes and syncs; mmap:* pages as
 * reads and writes of the same byte ranges.
 *
 * Reads, writes, fsync, fdatasync, sync_file_range, fallocate and fadvise
 * go through the ring; the other requests (opens, stat, the namespace and
 * xattr calls, ftruncate) are made by the thread itself as the blocking
 * call, its requests in flight staying in flight meanwhile.
 *
 * A stream's thread holds its own fd of each file it uses, opened by path
 * at its first use (replay_reopen(): the file's captured flags, O_DIRECT
 * included, without creating or truncating) and closed at the end of the
 * run. Buffers are page-aligned, one per request in flight, so O_DIRECT
 * requests keep their alignment.
 *
 * The depth of a replayed request is the stream's requests submitted and
 * not yet reaped when it goes, itself included; the captured one, its
 * context's requests submitted and not complete (plan.h). A request's
 * latency runs from its submission to the first time the thread saw its
 * completion (it looks after every submission and while it waits), not to
 * when it reaped it.
 */
#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "lib/grow.h"
#include "replay/async.h"
#include "replay/drive.h"
#include "replay/engine.h"
#include "replay/exec.h"
#include "replay/pace.h"
#include "replay/queue.h"

#define ASYNC_POLL_NS 1000000	/* a blocked or idle stream with requests in
				 * flight looks at its ring this often */
#define ASYNC_MAX_THREADS 256	/* beyond, contexts share threads (and
				 * their rings: their depths add up) */
#define FD_FAILED ((int64_t)INT32_MAX + 1)	/* the stream's open failed */
#define SQE_LINKS (IOSQE_IO_LINK | IOSQE_IO_HARDLINK)

struct areq {
	struct replay_op *op;
	struct replay_done d;
	uint64_t t0, seen;
	int64_t fail;		/* -errno before the ring: its result */
	void *buf;
	size_t cap;
	struct iovec *iov;	/* REPLAY_IOV_MAX, for a request over cap */
};

struct alane {
	struct replay_queue q;
	pthread_t th;
	bool started;
	struct replay_async *ra;

	struct io_uring ring;
	struct areq *reqs;	/* REPLAY_ASYNC_DEPTH_MAX */
	uint32_t *free_ids;
	unsigned nfree;
	unsigned inflight;	/* prepared and not reaped */
	unsigned pending;	/* prepared and not submitted */
	bool in_chain;		/* the previous request links to the next */
	struct replay_fdmap *fds;	/* by file object */
	struct replay_fdmap *pfds;	/* by path id: mmap pages of a file
					 * named by path alone (plan.c) */
	struct replay_stats stats;
	struct replay_async_stream info;
	int error;
};

struct replay_async {
	struct replay_ctx *cx;
	struct alane **lanes;
	unsigned nlanes, cap;
	struct replay_pace pace;
};

/* ---- the ring ---- */

static void submit(struct alane *l)
{
	int rc;

	if (!l->pending)
		return;
	do
		rc = io_uring_submit(&l->ring);
	while (rc == -EINTR || rc == -EAGAIN);
	l->pending = 0;
}

/* Notes when each completion the ring holds was first seen. */
static void stamp(struct alane *l)
{
	struct io_uring_cqe *cqe;
	uint64_t now = 0;
	unsigned head;

	io_uring_for_each_cqe(&l->ring, head, cqe) {
		struct areq *r = &l->reqs[cqe->user_data];

		if (!now)
			now = replay_now_ns();
		if (!r->seen)
			r->seen = now;
	}
}

static void account_depth(struct alane *l, const struct replay_op *op, unsigned replayed)
{
	replay_account_depth(&l->stats, op->depth, replayed);
	l->info.requests++;
	if (op->depth > l->info.captured_max)
		l->info.captured_max = op->depth;
	if (replayed > l->info.replayed_max)
		l->info.replayed_max = replayed;
}

/* The stream's span: from its first issue to its last completion. */
static void note_span(struct alane *l, const struct replay_done *d)
{
	if (!d->issued)
		return;
	if (!l->info.last_ns || d->t_ns < l->info.first_ns)
		l->info.first_ns = d->t_ns;
	if (d->t_ns + d->lat_ns > l->info.last_ns)
		l->info.last_ns = d->t_ns + d->lat_ns;
}

/* Accounts and completes op, then tells the engine: its threads may wait
 * for it (replay_ctx's notify). */
static void end_op(struct replay_ctx *cx, struct replay_stats *s, pthread_mutex_t *lock,
		   struct replay_op *op, const struct replay_done *d)
{
	uint64_t seq = op->seq;	/* op's slot is reused once complete */

	replay_drive_end(cx, s, lock, op, d);
	if (cx->notify)
		cx->notify(cx->notify_arg, seq);
}

/* Reaps the oldest completion (waiting up to wait_ns for one, forever
 * when wait_ns is UINT64_MAX): 1, or 0 when none came. */
static int retire_one(struct alane *l, uint64_t wait_ns)
{
	struct replay_async *ra = l->ra;
	struct io_uring_cqe *cqe = NULL;
	struct areq *r;
	int rc;

	submit(l);
	if (io_uring_peek_cqe(&l->ring, &cqe) != 0 || !cqe) {
		if (!wait_ns)
			return 0;
		if (wait_ns == UINT64_MAX) {
			do
				rc = io_uring_wait_cqe(&l->ring, &cqe);
			while (rc == -EINTR);
		} else {
			struct __kernel_timespec ts = { (long long)(wait_ns / 1000000000u),
							(long long)(wait_ns % 1000000000u) };

			rc = io_uring_wait_cqe_timeout(&l->ring, &cqe, &ts);
		}
		if (rc < 0 || !cqe)
			return 0;
	}
	stamp(l);
	r = &l->reqs[cqe->user_data];
	replay_drive_issued(ra->cx, &r->d, r->t0, r->seen ? r->seen : replay_now_ns(),
			    r->fail ? r->fail : cqe->res);
	note_span(l, &r->d);
	io_uring_cqe_seen(&l->ring, cqe);
	end_op(ra->cx, &l->stats, NULL, r->op, &r->d);
	l->free_ids[l->nfree++] = (uint32_t)(r - l->reqs);
	l->inflight--;
	return 1;
}

/* Reaps what has completed, waiting up to wait_ns for the first. */
static void retire_done(struct alane *l, uint64_t wait_ns)
{
	if (l->inflight && retire_one(l, wait_ns))
		while (l->inflight && retire_one(l, 0))
			;
}

/* ---- files and buffers ---- */

/* The stream's fd of op's file, opened by path at its first use. */
static int lane_fd(struct alane *l, const struct replay_op *op)
{
	struct replay_fdmap *map = op->file ? l->fds : l->pfds;
	uint64_t id = op->file ? op->file : op->path_id;
	int64_t fd = replay_fdmap_get(map, id);

	if (fd == FD_FAILED)
		return -EBADF;
	if (fd >= 0)
		return (int)fd;
	fd = replay_reopen(l->ra->cx, op, false);
	l->stats.reopened++;
	if (replay_fdmap_set(map, id, fd >= 0 ? fd : FD_FAILED) < 0) {
		if (fd >= 0)
			close((int)fd);
		return -ENOMEM;
	}
	return (int)fd;
}

/* The buffer of a read or write of r (page-aligned, at most
 * REPLAY_BUF_BYTES), filled with what a write writes: iov entries, 0 when
 * out of memory. */
static unsigned req_data(struct alane *l, struct areq *r, size_t len)
{
	const struct replay_op *op = r->op;
	size_t cap = replay_buf_len(len);

	if (r->cap < cap) {
		free(r->buf);
		r->cap = 0;
		if (posix_memalign(&r->buf, 4096, cap) != 0) {
			r->buf = NULL;
			return 0;
		}
		r->cap = cap;
	}
	if (op->act == ACT_WRITE)
		fill_bytes(&l->ra->cx->fill, op->path_id, op->off, r->buf, cap);
	if (len <= cap)
		return 1;
	if (!r->iov && !(r->iov = malloc(REPLAY_IOV_MAX * sizeof(*r->iov))))
		return 0;
	return replay_rw_iov(r->buf, cap, len, r->iov);
}

static bool in_ring(const struct replay_op *op)
{
	switch (op->act) {
	case ACT_READ: case ACT_WRITE: case ACT_FSYNC: case ACT_FDATASYNC:
	case ACT_SYNC_RANGE: case ACT_FALLOCATE: case ACT_FADVISE:
		return true;
	default:
		return false;
	}
}

/* Prepares the SQE of r on fd: 0 or -errno (the request's result). */
static int prep(struct alane *l, struct areq *r, int fd, struct io_uring_sqe *sqe)
{
	const struct replay_op *op = r->op;
	size_t len = replay_rw_len(op);
	unsigned niov = 0;

	if (op->act == ACT_READ || op->act == ACT_WRITE) {
		niov = req_data(l, r, len);
		if (!niov)
			return -ENOMEM;
	}
	switch (op->act) {
	case ACT_READ:
		if (niov > 1)
			io_uring_prep_readv(sqe, fd, r->iov, niov, op->off);
		else
			io_uring_prep_read(sqe, fd, r->buf, (unsigned)len, op->off);
		break;
	case ACT_WRITE:
		if (niov > 1)
			io_uring_prep_writev(sqe, fd, r->iov, niov, op->off);
		else
			io_uring_prep_write(sqe, fd, r->buf, (unsigned)len, op->off);
		break;
	case ACT_FSYNC: io_uring_prep_fsync(sqe, fd, 0); break;
	case ACT_FDATASYNC: io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC); break;
	case ACT_SYNC_RANGE:
		io_uring_prep_sync_file_range(sqe, fd, (unsigned)op->count, op->off, (int)op->flags);
		break;
	case ACT_FALLOCATE:
		io_uring_prep_fallocate(sqe, fd, (int)op->flags, op->off, op->count);
		break;
	case ACT_FADVISE:
		io_uring_prep_fadvise(sqe, fd, op->off, (off_t)op->count, (int)op->arg);
		break;
	}
	return 0;
}

/* ---- one op ---- */

/* Issues a request of the ring: waits until fewer than its captured depth
 * are in flight (not inside a chain), prepares it and submits it unless
 * it links to the next. */
static void issue_ring(struct alane *l, struct replay_op *op, struct replay_done *d)
{
	unsigned depth = op->depth ? op->depth : 1;
	struct io_uring_sqe *sqe;
	struct areq *r;
	int fd = -EBADF, rc;

	if (depth > REPLAY_ASYNC_DEPTH_MAX)
		depth = REPLAY_ASYNC_DEPTH_MAX;
	if (!l->in_chain)
		while (l->inflight >= depth)
			retire_one(l, UINT64_MAX);
	/* a chain longer than the ring: it is cut where the ring is full */
	while (!l->nfree || !(sqe = io_uring_get_sqe(&l->ring))) {
		if (!l->inflight) {
			d->result = -ENOMEM;
			return;
		}
		retire_one(l, UINT64_MAX);
	}
	r = &l->reqs[l->free_ids[--l->nfree]];
	r->op = op;
	r->d = *d;
	r->seen = 0;
	fd = op->file || op->path_id ? lane_fd(l, op) : -EBADF;
	rc = fd < 0 ? fd : prep(l, r, fd, sqe);
	r->fail = rc;
	if (rc < 0)	/* completes with its error, in its place */
		io_uring_prep_nop(sqe);
	sqe->flags |= op->sqe_flags & (IOSQE_IO_DRAIN | SQE_LINKS);
	io_uring_sqe_set_data64(sqe, (uint64_t)(r - l->reqs));
	l->inflight++;
	l->pending++;
	l->in_chain = (op->sqe_flags & SQE_LINKS) != 0;
	account_depth(l, op, l->inflight);
	r->t0 = replay_now_ns();
	if (!l->in_chain) {
		submit(l);
		stamp(l);
	}
}

/* A request the thread makes itself, as the blocking call, while those
 * before it stay in flight. */
static void issue_here(struct alane *l, struct replay_op *op, struct replay_done *d)
{
	struct replay_issue is = { .pace = &l->ra->pace, .due_ns = d->due_ns };
	int fd = -1;
	int64_t rc = 0;

	submit(l);
	l->in_chain = false;
	if (op->file && op->act != ACT_OPEN)
		rc = fd = lane_fd(l, op);
	account_depth(l, op, l->inflight + 1);
	if (rc < 0) {
		replay_issue_start(&is);
		is.t1 = is.t0;
	} else {
		rc = replay_exec_timed(l->ra->cx, op, fd, -1, &is);
	}
	if (op->act == ACT_OPEN && rc >= 0) {
		/* the stream keeps what the model knows of, for its requests */
		if (!op->file || replay_fdmap_set(l->fds, op->file, rc) < 0)
			close((int)rc);
	}
	replay_drive_issued(l->ra->cx, d, is.t0, is.t1, rc);
	note_span(l, d);
	end_op(l->ra->cx, &l->stats, NULL, op, d);
}

static void run_op(struct alane *l, struct replay_op *op)
{
	struct replay_ctx *cx = l->ra->cx;
	struct replay_done d;
	uint64_t what, now;

	for (;;) {
		switch (replay_drive_begin(cx, op, false, &d, &what)) {
		case STEP_BLOCKED:
			/* what it waits for may be one of ours in flight */
			submit(l);
			l->in_chain = false;
			if (l->inflight)
				retire_done(l, ASYNC_POLL_NS);
			else
				replay_plan_wait_op(cx->plan, what);
			continue;
		case STEP_NOT_DUE:
			submit(l);
			l->in_chain = false;
			replay_stats_ready(&l->stats, op);	/* not after the call */
			now = replay_now_ns();
			if (l->inflight && what > now + l->ra->pace.spin_ns)
				retire_done(l, what - now - l->ra->pace.spin_ns);
			else
				replay_wait_until(&l->ra->pace, what);
			continue;
		case STEP_DONE:
			end_op(cx, &l->stats, NULL, op, &d);
			return;
		case STEP_ISSUE:
			break;
		}
		break;
	}
	if (l->error) {
		d.result = l->error;
		replay_drive_issued(cx, &d, replay_now_ns(), replay_now_ns(), l->error);
		end_op(cx, &l->stats, NULL, op, &d);
	} else if (in_ring(op)) {
		issue_ring(l, op, &d);
	} else {
		issue_here(l, op, &d);
	}
}

static void close_fd(int64_t fd, void *arg)
{
	(void)arg;
	if (fd != FD_FAILED)
		close((int)fd);
}

static void *alane_main(void *arg)
{
	struct alane *l = arg;
	struct replay_plan *plan = l->ra->cx->plan;
	uint64_t seq;
	int rc;

	prctl(PR_SET_TIMERSLACK, 1UL);
	rc = io_uring_queue_init(REPLAY_ASYNC_DEPTH_MAX, &l->ring, 0);
	if (rc < 0)
		l->error = rc;	/* its requests fail with it, counted */
	replay_ctx_wait_gate(l->ra->cx);
	for (;;) {
		rc = replay_queue_pop(&l->q, false, &seq);
		if (rc == 0) {
			/* nothing queued: what is in flight goes first, as
			 * another stream may wait for it */
			submit(l);
			l->in_chain = false;
			if (l->inflight) {
				retire_done(l, ASYNC_POLL_NS);
				continue;
			}
			rc = replay_queue_pop(&l->q, true, &seq);
		}
		if (rc < 0)
			break;
		run_op(l, replay_plan_op(plan, seq));
	}
	while (l->inflight)
		retire_one(l, UINT64_MAX);
	replay_fdmap_drain(l->fds, close_fd, NULL);
	replay_fdmap_drain(l->pfds, close_fd, NULL);
	if (!l->error)
		io_uring_queue_exit(&l->ring);
	replay_scratch_release();
	return NULL;
}

/* ---- streams: routing, threads ---- */

static void lane_free(struct alane *l)
{
	if (!l)
		return;
	for (unsigned i = 0; l->reqs && i < REPLAY_ASYNC_DEPTH_MAX; i++) {
		free(l->reqs[i].buf);
		free(l->reqs[i].iov);
	}
	free(l->reqs);
	free(l->free_ids);
	if (l->fds)
		replay_fdmap_free(l->fds);
	if (l->pfds)
		replay_fdmap_free(l->pfds);
	free(l->fds);
	free(l->pfds);
	replay_queue_free(&l->q);
	replay_stats_free(&l->stats);
	free(l);
}

static struct alane *lane_new(struct replay_async *ra, uint32_t stream)
{
	const struct replay_stream *st = replay_plan_stream(ra->cx->plan, stream);
	struct alane *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	replay_stats_init(&l->stats);
	l->ra = ra;
	if (st)
		l->info = (struct replay_async_stream){ .pid = st->pid, .ctx = st->ctx,
							.contexts = 1 };
	l->reqs = calloc(REPLAY_ASYNC_DEPTH_MAX, sizeof(*l->reqs));
	l->free_ids = malloc(REPLAY_ASYNC_DEPTH_MAX * sizeof(*l->free_ids));
	l->fds = replay_fdmap_new();
	l->pfds = replay_fdmap_new();
	if (!l->reqs || !l->free_ids || !l->fds || !l->pfds || replay_queue_init(&l->q) < 0)
		goto fail;
	for (unsigned i = 0; i < REPLAY_ASYNC_DEPTH_MAX; i++)
		l->free_ids[i] = REPLAY_ASYNC_DEPTH_MAX - 1 - i;
	l->nfree = REPLAY_ASYNC_DEPTH_MAX;
	l->started = replay_thread_start(&l->th, REPLAY_THREAD_STACK, alane_main, l);
	if (l->started)
		return l;
fail:
	lane_free(l);
	return NULL;
}

int replay_async_route(void *eng, uint32_t stream, uint32_t pid)
{
	struct replay_async *ra = eng;
	struct alane *l;

	(void)pid;
	if (ra->nlanes >= ASYNC_MAX_THREADS) {
		l = ra->lanes[stream % ra->nlanes];
		l->info.contexts++;
		return (int)(stream % ra->nlanes);
	}
	if (GROW(ra->lanes, ra->cap, (size_t)ra->nlanes + 1, 16))
		return -ENOMEM;
	l = lane_new(ra, stream);
	if (!l)
		return -EAGAIN;
	ra->lanes[ra->nlanes] = l;
	return (int)ra->nlanes++;
}

int replay_async_push(void *eng, unsigned lane, uint64_t seq)
{
	struct replay_async *ra = eng;

	return replay_queue_push(&ra->lanes[lane]->q, seq);
}

struct replay_async *replay_async_new(struct replay_ctx *cx)
{
	struct replay_async *ra = calloc(1, sizeof(*ra));

	if (!ra)
		return NULL;
	ra->cx = cx;
	replay_pace_init(&ra->pace, cx, REPLAY_SPIN_NS);
	return ra;
}

int replay_async_finish(struct replay_async *ra, struct replay_stats *total)
{
	int rc = 0;

	for (unsigned i = 0; i < ra->nlanes; i++)
		replay_queue_close(&ra->lanes[i]->q);
	for (unsigned i = 0; i < ra->nlanes; i++) {
		struct alane *l = ra->lanes[i];

		pthread_join(l->th, NULL);
		l->started = false;
		if (!rc)
			rc = replay_stats_merge(total, &l->stats);
		if (!rc && l->info.requests)
			rc = replay_stats_add_async_stream(total, &l->info);
	}
	return rc;
}

unsigned replay_async_threads(const struct replay_async *ra)
{
	return ra ? ra->nlanes : 0;
}

void replay_async_free(struct replay_async *ra)
{
	if (!ra)
		return;
	/* finish was not called (the run failed to start): the threads
	 * may still wait for the gate */
	if (ra->nlanes && !atomic_load(&ra->cx->started))
		replay_ctx_open_gate(ra->cx);
	for (unsigned i = 0; i < ra->nlanes; i++) {
		if (ra->lanes[i]->started) {
			replay_queue_close(&ra->lanes[i]->q);
			pthread_join(ra->lanes[i]->th, NULL);
		}
		lane_free(ra->lanes[i]);
	}
	free(ra->lanes);
	free(ra);
}
