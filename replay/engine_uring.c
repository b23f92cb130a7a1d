/* replay/engine_uring.c: the io_uring engine (engine.h).
 *
 * Workers are threads, each with its own ring. A captured thread gets a
 * worker of its own, up to --workers (default REPLAY_MAX_THREADS); beyond
 * that, streams share the workers, which then multiplex them. A worker
 * keeps, per stream, a FIFO of planned ops linked through op->next, and a
 * list of streams whose head op is not in flight. Files are real fds in one
 * table for all the workers (replay_files_fd()): a file one thread opened is
 * the one every thread of its process uses, and its close drops the last
 * reference, wherever the close runs.
 *
 * A worker serving one stream alone runs every op itself (run_here()), as
 * the blocking call the program made: there is nothing to overlap it with,
 * and io_uring's hand-off to its io-wq threads would be measured as the
 * call's latency. Alone means no other stream of the worker can run: the
 * others are idle or wait for an op of another stream; it then runs one op
 * and looks at them again. Beside streams that can run, a read first tries
 * RWF_NOWAIT on the worker, reads that would block, fadvise and O_DIRECT
 * writes go through the ring, closes run on the worker, and everything
 * else goes to a small pool of threads issuing the blocking syscall, timed
 * there. The pool hands results back through the worker's eventfd, which
 * the worker always has a read pending on.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/grow.h"
#include "lib/map.h"
#include "replay/drive.h"
#include "replay/engine.h"
#include "replay/exec.h"
#include "replay/pace.h"

#define URING_ENTRIES 256
#define POOL_THREADS 8
#define SCRATCH_BYTES (1u << 20)
#define REQ_BUF_KEEP (1u << 20)	/* a request keeps a write buffer up to
				 * this size for its next write */
#define EFD_TAG 1
#define BACKSTOP_NS 100000000	/* a worker whose streams wait for other
				 * streams' ops still looks every 100 ms */

enum req_phase { PH_ISSUE, PH_POOL };

/* A worker's inbound queue is a list of these: it holds the seqs pushed
 * and not yet pulled, so all the workers' queues together hold at most
 * the plan's window. */
#define QCHUNK_SEQS 511
struct qchunk {
	_Atomic(struct qchunk *) next;
	uint64_t seq[QCHUNK_SEQS];
};

struct ureq {
	struct replay_op *op;
	struct uworker *w;
	struct ureq *next;
	enum req_phase phase;
	int fd, fd2;		/* the files' real fds, -1: none */
	void *buf;		/* owned data buffer, kept across reuse */
	size_t buf_cap;
	struct iovec *iov;	/* REPLAY_IOV_MAX entries for a data op over
				 * REQ_BUF_KEEP, kept across reuse */
	uint64_t t_submit, due;
	bool wait;		/* run_here() waits until due, after the lookups */
	uint64_t t_call, t_ret;	/* the pool: its call's clock, 0: none */
	int64_t res;
	bool fallback;
};

struct ustream {
	uint64_t head, tail;	/* seqs of the FIFO, 0: empty (then idle) */
	bool busy;		/* head in flight */
	bool listed;		/* in the ready list */
	bool waiting;		/* its head waits for another op to complete:
				 * it cannot run before then */
};

struct uworker {
	struct uring_engine *e;
	unsigned id;
	pthread_t th;
	bool started;
	struct io_uring ring;
	bool ring_ok;
	bool ring_disabled;	/* enabled by the worker: its single issuer */
	struct qchunk *qin;	/* inbound seqs from the producer (SPSC): the
				 * chunk it writes to (producer only) */
	struct qchunk *qout;	/* ... and the one the worker reads */
	_Atomic uint64_t qhead, qtail;	/* seqs pulled, pushed */
	int efd;
	uint64_t efd_val;
	_Atomic int sleeping;
	_Atomic int on_futex;	/* sleeping on wake_word, not in the ring */
	_Atomic uint32_t wake_word;	/* moved by every wake-up */
	_Atomic uint64_t dep_wait;	/* smallest seq a blocked stream waits
					 * for, 0: none; completing workers wake
					 * this one only once they reach it */
	_Atomic bool dep_exact;		/* ... its only busy stream waits for
					 * that op: woken once it is done */
	uint64_t done_max;		/* largest seq completed since the last
					 * wake-up pass */
	uint64_t ncomplete;		/* ops this worker completed */
	uint64_t npublished;		/* ... of which added to e->activity */
	struct ustream *streams;	/* by local index (uring_route()) */
	uint32_t cap_streams;
	uint32_t nlocal;	/* streams routed here; producer only */
	uint32_t *ready;	/* local indexes */
	uint32_t nready, cap_ready;
	uint32_t nbusy;		/* streams with ops queued or in flight */
	uint32_t nwaiting;	/* ... of which waiting for an op (their
				 * last look): run_here() runs beside them */
	unsigned inflight;
	struct ureq *free_reqs;
	void *scratch;
	pthread_mutex_t done_lock;
	struct ureq *done;	/* finished by the pool */
	struct replay_stats stats;
};

struct uring_engine {
	struct replay_ctx *cx;
	struct uworker *w[REPLAY_MAX_THREADS];
	_Atomic unsigned n;	/* workers started; w[i] set before n counts it */
	unsigned cap;		/* --workers, or REPLAY_MAX_THREADS */
	struct replay_fdmap *fds;	/* file object -> real fd (exec.h) */
	struct replay_fdmap *local;	/* stream -> its index on its worker */
	bool has[ACT_COUNT];	/* act has an io_uring opcode here */
	_Atomic bool stop;
	_Atomic uint64_t activity;	/* ops completed and published by the
					 * workers and the asynchronous streams:
					 * a worker about to sleep checks that
					 * it has not moved since it looked at
					 * its streams */
	_Atomic unsigned ndep;	/* workers with dep_wait set */
	struct replay_pace pace;
	pthread_t pool[POOL_THREADS];
	unsigned npool;
	pthread_mutex_t pool_lock;
	pthread_cond_t pool_cond;
	struct ureq *pool_head, *pool_tail;
	bool pool_stop;
};

