/* top/cmd_top.c: `riot top`: a capture watched live on the terminal, or a
 * log browsed with a time cursor (top_int.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/capture.h"
#include "lib/cli.h"
#include "lib/clock.h"
#include "top/top.h"
#include "top/top_int.h"

const char cmd_top_help[] =
"Usage: riot top [TARGET] [FILTERS] [-o FILE] [-d SECONDS] [OPTIONS]\n"
"       riot top FILE\n"
"\n"
"Shows file I/O as it happens, on the terminal: the same eBPF capture as\n"
"riot capture, with the same targets and in-kernel filters, drawn a few\n"
"times a second. Without a target, a process picker comes first.\n"
"With FILE (a .riot log), browses the log with the same tabs and a time\n"
"cursor (Left/Right: a twentieth of the log; [ and ]: a second; < and >:\n"
"its start and end).\n"
"\n"
"Target (at most one; none: pick a process, the most file I/O first, type\n"
"to search by pid, name or command line):\n"
"  -- CMD [ARGS...]    start CMD and watch it and every descendant (its\n"
"                      output goes to /dev/null; quitting stops it)\n"
"  -p, --pid PID[,PID...]\n"
"                      existing processes, and what they fork\n"
"      --cgroup PATH   every process in the cgroup v2 PATH or below it\n"
"      --unit NAME     every process of the systemd unit NAME\n"
"  -a, --all           the whole host, riot itself excluded\n"
"\n"
"Filters (as riot capture's, applied in the kernel):\n"
"      --comm NAME     only tasks whose comm is NAME\n"
"      --ops LIST      only these syscalls or classes (riot capture --help)\n"
"      --path PREFIX   only operations on files under PREFIX (absolute)\n"
"\n"
"Options:\n"
"  -o, --output FILE   also write the log, as riot capture -o FILE would\n"
"  -d, --duration SECONDS\n"
"                      stop watching after SECONDS (the view stays until q)\n"
"      --ring-size MIB ring buffer size, a power of 2 up to 2048 (default 16)\n"
"      --nice N        riot's nice value while it watches (default -10)\n"
"      --zstd-level N  compression level of the log written with -o (default 1)\n"
"  -q, --quiet         no summary of the log after quitting\n"
"  -h, --help          this text\n"
"\n"
"Tabs (number keys, Tab): 1 overview (per class: ops/s, bytes/s, the last\n"
"minute as a sparkline, p50, p99; think time; drops; the log), 2 syscalls,\n"
"3 files (d: by directory), 4 processes (sortable tables: s cycles the sort\n"
"column; Enter: histograms and what the row is made of; e: the table as CSV\n"
"in the current directory), 5 latency (log2 histograms of durations and of\n"
"think time, per class or syscall), 6 flame (process, syscall, path\n"
"components; o: stack order; w: weight by time, count or bytes; arrows\n"
"move, Enter zooms, Backspace zooms out, / searches), 7 events (the last\n"
"8192 calls; f adds a filter, F pops one: comm=, pid=, tid=, sys=, fd=,\n"
"ret=, errno=, path=GLOB, path~REGEX, lat>DUR, gap>DUR, err), 8 probes\n"
"(Space switches a syscall or class on or off in the kernel while it runs).\n"
"Everywhere: Space pauses, r resets the counts, q quits, Ctrl-C too.\n"
"\n"
"Memory is bounded: the files, processes and stacks shown are the ones\n"
"counted most (heavy hitters: 1024, 512, 2048), not every one; the\n"
"resolver of paths keeps every distinct path up to its limit (256 MiB of\n"
"text), then shows paths as recorded.\n"
"\n"
"Needs a terminal (stdin and stdout; use riot capture otherwise), and for\n"
"a capture what riot capture needs. Works in 80x24 and up, with or without\n"
"colour (NO_COLOR) and UTF-8; a terminal unknown to this host's terminfo is\n"
"drawn as xterm-256color. q and Ctrl-C put the terminal back and finish a\n"
"log being written.\n"
"\n"
"Exit status: 0; 1 on error; 2 on a usage error.\n";

static volatile int interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* ---- a live capture ---- */

struct live {
	struct top_agg agg;
	struct top_term term;
	struct top_view *view;
	struct top_src src;
	char title[256];
	int err;		/* the terminal could not be set up */
	char why[256];
	bool quit;
	bool cmd;		/* the target is a command riot top started */
};

static int live_rec(void *ctx, const struct riot_rec *rec)
{
	struct live *l = ctx;

	return top_agg_add(&l->agg, rec);
}

static int live_open(struct live *l)
{
	if (l->view || l->err)
		return l->err;
	l->err = top_term_open(&l->term, l->why, sizeof(l->why));
	if (!l->err && !(l->view = top_view_new(&l->term)))
		l->err = -ENOMEM;
	return l->err;
}

static int live_tick(void *ctx, struct capture_watch *w)
{
	struct live *l = ctx;

	if (live_open(l))
		return l->err;
	l->src.watch = w;
	l->src.now = riot_now_ns(CLOCK_BOOTTIME);
	if (top_view_step(l->view, &l->src, 0) == TOP_QUIT) {
		l->quit = true;
		return 1;
	}
	return 0;
}

