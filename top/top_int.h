/* top/top_int.h: what the files of top/ share; nothing outside top/
 * includes it.
 *
 * riot top is three parts: the aggregate (agg.c), fed every record of a
 * capture or a log in log order, which keeps bounded summaries of what it
 * saw; the view (view.c, on ncurses), which draws them a few times a
 * second and takes keys; and the command (cmd_top.c, picker.c), which
 * feeds the one to the other from a live capture or a log. */
#ifndef RIOT_TOP_INT_H
#define RIOT_TOP_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "formats/log.h"
#include "lib/map.h"

/* ---- agg.c: bounded summaries ---- */

/* A compact log-linear histogram: four buckets per power of two, so a
 * quantile is within 19 % above the true value (it is the upper edge of
 * the bucket holding the rank, clamped to the largest value). 1 KiB, where
 * lib/hist.h's (finer, for reports) is 30 KiB: the view keeps two for
 * each of its thousands of rows. */
#define TOP_HIST_SUB 4
#define TOP_HIST_BUCKETS (TOP_HIST_SUB + 62 * TOP_HIST_SUB)

struct top_hist {
	uint64_t n, max;
	uint32_t b[TOP_HIST_BUCKETS];
};

void top_hist_add(struct top_hist *h, uint64_t v);
/* Adds h's values to into's. */
void top_hist_merge(struct top_hist *into, const struct top_hist *h);
/* q in [0, 1]; 0 when empty. */
uint64_t top_hist_q(const struct top_hist *h, double q);
/* Counts per power of two: out[k] holds the values in [2^k, 2^(k+1)), out[0]
 * also 0 and 1. */
void top_hist_log2(const struct top_hist *h, uint64_t out[64]);

/* The classes of the overview: what a storage engineer sizes for. */
enum top_class {
	TOP_READ,	/* data_read */
	TOP_WRITE,	/* data_write, data_copy */
	TOP_SYNC,
	TOP_META,	/* open, fd, stat, namespace, cwd, attr, xattr */
	TOP_DIR,	/* getdents */
	TOP_OTHER,	/* mmap, async submission calls, processes */
	TOP_NCLASS
};
const char *top_class_name(unsigned c);
unsigned top_class_of(unsigned sys);

/* One row of a table: a syscall, a class, a file, a process, a stack. */
struct top_row {
	uint64_t key, key2;	/* what it is (heavy hitters: its identity) */
	uint64_t count, errors, bytes, time_ns;
	uint64_t over;		/* a heavy hitter's count may be this much
				 * too high (it took an evicted row's place) */
	uint64_t gap_ns, gaps;	/* think time before its calls */
	struct top_hist lat, gap;
	char *text;		/* files: the path; stacks: the path */
	uint32_t pid;		/* processes, stacks: a pid of it */
	char comm[16];
};

/* Heavy hitters (space saving): at most cap rows; a new key when all are
 * taken replaces the least counted of a few sampled rows, and inherits its
 * count as `over`. The rows counted most are kept; memory is fixed. */
struct top_hh {
	struct top_row *rows;
	uint32_t n, cap;
	struct u64map idx;	/* hash of (key, key2) -> row index + 1 */
	uint64_t rng, evicted;
	/* the rows found last, by a cheap mix of (key, key2): row index + 1,
	 * checked against the row's keys, so that a loop over a few files,
	 * processes or stacks skips the hash table */
	uint32_t memo[64];
};

/* One event of the stream (the events tab). */
struct top_event {
	uint64_t t, dur, gap;	/* boot ns; gap: UINT64_MAX when none */
	int64_t ret;
	uint32_t pid, tid;
	int32_t fd;
	uint16_t sys;
	char comm[16];
	char path[96];		/* its tail when longer, with a leading '…' */
};

#define TOP_SECONDS 120		/* sparkline history */
#define TOP_EVENTS 8192		/* the stream's scroll-back */
#define TOP_FILES 1024
#define TOP_PROCS 512
#define TOP_STACKS 2048
#define TOP_COMMS 4096		/* distinct process names kept */

