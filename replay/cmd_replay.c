/* replay/cmd_replay.c: `riot replay FILE --root DIR [options]`. */
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "capture/block.h"
#include "replay/async.h"
#include "replay/engine.h"
#include "replay/pace.h"
#include "replay/feed.h"
#include "replay/init.h"
#include "lib/cli.h"
#include "lib/fleet.h"
#include "replay/replay.h"
#include "top/top.h"

#define START_LEAD_NS 2000000
#define REPLAY_MIN_SPEED 1e-6
/* --start-at: the long wait ends this long before the time, so the device
 * view, the engine and the log reader are ready when it comes */
#define START_AT_PREP_NS 1000000000LL

const char cmd_replay_help[] =
	"Usage: riot replay FILE --root DIR [options]\n"
	"\n"
	"Replays the file I/O of a .riot log beneath DIR: every captured thread is\n"
	"a stream whose operations are issued in captured order, one at a time.\n"
	"Captured paths map beneath DIR (/a/b -> DIR/a/b) and are resolved by the\n"
	"kernel so that nothing (.., symlinks) leaves it; paths under /proc, /sys\n"
	"and /dev are skipped and counted. The tree the workload expected is\n"
	"created first (riot init, then written back with syncfs), unless --no-init.\n"
	"\n"
	"Reads and writes are issued at the captured offset (reads and writes\n"
	"that used the file position get the position the capture had), writes\n"
	"write --fill data of the captured size. A call that failed in the capture\n"
	"does no I/O in the replay: a lookup that found no name (ENOENT, EEXIST,\n"
	"ENOTDIR...) is issued and fails the same way; a data or fd call, or a\n"
	"failure of the captured host's (EXDEV, EOPNOTSUPP, EACCES, EIO...), is\n"
	"counted \"failed as captured\" and not issued. Each result is compared\n"
	"with the captured one: a different error, a failure where the capture\n"
	"succeeded (or the reverse) or another byte count is a divergence,\n"
	"counted per syscall with the first examples. A run whose divergences,\n"
	"unreplayable ops and skipped ops on storage (not pipes, sockets, devices\n"
	"or /proc, /sys, /dev) pass 1 % of its ops, or where a success turned\n"
	"failure or back, starts its summary with a warning: its times describe\n"
	"the replay, not the program. The workload's io_uring and AIO\n"
	"requests are replayed with their captured in-flight depth, links and\n"
	"drains, its mmap'ed pages as preads and pwrites of the same ranges;\n"
	"mremap, madvise and msync of file mappings, and requests riot has no\n"
	"twin for, are counted unreplayable. ioctl FICLONE and FICLONERANGE are\n"
	"replayed on the replayed files.\n"
	"\n"
	"Options:\n"
	"  --root DIR        where the captured tree lives (created if absent; a\n"
	"                    non-empty DIR must carry riot's marker)\n"
	"  --map PREFIX=DIR  captured paths under PREFIX go beneath DIR instead\n"
	"                    (repeatable, longest prefix wins, whole components;\n"
	"                    / takes every path; when the workload made PREFIX,\n"
	"                    DIR is absent at the start, its parent holds riot's\n"
	"                    marker)\n"
	"  --timing T        fast (default): as fast as possible, the storage's\n"
	"                    own time; think: each thread's call the captured gap\n"
	"                    after its previous call ends (a child's first call\n"
	"                    after its creator's, a parent's after the child it\n"
	"                    waited for), so slower storage delays what follows\n"
	"                    as it would the program: the run's time predicts\n"
	"                    the program's on this storage (predicted_ns);\n"
	"                    captured: the captured schedule (--speed 1)\n"
	"  --speed X         the captured schedule's pace: 0: as fast as possible\n"
	"                    (default); 1: each op issued at start + its captured\n"
	"                    time; X (0.000001 or more): times divided by X. Every\n"
	"                    paced op's issue delay against its due time is\n"
	"                    measured\n"
	"  --order O         thread: per-thread order only; resource (default):\n"
	"                    also the captured order of ops of different threads on\n"
	"                    the same file or path; strict: one global order\n"
	"  --workers N       uring engine: at most N worker threads (default: one\n"
	"                    per captured thread, up to 1024); beyond N, captured\n"
	"                    threads share them\n"
	"  --engine E        how ops are issued: see Engines below; the default is\n"
	"                    the one whose latencies are the filesystem's own\n"
	"  --fill KIND       random (default), zero, compress:PCT\n"
	"  --no-init         replay onto DIR as it is\n"
	"  --drop-caches     sync and drop the page cache before the start\n"
	"  --no-block        do not record what reached the devices (below)\n"
	"  --block-dev DEV   record DEV (/dev/sdb1, sdb1 or 8:17; repeatable)\n"
	"                    instead of the devices of DIR's filesystem\n"
	"  --user USER       drop privileges to USER (a name or a numeric UID)\n"
	"                    after init\n"
	"  --report DB       store the run in the SQLite report DB\n"
	"  --label NAME      the run's label in the report\n"
	"  --shard K/N       replay only shard K (0 to N-1) of N: the processes whose\n"
	"                    pid hashes to K, all their threads; init makes only\n"
	"                    that shard's part of the tree (riot init --shard). N\n"
	"                    replays with 0/N .. N-1/N issue together exactly the\n"
	"                    operations of one whole replay\n"
	"  --start-at TIME   after init, wait and start the schedule at this\n"
	"                    wall-clock time: RFC 3339 (2026-12-03T16:00:00Z,\n"
	"                    ...T17:00:00.5+01:00) or Unix seconds (1764777600.5).\n"
	"                    A time already past starts at once; the summary says\n"
	"                    how late (start_unix_ns, start_late_ns in --json)\n"
	"  --dry-run         print the plan (streams, operations, files to create)\n"
	"                    and touch nothing\n"
	"  --json            the summary as one JSON object on stdout\n"
	"  --top             show the replay as it runs, with riot top's tabs (needs\n"
	"                    a terminal): what it issues per class, syscall, file\n"
	"                    and process, latencies, and the issue delay against\n"
	"                    the schedule where the replay is paced; q stops the\n"
	"                    replay (no summary), else the view stays at the end\n"
	"                    until q and the summary follows\n"
	"\n"
	"What reached the storage is recorded with the block tracepoints: the\n"
	"devices of DIR's filesystem (a loop device as itself, a device-mapper\n"
	"device through its members), from the first operation to a syncfs of\n"
	"DIR's filesystem after the last, so the writeback of what the replay\n"
	"wrote counts and init's does not (with --no-init, pages left dirty\n"
	"before do). Requests and bytes read, written and\n"
	"discarded, device latency p50/p99, queue depth and write amplification\n"
	"(device bytes written / bytes the workload wrote) follow the summary\n"
	"and go into the report. Every request to those devices counts, whoever\n"
	"sent it.\n"
	"\n"
	"A progress line is shown on a terminal. The summary gives operations,\n"
	"bytes, elapsed time, ops/s, latency p50/p99 per syscall, issue delay\n"
	"p50/p99/max and the share of paced ops over 1 ms late, fallbacks,\n"
	"divergences, skipped and unreplayable operations. A\n"
	"paced replay that fell behind (issue delay p99 over 1 ms, or an op over\n"
	"10 ms late) adds a line 'warning: timing not kept: ...'.\n";

