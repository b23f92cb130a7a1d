/* replay/engine_uring.c: the io_uring engine (engine.h).
 *
 * Streams are multiplexed over --workers threads, each with its own ring;
 * all threads of a captured process share a worker (they shared an fd
 * table). A worker keeps, per stream, a FIFO of planned ops linked through
 * op->next, and a list of streams whose head op is not in flight. File
 * objects live in the ring's sparse registered file table (direct
 * descriptors), so no real fd is held per open file. A file object first
 * used on a worker that did not open it (an fd from before the capture, or
 * one shared with a process on another worker) is opened again by path
 * there, without creating or truncating: data ops are positional, so that
 * is exact. Opens are IORING_OP_OPENAT2 with the root's RESOLVE_IN_ROOT.
 *
 * Ops without an io_uring opcode on the running kernel (probed, never
 * assumed) go to a small pool of threads issuing plain syscalls; one that
 * acts on a file gets a real fd for its slot through
 * IORING_OP_FIXED_FD_INSTALL (or by opening the path again where the kernel
 * lacks it). The pool hands results back through the worker's eventfd,
 * which the worker always has a read pending on.
 *
 * A worker serving one stream alone runs the ops io_uring would hand to
 * io-wq, and those without an opcode, itself (run_here()): there is
 * nothing to overlap them with, and the hand-off would be measured as
 * the call's latency. Alone means no other stream of the worker can run:
 * the others are idle or wait for an op of another stream (a process
 * whose threads take turns, processes run one after another); it then
 * runs one op and looks at them again.
 */
#include <errno.h>
#include <limits.h>
#include <linux/openat2.h>
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
#include "replay/engine.h"

#define URING_ENTRIES 256
#define POOL_THREADS 8
#define SCRATCH_BYTES (1u << 20)
#define REQ_BUF_KEEP (1u << 20)	/* a request keeps a write buffer up to
				 * this size for its next write */
#define MAX_SLOTS (1u << 18)
#define REAL_FDS_MAX 256	/* per worker, for run_here() */
#define EFD_TAG 1
#define OP_FIXED_FD_INSTALL 54	/* Linux 6.8; liburing 2.3 predates it */
#define OP_FTRUNCATE 55		/* Linux 6.9 */
#define SPIN_NS 100000	/* spun before a due time: one worker per CPU can
				 * afford it, and timers wake ~60-100 us late on VMs */
#define BACKSTOP_NS 10000000	/* an idle worker still looks every 10 ms */
#define SLOT_FAILED 0xffffffffu	/* this worker's open of the file failed */

enum req_phase { PH_ISSUE, PH_INSTALL, PH_POOL, PH_PREFETCH };

struct ureq {
	struct replay_op *op;
	struct uworker *w;
	struct ureq *next;
	enum req_phase phase;
	int pfd, pfd2;		/* confined lookups to close at the end */
	int32_t slot;
	int fd, fd2;		/* real fds for the pool */
	uint64_t fetch_id;	/* PH_PREFETCH: the file a real fd is for */
	void *buf;		/* owned data buffer, kept across reuse */
	size_t buf_cap;
	struct iovec *iov;	/* REPLAY_IOV_MAX entries for a data op over
				 * REQ_BUF_KEEP, kept across reuse */
	uint64_t t_submit, due;
	uint64_t t_call, t_ret;	/* the pool: its call's clock, 0: none */
	int64_t res;
	bool fallback;
	struct open_how how;
	struct statx stx;
	char rel[PATH_MAX];
	char name2[NAME_MAX + 1];
	char target[PATH_MAX];	/* a symlink's, as replay_root_link_target()
				 * makes it */
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
	uint64_t *q;		/* inbound seqs from the producer (SPSC) */
	_Atomic uint64_t qhead, qtail;
	int efd;
	uint64_t efd_val;
	_Atomic int sleeping;
	_Atomic uint64_t dep_wait;	/* smallest seq a blocked stream waits
					 * for, 0: none; completing workers wake
					 * this one only once they reach it */
	uint64_t done_max;		/* largest seq completed since the last
					 * wake-up pass */
	uint64_t ncomplete;		/* ops this worker completed */
	uint64_t npublished;		/* ... of which made visible in activity */
	_Atomic uint64_t activity;	/* ncomplete as others may see it: a
					 * worker about to sleep checks that
					 * no one completed anything since it
					 * looked at its streams */
	struct ustream *streams;
	uint32_t cap_streams;
	uint32_t *ready;
	uint32_t nready, cap_ready;
	struct replay_fdmap *files;	/* file id -> slot | (real fd + 1) << 32 */
	uint32_t *free_slots;
	uint32_t nfree;
	uint32_t nreal;		/* real fds held in files */
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
	struct uworker *w;
	unsigned n;
	uint32_t slots;
	bool has[ACT_COUNT];	/* act has an io_uring opcode here */
	bool has_install;
	struct u64map pid_worker;	/* pid -> worker; producer only */
	uint32_t next_worker;
	_Atomic bool stop;
	_Atomic uint64_t outside;	/* ops completed by the asynchronous
					 * streams (uring_notify()) */
	struct replay_pace pace;
	pthread_t pool[POOL_THREADS];
	unsigned npool;
	pthread_mutex_t pool_lock;
	pthread_cond_t pool_cond;
	struct ureq *pool_head, *pool_tail;
	bool pool_stop;
};