struct model;

/* A thread's last call's end, for think time without the resolver: slot
 * tid % TOP_TIDS (a thread whose slot another took has no gap that call). */
#define TOP_TIDS 4096
struct top_tid_end {
	uint32_t tid;
	uint64_t end;
};

struct top_agg {
	struct model *m;	/* the resolver; NULL once it failed */
	int model_err;		/* why it failed (model_strerror()) */
	uint64_t t0;		/* boot ns of the first record */
	uint64_t t_last;	/* latest completion seen */
	uint64_t records, syscalls, procs, drops, malformed;
	struct top_row sys[RIOT_SYS_COUNT];
	struct top_row cls[TOP_NCLASS];
	struct top_hh files, procs_hh, stacks;
	/* per second of completion, by class: ops and bytes; slot s % TOP_SECONDS */
	uint64_t sec_first;	/* the oldest second the slots hold */
	uint64_t sec_last;	/* the newest */
	uint64_t ops_s[TOP_SECONDS][TOP_NCLASS], bytes_s[TOP_SECONDS][TOP_NCLASS];
	/* the stream */
	struct top_event *ev;
	uint64_t ev_total;	/* events ever added: the ring holds the last */
	/* think time: the sum of gaps and of synchronous calls' durations */
	uint64_t think_ns, busy_ns;
	/* pid -> comm index + 1; comms interned up to TOP_COMMS */
	struct u64map comm_of, comm_idx;
	char (*comms)[16];
	uint32_t ncomms;
	uint32_t memo_pid, memo_comm;	/* the last pid looked up, its comm's
					 * index + 1 (0: none); memo_pid 0: none */
	struct top_tid_end *tid_end;	/* TOP_TIDS */
	uint64_t sec_lo;	/* boot ns where second sec_last begins */
	uint64_t *sec_ops, *sec_bytes;	/* its slots (valid while sec_lo) */
	/* Sampling (top_agg_sample()): above TOP_DETAIL_RATE calls a second
	 * one call in `every` is taken whole and counted `every` times: in
	 * the details (files, processes, stacks, the stream) and in the
	 * errors, times, think time and histograms of the syscall and class
	 * rows. Their calls and bytes, and the rates, count every call; the
	 * resolver is fed every call that may change its tables. */
	bool sampling;
	uint32_t every;
	uint32_t countdown;	/* syscall records to the next taken whole
				 * (1 when not sampling) */
	/* the calls and bytes of the calls the sample skipped, by syscall
	 * ([RIOT_SYS_COUNT]: one riot does not know), not yet in sys[] and
	 * `syscalls` (top_agg_settle() moves them) */
	struct top_tally {
		uint64_t count, bytes;
	} skipped[RIOT_SYS_COUNT + 1];
	uint64_t win_lo, win_n;	/* the current tenth of a second, its calls */
	uint32_t win_taken;	/* calls taken since win_lo or since `every`
				 * last grew */
	uint64_t sampled_calls;	/* calls the details saw */
	/* Sampling: skipped opens the resolver has not been fed yet, oldest
	 * first (it is fed them before anything else), and the opens it was
	 * spared with their closes */
	struct top_pend {
		struct riot_rec rec;
		char path[4096];
	} *pend;		/* TOP_PEND */
	uint32_t npend;
	uint64_t spared;
};
#define TOP_PEND 16

/* Live views (riot top with a capture) sample past this rate: 2,500
 * calls a second is over 600 a refresh, and a call taken whole costs
 * what over a hundred skipped ones do (benchmarks/top_agg: about 300 ns
 * against 1 to 2), a cost over capture's that grows with this rate: the
 * aggregate costs a 1M-call/s pread loop 1.8 ns a call at 2,500, and
 * cost it 2.4 at 5,000. */
#define TOP_DETAIL_RATE 2500
/* A tenth of a second takes at most this many calls whole before its rate
 * so far sets the sample (a capture's start, a burst): a short burst is
 * seen whole, a long one costs no more than the rest. */