void cmd_replay_help_more(FILE *out)
{
	replay_engines_help(out);
}

struct replay_args {
	const char *log, *root, *report, *label, *user;	/* log: the first file */
	struct riot_logs logs;
	uid_t uid;		/* --user, resolved before anything is touched */
	gid_t gid;
	struct replay_map maps[REPLAY_MAPS_MAX];
	unsigned nmaps;
	double speed;
	bool think;		/* --timing think */
	bool speed_set;		/* --speed given */
	const char *timing;	/* --timing as given, NULL: none */
	enum replay_order order;
	unsigned workers;
	const struct replay_engine *engine;
	const char *fill_name;
	struct fill fill;
	bool no_init, drop_caches, dry_run, json, no_block, top;
	struct riot_shard shard;
	bool start_at;
	int64_t start_at_ns;	/* --start-at, ns since the epoch */
	const char *block_devs[BLOCK_DEVS_MAX];
	unsigned nblock_devs;
};

static const char *const order_names[] = { "thread", "resource", "strict" };

static int parse_order(struct replay_args *a, const char *s)
{
	for (unsigned i = 0; i < 3; i++)
		if (strcmp(s, order_names[i]) == 0) {
			a->order = (enum replay_order)i;
			return 0;
		}
	return riot_usage("--order is thread, resource or strict");
}

/* --user NAME or a numeric UID, from /etc/passwd itself (a static binary
 * cannot load NSS modules): a UID without an entry keeps its number as
 * its group. Resolved while parsing, so a bad one touches nothing. */
static int find_user(struct replay_args *a)
{
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd *pw = NULL;
	uint64_t id;
	bool numeric = riot_parse_u64(a->user, &id) == 0 && id < UINT32_MAX;

	while (f && (pw = fgetpwent(f)) &&
	       !(numeric ? pw->pw_uid == (uid_t)id : strcmp(pw->pw_name, a->user) == 0))
		;
	if (pw) {
		a->uid = pw->pw_uid;
		a->gid = pw->pw_gid;
	} else if (numeric) {
		a->uid = (uid_t)id;
		a->gid = (gid_t)id;
	}
	if (f)
		fclose(f);
	return pw || numeric ? 0 : riot_usage("--user %s: no such user", a->user);
}