/* ---- routing (producer thread) ---- */

static int worker_init(struct uring_engine *e, struct uworker *w, unsigned id, char *err,
		       size_t errlen);
static void worker_free(struct uworker *w);
static void *uworker_main(void *arg);

/* A new worker, started (it waits at the gate); NULL on failure, said in
 * err. */
static struct uworker *worker_new(struct uring_engine *e, unsigned id, char *err, size_t errlen)
{
	struct uworker *w = calloc(1, sizeof(*w));

	if (!w) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (worker_init(e, w, id, err, errlen) < 0)
		goto fail;
	w->started = replay_thread_start(&w->th, REPLAY_THREAD_STACK, uworker_main, w);
	if (w->started)
		return w;
	snprintf(err, errlen, "cannot start worker thread %u", id);
fail:
	worker_free(w);
	free(w);
	return NULL;
}

/* Each stream gets a worker of its own while there are fewer than cap;
 * then they share them (any worker can serve any stream: the files are
 * the engine's). */
static int uring_route(void *eng, uint32_t stream, uint32_t pid)
{
	struct uring_engine *e = eng;
	unsigned n = atomic_load(&e->n), lane = stream % n;
	char err[128];
	int rc;

	(void)pid;
	if (stream && n < e->cap && (e->w[n] = worker_new(e, n, err, sizeof(err)))) {
		atomic_store(&e->n, n + 1);
		lane = n;
	}
	/* the worker reads it once the stream's first op is pushed; without
	 * it the stream would share another's state */
	rc = replay_fdmap_set(e->local, stream + 1, e->w[lane]->nlocal);
	if (rc < 0)
		return rc;
	e->w[lane]->nlocal++;
	return (int)lane;
}

/* The local index of a stream on its worker. */
static uint32_t local_of(struct uworker *w, uint32_t stream)
{
	int64_t v = replay_fdmap_get(w->e->local, (uint64_t)stream + 1);

	return v < 0 ? 0 : (uint32_t)v;
}

/* A worker with nothing in flight sleeps on a futex, which a wake-up
 * reaches with one syscall; one with ops in its ring or the pool sleeps
 * in the ring, woken through its eventfd (a write(2), the ring's poll of
 * the eventfd, task work, then a read of it armed again: pgbench's 12
 * streams handing the WAL to one another made 116,000 such wake-ups in a
 * 7.3 s replay; see submit_and_wait()). The word moves first, so a worker
 * about to sleep on it sees a wake-up that did not see it asleep. */
static void wake(struct uworker *w)
{
	uint64_t one = 1;

	atomic_fetch_add(&w->wake_word, 1);
	if (atomic_load(&w->on_futex)) {
		replay_futex(&w->wake_word, FUTEX_WAKE_PRIVATE, 1, NULL);
		return;
	}
	if (write(w->efd, &one, sizeof(one)) < 0) {
		/* the counter is saturated: the worker is awake anyway */
	}
}

static int uring_push(void *eng, unsigned lane, uint64_t seq)
{
	struct uring_engine *e = eng;
	struct uworker *w = e->w[lane];
	uint64_t t = atomic_load_explicit(&w->qtail, memory_order_relaxed);

	if (t && t % QCHUNK_SEQS == 0) {
		struct qchunk *c = malloc(sizeof(*c));

		if (!c)
			return -ENOMEM;
		atomic_init(&c->next, NULL);
		/* released with qtail below, before the worker looks */
		atomic_store_explicit(&w->qin->next, c, memory_order_release);
		w->qin = c;
	}
	w->qin->seq[t % QCHUNK_SEQS] = seq;
	atomic_store_explicit(&w->qtail, t + 1, memory_order_seq_cst);
	/* one wake-up per sleep, not one per op pushed until the worker runs
	 * (16 workers each woken by a write(2) for every op of a refilled
	 * window: 0.57-0.60 s where the sync engine took 0.31-0.36 s) */
	if (atomic_load(&w->sleeping) && atomic_exchange(&w->sleeping, 0))
		wake(w);
	return 0;
}

/* ---- worker state ---- */

static struct ustream *stream_get(struct uworker *w, uint32_t i)
{
	if (GROW(w->streams, w->cap_streams, (size_t)i + 1, 64))
		return NULL;
	return &w->streams[i];
}

static int ready_add(struct uworker *w, uint32_t stream)
{
	if (GROW(w->ready, w->cap_ready, (size_t)w->nready + 1, 64))
		return -ENOMEM;
	w->ready[w->nready++] = stream;
	w->streams[stream].listed = true;
	return 0;
}

/* Moves the producer's new ops into the streams' FIFOs. */
static int pull_inbound(struct uworker *w)
{
	struct replay_plan *p = w->e->cx->plan;
	uint64_t h = atomic_load_explicit(&w->qhead, memory_order_relaxed);
	uint64_t t = atomic_load_explicit(&w->qtail, memory_order_acquire);

	for (; h != t; h++) {
		if (h && h % QCHUNK_SEQS == 0) {
			struct qchunk *next = atomic_load_explicit(&w->qout->next,
								  memory_order_acquire);

			free(w->qout);
			w->qout = next;
		}
		uint64_t seq = w->qout->seq[h % QCHUNK_SEQS];
		struct replay_op *op = replay_plan_op(p, seq);
		uint32_t i = local_of(w, op->stream);
		struct ustream *s = stream_get(w, i);

		if (!s)
			return -ENOMEM;
		op->next = 0;
		if (s->tail) {
			replay_plan_op(p, s->tail)->next = seq;
		} else {
			s->head = seq;
			w->nbusy++;
			/* a new stream that must wait does not keep the
			 * others from running alone */
			if (replay_op_blocker(p, op) && !s->waiting) {
				s->waiting = true;
				w->nwaiting++;
			}
		}
		s->tail = seq;
		if (!s->busy && !s->listed && ready_add(w, i) < 0)
			return -ENOMEM;
	}
	atomic_store_explicit(&w->qhead, h, memory_order_release);
	return 0;
}