/* ---- routing (producer thread) ---- */

static unsigned uring_route(void *eng, uint32_t stream, uint32_t pid)
{
	struct uring_engine *e = eng;
	uint64_t *w = map_get(&e->pid_worker, pid);

	if (w)
		return (unsigned)*w;
	if (map_put(&e->pid_worker, pid, e->next_worker % e->n))
		return pid % e->n;	/* still correct, only less balanced */
	return e->next_worker++ % e->n;
}

static void wake(struct uworker *w)
{
	uint64_t one = 1;

	if (write(w->efd, &one, sizeof(one)) < 0) {
		/* the counter is saturated: the worker is awake anyway */
	}
}

static void uring_push(void *eng, unsigned lane, uint64_t seq)
{
	struct uring_engine *e = eng;
	struct uworker *w = &e->w[lane];
	uint64_t t = atomic_load_explicit(&w->qtail, memory_order_relaxed);

	w->q[t & (REPLAY_WINDOW - 1)] = seq;
	atomic_store_explicit(&w->qtail, t + 1, memory_order_seq_cst);
	if (atomic_load(&w->sleeping))
		wake(w);
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
		uint64_t seq = w->q[h & (REPLAY_WINDOW - 1)];
		struct replay_op *op = replay_plan_op(p, seq);
		struct ustream *s = stream_get(w, op->stream);

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
		if (!s->busy && !s->listed && ready_add(w, op->stream) < 0)
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
	r->pfd = r->pfd2 = r->fd = r->fd2 = -1;
	r->slot = -1;
	r->fallback = false;
	r->t_call = r->t_ret = 0;
	return r;
}

static void req_put(struct uworker *w, struct ureq *r)
{
	if (r->pfd >= 0)
		close(r->pfd);
	if (r->pfd2 >= 0)
		close(r->pfd2);
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
	struct ustream *s = &w->streams[op->stream];
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
	uint32_t stream = r->op->stream;

	w->inflight--;
	req_account(w, r, res, false);
	if (w->streams[stream].head && !w->streams[stream].listed)
		ready_add(w, stream);
}

static void slot_free(struct uworker *w, int32_t slot)
{
	if (slot >= 0)
		w->free_slots[w->nfree++] = (uint32_t)slot;
}

/* Drops this worker's slot of a file whose open failed or whose capture
 * failed (no file object to keep it for). */
static void slot_clear(struct uworker *w, int32_t slot)
{
	int none = -1;

	io_uring_register_files_update(&w->ring, (unsigned)slot, &none, 1);
	slot_free(w, slot);
}

static uint64_t file_get(struct uworker *w, uint64_t id)
{
	return (uint64_t)replay_fdmap_get(w->files, id);
}

static void file_set(struct uworker *w, uint64_t id, uint32_t slot, int real_fd)
{
	replay_fdmap_set(w->files, id, (int64_t)(slot | ((uint64_t)(real_fd + 1) << 32)));
}

static void open_done(struct uworker *w, struct ureq *r, int64_t res)
{
	struct replay_op *op = r->op;

	if (res < 0) {
		slot_free(w, r->slot);
		if (op->file)
			file_set(w, op->file, SLOT_FAILED, -1);
	} else if (op->file) {
		file_set(w, op->file, (uint32_t)r->slot, -1);
	} else {
		slot_clear(w, r->slot);
	}
}

static void issue_fallback(struct uworker *w, struct ureq *r);
static int64_t open_keep(struct uworker *w, struct ureq *r, int64_t fd);

static void cqe_done(struct uworker *w, struct ureq *r, int64_t res)
{
	struct replay_op *op = r->op;

	if (r->phase == PH_INSTALL) {
		uint64_t id = r->fd < 0 && op->file ? op->file : op->file2;

		if (res < 0) {
			req_finish(w, r, res);
			return;
		}
		if (file_get(w, id) >> 32) {	/* a prefetch got there first */
			close((int)res);
		} else {
			file_set(w, id, (uint32_t)file_get(w, id), (int)res);
			w->nreal++;
		}
		r->phase = PH_ISSUE;
		w->inflight--;
		issue_fallback(w, r);
		return;
	}
	if (r->phase == PH_PREFETCH) {
		int64_t v = replay_fdmap_get(w->files, r->fetch_id);

		/* the file may be closed here by now, or hold a real fd */
		if (res >= 0 && v >= 0 && !((uint64_t)v >> 32) && (uint32_t)v != SLOT_FAILED) {
			file_set(w, r->fetch_id, (uint32_t)v, (int)res);
			w->nreal++;
		} else if (res >= 0) {
			close((int)res);
		}
		w->inflight--;
		req_put(w, r);
		return;
	}
	if (op->act == ACT_OPEN)
		open_done(w, r, res);
	else if (op->act == ACT_CLOSE)
		slot_free(w, r->slot);
	req_finish(w, r, res);
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
			r->res = open_keep(w, r, r->res);
		req_finish(w, r, r->res);
		r = next;
	}
}

