/* tests/unit/test_replay_timing.c: whether a paced replay kept its schedule
 * (replay/stats.h) and the engine table (replay/engine.h), without running
 * a replay: issue delays are accounted as an engine would, and the verdict
 * and its warning line are checked exactly at the thresholds; a call's
 * latency is its clock's reading less the calibrated clock bias. */
#include <stdlib.h>
#include <string.h>

#include "replay/drive.h"
#include "replay/engine.h"
#include "replay/pace.h"
#include "replay/stats.h"
#include "tests/unit/unit.h"

/* Accounts one issued op with the given issue delay (< 0: unpaced). */
static void account(struct replay_stats *s, int64_t delay_ns)
{
	struct replay_op op = { .seq = 1, .act = ACT_FSYNC, .sys = RIOT_SYS_fsync };
	struct replay_done d = { .issued = true, .lat_ns = 1000, .delay_ns = delay_ns };

	replay_account(s, NULL, &op, &d);
}

static void check_verdict(const int64_t *delays, unsigned n, bool kept, uint64_t late)
{
	struct replay_stats s;
	struct replay_timing t;
	char line[256];

	replay_stats_init(&s);
	for (unsigned i = 0; i < n; i++)
		account(&s, delays[i]);
	replay_timing_of(&s, &t);
	CHECK_EQ(t.kept, kept);
	CHECK_U64(t.late, late);
	replay_timing_warning(&t, line, sizeof(line));
	CHECK(strncmp(line, "warning: timing not kept: ", 26) == 0);
	replay_stats_free(&s);
}

static void test_verdicts(void)
{
	int64_t d[200];

	/* unpaced: no schedule, nothing to keep */
	for (unsigned i = 0; i < 200; i++)
		d[i] = -1;
	check_verdict(d, 200, true, 0);
	/* every op on time */
	for (unsigned i = 0; i < 200; i++)
		d[i] = 20000;
	check_verdict(d, 200, true, 0);
	/* one op in 200 at 5 ms: p99 stays on time, max under 10 ms */
	d[7] = 5000000;
	check_verdict(d, 200, true, 1);
	/* one op over 10 ms late is enough */
	d[7] = 10000001 + 200000;
	check_verdict(d, 200, false, 1);
	/* 3 ops in 200 (1.5 %) at 2 ms: p99 over 1 ms */
	d[7] = d[8] = d[9] = 2000000;
	check_verdict(d, 200, false, 3);
	/* exactly 1 ms late is not late */
	for (unsigned i = 0; i < 200; i++)
		d[i] = 1000000;
	check_verdict(d, 200, true, 0);
}

static void test_warning_text(void)
{
	struct replay_timing t = { .kept = false, .paced = 200, .late = 3,
				   .p99_ns = 2000000, .max_ns = 12500000 };
	char line[256];

	static const char want[] = "warning: timing not kept: issue delay p99 2.00 ms, "
		"max 12.50 ms; 3 of 200 paced ops (1.5 %) issued over 1 ms late";

	replay_timing_warning(&t, line, sizeof(line));
	if (strcmp(line, want) != 0)
		fprintf(stderr, "warning line: %s\n", line);
	CHECK(strcmp(line, want) == 0);
}

static void test_engine_table(void)
{
	char names[256];

	CHECK(replay_nengines >= 2);
	for (unsigned i = 0; i < replay_nengines; i++) {
		const struct replay_engine *e = replay_engines[i];

		CHECK(e->name && e->report_name && e->help && e->create && e->route &&
		      e->push && e->start && e->finish && e->destroy && e->threads);
		CHECK(replay_engine_find(e->name) == e);
		if (e->alias)
			CHECK(replay_engine_find(e->alias) == e);
	}
	CHECK(replay_engine_find("sync") == replay_engines[0]);
	CHECK(strcmp(replay_engine_find("io_uring")->name, "uring") == 0);
	CHECK(replay_engine_find("nosuch") == NULL);
	CHECK(replay_engine_find("") == NULL);
	replay_engine_names(names, sizeof(names));
	CHECK(strcmp(names, "sync, uring") == 0);
}

/* A call's latency is its clock's reading less the clock bias, never
 * below zero; the issue delay is not corrected. */
static void test_clock_bias(void)
{
	struct replay_ctx cx = { .start_ns = 1000, .clock_bias_ns = 120 };
	struct replay_done d = { .due_ns = 5000 };
	uint64_t b;

	replay_drive_issued(&cx, &d, 5300, 6000, 7);
	CHECK_U64(d.lat_ns, 580);
	CHECK_U64(d.t_ns, 4300);
	CHECK_EQ(d.delay_ns, 300);
	CHECK_EQ(d.result, 7);
	replay_drive_issued(&cx, &d, 5300, 5400, 0);
	CHECK_U64(d.lat_ns, 0);
	replay_drive_issued(&cx, &d, 5300, 5420, 0);
	CHECK_U64(d.lat_ns, 0);
	cx.clock_bias_ns = 0;
	replay_drive_issued(&cx, &d, 5300, 5400, 0);
	CHECK_U64(d.lat_ns, 100);
	/* a null syscall between two clock reads costs something */
	b = replay_clock_bias();
	CHECK(b > 0);
}

/* A paced replay spins (or yields) the engine's window plus the machine's
 * timer lag before an op is due, at most REPLAY_SPIN_MAX_NS. */
static void test_spin_window(void)
{
	struct replay_ctx cx = { .timer_lag_ns = 118000 };
	struct replay_pace p;

	replay_pace_init(&p, &cx, 30000);
	CHECK_U64(p.spin_ns, 148000);
	cx.timer_lag_ns = 0;
	replay_pace_init(&p, &cx, 30000);
	CHECK_U64(p.spin_ns, 30000);
	cx.timer_lag_ns = 50000000;
	replay_pace_init(&p, &cx, 100000);
	CHECK_U64(p.spin_ns, REPLAY_SPIN_MAX_NS);
	/* a sleep never wakes early: the lag is at least a nanosecond */
	CHECK(replay_timer_lag() > 0);
}

int main(void)
{
	test_clock_bias();
	test_spin_window();
	test_verdicts();
	test_warning_text();
	test_engine_table();
	return unit_done();
}
