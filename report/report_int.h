/* report/report_int.h: what the report folder's files share; not an API. */
#ifndef RIOT_REPORT_REPORT_INT_H
#define RIOT_REPORT_REPORT_INT_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/hist.h"
#include "lib/map.h"
#include "report/report.h"

/* Timeline classes: what a storage engineer weighs separately. */
enum tl_class { TL_DATA_READ, TL_DATA_WRITE, TL_SYNC, TL_METADATA, TL_COUNT, TL_NONE = -1 };

extern const char *const tl_class_names[TL_COUNT];

/* The timeline class of a syscall class, or TL_NONE (not replayable). */
int tl_class_of(unsigned riot_class);

#define RUN_ERRNO_MAX 4096	/* kernel errnos are below this */
#define RUN_RATE_BUCKETS 256
#define RUN_RATE_MIN_WIDTH 10000	/* ns: 2.56 ms for the finest span */

struct sys_acc {
	uint64_t errors, bytes;
	struct hist lat;
	struct hist *delay;		/* replays: allocated at first delay */
	struct hist *gap;		/* think time before the calls, at
					 * the first call that has one */
	uint64_t *errnos;		/* [RUN_ERRNO_MAX], at first error */
	uint64_t div[RUN_DIV_COUNT];
};

/* Totals of a file (by path id) or a process. */
struct usage {
	uint64_t ops, errors, bytes_read, bytes_written, lat_sum;
};

struct proc_acc {
	uint32_t pid;			/* 0: empty slot */
	char *comm;
	uint32_t comm_id;		/* stacks_comm() of comm, 0: none */
	struct usage u;
};

/* ---- flamegraph stacks (stacks.c) ---- */

/* A call's stack is comm;syscall;path components (none without a path).
 * The distinct (comm, syscall, path id) keys are held exactly up to
 * RUN_STACKS_HELD of them; past it a new key's path becomes STACK_OTHER,
 * so memory stays bounded and the weights still sum to every call. */
#define RUN_STACKS_HELD (1u << 20)
#define STACK_OTHER "(other)"

struct stack_acc {
	uint64_t key;			/* comm id << 48 | sys << 32 | path id */
	uint64_t w[STACK_WEIGHTS];	/* calls, ns, bytes */
};

struct stack_set {
	struct stack_acc *v;
	uint32_t n, cap;
	struct u64map ix;		/* key -> index in v */
	char **comms;			/* comm id - 1 -> name */
	uint32_t ncomms, comms_cap;
	struct u64map comm_ix;		/* hash of a name -> its indexes */
	uint64_t seed;
};

void stacks_init(struct stack_set *s);
void stacks_fini(struct stack_set *s);
/* The id of a comm (1..), made when new; 0 when out of memory. */
uint32_t stacks_comm(struct stack_set *s, const char *comm);
/* Adds a call of weights 1, lat_ns and bytes to its stack. 0 or -ENOMEM. */
int stacks_add(struct stack_set *s, uint32_t comm, unsigned sys, uint32_t path_id,
	       uint64_t lat_ns, uint64_t bytes);
/* The stacks as text (paths from m; NULL: "?"), capped: the max heaviest
 * by each weight of mask (bits of enum stack_weight) are kept, every
 * other one folded into the longest beginning (frames from the root) a
 * kept one shares, then a STACK_OTHER frame (STACK_OTHER alone when none);
 * so every call still counts, and the stacks written are at most the
 * kept ones and their beginnings. Sorted by text; *out malloc'ed (free
 * with stacks_folded_free()). 0 or -ENOMEM. */
int stacks_fold(const struct stack_set *s, const struct model *m, unsigned mask, uint32_t max,
		struct stack_folded **out, size_t *nout);
void stacks_folded_free(struct stack_folded *v, size_t n);

struct tl_row {
	int64_t sec;			/* -1: empty slot */
	uint64_t ops[TL_COUNT], bytes[TL_COUNT];
	uint64_t p99[TL_COUNT];		/* UINT64_MAX: no latency kept */
};