static int parse_option(struct replay_args *a, int c, char *arg)
{
	uint64_t n;

	switch (c) {
	case 'r': a->root = arg; return 0;
	case 'm': return replay_map_arg(arg, a->maps, &a->nmaps);
	case 's':
		a->speed_set = true;
		/* below REPLAY_MIN_SPEED a captured second lasts beyond any run
		 * and the schedule would overflow */
		if (riot_parse_double(arg, &a->speed) < 0 || a->speed < 0 || isinf(a->speed) ||
		    (a->speed > 0 && a->speed < REPLAY_MIN_SPEED))
			return riot_usage("--speed wants 0 or a number from %g up",
					  REPLAY_MIN_SPEED);
		return 0;
	case 'o': return parse_order(a, arg);
	case 't':
		a->timing = arg;
		if (strcmp(arg, "fast") && strcmp(arg, "think") && strcmp(arg, "captured"))
			return riot_usage("--timing is fast, think or captured");
		a->think = strcmp(arg, "think") == 0;
		return 0;
	case 'w':
		if (riot_parse_u64(arg, &n) < 0 || n < 1 || n > REPLAY_MAX_THREADS)
			return riot_usage("--workers wants 1..%u", REPLAY_MAX_THREADS);
		a->workers = (unsigned)n;
		return 0;
	case 'e':
		if (!(a->engine = replay_engine_find(arg))) {
			char names[256];

			replay_engine_names(names, sizeof(names));
			return riot_usage("--engine '%s' is none of the engines: %s", arg, names);
		}
		return 0;
	case 'f':
		a->fill_name = arg;
		return fill_parse(arg, &a->fill) < 0 ?
			riot_usage("--fill is random, zero or compress:PCT") : 0;
	case 'n': a->no_init = true; return 0;
	case 'd': a->drop_caches = true; return 0;
	case 'B': a->no_block = true; return 0;
	case 'b':
		if (a->nblock_devs == BLOCK_DEVS_MAX)
			return riot_usage("--block-dev: at most %d devices", BLOCK_DEVS_MAX);
		a->block_devs[a->nblock_devs++] = arg;
		return 0;
	case 'u': a->user = arg; return find_user(a);
	case 'R': a->report = arg; return 0;
	case 'L': a->label = arg; return 0;
	case 'D': a->dry_run = true; return 0;
	case 'j': a->json = true; return 0;
	case 'V': a->top = true; return 0;
	case 'S':
		return riot_shard_parse(arg, &a->shard) < 0 ?
			riot_usage("--shard wants K/N with 0 <= K < N <= %d, got '%s'",
				   RIOT_SHARD_MAX, arg) : 0;
	case 'T':
		a->start_at = true;
		return riot_parse_wall_time(arg, &a->start_at_ns) < 0 ?
			riot_usage("--start-at wants an RFC 3339 time with its zone "
				   "(2026-12-03T16:00:00Z) or Unix seconds, got '%s'", arg) : 0;
	default: return riot_usage("bad option");
	}
}

/* --timing's name of how the ops were timed. */
static const char *timing_name(const struct replay_args *a)
{
	return a->think ? "think" : a->speed > 0 ? "captured" : "fast";
}

/* A replay whose ops wait for a due time. */
static bool paced(const struct replay_args *a)
{
	return a->speed > 0 || a->think;
}

static int parse_args(int argc, char **argv, struct replay_args *a)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' }, { "map", required_argument, NULL, 'm' },
		{ "speed", required_argument, NULL, 's' }, { "order", required_argument, NULL, 'o' },
		{ "workers", required_argument, NULL, 'w' }, { "engine", required_argument, NULL, 'e' },
		{ "fill", required_argument, NULL, 'f' }, { "no-init", no_argument, NULL, 'n' },
		{ "drop-caches", no_argument, NULL, 'd' }, { "user", required_argument, NULL, 'u' },
		{ "report", required_argument, NULL, 'R' }, { "label", required_argument, NULL, 'L' },
		{ "dry-run", no_argument, NULL, 'D' }, { "json", no_argument, NULL, 'j' },
		{ "no-block", no_argument, NULL, 'B' }, { "block-dev", required_argument, NULL, 'b' },
		{ "shard", required_argument, NULL, 'S' }, { "start-at", required_argument, NULL, 'T' },
		{ "timing", required_argument, NULL, 't' }, { "top", no_argument, NULL, 'V' },
		{ 0 },
	};
	char err[512];
	int c, rc;

	*a = (struct replay_args){ .order = ORDER_RESOURCE, .engine = replay_engines[0],
				   .fill_name = "random", .fill = { .kind = FILL_RANDOM } };
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1)
		if ((rc = parse_option(a, c, optarg)) != 0)
			return rc;
	if (argc - optind < 1)
		return riot_usage("needs a FILE (or the segments of one, in order)");
	a->log = argv[optind];
	a->logs = (struct riot_logs){ (const char *const *)argv + optind,
				      (unsigned)(argc - optind) };
	if (!a->root && !a->dry_run)
		return riot_usage("needs --root DIR");
	if (a->timing && strcmp(a->timing, "captured") == 0) {
		if (!a->speed_set)
			a->speed = 1;
	}
	if (a->timing && strcmp(a->timing, "captured") && a->speed_set)
		return riot_usage("--speed sets the captured timing's pace: not with --timing %s",
				  a->timing);
	if (a->top && (a->json || a->dry_run))
		return riot_usage("--top draws on the terminal: not with %s",
				  a->json ? "--json" : "--dry-run");
	if (a->label && !a->report)
		return riot_usage("--label names a run in --report DB: give --report too");
	if (replay_map_check(a->maps, a->nmaps, err, sizeof(err)) < 0)
		return riot_usage("%s", err);
	return 0;
}

/* ---- dry run: the plan without touching anything ---- */

struct dry_engine {
	struct replay_plan *plan;
	uint64_t ops[ACT_COUNT];
};

static int dry_route(void *eng, uint32_t stream, uint32_t pid)
{
	return 0;
}

static int dry_push(void *eng, unsigned lane, uint64_t seq)
{
	struct dry_engine *d = eng;
	struct replay_op *op = replay_plan_op(d->plan, seq);

	d->ops[op->act]++;
	replay_op_complete(d->plan, op);
	return 0;
}

