/* report/cmd_report.c: `riot report FILE -o DB`: a capture summarised into
 * a report database, streaming the log once through the reader and the
 * resolver. Latencies are those the capture host saw. `riot report show`
 * lives in show.c. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "formats/log.h"
#include "report/report_int.h"
#include "lib/cli.h"
#include "model/model.h"
#include "report/view.h"

#define STR_(x) #x
#define STR(x) STR_(x)

const char cmd_report_help[] =
	"Usage: riot report FILE -o DB [--label L] [--events] [--raw-durations]\n"
	"       riot report FILE --folded OUT [--weight count|time|bytes] [-o DB]\n"
	"       riot report show DB [--run ID|LABEL] [--json] [--html OUT.html]\n"
	"       riot report merge A.db [B.db...] -o ALL.db [--label NAME]\n"
	"\n"
	"The first form summarises a capture (a .riot log) into the SQLite report\n"
	"database DB (created if missing; several runs live in one database):\n"
	"per syscall count, errors, bytes and latency percentiles (p50, p90, p99,\n"
	"p99.9, max) with their histograms, per class, file, process and second,\n"
	"and errors by errno. Latencies are those seen on the capture host, less\n"
	"the time riot's probes added to each (measured when the capture started,\n"
	"in the log's header since format 1.7: riot info shows it), so they are\n"
	"on the scale of a replay's, timed from user space around each call.\n"
	"\n"
	"  -o, --output DB   the report database to append the run to\n"
	"  --label L         the run's name in DB (default: capture-<fs>-<device>\n"
	"                    of the captured files, made unique); must be new\n"
	"  --events          also store every operation in the events table\n"
	"                    (without it, DB size does not grow with the log)\n"
	"  --raw-durations   latencies as recorded, the probe time left in\n"
	"  --folded OUT      also (or, without -o, only) write the capture's calls\n"
	"                    as folded stacks to OUT ('-': stdout), the input of\n"
	"                    flamegraph.pl, inferno and speedscope: one line per\n"
	"                    stack, comm;syscall;path components (from the root;\n"
	"                    none for a call without a path), a space, its weight\n"
	"  --weight W        count (default: calls; the stacks sum to the log's\n"
	"                    syscalls, as riot info counts them), time (latency in\n"
	"                    ns, less the probe time) or bytes (what data calls\n"
	"                    moved: their ret)\n"
	"  --max-stacks N    the cap on distinct stacks (default " STR(RUN_STACKS_DEFAULT) "), in --folded\n"
	"                    by its weight, in DB by each weight: the lighter ones\n"
	"                    are folded into an (other) frame under the longest\n"
	"                    beginning they share with a kept stack, so every call\n"
	"                    still counts and a log of a million paths makes a\n"
	"                    report of about N stacks, not a million\n"
	"\n"
	"Think time: each call's gap since its thread's previous call ended (riot\n"
	"dump's gap_ns) is summarised per class: its p50 and p99, and the share\n"
	"of the threads' time (in calls plus between them) spent before the\n"
	"class's calls; riot report show and the HTML page show them.\n"
	"\n"
	"The second form prints the runs of DB: a list, then each run's tables\n"
	"(or only the run named by --run); --json writes one JSON object for\n"
	"scripts, --html a self-contained page with charts.\n"
	"\n"
	"The third form writes a new report ALL.db holding every run of the\n"
	"reports given (each relabelled LABEL@NAME, NAME the report's file name\n"
	"without .db, made unique with -2, -3...) and a fleet run (--label, else\n"
	"'fleet') that sums the replays among them (the captures when there is\n"
	"none) that no fleet of a merged report holds already: ops,\n"
	"errors, bytes, per syscall, path, pid and errno, the latency and\n"
	"issue-delay histograms bucket by bucket (so its percentiles are those\n"
	"of all the runs' operations), its start the earliest start_unix_ns and\n"
	"its duration to the latest end. compare takes a fleet as one run, its\n"
	"members' spread beside each figure.\n";

#define MAX_DEVS 64

/* Operations per device number, to find the captured files' filesystems. */
struct dev_count {
	uint64_t dev, ops;
};

