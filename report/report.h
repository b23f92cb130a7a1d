/* report/report.h: run summaries in SQLite (report/schema.sql), shared by
 * captures (`riot report`) and replays (`riot replay --report`), and the
 * commands that read them (`riot report show`, `riot compare`).
 *
 * A run is summarised by a streaming accumulator: feed every operation to
 * run_acc_op() as it completes, then run_acc_store() appends the run to a
 * database. The per-operation path is a few array increments and never
 * touches SQLite (unless events are kept, see run_acc_keep_events()), so
 * memory grows with the distinct syscalls, files (path ids), processes and
 * errnos, and with the run's duration in seconds (the timeline), never with
 * the number of operations.
 *
 * Rules the numbers follow (docs/reports.md):
 * - bytes come from ret of successful calls: the data_read class counts
 *   them as read, data_write as written, data_copy as both (the rules of
 *   `riot info`); truncate, ftruncate and fallocate return 0 and add none.
 * - latency is lat_ns of every call, failed ones included; percentiles come
 *   from lib/hist.h, so they are within 1.6 % above the true value.
 * - the timeline is per second of completion (t_ns + lat_ns) and per class:
 *   data_read, data_write (data_copy too), sync, metadata (open, fd, stat,
 *   dir, namespace, cwd, attr, xattr); mmap, async and process calls are
 *   not replayable and appear in no timeline class. Percentiles of a second
 *   are exact while that second is within RUN_TIMELINE_WINDOW seconds of the
 *   latest completion seen; an operation completing later than that (logs
 *   are in exit order, so only a reordering of that size) still counts in
 *   ops and bytes, is left out of the second's p99, and is counted in the
 *   run's timeline_late.
 *
 * Not thread-safe: one accumulator is fed by one thread at a time.
 * Functions return 0 or -errno; run_acc_new() NULL + errno.
 */
#ifndef RIOT_REPORT_REPORT_H
#define RIOT_REPORT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf/syscalls.h"
#include "formats/devices.h"
#include "lib/hist.h"

/* Seconds of the timeline kept with full histograms (see above). */
#define RUN_TIMELINE_WINDOW 16

struct model;

enum run_kind { RUN_CAPTURE = 1, RUN_REPLAY = 2 };

/* One completed operation. */
struct run_op {
	uint16_t sys;		/* RIOT_SYS_* (unknown ids are ignored) */
	uint32_t pid, tid;
	uint64_t file;		/* model file object id, 0 for none */
	uint32_t path_id;	/* model path id (op->path_id), 0 for none:
				 * the per-file summary is keyed by it */
	uint64_t t_ns;		/* entry (capture) or issue (replay), ns since
				 * the run started */
	uint64_t lat_ns;	/* entry to exit (capture), submission to
				 * completion (replay) */
	int64_t ret;		/* the call's result, -errno on failure */
	int64_t issue_delay_ns;	/* replay: issue time minus scheduled time
				 * (negative clamps to 0); -1 for captures */
	bool has_gap;		/* a capture's call after another of its
				 * thread: gap_ns is its think time since
				 * that one ended (model_op.gap_ns) */
	uint64_t gap_ns;
};

/* RUN_DIV_*: how a replayed operation differed from its capture. */
enum run_divergence {
	RUN_DIV_RESULT = 1,	/* failed where the capture succeeded, or the
				 * reverse, or another errno */
	RUN_DIV_BYTES,		/* succeeded with another byte count */
	RUN_DIV_SKIPPED,	/* not performed: unsupported, or outside the
				 * replay root (/proc, /sys, /dev) */
	RUN_DIV_OTHER,
	RUN_DIV_COUNT
};

/* The filesystem a run's files were on. A capture may have several. */
struct run_fs {
	uint64_t dev;		/* st_dev (glibc makedev encoding); 0 unknown */
	const char *fs_type;	/* "ext4"; NULL unknown */
	const char *device;	/* mount source: "/dev/vda1" */
	const char *mount_point;
	const char *mount_options;	/* per-mount and superblock options */
	uint64_t ops;		/* operations on files there */
};

/* What a run was. NULL strings and zero numbers are stored as unknown
 * (NULL), except where a default is named. */
