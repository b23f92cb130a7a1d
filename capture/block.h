/* capture/block.h: recording what reaches block devices (bpf/block.bpf.c)
 * while a replay or a capture runs: requests and bytes per group, latency
 * from issue to completion, queue depth over time.
 *
 * Which devices: those holding a filesystem (block_devs_of_path()), or
 * named by the user (block_dev_named()). A partition is followed as
 * itself; a loop device as the loop device (not the disk under its backing
 * file); a device-mapper or md device through its members (its requests
 * reach the block layer there). A filesystem on no block device (tmpfs,
 * overlay, btrfs' anonymous device) has none to follow.
 *
 * Functions return 0 or -errno with a one-line reason in err.
 */
#ifndef RIOT_CAPTURE_BLOCK_H
#define RIOT_CAPTURE_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/devices.h"

#define BLOCK_DEVS_MAX 8

/* Adds the devices holding path's filesystem to devs (n in, n out; no
 * duplicates; names, kinds and notes filled). */
int block_devs_of_path(const char *path, struct run_device *devs, unsigned *n,
		       char *err, size_t errlen);
/* The same for a device number (st_dev). */
int block_devs_of_dev(uint64_t dev, struct run_device *devs, unsigned *n,
		      char *err, size_t errlen);
/* The same for a device the user named: /dev/sdb1, sdb1 or 8:17. */
int block_dev_named(const char *spec, struct run_device *devs, unsigned *n,
		    char *err, size_t errlen);

struct block_rec;

/* Loads and attaches the recorder for devs[0..n) (copied) and starts
 * sampling the queue depth. Needs what capture needs (root or CAP_BPF and
 * CAP_PERFMON, kernel BTF). NULL + errno with the reason in err. */
struct block_rec *block_rec_start(const struct run_device *devs, unsigned n,
				  char *err, size_t errlen);
/* Detaches and fills out (out->dev malloc'ed, freed by run_block_free()).
 * flush_ns and synced are the caller's. */
int block_rec_stop(struct block_rec *r, struct run_block *out);
void block_rec_free(struct block_rec *r);

/* A recording with its window: begin() picks the devices (the named ones,
 * else those of path's filesystem), flushes that filesystem first when
 * flush_first (syncfs of path, so earlier writes stay out) and starts;
 * end() flushes it, so the writeback of what was written in the window
 * counts, and stops. Without a path there is no flush (synced false).
 *
 * Whose traffic it was: the device counts every request, whoever sent
 * it. begin() and end() also read every other process's write_bytes
 * (/proc/PID/io: what it sent towards storage, dirtied pages included,
 * charged when written, not when flushed); the processes whose count
 * grew in the window (or that were born in it with a count) are
 * other_writers, other_bytes their growth. A process that both started
 * and ended inside the window is not seen; kernel threads write back
 * what others dirtied and count nothing. writers_known is false when a
 * process's count could not be read (not root, --user) or riot cannot
 * see every process of the host (a container's pid namespace). */
struct proc_write;
struct block_view {
	struct block_rec *rec;
	int fd;				/* path, for syncfs; -1 none */
	struct run_block res;
	bool recorded;			/* res holds a recording */
	struct proc_write *before;	/* the processes at begin() */
	unsigned nbefore;
	bool writers_known;
	uint64_t other_writers, other_bytes;
};
int block_view_begin(struct block_view *v, const char *path, const char *const *named,
		     unsigned nnamed, bool flush_first, char *err, size_t errlen);
void block_view_end(struct block_view *v);
void block_view_free(struct block_view *v);

#endif
