/* replay/cmd_init.c: `riot init LOG --root DIR`: creates the file tree the
 * captured workload expected to find (replay/init.h). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/init.h"
#include "formats/log.h"
#include "lib/cli.h"
#include "replay/replay.h"


const char cmd_init_help[] =
	"Usage: riot init LOG --root DIR [--fill random|zero|compress:PCT]\n"
	"                 [--map PREFIX=DIR2]... [--threads N] [--seed N] [--shard K/N]\n"
	"                 [--dry-run]\n"
	"\n"
	"Creates beneath DIR the file tree the captured workload expected at its\n"
	"start: directories, regular files of the sizes it observed (size at open,\n"
	"stat, the furthest byte read before it changed them) and symlinks (their\n"
	"captured targets, made relative so they lead into DIR for any tool: /a/b\n"
	"from /x/link becomes ../a/b, and kept so when a replayed rename moves\n"
	"the link). What the workload created itself is left out, and removed\n"
	"from DIR if an earlier run left it there. Captured /a/b\n"
	"becomes DIR/a/b; nothing resolves outside DIR (openat2 RESOLVE_IN_ROOT).\n"
	"Paths under /proc, /sys and /dev, sockets, fifos and devices are skipped\n"
	"and counted.\n"
	"\n"
	"DIR is created when missing and gets a marker file, " REPLAY_ROOT_MARKER ". riot\n"
	"refuses /, and a non-empty DIR without the marker (lost+found alone is\n"
	"fine). Running init again rewrites the tree to the same state.\n"
	"\n"
	"  --root DIR          where the captured tree goes (required)\n"
	"  --fill KIND         file content: random (default; not flattering\n"
	"                      compression or deduplication), zero, or\n"
	"                      compress:PCT (compresses by about PCT %)\n"
	"  --map PREFIX=DIR2   the captured subtree PREFIX goes to DIR2 instead\n"
	"                      (repeatable; whole components, longest prefix wins,\n"
	"                      / takes every path; DIR2 gets the same checks and\n"
	"                      marker as DIR; when the workload made PREFIX, DIR2's\n"
	"                      parent gets them and DIR2 is made or removed as the\n"
	"                      log says)\n"
	"  --threads N         file-writing threads, 1 to 8 (default: CPUs, 2 to 8)\n"
	"  --seed N            mixed into the content of every file (default 0)\n"
	"  --shard K/N         only shard K (0 to N-1) of N: every directory, and\n"
	"                      the files and symlinks (and stale paths to remove)\n"
	"                      whose captured path hashes to K; the N shards run\n"
	"                      on one shared DIR make the whole tree, each entry\n"
	"                      once (riot replay --shard K/N runs this init)\n"
	"  --dry-run           print the tree (\"dir PATH\", \"file PATH SIZE\",\n"
	"                      \"symlink PATH -> TARGET\") and touch nothing\n"
	"\n"
	"A progress bar goes to stderr when it is a terminal. The last line on\n"
	"stdout sums up: dirs, files, bytes, symlinks, stale paths removed,\n"
	"skipped paths by reason, failures, seconds. Exit 1 when any entry could\n"
	"not be created.\n";

struct init_args {
	const char *log, *root;	/* log: the first file */
	struct riot_logs logs;
	struct fill fill;
	struct replay_map maps[REPLAY_MAPS_MAX];
	unsigned nmaps;
	struct init_opts o;
	bool dry_run;
};