struct capture_scan {
	struct run_acc *acc;
	struct model *m;
	uint64_t start;			/* ns of CLOCK_BOOTTIME the run starts at */
	uint64_t t_first, t_last;	/* as `riot info` computes them */
	uint64_t proc_events, truncated_paths;
	struct dev_count devs[MAX_DEVS];
	unsigned ndevs;
	uint64_t last_file, last_dev;	/* a one-entry cache */
	uint64_t probe_ns;		/* taken off each duration */
	bool probe_known;		/* ... measured by the capture */
};

static void note_time(struct capture_scan *c, uint64_t t, uint64_t end)
{
	if (!c->t_first || t < c->t_first)
		c->t_first = t;
	if (end > c->t_last)
		c->t_last = end;
}

static void count_dev(struct capture_scan *c, uint64_t file)
{
	const struct model_file *f;
	uint64_t dev;

	if (!file)
		return;
	if (file == c->last_file) {
		dev = c->last_dev;
	} else {
		f = model_file(c->m, file);
		dev = f && (f->has & RIOT_HAS_DEV) ? f->dev : 0;
		c->last_file = file;
		c->last_dev = dev;
	}
	if (!dev)
		return;
	for (unsigned i = 0; i < c->ndevs; i++) {
		if (c->devs[i].dev == dev) {
			c->devs[i].ops++;
			return;
		}
	}
	if (c->ndevs < MAX_DEVS)
		c->devs[c->ndevs++] = (struct dev_count){ dev, 1 };
}

static void scan_syscall(struct capture_scan *c, const struct riot_syscall *sc,
			 const struct model_op *op)
{
	struct run_op ro = {
		.sys = sc->sys, .pid = sc->pid, .tid = sc->tid,
		.file = op->file, .path_id = op->path_id,
		.t_ns = sc->t > c->start ? sc->t - c->start : 0,
		.lat_ns = sc->dur > c->probe_ns ? sc->dur - c->probe_ns : 0,
		.ret = sc->ret, .issue_delay_ns = -1,
		.has_gap = op->has_gap, .gap_ns = op->gap_ns,
	};

	note_time(c, sc->t, sc->t + sc->dur);
	if (!riot_sys_info(sc->sys))
		return;
	run_acc_op(c->acc, &ro);
	count_dev(c, op->file);
	/* counted as `riot info` does: on successful calls */
	if (sc->ret >= 0 && (sc->path.truncated || sc->path2.truncated))
		c->truncated_paths++;
}

static int scan_record(struct capture_scan *c, const struct riot_rec *r, const struct model_op *op)
{
	switch (r->type) {
	case RIOT_REC_SYSCALL:
		if (!c->start)
			c->start = r->sc.t;
		scan_syscall(c, &r->sc, op);
		return 0;
	case RIOT_REC_PROC:
		c->proc_events++;
		note_time(c, r->proc.t, r->proc.t);
		return run_acc_proc_record(c->acc, r);
	case RIOT_REC_SNAP_PROC:
		return run_acc_proc_record(c->acc, r);
	default:
		return 0;
	}
}

static int scan_log(struct riot_reader *rd, const char *file, struct capture_scan *c)
{
	struct riot_rec rec;
	struct model_op op;
	int rc;

	while ((rc = riot_reader_next(rd, &rec)) > 0) {
		rc = model_apply(c->m, &rec, &op);
		if (!rc)
			rc = scan_record(c, &rec, &op);
		if (rc < 0) {
			riot_err("%s: %s", file, model_strerror(rc));
			return rc;
		}
	}
	if (rc < 0)
		riot_err("%s: %s", file, riot_reader_error(rd));
	return rc;
}

/* The filesystems of the captured files, named only when this is the
 * capture host: device numbers mean nothing elsewhere. */
static struct run_fs *capture_filesystems(const struct capture_scan *c, const char *host,
					  char (*bufs)[1024])
{
	struct run_fs *fs = calloc(c->ndevs ? c->ndevs : 1, sizeof(*fs));
	struct utsname u;
	bool here = host && uname(&u) == 0 && strcmp(u.nodename, host) == 0;

	for (unsigned i = 0; fs && i < c->ndevs; i++) {
		if (!here || run_fs_of_dev(c->devs[i].dev, &fs[i], bufs[i], sizeof(bufs[i])) < 0)
			memset(&fs[i], 0, sizeof(fs[i]));
		fs[i].dev = c->devs[i].dev;
		fs[i].ops = c->devs[i].ops;
	}
	return fs;
}

