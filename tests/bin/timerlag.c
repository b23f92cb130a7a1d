/* timerlag: how late this machine's timers wake a thread: N absolute
 * clock_nanosleep(CLOCK_MONOTONIC) sleeps of GAP microseconds, timer slack
 * 1 ns, and the percentiles of the lateness. It is the floor under any
 * scheduler that sleeps, riot replay's included (benchmarks/replay.sh
 * prints it beside riot's issue delay).
 *
 * --spin: the floor under any scheduler, one that never sleeps: N due
 * times GAP apart, each waited for by spinning on the clock, so what is
 * left of the lateness is the machine taking the CPU away (a hypervisor's
 * steal, interrupts, another task): no pacer on this machine can keep a
 * schedule better than this.
 * usage: timerlag [-n N] [--gap-us US] [--spin]; prints "p50 P90 P99 MAX"
 * in ns. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = { { "gap-us", required_argument, NULL, 'g' },
					      { "spin", no_argument, NULL, 's' }, { 0 } };
	unsigned long n = 2000, gap_us = 200;
	int spin = 0;
	uint64_t *late;
	int c;

	while ((c = getopt_long(argc, argv, "n:", opts, NULL)) != -1) {
		if (c == 'n')
			n = strtoul(optarg, NULL, 10);
		else if (c == 'g')
			gap_us = strtoul(optarg, NULL, 10);
		else if (c == 's')
			spin = 1;
		else
			return 2;
	}
	if (!n || !(late = malloc(n * sizeof(*late)))) {
		fprintf(stderr, "usage: timerlag [-n N] [--gap-us US] [--spin]\n");
		return 2;
	}
	prctl(PR_SET_TIMERSLACK, 1UL);
	if (spin) {
		uint64_t due = now_ns(), t;

		for (unsigned long i = 0; i < n; i++) {
			due += gap_us * 1000;
			while ((t = now_ns()) < due)
				;
			late[i] = t - due;
		}
	}
	for (unsigned long i = 0; i < n && !spin; i++) {
		uint64_t due = now_ns() + gap_us * 1000;
		struct timespec ts = { (time_t)(due / 1000000000u), (long)(due % 1000000000u) };

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		late[i] = now_ns() - due;
	}
	qsort(late, n, sizeof(*late), cmp_u64);
	printf("%llu %llu %llu %llu\n", (unsigned long long)late[n / 2],
	       (unsigned long long)late[n * 9 / 10], (unsigned long long)late[n * 99 / 100],
	       (unsigned long long)late[n - 1]);
	free(late);
	return 0;
}
