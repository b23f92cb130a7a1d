/* bpf/block.h: what bpf/block.bpf.c and capture/block.c share: fixed-width
 * types only. */
#ifndef RIOT_BPF_BLOCK_H
#define RIOT_BPF_BLOCK_H

/* Devices one recording follows (a filesystem's device, or the members of
 * a device-mapper or md device). */
#define BLOCK_MAX_DEVS 8

/* Request groups, as /sys/block/<dev>/stat counts them (the kernel's
 * op_stat_group()): discard and secure erase are discards, write-zeroes is
 * a write, flush has no data. */
enum block_op { BLOCK_READ, BLOCK_WRITE, BLOCK_DISCARD, BLOCK_FLUSH, BLOCK_OPS };

/* Latency histograms are kept for reads and writes only; the bucket
 * mapping is lib/hist.h's (HIST_SUB_BITS 6). */
#define BLOCK_LAT_OPS 2
#define BLOCK_HIST_SUB_BITS 6
#define BLOCK_HIST_BUCKETS ((1 << BLOCK_HIST_SUB_BITS) * (64 - BLOCK_HIST_SUB_BITS + 1))

/* Counters of one followed device; every field is changed with atomic
 * adds (or compare-and-swap for the maxima). */
struct block_dev_counts {
	__u64 reqs[BLOCK_OPS];		/* requests completed */
	__u64 bytes[BLOCK_OPS];		/* bytes completed */
	__u64 lat_sum[BLOCK_LAT_OPS];	/* issue -> completion, ns */
	__u64 lat_max[BLOCK_LAT_OPS];
	__u64 lat_count[BLOCK_LAT_OPS];
	__u64 lat_sum_all;		/* every op: the queue depth integral */
	__s64 inflight;			/* issued, not yet completed */
	__u64 depth_max;		/* the most in flight since reset */
	__u64 depth_peak;		/* the most in flight ever */
	__u64 untimed;			/* request ends without an issue in the window:
					 * flush sequences, or issued before it */
};

#endif