static int parse_args(int argc, char **argv, struct init_args *a)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "fill", required_argument, NULL, 'f' },
		{ "map", required_argument, NULL, 'm' },
		{ "threads", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 's' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "shard", required_argument, NULL, 'S' },
		{ 0 },
	};
	uint64_t v;
	char err[512];
	int c, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			a->root = optarg;
			break;
		case 'f':
			if (fill_parse(optarg, &a->fill) < 0)
				return riot_usage("--fill wants random, zero or compress:PCT (0-100)");
			break;
		case 'm':
			if ((rc = replay_map_arg(optarg, a->maps, &a->nmaps)) != 0)
				return rc;
			break;
		case 't':
			if (riot_parse_u64(optarg, &v) < 0 || v == 0 || v > INIT_MAX_THREADS)
				return riot_usage("--threads wants 1 to %d", INIT_MAX_THREADS);
			a->o.threads = (unsigned)v;
			break;
		case 's':
			if (riot_parse_u64(optarg, &a->o.seed) < 0)
				return riot_usage("--seed wants a number");
			break;
		case 'n':
			a->dry_run = true;
			break;
		case 'S':
			if (riot_shard_parse(optarg, &a->o.shard) < 0)
				return riot_usage("--shard wants K/N with 0 <= K < N <= %d, got '%s'",
						  RIOT_SHARD_MAX, optarg);
			break;
		default:
			return riot_usage("bad option");
		}
	}
	if (argc - optind < 1)
		return riot_usage("needs a LOG (or the segments of one, in order)");
	a->log = argv[optind];
	a->logs = (struct riot_logs){ (const char *const *)argv + optind,
				      (unsigned)(argc - optind) };
	if (!a->root && !a->dry_run)
		return riot_usage("needs --root DIR");
	if (replay_map_check(a->maps, a->nmaps, err, sizeof(err)) < 0)
		return riot_usage("%s", err);
	return 0;
}

static void print_summary(const struct init_result *r)
{
	char b[32];

	printf("init: %llu dirs, %llu files, %llu bytes (%s), %llu symlinks; removed %llu; "
	       "skipped:", (unsigned long long)r->dirs, (unsigned long long)r->files,
	       (unsigned long long)r->bytes, riot_fmt_bytes(r->bytes, b, sizeof(b)),
	       (unsigned long long)r->symlinks, (unsigned long long)r->removed);
	for (unsigned s = 0; s < INIT_SKIP_COUNT; s++)
		printf(" %s %llu", init_skip_name(s), (unsigned long long)r->skipped[s]);
	printf("; failed %llu; %.3f s\n", (unsigned long long)r->failed, r->seconds);
}

/* Prepares DIR and every map directory, then opens them as one root. */
static struct replay_root *open_root(struct init_args *a)
{
	char err[PATH_MAX + 256];
	struct replay_root *r = NULL;

	/* a log init cannot read to its end leaves no root behind */
	if (riot_log_check(&a->logs, err, sizeof(err)) == 0 &&
	    replay_maps_for_log(&a->logs, a->maps, a->nmaps, err, sizeof(err)) == 0)
		r = replay_root_setup(a->root, a->maps, a->nmaps, err, sizeof(err));
	replay_maps_release(a->maps, a->nmaps);
	if (!r)
		riot_err("%s", err);
	return r;
}

static int run_dry(struct init_args *a)
{
	struct init_result res;
	char err[PATH_MAX + 256];

	if (replay_init_plan(&a->logs, &a->o.shard, replay_init_print_entry, stdout, &res, err,
			     sizeof(err)) < 0) {
		riot_err("%s", err);
		return RIOT_EXIT_FAIL;
	}
	print_summary(&res);
	return RIOT_EXIT_OK;
}

int cmd_init(int argc, char **argv)
{
	struct init_args a = { .fill = { .kind = FILL_RANDOM } };
	struct init_result res;
	struct replay_root *root;
	char err[PATH_MAX + 256];
	int rc;

	if ((rc = parse_args(argc, argv, &a)) != 0)
		return rc;
	if (a.dry_run)
		return run_dry(&a);
	root = open_root(&a);
	if (!root)
		return RIOT_EXIT_FAIL;
	a.o.progress = isatty(STDERR_FILENO);
	rc = replay_init_run(&a.logs, root, &a.fill, &a.o, &res, err, sizeof(err));
	replay_root_close(root);
	if (rc < 0) {
		riot_err("%s", err);
		return RIOT_EXIT_FAIL;
	}
	print_summary(&res);
	if (res.failed) {
		riot_err("%llu entries could not be created; first: %s",
			 (unsigned long long)res.failed, res.first_failure);
		return RIOT_EXIT_FAIL;
	}
	return RIOT_EXIT_OK;
}
