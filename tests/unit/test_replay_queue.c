/* replay/queue.c: the queue of op seqs from the plan's producer to one
 * engine thread. Seqs come out in the order they went in, one at a time
 * or in batches, across the ring's wrap and its growth; a closed queue
 * gives what it still holds, then -1; another thread's push wakes a
 * waiting take. */
#include <pthread.h>
#include <unistd.h>

#include "replay/queue.h"
#include "tests/unit/unit.h"

static void order_across_wrap_and_growth(void)
{
	struct replay_queue q;
	uint64_t got[64], next_in = 1, next_out = 1;
	int n;

	CHECK_EQ(replay_queue_init(&q), 0);
	/* in 7s, out in batches of up to 5 and single pops: the head walks
	 * round the ring of 256 while it grows to 1024 */
	for (unsigned round = 0; round < 400; round++) {
		for (unsigned i = 0; i < 7; i++)
			CHECK_EQ(replay_queue_push(&q, next_in++), 0);
		if (round % 3 == 0) {
			CHECK_EQ(replay_queue_pop(&q, false, &got[0]), 1);
			CHECK_U64(got[0], next_out);
			next_out++;
		} else if (round % 2) {
			n = replay_queue_take(&q, false, got, 5);
			CHECK_EQ(n, 5);
			for (int i = 0; i < n; i++)
				CHECK_U64(got[i], next_out + (uint64_t)i);
			next_out += (uint64_t)n;
		}
	}
	CHECK(q.cap >= 1024);
	CHECK_EQ(q.cap & (q.cap - 1), 0);
	while ((n = replay_queue_take(&q, false, got, 64)) > 0) {
		for (int i = 0; i < n; i++)
			CHECK_U64(got[i], next_out + (uint64_t)i);
		next_out += (uint64_t)n;
	}
	CHECK_EQ(n, 0);		/* empty, not closed */
	CHECK_U64(next_out, next_in);
	replay_queue_close(&q);
	CHECK_EQ(replay_queue_take(&q, true, got, 64), -1);
	CHECK_EQ(replay_queue_pop(&q, true, got), -1);
	replay_queue_free(&q);
}

static void closed_gives_what_it_holds(void)
{
	struct replay_queue q;
	uint64_t got[4];

	CHECK_EQ(replay_queue_init(&q), 0);
	for (uint64_t s = 10; s < 16; s++)
		CHECK_EQ(replay_queue_push(&q, s), 0);
	replay_queue_close(&q);
	CHECK_EQ(replay_queue_take(&q, true, got, 4), 4);
	CHECK_U64(got[0], 10);
	CHECK_U64(got[3], 13);
	CHECK_EQ(replay_queue_take(&q, true, got, 4), 2);
	CHECK_U64(got[0], 14);
	CHECK_U64(got[1], 15);
	CHECK_EQ(replay_queue_take(&q, true, got, 4), -1);
	replay_queue_free(&q);
}

static void *producer(void *arg)
{
	struct replay_queue *q = arg;

	for (uint64_t s = 1; s <= 100000; s++) {
		if (replay_queue_push(q, s) < 0)
			break;
		if (s % 10000 == 0)
			usleep(1000);	/* the taker finds it empty and waits */
	}
	replay_queue_close(q);
	return NULL;
}

static void another_thread_wakes_a_take(void)
{
	struct replay_queue q;
	pthread_t th;
	uint64_t got[64], expect = 1;
	int n;

	CHECK_EQ(replay_queue_init(&q), 0);
	CHECK_EQ(pthread_create(&th, NULL, producer, &q), 0);
	while ((n = replay_queue_take(&q, true, got, 64)) > 0)
		for (int i = 0; i < n; i++)
			if (got[i] == expect)
				expect++;
	pthread_join(th, NULL);
	CHECK_EQ(n, -1);
	CHECK_U64(expect, 100001);	/* every seq, once, in order */
	replay_queue_free(&q);
}

int main(void)
{
	order_across_wrap_and_growth();
	closed_gives_what_it_holds();
	another_thread_wakes_a_take();
	return unit_done();
}
