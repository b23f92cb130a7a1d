/* convert/cmd_import_strace.c: `riot import strace LOG -o FILE`: streams a
 * strace text log through the importer into a .riot log, in memory bounded
 * by the longest line and the live tasks, fds and paths. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert/convert.h"
#include "convert/import_strace_lex.h"
#include "convert/strace.h"
#include "formats/log.h"
#include "lib/cli.h"
#include "model/model.h"

static const char cmd_import_strace_help[] =
	"Usage: riot import strace LOG -o FILE [--pid N] [--cwd DIR]\n"
	"\n"
	"Turns the output of `strace -f -ttt -T [-y|-yy]` into a .riot log that\n"
	"info, dump, init, replay and report read like a captured one: for hosts\n"
	"where eBPF is not available. Record with:\n"
	"\n"
	"  strace -f -ttt -T -yy -o trace.txt -- COMMAND\n"
	"\n"
	"  LOG                the strace output (\"-\" reads stdin)\n"
	"  -o, --output FILE  the .riot log to write\n"
	"      --pid N        pid of lines without a pid prefix (strace drops it\n"
	"                     while it traces one task); default: learned from\n"
	"                     the trace\n"
	"      --cwd DIR      working directory of the traced command, for\n"
	"                     relative paths before an AT_FDCWD</dir> annotation\n"
	"                     tells it\n"
	"\n"
	"Rules. Times are strace's -ttt wall-clock timestamps (microseconds), and\n"
	"durations its -T; the log's clock is the wall clock (boot_to_wall_ns 0).\n"
	"Without -T durations are 0. A call split into <unfinished ...> and\n"
	"<... resumed> lines is one record at its first line's time. strace -f\n"
	"shows thread ids: each is its own process unless a clone with\n"
	"CLONE_THREAD made it, and a task first seen while its parent's clone is\n"
	"still unfinished is that clone's child. clone/fork/vfork become fork\n"
	"events, a successful execve an exec event, \"+++ exited with N +++\" and\n"
	"\"+++ killed by SIG +++\" exit events. With -y or -yy, an fd annotated\n"
	"N</path> that the trace never opened becomes a start-state fd at its\n"
	"first use (position unknown: 0), and AT_FDCWD</dir> sets the process's\n"
	"cwd when the log does not already say it. Without -y, I/O on fds opened\n"
	"before the trace cannot be resolved (riot info counts it). Signal lines,\n"
	"syscalls riot does not record, calls interrupted for a restart and\n"
	"lines that do not parse are skipped and counted by reason.\n";

struct sink {
	const char *out_path;
	struct riot_log_header h;
	struct riot_writer *w;
	const struct strace_stats *st;	/* for the first timestamp */
};

static uint64_t rec_time(const struct riot_rec *r)
{
	switch (r->type) {
	case RIOT_REC_SYSCALL: return r->sc.t;
	case RIOT_REC_PROC: return r->proc.t;
	case RIOT_REC_SNAP_PROC: return r->sproc.t;
	case RIOT_REC_SNAP_FD: return r->sfd.t;
	default: return 0;
	}
}

static int sink_open(struct sink *s, uint64_t start_t)
{
	s->h.start_t = start_t;
	s->w = riot_writer_open(s->out_path, &s->h, NULL);
	return s->w ? 0 : -errno;
}

static int sink_emit(const struct riot_rec *r, void *arg)
{
	struct sink *s = arg;
	int rc;

	if (!s->w) {
		uint64_t t = rec_time(r);

		if (s->st->t_first && s->st->t_first < t)
			t = s->st->t_first;
		rc = sink_open(s, t);
		if (rc)
			return rc;
	}
	return riot_writer_add(s->w, r);
}

/* Reads one line into buf (cap bytes, cap > STRACE_LINE_MAX + 1) without
 * its newline. A longer line is consumed and reported with *len =
 * STRACE_LINE_MAX + 1. 1, 0 at the end, or -errno. */
static int read_line(FILE *in, char *buf, size_t cap, size_t *len)
{
	size_t n;

	if (!fgets(buf, (int)cap, in))
		return ferror(in) ? -EIO : 0;
	n = strlen(buf);
	if (n && buf[n - 1] == '\n') {
		*len = n - 1;
		return 1;
	}
	if (n < cap - 1 || feof(in)) {	/* the last line, without newline */
		*len = n;
		return 1;
	}
	while (fgets(buf, (int)cap, in)) {
		n = strlen(buf);
		if (n && buf[n - 1] == '\n')
			break;
	}
	*len = STRACE_LINE_MAX + 1;
	return ferror(in) ? -EIO : 1;
}

