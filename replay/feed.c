/* replay/feed.c: the queue of riot replay --top (feed.h): a bounded queue
 * of many producers and one consumer, each slot stamped with the turn it
 * holds (the producers claim a turn with one compare-and-swap; a slot is
 * read once its stamp says it was written). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/feed.h"

struct slot {
	_Atomic uint64_t turn;	/* pos: free for the producer of pos;
				 * pos + 1: holds pos's entry */
	struct replay_seen v;
};

struct replay_feed {
	struct slot *slots;
	uint64_t mask;
	_Atomic uint64_t head;	/* next turn a producer claims */
	uint64_t tail;		/* next turn the consumer reads */
	_Atomic uint64_t lost;
};

struct replay_feed *replay_feed_new(unsigned order)
{
	struct replay_feed *f = calloc(1, sizeof(*f));
	uint64_t n = 1ull << order;

	if (!f || !(f->slots = calloc(n, sizeof(*f->slots)))) {
		free(f);
		return NULL;
	}
	f->mask = n - 1;
	for (uint64_t i = 0; i < n; i++)
		atomic_init(&f->slots[i].turn, i);
	return f;
}

void replay_feed_free(struct replay_feed *f)
{
	if (!f)
		return;
	free(f->slots);
	free(f);
}

/* A turn's slot for the caller to fill, NULL when the queue is full. */
static struct slot *claim(struct replay_feed *f, uint64_t *turn)
{
	uint64_t pos = atomic_load_explicit(&f->head, memory_order_relaxed);

	for (;;) {
		struct slot *s = &f->slots[pos & f->mask];
		uint64_t t = atomic_load_explicit(&s->turn, memory_order_acquire);

		if (t == pos) {
			if (atomic_compare_exchange_weak_explicit(&f->head, &pos, pos + 1,
								  memory_order_relaxed,
								  memory_order_relaxed)) {
				*turn = pos;
				return s;
			}
		} else if (t < pos) {
			atomic_fetch_add_explicit(&f->lost, 1, memory_order_relaxed);
			return NULL;
		} else {
			pos = atomic_load_explicit(&f->head, memory_order_relaxed);
		}
	}
}

static void publish(struct slot *s, uint64_t turn)
{
	atomic_store_explicit(&s->turn, turn + 1, memory_order_release);
}

/* the tail of s that fits in out (its end names the file) */
static void tail_copy(char *out, size_t len, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n >= len)
		s += n - (len - 1), n = len - 1;
	if (n)
		memcpy(out, s, n);
	out[n] = 0;
}

void replay_feed_op(void *ctx, const struct replay_op *op, const struct replay_done *d)
{
	struct replay_feed *f = ctx;
	struct slot *s;
	uint64_t turn;

	if (!f || !d->issued || !(s = claim(f, &turn)))
		return;
	s->v.kind = SEEN_OP;
	s->v.sys = op->sys;
	s->v.pid = op->pid;
	s->v.tid = op->tid;
	s->v.t_ns = d->t_ns;
	s->v.lat_ns = d->lat_ns;
	s->v.delay_ns = d->delay_ns;
	s->v.result = d->result;
	tail_copy(s->v.text, sizeof(s->v.text), op->path);
	publish(s, turn);
}

void replay_feed_proc(void *ctx, const struct riot_rec *r)
{
	struct replay_feed *f = ctx;
	const struct riot_str *comm = NULL;
	struct slot *s;
	uint64_t turn;
	uint32_t pid = 0;

	if (r->type == RIOT_REC_PROC && r->proc.kind == RIOT_PROC_FORK &&
	    r->proc.child_pid != r->proc.pid) {
		if (!(s = claim(f, &turn)))
			return;
		memset(&s->v, 0, sizeof(s->v));
		s->v.kind = SEEN_FORK;
		s->v.pid = r->proc.child_pid;
		s->v.tid = r->proc.pid;
		publish(s, turn);
		return;
	}
	if (r->type == RIOT_REC_SNAP_PROC)
		comm = &r->sproc.comm, pid = r->sproc.pid;
	else if (r->type == RIOT_REC_PROC && r->proc.kind == RIOT_PROC_EXEC)
		comm = &r->proc.comm, pid = r->proc.pid;
	if (!comm || !comm->s || !(s = claim(f, &turn)))
		return;
	memset(&s->v, 0, sizeof(s->v));
	s->v.kind = SEEN_NAME;
	s->v.pid = pid;
	snprintf(s->v.text, sizeof(s->v.text), "%.15s", comm->s);
	publish(s, turn);
}

bool replay_feed_take(struct replay_feed *f, struct replay_seen *out)
{
	struct slot *s = &f->slots[f->tail & f->mask];

	if (atomic_load_explicit(&s->turn, memory_order_acquire) != f->tail + 1)
		return false;
	*out = s->v;
	atomic_store_explicit(&s->turn, f->tail + f->mask + 1, memory_order_release);
	f->tail++;
	return true;
}

uint64_t replay_feed_lost(const struct replay_feed *f)
{
	return atomic_load_explicit(&f->lost, memory_order_relaxed);
}