/* Between two passes over a log (the plan's and init's), each holding
 * memory that grows with its distinct paths, so that the two do not add
 * up: what the first freed goes back to the system, and the large arrays
 * of the next are mapped, as the first's were (freeing those raised
 * glibc's mmap threshold up to 32 MiB: arrays below it would grow by copy
 * in the heap, their old blocks left resident). */
static void release_heap(void)
{
	malloc_trim(0);
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
}

static int dry_run(const struct replay_args *a)
{
	struct replay_plan_opts po = { .logs = &a->logs, .order = a->order,
				       .route = dry_route, .push = dry_push, .shard = a->shard };
	struct dry_engine d = { 0 };
	struct init_result res;
	char err[512];
	int rc;

	po.eng = &d;
	d.plan = replay_plan_new(&po, err, sizeof(err));
	if (!d.plan) {
		riot_err("%s", err);
		return RIOT_EXIT_FAIL;
	}
	rc = replay_plan_run(d.plan);
	if (rc < 0) {
		riot_err("%s: %s", a->log, replay_plan_error(d.plan));
		replay_plan_free(d.plan);
		return RIOT_EXIT_FAIL;
	}
	printf("plan: %" PRIu64 " operations in %u streams, %s order\n",
	       replay_plan_planned(d.plan), replay_plan_nstreams(d.plan), order_names[a->order]);
	for (uint32_t i = 0; i < replay_plan_nstreams(d.plan); i++) {
		const struct replay_stream *s = replay_plan_stream(d.plan, i);

		printf("stream %u: pid %u tid %u, %" PRIu64 " operations\n", i, s->pid, s->tid, s->ops);
	}
	for (unsigned k = 0; k < ACT_COUNT; k++)
		if (d.ops[k])
			printf("%-16s %" PRIu64 "\n", replay_act_name(k), d.ops[k]);
	replay_plan_free(d.plan);
	if (a->no_init)
		return RIOT_EXIT_OK;
	release_heap();
	printf("files to create:\n");
	rc = replay_init_plan(&a->logs, &a->shard, replay_init_print_entry, stdout, &res, err, sizeof(err));
	if (rc < 0) {
		riot_err("%s", err);
		return RIOT_EXIT_FAIL;
	}
	return RIOT_EXIT_OK;
}

/* ---- set-up ---- */

/* What would fail the run at its end, or after the root was made, is
 * refused first: a log that cannot be read to its end, a report that
 * cannot take the run. */
static int check_inputs(const struct replay_args *a)
{
	char err[PATH_MAX + 512];
	bool found;

	if (riot_log_check(&a->logs, err, sizeof(err)) < 0) {
		riot_err("%s", err);
		return -1;
	}
	if (a->report && run_db_recover(a->report, &found, err, sizeof(err)) == 0 && found)
		fprintf(stderr, "riot: replay: --report %s: an earlier riot report (or replay) was "
			"stopped while storing a run; that run was not stored and is rolled back\n",
			a->report);
	if (a->report && run_db_check(a->report, a->label, err, sizeof(err)) < 0) {
		riot_err("--report %s", err);
		return -1;
	}
	return 0;
}

static struct replay_root *prepare_root(struct replay_args *a)
{
	char err[PATH_MAX + 256];
	struct replay_root *r = NULL;

	if (replay_maps_for_log(&a->logs, a->maps, a->nmaps, err, sizeof(err)) == 0)
		r = replay_root_setup(a->root, a->maps, a->nmaps, err, sizeof(err));
	replay_maps_release(a->maps, a->nmaps);

	if (!r)
		riot_err("%s", err);
	return r;
}

/* Sets *max_open to the most files the log holds open at once. */
static int run_init(const struct replay_args *a, const struct replay_root *root, FILE *out,
		    uint64_t *max_open)
{
	struct init_opts io = { .progress = isatty(2), .shard = a->shard };
	struct init_result res;
	char err[512];

	int rc;

	if (replay_init_run(&a->logs, root, &a->fill, &io, &res, err, sizeof(err)) < 0) {
		riot_err("init: %s", err);
		return -1;
	}
	*max_open = res.max_open;
	/* the capture did not start with init's dirty pages either */
	if ((rc = replay_root_sync(root)) < 0) {
		riot_err("init: syncfs of the root: %s", strerror(-rc));
		return -1;
	}
	fprintf(out, "init:          %" PRIu64 " dirs, %" PRIu64 " files, %" PRIu64
		" symlinks, %" PRIu64 " bytes, %" PRIu64 " failed%s%s (%.3f s)\n",
		res.dirs, res.files, res.symlinks, res.bytes, res.failed,
		res.failed ? ": first " : "", res.failed ? res.first_failure : "", res.seconds);
	return 0;
}

static int drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "3\n", 2) != 2) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		riot_err("--drop-caches: /proc/sys/vm/drop_caches: %s", strerror(e));
		return -1;
	}
	close(fd);
	return 0;
}

static int drop_privileges(const struct replay_args *a)
{
	if (setgroups(1, &a->gid) < 0 || setgid(a->gid) < 0 || setuid(a->uid) < 0) {
		riot_err("--user %s: %s", a->user, strerror(errno));
		return -1;
	}
	return 0;
}

/* --no-init: the most files the log holds open at once, from a pass of
 * its own (the one init makes otherwise). */
static int count_open(const struct replay_args *a, uint64_t *max_open)
{
	char err[512];

	if (replay_init_max_open(&a->logs, max_open, err, sizeof(err)) < 0) {
		riot_err("%s", err);
		return -1;
	}
	return 0;
}