static struct ureq *req_get(struct uworker *w, struct replay_op *op)
{
	struct ureq *r = w->free_reqs;

	if (r)
		w->free_reqs = r->next;
	else if (!(r = calloc(1, sizeof(*r))))
		return NULL;
	r->op = op;
	r->w = w;
	r->next = NULL;
	r->phase = PH_ISSUE;
	r->fd = r->fd2 = -1;
	r->fallback = false;
	r->t_call = r->t_ret = 0;
	return r;
}

static void req_put(struct uworker *w, struct ureq *r)
{
	if (r->buf_cap > REQ_BUF_KEEP) {
		free(r->buf);
		r->buf = NULL;
		r->buf_cap = 0;
	}
	r->next = w->free_reqs;
	w->free_reqs = r;
}

static struct io_uring_sqe *sqe_get(struct uworker *w)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);

	if (!sqe) {
		io_uring_submit(&w->ring);
		sqe = io_uring_get_sqe(&w->ring);
	}
	return sqe;
}

/* ---- completion ---- */

/* Accounts op, completes it and moves its stream on. */
static void op_finish(struct uworker *w, struct replay_op *op, const struct replay_done *d)
{
	struct ustream *s = &w->streams[local_of(w, op->stream)];
	uint64_t next = op->next;	/* op's slot is reused once complete */
	uint64_t seq = op->seq;

	replay_drive_end(w->e->cx, &w->stats, NULL, op, d);
	s->head = next;
	if (!s->head) {
		s->tail = 0;
		w->nbusy--;
	}
	s->busy = false;
	w->ncomplete++;
	if (seq > w->done_max)
		w->done_max = seq;
}

/* Accounts and completes r's op and frees r; the caller moves its stream
 * on. */
static void req_account(struct uworker *w, struct ureq *r, int64_t res, bool here)
{
	struct replay_op *op = r->op;
	struct replay_done d = { .due_ns = r->due, .fallback = r->fallback, .here = here };

	if (r->phase == PH_POOL && r->t_ret) {
		/* the call's own clock; the issue delay still counts from when
		 * it was due to its submission */
		replay_drive_issued(w->e->cx, &d, r->t_submit, r->t_submit + (r->t_ret - r->t_call), res);
	} else {
		replay_drive_issued(w->e->cx, &d, r->t_submit, replay_now_ns(), res);
	}
	req_put(w, r);
	op_finish(w, op, &d);
}

static void req_finish(struct uworker *w, struct ureq *r, int64_t res)
{
	uint32_t stream = local_of(w, r->op->stream);

	w->inflight--;
	req_account(w, r, res, false);
	if (w->streams[stream].head && !w->streams[stream].listed)
		ready_add(w, stream);
}

/* The real fd of op's file (second: file2), or -errno: exec.h. */
static int file_fd(struct uworker *w, const struct replay_op *op, bool second)
{
	bool reopened = false;
	int fd = replay_files_fd(w->e->cx, w->e->fds, op, second, &reopened);

	if (reopened)
		w->stats.reopened++;
	return fd;
}

/* ---- the fallback pool ---- */

static void *pool_main(void *arg)
{
	struct uring_engine *e = arg;

	for (;;) {
		struct ureq *r;

		pthread_mutex_lock(&e->pool_lock);
		while (!e->pool_head && !e->pool_stop)
			pthread_cond_wait(&e->pool_cond, &e->pool_lock);
		r = e->pool_head;
		if (r && !(e->pool_head = r->next))
			e->pool_tail = NULL;
		pthread_mutex_unlock(&e->pool_lock);
		if (!r) {
			replay_scratch_release();
			return NULL;
		}
		/* timed here, around the call alone, as the sync engine
		 * times it: the hand-off to this thread and back is not the
		 * call's cost (it is in the elapsed time) */
		struct replay_issue is = { 0 };

		r->res = replay_exec_timed(e->cx, r->op, r->fd, r->fd2, &is);
		r->t_call = is.t0;
		r->t_ret = is.t1;
		pthread_mutex_lock(&r->w->done_lock);
		r->next = r->w->done;
		r->w->done = r;
		pthread_mutex_unlock(&r->w->done_lock);
		wake(r->w);
	}
}

static void pool_push(struct uring_engine *e, struct ureq *r)
{
	r->phase = PH_POOL;
	r->next = NULL;
	pthread_mutex_lock(&e->pool_lock);
	if (e->pool_tail)
		e->pool_tail->next = r;
	else
		e->pool_head = r;
	e->pool_tail = r;
	pthread_cond_signal(&e->pool_cond);
	pthread_mutex_unlock(&e->pool_lock);
}

static void pool_drain(struct uworker *w)
{
	struct ureq *r;

	pthread_mutex_lock(&w->done_lock);
	r = w->done;
	w->done = NULL;
	pthread_mutex_unlock(&w->done_lock);
	while (r) {
		struct ureq *next = r->next;

		if (r->op->act == ACT_OPEN)
			replay_files_opened(w->e->fds, r->op, r->res);
		req_finish(w, r, r->res);
		r = next;
	}
}

/* ---- issuing ---- */

/* Sends r to the pool with its files' real fds (a reopen happens here, not
 * in the pool's clock). */
static void issue_fallback(struct uworker *w, struct ureq *r)
{
	const struct replay_op *op = r->op;
	int rc = 0;

	r->fallback = true;
	if (op->file && op->act != ACT_OPEN)
		rc = r->fd = file_fd(w, op, false);
	if (rc >= 0 && op->file2)
		rc = r->fd2 = file_fd(w, op, true);
	w->inflight++;
	if (rc < 0)
		req_finish(w, r, rc);
	else
		pool_push(w->e, r);
}

/* The data of a read or write of len bytes (replay_rw_len()): the
 * worker's scratch for reads, the request's own buffer for writes up to
 * REQ_BUF_KEEP (stable while in flight); anything larger goes over the
 * worker thread's bounded buffer repeated (*niov entries in r->iov), so a
 * log's count never sizes memory. Large writes in flight together on one
 * worker share that buffer's fill. */
