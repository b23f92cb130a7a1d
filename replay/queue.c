/* replay/queue.c: the queue of op seqs from the plan's producer to one
 * engine thread (queue.h). */
#include <errno.h>
#include <stdlib.h>

#include "replay/queue.h"

static int queue_grow(struct replay_queue *q)
{
	size_t cap = q->cap ? q->cap * 2 : 256;
	uint64_t *a = malloc(cap * sizeof(*a));

	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < q->len; i++)
		a[i] = q->q[(q->head + i) & (q->cap - 1)];
	free(q->q);
	q->q = a;
	q->head = 0;
	q->cap = cap;
	return 0;
}

int replay_queue_init(struct replay_queue *q)
{
	*q = (struct replay_queue){ 0 };
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	return queue_grow(q);
}

int replay_queue_push(struct replay_queue *q, uint64_t seq)
{
	pthread_mutex_lock(&q->lock);
	if (q->len == q->cap && queue_grow(q) < 0) {
		pthread_mutex_unlock(&q->lock);
		return -ENOMEM;
	}
	q->q[(q->head + q->len) & (q->cap - 1)] = seq;
	q->len++;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

int replay_queue_take(struct replay_queue *q, bool wait, uint64_t *seqs, unsigned max)
{
	unsigned n = 0;
	int rc;

	pthread_mutex_lock(&q->lock);
	while (wait && !q->len && !q->closed)
		pthread_cond_wait(&q->cond, &q->lock);
	for (; n < max && q->len; n++) {
		seqs[n] = q->q[q->head];
		q->head = (q->head + 1) & (q->cap - 1);
		q->len--;
	}
	rc = n ? (int)n : q->closed ? -1 : 0;
	pthread_mutex_unlock(&q->lock);
	return rc;
}

int replay_queue_pop(struct replay_queue *q, bool wait, uint64_t *seq)
{
	return replay_queue_take(q, wait, seq, 1);
}

void replay_queue_close(struct replay_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

void replay_queue_free(struct replay_queue *q)
{
	free(q->q);
	q->q = NULL;
	q->len = q->cap = 0;
}