/* The capture ended: the view stays, with the last figures, until q. */
static void live_end(void *ctx, struct capture_watch *w)
{
	struct live *l = ctx;
	struct capture_counts cc;

	if (!l->view)
		return;
	capture_watch_counts(w, &cc);
	if (!l->quit && !cc.signals) {
		unsigned signals = cc.signals;
		char note[64];

		if (cc.target_gone && l->cmd)
			snprintf(note, sizeof(note), "exited %d; q quits", cc.child_status);
		else if (cc.target_gone)
			snprintf(note, sizeof(note), "the processes ended; q quits");
		else
			snprintf(note, sizeof(note), "stopped; q quits");
		l->src.end_note = note;
		l->src.ended = true;
		l->src.watch = w;
		l->src.now = l->agg.t_last > l->src.now ? l->agg.t_last : l->src.now;
		for (;;) {
			if (top_view_step(l->view, &l->src, 200) == TOP_QUIT)
				break;
			capture_watch_counts(w, &cc);
			if (cc.signals != signals)
				break;
		}
		l->src.end_note = NULL;
	}
	top_view_free(l->view);
	l->view = NULL;
	top_term_close(&l->term);
}

static void title_of(const struct capture_opts *o, char *b, size_t len)
{
	size_t n = 0;

	if (o->cmd) {
		n = snprintf(b, len, "command:");
		for (int i = 0; o->cmd[i] && n < len; i++)
			n += snprintf(b + n, len - n, " %s", o->cmd[i]);
	} else if (o->mode == RIOT_TARGET_PIDS) {
		n = snprintf(b, len, "pid");
		for (unsigned i = 0; i < o->npids && n < len; i++)
			n += snprintf(b + n, len - n, "%s%d", i ? "," : " ", o->pids[i]);
	} else if (o->mode == RIOT_TARGET_CGROUP) {
		snprintf(b, len, "cgroup %s", o->cgroup);
	} else {
		snprintf(b, len, "every process");
	}
}

/* No target: the picker, on a terminal of its own. 0 with a pid in o, 1
 * when the user quit, or -errno (said). */
static int pick(struct capture_opts *o)
{
	struct top_term t;
	char why[256];
	pid_t pid = 0;
	int rc = top_term_open(&t, why, sizeof(why));

	if (rc) {
		riot_err("%s", why);
		return rc;
	}
	rc = top_pick(&pid, &interrupted);
	top_term_close(&t);
	if (rc < 0) {
		riot_err("%s", strerror(-rc));
		return rc;
	}
	if (rc == 0) {
		o->pids[0] = pid;
		o->npids = 1;
	}
	return rc;
}

static int run_live(struct capture_opts *o, int argc, char **argv)
{
	static struct live l;
	/* keys end the drain's wait; input that is always ready (a file,
	 * /dev/null) would end every wait at once */
	struct capture_hooks h = { &l, live_rec, live_tick, live_end,
				   isatty(STDIN_FILENO) ? STDIN_FILENO : -1 };
	int rc;

	memset(&l, 0, sizeof(l));
	if (top_agg_init(&l.agg)) {
		riot_err("out of memory");
		return RIOT_EXIT_FAIL;
	}
	top_agg_sample(&l.agg);	/* the view's cost must not grow with the rate */
	title_of(o, l.title, sizeof(l.title));
	l.cmd = o->cmd != NULL;
	l.src.agg = &l.agg;
	l.src.title = l.title;
	if (o->quiet == false && !o->out)
		o->quiet = true;
	rc = capture_session(o, argc, argv, &h);
	if (l.err) {
		if (l.why[0])
			riot_err("%s", l.why);
		rc = RIOT_EXIT_FAIL;
	}
	top_agg_fini(&l.agg);
	return rc;
}

/* ---- a log ---- */

struct browse {
	struct riot_reader *r;
	const char *path;
	struct top_agg agg;
	struct riot_rec pending;	/* read past the cursor, not yet added */
	bool has_pending, at_end;
	uint64_t t0, t1;
};

static uint64_t rec_time(const struct riot_rec *rec)
{
	switch (rec->type) {
	case RIOT_REC_SYSCALL: return rec->sc.t + rec->sc.dur;
	case RIOT_REC_PROC: return rec->proc.t;
	case RIOT_REC_SNAP_PROC: return rec->sproc.t;
	case RIOT_REC_SNAP_FD: return rec->sfd.t;
	case RIOT_REC_DROP: return rec->drop.t_last;
	default: return 0;
	}
}

static int browse_open(struct browse *b, char *err, size_t len)
{
	if (b->r)
		riot_reader_close(b->r);
	b->r = riot_reader_open_logs(RIOT_LOGS_ONE(b->path), err, len);
	b->has_pending = b->at_end = false;
	return b->r ? 0 : -errno;
}