static void *data_buf(struct uworker *w, struct ureq *r, size_t len, unsigned *niov)
{
	const struct replay_op *op = r->op;
	size_t need = len ? len : 1;

	*niov = 0;
	if (len > REQ_BUF_KEEP) {
		size_t cap = replay_buf_len(len);
		void *buf = replay_scratch(cap);

		if (!buf || (!r->iov && !(r->iov = malloc(REPLAY_IOV_MAX * sizeof(*r->iov)))))
			return NULL;
		if (op->act == ACT_WRITE)
			fill_bytes(&w->e->cx->fill, op->path_id, op->off, buf, cap);
		*niov = replay_rw_iov(buf, cap, len, r->iov);
		return buf;
	}
	if (op->act == ACT_READ && len <= SCRATCH_BYTES)
		return w->scratch;	/* what is read is not looked at */
	if (need > r->buf_cap) {
		free(r->buf);
		r->buf_cap = 0;
		if (posix_memalign(&r->buf, 4096, need) != 0) {
			r->buf = NULL;
			return NULL;
		}
		r->buf_cap = need;
	}
	if (op->act == ACT_WRITE)
		fill_bytes(&w->e->cx->fill, op->path_id, op->off, r->buf, len);
	return r->buf;
}

/* The ops that go through the ring (beside other streams that can run):
 * reads (after RWF_NOWAIT would block), fadvise and O_DIRECT writes, which
 * io_uring completes in the submitting call or on the device, never on an
 * io-wq thread; on the file's real fd. */
static int prep_fd(struct uworker *w, struct ureq *r, struct io_uring_sqe **sqe)
{
	const struct replay_op *op = r->op;
	int fd = file_fd(w, op, false);
	size_t len = replay_rw_len(op);
	unsigned niov = 0;
	void *buf = NULL;

	if (fd < 0)
		return fd;
	if (op->act != ACT_FADVISE && !(buf = data_buf(w, r, len, &niov)))
		return -ENOMEM;
	*sqe = sqe_get(w);
	if (op->act == ACT_READ && niov)
		io_uring_prep_readv(*sqe, fd, r->iov, niov, op->off);
	else if (op->act == ACT_READ)
		io_uring_prep_read(*sqe, fd, buf, (unsigned)len, op->off);
	else if (op->act == ACT_WRITE && niov)
		io_uring_prep_writev(*sqe, fd, r->iov, niov, op->off);
	else if (op->act == ACT_WRITE)
		io_uring_prep_write(*sqe, fd, buf, (unsigned)len, op->off);
	else
		io_uring_prep_fadvise(*sqe, fd, op->off, (off_t)op->count, (int)op->arg);
	return 0;
}

/* Whether no other stream of w can run (they are idle or wait for an op)
 * and nothing is in flight: w then serves one captured thread alone. */
static bool alone(const struct uworker *w)
{
	return w->nbusy - w->nwaiting == 1 && !w->inflight;
}

/* A close, always run here: it drops the file's last reference, as the
 * program's close did (through the ring, tar -xf's closes cost 807 ns p50
 * against the sync engine's 283 ns). 0 and no call for a file this run
 * never opened (an fd from before the capture, never used). */
static int64_t close_here(struct uworker *w, struct replay_op *op, struct replay_issue *is)
{
	int64_t fd = replay_fdmap_take(w->e->fds, op->file);

	if (fd < 0 || fd == REPLAY_OPEN_FAILED) {
		replay_issue_start(is);
		is->t1 = is->t0;
		return fd < 0 ? 0 : -EBADF;
	}
	return replay_exec_timed(w->e->cx, op, (int)fd, -1, is);
}

/* The ops io_uring would hand to its io-wq threads (everything but reads,
 * fadvise and O_DIRECT writes; opens too, which io-wq makes when they
 * create or miss the dentry cache): on a worker with several streams that
 * can run they go to the pool, whose threads make them as blocking
 * syscalls timed around the call alone, as the sync engine does. Through
 * the ring, each paid io-wq's hand-off in its latency: 29-36 us p50 for
 * stat, unlink, rename against 2-7 us (8 streams, replay/ENGINES.md). */
static bool blocks_in_ring(const struct replay_op *op)
{
	switch (op->act) {
	case ACT_READ: case ACT_FADVISE:
		return false;
	case ACT_WRITE:
		return !(op->file_flags & O_DIRECT);
	default:
		return true;
	}
}

/* A worker serving one captured thread alone (its other streams idle or
 * waiting for an op), with nothing in flight, runs the op itself, as the
 * blocking call the thread made: handing it to io-wq or the pool only adds
 * two context switches (more when the other thread runs on another CPU) to
 * what the program paid, and a read io_uring completes in the submitting
 * call is still measured from its submission to its reaping (1.25x a pread
 * at p50, replay/ENGINES.md). A close always runs here: it drops the file's
 * last reference, which stalls the others in the ring's close alike (in
 * this thread's task work), and here it is timed as the program's close.
 * Counted as run inline. Returns true when r is done. */
static bool run_here(struct uworker *w, struct ureq *r)
{
	struct replay_op *op = r->op;
	struct replay_done d = { .due_ns = r->due, .fallback = false, .here = true };
	struct replay_issue is = { .pace = &w->e->pace, .due_ns = r->wait ? r->due : 0 };
	int fd = -1, fd2 = -1;
	uint64_t t1;
	int64_t res = 0;

	if (!alone(w) && op->act != ACT_CLOSE)
		return false;
	if (op->act == ACT_CLOSE) {
		res = close_here(w, op, &is);
		r->t_submit = is.t0;
		t1 = is.t1;
		goto done;
	}
	/* the files and lookups before the clock, as the sync engine's; the
	 * wait until due was drive.c's */
	if (op->file && op->act != ACT_OPEN)
		res = fd = file_fd(w, op, false);
	if (res >= 0 && op->file2)
		res = fd2 = file_fd(w, op, true);
	if (res < 0) {
		replay_issue_start(&is);
		r->t_submit = t1 = is.t0;
		goto done;
	}
	if (op->act == ACT_WRITE)
		replay_prepare_data(w->e->cx, op);
	res = replay_exec_timed(w->e->cx, op, fd, fd2, &is);
	r->t_submit = is.t0;
	t1 = is.t1;
	if (op->act == ACT_OPEN)
		replay_files_opened(w->e->fds, op, res);
done:
	replay_drive_issued(w->e->cx, &d, r->t_submit, t1, res);
	req_put(w, r);
	op_finish(w, op, &d);
	return true;
}

