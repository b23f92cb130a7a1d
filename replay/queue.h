/* replay/queue.h: the queue of one engine thread (queue.c), private to
 * replay/.
 *
 * Op seqs handed by the plan's producer to one thread, in log order: a
 * ring that grows (its capacity a power of two), under a lock. */
#ifndef RIOT_REPLAY_QUEUE_H
#define RIOT_REPLAY_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct replay_queue {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t *q;
	size_t head, len, cap;
	bool closed;
};
int replay_queue_init(struct replay_queue *q);	/* 0, -ENOMEM */
int replay_queue_push(struct replay_queue *q, uint64_t seq);	/* 0, -ENOMEM */
/* The next seq: 1; 0 when there is none (with wait, sleeps until one
 * comes or the queue is closed); -1 when closed and empty. */
int replay_queue_pop(struct replay_queue *q, bool wait, uint64_t *seq);
/* Up to max seqs at once, under one lock: how many (> 0); 0 and -1 as
 * replay_queue_pop(). */
int replay_queue_take(struct replay_queue *q, bool wait, uint64_t *seqs, unsigned max);
/* No more seqs will come: wakes the thread. */
void replay_queue_close(struct replay_queue *q);
void replay_queue_free(struct replay_queue *q);

#endif
