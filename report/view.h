/* report/view.h: runs read back from report databases, for show, compare
 * and the HTML page. Private to report/. */
#ifndef RIOT_REPORT_VIEW_H
#define RIOT_REPORT_VIEW_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/hist.h"
#include "report/report_int.h"

struct sys_view {
	char *name, *cls;
	uint64_t count, errors, bytes, lat_sum, lat_min, p50, p90, p99, p999, lat_max;
	double mean;
	uint64_t delay_count, delay_p50, delay_p99, delay_max;
	uint64_t div[4];		/* result, bytes, skipped, other */
	bool left_out;		/* not in the classes: view_common_classes() */
};
/* A replay's divergences of one syscall: its ops that were issued and came
 * out otherwise than captured (the skipped ones are div[2], apart). */
#define SYS_DIVERGED(s) ((s)->div[0] + (s)->div[1] + (s)->div[3])

/* Timeline classes and "all", in that order; count 0 when absent. */
#define VIEW_CLASSES 5
extern const char *const view_class_names[VIEW_CLASSES];

struct class_view {
	uint64_t count, errors, bytes, lat_sum, p50, p90, p99, p999, lat_max;
	/* think time before the class's calls (a capture's; gap_count 0:
	 * none), and its share of the threads' time: gap_sum over the run's
	 * time in calls plus its gaps ("all"'s lat_sum + gap_sum) */
	uint64_t gap_count, gap_sum, gap_p50, gap_p99;
	double think_share;
};

#define RUN_VIEW_FIELD(name, type, ...) type##_T name;

/* A run: its runs row as the columns of RUN_COLUMNS (report_int.h), by
 * name (replay_speed < 0: not a replay; complete < 0: unknown), and its
 * syscalls and classes. */
struct run_view {
	sqlite3 *db;			/* not owned */
	const char *db_path;
	int64_t id;
	RUN_COLUMNS(RUN_VIEW_FIELD)
	struct sys_view *sys;
	unsigned nsys;
	struct class_view cls[VIEW_CLASSES];
	bool cls_common;	/* cls[] over the calls every compared run made */
	/* a fleet run (fleet_runs > 0) of a comparison: its members, the
	 * runs it sums (view_load_shards()) */
	struct run_view *shards;
	unsigned nshards;
};

/* The ids of every run in db, oldest first. 0 or -errno. */
int view_run_ids(sqlite3 *db, int64_t **ids, unsigned *n);
/* The id of the run named by spec (an id or a label). -ENOENT with the
 * reason in err. */
int view_find_run(sqlite3 *db, const char *db_path, const char *spec, int64_t *id,
		  char *err, size_t errlen);
/* A run's flamegraph stacks (the stacks table; none in a report older
 * than version 8), heaviest by count first. 0 or -errno. */
int view_stacks(const struct run_view *v, struct stack_folded **out, size_t *n);

/* Loads a run. 0 or -errno with the reason in err. */
int view_load(sqlite3 *db, const char *db_path, int64_t id, struct run_view *v,
	      char *err, size_t errlen);
void view_free(struct run_view *v);
/* Loads the members of fleet run v (runs whose fleet_id is its id) into
 * v->shards; none in a report older than fleet_id. 0 or -errno with the
 * reason in err. */
int view_load_shards(struct run_view *v, char *err, size_t errlen);
const struct sys_view *view_sys(const struct run_view *v, const char *name);
bool view_is_replay(const struct run_view *v);
/* Every run has the same trace SHA-256: a capture and its replays. */
bool view_same_log(const struct run_view *runs, unsigned n);

/* A run's histogram of one syscall and metric ("latency", "issue_delay"),
 * rebuilt from its buckets (sum, min and max from the syscall row).
 * 0 or -errno. */
int view_hist(const struct run_view *v, const char *sys, const char *metric, struct hist *h);

/* A run's latency histogram of a class (view_class_names[k]): its
 * syscalls' merged, as the classes table's percentiles are (only those
 * view_common_classes() kept, after it). 0 or -errno. */
