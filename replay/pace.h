/* replay/pace.h: the replay's clock and its waits until an op is due
 * (pace.c), private to replay/.
 *
 * How the threads of an engine wait for ops' due times: each sleeps
 * (clock_nanosleep, timer slack 1 ns) until spin_ns before, then spins the
 * rest, for a timer wakes late (tens of microseconds on a quiet machine).
 * At most max_spinners threads spin at once, one CPU fewer than the
 * machine has: the kernel threads a replay depends on (io-wq, the
 * journal, writeback) and the log reader must get a CPU; a thread over
 * the budget sleeps the whole way.
 */
#ifndef RIOT_REPLAY_PACE_H
#define RIOT_REPLAY_PACE_H

#include <stdatomic.h>
#include <stdint.h>

struct replay_ctx;

/* CLOCK_MONOTONIC, ns. */
uint64_t replay_now_ns(void);

struct replay_pace {
	uint64_t spin_ns;
	int max_spinners;
	_Atomic int spinning;
};

/* spin_ns: the engine's spin before a due time, to which the context's
 * timer lag is added (at most REPLAY_SPIN_MAX_NS in all). */
void replay_pace_init(struct replay_pace *p, const struct replay_ctx *cx, uint64_t spin_ns);
#define REPLAY_SPIN_MAX_NS 2000000u
/* A long sleep ends later than a short one: on this VM a thread sleeping
 * 100 ms woke 116 us late at p50 (the idle vCPU's wake-up), one sleeping
 * 50 us 24 us late, and replay_timer_lag() times 100 us sleeps. So a wait
 * longer than this (beyond the spin) first sleeps until this long before
 * the spin starts, then sleeps again, a short sleep, to the spin. */
#define REPLAY_WAKE_NS 500000u
/* Returns at due_ns (or as soon after as the machine allows). */
void replay_wait_until(struct replay_pace *p, uint64_t due_ns);

/* One turn of a spin-wait: tells the CPU (x86 pause, arm64 yield) so it
 * spends less power and leaves a sibling hyperthread more. */
static inline void replay_spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* What such a thread spins before a due time (replay_wait_until()): more
 * threads than CPUs must not spin long, or they starve each other and
 * every op is late. */
#define REPLAY_SPIN_NS 30000

/* The clock of one issue (step 5): the engine finds what the call needs
 * (replay_exec_prep()), then replay_issue_start() waits until the op is
 * due and starts the clock, replay_issue_stop() stops it. */
struct replay_issue {
	struct replay_pace *pace;
	uint64_t due_ns;	/* 0: unpaced */
	uint64_t t0, t1;
};

static inline void replay_issue_start(struct replay_issue *is)
{
	if (is->due_ns)
		replay_wait_until(is->pace, is->due_ns);
	is->t0 = replay_now_ns();
}

static inline void replay_issue_stop(struct replay_issue *is)
{
	is->t1 = replay_now_ns();
}

/* What timing a call from user space adds to the call's own time: the
 * median of timed null syscalls (getppid), clock reads and syscall entry
 * and exit (ns). A capture times each call inside the kernel, from its
 * sys_enter to its sys_exit: a replayed call's latency less this is
 * measured as the captured one was. */
uint64_t replay_clock_bias(void);
/* How late this machine's timers wake a thread: the 99th percentile of
 * 201 absolute sleeps of 100 us (timer slack 1 ns), in ns. A paced
 * replay spins for this much more before an op is due (replay_pace_init()):
 * on a VM whose timers wake 50-150 us late, a thread that sleeps until
 * 30 us before its op is late for every op. */
uint64_t replay_timer_lag(void);

#endif