struct div_sample {
	uint16_t sys;
	uint8_t kind;
	int64_t captured_ret, replay_ret;
	char *path;
};

/* A file's usage in 20 bytes, as most files' fit (a log of millions of
 * paths pays this per path): each count in 32 bits. A file whose count
 * would pass one moves to a struct usage of run_acc's wide[] (ops then
 * FILE_WIDE, errors its index there). run_acc_file() reads either. */
struct file_usage {
	uint32_t ops, errors, bytes_read, bytes_written, lat_sum;
};
#define FILE_WIDE UINT32_MAX

struct run_acc;
/* The usage of path id (zero when it has none). */
void run_acc_file(const struct run_acc *a, uint32_t id, struct usage *u);

struct run_acc {
	enum run_kind kind;
	uint64_t ops, max_end;
	struct sys_acc *sys[RIOT_SYS_COUNT];	/* allocated at first op */

	struct file_usage *files;	/* by path id */
	uint32_t nfiles;		/* capacity */
	struct usage *wide;		/* the files past file_usage's range */
	uint32_t nwide, wide_cap;

	struct proc_acc *procs;		/* in the order first seen */
	uint32_t procs_cap, procs_len;
	struct u64map proc_ix;		/* pid -> index in procs */

	struct tl_row *tl;		/* only the seconds that hold ops, so
					 * a log's time span costs nothing */
	uint64_t tl_cap, tl_used;
	struct u64map tl_ix;		/* second -> index in tl */
	int64_t tl_top;			/* latest second seen, -1 none */
	struct hist *win;		/* [RUN_TIMELINE_WINDOW][TL_COUNT] */
	int64_t win_sec[RUN_TIMELINE_WINDOW];	/* second held, -1 none */
	uint64_t tl_late;

	struct div_sample *samples;
	unsigned nsamples;

	/* Throughput at a resolution that follows the run's span: ops and
	 * bytes of the timeline classes by completion time, in RUN_RATE_BUCKETS
	 * buckets of rate_width ns from the start; when an op completes
	 * beyond the last, adjacent buckets merge and the width doubles. */
	uint64_t rate_width;
	uint64_t rate_ops[RUN_RATE_BUCKETS], rate_bytes[RUN_RATE_BUCKETS];

	/* --events */
	sqlite3 *db;
	sqlite3_stmt *ins_event;
	int64_t run_id;
	int events_err;

	struct stack_set stacks;
	uint32_t stacks_max;		/* run_acc_stacks_max() */

	int oom;			/* an allocation failed: store refuses */
};

/* Finishes the timeline: every second still in the window gets its p99. */
void run_acc_flush_timeline(struct run_acc *a);

/* Bytes a successful call moved, by the rules of `riot info`. */
void run_bytes(unsigned sys, int64_t ret, uint64_t *read, uint64_t *written);

/* ---- the runs table ---- */

/* The columns of schema.sql's runs table that a run stores, in one place:
 * store.c writes them (run_acc_store()), view.c reads them back into the
 * struct run_view fields of the same names (view.h), merge.c sums them
 * into a fleet run, db.c reserves a run's row with them. A new column is
 * its line here and its line in schema.sql (with the version's upgrade
 * in db.c).
 *
 * RUN_COL(name, type, when, value, fleet):
 * - type: RC_TEXT (char *; NULL or "" stored as NULL), RC_U64 (uint64_t),
 *   RC_OPT (int64_t; 0 stored as NULL: unknown), RC_REAL (double; NULL
 *   reads back as -1), RC_FLAG (int64_t; NULL reads back as -1);
 * - when: the value is stored only when this holds, else NULL;
 * - value: its expression in store.c, over m (the struct run_meta), f
 *   (struct run_facts: this machine, the run's filesystem, label, trace
 *   SHA-256), a (the struct run_acc) and t (struct run_totals);
 * - fleet: how merge.c makes the fleet run's value of its runs' (SUM, MIN,
 *   MAX, ONE: the value when every run has the same, else NULL; NONE:
 *   NULL; COUNT: how many runs it sums; the others are merge.c's own).
 * fleet_runs and fleet_id are merge.c's alone: a run of its own has
 * neither. */
