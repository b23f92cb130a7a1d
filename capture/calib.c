/* capture/calib.c: the time capture's probes add to a recorded duration
 * (capture_int.h).
 *
 * A recorded duration runs from the entry probe's clock read to the exit
 * probe's: the kernel's work for the call, and with it the end of the
 * entry probe, the traced syscall path in and out, and the exit probe up
 * to its clock read, which the program did not pay without riot. Replay
 * times a call from user space, two clock reads around it less their own
 * cost (replay/drive.c). To put a capture on that scale, capture times
 * RIOT_CALIB_CALLS newfstatat calls the same way before its programs are
 * attached, and the same calls through the attached programs on a thread
 * they then trace as a target's (bpf/riot.bpf.c, calib_tid); the
 * difference of the two medians is the probe time, in the log's header,
 * which riot report takes off every duration. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "capture/capture_int.h"
#include "lib/clock.h"

/* Calls made and dropped first: the path's dentry and the code warm. */
#define CALIB_WARM 256

/* The call itself, not the C library's choice of one (statx or not). */
static void calib_call(void)
{
	struct stat st;

	syscall(SYS_newfstatat, AT_FDCWD, "/", &st, 0);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint32_t *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_u32);
	return n ? v[n / 2] : 0;
}

static uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

void calib_untraced(struct probe_calib *pc)
{
	static uint32_t bias[RIOT_CALIB_CALLS], lat[RIOT_CALIB_CALLS];
	uint64_t b, t0, t1;

	*pc = (struct probe_calib){ 0 };
	for (unsigned i = 0; i < CALIB_WARM; i++)
		calib_call();
	for (unsigned i = 0; i < RIOT_CALIB_CALLS; i++) {
		t0 = riot_now_ns(CLOCK_MONOTONIC);
		t1 = riot_now_ns(CLOCK_MONOTONIC);
		bias[i] = clamp32(t1 - t0);
	}
	b = median(bias, RIOT_CALIB_CALLS);
	for (unsigned i = 0; i < RIOT_CALIB_CALLS; i++) {
		t0 = riot_now_ns(CLOCK_MONOTONIC);
		calib_call();
		t1 = riot_now_ns(CLOCK_MONOTONIC);
		lat[i] = clamp32(t1 - t0 > b ? t1 - t0 - b : 0);
	}
	pc->untraced_ns = median(lat, RIOT_CALIB_CALLS);
}

void calib_calls(bool warm)
{
	for (unsigned i = 0; i < (warm ? CALIB_WARM : RIOT_CALIB_CALLS); i++)
		calib_call();
}

void calib_traced(struct probe_calib *pc, uint32_t *durs, unsigned n)
{
	/* none: newfstatat is not captured (--ops); a few may be missed as
	 * any traced call can be (a task storage busy on this CPU) */
	if (n < RIOT_CALIB_CALLS / 2) {
		pc->calls = 0;
		return;
	}
	pc->calls = n;
	pc->recorded_ns = median(durs, n);
	pc->probe_ns = pc->recorded_ns > pc->untraced_ns ? pc->recorded_ns - pc->untraced_ns : 0;
}