/* ---- issuing ---- */

/* This worker's slot of a file object, opening it by path when the worker
 * does not hold it. Slot, or -errno. */
static int64_t file_slot(struct uworker *w, const struct replay_op *op, bool second)
{
	uint64_t id = second ? op->file2 : op->file;
	int64_t v = replay_fdmap_get(w->files, id);
	int fd;

	if (v >= 0)
		return (uint32_t)v == SLOT_FAILED ? -EBADF : (int64_t)(uint32_t)v;
	if (!w->nfree)
		return -EMFILE;
	fd = replay_reopen(w->e->cx, op, second);
	if (fd < 0)
		return fd;
	w->nfree--;
	if (io_uring_register_files_update(&w->ring, w->free_slots[w->nfree], &fd, 1) != 1) {
		close(fd);
		w->nfree++;
		return -EBADF;
	}
	close(fd);
	file_set(w, id, w->free_slots[w->nfree], -1);
	w->stats.reopened++;
	return w->free_slots[w->nfree];
}

/* A real fd for a file, for the pool: 1 ready, 0 an install is in flight,
 * -errno. */
static int real_fd(struct uworker *w, struct ureq *r, bool second)
{
	const struct replay_op *op = r->op;
	uint64_t id = second ? op->file2 : op->file;
	int64_t slot = file_slot(w, op, second);
	struct io_uring_sqe *sqe;
	uint64_t v;

	if (slot < 0)
		return (int)slot;
	v = file_get(w, id);
	if (v >> 32) {
		*(second ? &r->fd2 : &r->fd) = (int)((v >> 32) - 1);
		return 1;
	}
	if (!w->e->has_install) {
		int fd = replay_reopen(w->e->cx, op, second);

		if (fd < 0)
			return fd;
		file_set(w, id, (uint32_t)slot, fd);
		w->nreal++;
		*(second ? &r->fd2 : &r->fd) = fd;
		return 1;
	}
	sqe = sqe_get(w);
	io_uring_prep_rw(OP_FIXED_FD_INSTALL, sqe, (int)slot, NULL, 0, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, r);
	r->phase = PH_INSTALL;
	w->inflight++;
	return 0;
}

static void issue_fallback(struct uworker *w, struct ureq *r)
{
	const struct replay_op *op = r->op;
	int rc;

	r->fallback = true;
	if (op->file && op->act != ACT_OPEN && r->fd < 0 && (rc = real_fd(w, r, false)) <= 0) {
		if (rc < 0) {
			w->inflight++;
			req_finish(w, r, rc);
		}
		return;
	}
	if (op->file2 && r->fd2 < 0 && (rc = real_fd(w, r, true)) <= 0) {
		if (rc < 0) {
			w->inflight++;
			req_finish(w, r, rc);
		}
		return;
	}
	w->inflight++;
	pool_push(w->e, r);
}

static int prep_open(struct uworker *w, struct ureq *r, struct io_uring_sqe **sqe)
{
	const struct replay_op *op = r->op;
	int rootfd, rc = replay_root_locate(w->e->cx->root, op->path, &rootfd, r->rel,
					    sizeof(r->rel));

	if (rc < 0)
		return rc;
	if (!w->nfree)
		return -EMFILE;
	r->slot = (int32_t)w->free_slots[--w->nfree];
	memset(&r->how, 0, sizeof(r->how));
	/* a direct descriptor has no close-on-exec: the kernel refuses it */
	r->how.flags = replay_open_flags(op->flags) & ~(uint64_t)O_CLOEXEC;
	if ((op->flags & O_CREAT) || (op->flags & O_TMPFILE) == O_TMPFILE)
		r->how.mode = op->mode & 07777;
	r->how.resolve = REPLAY_RESOLVE;
	*sqe = sqe_get(w);
	io_uring_prep_openat2_direct(*sqe, rootfd, r->rel, &r->how, (unsigned)r->slot);
	return 0;
}

