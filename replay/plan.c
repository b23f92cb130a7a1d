/* replay/plan.c: the producer: log records to replay ops (plan.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/fleet.h"
#include "lib/grow.h"
#include "lib/map.h"
#include "formats/semantics.h"
#include "model/model.h"
#include "replay/classify.h"
#include "replay/plan.h"
#include "replay/root.h"

#define WINDOW_MASK (REPLAY_WINDOW - 1)

/* Per file object: the captured position and the last op touching it. */
struct file_state {
	uint64_t pos;
	uint64_t last;
	uint64_t pipe_write;	/* a pipe's (by the lower id of its ends):
				 * its last write that moved bytes */
};

struct stream_key {
	uint32_t pid, tid;	/* an asynchronous stream: tid 0 */
	uint64_t ctx;		/* an asynchronous stream's context */
	uint32_t index;		/* + 1; 0: empty slot; NO_STREAM: a thread
				 * seen forked, with no op yet */
	uint64_t after;		/* its first op waits for this seq */
	uint64_t after_end;	/* --timing think: the latest captured end
				 * of the ops up to after */
	uint64_t creator_seq, creator_end;	/* a forked thread's creator's
						 * last op before the fork, and
						 * its captured end; 0: none */
	/* a process's key (PROC_CTX), --timing think: */
	uint32_t parent;	/* the pid that forked it, 0: unknown */
	uint32_t child_stream;	/* the last op of the child that exited last
				 * (child_seq 0: none since its last op) */
	uint64_t child_seq, child_end, child_exit;
	uint64_t fault_seq;	/* a thread's: its last mmap page not yet
				 * waited for by its next call (dep_fault()) */
};
#define NO_STREAM UINT32_MAX
/* The ctx of a process's own key (tid 0): no ring, AIO context or mapping
 * address is this. */
#define PROC_CTX (UINT64_MAX - 1)

/* Per stream: its last op (seq, captured end); for an asynchronous one
 * the captured completion times of the requests in flight at its last
 * submission, a min-heap of at most REPLAY_ASYNC_DEPTH_MAX (its size is
 * the depth). */
struct async_state {
	uint64_t last_seq, last_t, last_end;
	uint64_t *ends;
	uint32_t n;
};

/* A file mapping an mmap made: its pages' records (mmap:read, mmap:write)
 * name it by (pid, start address) in ctx. */
struct mapping {
	uint32_t pid;
	uint64_t addr;
	uint64_t file;		/* the model's file object (it may be closed
				 * since: the id is never reused) */
	uint32_t path_id;
	const char *path;	/* model-owned */
	uint64_t open_flags;
};
#define MAPPINGS (1u << 14)	/* the (pid, address) pairs remembered: pages
				 * of mappings at others are unresolved */

struct replay_plan {
	struct replay_plan_opts o;
	struct riot_reader *rd;
	struct model *m;
	struct replay_op *win;
	uint64_t next_seq;	/* the next op's seq */
	uint64_t t0;
	bool have_t0;

	struct file_state *files;	/* by model file id */
	uint64_t nfiles;
	uint64_t *path_last;		/* by model path id */
	uint64_t npaths;
	uint64_t *path_size;		/* by path id: the file's size as the
					 * workload saw it, + 1 (0: unknown) */
	uint64_t nsizes;
	uint64_t *child_last;		/* by directory path id: the latest op
					 * on a path in it since its own last */
	uint64_t nchild;
	_Atomic uint64_t low;		/* every op up to this seq is done */

	struct replay_stream *streams;
	uint32_t *stream_lane;
	struct async_state *astate;	/* by stream, asynchronous ones only */
	uint32_t nstreams, cap_streams;
	struct stream_key *skeys;	/* every (pid, tid, ctx) seen */
	uint64_t skey_cap;
	uint32_t nkeys;
	struct u64map skey_ix;		/* hash of a key -> index in skeys */

	struct mapping *maps;	/* MAPPINGS, the first nmaps used */
	uint32_t nmaps;
	struct u64map map_index;	/* hash of (pid, addr) -> index in maps */
	uint64_t skipped[SKIP_COUNT];
	uint64_t max_end;	/* the latest captured end so far, after t0 */
	uint64_t first_proc, last_exit;	/* the first process record's time
					 * and the last exit's (log clock),
					 * 0: none */
	uint64_t child_exits;	/* process keys with a child_seq noted */
	uint64_t faults;	/* thread keys with a fault_seq noted */
	bool pages_recorded;	/* the log's capture recorded the pages of
				 * file mappings (mmap:*): it says so, with
				 * no no-mmap-fault fallback */
	const struct riot_syscall *cur;	/* the call being classified */
	uint64_t barrier_end;	/* stream_of()'s: the after_end of the stream
				 * it just found (for plan_think()) */
	uint64_t barrier_seq, barrier_cend;	/* ... its creator_seq, _end */
	struct replay_clock **clocks;	/* --timing think: CLOCK_CHUNKS chunks
					 * of CLOCK_CHUNK, made as streams come */
	_Atomic bool finished;
	_Atomic uint64_t planned;
	_Atomic uint64_t lost;	/* planned, but no engine could take them */
	bool log_complete;
	uint64_t pending_close;	/* seq of a close not handed over yet */
	char err[512];
};

/* ---- completion and waiting ---- */

long replay_futex(_Atomic uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, (uint32_t *)addr, op, val, ts, NULL, 0);
}

struct replay_op *replay_plan_op(struct replay_plan *p, uint64_t seq)
{
	return &p->win[seq & WINDOW_MASK];
}

static bool seq_done(const struct replay_plan *p, uint64_t seq)
{
	return !seq || atomic_load_explicit(&p->win[seq & WINDOW_MASK].done,
					    memory_order_acquire) >= seq;
}

/* Whether every op up to seq is done; else one that is not, as late in
 * the prefix as a few probes find (seq, seq - 1, seq - 3, seq - 7, ...):
 * a stream completes its ops in order, so when that one is done so are
 * its stream's ops before it, and a waiter wakes about once per stream
 * the prefix holds, not once per op (waiting on the first op not done,
 * a dd reading a file another dd wrote woke 9,000 times, a context
 * switch each). Advances the shared watermark as far as it can: it only
 * grows, and a slot reused by a later op reads as done, so racing
 * callers agree. */
static uint64_t prefix_blocker(const struct replay_plan *cp, uint64_t seq)
{
	struct replay_plan *p = (struct replay_plan *)cp;
	uint64_t w = atomic_load(&p->low);

	while (w < seq) {
		if (!seq_done(p, w + 1))
			break;
		if (atomic_compare_exchange_weak(&p->low, &w, w + 1))
			w++;
	}
	if (w >= seq)
		return 0;
	/* w + 1 is not done; probe the ops above it from the top */
	for (uint64_t back = 0; back < seq - w - 1; back = 2 * back + 1)
		if (!seq_done(p, seq - back))
			return seq - back;
	return w + 1;
}

uint64_t replay_op_blocker(const struct replay_plan *p, const struct replay_op *op)
{
	for (unsigned i = 0; i < REPLAY_MAX_DEPS && op->dep[i]; i++) {
		uint64_t d = op->dep[i], b;

		if (d & REPLAY_DEP_PREFIX) {
			/* the barrier's own op first: a waiter on the first op
			 * not done was woken by every op of the prefix in turn
			 * (9,000 times a thread in a replay of git) */
			if (!seq_done(p, d & ~REPLAY_DEP_PREFIX))
				return d & ~REPLAY_DEP_PREFIX;
			if ((b = prefix_blocker(p, d & ~REPLAY_DEP_PREFIX)))
				return b;
		} else if (!seq_done(p, d)) {
			return d;
		}
	}
	return 0;
}

/* The futex word of an op: the low half of `done` (little-endian), which
 * changes when the op completes (seq and the slot's previous seq differ in
 * their low 32 bits: the window is far smaller than 2^32). */
static _Atomic uint32_t *done_word(struct replay_op *op)
{
	return (_Atomic uint32_t *)&op->done;
}