struct run_meta {
	enum run_kind kind;
	const char *label;	/* NULL: derived as "<fs_type>-<device name>"
				 * ("capture-..." for captures), made unique
				 * in the database with "-2", "-3"...; a label
				 * given here that exists already is an error */
	/* The machine the run happened on. For a replay leave them NULL:
	 * this machine's are used (uname, /proc/cpuinfo, sysinfo). For a
	 * capture pass host and kernel from the log; CPU and memory are then
	 * filled only when host is this machine's name. */
	const char *host, *kernel, *arch;
	const char *cpu_model;
	unsigned cpu_count;
	uint64_t memory_bytes;
	/* Filesystems: fs_path (a replay's root) is looked up in
	 * /proc/self/mountinfo; or fs[0..nfs) given by the caller (a capture,
	 * by device number). The first with the most ops is the run's. */
	const char *fs_path;
	const struct run_fs *fs;
	unsigned nfs;
	const char *riot_version;	/* NULL: this riot's */
	const char *cmdline;	/* the riot command that made the run */
	const char *trace_file;	/* the log replayed or summarised: its
				 * SHA-256 is stored */
	int64_t start_unix_ns;	/* wall-clock start; 0 unknown */
	bool start_at;		/* replay --start-at: start_late_ns is known */
	uint64_t start_late_ns;
	uint32_t shard_k, shard_n;	/* replay --shard K/N; n 0: none */
	uint64_t probe_ns;	/* a capture's probe time, taken off each
				 * latency (formats/log.h) */
	bool probe_known;	/* ... measured (0 ns is a measurement too) */
	uint64_t duration_ns;	/* 0: the latest completion seen */
	int complete;		/* 1 complete, 0 the log was cut short */
	uint64_t dropped_events;	/* events the capture lost */
	uint64_t proc_events;	/* process records (fork, exec, exit) */
	uint64_t unresolved_fds;	/* model_stats().unresolved_fd */
	uint64_t unknown_cwd;		/* model_stats().unknown_cwd */
	uint64_t truncated_paths;	/* operations with a truncated path */
	/* replay options (ignored for captures) */
	double speed;		/* 0: as fast as possible */
	const char *order;	/* e.g. "resource", "thread", "none" */
	unsigned workers;
	const char *engine;	/* "io_uring", "sync" */
	const char *fill;	/* "random", "zero", "compress:PCT" */
	/* paced replays (timing_known): whether the schedule was kept, ops
	 * over 1 ms late, issue delay p99 and max */
	bool timing_known, timing_kept;
	uint64_t late_ops, delay_p99_ns, delay_max_ns;
	/* how ops were timed: "fast", "think" or "captured"; under think the
	 * predicted time of the program (first call to last call's end);
	 * the captured program's own; 0: unknown */
	const char *timing;
	uint64_t predicted_ns, captured_ns;
	/* a replay that did not do the captured I/O (divergences, skipped or
	 * unreplayable ops over 1 %, or a call's success or failure turned
	 * round): unreliable 1 and its warning */
	int64_t unreliable;
	const char *warning;
	/* what reached the devices; NULL: not recorded */
	const struct run_block *block;
	/* whether others wrote to storage in the device view's window:
	 * RUN_DEV_SHARED (a shard, whose fleet writes the same storage, or
	 * other processes of this host wrote: device_other_writers of them,
	 * device_other_bytes in all, when device_others_known), RUN_DEV_SOLE
	 * (this run was the only writer), 0 unknown */
	int device_sharing;
	bool device_others_known;
	uint64_t device_other_writers, device_other_bytes;
};

enum { RUN_DEV_SHARED = 1, RUN_DEV_SOLE = 2 };

struct run_acc;

struct run_acc *run_acc_new(enum run_kind kind);
void run_acc_free(struct run_acc *a);

/* Adds one completed operation. */
void run_acc_op(struct run_acc *a, const struct run_op *op);

/* Names a process (its comm) for the per-process summary; the last name
 * given for a pid wins. comm is copied. */
int run_acc_process(struct run_acc *a, uint32_t pid, const char *comm);
/* The process names a log's records give: a snapshot's comm, an exec's
 * new comm, and a fork's child takes its parent's (a process that forks
 * without exec, such as a server's workers, keeps its parent's name).
 * Other records are ignored. 0 or -ENOMEM. */
struct riot_rec;
int run_acc_proc_record(struct run_acc *a, const struct riot_rec *r);

/* Records that a replayed operation diverged from its capture. Counted by
 * (sys, kind); the first RUN_DIV_SAMPLES are kept with their results and
 * path (copied; may be NULL). */
#define RUN_DIV_SAMPLES 1000
void run_acc_divergence(struct run_acc *a, unsigned sys, enum run_divergence kind,
			int64_t captured_ret, int64_t replay_ret, const char *path);