#define TOP_BURST_WHOLE 4096

/* 0 or -ENOMEM. */
int top_agg_init(struct top_agg *a);
void top_agg_fini(struct top_agg *a);
/* Forgets every count (the view's reset); the resolver's state stays. */
void top_agg_reset(struct top_agg *a);
/* From now on, sample the details when calls come faster than
 * TOP_DETAIL_RATE a second (a live capture: what the view costs must not
 * grow with the rate). */
void top_agg_sample(struct top_agg *a);
/* The syscall rows and `syscalls` brought up to date, and the class rows
 * from them: call before reading a->sys, a->syscalls or a->cls. */
void top_agg_settle(struct top_agg *a);
/* One record, in log order. 0, or -ENOMEM. A resolver error (too many
 * distinct paths) is kept in model_err and paths are then shown as
 * recorded. */
int top_agg_add(struct top_agg *a, const struct riot_rec *rec);
/* One operation handed in without a record (top_fed): path as given, no
 * resolver; gap_ns < 0: none. 0, or -ENOMEM. */
int top_agg_add_op(struct top_agg *a, const struct riot_syscall *sc, const char *path,
		   int64_t gap_ns);
/* Names pid (top_fed). */
void top_agg_name(struct top_agg *a, uint32_t pid, const char *comm);
/* The comm of pid ("?" when unknown). */
const char *top_agg_comm(const struct top_agg *a, uint32_t pid);
/* The i-th event from the newest (0) back; NULL past the scroll-back. */
const struct top_event *top_agg_event(const struct top_agg *a, uint64_t i);
/* Bytes the aggregate holds (for the bench and the overview). */
uint64_t top_agg_bytes(const struct top_agg *a);

/* ---- term.c: the terminal ---- */

struct screen;
struct top_term {
	struct screen *screen;
	bool open;
	bool utf8;		/* the locale's: block glyphs, else ASCII */
	bool colour;		/* the terminal has colours and NO_COLOR is unset */
	bool fallback;		/* $TERM unknown here: the built-in description */
};
/* Sets up the terminal on stdin/stdout: 0, or -errno with why filled. */
int top_term_open(struct top_term *t, char *why, size_t len);
/* Puts the terminal back as it was. */
void top_term_close(struct top_term *t);

/* ---- view.c: the tabs ---- */

struct capture_watch;
/* What the command hands the view at each step. */
struct top_src {
	struct top_agg *agg;
	const char *title;	/* what is shown: the target, or the log */
	uint64_t now;		/* boot ns the view is at: the clock of a live
				 * capture, the cursor in a log */
	struct capture_watch *watch;	/* a live capture's, NULL otherwise */
	bool ended;		/* the capture has ended (live) */
	const char *end_note;	/* why, shown beside the figures */
	/* a log: its span, and where the user moved the cursor to */
	bool log;
	uint64_t log_t0, log_t1, seek;
	/* fed by another command (top_fed): what gap_ns means there, and
	 * the operations the view missed */
	const char *gap_name;	/* NULL: think time */
	uint64_t lost;
};

enum top_action { TOP_NONE, TOP_QUIT, TOP_SEEK };

struct top_view;
/* The view on an open terminal t. NULL on ENOMEM. */
struct top_view *top_view_new(struct top_term *t);
void top_view_free(struct top_view *v);
/* Waits up to timeout_ms for a key, handles it, and draws when a
 * refresh is due (4 a second) or a key changed the view. TOP_QUIT on q;
 * TOP_SEEK when the user moved a log's cursor (to src->seek). */
enum top_action top_view_step(struct top_view *v, struct top_src *src, int timeout_ms);

/* ---- picker.c ---- */

/* On an open terminal: the processes by recent file I/O, until the user
 * picks one (0, *out set), quits (1; also once *stop is set), or -ENOMEM. */
int top_pick(pid_t *out, volatile int *stop);

#endif