int view_class_hist(const struct run_view *v, unsigned k, struct hist *h);

/* A replay compared class by class with a capture (or with a replay of
 * another log) must sum the same calls: a replay does not issue some of
 * its log's (fcntl that only sets fd state, execve, mmap), a capture does
 * not time others (a page fault has no duration), and two captures of
 * one program may differ by a call or two. Where runs include a replay,
 * marks the syscalls not made and timed by every run left_out and
 * recomputes each run's cls[] without them (counts, bytes, errors, total
 * time and percentiles, from the syscalls' histograms); runs that all
 * made the same calls, and captures compared among themselves (each
 * complete), keep their stored classes. The number of left-out syscall
 * rows, or -errno. */
int view_common_classes(struct run_view *runs, unsigned n);

/* A run's timeline: per point of *width seconds, ops and bytes per second
 * of every timeline class summed (averaged over the point's seconds), and
 * the largest p99 of its classes (0 where none). At most
 * VIEW_TIMELINE_POINTS points whatever the run's span, so a chart costs the
 * same for a run of a second and one of years. Arrays of *n entries,
 * malloc'ed. */
#define VIEW_TIMELINE_POINTS 2000
int view_timeline(const struct run_view *v, uint64_t **ops, uint64_t **bytes,
		  uint64_t **p99, unsigned *n, uint64_t *width);

/* A run's throughput over time, per second (ops/s and bytes/s), in *n
 * buckets of *width_ns from its start: the rates table's (a width that
 * follows the run's span), or for a run stored without it the timeline's
 * seconds. Arrays malloc'ed. 0 or -errno. */
int view_rates(const struct run_view *v, double **ops, double **bytes, unsigned *n,
	       uint64_t *width_ns);

/* ---- commands and output ---- */

int report_show(int argc, char **argv);

/* What compare puts side by side, for a class or a syscall. Rates are over
 * the time spent in the class's (or syscall's) calls, not over the run's
 * elapsed time: a run's elapsed time is its own row (CMP_ELAPSED). */
enum cmp_metric {
	CMP_OPS_RATE, CMP_THROUGHPUT, CMP_P50, CMP_P99, CMP_TOTAL_TIME, CMP_METRICS,
	/* the run rows: its elapsed time, a --timing think replay's
	 * prediction of the program's, the captured program's own */
	CMP_ELAPSED = CMP_METRICS, CMP_PREDICTED, CMP_CAPTURED, CMP_ALL_METRICS
};
extern const char *const cmp_metric_names[CMP_ALL_METRICS];

struct cmp_src {
	uint64_t count, bytes, p50, p99, lat_sum;
};

/* ops/s and bytes/s over lat_sum; latencies and total time in ns. */
double cmp_value(const struct cmp_src *s, enum cmp_metric m);

/* One metric over a group of runs (the runs of one label, which repeat
 * when several databases hold it): the median and the range. missing: some
 * run of the group has no such operation (not replayed, not captured). */
struct cmp_stat {
	double mid, lo, hi;
	unsigned n;
	bool missing;
	/* a fleet group: its shards' own values (those that have the
	 * operation), from slo to shi, smean their mean; shown beside mid,
	 * not noise */
	unsigned shards;
	double slo, shi, smean;
};

/* cmp_winner() verdicts other than a group index. */
#define CMP_WITHIN_NOISE (-1)	/* the best two are closer than the noise */
#define CMP_NOT_COMPARABLE (-2)	/* a group lacks the operation */
#define CMP_NO_WINNER (-3)	/* no winner asked (elapsed of different logs) */
#define CMP_UNRELIABLE (-4)	/* a run did not replay the captured I/O
				 * (runs.unreliable): its verdicts say
				 * nothing of the storage */

/* Without repeats, differences below this share of the larger value are
 * noise: one run of each says nothing of the spread. */
#define CMP_NOISE_DEFAULT 0.05