#define RUN_COLUMNS(X) \
	X(label, RC_TEXT, 1, f->label, LABEL) \
	X(kind, RC_TEXT, 1, t->replay ? "replay" : "capture", MIN) \
	X(host, RC_TEXT, 1, m->host ? m->host : f->here.host, ONE) \
	X(kernel, RC_TEXT, 1, m->kernel ? m->kernel : m->host ? NULL : f->here.kernel, ONE) \
	X(arch, RC_TEXT, 1, m->arch ? m->arch : m->host ? NULL : f->here.arch, ONE) \
	X(cpu_model, RC_TEXT, 1, t->cpu_model, ONE) \
	X(cpu_count, RC_OPT, 1, t->cpu_count, ONE) \
	X(memory_bytes, RC_OPT, 1, t->memory_bytes, ONE) \
	X(fs_type, RC_TEXT, f->fs, f->fs->fs_type, ONE) \
	X(fs_device, RC_TEXT, f->fs, f->fs->device, ONE) \
	X(fs_mount_point, RC_TEXT, f->fs, f->fs->mount_point, ONE) \
	X(fs_mount_options, RC_TEXT, f->fs, f->fs->mount_options, ONE) \
	X(riot_version, RC_TEXT, 1, m->riot_version ? m->riot_version : RIOT_VERSION, ONE) \
	X(cmdline, RC_TEXT, 1, m->cmdline, CMDLINE) \
	X(trace_file, RC_TEXT, 1, m->trace_file, ONE) \
	X(trace_sha256, RC_TEXT, 1, f->sha, ONE) \
	X(start_unix_ns, RC_OPT, 1, m->start_unix_ns, START) \
	X(duration_ns, RC_U64, 1, m->duration_ns ? m->duration_ns : a->max_end, DURATION) \
	X(replay_speed, RC_REAL, t->replay, m->speed, ONE) \
	X(replay_order, RC_TEXT, t->replay, m->order, ONE) \
	X(replay_workers, RC_OPT, t->replay, m->workers, SUM) \
	X(replay_engine, RC_TEXT, t->replay, m->engine, ONE) \
	X(replay_fill, RC_TEXT, t->replay, m->fill, ONE) \
	X(ops, RC_U64, 1, a->ops, SUM) \
	X(errors, RC_U64, 1, t->errors, SUM) \
	X(proc_events, RC_U64, 1, m->proc_events, SUM) \
	X(bytes_read, RC_U64, 1, t->bytes_read, SUM) \
	X(bytes_written, RC_U64, 1, t->bytes_written, SUM) \
	X(busy_ns, RC_U64, 1, t->busy_ns, SUM) \
	X(complete, RC_FLAG, 1, m->complete, MIN) \
	X(dropped_events, RC_U64, 1, m->dropped_events, SUM) \
	X(unresolved_fds, RC_U64, 1, m->unresolved_fds, SUM) \
	X(unknown_cwd, RC_U64, 1, m->unknown_cwd, SUM) \
	X(truncated_paths, RC_U64, 1, m->truncated_paths, SUM) \
	X(timeline_late, RC_U64, 1, a->tl_late, SUM) \
	X(events_kept, RC_FLAG, 1, a->ins_event != NULL, ZERO) \
	X(timing_kept, RC_FLAG, t->timed, m->timing_kept, MIN) \
	X(late_ops, RC_U64, t->timed, m->late_ops, SUM) \
	X(delay_p99_ns, RC_U64, t->timed, m->delay_p99_ns, NONE) \
	X(delay_max_ns, RC_U64, t->timed, m->delay_max_ns, MAX) \
	X(start_late_ns, RC_U64, t->replay && m->start_at, m->start_late_ns, MAX) \
	X(shard, RC_TEXT, t->replay && m->shard_n, t->shard, NONE) \
	X(probe_ns, RC_U64, !t->replay && m->probe_known, m->probe_ns, ONE) \
	X(replay_timing, RC_TEXT, t->replay, m->timing, ONE) \
	X(predicted_ns, RC_OPT, t->replay, (int64_t)m->predicted_ns, MAX) \
	X(captured_ns, RC_OPT, t->replay, (int64_t)m->captured_ns, MAX) \
	X(unreliable, RC_FLAG, t->replay, m->unreliable, MAX) \
	X(warning, RC_TEXT, t->replay, m->warning, NONE) \
	X(fleet_runs, RC_OPT, 0, 0, COUNT) \
	X(fleet_id, RC_OPT, 0, 0, NONE) \
	X(device_shared, RC_FLAG, m->block && m->device_sharing, \
	  m->device_sharing == RUN_DEV_SHARED, NONE) \
	X(device_other_writers, RC_U64, m->block && m->device_others_known, \
	  m->device_other_writers, NONE) \
	X(device_other_bytes, RC_U64, m->block && m->device_others_known, \
	  m->device_other_bytes, NONE)