void replay_op_complete(struct replay_plan *p, struct replay_op *op)
{
	/* seq_cst store then load, against the waiter's add then load: one
	 * of the two sees the other, so no wake-up is lost */
	atomic_store(&op->done, op->seq);
	if (atomic_load(&op->waiters))
		replay_futex(done_word(op), FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
}

bool replay_plan_op_done(const struct replay_plan *p, uint64_t seq)
{
	return seq_done(p, seq);
}

void replay_plan_wait_op(struct replay_plan *p, uint64_t seq)
{
	struct replay_op *op = replay_plan_op(p, seq);
	uint32_t seen = atomic_load(done_word(op));
	struct timespec ts = { 0, 100000000 };

	atomic_fetch_add(&op->waiters, 1);
	/* the timeout is a backstop only: a wake-up is never lost */
	if (atomic_load(&op->done) < seq)
		replay_futex(done_word(op), FUTEX_WAIT_PRIVATE, seen, &ts);
	atomic_fetch_sub(&op->waiters, 1);
}

bool replay_plan_finished(const struct replay_plan *p)
{
	return atomic_load((_Atomic bool *)&p->finished);
}

uint64_t replay_plan_planned(const struct replay_plan *p)
{
	return atomic_load((_Atomic uint64_t *)&p->planned);
}

uint64_t replay_plan_lost(const struct replay_plan *p)
{
	return atomic_load((_Atomic uint64_t *)&p->lost);
}

const struct replay_stream *replay_plan_stream(const struct replay_plan *p, uint32_t i)
{
	return i < p->nstreams ? &p->streams[i] : NULL;
}

uint32_t replay_plan_nstreams(const struct replay_plan *p)
{
	return p->nstreams;
}

const struct model *replay_plan_model(const struct replay_plan *p)
{
	return p->m;
}

bool replay_plan_log_complete(const struct replay_plan *p)
{
	return p->log_complete;
}

uint64_t replay_plan_skipped_ops(const struct replay_plan *p, unsigned skip)
{
	return skip < SKIP_COUNT ? p->skipped[skip] : 0;
}

const char *replay_plan_error(const struct replay_plan *p)
{
	return p->err;
}

/* ---- state tables ---- */

static struct file_state *file_state(struct replay_plan *p, uint64_t id)
{
	if (GROW(p->files, p->nfiles, id + 1, 1024) < 0)
		return NULL;
	return &p->files[id];
}

static uint64_t *path_size(struct replay_plan *p, uint32_t id)
{
	if (!id || GROW(p->path_size, p->nsizes, id + 1, 1024) < 0)
		return NULL;
	return &p->path_size[id];
}

/* What the log says of a file's size: at open, from stat, in the snapshot,
 * after a truncate. An O_APPEND write lands there. */
static void size_is(struct replay_plan *p, uint32_t id, uint64_t size)
{
	uint64_t *sz = path_size(p, id);

	if (sz)
		*sz = size + 1;
}

static uint64_t *path_last(struct replay_plan *p, uint32_t id)
{
	if (GROW(p->path_last, p->npaths, id + 1, 1024) < 0)
		return NULL;
	return &p->path_last[id];
}

static uint64_t key_hash(const struct replay_plan *p, uint32_t pid, uint32_t tid,
			 uint64_t ctx)
{
	uint64_t k[2] = { (uint64_t)pid << 32 | tid, ctx };

	return hash_bytes(k, sizeof(k), p->skey_ix.seed);
}

#define CLOCK_CHUNK 1024u
#define CLOCK_CHUNKS 65536u

struct replay_clock *replay_plan_clock(struct replay_plan *p, uint32_t i)
{
	return &p->clocks[i / CLOCK_CHUNK][i % CLOCK_CHUNK];
}

/* The program's time outside its calls: from its start (a process record
 * before its first call: the exec of a `-- CMD` capture) to its first
 * call, and from its last call's end to its last exit. */
uint64_t replay_plan_outside_ns(const struct replay_plan *p)
{
	uint64_t head = 0, tail = 0, last = p->t0 + p->max_end;

	if (!p->have_t0)
		return 0;
	if (p->first_proc && p->first_proc < p->t0)
		head = p->t0 - p->first_proc;
	if (p->last_exit > last)
		tail = p->last_exit - last;
	return head + tail;
}

uint64_t replay_plan_captured_ns(const struct replay_plan *p)
{
	return p->max_end + replay_plan_outside_ns(p);
}

/* The clock of stream idx exists before its first op is handed over: the
 * chunk is made by the producer, and reaches the engine's threads with
 * the op. */
static int clock_make(struct replay_plan *p, uint32_t idx)
{
	struct replay_clock **c;

	if (!p->clocks)
		return 0;
	if (idx / CLOCK_CHUNK >= CLOCK_CHUNKS) {
		snprintf(p->err, sizeof(p->err), "more than %u threads and rings: too many to "
			 "time with --timing think", CLOCK_CHUNK * CLOCK_CHUNKS);
		return -E2BIG;
	}
	c = &p->clocks[idx / CLOCK_CHUNK];
	if (!*c && !(*c = calloc(CLOCK_CHUNK, sizeof(**c))))
		return -ENOMEM;
	return 0;
}

static bool routes_async(const struct replay_plan *p, uint32_t stream)
{
	return p->streams[stream].async && p->o.route_async;
}

static int stream_add(struct replay_plan *p, uint32_t pid, uint32_t tid, bool async,
		      uint64_t ctx)
{
	uint32_t idx;
	int lane;

	if (p->nstreams == p->cap_streams) {
		/* three arrays of one capacity: each grows the same way from
		 * it, which moves only once all three have */
		uint32_t cs = p->cap_streams, cl = cs, ca = cs;

		if (GROW(p->streams, cs, (size_t)p->nstreams + 1, 64) < 0 ||
		    GROW(p->stream_lane, cl, (size_t)p->nstreams + 1, 64) < 0 ||
		    GROW(p->astate, ca, (size_t)p->nstreams + 1, 64) < 0)
			return -ENOMEM;
		p->cap_streams = cs;
	}
	p->astate[p->nstreams] = (struct async_state){ 0 };
	if (async && !(p->astate[p->nstreams].ends =
			       malloc(REPLAY_ASYNC_DEPTH_MAX * sizeof(uint64_t))))
		return -ENOMEM;
	if ((lane = clock_make(p, p->nstreams)) < 0)
		return lane;
	p->streams[p->nstreams] = (struct replay_stream){ .pid = pid, .tid = tid,
							  .async = async, .ctx = ctx };
	/* counted first: a router may look at it (replay_plan_stream()) */
	idx = p->nstreams++;
	lane = routes_async(p, idx) ? p->o.route_async(p->o.eng_async, idx, pid) :
				      p->o.route(p->o.eng, idx, pid);
	p->stream_lane[idx] = lane < 0 ? 0 : (uint32_t)lane;
	if (lane < 0) {
		snprintf(p->err, sizeof(p->err), "cannot start a replay thread: %s",
			 strerror(-lane));
		return lane;
	}
	return (int)idx;
}

/* Hands op to its stream's lane, in its engine. An op no engine took is
 * complete for the ops that wait on it, and counted lost: the run ends,
 * and fails (the producer stops here). */
static int push_op(struct replay_plan *p, struct replay_op *op)
{
	int rc = routes_async(p, op->stream) ?
		p->o.push_async(p->o.eng_async, p->stream_lane[op->stream], op->seq) :
		p->o.push(p->o.eng, p->stream_lane[op->stream], op->seq);

	if (rc < 0) {
		snprintf(p->err, sizeof(p->err), "cannot queue op %" PRIu64 ": %s", op->seq,
			 strerror(-rc));
		atomic_fetch_add(&p->lost, 1);
		replay_op_complete(p, op);
	}
	return rc;
}

/* The key of (pid, tid, ctx): found, or made empty (index 0). NULL on
 * ENOMEM. A thread's key has ctx 0, an asynchronous stream's tid 0 (no
 * task has tid 0). The pointer is good until the next call. */
static struct stream_key *skey_slot(struct replay_plan *p, uint32_t pid, uint32_t tid,
				    uint64_t ctx)
{
	uint64_t h = key_hash(p, pid, tid, ctx), *v;
	uint32_t pos = 0;

	while ((v = map_next(&p->skey_ix, h, &pos))) {
		struct stream_key *k = &p->skeys[*v];

		if (k->tid == tid && k->pid == pid && k->ctx == ctx)
			return k;
	}
	if (GROW(p->skeys, p->skey_cap, p->nkeys + 1, 1024) < 0)
		return NULL;
	if (map_add(&p->skey_ix, h, p->nkeys))
		return NULL;
	p->skeys[p->nkeys] = (struct stream_key){ .pid = pid, .tid = tid, .ctx = ctx };
	return &p->skeys[p->nkeys++];
}

/* The stream of a captured thread: index, or -ENOMEM. *after: the seq its
 * next op waits for all ops up to (a fork or exec before it), or 0. */
static int stream_of(struct replay_plan *p, uint32_t pid, uint32_t tid, uint64_t *after)
{
	struct stream_key *k = skey_slot(p, pid, tid, 0);
	int idx;

	if (!k)
		return -ENOMEM;
	*after = k->index ? k->after : 0;
	p->barrier_end = k->after_end;
	p->barrier_seq = k->creator_seq;
	p->barrier_cend = k->creator_end;
	k->creator_seq = 0;
	k->after = 0;
	if (k->index && k->index != NO_STREAM)
		return (int)k->index - 1;
	idx = stream_add(p, pid, tid, false, 0);
	if (idx < 0)
		return idx;
	*k = (struct stream_key){ .pid = pid, .tid = tid, .index = (uint32_t)idx + 1 };
	return idx;
}

/* The asynchronous stream of a process's ring, AIO context or mapping:
 * index, or -ENOMEM. */
static int stream_of_ctx(struct replay_plan *p, uint32_t pid, uint64_t ctx)
{
	struct stream_key *k = skey_slot(p, pid, 0, ctx);
	int idx;

	if (!k)
		return -ENOMEM;
	if (k->index)
		return (int)k->index - 1;
	idx = stream_add(p, pid, 0, true, ctx);
	if (idx < 0)
		return idx;
	*k = (struct stream_key){ .pid = pid, .ctx = ctx, .index = (uint32_t)idx + 1 };
	return idx;
}

/* The captured depth of a request of an asynchronous stream submitted at t
 * and complete at end: the requests still in flight then, itself
 * included. Requests of a context come in the order of t (FORMAT.md). */
static uint32_t async_depth(struct async_state *a, uint64_t t, uint64_t end)
{
	uint64_t *h = a->ends;
	uint32_t i;

	/* complete before t: out (a complete at t itself left before it came) */
	while (a->n && h[0] <= t) {
		uint32_t n = --a->n, c;

		i = 0;
		for (; (c = 2 * i + 1) < n; i = c) {
			if (c + 1 < n && h[c + 1] < h[c])
				c++;
			if (h[n] <= h[c])
				break;
			h[i] = h[c];
		}
		h[i] = h[n];
	}
	if (a->n == REPLAY_ASYNC_DEPTH_MAX)
		return a->n;	/* at the cap: counted as the cap */
	for (i = a->n++; i && h[(i - 1) / 2] > end; i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = end;
	return a->n;
}

/* A FORK (for the new thread) or an EXEC (for the new program): the
 * thread's next op will wait for every op logged before it (what its
 * creator did, and what the creator waited for, as a shell waits for one
 * command before it forks or execs the next). A thread with no op yet
 * holds a key as a stream does. */
static int note_start(struct replay_plan *p, uint32_t pid, uint32_t tid)
{
	struct stream_key *k;

	if (p->next_seq == 1)
		return 0;
	k = skey_slot(p, pid, tid, 0);
	if (!k)
		return -ENOMEM;
	if (!k->index)
		*k = (struct stream_key){ .pid = pid, .tid = tid, .index = NO_STREAM };
	k->after = p->next_seq - 1;
	k->after_end = p->max_end;
	return 0;
}

/* A new process's parent, and a task's exit noted on its parent's key
 * (the last op of the child that exited last), so that the parent's next
 * op waits for the child's end as its wait did (dep_child()). */
static int note_fork(struct replay_plan *p, const struct riot_proc *r)
{
	struct stream_key *k;

	if (r->child_pid == r->pid)
		return 0;
	if (!(k = skey_slot(p, r->child_pid, 0, PROC_CTX)))
		return -ENOMEM;
	k->parent = r->pid;
	return 0;
}

static int note_exit(struct replay_plan *p, const struct riot_proc *r)
{
	struct stream_key *k;
	const struct async_state *st;
	uint32_t parent, stream;

	if (!p->have_t0)
		return 0;
	if (!(k = skey_slot(p, r->pid, 0, PROC_CTX)))
		return -ENOMEM;
	parent = k->parent;
	if (!parent || !(k = skey_slot(p, r->pid, r->tid, 0)))
		return k ? 0 : -ENOMEM;
	if (!k->index || k->index == NO_STREAM)
		return 0;
	stream = k->index - 1;
	st = &p->astate[stream];
	if (!st->last_seq || !(k = skey_slot(p, parent, 0, PROC_CTX)))
		return st->last_seq ? -ENOMEM : 0;
	if (k->child_seq && k->child_end > st->last_end)
		return 0;
	p->child_exits += !k->child_seq;
	k->child_seq = st->last_seq;
	k->child_end = st->last_end;
	k->child_stream = stream;
	k->child_exit = r->t > p->t0 ? r->t - p->t0 : 0;
	return 0;
}

static int note_proc(struct replay_plan *p, const struct riot_proc *r)
{
	if (r->kind == RIOT_PROC_FORK) {
		uint32_t tid = r->child_tid ? r->child_tid : r->child_pid;
		int rc = note_start(p, r->child_pid, tid);
		struct stream_key *k;
		uint64_t seq = 0, end = 0;

		if (rc)
			return rc;
		/* the creator's last op before the fork: what the child's
		 * first op follows under --timing think */
		if ((k = skey_slot(p, r->pid, r->tid, 0)) && k->index && k->index != NO_STREAM &&
		    p->astate[k->index - 1].last_seq) {
			seq = p->astate[k->index - 1].last_seq;
			end = p->astate[k->index - 1].last_end;
		}
		if (seq && (k = skey_slot(p, r->child_pid, tid, 0))) {
			k->creator_seq = seq;
			k->creator_end = end;
		}
		return note_fork(p, r);
	}
	if (r->kind == RIOT_PROC_EXEC)	/* the survivor takes the pid as tid */
		return note_start(p, r->pid, r->pid);
	if (r->kind == RIOT_PROC_EXIT)
		return note_exit(p, r);
	return 0;
}

/* ---- a call planned: its act and arguments (classify.h says what the
 * call is), against what the log showed before it ---- */

/* read/write family: positional at the captured position. */
static void plan_data(struct replay_plan *p, struct replay_op *op,
		      const struct riot_syscall *sc, int act)
{
	struct file_state *fs = file_state(p, op->file);
	bool explicit_off = replay_sys_positional(sc->sys) && sc->off != UINT64_MAX;

	uint64_t *size = path_size(p, op->path_id);
	uint64_t moved = sc->ret > 0 ? (uint64_t)sc->ret : 0;

	op->act = (uint8_t)act;
	op->count = replay_sys_vectored(sc->sys) ? moved : sc->count;
	if (explicit_off) {
		op->off = sc->off;
	} else {
		op->opflags |= OPF_IMPLICIT;
		/* an O_APPEND write goes to the end of the file and leaves the
		 * position there */
		if (act == ACT_WRITE && (op->file_flags & O_APPEND) && size && *size)
			op->off = *size - 1;
		else
			op->off = fs ? fs->pos : 0;
		if (fs)
			fs->pos = op->off + moved;
	}
	if (act == ACT_WRITE && size && *size && op->off + moved + 1 > *size)
		*size = op->off + moved + 1;
}

static void set_skip(struct replay_plan *p, struct replay_op *op, unsigned why)
{
	op->act = ACT_SKIP;
	op->skip = (uint8_t)why;
	p->skipped[why]++;
}

static void plan_open(struct replay_plan *p, struct replay_op *op, const struct riot_syscall *sc)
{
	struct file_state *fs;

	if (sc->ret >= 0 && replay_ftype_special(sc->has, sc->ftype)) {
		set_skip(p, op, SKIP_DEVICE);
		return;
	}

	op->act = ACT_OPEN;
	op->flags = riot_open_flags(sc);
	op->mode = sc->mode;
	if (op->file && (fs = file_state(p, op->file)))
		fs->pos = 0;
	if (sc->ret >= 0 && (sc->has & RIOT_HAS_SIZE) && sc->ftype == S_IFREG)
		size_is(p, op->path_id, sc->size);
}

/* No file behind an fd: lost (as `riot info` counts it), or no fd at all
 * when the capture got EBADF; not a file where the call's own record says
 * its fd was a pipe, socket or device (an fstat of stdout). */
static unsigned skip_unknown(const struct replay_plan *p, const struct replay_op *op)
{
	if (op->ret == -EBADF)
		return SKIP_BADF;
	if (p->cur && (p->cur->has & RIOT_HAS_FTYPE) && op->ret >= 0) {
		unsigned t = p->cur->ftype & S_IFMT;

		if (t == S_IFIFO || t == S_IFSOCK)
			return SKIP_NOT_A_PATH;
		if (t == S_IFCHR || t == S_IFBLK)
			return SKIP_DEVICE;
	}
	return SKIP_UNRESOLVED;
}

/* A file-based op needs a known file object with a real path. */
static bool file_ok(struct replay_plan *p, struct replay_op *op, uint64_t file,
		    const struct model_op *mop)
{
	const struct model_file *mf;

	if (!file) {
		set_skip(p, op, skip_unknown(p, op));
		return false;
	}
	mf = model_file(p->m, file);
	if (!mf || !op->path || op->path[0] != '/') {
		set_skip(p, op, SKIP_NOT_A_PATH);
		return false;
	}
	if (mf->flags & MODEL_FILE_TRUNCATED) {
		set_skip(p, op, SKIP_TRUNCATED);
		return false;
	}
	if (replay_ftype_special(mf->has, mf->ftype)) {
		set_skip(p, op, SKIP_DEVICE);
		return false;
	}
	op->file_flags = mf->open_flags;
	return true;
}

static bool path_ok(struct replay_plan *p, struct replay_op *op, const struct model_op *mop,
		    bool two)
{
	if (!op->path || (two && !op->path2)) {
		set_skip(p, op, skip_unknown(p, op));
		return false;
	}
	if (mop->flags & (MODEL_OP_PATH_TRUNCATED | MODEL_OP_PATH2_TRUNCATED)) {
		set_skip(p, op, SKIP_TRUNCATED);
		return false;
	}
	return true;
}

static int copy_text(struct replay_op *op, const char *text)
{
	free(op->text);
	op->text = NULL;
	if (text && !(op->text = strdup(text)))
		return -ENOMEM;
	return 0;
}

static void plan_copy(struct replay_plan *p, struct replay_op *op, const struct riot_syscall *sc,
		      const struct model_op *mop)
{
	struct file_state *in, *out;

	if (!file_ok(p, op, op->file, mop))
		return;
	if (!op->file2 || !mop->path2 || mop->path2[0] != '/') {
		set_skip(p, op, op->file2 ? SKIP_NOT_A_PATH : skip_unknown(p, op));
		return;
	}
	in = file_state(p, op->file);
	out = file_state(p, op->file2);
	op->act = ACT_COPY;
	op->count = sc->count;
	op->off = (sc->has & RIOT_HAS_OFF) ? sc->off : (in ? in->pos : 0);
	op->arg = (sc->has & RIOT_HAS_OFF2) ? sc->off2 : (out ? out->pos : 0);
	if (sc->ret > 0) {
		if (in && !(sc->has & RIOT_HAS_OFF))
			in->pos += (uint64_t)sc->ret;
		if (out && !(sc->has & RIOT_HAS_OFF2))
			out->pos += (uint64_t)sc->ret;
	}
}

/* ioctl FICLONE / FICLONERANGE: the destination fd's file gets the
 * source's (file2) blocks, on the replayed files. */
static void plan_clone(struct replay_plan *p, struct replay_op *op, const struct riot_syscall *sc,
		       const struct model_op *mop)
{
	if (!file_ok(p, op, op->file, mop))
		return;
	if (!op->file2 || !mop->path2 || mop->path2[0] != '/') {
		set_skip(p, op, op->file2 ? SKIP_NOT_A_PATH : skip_unknown(p, op));
		return;
	}
	op->act = ACT_CLONE;
	op->flags = sc->cmd;
	op->off = sc->off;
	op->count = sc->count;
	op->arg = sc->off2;
}

/* The arguments an fd or path op replays with, as captured. */
static void op_args(struct replay_op *op, const struct riot_syscall *sc, int act)
{
	op->act = (uint8_t)act;
	op->off = sc->off;
	op->count = sc->count;
	op->flags = sc->flags;
	op->mode = sc->mode;
	op->uid = sc->uid;
	op->gid = sc->gid;
}

/* A setxattr replays the value it was given: the bytes the log holds, the
 * rest of count filled for names whose values are free bytes (user.,
 * trusted.); another name without its whole value is skipped. */
static int plan_value(struct replay_plan *p, struct replay_op *op, const struct riot_syscall *sc)
{
	bool whole = (sc->has & RIOT_HAS_VALUE) && sc->value_len >= sc->count;
	const char *name = op->text ? op->text : "";

	free(op->value);
	op->value = NULL;
	op->value_len = 0;
	if (!whole && strncmp(name, "user.", 5) != 0 && strncmp(name, "trusted.", 8) != 0) {
		set_skip(p, op, SKIP_NO_VALUE);
		return 0;
	}
	if (!(sc->has & RIOT_HAS_VALUE) || !sc->value_len)
		return 0;
	op->value = malloc(sc->value_len);
	if (!op->value)
		return -ENOMEM;
	memcpy(op->value, sc->value, sc->value_len);
	op->value_len = sc->value_len;
	return 0;
}

static void plan_fd_op(struct replay_plan *p, struct replay_op *op, const struct riot_syscall *sc,
		       const struct model_op *mop, int act)
{
	if (!file_ok(p, op, op->file, mop))
		return;
	op_args(op, sc, act);
	op->arg = sc->cmd;
}

static void plan_path_op(struct replay_plan *p, struct replay_op *op,
			 const struct riot_syscall *sc, const struct model_op *mop, int act)
{
	bool two = act == ACT_RENAME || act == ACT_LINK;

	if (!path_ok(p, op, mop, two))
		return;
	op_args(op, sc, act);
	op->arg = sc->arg;
	if (replay_sys_nofollow(sc))
		op->opflags |= OPF_NOFOLLOW;
	op->act = (uint8_t)replay_path_act(sc, act);
	if (!replay_path_flags_kept(sc->sys))
		op->flags = 0;
	if (act == ACT_MKNOD && !replay_mknod_replayable(sc->mode))
		set_skip(p, op, SKIP_DEVICE);
}

/* A path op, or its fd form when the path is empty (fstatat(fd, "",
 * AT_EMPTY_PATH), utimensat(fd, NULL)): then it acts on the file object. */
static void plan_path_or_file(struct replay_plan *p, struct replay_op *op,
			      const struct riot_syscall *sc, const struct model_op *mop, int act)
{
	int fd_act = replay_path_fd_act(sc, act);

	if (mop->file && fd_act >= 0) {
		plan_fd_op(p, op, sc, mop, fd_act);
		return;
	}
	op->file = 0;
	plan_path_op(p, op, sc, mop, act);
}

static void plan_call(struct replay_plan *p, struct replay_op *op, const struct riot_syscall *sc,
		     const struct model_op *mop);

/* The mapping of (pid, addr); with make, a new one when there is none
 * (uninitialised: the caller fills it). NULL when there is none, or
 * MAPPINGS are known already, or out of memory. */
static struct mapping *mapping_find(struct replay_plan *p, uint32_t pid, uint64_t addr,
				    bool make)
{
	uint64_t kb[2] = { pid, addr }, key = hash_bytes(kb, sizeof(kb), p->map_index.seed), *v;
	uint32_t pos = 0;

	while ((v = map_next(&p->map_index, key, &pos)))
		if (p->maps[*v].pid == pid && p->maps[*v].addr == addr)
			return &p->maps[*v];
	if (!make || p->nmaps == MAPPINGS)
		return NULL;
	if (!p->maps && !(p->maps = malloc(MAPPINGS * sizeof(*p->maps))))
		return NULL;
	if (map_add(&p->map_index, key, p->nmaps) < 0)
		return NULL;
	return &p->maps[p->nmaps++];
}

/* An mmap of a file with a path replay can reach: its pages' records will
 * name it by its start address. A new mapping at the same address (after
 * a munmap) takes the slot over. */
static void note_mapping(struct replay_plan *p, const struct replay_op *op,
			 const struct riot_syscall *sc)
{
	const struct model_file *mf = op->file ? model_file(p->m, op->file) : NULL;
	struct mapping *m;

	if (sc->ret <= 0 || !mf || !op->path || op->path[0] != '/' ||
	    (mf->flags & MODEL_FILE_TRUNCATED) || replay_ftype_special(mf->has, mf->ftype))
		return;
	m = mapping_find(p, sc->pid, (uint64_t)sc->ret, true);
	if (m)
		*m = (struct mapping){ .pid = sc->pid, .addr = (uint64_t)sc->ret, .file = op->file,
				       .path_id = op->path_id, .path = op->path,
				       .open_flags = mf->open_flags };
}

/* mmap:read, mmap:write: a pread or pwrite of the same range of the file
 * the mapping at ctx maps; where the log shows no such mmap (a mapping
 * made before the capture), of the file the record names by its path,
 * opened read-write (file 0: the engine keeps its fd by path id). */
static void plan_mmap_page(struct replay_plan *p, struct replay_op *op,
			   const struct riot_syscall *sc, const struct model_op *mop, int sys)
{
	struct mapping *m = mapping_find(p, sc->pid, sc->ctx, false);
	struct riot_syscall twin = *sc;

	if (m) {
		op->file = m->file;
		op->path = m->path;
		op->path_id = m->path_id;
		op->file_flags = m->open_flags;
	} else if (op->path && op->path[0] == '/' && op->path_id) {
		if (mop->flags & MODEL_OP_PATH_TRUNCATED) {
			set_skip(p, op, SKIP_TRUNCATED);
			return;
		}
		op->file = 0;
		op->file_flags = O_RDWR;
	} else {
		/* a page recorded without its mapping (a syscall mapped it
		 * in, or the fault found the process's mm locked) has
		 * neither ctx nor path */
		set_skip(p, op, sc->ctx || op->path ? SKIP_UNRESOLVED : SKIP_NO_MAPPING);
		return;
	}
	twin.sys = (uint16_t)sys;
	/* the last page of a file holds the file's bytes up to its end, its
	 * result (capture cuts it there): those are moved, as captured */
	if (sc->ret > 0 && (uint64_t)sc->ret < sc->count)
		twin.count = (uint64_t)sc->ret;
	plan_data(p, op, &twin, sys == RIOT_SYS_pread64 ? ACT_READ : ACT_WRITE);
	/* a page without a result of its own was moved whole */
	if (op->ret == 0)
		op->ret = (int64_t)op->count;
}

/* An asynchronous request: planned as its syscall twin, on its context's
 * stream. A registered file (IOSQE_FIXED_FILE) is an index into the ring's
 * file table: the model names its file when the log shows what the index
 * holds (a direct open, or the path capture adds), else it is unresolved.
 * io_uring:close
 * ends an fd in the ring's owner, which the stream's own fds do not
 * follow (the engine holds its own, opened by path): state. */
static void plan_async(struct replay_plan *p, struct replay_op *op,
			   const struct riot_syscall *sc, const struct model_op *mop,
			   const struct riot_sys_info *si, const struct riot_sys_sem *sem)
{
	struct riot_syscall twin = *sc;
	bool sqe = replay_uring_sqe_flags(si, sc->sys);
	int sys = replay_async_twin(sc);

	op->opflags |= OPF_ASYNC;
	if (sys < 0) {
		op->act = sem->plan == RIOT_PLAN_STATE ? ACT_STATE : ACT_UNREPLAYABLE;
		return;
	}
	if (sqe && (sc->flags & SQE_FIXED_FILE) && !op->file) {
		set_skip(p, op, SKIP_UNRESOLVED);
		return;
	}
	if (sc->sys == RIOT_SYS_mmap_read || sc->sys == RIOT_SYS_mmap_write) {
		plan_mmap_page(p, op, sc, mop, sys);
		return;
	}
	twin.sys = (uint16_t)sys;
	if (sqe)	/* the SQE's flags are no flags of the call */
		twin.flags = 0;
	if (sc->sys == RIOT_SYS_uring_fallocate)
		twin.flags = sc->mode;
	else if (sc->sys == RIOT_SYS_uring_sync_file_range)
		twin.flags = sc->cmd;
	plan_call(p, op, &twin, mop);
	if (sqe)
		op->sqe_flags = (uint8_t)(sc->flags & (SQE_IO_LINK | SQE_IO_DRAIN | SQE_IO_HARDLINK));
}

/* A file call whose arguments are not in the log: on a pipe or socket it
 * is skipped as such, like its reads. */
static void plan_not_replayed(struct replay_plan *p, struct replay_op *op,
			      const struct riot_syscall *sc, const struct model_op *mop)
{
	if (!(sc->has & RIOT_HAS_FD) || file_ok(p, op, op->file, mop))
		op->act = ACT_UNREPLAYABLE;
}

/* A call, by its plan in formats/semantics.def. */
static void plan_row(struct replay_plan *p, struct replay_op *op,
			  const struct riot_syscall *sc, const struct model_op *mop)
{
	const struct riot_sys_info *si = riot_sys_info(sc->sys);
	const struct riot_sys_sem *sem = riot_sys_sem(sc->sys);
	struct file_state *fs;

	op->act = ACT_STATE;
	if (!si || !sem)
		return;
	if (si->flags & RIOT_SF_ASYNC) {
		plan_async(p, op, sc, mop, si, sem);
		return;
	}
	switch ((enum riot_plan)sem->plan) {
	case RIOT_PLAN_NONE:	/* no row has it: test_semantics */
	case RIOT_PLAN_COUNT:
	case RIOT_PLAN_TWIN:	/* asynchronous requests only */
	case RIOT_PLAN_STATE:
		return;
	case RIOT_PLAN_SEEK:
		if (sc->ret >= 0 && op->file && (fs = file_state(p, op->file)))
			fs->pos = (uint64_t)sc->ret;
		return;
	case RIOT_PLAN_IOCTL:
		if (sc->has & RIOT_HAS_FD2)
			plan_clone(p, op, sc, mop);
		else
			plan_not_replayed(p, op, sc, mop);
		return;
	case RIOT_PLAN_NOT_REPLAYED:
		plan_not_replayed(p, op, sc, mop);
		return;
	case RIOT_PLAN_UNREPLAYABLE:
		op->act = ACT_UNREPLAYABLE;
		return;
	case RIOT_PLAN_MMAP:
		/* an mmap of a file does no I/O itself: its pages do, replayed
		 * from their records where the capture recorded them */
		if (op->file && !p->pages_recorded)
			op->act = ACT_UNREPLAYABLE;
		note_mapping(p, op, sc);
		return;
	case RIOT_PLAN_OPEN:
		if (path_ok(p, op, mop, false))
			plan_open(p, op, sc);
		return;
	case RIOT_PLAN_CLOSE:
		/* the fd went away, but dups or forks may still hold the file:
		 * decided once the model has applied the next record */
		if (file_ok(p, op, op->file, mop)) {
			op->act = ACT_CLOSE;
			p->pending_close = op->seq;
		}
		return;
	case RIOT_PLAN_CALL:
		op->act = replay_sys_act(sc->sys);
		return;
	case RIOT_PLAN_FD:
		plan_fd_op(p, op, sc, mop, replay_sys_act(sc->sys));
		return;
	case RIOT_PLAN_PATH:
		plan_path_or_file(p, op, sc, mop, replay_sys_act(sc->sys));
		return;
	case RIOT_PLAN_DATA:
		if (file_ok(p, op, op->file, mop))
			plan_data(p, op, sc, si->cls == RIOT_CLASS_DATA_READ ? ACT_READ : ACT_WRITE);
		return;
	case RIOT_PLAN_COPY:
		plan_copy(p, op, sc, mop);
		return;
	}
}

/* What to do for a call: its act, then whether a captured failure is
 * issued to fail the same way or accounted as captured (ACT_FAILED). A
 * failure accounted so loses nothing even where riot could not have
 * issued the call (its fd's file unknown: cp's copy_file_range from a
 * file outside a --path capture): it is not counted skipped. */
static void plan_call(struct replay_plan *p, struct replay_op *op, const struct riot_syscall *sc,
		     const struct model_op *mop)
{
	const struct riot_syscall *outer = p->cur;

	p->cur = sc;
	plan_row(p, op, sc, mop);
	p->cur = outer;
	if (replay_failure_issued(sc->sys, sc->ret))
		return;
	if (op->act == ACT_SKIP) {
		p->skipped[op->skip]--;
		op->skip = SKIP_NONE;
		op->act = ACT_FAILED;
	} else if (replay_act_issues(op->act)) {
		op->act = ACT_FAILED;
	}
}

/* ---- dependencies ---- */

static void dep_add(struct replay_op *op, uint64_t seq)
{
	for (unsigned i = 0; i < REPLAY_MAX_DEPS; i++) {
		if (op->dep[i] == seq)
			return;
		if (!op->dep[i]) {
			op->dep[i] = seq;
			return;
		}
	}
}

/* Whether op seq is an earlier op of op's asynchronous stream: the stream
 * keeps its own order (plan.h), and its ops may be in flight together. */
static bool same_async_stream(struct replay_plan *p, const struct replay_op *op, uint64_t seq)
{
	const struct replay_op *o = replay_plan_op(p, seq);

	return (op->opflags & OPF_ASYNC) && o->seq == seq && o->stream == op->stream;
}

static void dep_on(struct replay_plan *p, struct replay_op *op, uint64_t *last)
{
	if (!last)
		return;
	if (*last && !same_async_stream(p, op, *last))
		dep_add(op, *last);
	*last = op->seq;
}

static uint64_t *file_last(struct replay_plan *p, uint64_t id)
{
	struct file_state *fs = file_state(p, id);

	return fs ? &fs->last : NULL;
}

/* A path op also waits for the last op on its parent directory (its mkdir,
 * a rename onto it), without becoming that directory's last op itself, so
 * siblings created by different threads stay concurrent. It is noted as the
 * directory's latest child op instead (dep_children). */
static void dep_parent(struct replay_plan *p, struct replay_op *op, const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	uint32_t id;

	if (!slash || slash == path)
		return;
	id = model_path_find(p->m, path, (size_t)(slash - path));
	if (!id)
		return;
	if (id < p->npaths && p->path_last[id] && !same_async_stream(p, op, p->path_last[id]))
		dep_add(op, p->path_last[id]);
	if (GROW(p->child_last, p->nchild, id + 1, 1024) == 0)
		p->child_last[id] = op->seq;
}

/* An op on a directory itself (rmdir, rename, getdents, ...) waits for
 * every op made on paths in it since its own last op, whichever thread
 * made them: a prefix barrier up to the latest, as siblings do not order
 * among themselves. */
static void dep_children(struct replay_plan *p, struct replay_op *op, uint32_t id)
{
	if (id >= p->nchild || !p->child_last[id])
		return;
	dep_add(op, p->child_last[id] | REPLAY_DEP_PREFIX);
	p->child_last[id] = 0;
}

static void plan_deps(struct replay_plan *p, struct replay_op *op)
{
	memset(op->dep, 0, sizeof(op->dep));
	if (p->o.order == ORDER_STRICT) {
		if (op->seq > 1)
			op->dep[0] = op->seq - 1;
		return;
	}
	if (p->o.order != ORDER_RESOURCE || !replay_act_issues(op->act))
		return;
	if (op->file)
		dep_on(p, op, file_last(p, op->file));
	if (op->file2)
		dep_on(p, op, file_last(p, op->file2));
	/* The same file is one resource whichever description reaches it: an
	 * fd op also orders on its file's path (the model gives fd ops their
	 * file's path), so a read through a new open waits for the writes
	 * another process made through its own. */
	if (op->path_id) {
		if (op->act == ACT_OPEN || !op->file)
			dep_parent(p, op, op->path);
		dep_children(p, op, op->path_id);
		dep_on(p, op, path_last(p, op->path_id));
	}
	if (op->path2_id && (op->act == ACT_RENAME || op->act == ACT_LINK || op->file2)) {
		if (!op->file2)
			dep_parent(p, op, op->path2);
		dep_children(p, op, op->path2_id);
		dep_on(p, op, path_last(p, op->path2_id));
	}
}

/* The creator's op comes first among a stream's first op's deps (the
 * last slot gives way when all are taken: the others order resources). */
static void dep_first(struct replay_op *op, uint64_t seq)
{
	memmove(op->dep + 1, op->dep, sizeof(op->dep) - sizeof(op->dep[0]));
	op->dep[0] = seq;
}

/* ---- the producer loop ---- */

/* Waits until the slot of seq is free: its previous occupant completed.
 * A full window waits for REPLAY_WINDOW_REFILL slots, not one: freed one
 * at a time, every op the workers complete would wake the producer for
 * one more (a futex round trip and a context switch on each side, which
 * cost more than a cached read). Every op before seq is handed over (a
 * pending close is seq - 1 at most), so the one waited for completes. */
static void window_wait(struct replay_plan *p, uint64_t seq)
{
	uint64_t refill = seq - REPLAY_WINDOW + REPLAY_WINDOW_REFILL;

	if (seq <= REPLAY_WINDOW || seq_done(p, seq - REPLAY_WINDOW))
		return;
	while (!seq_done(p, refill))
		replay_plan_wait_op(p, refill);
	while (!seq_done(p, seq - REPLAY_WINDOW))
		replay_plan_wait_op(p, seq - REPLAY_WINDOW);
}

/* The components a relative path walks from its directory ("." and empty
 * ones aside); 0 for an absolute path, one with "..", or none. */
static uint8_t relative_walk(const char *raw)
{
	unsigned n = 0;

	if (!raw || !*raw || *raw == '/')
		return 0;
	for (const char *c = raw; *c;) {
		size_t len = strcspn(c, "/");

		if (len == 2 && c[0] == '.' && c[1] == '.')
			return 0;
		n += len && !(len == 1 && c[0] == '.');
		c += len;
		c += *c == '/';
	}
	return n > 255 ? 0 : (uint8_t)n;
}

static void op_fill(struct replay_plan *p, struct replay_op *op, const struct riot_syscall *sc,
		    const struct model_op *mop)
{
	op->t = sc->t - p->t0;
	op->dur = sc->dur;
	op->ret = sc->ret;
	op->sys = sc->sys;
	op->pid = sc->pid;
	op->tid = sc->tid;
	op->file = mop->file;
	op->file2 = mop->file2;
	op->file_flags = 0;
	op->path = mop->path;
	op->walk = relative_walk(sc->path.s);
	op->path2 = mop->path2;
	op->path_id = mop->path_id;
	op->path2_id = mop->path2_id;
	op->off = op->count = op->flags = op->arg = 0;
	op->mode = op->uid = op->gid = 0;
	op->skip = SKIP_NONE;
	op->opflags = 0;
	op->depth = 0;
	op->sqe_flags = 0;
	op->next = 0;
	op->think = THINK_START;
	op->anchor = 0;
	op->anchor_seq = 0;
	op->gap = 0;
	op->due = 0;
}

/* Sizes that stat results and truncates reveal. */
static void note_size(struct replay_plan *p, const struct replay_op *op,
		      const struct riot_syscall *sc)
{
	const struct riot_sys_info *si = riot_sys_info(sc->sys);

	if (sc->ret < 0 || !si)
		return;
	if ((si->flags & (RIOT_SF_STAT | RIOT_SF_STATX)) && (sc->has & RIOT_HAS_SIZE) &&
	    sc->ftype == S_IFREG)
		size_is(p, op->path_id, sc->size);
	else if (sc->sys == RIOT_SYS_truncate || sc->sys == RIOT_SYS_ftruncate)
		size_is(p, op->path_id, sc->off);
}

/* A path the root refuses whatever it holds (/proc, /sys, /dev; hostile
 * components; the root's marker): skipped here, in the log reader, so
 * the engine's threads need not look at an fd op's path at all
 * (replay_check_paths()). */
static void plan_refuse_paths(struct replay_plan *p, struct replay_op *op)
{
	int rc = 0;

	if (!replay_act_issues(op->act))
		return;
	if (op->path)
		rc = replay_root_check_path(op->path);
	if (!rc && op->path2 && (op->act == ACT_RENAME || op->act == ACT_LINK))
		rc = replay_root_check_path(op->path2);
	if (rc == -EXDEV)
		set_skip(p, op, SKIP_PSEUDO);
	else if (rc == -EPERM || rc == -EINVAL)
		set_skip(p, op, SKIP_HOSTILE);
}

/* A request is submitted after the calls its thread made before: it waits
 * for its thread's last op when that op had ended when it was submitted
 * (a call the thread was still in may overlap it: the ring's owner
 * blocked in io_uring_enter, another thread of the process submitting). */
static void dep_submitter(struct replay_plan *p, struct replay_op *op)
{
	struct stream_key *k = skey_slot(p, op->pid, op->tid, 0);
	const struct async_state *st;

	if (!k || !k->index || k->index == NO_STREAM)
		return;
	st = &p->astate[k->index - 1];
	if (st->last_seq && st->last_end <= op->t)
		dep_add(op, st->last_seq);
}

/* A thread's op after a child process exited since the thread's previous
 * op ended: the thread waited for the child (wait4 is not recorded), so
 * the op waits for the child's last op under every order (strict waits
 * for everything anyway), as a stream's first op waits for its creator's,
 * and under --timing think follows its end (op->anchor). Returns the
 * child's captured end, 0: no such child. */
static uint64_t dep_child(struct replay_plan *p, struct replay_op *op)
{
	const struct async_state *st = &p->astate[op->stream];
	struct stream_key *k;
	uint64_t end;

	if (!p->child_exits || (op->opflags & OPF_ASYNC) || !st->last_seq)
		return 0;
	k = skey_slot(p, op->pid, 0, PROC_CTX);
	if (!k || !k->child_seq || k->child_exit < st->last_end || k->child_exit > op->t ||
	    k->child_end <= st->last_end)
		return 0;
	if (p->o.order != ORDER_STRICT)
		dep_add(op, k->child_seq);
	op->anchor = k->child_stream;
	end = k->child_end;
	k->child_seq = 0;
	p->child_exits--;
	return end;
}

/* A page fault holds its thread: an mmap page (on its process's
 * asynchronous stream) is noted on its thread's key, and the thread's
 * next call waits for it under every order (strict waits for all). */
static void dep_fault(struct replay_plan *p, struct replay_op *op)
{
	struct stream_key *k;

	if (p->o.order == ORDER_STRICT)
		return;
	if (op->sys == RIOT_SYS_mmap_read || op->sys == RIOT_SYS_mmap_write) {
		if ((k = skey_slot(p, op->pid, op->tid, 0))) {
			p->faults += !k->fault_seq;
			k->fault_seq = op->seq;
		}
		return;
	}
	if (!p->faults || (op->opflags & OPF_ASYNC))
		return;
	k = skey_slot(p, op->pid, op->tid, 0);
	if (!k || !k->fault_seq)
		return;
	dep_add(op, k->fault_seq);
	k->fault_seq = 0;
	p->faults--;
}

/* A pipe or socketpair the log made carries bytes from one thread to
 * another: a read that got bytes waits for the last write to it before,
 * as the reader waited for those bytes, under every order (strict waits
 * for all). Neither is issued (no path): the wait orders what each
 * thread did around them (a pack written and renamed, its name written
 * down a pipe, read, and the pack opened by the reader). */
static void dep_pipe(struct replay_plan *p, struct replay_op *op)
{
	const struct riot_sys_info *si = riot_sys_info(op->sys);
	const struct model_file *mf;
	struct file_state *fs;

	if (p->o.order == ORDER_STRICT || op->skip != SKIP_NOT_A_PATH || !op->file ||
	    op->ret <= 0 || !si ||
	    (si->cls != RIOT_CLASS_DATA_READ && si->cls != RIOT_CLASS_DATA_WRITE))
		return;
	mf = model_file(p->m, op->file);
	if (!mf || !mf->pair || !(fs = file_state(p, mf->id < mf->pair ? mf->id : mf->pair)))
		return;
	if (si->cls == RIOT_CLASS_DATA_WRITE)
		fs->pipe_write = op->seq;
	else if (fs->pipe_write)
		dep_add(op, fs->pipe_write);
}

/* --timing think: what op is due after, and its captured gap (enum
 * replay_think); before its stream's state moves on to it. */
static void plan_think(struct replay_plan *p, struct replay_op *op, uint64_t after,
		       uint64_t child_end)
{
	const struct async_state *st = &p->astate[op->stream];
	struct stream_key *k;
	uint64_t from;

	op->think = THINK_START;
	op->gap = op->t;
	if (!child_end)
		op->anchor = op->stream;
	if (op->opflags & OPF_ASYNC) {
		if (st->last_seq) {
			op->think = THINK_ISSUE;
			op->gap = op->t > st->last_t ? op->t - st->last_t : 0;
			return;
		}
		/* a ring's first request: after its submitter's last call */
		k = skey_slot(p, op->pid, op->tid, 0);
		if (!k || !k->index || k->index == NO_STREAM)
			return;
		st = &p->astate[k->index - 1];
		if (!st->last_seq || st->last_end > op->t)
			return;
		op->think = THINK_END;
		op->anchor = k->index - 1;
		op->gap = op->t - st->last_end;
		return;
	}
	if (st->last_seq) {
		from = child_end ? child_end : st->last_end;
		op->think = THINK_END;
		op->gap = op->t > from ? op->t - from : 0;
	} else if (after && p->barrier_seq) {
		op->think = THINK_OP;
		op->anchor_seq = p->barrier_seq;
		op->gap = op->t > p->barrier_cend ? op->t - p->barrier_cend : 0;
	} else if (after) {
		op->think = THINK_READY;
		op->gap = op->t > p->barrier_end ? op->t - p->barrier_end : 0;
	}
}

/* Orders a filled op (its deps; after: a fork or exec's prefix barrier)
 * and hands it to its stream's lane, unless it is a close to settle. */
static int plan_hand_over(struct replay_plan *p, struct replay_op *op, uint64_t after)
{
	uint64_t child_end;

	plan_refuse_paths(p, op);
	plan_deps(p, op);
	if ((op->opflags & OPF_ASYNC) && p->o.order != ORDER_STRICT)
		dep_submitter(p, op);
	dep_fault(p, op);
	dep_pipe(p, op);
	child_end = dep_child(p, op);
	if (p->o.think)
		plan_think(p, op, after, child_end);
	p->astate[op->stream].last_seq = op->seq;
	p->astate[op->stream].last_t = op->t;
	p->astate[op->stream].last_end = op->t + op->dur;
	if (op->t + op->dur > p->max_end)
		p->max_end = op->t + op->dur;
	if (after && p->o.order != ORDER_STRICT)
		dep_first(op, after | REPLAY_DEP_PREFIX);
	p->streams[op->stream].ops++;
	p->next_seq++;
	atomic_store(&p->planned, op->seq);
	return p->pending_close != op->seq ? push_op(p, op) : 0;
}

/* A call of a process another shard replays: nothing is issued, but
 * what it does to the plan's state (file positions, sizes) is tracked
 * as in a whole replay, so this shard's ops get the same offsets. */
static void plan_other_shard(struct replay_plan *p, const struct riot_syscall *sc,
			     const struct model_op *mop)
{
	struct replay_op op = { .seq = 0 };
	uint64_t skipped[SKIP_COUNT];

	memcpy(skipped, p->skipped, sizeof(skipped));
	op_fill(p, &op, sc, mop);
	plan_call(p, &op, sc, mop);	/* seq 0: no close left pending */
	note_size(p, &op, sc);
	memcpy(p->skipped, skipped, sizeof(skipped));
}

/* The stream key of a process's mmap pages: no ring id, AIO context or
 * mapping address is this. */
#define MMAP_STREAM_CTX UINT64_MAX

static int plan_syscall(struct replay_plan *p, const struct riot_syscall *sc,
			const struct model_op *mop)
{
	const struct riot_sys_info *si = riot_sys_info(sc->sys);
	bool async = si && (si->flags & RIOT_SF_ASYNC);
	uint64_t seq = p->next_seq, after;
	struct replay_op *op;
	int stream;

	/* every shard's schedule starts at the log's first op */
	if (!p->have_t0) {
		p->t0 = sc->t;
		p->have_t0 = true;
	}
	if (!riot_shard_has_pid(&p->o.shard, sc->pid)) {
		plan_other_shard(p, sc, mop);
		return 0;
	}
	if (async) {
		/* a process's pages of all its mappings share one stream:
		 * a fault holds its thread, so they are never in flight
		 * together, and a stream per mapping would cost a ring and
		 * fds per mapping (a program maps every library it loads) */
		after = 0;
		stream = stream_of_ctx(p, sc->pid, sc->sys == RIOT_SYS_mmap_read ||
					sc->sys == RIOT_SYS_mmap_write ? MMAP_STREAM_CTX : sc->ctx);
	} else {
		stream = stream_of(p, sc->pid, sc->tid, &after);
	}
	if (stream < 0)
		return stream;
	window_wait(p, seq);
	op = replay_plan_op(p, seq);
	op->seq = seq;
	op_fill(p, op, sc, mop);
	op->stream = (uint32_t)stream;
	if (async)
		op->depth = async_depth(&p->astate[stream], op->t, op->t + op->dur);
	if (copy_text(op, mop->text) < 0)
		return -ENOMEM;
	plan_call(p, op, sc, mop);
	if (op->act == ACT_XATTR_SET && plan_value(p, op, sc) < 0)
		return -ENOMEM;
	note_size(p, op, sc);
	return plan_hand_over(p, op, after);
}

/* A file object released without a close of its own (model_released()):
 * a close op on the stream of the task whose record let it go, so replay
 * holds no more files open than the workload did. Files whose path replay
 * cannot reach were never opened by it: nothing to close. */
static int plan_release(struct replay_plan *p, const struct riot_rec *r,
			const struct model_file *mf)
{
	const char *path = model_path(p->m, mf->path_id);
	bool sys = r->type == RIOT_REC_SYSCALL;
	struct riot_syscall sc = { .sys = RIOT_SYS_close, .pid = sys ? r->sc.pid : r->proc.pid,
				   .tid = sys ? r->sc.tid : r->proc.tid,
				   .t = sys ? r->sc.t : r->proc.t };
	struct model_op mop = { .file = mf->id, .path = path, .path_id = mf->path_id };
	uint64_t seq = p->next_seq, after;
	struct replay_op *op;
	int stream;

	if (!p->have_t0 || !path || path[0] != '/' || (mf->flags & MODEL_FILE_TRUNCATED) ||
	    !riot_shard_has_pid(&p->o.shard, sc.pid))
		return 0;
	if (sc.t < p->t0)
		sc.t = p->t0;
	stream = stream_of(p, sc.pid, sc.tid, &after);
	if (stream < 0)
		return stream;
	window_wait(p, seq);
	op = replay_plan_op(p, seq);
	op->seq = seq;
	op_fill(p, op, &sc, &mop);
	op->file_flags = mf->open_flags;
	op->opflags = OPF_RELEASE;
	op->act = ACT_CLOSE;
	op->stream = (uint32_t)stream;
	if (copy_text(op, NULL) < 0)
		return -ENOMEM;
	return plan_hand_over(p, op, after);
}

/* The implicit closes of the record just applied; a close syscall's own
 * file is its own close op's business. */
static int plan_releases(struct replay_plan *p, const struct riot_rec *r)
{
	const struct model_file *mf;
	int rc = 0;

	if (r->type == RIOT_REC_SYSCALL && r->sc.sys == RIOT_SYS_close)
		return 0;
	if (r->type != RIOT_REC_SYSCALL && r->type != RIOT_REC_PROC)
		return 0;
	for (uint32_t i = 0; !rc && (mf = model_released(p->m, i)); i++)
		rc = plan_release(p, r, mf);
	return rc;
}

/* A close releases the file object only when no other fd holds it; the
 * model frees released objects at the next record, so the close is
 * handed over then: a real close, or only the fd's end (state). */
static int close_settle(struct replay_plan *p, bool at_end)
{
	struct replay_op *op = replay_plan_op(p, p->pending_close);

	if (!at_end && model_file(p->m, op->file))
		op->act = ACT_STATE;
	p->pending_close = 0;
	return push_op(p, op);
}

/* The run's first error says what went wrong; what follows from it
 * (strerror of the code passed up) does not replace it. */
static void plan_fail(struct replay_plan *p, const char *why)
{
	if (!p->err[0])
		snprintf(p->err, sizeof(p->err), "%s", why);
}

int replay_plan_run(struct replay_plan *p)
{
	struct riot_rec rec;
	struct model_op mop;
	int rc;

	while ((rc = riot_reader_next(p->rd, &rec)) > 0) {
		rc = model_apply(p->m, &rec, &mop);
		if (rc < 0) {
			plan_fail(p, model_strerror(rc));
			break;
		}
		if (p->pending_close && (rc = close_settle(p, false)) < 0)
			break;
		if ((rc = plan_releases(p, &rec)) < 0) {
			plan_fail(p, strerror(-rc));
			break;
		}
		/* an fd open before the capture starts where the snapshot found
		 * its file position */
		if (rec.type == RIOT_REC_SNAP_FD && mop.file) {
			struct file_state *fs = file_state(p, mop.file);
			const struct model_file *mf = model_file(p->m, mop.file);

			if (fs)
				fs->pos = rec.sfd.pos;
			if (mf && rec.sfd.ftype == S_IFREG)
				size_is(p, mf->path_id, rec.sfd.size);
		}
		if ((rec.type == RIOT_REC_PROC || rec.type == RIOT_REC_SNAP_PROC) && p->o.on_proc)
			p->o.on_proc(p->o.proc_ctx, &rec);
		if (rec.type == RIOT_REC_PROC) {
			if (!p->first_proc || rec.proc.t < p->first_proc)
				p->first_proc = rec.proc.t;
			if (rec.proc.kind == RIOT_PROC_EXIT && rec.proc.t > p->last_exit)
				p->last_exit = rec.proc.t;
		}
		if (rec.type == RIOT_REC_PROC && (rc = note_proc(p, &rec.proc)) < 0) {
			plan_fail(p, strerror(-rc));
			break;
		}
		if (rec.type != RIOT_REC_SYSCALL)
			continue;
		rc = plan_syscall(p, &rec.sc, &mop);
		if (rc < 0) {
			plan_fail(p, strerror(-rc));
			break;
		}
	}
	if (p->pending_close) {
		int crc = close_settle(p, true);

		if (crc < 0 && rc >= 0)
			rc = crc;
	}
	if (rc < 0)
		plan_fail(p, riot_reader_error(p->rd));
	p->log_complete = riot_reader_complete(p->rd);
	atomic_store(&p->finished, true);
	return rc < 0 ? rc : 0;
}

struct replay_plan *replay_plan_new(const struct replay_plan_opts *o, char *err, size_t errlen)
{
	struct replay_plan *p = calloc(1, sizeof(*p));

	if (!p) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	p->o = *o;
	p->next_seq = 1;
	p->rd = riot_reader_open_logs(o->logs, err, errlen);
	if (!p->rd) {
		int e = errno;

		free(p);
		errno = e;
		return NULL;
	}
	map_init(&p->map_index, map_seed());
	map_init(&p->skey_ix, map_seed());
	{
		const struct riot_log_header *h = riot_reader_header(p->rd);

		p->pages_recorded = h->fallbacks_known && h->fallbacks &&
				    !strstr(h->fallbacks, "no-mmap-fault");
	}
	p->m = model_new();
	p->win = calloc(REPLAY_WINDOW, sizeof(*p->win));
	if (o->think)
		p->clocks = calloc(CLOCK_CHUNKS, sizeof(*p->clocks));
	if (!p->m || !p->win || (o->think && !p->clocks)) {
		snprintf(err, errlen, "out of memory");
		replay_plan_free(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

void replay_plan_free(struct replay_plan *p)
{
	if (!p)
		return;
	/* only the slots ever used: the rest of the window was never touched
	 * and reading it would only fault its pages in */
	for (uint64_t i = 0; p->win && i < REPLAY_WINDOW && i < p->next_seq; i++) {
		free(p->win[i].text);
		free(p->win[i].value);
	}
	free(p->win);
	model_free(p->m);
	riot_reader_close(p->rd);
	free(p->files);
	free(p->path_last);
	free(p->child_last);
	free(p->path_size);
	for (uint32_t i = 0; i < p->nstreams; i++)
		free(p->astate[i].ends);
	free(p->astate);
	free(p->maps);
	map_fini(&p->map_index);
	free(p->streams);
	free(p->stream_lane);
	free(p->skeys);
	map_fini(&p->skey_ix);
	for (uint32_t i = 0; p->clocks && i < CLOCK_CHUNKS && p->clocks[i]; i++)
		free(p->clocks[i]);
	free(p->clocks);
	free(p);
}