/* A read on a worker with other streams to serve, tried as the program's
 * call with RWF_NOWAIT on this worker's real fd of the file: it copies
 * cached pages and returns EAGAIN rather than wait for the disk, so it
 * cannot stall the other streams. Taken when it read what the blocking
 * call would have (the whole count, or the end of the file: the captured
 * result or nothing); else the read goes through the ring. Through the
 * ring, beside the others, a cached read was measured from its
 * submission to its reaping: 5-7x the program's pread at p50 (8 threads,
 * replay/ENGINES.md). Returns true when r is done. */
static bool read_nowait(struct uworker *w, struct ureq *r)
{
	struct replay_op *op = r->op;
	struct replay_done d = { .due_ns = r->due, .fallback = false, .here = true };
	size_t len = replay_rw_len(op);
	struct iovec iov = { w->scratch, len };
	uint64_t t0, t1;
	int64_t res;
	int fd;

	if ((op->file_flags & O_DIRECT) || len > SCRATCH_BYTES || (fd = file_fd(w, op, false)) < 0)
		return false;
	t0 = replay_now_ns();
	res = syscall(SYS_preadv2, fd, &iov, 1, (long)op->off, 0L, RWF_NOWAIT);
	t1 = replay_now_ns();
	res = res < 0 ? -errno : res;
	if (res == -EAGAIN || res == -EOPNOTSUPP ||
	    (res >= 0 && (size_t)res != len && res != op->ret && res != 0))
		return false;
	replay_drive_issued(w->e->cx, &d, t0, t1, res);
	req_put(w, r);
	op_finish(w, op, &d);
	return true;
}

/* Issues op (steps 1-4 of drive.c are done, or the last, the wait until
 * due, is left to run_here(): wait): 1 in flight, 0 finished at once
 * (failed before reaching the kernel's op, or run by run_here()). */
static int issue(struct uworker *w, struct replay_op *op, uint64_t due, bool wait)
{
	struct replay_done d = { .delay_ns = -1 };
	struct io_uring_sqe *sqe = NULL;
	struct ureq *r = req_get(w, op);
	int rc;

	if (!r) {	/* out of memory: not issued, and counted so */
		op_finish(w, op, &d);
		return 0;
	}
	r->due = due;
	r->wait = wait;
	r->t_submit = replay_now_ns();
	w->streams[local_of(w, op->stream)].busy = true;
	if (run_here(w, r) || (op->act == ACT_READ && read_nowait(w, r)))
		return 0;
	/* an SQE's len is 32 bits: a longer range would be cut */
	if (!w->e->has[op->act] || blocks_in_ring(op) ||
	    (op->act == ACT_FADVISE && op->count > UINT32_MAX)) {
		issue_fallback(w, r);
		return 1;
	}
	/* prep_fd() makes the data: not the call's cost */
	rc = prep_fd(w, r, &sqe);
	r->t_submit = replay_now_ns();
	if (rc < 0 || !sqe) {
		w->inflight++;
		req_finish(w, r, rc);
		return 0;
	}
	io_uring_sqe_set_data(sqe, r);
	w->inflight++;
	return 1;
}

/* An asynchronous stream completed op seq (replay_ctx's notify): a worker
 * whose streams wait for it sleeps in its ring, where no futex wake-up
 * reaches it. Counted first, against a worker about to sleep: it stores
 * dep_wait then reads the count (seq_cst both sides), so one of the two
 * sees the other. */
static void wake_waiters(struct uring_engine *e, const struct uworker *self, uint64_t done_max);

static void uring_notify(void *arg, uint64_t seq)
{
	struct uring_engine *e = arg;

	atomic_fetch_add(&e->activity, 1);
	wake_waiters(e, NULL, seq);
}

/* ---- the worker loop ---- */

static void publish(struct uworker *w);

/* Runs one ready stream as far as it goes: 1 keep it listed (blocked:
 * *awaited set to the seq it waits for; not due, or yielding to the
 * streams that wait: *due set), 0 drop it (in flight or empty). */
static int run_stream(struct uworker *w, uint32_t i, uint64_t *due, uint64_t *awaited)
{
	struct replay_ctx *cx = w->e->cx;
	struct ustream *s = &w->streams[i];

	if (s->waiting) {
		s->waiting = false;
		w->nwaiting--;
	}
	while (s->head && !s->busy) {
		struct replay_op *op = replay_plan_op(cx->plan, s->head);
		struct replay_done d;
		uint64_t what = 0;
		bool wait = false;

		switch (replay_drive_begin(cx, op, false, &d, &what)) {
		case STEP_BLOCKED:
			*awaited = what;
			s->waiting = true;
			w->nwaiting++;
			return 1;
		case STEP_NOT_DUE:
			/* its histogram made now, not between it and the next */
			replay_stats_ready(&w->stats, op);
			/* alone and due within the spin: waited for in
			 * run_here(), after the op's lookups and right before
			 * its call, as the sync engine waits (waited for here,
			 * then issued, the bundled timing trace's ops went
			 * p50 1.2-8.8 us late, the sync engine's 70-80 ns) */
			if (!alone(w) || what > replay_now_ns() + w->e->pace.spin_ns) {
				*due = what;
				return 1;
			}
			d.due_ns = what;
			wait = true;
			break;
		case STEP_DONE:
			op_finish(w, op, &d);
			continue;
		case STEP_ISSUE:
			break;
		}
		if (issue(w, op, d.due_ns, wait))
			return 0;
		/* done here: a stream of another worker waiting for it hears
		 * now, not once this stream's queue runs dry */
		publish(w);
		/* run here beside other streams: one op, then they are looked
		 * at again, as the op may be what they waited for, and the
		 * ones that can run take their turn, as threads would (unless
		 * this stream's next op waits itself: the loop then marks it
		 * waiting) */
		if (w->nbusy > 1 && s->head &&
		    !replay_op_blocker(cx->plan, replay_plan_op(cx->plan, s->head))) {
			*due = replay_now_ns();
			return 1;
		}
	}
	return 0;
}