/* Files riot keeps open besides the workload's: the log, the roots, the
 * rings, each worker's lookups. */
#define OWN_FDS 64

/* One line before the start when the hard limit of open files is below
 * what the log keeps open at once: the calls beyond it would fail with
 * EMFILE (and what follows on those fds with EBADF) where the capture
 * succeeded. */
static void check_fd_limit(uint64_t max_open)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_max == RLIM_INFINITY ||
	    (uint64_t)rl.rlim_max >= max_open + OWN_FDS)
		return;
	fprintf(stderr, "riot: replay: warning: the log holds up to %" PRIu64 " files open at "
		"once, the hard limit of open files is %llu (ulimit -Hn): raise it to %" PRIu64
		" or more, or the calls beyond it fail with EMFILE\n", max_open,
		(unsigned long long)rl.rlim_max, max_open + OWN_FDS);
}

/* Registered file tables and real fds are limited by RLIMIT_NOFILE: use
 * all the hard limit allows, so large traces need no set-up. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* ---- the run ---- */

struct replay_run {
	const struct replay_args *a;
	struct replay_ctx cx;
	void *eng;
	struct replay_async *async;	/* the program's rings, AIO contexts */
	pthread_t producer;
	int producer_rc;
	struct replay_stats total;
	uint64_t elapsed_ns;
	struct replay_feed *feed;	/* --top: what the view is fed */
	struct top_fed *view;
	struct block_view dev;		/* what reached the root's devices */
	int64_t start_unix_ns;	/* wall-clock time of cx.start_ns */
	uint64_t start_late_ns;	/* --start-at: how far past it */
};

static void *producer_main(void *arg)
{
	struct replay_run *r = arg;

	r->producer_rc = replay_plan_run(r->cx.plan);
	return NULL;
}

static void progress(const struct replay_run *r, uint64_t now)
{
	uint64_t done = atomic_load(&r->cx.completed);
	uint64_t planned = replay_plan_planned(r->cx.plan);
	double secs = now > r->cx.start_ns ? (double)(now - r->cx.start_ns) / 1e9 : 0;
	double rate = secs > 0 ? (double)done / secs : 0;

	if (replay_plan_finished(r->cx.plan) && rate > 0)
		fprintf(stderr, "\r%" PRIu64 " of %" PRIu64 " ops, %.0f ops/s, ETA %.0f s   ",
			done, planned, rate, (double)(planned - done) / rate);
	else
		fprintf(stderr, "\r%" PRIu64 " of %" PRIu64 "+ ops, %.0f ops/s   ", done, planned,
			rate);
}

/* --top: what the queue holds, into the view. */
static void feed_view(struct replay_run *r)
{
	struct replay_seen e;

	while (replay_feed_take(r->feed, &e)) {
		struct top_fed_op op = {
			.t_ns = e.t_ns, .dur_ns = e.lat_ns, .ret = e.result,
			.gap_ns = e.delay_ns, .pid = e.pid, .tid = e.tid, .sys = e.sys,
			.path = e.text,
		};

		if (e.kind == SEEN_NAME)
			top_fed_name(r->view, e.pid, e.text);
		else if (e.kind == SEEN_FORK)
			top_fed_fork(r->view, e.tid, e.pid);
		else if (top_fed_add(r->view, &op) < 0)
			break;	/* no memory: the view stops growing */
	}
}

static volatile int top_stop;
static void on_stop(int sig)
{
	(void)sig;
	top_stop = 1;
}

/* --top: q or a signal while it runs. The replay cannot be wound down
 * from here (its threads hold the root's files mid-operation): the
 * terminal is put back and riot exits, as a signal would have ended it. */
static void top_quit(struct replay_run *r)
{
	top_fed_close(r->view);
	r->view = NULL;
	fprintf(stderr, "riot: replay: stopped before the end (%s): no summary, the root is as "
		"the replay left it\n", top_stop ? "signal" : "q");
	fflush(NULL);
	_exit(RIOT_EXIT_FAIL);
}

/* Waits for the producer and every op, showing progress on a terminal
 * (with --top, the view). */
static void wait_run(struct replay_run *r)
{
	bool tty = isatty(2) && !r->view;
	uint64_t last = 0, now_end;

	while (!replay_plan_finished(r->cx.plan) ||
	       atomic_load(&r->cx.completed) + replay_plan_lost(r->cx.plan) <
		       replay_plan_planned(r->cx.plan)) {
		struct timespec ts = { 0, 20000000 };
		uint64_t now;

		if (r->view) {
			now = replay_now_ns();
			feed_view(r);
			if (top_stop || top_fed_step(r->view, now > r->cx.start_ns ?
						     now - r->cx.start_ns : 0,
						     replay_feed_lost(r->feed), 20))
				top_quit(r);
			continue;
		}
		nanosleep(&ts, NULL);
		now = replay_now_ns();
		if (tty && now - last >= 500000000u) {
			progress(r, now);
			last = now;
		}
	}
	now_end = replay_now_ns();
	r->elapsed_ns = now_end > r->cx.start_ns ? now_end - r->cx.start_ns : 0;
	if (tty && last)
		fprintf(stderr, "\r%60s\r", "");
	pthread_join(r->producer, NULL);
}