/* The index of the best group of s[0..n) (higher rates, lower latency and
 * times), or a CMP_* verdict. The noise is the largest relative range
 * (hi - lo) / mid of the groups that repeat, or CMP_NOISE_DEFAULT when none
 * does; for percentiles at least the histograms' resolution (1/HIST_SUB).
 * The best wins when it beats the second by more than the noise (relative
 * to the larger) and, for repeated groups, their ranges do not overlap. */
int cmp_winner(const struct cmp_stat *s, unsigned n, enum cmp_metric m);

#define CMP_MAX_RUNS 64

/* The runs of a comparison grouped by label, in order of first
 * appearance; group 0 is the baseline of the ratios. */
struct cmp_ctx {
	struct run_view *runs;
	unsigned nruns;
	unsigned ng;
	unsigned group_of[CMP_MAX_RUNS];	/* run -> group */
	unsigned first[CMP_MAX_RUNS];		/* group -> its first run */
	unsigned size[CMP_MAX_RUNS];		/* group -> runs in it */
	bool repeats;		/* some label has several runs */
	bool fleets;		/* some group is a fleet with its shards */
	bool same_log;		/* every run has the same trace SHA-256 */
	bool unreliable;	/* a run did not replay the captured I/O */
};
void cmp_ctx_init(struct cmp_ctx *c, struct run_view *runs, unsigned n);
static inline const char *cmp_group_label(const struct cmp_ctx *c, unsigned g)
{
	return c->runs[c->first[g]].label;
}

/* A row of a comparison table. */
enum cmp_table { CMP_TABLE_RUN, CMP_TABLE_CLASS, CMP_TABLE_SYSCALL };
struct cmp_row {
	const char *name;	/* class or syscall; the run table: "run" */
	bool first;		/* the first row of its name */
	enum cmp_metric m;
	struct cmp_stat st[CMP_MAX_RUNS];	/* per group */
	int winner;		/* cmp_winner() */
};
/* Calls fn for every row of a table, in order. */
void cmp_rows(const struct cmp_ctx *c, enum cmp_table t,
	      void (*fn)(const struct cmp_ctx *c, const struct cmp_row *r, void *arg), void *arg);
/* A row's value of group g ("-" when missing), its ratio to group 0 ("-"
 * when either is missing or 0), and its verdict ("xfs", "within noise",
 * "-" not comparable, "" none). */
const char *cmp_fmt_value(const struct cmp_row *r, unsigned g, char *buf, size_t len);
const char *cmp_fmt_ratio(const struct cmp_row *r, unsigned g, char *buf, size_t len);
const char *cmp_verdict(const struct cmp_ctx *c, const struct cmp_row *r);

/* The capture a replay's fidelity is measured against: the run of the
 * comparison whose trace has the replay's SHA-256, or -1. Another trace
 * in the same database is never taken. */
int cmp_capture_of(const struct cmp_ctx *c, unsigned replay);

/* The comparison tables of runs[0..n) (runs[0] the baseline), as text or
 * JSON. */
void compare_print(FILE *out, struct run_view *runs, unsigned n);
void compare_json(FILE *out, struct run_view *runs, unsigned n);

/* The HTML page: every run's charts, and the comparison when n > 1. */
int html_write(const char *path, struct run_view *runs, unsigned n, char *err, size_t errlen);

/* What reached the block devices (device.c): a run's devices in `report
 * show`, the device rows of `compare` and of the HTML page; nothing when
 * no run has them. */
void device_show(FILE *out, const struct run_view *v);
void device_compare(FILE *out, struct run_view *runs, unsigned n);
void device_html(FILE *f, struct run_view *runs, unsigned n);
/* "devices": [...] and "write_amplification" (null: none) in the open
 * object. */
struct json;
void device_json(struct json *j, const struct run_view *v);

/* Formatting shared by the text outputs. */
double view_rate(uint64_t n, uint64_t duration_ns);	/* per second */

#endif