/* Goes over the ready streams once; returns the earliest due time of the
 * ones kept waiting (0: none); *awaited is the smallest seq the blocked ones
 * wait for (0: none blocked). */
static uint64_t run_ready(struct uworker *w, uint64_t *awaited)
{
	uint64_t next_due = 0;
	uint32_t k = 0, n = w->nready;

	*awaited = 0;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t i = w->ready[j];
		uint64_t due = 0, seq = 0;

		w->streams[i].listed = false;
		if (run_stream(w, i, &due, &seq) && !w->streams[i].listed) {
			w->ready[k++] = i;
			w->streams[i].listed = true;
			if (due && (!next_due || due < next_due))
				next_due = due;
			if (seq && (!*awaited || seq < *awaited))
				*awaited = seq;
		}
	}
	/* streams re-listed by completions during the pass sit after n */
	if (w->nready > n)
		memmove(w->ready + k, w->ready + n, (w->nready - n) * sizeof(*w->ready));
	w->nready = k + (w->nready - n);
	return next_due;
}

static void arm_efd(struct uworker *w)
{
	struct io_uring_sqe *sqe = sqe_get(w);

	io_uring_prep_read(sqe, w->efd, &w->efd_val, sizeof(w->efd_val), 0);
	io_uring_sqe_set_data64(sqe, EFD_TAG);
}

/* Wakes the workers whose streams wait for an op up to done_max. A worker
 * waiting for seqs >= S cannot be helped by completions below S, and any op
 * it waits for is >= S, so none is ever missed. A worker whose one busy
 * stream waits for S is woken only once S is done, by whoever completes
 * it: woken for every completion past S, pgbench's four backends' workers
 * woke for nothing and preempted the one making the calls (86,500 wake-ups
 * for 110,000 ops; 19,400 preemptions of one by another). Called after the activity
 * count moved (seq_cst both): a worker about to sleep counts itself in
 * ndep, then reads the activity, so one of the two sees the other. */
static void wake_waiters(struct uring_engine *e, const struct uworker *self, uint64_t done_max)
{
	unsigned n = atomic_load(&e->n);

	if (!done_max || !atomic_load(&e->ndep))
		return;
	for (unsigned i = 0; i < n; i++) {
		struct uworker *o = e->w[i];
		uint64_t s = atomic_load(&o->dep_wait);

		if (o != self && s && done_max >= s &&
		    (!atomic_load(&o->dep_exact) || replay_plan_op_done(e->cx->plan, s)) &&
		    atomic_compare_exchange_strong(&o->dep_wait, &s, 0)) {
			atomic_fetch_sub(&e->ndep, 1);
			wake(o);
		}
	}
}

/* Makes this worker's completions visible: the progress count others
 * check before sleeping, and a wake-up for workers whose streams may wait
 * on what just completed. */
static void publish(struct uworker *w)
{
	if (w->ncomplete == w->npublished)
		return;
	atomic_fetch_add(&w->e->activity, w->ncomplete - w->npublished);
	w->npublished = w->ncomplete;
	wake_waiters(w->e, w, w->done_max);
	w->done_max = 0;
}

/* What the workers and the asynchronous streams have completed and
 * published: changes whenever one completes an op (the sum only grows). A
 * worker sleeps only when it has not changed since it last looked at its
 * streams: an op it ran itself may be what one of them waited for. */
static uint64_t activity(struct uworker *w)
{
	return atomic_load(&w->e->activity);
}

static void reap(struct uworker *w)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;
	bool efd = false;

	io_uring_for_each_cqe(&w->ring, head, cqe) {
		n++;
		if (cqe->user_data == EFD_TAG)
			efd = true;
		else
			req_finish(w, io_uring_cqe_get_data(cqe), cqe->res);
	}
	io_uring_cq_advance(&w->ring, n);
	if (efd) {
		arm_efd(w);
		pool_drain(w);
	}
	publish(w);
}

/* A ring made with IORING_SETUP_DEFER_TASKRUN posts the completions of
 * ops that did not complete in their submission (io-wq's, and the read of
 * the eventfd the pool wakes this worker with) only when its thread asks:
 * a worker that spins from one due op to the next without sleeping in the
 * ring must ask, or a stream whose open went to the pool waited for the
 * others to finish (the bundled timing trace at speed 1: one run in 8 had
 * a stream issued up to 92 ms late). */
static void get_events(struct uworker *w)
{
	if (w->inflight)
		io_uring_get_events(&w->ring);
}

static bool inbound_empty(struct uworker *w)
{
	return atomic_load(&w->qhead) == atomic_load(&w->qtail);
}

/* Sleeps with nothing in flight: until a wake-up (wake()), or for wait ns
 * when not 0. The word is read after on_futex is set, and what a wake-up
 * announces (a push, a completion, the end) is looked at after that: a
 * wake-up either moved the word before it was read, and is seen here, or
 * saw on_futex and wakes the futex. */
static void sleep_futex(struct uworker *w, uint64_t wait, uint64_t awaited, uint64_t seen)
{
	struct timespec ts = { (time_t)(wait / 1000000000u), (long)(wait % 1000000000u) };
	uint32_t v;

	atomic_store(&w->on_futex, 1);
	v = atomic_load(&w->wake_word);
	if (inbound_empty(w) && activity(w) == seen && !atomic_load(&w->e->stop)) {
		if (io_uring_sq_ready(&w->ring))
			io_uring_submit(&w->ring);
		if (replay_futex(&w->wake_word, FUTEX_WAIT_PRIVATE, v, wait ? &ts : NULL) < 0 &&
		    errno == ETIMEDOUT && wait == BACKSTOP_NS && awaited &&
		    atomic_load(&w->dep_wait) == awaited &&
		    replay_plan_op_done(w->e->cx->plan, awaited))
			w->stats.missed_wakeups++;
	}
	atomic_store(&w->on_futex, 0);
}