/* The producer runs ahead first, so the schedule does not start with an
 * empty window. */
/* The run starts once the log reader has planned a whole window (or the
 * whole log): a log that fits is replayed without the reader competing
 * for a CPU, and the engine threads never wait for it (each wait and
 * wake-up is a futex round trip, more than a cached read costs). A reader
 * that stops planning for 100 ms (it waits for something only the run
 * can give) does not hold the start. */
static void wait_read_ahead(struct replay_run *r)
{
	uint64_t last = 0, n;
	unsigned still = 0;

	while (!replay_plan_finished(r->cx.plan) &&
	       (n = replay_plan_planned(r->cx.plan)) < REPLAY_WINDOW && still < 100) {
		struct timespec ts = { 0, 1000000 };

		still = n == last ? still + 1 : 0;
		last = n;
		nanosleep(&ts, NULL);
	}
}

/* The wall-clock time (ns since the epoch) of a replay_now_ns() time. */
static int64_t wall_of(uint64_t now_ns)
{
	struct timespec ts;
	uint64_t mono = replay_now_ns();

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + ((int64_t)now_ns - (int64_t)mono);
}

static int64_t wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Sleeps until the wall clock reads t (ns since the epoch); a clock set
 * meanwhile moves the wake-up with it (an absolute CLOCK_REALTIME sleep). */
static void sleep_until_wall(int64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000), (long)(t % 1000000000) };

	if (t > 0)
		while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
}

/* --start-at: the schedule's start (cx.start_ns, a CLOCK_MONOTONIC time)
 * is made the monotonic time of the wall-clock target. A paced run opens
 * its gate START_LEAD_NS before it (the workers then wait for each op's
 * due time, as in any paced run); a run as fast as possible has no due
 * times, so the gate itself opens at the target: slept to the timers'
 * lateness before it, then spun. A target already past starts at once,
 * start_late_ns saying how late. The wait and the gate run at a real-time
 * priority where riot may take one (root), so a busy machine's other
 * threads cannot make the start late; the engine's threads keep theirs. */
static void start_at(struct replay_run *r)
{
	const struct replay_args *a = r->a;
	int64_t target = a->start_at_ns, lead = paced(a) ? START_LEAD_NS : 0;
	/* at a real-time priority the timer wakes this thread on time: the
	 * lag measured before, at the normal one, is capped, so the spin
	 * holds a CPU for a millisecond at most */
	int64_t spin = (int64_t)(r->cx.timer_lag_ns < 1000000 ? r->cx.timer_lag_ns : 1000000) +
		       100000, wall;
	struct sched_param rt = { .sched_priority = 1 }, normal = { 0 };
	bool raised = pthread_setschedparam(pthread_self(), SCHED_FIFO, &rt) == 0;
	uint64_t mono;

	sleep_until_wall(target - lead - spin);
	while (wall_now() < target - lead)
		replay_spin_pause();
	mono = replay_now_ns();
	wall = wall_now();
	if (wall + lead <= target) {
		r->cx.start_ns = mono + (uint64_t)(target - wall);
		r->start_unix_ns = target;
	} else {
		r->cx.start_ns = mono + (uint64_t)lead;
		r->start_unix_ns = wall + lead;
		r->start_late_ns = (uint64_t)(wall + lead - target);
	}
	replay_ctx_open_gate(&r->cx);
	if (raised)
		pthread_setschedparam(pthread_self(), SCHED_OTHER, &normal);
}

/* The plan's process records: to the report and to --top's view. */
static void on_proc(void *ctx, const struct riot_rec *rec)
{
	struct replay_run *r = ctx;

	if (r->cx.report)
		replay_report_proc(r->cx.report, rec);
	if (r->feed)
		replay_feed_proc(r->feed, rec);
}

static int start_run(struct replay_run *r)
{
	const struct replay_args *a = r->a;
	struct replay_plan_opts po = { .logs = &a->logs, .order = a->order,
				       .route = a->engine->route, .push = a->engine->push,
				       .shard = a->shard, .think = a->think };
	char err[512];

	/* before any thread of the run exists, on a CPU nothing of it uses */
	r->cx.clock_bias_ns = replay_clock_bias();
	if (paced(a) || a->start_at)
		r->cx.timer_lag_ns = replay_timer_lag();
	r->eng = a->engine->create(&r->cx, err, sizeof(err));
	if (!r->eng) {
		riot_err("%s", err);
		return -1;
	}
	po.eng = r->eng;
	/* the program's own rings and AIO contexts, whichever the engine */
	r->async = replay_async_new(&r->cx);
	if (!r->async) {
		riot_err("out of memory");
		return -1;
	}
	po.route_async = replay_async_route;
	po.push_async = replay_async_push;
	po.eng_async = r->async;
	if (r->cx.report || r->feed) {
		po.on_proc = on_proc;
		po.proc_ctx = r;
	}
	r->cx.plan = replay_plan_new(&po, err, sizeof(err));
	if (!r->cx.plan) {
		riot_err("%s", err);
		return -1;
	}
	if (a->engine->start(r->eng, err, sizeof(err)) < 0) {
		riot_err("%s", err);
		return -1;
	}
	if (pthread_create(&r->producer, NULL, producer_main, r) != 0) {
		riot_err("cannot start the log reader thread");
		return -1;
	}
	wait_read_ahead(r);
	if (a->start_at) {
		start_at(r);
	} else {
		/* the schedule starts a little ahead, so the workers are awake
		 * and waiting when the first op falls due */
		r->cx.start_ns = replay_now_ns() + (paced(a) ? START_LEAD_NS : 0);
		r->start_unix_ns = wall_of(r->cx.start_ns);
		replay_ctx_open_gate(&r->cx);
	}
	return 0;
}