/* The C type of a column's value (struct run_view). */
#define RC_TEXT_T char *
#define RC_U64_T uint64_t
#define RC_OPT_T int64_t
#define RC_REAL_T double
#define RC_FLAG_T int64_t

/* Every numeric column as ", name" (and its placeholder ", 0"), none of
 * the text ones: what a reserved row sets (the NOT NULL columns are
 * numeric) until run_acc_store() writes the run. */
#define RC_NUMERIC_COL(name, type, ...) type##_NUM(#name)
#define RC_NUMERIC_ZERO(name, type, ...) type##_NUM("0")
#define RC_TEXT_NUM(s)
#define RC_U64_NUM(s) ", " s
#define RC_OPT_NUM(s) ", " s
#define RC_REAL_NUM(s) ", " s
#define RC_FLAG_NUM(s) ", " s

/* ---- database (store.c, db.c) ---- */

/* Opens path as a riot report for writing (creating it with the schema
 * when it is new or empty). NULL with a reason in err. */
sqlite3 *report_db_open_rw(const char *path, char *err, size_t errlen);
/* Opens an existing riot report read-only. NULL with a reason in err. */
sqlite3 *report_db_open_ro(const char *path, char *err, size_t errlen);
/* Inserts a placeholder run row (filled in by store) and returns its id. */
int report_db_reserve_run(sqlite3 *db, int64_t *id, char *err, size_t errlen);
int report_db_exec(sqlite3 *db, const char *sql, char *err, size_t errlen);
/* report/schema.sql, as a new report is made from it. Its first line names
 * the schema version (REPORT_SCHEMA_VERSION, made from it by the build):
 * the one this riot writes, and the newest it reads. */
const char *report_db_schema(void);

/* Stores the syscalls of a (its sys[]: counts, errors, bytes, latency and
 * issue-delay histograms), the classes merged from them and the syscall
 * names as run `run` of db, inside the caller's transaction: how a merged
 * run gets the same rows, by the same code, as a run of its own. */
int run_store_syscalls(sqlite3 *db, int64_t run, const struct run_acc *a, char *err,
		       size_t errlen);

/* `riot report merge` (merge.c). */
int report_merge(int argc, char **argv);

/* Stores a run's devices (device.c) after its runs row. 0 or -errno. */
int device_store(sqlite3 *db, int64_t run, const struct run_block *b, char *err, size_t errlen);
/* Sets the write amplification of run's device rows: their write bytes
 * over what the run wrote to files. 0 or -errno. */
int device_amplification(sqlite3 *db, int64_t run, char *err, size_t errlen);

/* ---- machine facts (sysinfo.c) ---- */

struct host_facts {
	char host[256], kernel[256], arch[80];
	char cpu_model[256];
	unsigned cpu_count;
	uint64_t memory_bytes;
};

void host_facts_get(struct host_facts *h);
/* The mount of a device number (st_dev) from /proc/self/mountinfo. */
int run_fs_of_dev(uint64_t dev, struct run_fs *fs, char *buf, size_t buflen);

#endif
