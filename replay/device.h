/* replay/device.h: what reached the storage during a replay (README:
 * "What the storage saw"). The devices of the root's filesystem (or those
 * named with --block-dev) are recorded from just before the first
 * operation until a syncfs of the root's filesystem after the last one
 * has returned: the writeback of what the replay wrote is counted, init's
 * is not (a syncfs before the window flushes it). Everything that reaches
 * those devices in the window counts, whoever sent it. */
#ifndef RIOT_REPLAY_DEVICE_H
#define RIOT_REPLAY_DEVICE_H

#include <stdbool.h>
#include <stdio.h>

#include "capture/block.h"
#include "report/report.h"

struct replay_device {
	struct block_rec *rec;
	int fd;				/* the root, for syncfs; -1 none */
	struct run_block res;
	bool recorded;			/* res holds a recording */
};

/* Starts recording: the devices under root, or the named ones. A root on
 * no block device, or a kernel or user that cannot record, prints one
 * line saying why and records nothing (the replay goes on). */
void replay_device_begin(struct replay_device *d, const char *root,
			 const char *const *named, unsigned nnamed);
/* After the last operation: syncfs, then stop. */
void replay_device_end(struct replay_device *d);
/* The devices as `report show` prints them, if recorded. */
void replay_device_print(FILE *out, const struct replay_device *d, uint64_t bytes_written);
void replay_device_free(struct replay_device *d);

#endif
