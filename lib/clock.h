/* lib/clock.h: a clock's time in nanoseconds. */
#ifndef RIOT_LIB_CLOCK_H
#define RIOT_LIB_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_BOOTTIME is the events' clock; CLOCK_MONOTONIC times riot's own
 * intervals. */
static inline uint64_t riot_now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