struct report_args {
	const char *log, *db, *label;	/* log: the first file */
	const char *folded;		/* --folded OUT */
	enum stack_weight weight;
	uint32_t max_stacks;
	struct riot_logs logs;
	bool events;
	bool raw;	/* --raw-durations */
};

static const char *or_empty_null(const char *s)
{
	return s && *s ? s : NULL;
}

/* What reached the devices, when the capture recorded it (--block). A
 * malformed section is an error: the log is corrupt. */
static int capture_devices(struct riot_reader *rd, const char *file, struct run_block *b)
{
	size_t len;
	const void *p = riot_reader_end_section(rd, RIOT_END_DEVICES, &len);
	int rc;

	if (!p)
		return 0;
	rc = run_block_decode(p, len, b);
	if (rc == -EBADMSG)
		riot_err("%s: the end record's device section is malformed", file);
	else if (rc)
		riot_err("%s: %s", file, strerror(-rc));
	return rc;
}

static int store_capture(const struct report_args *ra, struct riot_reader *rd,
			 struct capture_scan *c)
{
	const struct riot_log_header *h = riot_reader_header(rd);
	const struct model_stats *ms = model_stats(c->m);
	uint64_t start = h->start_t && h->start_t <= c->t_first ? h->start_t : c->t_first;
	char (*bufs)[1024] = calloc(MAX_DEVS, sizeof(*bufs));
	struct run_fs *fs = bufs ? capture_filesystems(c, h->host, bufs) : NULL;
	struct run_meta meta = {
		.kind = RUN_CAPTURE, .label = ra->label,
		.host = or_empty_null(h->host), .kernel = or_empty_null(h->kernel),
		.arch = or_empty_null(h->arch),
		.fs = fs, .nfs = c->ndevs,
		.riot_version = or_empty_null(h->riot_version),
		.cmdline = or_empty_null(h->cmdline),
		.trace_file = ra->log,
		.start_unix_ns = h->start_t ? (int64_t)h->start_t + h->boot_to_wall_ns : 0,
		.duration_ns = c->t_last > start ? c->t_last - start : 0,
		.complete = riot_reader_complete(rd),
		.dropped_events = ms->dropped_events,
		.proc_events = c->proc_events,
		.unresolved_fds = ms->unresolved_fd,
		.unknown_cwd = ms->unknown_cwd,
		.truncated_paths = c->truncated_paths,
		.probe_ns = c->probe_ns,
		.probe_known = c->probe_known,
	};
	struct run_block block = { 0 };
	char err[512];
	int64_t id;
	int rc;

	if (!fs) {
		free(bufs);
		riot_err("out of memory");
		return -ENOMEM;
	}
	rc = capture_devices(rd, ra->log, &block);
	if (!rc && block.ndev)
		meta.block = &block;
	if (!rc)
		rc = run_acc_store(c->acc, ra->db, &meta, c->m, &id, err, sizeof(err));
	if (rc) {
		riot_err("%s", err);
	} else {
		printf("run %lld stored in %s: %llu syscalls, %.3f s%s", (long long)id, ra->db,
		       (unsigned long long)run_acc_ops(c->acc), (double)meta.duration_ns / 1e9,
		       meta.complete ? "" : " (the log is incomplete)");
		if (c->probe_known)
			printf(", %llu ns of probe time taken off each latency",
			       (unsigned long long)c->probe_ns);
		printf("\n");
	}
	run_block_free(&block);
	free(fs);
	free(bufs);
	return rc;
}

/* --folded: the stacks to ra->folded ('-': stdout). */
static int write_folded(const struct report_args *ra, const struct capture_scan *c)
{
	bool std = strcmp(ra->folded, "-") == 0;
	FILE *f = std ? stdout : fopen(ra->folded, "w");
	int rc;

	if (!f) {
		riot_err("--folded %s: %s", ra->folded, strerror(errno));
		return -errno;
	}
	rc = run_acc_folded(c->acc, c->m, ra->weight, f);
	if (!std && fclose(f) && !rc)
		rc = -EIO;
	if (rc)
		riot_err("--folded %s: %s", ra->folded, strerror(-rc));
	return rc;
}