/* mkdir, unlink, rmdir, rename, link, symlink: confined parents. */
static int prep_at(struct uworker *w, struct ureq *r, struct io_uring_sqe **sqe)
{
	const struct replay_op *op = r->op;
	const struct replay_root *root = w->e->cx->root;
	int lflags = 0;

	r->pfd = op->act == ACT_LINK ?
		 replay_link_source(w->e->cx, op, r->rel, NAME_MAX + 1, &lflags) :
		 replay_root_parent(root, op->path, r->rel, NAME_MAX + 1);
	if (r->pfd < 0)
		return r->pfd;
	if (op->act == ACT_RENAME || op->act == ACT_LINK) {
		r->pfd2 = replay_root_parent(root, op->path2, r->name2, sizeof(r->name2));
		if (r->pfd2 < 0)
			return r->pfd2;
	}
	if (op->act == ACT_SYMLINK) {
		int rc = replay_root_link_target(root, op->path, r->pfd, op->text ? op->text : "",
						 r->target, sizeof(r->target));

		if (rc < 0)
			return rc;
	}
	*sqe = sqe_get(w);
	switch (op->act) {
	case ACT_MKDIR: io_uring_prep_mkdirat(*sqe, r->pfd, r->rel, op->mode); break;
	case ACT_UNLINK: io_uring_prep_unlinkat(*sqe, r->pfd, r->rel, 0); break;
	case ACT_RMDIR: io_uring_prep_unlinkat(*sqe, r->pfd, r->rel, AT_REMOVEDIR); break;
	case ACT_RENAME:
		io_uring_prep_renameat(*sqe, r->pfd, r->rel, r->pfd2, r->name2, (unsigned)op->flags);
		break;
	case ACT_LINK:
		io_uring_prep_linkat(*sqe, r->pfd, r->rel, r->pfd2, r->name2, lflags);
		break;
	default:
		io_uring_prep_symlinkat(*sqe, r->target, r->pfd, r->rel);
		break;
	}
	return 0;
}