/* Submits what run_ready() prepared and, when nothing is ready to reap,
 * waits in the same io_uring_enter(2): one syscall per op for a stream
 * that only waits on itself. */
static void submit_and_wait(struct uworker *w, uint64_t next_due, uint64_t awaited,
			    uint64_t seen)
{
	struct __kernel_timespec ts;
	struct io_uring_cqe *cqe;
	uint64_t now, wait = BACKSTOP_NS, spin = w->e->pace.spin_ns;

	if (io_uring_cq_ready(&w->ring)) {
		io_uring_submit(&w->ring);
		return;
	}
	now = replay_now_ns();
	if (next_due && next_due - spin < now + wait) {
		wait = next_due - spin > now ? next_due - spin - now : 0;
		/* a long sleep ends late: wake early, then sleep again */
		if (wait > REPLAY_WAKE_NS)
			wait -= REPLAY_WAKE_NS;
	}
	atomic_store(&w->sleeping, 1);
	atomic_store(&w->dep_exact, w->nbusy == 1);
	if (awaited && !atomic_exchange(&w->dep_wait, awaited))
		atomic_fetch_add(&w->e->ndep, 1);
	if (wait && inbound_empty(w) && activity(w) == seen && !w->inflight) {
		/* with no stream busy, only a push (uring_push() sees
		 * sleeping) or the end wakes it, not the backstop (a worker
		 * per captured thread, most of them idle: git's 15 woke 375
		 * times in a 0.25 s replay, and preempted the ones making
		 * the calls being measured) */
		sleep_futex(w, w->nbusy ? wait : 0, awaited, seen);
	} else if (wait && inbound_empty(w) && activity(w) == seen) {
		ts.tv_sec = (long long)(wait / 1000000000u);
		ts.tv_nsec = (long long)(wait % 1000000000u);
		if (io_uring_submit_and_wait_timeout(&w->ring, &cqe, 1, &ts, NULL) == -ETIME &&
		    wait == BACKSTOP_NS && awaited && atomic_load(&w->dep_wait) == awaited &&
		    replay_plan_op_done(w->e->cx->plan, awaited))
			w->stats.missed_wakeups++;
	} else {
		io_uring_submit(&w->ring);
		get_events(w);
	}
	atomic_store(&w->sleeping, 0);
	if (atomic_exchange(&w->dep_wait, 0))
		atomic_fetch_sub(&w->e->ndep, 1);
}

/* io_uring_enable_rings(), which liburing 2.3's shared library does not
 * export (its static one does): the register call itself. */
static int ring_enable(struct uworker *w)
{
	return syscall(__NR_io_uring_register, w->ring.ring_fd, IORING_REGISTER_ENABLE_RINGS,
		       NULL, 0) < 0 ? -errno : 0;
}

static void *uworker_main(void *arg)
{
	struct uworker *w = arg;
	struct replay_ctx *cx = w->e->cx;

	prctl(PR_SET_TIMERSLACK, 1UL);
	if (w->ring_disabled && ring_enable(w) < 0)
		return NULL;	/* not reached: enabling a ring we made cannot fail */
	replay_ctx_wait_gate(cx);
	arm_efd(w);
	for (;;) {
		uint64_t seen = activity(w);
		uint64_t next_due, awaited;

		if (pull_inbound(w) < 0)
			break;
		next_due = run_ready(w, &awaited);
		publish(w);
		if (atomic_load(&w->e->stop) && inbound_empty(w) && !w->inflight && !w->nready) {
			io_uring_submit(&w->ring);
			break;
		}
		/* the earliest op of its streams is due soon: wait for it
		 * (spinning, within the engine's budget of spinners) */
		if (next_due && next_due <= replay_now_ns() + w->e->pace.spin_ns) {
			io_uring_submit(&w->ring);
			replay_wait_until(&w->e->pace, next_due);
			get_events(w);
			reap(w);
			continue;
		}
		submit_and_wait(w, next_due, awaited, seen);
		reap(w);
	}
	replay_scratch_release();	/* run_here()'s writes use it */
	return NULL;
}

/* ---- set-up ---- */

