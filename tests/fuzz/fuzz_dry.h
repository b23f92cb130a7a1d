/* tests/fuzz/fuzz_dry.h: what the planners' fuzz targets share: a log
 * file through the replay plan and the init plan, as `riot replay
 * --dry-run` takes it (the model under both). */
#ifndef RIOT_TESTS_FUZZ_DRY_H
#define RIOT_TESTS_FUZZ_DRY_H

#include <stdint.h>

#include "formats/log.h"
#include "replay/init.h"
#include "replay/plan.h"

struct dry {
	struct replay_plan *plan;
	uint64_t ops;
};

static int dry_route(void *eng, uint32_t stream, uint32_t pid)
{
	(void)eng;
	(void)stream;
	(void)pid;
	return 0;
}

static int dry_push(void *eng, unsigned lane, uint64_t seq)
{
	struct dry *d = eng;
	struct replay_op *op = replay_plan_op(d->plan, seq);

	(void)lane;
	d->ops++;
	replay_op_complete(d->plan, op);
	return 0;
}

static int count_entry(const struct init_entry *e, void *arg)
{
	(void)e;
	++*(uint64_t *)arg;
	return 0;
}

static void dry_run(const char *path)
{
	struct dry d = { 0 };
	struct replay_plan_opts po = { .logs = RIOT_LOGS_ONE(path), .order = ORDER_RESOURCE,
				       .route = dry_route, .push = dry_push, .eng = &d };
	struct init_result res;
	uint64_t entries = 0;
	char err[512];

	d.plan = replay_plan_new(&po, err, sizeof(err));
	if (d.plan) {
		(void)replay_plan_run(d.plan);
		replay_plan_free(d.plan);
	}
	(void)replay_init_plan(RIOT_LOGS_ONE(path), NULL, count_entry, &entries, &res, err, sizeof(err));
}

#endif