/* Keeps every operation in the events table of db_path as well: opens (or
 * creates) the database now, and run_acc_op() inserts one row per
 * operation inside one open transaction that run_acc_store() commits, so a
 * run that fails leaves nothing behind. Call before the first op. The
 * database must then be the one passed to run_acc_store(). 0 or -errno
 * with a one-line reason in err. */
int run_acc_keep_events(struct run_acc *a, const char *db_path, char *err, size_t errlen);
/* The first error inserting an event (0 if none): run_acc_op() cannot
 * return one, so check it, or let run_acc_store() report it. */
int run_acc_events_error(const struct run_acc *a);

/* Operations added so far. */
uint64_t run_acc_ops(const struct run_acc *a);

/* Flamegraph stacks: every call as comm;syscall;path components (the
 * path's frames from the root; none for a call without a path), weighted
 * by calls, by latency (ns) or by the bytes a data call moved (ret). */
enum stack_weight { STACK_COUNT, STACK_TIME, STACK_BYTES, STACK_WEIGHTS };
extern const char *const stack_weight_names[STACK_WEIGHTS];
struct stack_folded {
	char *stack;			/* frames joined by ';' */
	uint64_t w[STACK_WEIGHTS];
};
/* The cap on the distinct stacks a run stores, and run_acc_folded()
 * writes, by each weight: past it the lighter ones are folded into an
 * "(other)" frame under the longest beginning they share with a kept
 * one. Default RUN_STACKS_DEFAULT. */
#define RUN_STACKS_DEFAULT 1000
void run_acc_stacks_max(struct run_acc *a, uint32_t max);
/* Writes the run's stacks in the folded format (flamegraph.pl, inferno,
 * speedscope): one line per stack, "frame;frame;... weight", the weight
 * one of enum stack_weight; stacks of weight 0 are left out. m names the
 * path ids (NULL: "?"). 0 or -errno (-EIO: a write failed). */
int run_acc_folded(const struct run_acc *a, const struct model *m, enum stack_weight w,
		   FILE *out);

/* Appends the run to db_path (created with the schema if missing), in one
 * transaction. m gives path strings for the path ids (may be NULL: paths
 * are then stored empty). On success *run_id (may be NULL) is the new run's
 * id. On failure returns -errno and writes a one-line reason into err:
 * not a riot report, a report of a newer riot, a label that exists... */
int run_acc_store(struct run_acc *a, const char *db_path, const struct run_meta *meta,
		  const struct model *m, int64_t *run_id, char *err, size_t errlen);

/* Checks, before a run is made, that run_acc_store() can append it to
 * db_path with label (NULL: a derived one): an existing file must be a
 * riot report this riot reads, writable, without a run of that label; a
 * missing one must be creatable (it is not left behind). 0 or -errno with
 * a one-line reason in err. */
int run_db_check(const char *db_path, const char *label, char *err, size_t errlen);

/* Whether db_path holds a run that a writer stopped before it ended it
 * (a riot report or replay killed while storing), in *found: its rollback
 * journal (db_path-journal) is still there and no process holds the
 * database's write lock. Such a run is rolled back here (a read-only
 * open, as run_db_check() makes, cannot), so the command can say so. 0,
 * or -errno with a one-line reason in err. */
int run_db_recover(const char *db_path, bool *found, char *err, size_t errlen);

/* The filesystem holding path, from statfs and /proc/self/mountinfo.
 * Strings point into buf. 0 or -errno. */
int run_fs_of_path(const char *path, struct run_fs *fs, char *buf, size_t buflen);

/* Whose traffic a device view was (struct run_meta's device_sharing):
 * a shard's (shard_n > 1: its fleet writes the same storage), and how
 * many other processes of the host wrote in the window, how much. */
struct run_dev_sharing {
	int sharing;			/* RUN_DEV_SHARED, RUN_DEV_SOLE, 0 unknown */
	uint32_t shard_n;
	bool others_known;		/* every process of the host was read */
	uint64_t others, other_bytes;
};

/* The devices of a run as `report show` prints them, with the write
 * amplification against bytes_written (the workload's; RUN_BYTES_UNKNOWN:
 * none), said to be the device's and shared, or the run's alone, as sh
 * (NULL: unknown) tells. */
#define RUN_BYTES_UNKNOWN UINT64_MAX
void run_block_print(FILE *out, const struct run_block *b, uint64_t bytes_written,
		     const struct run_dev_sharing *sh);

/* Commands (riot.c's table). */
int cmd_report(int argc, char **argv);
extern const char cmd_report_help[];
int cmd_compare(int argc, char **argv);
extern const char cmd_compare_help[];

#endif