static void probe(struct uring_engine *e)
{
	static const struct { int act, op; } map[] = {
		{ ACT_READ, IORING_OP_READ }, { ACT_WRITE, IORING_OP_WRITE },
		{ ACT_FADVISE, IORING_OP_FADVISE },
	};
	struct io_uring_probe *p = io_uring_get_probe();

	if (!p)
		return;
	for (unsigned i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		e->has[map[i].act] = io_uring_opcode_supported(p, map[i].op);
	io_uring_free_probe(p);
}

/* The ring with the least kernel work per op the running kernel offers:
 * only the worker submits (SINGLE_ISSUER, 6.0) and completions of punted
 * work run when it next waits for completions (DEFER_TASKRUN, 6.1), not as
 * task work interrupting it; the ring is created disabled and the worker
 * enables it, which makes it the issuer. Older kernels get cooperative
 * task work (5.19), then a plain ring: the same ring, only busier. */
static int ring_init(struct uworker *w, struct io_uring_params *params)
{
	static const unsigned tries[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_R_DISABLED,
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
		0,
	};
	unsigned base = params->flags;
	int rc = -EINVAL;

	for (unsigned i = 0; i < sizeof(tries) / sizeof(tries[0]) && rc == -EINVAL; i++) {
		params->flags = base | tries[i];
		rc = io_uring_queue_init_params(URING_ENTRIES, &w->ring, params);
		w->ring_disabled = rc == 0 && (tries[i] & IORING_SETUP_R_DISABLED);
	}
	return rc;
}

static int worker_init(struct uring_engine *e, struct uworker *w, unsigned id, char *err,
		       size_t errlen)
{
	struct io_uring_params params = { .flags = IORING_SETUP_CQSIZE, .cq_entries = 4096 };
	int rc;

	w->e = e;
	w->id = id;
	w->efd = -1;
	pthread_mutex_init(&w->done_lock, NULL);
	replay_stats_init(&w->stats);
	w->qin = w->qout = calloc(1, sizeof(*w->qin));
	if (!w->qin || posix_memalign(&w->scratch, 4096, SCRATCH_BYTES) != 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	w->efd = eventfd(0, EFD_CLOEXEC);
	if (w->efd < 0) {
		snprintf(err, errlen, "eventfd: %s", strerror(errno));
		return -errno;
	}
	rc = ring_init(w, &params);
	if (rc < 0) {
		snprintf(err, errlen, "io_uring_setup: %s", strerror(-rc));
		return rc;
	}
	w->ring_ok = true;
	return 0;
}

static void uring_destroy(void *eng);

static void *uring_create(struct replay_ctx *cx, char *err, size_t errlen)
{
	struct uring_engine *e = calloc(1, sizeof(*e));

	if (!e || !(e->fds = replay_fdmap_new()) ||
	    !(e->local = calloc(1, sizeof(*e->local)))) {
		if (e)
			replay_files_free(e->fds);
		free(e);
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	e->cx = cx;
	cx->notify = uring_notify;
	cx->notify_arg = e;
	e->cap = cx->workers && cx->workers < REPLAY_MAX_THREADS ? cx->workers : REPLAY_MAX_THREADS;
	replay_pace_init(&e->pace, cx, REPLAY_SPIN_NS);
	pthread_mutex_init(&e->pool_lock, NULL);
	pthread_cond_init(&e->pool_cond, NULL);
	probe(e);
	if (!e->has[ACT_READ] || !e->has[ACT_WRITE]) {
		snprintf(err, errlen, "this kernel's io_uring cannot read and write files: "
			 "use --engine sync");
		uring_destroy(e);
		errno = ENOSYS;
		return NULL;
	}
	return e;
}

/* The first worker exists before any stream, so routing always has one. */
static int uring_start(void *eng, char *err, size_t errlen)
{
	struct uring_engine *e = eng;

	for (unsigned i = 0; i < POOL_THREADS; i++, e->npool++)
		if (pthread_create(&e->pool[i], NULL, pool_main, e) != 0)
			break;
	if (!e->npool) {
		snprintf(err, errlen, "cannot start the fallback pool");
		return -EAGAIN;
	}
	if (!(e->w[0] = worker_new(e, 0, err, errlen)))
		return -EAGAIN;
	atomic_store(&e->n, 1);
	return 0;
}

/* Joins the workers. */
static void stop_workers(struct uring_engine *e)
{
	unsigned n = atomic_load(&e->n);

	atomic_store(&e->stop, true);
	for (unsigned i = 0; i < n; i++)
		if (e->w[i]->started) {
			wake(e->w[i]);
			pthread_join(e->w[i]->th, NULL);
			e->w[i]->started = false;
		}
}

static int uring_finish(void *eng, struct replay_stats *total)
{
	struct uring_engine *e = eng;
	unsigned n = atomic_load(&e->n);
	int rc = 0;

	stop_workers(e);
	for (unsigned i = 0; i < n && !rc; i++)
		rc = replay_stats_merge(total, &e->w[i]->stats);
	return rc;
}

static void pool_stop(struct uring_engine *e)
{
	pthread_mutex_lock(&e->pool_lock);
	e->pool_stop = true;
	pthread_cond_broadcast(&e->pool_cond);
	pthread_mutex_unlock(&e->pool_lock);
	for (unsigned i = 0; i < e->npool; i++)
		pthread_join(e->pool[i], NULL);
	e->npool = 0;
}

static void worker_free(struct uworker *w)
{
	if (w->ring_ok)
		io_uring_queue_exit(&w->ring);
	if (w->efd >= 0)
		close(w->efd);
	while (w->free_reqs) {
		struct ureq *r = w->free_reqs;

		w->free_reqs = r->next;
		free(r->buf);
		free(r->iov);
		free(r);
	}
	while (w->qout) {
		struct qchunk *next = atomic_load(&w->qout->next);

		free(w->qout);
		w->qout = next;
	}
	free(w->scratch);
	free(w->streams);
	free(w->ready);
	replay_stats_free(&w->stats);
}

static void uring_destroy(void *eng)
{
	struct uring_engine *e = eng;
	unsigned n;

	if (!e)
		return;
	stop_workers(e);
	pool_stop(e);
	n = atomic_load(&e->n);
	for (unsigned i = 0; i < n; i++) {
		worker_free(e->w[i]);
		free(e->w[i]);
	}
	replay_files_free(e->fds);
	if (e->local) {
		replay_fdmap_free(e->local);
		free(e->local);
	}
	free(e);
}

static unsigned uring_threads(void *eng)
{
	return atomic_load(&((struct uring_engine *)eng)->n);
}

const struct replay_engine replay_engine_uring = {
	.name = "uring",
	.alias = "io_uring",
	.report_name = "io_uring",
	.help = "a worker thread per captured thread (up to --workers),\n"
		"each with its own io_uring ring, running each call as the\n"
		"program's syscall. Streams beyond --workers share the\n"
		"workers: beside streams that can run, reads try\n"
		"RWF_NOWAIT, reads that would block, fadvise and O_DIRECT\n"
		"writes go through the ring, and calls that would block go\n"
		"to a pool of blocking threads, timed there (counted as\n"
		"fallbacks): a process's calls then reach the filesystem\n"
		"less concurrently than the program's did\n"
		"(replay/ENGINES.md)",
	.threads = uring_threads,
	.create = uring_create,
	.route = uring_route,
	.push = uring_push,
	.start = uring_start,
	.finish = uring_finish,
	.destroy = uring_destroy,
};