static int prep_stat(struct uworker *w, struct ureq *r, struct io_uring_sqe **sqe)
{
	r->pfd = replay_path_fd(w->e->cx, r->op);
	if (r->pfd < 0)
		return r->pfd;
	*sqe = sqe_get(w);
	io_uring_prep_statx(*sqe, r->pfd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &r->stx);
	return 0;
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

/* fd ops on the file's slot. */
static int prep_fd(struct uworker *w, struct ureq *r, struct io_uring_sqe **sqe)
{
	const struct replay_op *op = r->op;
	int64_t slot = file_slot(w, op, false);
	size_t len = replay_rw_len(op);
	unsigned niov = 0;
	void *buf = NULL;

	if (op->act < ACT_READ || op->act > ACT_FADVISE)
		return -ENOSYS;	/* not reached: the probe sends the rest to the pool */
	if (slot < 0)
		return (int)slot;
	if ((op->act == ACT_READ || op->act == ACT_WRITE) && !(buf = data_buf(w, r, len, &niov)))
		return -ENOMEM;
	*sqe = sqe_get(w);
	switch (op->act) {
	case ACT_READ:
		if (niov)
			io_uring_prep_readv(*sqe, (int)slot, r->iov, niov, op->off);
		else
			io_uring_prep_read(*sqe, (int)slot, buf, (unsigned)len, op->off);
		break;
	case ACT_WRITE:
		if (niov)
			io_uring_prep_writev(*sqe, (int)slot, r->iov, niov, op->off);
		else
			io_uring_prep_write(*sqe, (int)slot, buf, (unsigned)len, op->off);
		break;
	case ACT_FSYNC: io_uring_prep_fsync(*sqe, (int)slot, 0); break;
	case ACT_FDATASYNC: io_uring_prep_fsync(*sqe, (int)slot, IORING_FSYNC_DATASYNC); break;
	case ACT_SYNC_RANGE:
		io_uring_prep_sync_file_range(*sqe, (int)slot, (unsigned)op->count, op->off,
					      (int)op->flags);
		break;
	case ACT_FALLOCATE:
		io_uring_prep_fallocate(*sqe, (int)slot, (int)op->flags, op->off, op->count);
		break;
	case ACT_FTRUNCATE: io_uring_prep_rw(OP_FTRUNCATE, *sqe, (int)slot, NULL, 0, op->off); break;
	default:
		io_uring_prep_fadvise(*sqe, (int)slot, op->off, (off_t)op->count, (int)op->arg);
		break;
	}
	(*sqe)->flags |= IOSQE_FIXED_FILE;
	return 0;
}

static int prep_close(struct uworker *w, struct ureq *r, struct io_uring_sqe **sqe)
{
	int64_t v = replay_fdmap_take(w->files, r->op->file);

	if (v < 0)
		return 0;	/* never opened here: nothing to close */
	if ((uint64_t)v >> 32) {
		close((int)(((uint64_t)v >> 32) - 1));
		w->nreal--;
	}
	if ((uint32_t)v == SLOT_FAILED)
		return -EBADF;
	r->slot = (int32_t)(uint32_t)v;
	*sqe = sqe_get(w);
	io_uring_prep_close_direct(*sqe, (unsigned)r->slot);
	return 0;
}

static int prep_op(struct uworker *w, struct ureq *r, struct io_uring_sqe **sqe)
{
	switch (r->op->act) {
	case ACT_OPEN: return prep_open(w, r, sqe);
	case ACT_CLOSE: return prep_close(w, r, sqe);
	case ACT_STAT: return prep_stat(w, r, sqe);
	case ACT_MKDIR: case ACT_UNLINK: case ACT_RMDIR: case ACT_RENAME: case ACT_LINK:
	case ACT_SYMLINK:
		return prep_at(w, r, sqe);
	default:
		return prep_fd(w, r, sqe);
	}
}

/* Asks for a real fd of file id (op's file or file2), for run_here(): an fd
 * install of its slot, submitted ahead of op's own call. */
static void prefetch_real_fd(struct uworker *w, struct replay_op *op, uint64_t id, uint32_t slot)
{
	struct io_uring_sqe *sqe;
	struct ureq *r;

	if (!w->e->has_install || w->nreal >= REAL_FDS_MAX || !(r = req_get(w, op)))
		return;
	r->phase = PH_PREFETCH;
	r->fetch_id = id;
	sqe = sqe_get(w);
	io_uring_prep_rw(OP_FIXED_FD_INSTALL, sqe, (int)slot, NULL, 0, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, r);
	w->inflight++;
}

/* The ops that go through the ring even on a worker serving one stream
 * alone: closing a direct descriptor (the ring's own file table) that
 * this worker holds no real fd of. Reads, fadvise and O_DIRECT writes,
 * which io_uring completes in the submitting call, run as syscalls there
 * too: a cached 4 KiB read measured from its submission to its reaping
 * costs 1.25x a pread at p50 and 2.4x in total (the io_uring_enter and
 * completion around it), which the captured pread never paid
 * (replay/ENGINES.md). */
static bool ring_only(struct uworker *w, const struct replay_op *op)
{
	int64_t v;

	if (op->act != ACT_CLOSE)
		return false;
	v = replay_fdmap_get(w->files, op->file);
	return v < 0 || !((uint64_t)v >> 32) || (uint32_t)v == SLOT_FAILED;
}

/* A close run here, of a file this worker holds a real fd of: the ring's
 * reference goes first, outside the clock, so the timed close drops the
 * file's last reference, as the program's close did (through the ring it
 * cost 807 ns p50 against the sync engine's 283 ns, tar -xf's closes). */
static int64_t close_here(struct uworker *w, struct replay_op *op, uint64_t *t0, uint64_t *t1)
{
	int64_t v = replay_fdmap_take(w->files, op->file);
	int none = -1, fd = (int)(((uint64_t)v >> 32) - 1);
	struct replay_issue is = { 0 };
	int64_t res;

	io_uring_register_files_update(&w->ring, (unsigned)(uint32_t)v, &none, 1);
	slot_free(w, (int32_t)(uint32_t)v);
	w->nreal--;
	res = replay_exec_timed(w->e->cx, op, fd, -1, &is);
	*t0 = is.t0;
	*t1 = is.t1;
	return res;
}

/* A real fd of op's file (second: file2) for run_here(): 1 with *fd set,
 * 0 when there is none yet, -errno. Without one, an install is asked for
 * when op goes through the ring; an op for the pool gets one installed on
 * its way there. */
static int here_fd(struct uworker *w, struct replay_op *op, bool second, int *fd)
{
	uint64_t id = second ? op->file2 : op->file;
	int64_t v = file_slot(w, op, second);

	if (v < 0)
		return (int)v;
	v = replay_fdmap_get(w->files, id);
	if (!((uint64_t)v >> 32)) {
		if (w->e->has[op->act])
			prefetch_real_fd(w, op, id, (uint32_t)v);
		return 0;
	}
	*fd = (int)(((uint64_t)v >> 32) - 1);
	return 1;
}

/* The ops io_uring would hand to its io-wq threads (everything but opens,
 * closes of direct descriptors, reads, fadvise and O_DIRECT writes): on a
 * worker with several streams they go to the pool, whose threads make
 * them as blocking syscalls timed around the call alone, as the sync
 * engine does. Through the ring, each paid io-wq's hand-off in its
 * latency: 29-36 us p50 for stat, unlink, rename against 2-7 us (8
 * streams, replay/ENGINES.md). An open made by the pool gets a slot
 * reserved before it goes, and its fd registered there when it is back. */
static bool blocks_in_ring(const struct replay_op *op)
{
	switch (op->act) {
	case ACT_OPEN:	/* an O_PATH fd cannot be registered */
		return !(op->flags & O_PATH);
	case ACT_CLOSE: case ACT_READ: case ACT_FADVISE:
		return false;
	case ACT_WRITE:
		return !(op->file_flags & O_DIRECT);
	default:
		return true;
	}
}

/* An open run here: the new fd goes to a free slot of the ring, and stays
 * this worker's real fd of the file while it has room for one. The slot is
 * registered after the call's clock stopped. */
static int64_t open_here(struct uworker *w, struct ureq *r, uint64_t *t1)
{
	struct replay_issue is = { 0 };
	int64_t fd = replay_exec_timed(w->e->cx, r->op, -1, -1, &is);

	r->t_submit = is.t0;
	*t1 = is.t1;
	r->slot = (int32_t)w->free_slots[--w->nfree];
	return open_keep(w, r, fd);
}

/* An open made outside the ring (here, or by the pool into the slot it
 * reserved): its fd goes to r's slot, and stays this worker's real fd of
 * the file while it has room for one. fd or -errno. */
static int64_t open_keep(struct uworker *w, struct ureq *r, int64_t fd)
{
	struct replay_op *op = r->op;
	int rfd;

	if (fd >= 0) {
		rfd = (int)fd;
		if (io_uring_register_files_update(&w->ring, (unsigned)r->slot, &rfd, 1) != 1) {
			close(rfd);
			fd = -EMFILE;
		}
	}
	open_done(w, r, fd < 0 ? fd : r->slot);
	if (fd >= 0 && op->file && w->nreal < REAL_FDS_MAX) {
		file_set(w, op->file, (uint32_t)r->slot, (int)fd);
		w->nreal++;
	} else if (fd >= 0) {
		close((int)fd);
	}
	return fd;
}

/* io_uring hands the ops it cannot complete without blocking to its kernel
 * worker threads (io-wq): opens that create or miss the dentry cache, the
 * namespace calls, stat, fsync, buffered writes where the filesystem
 * cannot write without blocking (ext4); and ops without an opcode go to
 * riot's pool. When this worker serves one captured thread alone (its
 * other streams idle or waiting for an op), with nothing in flight, that
 * hand-off only adds two context switches (more when the other thread
 * runs on another CPU) to what the captured thread did: a blocking call.
 * Such an op runs here, as that call, and is counted as run inline. An op
 * on a file needs a real fd of it: the first one goes through the ring
 * while an install fetches it. Returns true when r is done. */
static bool run_here(struct uworker *w, struct ureq *r)
{
	struct replay_op *op = r->op;
	struct replay_done d = { .due_ns = r->due, .fallback = false, .here = true };
	int fd = -1, fd2 = -1;
	uint64_t t1;
	int64_t res;

	if (ring_only(w, op))
		return false;
	/* a close drops its file's last reference here or in the ring's
	 * close alike (in this thread's task work): it stalls the others
	 * either way, and here it is timed as the program's close */
	if ((w->nbusy - w->nwaiting != 1 || w->inflight) && op->act != ACT_CLOSE)
		return false;
	if (op->act == ACT_OPEN) {
		/* an O_PATH fd cannot be registered: the ring installs it */
		if (!w->nfree || (op->flags & O_PATH))
			return false;
	} else if (op->act == ACT_STAT && op->file) {
		return false;
	} else if (op->file && op->act != ACT_CLOSE) {
		if (here_fd(w, op, false, &fd) <= 0)
			return false;
		if (op->file2 && here_fd(w, op, true, &fd2) <= 0)
			return false;
	}
	if (op->act == ACT_WRITE)
		replay_prepare_data(w->e->cx, op);
	if (op->act == ACT_OPEN) {
		res = open_here(w, r, &t1);
	} else if (op->act == ACT_CLOSE) {
		res = close_here(w, op, &r->t_submit, &t1);
	} else {
		/* the lookups before the clock, as the sync engine's; the
		 * wait until due was drive.c's */
		struct replay_issue is = { 0 };

		res = replay_exec_timed(w->e->cx, op, fd, fd2, &is);
		r->t_submit = is.t0;
		t1 = is.t1;
	}
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

	if ((op->file_flags & O_DIRECT) || len > SCRATCH_BYTES || here_fd(w, op, false, &fd) <= 0)
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

/* Issues op (steps 1-4 of drive.c are done): 1 in flight, 0 finished at
 * once (failed before reaching the kernel's op, or run by run_here()). */
static int issue(struct uworker *w, struct replay_op *op, uint64_t due)
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
	r->t_submit = replay_now_ns();
	w->streams[op->stream].busy = true;
	if (run_here(w, r) || (op->act == ACT_READ && read_nowait(w, r)))
		return 0;
	if (op->act == ACT_OPEN && blocks_in_ring(op)) {
		if (w->nfree) {
			r->slot = (int32_t)w->free_slots[--w->nfree];
			issue_fallback(w, r);
			return 1;
		}
	/* an SQE's len is 32 bits: a longer range would be cut */
	} else if (!w->e->has[op->act] || blocks_in_ring(op) ||
	    ((op->act == ACT_SYNC_RANGE || op->act == ACT_FADVISE) && op->count > UINT32_MAX)) {
		issue_fallback(w, r);
		return 1;
	}
	/* prep_op() resolves paths and makes the data: not the call's cost */
	rc = prep_op(w, r, &sqe);
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
static void uring_notify(void *arg, uint64_t seq)
{
	struct uring_engine *e = arg;

	atomic_fetch_add(&e->outside, 1);
	for (unsigned i = 0; i < e->n; i++) {
		struct uworker *o = &e->w[i];
		uint64_t s = atomic_load(&o->dep_wait);

		if (s && seq >= s && atomic_compare_exchange_strong(&o->dep_wait, &s, 0))
			wake(o);
	}
}

/* ---- the worker loop ---- */

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

		switch (replay_drive_begin(cx, op, false, &d, &what)) {
		case STEP_BLOCKED:
			*awaited = what;
			s->waiting = true;
			w->nwaiting++;
			return 1;
		case STEP_NOT_DUE:
			*due = what;
			return 1;
		case STEP_DONE:
			op_finish(w, op, &d);
			continue;
		case STEP_ISSUE:
			break;
		}
		if (issue(w, op, d.due_ns))
			return 0;
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

/* Makes this worker's completions visible: the progress count, the
 * activity others check before sleeping, and a wake-up for workers whose
 * streams may wait on what just completed. */
static void publish(struct uworker *w)
{
	struct uring_engine *e = w->e;

	if (w->ncomplete == w->npublished)
		return;
	w->npublished = w->ncomplete;
	/* seq_cst: ordered before the loads of dep_wait below, against the
	 * sleeper's store of dep_wait before its load of activity */
	atomic_store(&w->activity, w->ncomplete);
	/* A worker waiting for seqs >= S cannot be helped by completions
	 * below S, and any op it waits for is >= S, so none is ever missed. */
	for (unsigned i = 0; w->done_max && i < e->n; i++) {
		struct uworker *o = &e->w[i];
		uint64_t s = atomic_load(&o->dep_wait);

		if (i != w->id && s && w->done_max >= s &&
		    atomic_compare_exchange_strong(&o->dep_wait, &s, 0))
			wake(o);
	}
	w->done_max = 0;
}

/* What this worker, every other and the asynchronous streams have
 * completed: changes whenever one completes an op (the sum only grows).
 * A worker sleeps only when it has not changed since it last looked at its
 * streams: an op it ran itself may be what one of them waited for. */
static uint64_t activity(struct uworker *w)
{
	uint64_t sum = atomic_load(&w->e->outside) + w->ncomplete;

	for (unsigned i = 0; i < w->e->n; i++)
		if (i != w->id)
			sum += atomic_load(&w->e->w[i].activity);
	return sum;
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
			cqe_done(w, io_uring_cqe_get_data(cqe), cqe->res);
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
	if (next_due && next_due - spin < now + wait)
		wait = next_due - spin > now ? next_due - spin - now : 0;
	atomic_store(&w->sleeping, 1);
	if (awaited)
		atomic_store(&w->dep_wait, awaited);
	if (wait && inbound_empty(w) && activity(w) == seen) {
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
		{ ACT_OPEN, IORING_OP_OPENAT2 }, { ACT_CLOSE, IORING_OP_CLOSE },
		{ ACT_READ, IORING_OP_READ }, { ACT_WRITE, IORING_OP_WRITE },
		{ ACT_FSYNC, IORING_OP_FSYNC }, { ACT_FDATASYNC, IORING_OP_FSYNC },
		{ ACT_SYNC_RANGE, IORING_OP_SYNC_FILE_RANGE },
		{ ACT_FALLOCATE, IORING_OP_FALLOCATE }, { ACT_FTRUNCATE, OP_FTRUNCATE },
		{ ACT_FADVISE, IORING_OP_FADVISE }, { ACT_STAT, IORING_OP_STATX },
		{ ACT_MKDIR, IORING_OP_MKDIRAT }, { ACT_UNLINK, IORING_OP_UNLINKAT },
		{ ACT_RMDIR, IORING_OP_UNLINKAT }, { ACT_RENAME, IORING_OP_RENAMEAT },
		{ ACT_LINK, IORING_OP_LINKAT }, { ACT_SYMLINK, IORING_OP_SYMLINKAT },
	};
	struct io_uring_probe *p = io_uring_get_probe();

	if (!p)
		return;
	for (unsigned i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		e->has[map[i].act] = io_uring_opcode_supported(p, map[i].op);
	e->has_install = io_uring_opcode_supported(p, OP_FIXED_FD_INSTALL);
	io_uring_free_probe(p);
}

static uint32_t slot_count(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur > MAX_SLOTS)
		return MAX_SLOTS;
	/* the kernel refuses a table larger than the limit; half of a small
	 * limit leaves fds for the rings, eventfds, the log and the pool */
	return rl.rlim_cur > 256 ? (uint32_t)rl.rlim_cur - 128 :
	       rl.rlim_cur > 2 ? (uint32_t)rl.rlim_cur / 2 : 1;
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
	w->q = malloc(REPLAY_WINDOW * sizeof(*w->q));
	w->files = calloc(1, sizeof(*w->files));
	w->free_slots = malloc(e->slots * sizeof(*w->free_slots));
	if (!w->q || !w->files || !w->free_slots ||
	    posix_memalign(&w->scratch, 4096, SCRATCH_BYTES) != 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < e->slots; i++)
		w->free_slots[i] = e->slots - 1 - i;
	w->nfree = e->slots;
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
	rc = io_uring_register_files_sparse(&w->ring, e->slots);
	if (rc < 0) {
		snprintf(err, errlen, "registering %u file slots: %s", e->slots, strerror(-rc));
		return rc;
	}
	return 0;
}

static void uring_destroy(void *eng);

static void *uring_create(struct replay_ctx *cx, char *err, size_t errlen)
{
	struct uring_engine *e = calloc(1, sizeof(*e));
	int rc = -ENOMEM;

	if (e)
		map_init(&e->pid_worker, map_seed());
	if (!e || !(e->w = calloc(cx->workers, sizeof(*e->w)))) {
		free(e);
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	e->cx = cx;
	cx->notify = uring_notify;
	cx->notify_arg = e;
	e->n = cx->workers;
	e->slots = slot_count();
	replay_pace_init(&e->pace, cx, SPIN_NS);
	pthread_mutex_init(&e->pool_lock, NULL);
	pthread_cond_init(&e->pool_cond, NULL);
	probe(e);
	if (!e->has[ACT_OPEN]) {
		snprintf(err, errlen, "this kernel's io_uring cannot open files (IORING_OP_OPENAT2): "
			 "use --engine sync");
		rc = -ENOSYS;
		goto fail;
	}
	for (unsigned i = 0; i < e->n; i++)
		if ((rc = worker_init(e, &e->w[i], i, err, errlen)) < 0)
			goto fail;
	return e;
fail:
	uring_destroy(e);
	errno = -rc;
	return NULL;
}

static int uring_start(void *eng, char *err, size_t errlen)
{
	struct uring_engine *e = eng;

	for (unsigned i = 0; i < POOL_THREADS; i++, e->npool++)
		if (pthread_create(&e->pool[i], NULL, pool_main, e) != 0)
			break;
	for (unsigned i = 0; i < e->n; i++) {
		if (pthread_create(&e->w[i].th, NULL, uworker_main, &e->w[i]) != 0) {
			snprintf(err, errlen, "cannot start worker thread %u", i);
			return -EAGAIN;
		}
		e->w[i].started = true;
	}
	if (!e->npool) {
		snprintf(err, errlen, "cannot start the fallback pool");
		return -EAGAIN;
	}
	return 0;
}

static int uring_finish(void *eng, struct replay_stats *total)
{
	struct uring_engine *e = eng;
	int rc = 0;

	atomic_store(&e->stop, true);
	for (unsigned i = 0; i < e->n; i++)
		if (e->w[i].started) {
			wake(&e->w[i]);
			pthread_join(e->w[i].th, NULL);
			e->w[i].started = false;
		}
	for (unsigned i = 0; i < e->n && !rc; i++)
		rc = replay_stats_merge(total, &e->w[i].stats);
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

static void close_real_fd(int64_t v, void *arg)
{
	if ((uint64_t)v >> 32)
		close((int)(((uint64_t)v >> 32) - 1));
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
	if (w->files) {
		replay_fdmap_drain(w->files, close_real_fd, NULL);
		replay_fdmap_free(w->files);
	}
	free(w->files);
	free(w->q);
	free(w->free_slots);
	free(w->scratch);
	free(w->streams);
	free(w->ready);
	replay_stats_free(&w->stats);
}

static void uring_destroy(void *eng)
{
	struct uring_engine *e = eng;

	if (!e)
		return;
	atomic_store(&e->stop, true);
	for (unsigned i = 0; i < e->n; i++)
		if (e->w[i].started) {
			wake(&e->w[i]);
			pthread_join(e->w[i].th, NULL);
		}
	pool_stop(e);
	for (unsigned i = 0; i < e->n; i++)
		worker_free(&e->w[i]);
	free(e->w);
	map_fini(&e->pid_worker);
	free(e);
}

static unsigned uring_threads(void *eng)
{
	return ((struct uring_engine *)eng)->n;
}

const struct replay_engine replay_engine_uring = {
	.name = "uring",
	.alias = "io_uring",
	.report_name = "io_uring",
	.help = "--workers threads, each with its own io_uring ring and\n"
		"registered files, multiplexing the streams (the threads\n"
		"of a process share one). A call runs on the worker as\n"
		"the program's syscall while its other streams wait;\n"
		"beside streams that can run, reads try RWF_NOWAIT and\n"
		"calls that would block go to a pool of blocking threads,\n"
		"timed there (counted as fallbacks). Not the default: a\n"
		"multi-threaded process's calls reach the filesystem less\n"
		"concurrently than the program's did (replay/ENGINES.md)",
	.threads = uring_threads,
	.create = uring_create,
	.route = uring_route,
	.push = uring_push,
	.start = uring_start,
	.finish = uring_finish,
	.destroy = uring_destroy,
};
