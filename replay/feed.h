/* replay/feed.h: what riot replay --top hands its view. Every issued op
 * that replay_account() sees (its tap, replay_stats_tap()) goes, from whichever thread accounted it,
 * into a bounded queue of many producers and one consumer (the command's
 * thread, which draws); an op that finds the queue full is counted lost,
 * never waited for: the view must not slow the replay it shows. */
#ifndef RIOT_REPLAY_FEED_H
#define RIOT_REPLAY_FEED_H

#include <stdbool.h>
#include <stdint.h>

#include "replay/plan.h"
#include "replay/stats.h"

enum replay_seen_kind { SEEN_OP, SEEN_NAME, SEEN_FORK /* pid: the child, tid: its parent */ };

struct replay_seen {
	uint8_t kind;
	uint16_t sys;		/* SEEN_OP: RIOT_SYS_* */
	uint32_t pid, tid;
	uint64_t t_ns, lat_ns;	/* issue, ns after the start; latency */
	int64_t delay_ns;	/* issue delay against the schedule; < 0: none */
	int64_t result;
	char text[104];		/* SEEN_OP: the captured path's tail;
				 * SEEN_NAME: the process's name */
};

struct replay_feed;
/* A queue of 2^order entries; NULL on ENOMEM. */
struct replay_feed *replay_feed_new(unsigned order);
void replay_feed_free(struct replay_feed *f);
/* An op accounted (replay_account()'s tap, ctx: the feed): queued when
 * issued. */
void replay_feed_op(void *ctx, const struct replay_op *op, const struct replay_done *d);
/* A process's name (the plan's on_proc hook, ctx: the feed). */
void replay_feed_proc(void *ctx, const struct riot_rec *r);
/* The oldest entry, into out; false when there is none. One thread. */
bool replay_feed_take(struct replay_feed *f, struct replay_seen *out);
/* Entries dropped because the queue was full. */
uint64_t replay_feed_lost(const struct replay_feed *f);

#endif