/* Adds the records up to the cursor t (records are in exit order). */
static int browse_to(struct browse *b, uint64_t t, char *err, size_t len)
{
	int rc;

	if (b->has_pending) {
		if (rec_time(&b->pending) > t)
			return 0;
		b->has_pending = false;
		if ((rc = top_agg_add(&b->agg, &b->pending)))
			return rc;
	}
	while (!b->at_end) {
		rc = riot_reader_next(b->r, &b->pending);
		if (rc < 0) {
			snprintf(err, len, "%s", riot_reader_error(b->r));
			return rc;
		}
		if (rc == 0) {
			b->at_end = true;
			break;
		}
		if (rec_time(&b->pending) > t && rec_time(&b->pending)) {
			b->has_pending = true;	/* its strings live until the next read */
			break;
		}
		if ((rc = top_agg_add(&b->agg, &b->pending)))
			return rc;
	}
	return 0;
}

/* The log's span: its start and its latest completion. */
static int browse_span(struct browse *b, char *err, size_t len)
{
	struct riot_rec rec;
	int rc;

	b->t0 = riot_reader_header(b->r)->start_t;
	b->t1 = b->t0;
	while ((rc = riot_reader_next(b->r, &rec)) > 0)
		if (rec_time(&rec) > b->t1)
			b->t1 = rec_time(&rec);
	if (rc < 0) {
		snprintf(err, len, "%s: %s", b->path, riot_reader_error(b->r));
		return rc;
	}
	return browse_open(b, err, len);
}

/* The aggregate from the log's start to t, again. */
static int browse_restart(struct browse *b, uint64_t t, char *err, size_t len)
{
	int rc;

	top_agg_fini(&b->agg);
	if ((rc = top_agg_init(&b->agg)))
		return rc;
	if ((rc = browse_open(b, err, len)))
		return rc;
	b->agg.t0 = b->t0;
	return browse_to(b, t, err, len);
}

static int run_log(const char *path)
{
	static struct browse b;
	struct top_term term;
	struct top_view *view = NULL;
	struct top_src src = { 0 };
	char err[512] = "", title[300];
	uint64_t cursor;
	int rc;

	memset(&b, 0, sizeof(b));
	b.path = path;
	if (top_agg_init(&b.agg)) {
		riot_err("out of memory");
		return RIOT_EXIT_FAIL;
	}
	if (browse_open(&b, err, sizeof(err)) || browse_span(&b, err, sizeof(err))) {
		riot_err("%s", err);
		goto fail;
	}
	cursor = b.t1;
	b.agg.t0 = b.t0;
	if ((rc = browse_to(&b, cursor, err, sizeof(err)))) {
		riot_err("%s: %s", path, err[0] ? err : strerror(-rc));
		goto fail;
	}
	if (top_term_open(&term, err, sizeof(err))) {
		riot_err("%s", err);
		goto fail;
	}
	if (!(view = top_view_new(&term))) {
		top_term_close(&term);
		riot_err("out of memory");
		goto fail;
	}
	if (!riot_reader_complete(b.r) && riot_reader_incomplete_reason(b.r))
		snprintf(title, sizeof(title), "%s (incomplete: %s)", path,
			 riot_reader_incomplete_reason(b.r));
	else
		snprintf(title, sizeof(title), "%s", path);
	src.title = title;
	src.log = true;
	src.log_t0 = b.t0;
	src.log_t1 = b.t1;
	rc = 0;
	while (!rc && !interrupted) {
		enum top_action act;

		src.agg = &b.agg;
		src.now = cursor;
		act = top_view_step(view, &src, 200);
		if (act == TOP_QUIT)
			break;
		if (act != TOP_SEEK)
			continue;
		rc = src.seek >= cursor ? browse_to(&b, src.seek, err, sizeof(err)) :
		     browse_restart(&b, src.seek, err, sizeof(err));
		cursor = src.seek;
	}
	top_view_free(view);
	top_term_close(&term);
	if (rc) {
		riot_err("%s: %s", path, err[0] ? err : strerror(-rc));
		goto fail;
	}
	riot_reader_close(b.r);
	top_agg_fini(&b.agg);
	return RIOT_EXIT_OK;
fail:
	if (b.r)
		riot_reader_close(b.r);
	top_agg_fini(&b.agg);
	return RIOT_EXIT_FAIL;
}

int cmd_top(int argc, char **argv)
{
	static struct capture_opts o;
	static struct capture_opt_bufs bufs;
	struct sigaction sa = { .sa_handler = on_interrupt };
	int rc;

	memset(&o, 0, sizeof(o));
	rc = capture_parse_args(argc, argv, &o, &bufs, CAPTURE_CMD_TOP, cmd_top_help);
	if (rc)
		return rc < 0 ? RIOT_EXIT_OK : rc;
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		riot_err("standard %s is not a terminal (to record without a view: "
			 "riot capture -o FILE ...)", isatty(STDIN_FILENO) ? "output" : "input");
		return RIOT_EXIT_FAIL;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (o.in)
		return run_log(o.in);
	if (o.mode == RIOT_TARGET_PIDS && !o.npids && !o.cmd) {
		rc = pick(&o);
		if (rc)
			return rc > 0 ? RIOT_EXIT_OK : RIOT_EXIT_FAIL;
	}
	return run_live(&o, argc, argv);
}
