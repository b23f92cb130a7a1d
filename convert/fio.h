/* convert/fio.h: the fio exporter (`riot export fio`).
 *
 * Writes a log's data operations as fio iolog v3 files and a job file. The
 * command is thin (cmd_export_fio.c); the work is in fio_export(), which
 * tests and benchmarks call directly. Functions return 0 or -errno; where
 * they take err, a one-line reason is written there and nothing is
 * printed.
 */
#ifndef RIOT_CONVERT_FIO_H
#define RIOT_CONVERT_FIO_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/log.h"

enum fio_engine { FIO_ENGINE_IO_URING, FIO_ENGINE_PSYNC };

/* Why an operation of the log is not in the iologs. */
enum fio_skip {
	FIO_SKIP_FAILED,	/* the call failed or moved no bytes */
	FIO_SKIP_UNRESOLVED,	/* the model could not tell the file */
	FIO_SKIP_NOT_FILE,	/* pipe, socket, /proc, /sys, /dev */
	FIO_SKIP_NAME,		/* path fio cannot name: whitespace, or
				 * longer than fio's 256 bytes */
	FIO_SKIP_UNSUPPORTED,	/* data ops fio has no verb for: mmap,
				 * io_uring, truncate, fallocate, ... */
	FIO_SKIP_SYMLINK,	/* a path through a symlink the log shows
				 * (readlink, symlink, lstat): fio would
				 * follow it with nothing to keep it in the
				 * root */
	FIO_SKIP_COUNT
};

const char *fio_skip_name(enum fio_skip s);

/* Receives, in log order, each data operation fio would be given: the
 * captured thread, its entry time (ns, the log's clock), the file's name
 * (root + captured path), the verb ("read", "write", "sync", "datasync"),
 * its offset and length (0 for syncs). The name is valid during the call
 * only. 0, or -errno to stop. */
typedef int (*fio_io_fn)(void *arg, uint32_t tid, uint64_t t, const char *name,
			 const char *verb, uint64_t off, uint64_t len);

struct fio_export_opts {
	const char *root;	/* absolute directory the captured tree is
				 * under (riot init LOG --root ROOT) */
	enum fio_engine engine;
	unsigned iodepth;	/* io_uring only; 0: 1 (a thread blocks in
				 * each call, as captured) */
	bool no_stall;		/* replay_no_stall=1: as fast as possible */
	fio_io_fn on_io;	/* set: no files are written (dir unused),
				 * every data operation goes here instead */
	void *on_io_arg;
};

struct fio_export_stats {
	uint64_t records;	/* log records read */
	uint64_t jobs;		/* one per captured thread with data ops */
	uint64_t reads, writes, syncs, opens, closes;
	uint64_t bytes_read, bytes_written;
	uint64_t skipped[FIO_SKIP_COUNT];
	uint64_t duration_us;	/* last timestamp in the iologs */
};

/* Writes DIR/riot.fio and DIR/riot-TID.iolog per captured thread; with
 * o->on_io, writes nothing and hands it every data operation instead. */
int fio_export(const struct riot_logs *logs, const char *dir, const struct fio_export_opts *o,
	       struct fio_export_stats *st, char *err, size_t errlen);

#endif