/* --timing think: the program's predicted time: its calls' span as this
 * storage served them with its own time between them, and its time
 * before its first call and after its last as captured. */
static uint64_t predicted_ns(const struct replay_run *r)
{
	return r->total.think_vend_ns + replay_plan_outside_ns(r->cx.plan);
}

/* Whose traffic the device view was: a shard's is shared with its fleet;
 * else shared when other processes of the host wrote in the window, the
 * replay's alone when none did; unknown when they could not be read. */
static struct run_dev_sharing dev_sharing(const struct replay_run *r)
{
	const struct block_view *v = &r->dev;
	struct run_dev_sharing sh = { .shard_n = r->a->shard.n };

	if (!v->recorded || (!v->writers_known && sh.shard_n < 2))
		return sh;
	sh.others_known = v->writers_known;
	sh.others = v->other_writers;
	sh.other_bytes = v->other_bytes;
	sh.sharing = sh.shard_n > 1 || sh.others ? RUN_DEV_SHARED : RUN_DEV_SOLE;
	return sh;
}

static int store_report(struct replay_run *r, int argc, char **argv)
{
	const struct replay_args *a = r->a;
	char cmdline[4096] = "", err[512];
	size_t n = 0;
	struct run_meta meta = {
		.kind = RUN_REPLAY, .label = a->label, .fs_path = a->root,
		.cmdline = cmdline, .trace_file = a->log,
		.start_unix_ns = r->start_unix_ns,
		.start_at = a->start_at, .start_late_ns = r->start_late_ns,
		.shard_k = a->shard.k, .shard_n = a->shard.n,
		.duration_ns = r->elapsed_ns,
		.complete = replay_plan_log_complete(r->cx.plan), .speed = a->speed,
		.order = order_names[a->order], .workers = a->engine->threads(r->eng),
		.engine = a->engine->report_name,
		.fill = a->fill_name, .block = r->dev.recorded ? &r->dev.res : NULL,
	};
	struct replay_timing tm;
	struct replay_trust trust;
	struct run_dev_sharing sh = dev_sharing(r);

	meta.device_sharing = sh.sharing;
	meta.device_others_known = sh.others_known;
	meta.device_other_writers = sh.others;
	meta.device_other_bytes = sh.other_bytes;
	replay_trust_of(&r->total, &trust);
	meta.timing = timing_name(a);
	meta.predicted_ns = a->think ? predicted_ns(r) : 0;
	meta.captured_ns = replay_plan_captured_ns(r->cx.plan);
	meta.unreliable = trust.unreliable;
	meta.warning = trust.unreliable ? trust.warning : NULL;
	replay_timing_of(&r->total, &tm);
	if (paced(a)) {
		meta.timing_known = true;
		meta.timing_kept = tm.kept;
		meta.late_ops = tm.late;
		meta.delay_p99_ns = tm.p99_ns;
		meta.delay_max_ns = tm.max_ns;
	}
	for (int i = 0; i < argc && n < sizeof(cmdline) - 1; i++)
		n += (size_t)snprintf(cmdline + n, sizeof(cmdline) - n, "%s%s", i ? " " : "riot ",
				      argv[i]);
	if (run_acc_store(r->cx.report->acc, a->report, &meta, replay_plan_model(r->cx.plan),
			  NULL, err, sizeof(err)) < 0) {
		riot_err("--report %s: %s", a->report, err);
		return -1;
	}
	return 0;
}

static void print_summary(const struct replay_run *r)
{
	const struct replay_args *a = r->a;
	struct replay_summary_info si = {
		.engine = a->engine->name, .order = order_names[a->order], .speed = a->speed,
		.timing = timing_name(a), .predicted_ns = predicted_ns(r),
		.captured_ns = replay_plan_captured_ns(r->cx.plan),
		.workers = a->engine->threads(r->eng),
		.elapsed_ns = r->elapsed_ns, .clock_bias_ns = r->cx.clock_bias_ns,
		.timer_lag_ns = r->cx.timer_lag_ns, .streams = replay_plan_nstreams(r->cx.plan),
		.log_complete = replay_plan_log_complete(r->cx.plan),
		.start_unix_ns = r->start_unix_ns, .start_at = a->start_at,
		.start_at_ns = a->start_at_ns, .start_late_ns = r->start_late_ns,
		.shard_k = a->shard.k, .shard_n = a->shard.n,
	};

	if (a->json)
		replay_print_json(stdout, &r->total, &si);
	else
		replay_print_summary(stdout, &r->total, &si);
	if (!a->json && r->dev.recorded) {
		struct run_dev_sharing sh = dev_sharing(r);

		run_block_print(stdout, &r->dev.res, r->total.bytes_written, &sh);
	}
}

/* The long wait before --start-at, once init is done: until shortly
 * before it, so what reaches the devices meanwhile (other clients' init
 * on shared storage) stays out of this run's device view. */
