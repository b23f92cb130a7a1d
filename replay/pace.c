/* replay/pace.c: the replay's clock, and the waits of engine threads
 * until an op is due (pace.h). */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "replay/engine.h"
#include "replay/pace.h"

uint64_t replay_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t replay_clock_bias(void)
{
	enum { N = 4001 };
	static uint64_t v[N];

	for (unsigned i = 0; i < N; i++) {
		uint64_t t0 = replay_now_ns();

		syscall(SYS_getppid);
		v[i] = replay_now_ns() - t0;
	}
	qsort(v, N, sizeof(v[0]), cmp_u64);
	return v[N / 2];
}

uint64_t replay_timer_lag(void)
{
	enum { N = 201 };
	uint64_t v[N];

	prctl(PR_SET_TIMERSLACK, 1UL);
	for (unsigned i = 0; i < N; i++) {
		uint64_t due = replay_now_ns() + 100000, t;
		struct timespec ts = { (time_t)(due / 1000000000u), (long)(due % 1000000000u) };

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		t = replay_now_ns();
		v[i] = t > due ? t - due : 0;
	}
	qsort(v, N, sizeof(v[0]), cmp_u64);
	return v[N * 99 / 100];
}

void replay_pace_init(struct replay_pace *p, const struct replay_ctx *cx, uint64_t spin_ns)
{
	int cpus = get_nprocs();

	spin_ns += cx->timer_lag_ns;
	p->spin_ns = spin_ns < REPLAY_SPIN_MAX_NS ? spin_ns : REPLAY_SPIN_MAX_NS;
	p->max_spinners = cpus > 1 ? cpus - 1 : 1;
	atomic_init(&p->spinning, 0);
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

void replay_wait_until(struct replay_pace *p, uint64_t due_ns)
{
	uint64_t now = replay_now_ns();

	if (due_ns <= now)
		return;
	if (due_ns > now + p->spin_ns + REPLAY_WAKE_NS) {
		sleep_until(due_ns - p->spin_ns - REPLAY_WAKE_NS);
		now = replay_now_ns();
	}
	if (due_ns > now + p->spin_ns)
		sleep_until(due_ns - p->spin_ns);
	if (atomic_fetch_add(&p->spinning, 1) < p->max_spinners) {
		while (replay_now_ns() < due_ns)
			replay_spin_pause();
	} else {
		/* over the budget of spinners: a timer would wake this thread
		 * late; yielding keeps it ready without holding a CPU that
		 * io-wq, writeback or another stream wants */
		while (replay_now_ns() < due_ns)
			sched_yield();
	}
	atomic_fetch_sub(&p->spinning, 1);
}
