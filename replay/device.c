/* replay/device.c: see device.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture/block.h"
#include "device.h"
#include "engine.h"

void replay_device_begin(struct replay_device *d, const char *root,
			 const char *const *named, unsigned nnamed)
{
	struct run_device devs[BLOCK_DEVS_MAX];
	unsigned n = 0;
	char err[512];
	int rc = 0;

	*d = (struct replay_device){ .fd = -1 };
	for (unsigned i = 0; i < nnamed && !rc; i++)
		rc = block_dev_named(named[i], devs, &n, err, sizeof(err));
	if (!nnamed)
		rc = block_devs_of_path(root, devs, &n, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "riot: replay: device view not recorded: %s\n", err);
		return;
	}
	d->fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* init's writes are not the workload's */
	if (d->fd >= 0)
		syncfs(d->fd);
	d->rec = block_rec_start(devs, n, err, sizeof(err));
	if (!d->rec)
		fprintf(stderr, "riot: replay: device view not recorded: %s\n", err);
}

void replay_device_end(struct replay_device *d)
{
	uint64_t t0, t1;
	bool synced = false;

	if (!d->rec)
		return;
	t0 = replay_now_ns();
	if (d->fd >= 0)
		synced = syncfs(d->fd) == 0;
	t1 = replay_now_ns();
	if (block_rec_stop(d->rec, &d->res) == 0) {
		d->res.synced = synced;
		d->res.flush_ns = synced ? t1 - t0 : 0;
		d->recorded = true;
	} else {
		fprintf(stderr, "riot: replay: device view not recorded: out of memory\n");
		block_result_free(&d->res);
	}
	block_rec_free(d->rec);
	d->rec = NULL;
}

void replay_device_print(FILE *out, const struct replay_device *d, uint64_t bytes_written)
{
	if (d->recorded)
		run_block_print(out, &d->res, bytes_written);
}

void replay_device_free(struct replay_device *d)
{
	block_rec_free(d->rec);
	d->rec = NULL;
	block_result_free(&d->res);
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}