/* The pid of unprefixed lines, when the trace reveals it: an unprefixed
 * set_tid_address/getpid/gettid result, or the first prefixed task that no
 * unprefixed clone returned. Reads at most a few thousand lines, then
 * rewinds. 0 when unknown or when the input cannot be rewound. */
static uint32_t scan_root_pid(FILE *in, char *buf, size_t cap)
{
	uint32_t children[64], pid = 0;
	unsigned nchildren = 0;
	size_t len;
	long start = ftell(in);

	if (start < 0)
		return 0;
	for (unsigned i = 0; i < 20000 && !pid && read_line(in, buf, cap, &len) == 1; i++) {
		struct strace_line ln;
		struct strace_result res;

		if (len > STRACE_LINE_MAX || strace_split_line(buf, len, &ln) ||
		    ln.kind != STRACE_LINE_CALL)
			continue;
		if (ln.has_tid) {
			bool child = false;

			for (unsigned c = 0; c < nchildren; c++)
				child |= children[c] == ln.tid;
			if (i == 0)
				break;	/* a prefixed trace: nothing to learn */
			if (!child)
				pid = ln.tid;
			continue;
		}
		if (strace_split_result(ln.rest, &res) || res.no_result || res.ret <= 0 ||
		    res.ret > UINT32_MAX)
			continue;
		if ((ln.name.n == 15 && memcmp(ln.name.p, "set_tid_address", 15) == 0) ||
		    (ln.name.n == 6 && memcmp(ln.name.p, "getpid", 6) == 0) ||
		    (ln.name.n == 6 && memcmp(ln.name.p, "gettid", 6) == 0))
			pid = (uint32_t)res.ret;
		else if (nchildren < 64 && ((ln.name.n == 5 && memcmp(ln.name.p, "clone", 5) == 0) ||
					    (ln.name.n == 4 && memcmp(ln.name.p, "fork", 4) == 0) ||
					    (ln.name.n == 5 && memcmp(ln.name.p, "vfork", 5) == 0)))
			children[nchildren++] = (uint32_t)res.ret;
	}
	if (fseek(in, start, SEEK_SET))
		return 0;
	clearerr(in);
	return pid;
}

static int import_lines(FILE *in, struct strace_importer *im, char *buf, size_t cap)
{
	size_t len;
	int rc;

	while ((rc = read_line(in, buf, cap, &len)) == 1) {
		rc = strace_importer_line(im, buf, len);
		if (rc)
			return rc;
	}
	return rc ? rc : strace_importer_finish(im);
}

/* Why input gave no record, in one line. */
static void nothing_imported(const char *in_name, const struct strace_stats *st, char *err,
			     size_t errlen)
{
	static const char want[] = "expected the output of strace -f -ttt -T -yy -o LOG CMD";
	uint64_t nots = st->skipped[STRACE_SKIP_UNPARSED] + st->skipped[STRACE_SKIP_NO_TIMESTAMP];

	if (!st->lines)
		snprintf(err, errlen, "%s: empty: %s", in_name, want);
	else if (st->skipped[STRACE_SKIP_NO_TIMESTAMP])
		snprintf(err, errlen, "%s: %" PRIu64 " of %" PRIu64 " lines are strace's but "
			 "without -ttt timestamps: %s", in_name,
			 st->skipped[STRACE_SKIP_NO_TIMESTAMP], st->lines, want);
	else if (nots == st->lines)
		snprintf(err, errlen, "%s: none of its %" PRIu64 " lines is an strace line: %s",
			 in_name, st->lines, want);
	else
		snprintf(err, errlen, "%s: none of its %" PRIu64 " lines is a syscall riot "
			 "records (riot capture --help lists them)", in_name, st->lines);
}

int strace_import_file(FILE *in, const char *in_name, const char *out_path,
		       const struct strace_import_opts *o, const char *cmdline,
		       struct strace_stats *st, char *err, size_t errlen)
{
	static char target[4096];
	size_t cap = STRACE_LINE_MAX + 2;
	struct strace_import_opts opts = *o;
	struct sink s = { .out_path = out_path };
	struct strace_importer *im;
	char *buf = malloc(cap);
	int rc;

