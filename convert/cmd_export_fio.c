/* convert/cmd_export_fio.c: `riot export fio FILE -o DIR`. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "convert/convert.h"
#include "convert/fio.h"
#include "lib/cli.h"

static const char cmd_export_fio_help[] =
	"Usage: riot export fio FILE -o DIR [--root ROOT] [--engine io_uring|psync]\n"
	"                       [--iodepth N] [--fast]\n"
	"\n"
	"Writes the data operations of a .riot log as fio iolog v3 files, one per\n"
	"captured thread (DIR/riot-TID.iolog), and a job file DIR/riot.fio with\n"
	"one job per thread, so fio can replay the same reads, writes and syncs\n"
	"and its numbers can be set beside riot replay's. Then:\n"
	"\n"
	"  riot init FILE --root ROOT     create the files the workload expected\n"
	"  fio DIR/riot.fio               replay them with fio\n"
	"\n"
	"  -o, --output DIR  where to write (created if absent)\n"
	"      --root ROOT   directory the captured tree lives under: /a/b is\n"
	"                    ROOT/a/b, as with riot replay --root (default\n"
	"                    DIR/root)\n"
	"      --engine E    fio's ioengine: io_uring (default) or psync\n"
	"      --iodepth N   io_uring queue depth (default 1: a thread waits for\n"
	"                    each call, as captured)\n"
	"      --fast        replay_no_stall=1: as fast as possible, not at the\n"
	"                    captured times\n"
	"\n"
	"Paths and offsets come from riot's model: reads and writes without an\n"
	"offset use the file position the program saw (0 at open, the start-state\n"
	"position of fds open before the capture, moved by each call and by\n"
	"lseek; O_APPEND writes go to the end of the file as the log shows it).\n"
	"Lengths are the bytes each call moved. Timestamps are microseconds since\n"
	"the capture started. A file opens in a thread's job at its first\n"
	"operation there and closes at that thread's captured close. fio cannot\n"
	"express truncate, fallocate, mmap, io_uring or sync_file_range, nor name\n"
	"files with whitespace or longer than 256 bytes: those operations are\n"
	"skipped and counted, as are failed calls, calls that moved no bytes,\n"
	"pipes, sockets and files under /proc, /sys and /dev, and paths through a\n"
	"symlink the log shows (fio would follow it out of ROOT). A log whose data\n"
	"operations use a file in a directory the workload made itself is\n"
	"refused: riot init does not make it and fio cannot.\n";

static void print_summary(const char *dir, const char *root, const char *log,
			  const struct fio_export_stats *st)
{
	char rb[32], wb[32];
	uint64_t skipped = 0;

	for (unsigned i = 0; i < FIO_SKIP_COUNT; i++)
		skipped += st->skipped[i];
	printf("exported %s -> %s/riot.fio\n", log, dir);
	printf("  jobs       %" PRIu64 " (one per thread with data operations)\n", st->jobs);
	printf("  reads      %" PRIu64 " (%s)\n", st->reads,
	       riot_fmt_bytes(st->bytes_read, rb, sizeof(rb)));
	printf("  writes     %" PRIu64 " (%s)\n", st->writes,
	       riot_fmt_bytes(st->bytes_written, wb, sizeof(wb)));
	printf("  syncs      %" PRIu64 "\n", st->syncs);
	printf("  opens      %" PRIu64 ", closes %" PRIu64 "\n", st->opens, st->closes);
	printf("  duration   %.6f s\n", (double)st->duration_us / 1e6);
	printf("  skipped    %" PRIu64 " operations\n", skipped);
	for (unsigned i = 0; i < FIO_SKIP_COUNT; i++)
		if (st->skipped[i])
			printf("    %-12s %" PRIu64 "\n", fio_skip_name(i), st->skipped[i]);
	printf("next: riot init %s --root %s && fio %s/riot.fio\n", log, root, dir);
}

/* ROOT made absolute: DIR/root by default. */
static int absolute_root(const char *dir, const char *root, char *out, size_t len)
{
	char real[PATH_MAX];
	int n;

	if (root && root[0] == '/') {
		n = snprintf(out, len, "%s", root);
	} else {
		if (!realpath(root ? "." : dir, real))
			return -errno;
		n = snprintf(out, len, "%s/%s", real, root ? root : "root");
	}
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	while (n > 1 && out[n - 1] == '/')	/* "ROOT/" + "/a" would double it */
		out[--n] = 0;
	return 0;
}

static int cmd_export_fio(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "root", required_argument, NULL, 'r' },
		{ "engine", required_argument, NULL, 'e' },
		{ "iodepth", required_argument, NULL, 'd' },
		{ "fast", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	struct fio_export_opts o = { .engine = FIO_ENGINE_IO_URING };
	struct fio_export_stats st;
	const char *dir = NULL, *root = NULL;
	char err[512], absroot[PATH_MAX], absdir[PATH_MAX];
	uint64_t v;
	int c, rc;

	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o': dir = optarg; break;
		case 'r': root = optarg; break;
		case 'e':
			if (strcmp(optarg, "io_uring") == 0)
				o.engine = FIO_ENGINE_IO_URING;
			else if (strcmp(optarg, "psync") == 0)
				o.engine = FIO_ENGINE_PSYNC;
			else
				return riot_usage("--engine: io_uring or psync, not '%s'", optarg);
			break;
		case 'd':
			if (riot_parse_u64(optarg, &v) || v == 0 || v > 65536)
				return riot_usage("--iodepth: 1..65536, not '%s'", optarg);
			o.iodepth = (unsigned)v;
			break;
		case 'f': o.no_stall = true; break;
		default: return riot_usage("bad option");
		}
	}
	if (optind >= argc)
		return riot_usage("give a .riot log (or the segments of one, in order)");
	if (!dir)
		return riot_usage("-o DIR is required");
	if (mkdir(dir, 0755) && errno != EEXIST) {
		riot_err("%s: %s", dir, strerror(errno));
		return RIOT_EXIT_FAIL;
	}
	if (!realpath(dir, absdir)) {
		riot_err("%s: %s", dir, strerror(errno));
		return RIOT_EXIT_FAIL;
	}
	if ((rc = absolute_root(absdir, root, absroot, sizeof(absroot)))) {
		riot_err("--root %s: %s", root ? root : "", strerror(-rc));
		return RIOT_EXIT_FAIL;
	}
	o.root = absroot;
	struct riot_logs logs = { (const char *const *)argv + optind, (unsigned)(argc - optind) };

	rc = fio_export(&logs, absdir, &o, &st, err, sizeof(err));
	if (rc) {
		riot_err("%s", err);
		return RIOT_EXIT_FAIL;
	}
	char *names = riot_logs_join(&logs);

	print_summary(absdir, absroot, names ? names : argv[optind], &st);
	free(names);
	return RIOT_EXIT_OK;
}

const struct riot_converter riot_export_fio = {
	"fio", cmd_export_fio, "fio iolog v3 files and a job file", cmd_export_fio_help
};