static int summarise(const struct report_args *ra)
{
	struct capture_scan c = { 0 };
	struct riot_reader *rd;
	char err[512];
	bool found;
	int rc = -ENOMEM;

	rd = riot_reader_open_logs(&ra->logs, err, sizeof(err));
	if (!rd) {
		riot_err("%s", err);
		return RIOT_EXIT_FAIL;
	}
	if (ra->db && run_db_recover(ra->db, &found, err, sizeof(err)) == 0 && found)
		fprintf(stderr, "riot: report: %s: an earlier riot report (or replay) was stopped "
			"while storing a run; that run was not stored and is rolled back\n",
			ra->db);
	/* the log is read once: a database that cannot take the run is
	 * refused before it */
	if (ra->db && run_db_check(ra->db, ra->label, err, sizeof(err)) < 0) {
		riot_err("-o %s", err);
		riot_reader_close(rd);
		return RIOT_EXIT_FAIL;
	}
	c.start = riot_reader_header(rd)->start_t;
	if (!ra->raw && riot_reader_header(rd)->probe_calls) {
		c.probe_ns = riot_reader_header(rd)->probe_ns;
		c.probe_known = true;
	}
	c.m = model_new();
	c.acc = run_acc_new(RUN_CAPTURE);
	if (!c.m || !c.acc) {
		riot_err("out of memory");
		goto out;
	}
	run_acc_stacks_max(c.acc, ra->max_stacks);
	if (ra->events && (rc = run_acc_keep_events(c.acc, ra->db, err, sizeof(err))) < 0) {
		riot_err("%s", err);
		goto out;
	}
	rc = scan_log(rd, ra->log, &c);
	if (!rc && ra->folded)
		rc = write_folded(ra, &c);
	if (!rc && ra->db)
		rc = store_capture(ra, rd, &c);
out:
	run_acc_free(c.acc);
	model_free(c.m);
	riot_reader_close(rd);
	return rc ? RIOT_EXIT_FAIL : RIOT_EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "label", required_argument, NULL, 'l' },
		{ "events", no_argument, NULL, 'e' },
		{ "raw-durations", no_argument, NULL, 'r' },
		{ "folded", required_argument, NULL, 'F' },
		{ "weight", required_argument, NULL, 'w' },
		{ "max-stacks", required_argument, NULL, 'm' },
		{ 0 },
	};
	struct report_args ra = { .weight = STACK_COUNT, .max_stacks = RUN_STACKS_DEFAULT };
	uint64_t v;
	int c;

	if (argc > 1 && strcmp(argv[1], "show") == 0)
		return report_show(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "merge") == 0)
		return report_merge(argc - 1, argv + 1);
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			ra.db = optarg;
			break;
		case 'l':
			ra.label = optarg;
			break;
		case 'e':
			ra.events = true;
			break;
		case 'r':
			ra.raw = true;
			break;
		case 'F':
			ra.folded = optarg;
			break;
		case 'w':
			for (c = 0; c < STACK_WEIGHTS && strcmp(optarg, stack_weight_names[c]); c++)
				;
			if (c == STACK_WEIGHTS)
				return riot_usage("--weight wants count, time or bytes, not '%s'",
						  optarg);
			ra.weight = (enum stack_weight)c;
			break;
		case 'm':
			if (riot_parse_u64(optarg, &v) || v < 1 || v > UINT32_MAX)
				return riot_usage("--max-stacks needs a whole number from 1, not '%s'",
						  optarg);
			ra.max_stacks = (uint32_t)v;
			break;
		default:
			return riot_usage("bad option");
		}
	}
	if (argc - optind < 1)
		return riot_usage("needs a FILE (a .riot log, or the segments of one in order)");
	if (!ra.db && !ra.folded)
		return riot_usage("needs -o DB or --folded OUT");
	if (!ra.db && (ra.label || ra.events))
		return riot_usage("--label and --events need -o DB");
	ra.log = argv[optind];
	ra.logs = (struct riot_logs){ (const char *const *)argv + optind,
				      (unsigned)(argc - optind) };
	return summarise(&ra);
}