	if (!buf)
		return -ENOMEM;
	if (!opts.pid)
		opts.pid = scan_root_pid(in, buf, cap);
	snprintf(target, sizeof(target), "strace log: %s", in_name);
	s.h = (struct riot_log_header){ .major = RIOT_FMT_MAJOR, .minor = RIOT_FMT_MINOR,
		.host = "unknown (strace import)", .kernel = "unknown", .arch = "x86_64", .riot_version = RIOT_VERSION, .cmdline = cmdline,
		.options = "imported from strace -f -ttt -T", .target = target };
	im = strace_importer_new(&opts, sink_emit, &s);
	if (!im) {
		free(buf);
		return -ENOMEM;
	}
	s.st = strace_importer_stats(im);
	rc = import_lines(in, im, buf, cap);
	if (!rc && !s.w) {	/* nothing to log: say what was expected */
		nothing_imported(in_name, s.st, err, errlen);
		rc = -ENODATA;
	} else if (rc) {
		snprintf(err, errlen, "%s: %s", rc == -EIO || rc == -E2BIG ? in_name : out_path,
			 model_strerror(rc));
		if (s.w)
			riot_writer_abort(s.w);
	} else if ((rc = riot_writer_close(s.w))) {
		snprintf(err, errlen, "%s: %s", out_path, strerror(-rc));
	}
	*st = *s.st;
	strace_importer_free(im);
	free(buf);
	return rc;
}

static void print_summary(const char *in, const char *out, const struct strace_stats *st)
{
	printf("imported %s -> %s\n", in, out);
	printf("  lines            %" PRIu64 "\n", st->lines);
	printf("  syscalls         %" PRIu64 " imported\n", st->syscalls);
	printf("  process events   %" PRIu64 " (fork, exec, exit)\n", st->procs);
	printf("  start state      %" PRIu64 " fds from -y annotations, %" PRIu64 " cwds\n",
	       st->snap_fds, st->snap_procs);
	if (st->forks_guessed)
		printf("  forks guessed    %" PRIu64 " (child seen while several clones were pending)\n",
		       st->forks_guessed);
	if (st->unknown_flags)
		printf("  unknown flags    %" PRIu64 " arguments had flag names riot does not know\n",
		       st->unknown_flags);
	printf("  skipped          %" PRIu64 " lines\n", st->skipped_total);
	for (unsigned i = 0; i < STRACE_SKIP_COUNT; i++)
		if (st->skipped[i])
			printf("    %-16s %" PRIu64 "\n", strace_skip_name(i), st->skipped[i]);
	if (st->lines && !st->syscalls && st->skipped[STRACE_SKIP_NO_TIMESTAMP])
		printf("hint: record with strace -f -ttt -T (timestamps are required)\n");
}

static void join_cmdline(char *buf, size_t len, int argc, char **argv)
{
	size_t n = (size_t)snprintf(buf, len, "riot import");

	for (int i = 0; i < argc && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " %s", argv[i]);
}

static int cmd_import_strace(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "cwd", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct strace_import_opts o = { 0 };
	struct strace_stats st;
	const char *out = NULL;
	char err[512], cmdline[4096];
	uint64_t v;
	FILE *in;
	int c, rc;

	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'p':
			if (riot_parse_u64(optarg, &v) || v == 0 || v > UINT32_MAX)
				return riot_usage("--pid: not a pid: '%s'", optarg);
			o.pid = (uint32_t)v;
			break;
		case 'c':
			if (optarg[0] != '/')
				return riot_usage("--cwd: not an absolute path: '%s'", optarg);
			o.cwd = optarg;
			break;
		default: return riot_usage("bad option");
		}
	}
	if (optind != argc - 1)
		return riot_usage("give one strace log");
	if (!out)
		return riot_usage("-o FILE is required");
	in = strcmp(argv[optind], "-") == 0 ? stdin : fopen(argv[optind], "re");
	if (!in) {
		riot_err("%s: %s", argv[optind], strerror(errno));
		return RIOT_EXIT_FAIL;
	}
	join_cmdline(cmdline, sizeof(cmdline), argc, argv);
	rc = strace_import_file(in, argv[optind], out, &o, cmdline, &st, err, sizeof(err));
	if (in != stdin)
		fclose(in);
	if (rc) {
		riot_err("%s", err);
		return RIOT_EXIT_FAIL;
	}
	print_summary(argv[optind], out, &st);
	return RIOT_EXIT_OK;
}

const struct riot_converter riot_import_strace = {
	"strace", cmd_import_strace, "strace -f -ttt -T [-yy] text, for hosts without eBPF",
	cmd_import_strace_help
};
