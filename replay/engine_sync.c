/* replay/engine_sync.c: the baseline engine (engine.h). One OS thread per
 * stream issues its ops with plain blocking syscalls on real fds, under the
 * same plan, ordering and schedule as the io_uring engine. A log with more
 * streams than REPLAY_MAX_THREADS shares threads between streams (each
 * thread still issues in log order, so dependencies cannot deadlock); the
 * summary says so. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "replay/drive.h"
#include "replay/engine.h"
#include "replay/exec.h"
#include "replay/pace.h"
#include "replay/queue.h"

/* The first SYNC_SHARDS threads keep statistics of their own, without a
 * lock; threads beyond them share SYNC_SHARDS more, under locks. */
#define SYNC_SHARDS 8

/* A thread and its queue of op seqs, in log order. */
struct sync_lane {
	struct replay_queue q;
	pthread_t th;
	bool started;
	bool split_looked;	/* looked whether it is the only lane */
	unsigned shard;
	struct sync_engine *e;
};

struct sync_shard {
	pthread_mutex_t lock;
	struct replay_stats stats;
};

struct sync_engine {
	struct replay_ctx *cx;
	struct sync_lane *lanes[REPLAY_MAX_THREADS];
	unsigned nlanes;
	struct sync_shard shards[2 * SYNC_SHARDS];
	struct replay_fdmap *fds;	/* file object -> real fd (exec.h) */
	_Atomic uint64_t reopened;
	struct replay_pace pace;
	bool private_fds;	/* the one lane's fds are in a table of its own */
};

static int sync_push(void *eng, unsigned lane, uint64_t seq)
{
	struct sync_engine *e = eng;

	return replay_queue_push(&e->lanes[lane]->q, seq);
}

/* The real fd of op's file (second: file2): exec.h. */
static int file_fd(struct sync_engine *e, const struct replay_op *op, bool second)
{
	bool reopened = false;
	int fd = replay_files_fd(e->cx, e->fds, op, second, &reopened);

	if (reopened)
		atomic_fetch_add(&e->reopened, 1);
	return fd;
}

/* Everything but the call itself happens before the clock starts: the
 * real fds of the op's files (a reopen of an fd from before the capture)
 * and the confinement lookups. A lookup that fails is the call's result,
 * timed as long as the lookup took (the program's call failed in its own
 * path walk). */
static int64_t sync_issue(void *arg, const struct replay_op *op, struct replay_issue *is)
{
	struct sync_engine *e = arg;
	int fd = -1, fd2 = -1;
	int64_t rc = 0, f;

	if (op->act == ACT_CLOSE) {
		f = replay_fdmap_take(e->fds, op->file);
		/* a file this run never opened (an fd from before the
		 * capture, never used): nothing to close */
		rc = f == REPLAY_OPEN_FAILED ? -EBADF : 0;
		fd = (int)f;
	} else {
		if (op->file && op->act != ACT_OPEN)
			rc = fd = file_fd(e, op, false);
		if (rc >= 0 && op->file2)
			rc = fd2 = file_fd(e, op, true);
	}
	if (rc < 0 || (op->act == ACT_CLOSE && fd < 0)) {
		replay_issue_start(is);
		is->t1 = is->t0;
		return rc;
	}
	rc = replay_exec_timed(e->cx, op, fd, fd2, is);
	if (op->act == ACT_OPEN)
		replay_files_opened(e->fds, op, rc);
	return rc;
}

/* A table of fds shared by more than one thread costs every call on an fd
 * an atomic reference on its file (the kernel's fdget() takes the fast way
 * only when the calling task's table is its own): about 45 ns a call, 9 %
 * of a cached 1-byte pread (benchmarks/floor.sh's shared floor against its
 * measured one). A single-threaded program paid none of it; riot's log
 * reader, sampler and main thread share the lanes' table. So once the log
 * is planned and one lane has all the streams (one captured thread), that
 * lane takes a copy of the table for itself (unshare(CLONE_FILES)) and a
 * thread left in the old one closes the replayed files' fds there, before
 * the lane issues another call: each file keeps one reference, the
 * lane's, and a replayed close is still its last (ext4 flushes a
 * truncated file's blocks at that close, as it did for the program). The
 * fds left in the table at the end are closed with it, when the lane
 * exits; sync_destroy() must not close their numbers in the old one.
 * Multi-threaded traces keep one table, as the captured threads did. */
struct fd_split {
	sem_t go;
	bool cancel;
	struct replay_fdmap *fds;
};

static void *close_in_shared(void *arg)
{
	struct fd_split *s = arg;

	while (sem_wait(&s->go) < 0)
		;
	if (!s->cancel)
		replay_fdmap_close(s->fds);
	return NULL;
}

static void lane_go_alone(struct sync_engine *e)
{
	struct fd_split s = { .fds = e->fds };
	pthread_t th;

	if (sem_init(&s.go, 0, 0) < 0)
		return;
	if (replay_thread_start(&th, REPLAY_THREAD_STACK, close_in_shared, &s)) {
		s.cancel = unshare(CLONE_FILES) < 0;
		sem_post(&s.go);
		pthread_join(th, NULL);
		e->private_fds = !s.cancel;
	}
	sem_destroy(&s.go);
}

