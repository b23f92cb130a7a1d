/* formats/devices.h: what reached the block devices during a run, and
 * its codec for a capture's log (the end section RIOT_END_DEVICES,
 * FORMAT.md: "End record"). capture/block.c records it, report/ stores and
 * shows it, anon/ rewrites it. */
#ifndef RIOT_FORMATS_DEVICES_H
#define RIOT_FORMATS_DEVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/hist.h"

/* What reached one block device during a run (capture/block.h records
 * it). Request groups as /sys/block/<dev>/stat counts them. */
enum run_dev_op { RUN_DEV_READ, RUN_DEV_WRITE, RUN_DEV_DISCARD, RUN_DEV_FLUSH, RUN_DEV_OPS };

/* One point of a device's queue depth series: the mean of the depths
 * sampled in [t_ns, t_ns + step) and the most in flight then. */
struct run_depth_point {
	uint64_t t_ns;			/* since the recording started */
	double depth;
	uint32_t depth_max;
};

struct run_device {
	uint64_t dev;			/* glibc makedev encoding */
	char name[32];			/* "sda1", "loop3", "nvme0n1" */
	char kind[16];			/* disk, partition, loop, member */
	char note[320];			/* "backed by /img", "member of dm-0" */
	uint64_t reqs[RUN_DEV_OPS], bytes[RUN_DEV_OPS];
	struct hist lat[2];		/* issue -> completion: read, write */
	uint64_t lat_sum_all;		/* every request: depth integral */
	uint64_t depth_peak;		/* the most in flight at once */
	uint64_t untimed;		/* completions whose issue was unseen */
	struct run_depth_point *depth;	/* the series, oldest first */
	unsigned ndepth;
	uint64_t depth_step_ns;		/* width of a point */
};

/* The devices of a run: the window is from the start of the recording to
 * its end, after a syncfs of the filesystem when synced. */
struct run_block {
	uint64_t window_ns;
	uint64_t flush_ns;		/* the syncfs at the end; 0 none */
	bool synced;
	struct run_device *dev;
	unsigned ndev;
};

/* A run's devices as bytes for a capture's log (RIOT_END_DEVICES), and
 * back: decoding checks every length and count (the log is hostile).
 * 0 or -errno (-EBADMSG malformed); *out malloc'ed. */
int run_block_encode(const struct run_block *b, uint8_t **out, size_t *len);
int run_block_decode(const void *p, size_t len, struct run_block *b);
/* Frees what a recording or run_block_decode() allocated in b. */
void run_block_free(struct run_block *b);

#endif