static void wait_for_start(const struct replay_args *a)
{
	int64_t now = wall_now();
	char b[32];

	if (now > a->start_at_ns) {
		fprintf(stderr, "riot: replay: --start-at was %s ago when init ended: "
			"starting at once\n", riot_fmt_ns((uint64_t)(now - a->start_at_ns), b,
							  sizeof(b)));
		return;
	}
	sleep_until_wall(a->start_at_ns - START_AT_PREP_NS);
}

/* --top: the queue the accounting feeds, the terminal, Ctrl-C caught */
static int open_view(struct replay_run *r)
{
	const struct replay_args *a = r->a;
	struct sigaction sa = { .sa_handler = on_stop };
	char title[512], why[256];

	r->feed = replay_feed_new(16);
	if (!r->feed) {
		riot_err("out of memory");
		return -1;
	}
	snprintf(title, sizeof(title), "replay of %s onto %s (%s, %s)", a->log, a->root,
		 a->engine->name, timing_name(a));
	r->view = top_fed_open(title, "issue delay", why, sizeof(why));
	if (!r->view) {
		riot_err("--top: %s", why);
		return -1;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	replay_stats_tap(replay_feed_op, r->feed);
	return 0;
}

static int replay_main(struct replay_run *r, struct replay_root *root, int argc, char **argv)
{
	const struct replay_args *a = r->a;
	char err[512];
	uint64_t max_open = 0;
	int rc;

	if (!a->no_init && run_init(a, root, a->json ? stderr : stdout, &max_open) < 0)
		return RIOT_EXIT_FAIL;
	if (a->no_init && count_open(a, &max_open) < 0)
		return RIOT_EXIT_FAIL;
	release_heap();
	if (a->drop_caches && drop_caches() < 0)
		return RIOT_EXIT_FAIL;
	if (a->start_at)
		wait_for_start(a);
	/* before --user: loading the recorder needs privileges. A root on no
	 * block device, or no BPF, costs the device view, not the replay.
	 * Init's writes are already back (run_init); --no-init takes the root
	 * as it is, dirty pages too. */
	if (!a->no_block && block_view_begin(&r->dev, a->root, a->block_devs, a->nblock_devs,
					     false, err, sizeof(err)) < 0)
		fprintf(stderr, "riot: replay: device view not recorded: %s\n", err);
	if (a->user && drop_privileges(a) < 0)
		return RIOT_EXIT_FAIL;
	raise_fd_limit();
	check_fd_limit(max_open);
	if (a->top && open_view(r) < 0)
		return RIOT_EXIT_FAIL;
	if (start_run(r) < 0)
		return RIOT_EXIT_FAIL;
	wait_run(r);
	rc = a->engine->finish(r->eng, &r->total);
	if (!rc)
		rc = replay_async_finish(r->async, &r->total);
	block_view_end(&r->dev);
	if (r->total.last_end_ns)	/* the last completion, not when we looked */
		r->elapsed_ns = r->total.last_end_ns;
	if (r->view) {
		char note[64];

		feed_view(r);
		top_fed_step(r->view, r->elapsed_ns, replay_feed_lost(r->feed), 0);
		snprintf(note, sizeof(note), "replayed in %.2f s", (double)r->elapsed_ns / 1e9);
		top_fed_end(r->view, note, &top_stop);
		top_fed_close(r->view);
		r->view = NULL;
	}
	if (r->producer_rc < 0) {
		riot_err("%s: %s", a->log, replay_plan_error(r->cx.plan));
		return RIOT_EXIT_FAIL;
	}
	if (rc < 0) {
		riot_err("%s", strerror(-rc));
		return RIOT_EXIT_FAIL;
	}
	print_summary(r);
	if (a->report && store_report(r, argc, argv) < 0)
		return RIOT_EXIT_FAIL;
	return RIOT_EXIT_OK;
}

int cmd_replay(int argc, char **argv)
{
	struct replay_args a;
	struct replay_run r = { .a = &a, .dev = { .fd = -1 } };
	struct replay_report rep = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct replay_root *root;
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc;
	if (a.dry_run)
		return dry_run(&a);
	if (a.top && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		riot_err("--top: standard %s is not a terminal (without --top, a progress line "
			 "and the summary)", isatty(STDIN_FILENO) ? "output" : "input");
		return RIOT_EXIT_FAIL;
	}
	if (check_inputs(&a) < 0)
		return RIOT_EXIT_FAIL;
	root = prepare_root(&a);
	if (!root)
		return RIOT_EXIT_FAIL;
	replay_stats_init(&r.total);
	r.cx = (struct replay_ctx){ .root = root, .fill = a.fill, .speed = a.speed,
				    .think = a.think, .workers = a.workers };
	if (a.report) {
		rep.acc = run_acc_new(RUN_REPLAY);
		if (!rep.acc) {
			riot_err("out of memory");
			replay_root_close(root);
			return RIOT_EXIT_FAIL;
		}
		r.cx.report = &rep;
	}
	rc = replay_main(&r, root, argc, argv);
	replay_async_free(r.async);
	if (r.eng)
		a.engine->destroy(r.eng);
	replay_plan_free(r.cx.plan);
	top_fed_close(r.view);
	replay_stats_tap(NULL, NULL);
	replay_feed_free(r.feed);
	replay_stats_free(&r.total);
	run_acc_free(rep.acc);
	block_view_free(&r.dev);
	replay_root_close(root);
	return rc;
}