/* The thread takes what its queue holds, up to SYNC_BATCH seqs under one
 * lock, and fetches each op's memory while the one before it runs. */
#define SYNC_BATCH 64

static void *sync_thread(void *arg)
{
	struct sync_lane *l = arg;
	uint64_t seqs[SYNC_BATCH];
	int n;

	prctl(PR_SET_TIMERSLACK, 1UL);
	replay_ctx_wait_gate(l->e->cx);
	struct sync_engine *e = l->e;
	struct sync_shard *sh = &e->shards[l->shard];
	pthread_mutex_t *lock = l->shard < SYNC_SHARDS ? NULL : &sh->lock;
	struct replay_plan *plan = e->cx->plan;
	while ((n = replay_queue_take(&l->q, true, seqs, SYNC_BATCH)) > 0) {
		if (!l->split_looked && replay_plan_finished(plan)) {
			l->split_looked = true;
			if (e->nlanes == 1)
				lane_go_alone(e);
		}
		for (int i = 0; i < n; i++) {
			if (i + 1 < n)
				replay_op_prefetch(replay_plan_op(plan, seqs[i + 1]));
			replay_drive_op(e->cx, &e->pace, &sh->stats, lock,
					replay_plan_op(plan, seqs[i]), sync_issue, e);
		}
	}
	replay_scratch_release();
	return NULL;
}

static struct sync_lane *lane_new(struct sync_engine *e, unsigned i)
{
	struct sync_lane *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->e = e;
	l->shard = i < SYNC_SHARDS ? i : SYNC_SHARDS + i % SYNC_SHARDS;
	if (replay_queue_init(&l->q) < 0)
		goto fail;
	l->started = replay_thread_start(&l->th, REPLAY_THREAD_STACK, sync_thread, l);
	if (l->started)
		return l;
fail:
	replay_queue_free(&l->q);
	free(l);
	return NULL;
}

static int sync_route(void *eng, uint32_t stream, uint32_t pid)
{
	struct sync_engine *e = eng;

	if (stream == 0)
		return 0;
	if (e->nlanes < REPLAY_MAX_THREADS) {
		struct sync_lane *l = lane_new(e, e->nlanes);

		if (l) {
			e->lanes[e->nlanes] = l;
			return (int)e->nlanes++;
		}
	}
	return (int)(stream % e->nlanes);
}

static void *sync_create(struct replay_ctx *cx, char *err, size_t errlen)
{
	struct sync_engine *e = calloc(1, sizeof(*e));

	if (!e || !(e->fds = replay_fdmap_new())) {
		free(e);
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	e->cx = cx;
	replay_pace_init(&e->pace, cx, REPLAY_SPIN_NS);
	for (unsigned i = 0; i < 2 * SYNC_SHARDS; i++) {
		pthread_mutex_init(&e->shards[i].lock, NULL);
		replay_stats_init(&e->shards[i].stats);
	}
	return e;
}

/* The first lane exists before any stream, so routing always has one. */
static int sync_start(void *eng, char *err, size_t errlen)
{
	struct sync_engine *e = eng;

	e->lanes[0] = lane_new(e, 0);
	if (!e->lanes[0]) {
		snprintf(err, errlen, "cannot start a replay thread");
		return -EAGAIN;
	}
	e->nlanes = 1;
	return 0;
}

static int sync_finish(void *eng, struct replay_stats *total)
{
	struct sync_engine *e = eng;
	int rc = 0;

	for (unsigned i = 0; i < e->nlanes; i++)
		replay_queue_close(&e->lanes[i]->q);
	for (unsigned i = 0; i < e->nlanes; i++)
		pthread_join(e->lanes[i]->th, NULL);
	for (unsigned i = 0; i < 2 * SYNC_SHARDS && !rc; i++)
		rc = replay_stats_merge(total, &e->shards[i].stats);
	total->reopened += atomic_load(&e->reopened);
	return rc;
}

static void sync_destroy(void *eng)
{
	struct sync_engine *e = eng;

	if (!e)
		return;
	for (unsigned i = 0; i < e->nlanes; i++) {
		replay_queue_free(&e->lanes[i]->q);
		free(e->lanes[i]);
	}
	for (unsigned i = 0; i < 2 * SYNC_SHARDS; i++)
		replay_stats_free(&e->shards[i].stats);
	if (e->private_fds) {
		/* closed with the lane's table */
		replay_fdmap_free(e->fds);
		free(e->fds);
	} else {
		replay_files_free(e->fds);
	}
	free(e);
}

static unsigned sync_threads(void *eng)
{
	return ((struct sync_engine *)eng)->nlanes;
}

const struct replay_engine replay_engine_sync = {
	.name = "sync",
	.report_name = "sync",
	.help = "one thread per captured thread (up to 1024), issuing\n"
		"the captured calls as blocking syscalls, as the program\n"
		"did: what it measures is what the filesystem imposes on\n"
		"each call",
	.threads = sync_threads,
	.create = sync_create,
	.route = sync_route,
	.push = sync_push,
	.start = sync_start,
	.finish = sync_finish,
	.destroy = sync_destroy,
};
