/* replay/async.h: asynchronous streams (async.c), private to replay/.
 *
 * The streams of the program's own io_uring rings, AIO contexts and file
 * mappings (plan.h) go to these, whichever engine runs the threads: each
 * gets a thread and an io_uring of its own and keeps up to each request's
 * captured depth in flight, in captured order, with its links and drains.
 * The plan routes and pushes to them (replay_plan_opts.route_async,
 * push_async) from its producer thread. */
#ifndef RIOT_REPLAY_ASYNC_H
#define RIOT_REPLAY_ASYNC_H

#include "replay/engine.h"

struct replay_async;
/* NULL + errno. */
struct replay_async *replay_async_new(struct replay_ctx *cx);
int replay_async_route(void *ra, uint32_t stream, uint32_t pid);
int replay_async_push(void *ra, unsigned lane, uint64_t seq);
/* Waits for every op, merges the streams' stats (and their depths, per
 * stream) into total. */
int replay_async_finish(struct replay_async *ra, struct replay_stats *total);
unsigned replay_async_threads(const struct replay_async *ra);
void replay_async_free(struct replay_async *ra);

#endif
