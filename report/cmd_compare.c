/* report/cmd_compare.c: `riot compare DB [RUN...]...`: gathers the runs
 * named from one or more report databases and prints them side by side
 * (report/compare.c) as text, JSON or a page (report/html.c). */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/cli.h"
#include "report/report_int.h"
#include "report/view.h"

const char cmd_compare_help[] =
	"Usage: riot compare DB [RUN...] [DB [RUN...]]... [--json] [--html OUT.html]\n"
	"\n"
	"Puts runs side by side: the elapsed time of each run, then per class\n"
	"(data_read, data_write, sync, metadata, all) and per syscall the ops/s\n"
	"and MiB/s over the time spent in those calls, the p50 and p99 latency\n"
	"and the total time in them, each with its ratio to the first run (the\n"
	"baseline: a run's value over the baseline's) and the winner.\n"
	"\n"
	"Runs with the same label (from several databases) are repeats: their\n"
	"median is shown, with their spread, and the largest spread is the\n"
	"noise. Without repeats, differences under 5 % are noise (percentiles:\n"
	"at least the histograms' 1.6 %). A winner is named only beyond the\n"
	"noise, else \"within noise\"; \"-\" where a run lacks the operation (a\n"
	"call not replayed). Elapsed times have a winner only when every run\n"
	"comes from the same log (same SHA-256).\n"
	"\n"
	"A replay is compared with the capture of its own log (the runs' trace\n"
	"SHA-256 match) for fidelity: operations and bytes against the capture,\n"
	"divergences and issue delays per syscall, and per class the operations,\n"
	"the total time in syscalls and the p50 of the replay against the\n"
	"capture's (a self-replay onto the captured filesystem should give\n"
	"ratios near 1).\n"
	"\n"
	"A fleet run (riot report merge) is one run: its figures are over every\n"
	"operation of the runs it sums (its shards), and beside each, after ~,\n"
	"the range of its shards' own figures relative to their mean (not\n"
	"noise: shards replay different processes). A DB given without\n"
	"RUN brings its fleets, not their shards as runs of their own, so two\n"
	"merged reports compare this storage's fleet with that one's; fleets of\n"
	"the same label from several DBs are told apart as LABEL@NAME (the DB's\n"
	"file name without .db), never taken as repeats.\n"
	"\n"
	"Each DB is a report database (riot report, riot replay --report); a\n"
	"RUN (an id or a label) picks runs of the DB named before it; a DB with\n"
	"no RUN after it contributes all its runs. An argument naming an\n"
	"existing file is a DB. At least two runs in all.\n"
	"\n"
	"  --json         one JSON object: runs, groups, classes, syscalls, fidelity\n"
	"  --html OUT     a self-contained page: latency distributions of all runs\n"
	"                 per class, throughput over time, and the tables\n";

#define MAX_DBS 32
#define MAX_RUNS CMP_MAX_RUNS

struct compare_set {
	sqlite3 *dbs[MAX_DBS];
	unsigned ndbs;
	struct run_view runs[MAX_RUNS];
	unsigned nruns;
	bool picked[MAX_DBS];		/* a RUN named after this DB */
};

static bool is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int add_run(struct compare_set *cs, unsigned d, const char *path, int64_t id)
{
	char err[512];
	int rc;

	if (cs->nruns == MAX_RUNS) {
		riot_err("at most %d runs at once", MAX_RUNS);
		return -E2BIG;
	}
	rc = view_load(cs->dbs[d], path, id, &cs->runs[cs->nruns], err, sizeof(err));
	if (rc) {
		riot_err("%s", err);
		return rc;
	}
	cs->nruns++;
	return 0;
}

static int add_all_runs(struct compare_set *cs, unsigned d, const char *path)
{
	int64_t *ids = NULL;
	unsigned n = 0;
	int rc = view_run_ids(cs->dbs[d], &ids, &n);

	if (rc)
		riot_err("%s: %s", path, strerror(-rc));
	for (unsigned i = 0; i < n && !rc; i++)
		rc = add_run(cs, d, path, ids[i]);
	free(ids);
	return rc;
}

static int collect(struct compare_set *cs, char **args, unsigned nargs)
{
	const char *paths[MAX_DBS];
	char err[512];
	int64_t id;
	int rc = 0;

	for (unsigned a = 0; a < nargs && !rc; a++) {
		if (a == 0 || is_file(args[a])) {
			if (cs->ndbs == MAX_DBS) {
				riot_err("at most %d databases at once", MAX_DBS);
				return -E2BIG;
			}
			cs->dbs[cs->ndbs] = report_db_open_ro(args[a], err, sizeof(err));
			if (!cs->dbs[cs->ndbs]) {
				riot_err("%s", err);
				return -EINVAL;
			}
			paths[cs->ndbs++] = args[a];
			continue;
		}
		rc = view_find_run(cs->dbs[cs->ndbs - 1], paths[cs->ndbs - 1], args[a], &id,
				   err, sizeof(err));
		if (rc)
			riot_err("%s", err);
		else
			rc = add_run(cs, cs->ndbs - 1, paths[cs->ndbs - 1], id);
		cs->picked[cs->ndbs - 1] = true;
	}
	/* a DB with no RUN after it brings all its runs, after the named ones */
	for (unsigned d = 0; d < cs->ndbs && !rc; d++)
		if (!cs->picked[d])
			rc = add_all_runs(cs, d, paths[d]);
	return rc;
}

/* The index of a run's database in cs. */
static unsigned db_of(const struct compare_set *cs, const struct run_view *v)
{
	for (unsigned d = 0; d < cs->ndbs; d++)
		if (cs->dbs[d] == v->db)
			return d;
	return 0;
}

/* Whether runs[j] is a member of a fleet run among the runs. */
static bool in_listed_fleet(const struct compare_set *cs, unsigned j)
{
	const struct run_view *r = &cs->runs[j];

	for (unsigned i = 0; i < cs->nruns && r->fleet_id > 0; i++)
		if (cs->runs[i].db == r->db && cs->runs[i].id == r->fleet_id)
			return true;
	return false;
}

/* "dir/ext4.db" -> "ext4" */
static void db_tag(const char *path, char *out, size_t len)
{
	const char *b = strrchr(path, '/'), *dot;

	b = b ? b + 1 : path;
	dot = strrchr(b, '.');
	snprintf(out, len, "%.*s", (int)(dot && dot != b ? dot - b : (ptrdiff_t)strlen(b)), b);
}

/* Fleets as one run each: every fleet run gets its shards; a database
 * given whole drops its fleets' members from the runs; a fleet whose
 * label another database's run has too becomes LABEL@NAME, so fleets of
 * two storages are two groups, not repeats. */
static int fold_fleets(struct compare_set *cs)
{
	char err[512], tag[256];
	bool clash[MAX_RUNS] = { false };
	unsigned keep = 0;
	int rc = 0;

	for (unsigned i = 0; i < cs->nruns && !rc; i++)
		if (cs->runs[i].fleet_runs > 0 &&
		    (rc = view_load_shards(&cs->runs[i], err, sizeof(err))))
			riot_err("%s", err);
	for (unsigned j = 0; j < cs->nruns && !rc; j++) {
		if (!cs->picked[db_of(cs, &cs->runs[j])] && in_listed_fleet(cs, j)) {
			view_free(&cs->runs[j]);
			continue;
		}
		if (keep != j)
			cs->runs[keep] = cs->runs[j];
		keep++;
	}
	if (rc)
		return rc;
	cs->nruns = keep;
	for (unsigned i = 0; i < cs->nruns; i++) {
		struct run_view *f = &cs->runs[i];

		for (unsigned k = 0; k < cs->nruns && f->fleet_runs > 0 && !clash[i]; k++)
			clash[i] = k != i && cs->runs[k].db != f->db &&
				   strcmp(cs->runs[k].label, f->label) == 0;
	}
	for (unsigned i = 0; i < cs->nruns; i++) {
		struct run_view *f = &cs->runs[i];
		char *l;

		if (!clash[i])
			continue;
		db_tag(f->db_path, tag, sizeof(tag));
		if (asprintf(&l, "%s@%s", f->label, tag) < 0) {
			riot_err("out of memory");
			return -ENOMEM;
		}
		free(f->label);
		f->label = l;
	}
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "html", required_argument, NULL, 'H' },
		{ 0 },
	};
	struct compare_set *cs;
	const char *html = NULL;
	bool json = false;
	char err[512];
	int c, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'H')
			html = optarg;
		else
			return riot_usage("bad option");
	}
	if (argc - optind < 1)
		return riot_usage("needs a report database");
	cs = calloc(1, sizeof(*cs));
	if (!cs) {
		riot_err("out of memory");
		return RIOT_EXIT_FAIL;
	}
	rc = collect(cs, argv + optind, (unsigned)(argc - optind));
	if (!rc)
		rc = fold_fleets(cs);
	/* one fleet alone: its figures with its shards' spread */
	if (!rc && cs->nruns < 2 && !(cs->nruns == 1 && cs->runs[0].nshards)) {
		riot_err("needs at least two runs to compare (found %u)", cs->nruns);
		rc = -EINVAL;
	}
	if (!rc && (rc = view_common_classes(cs->runs, cs->nruns)) < 0)
		riot_err("%s", strerror(-rc));
	else if (rc > 0)
		rc = 0;
	if (!rc && html) {
		rc = html_write(html, cs->runs, cs->nruns, err, sizeof(err));
		if (rc)
			riot_err("%s", err);
	} else if (!rc && json) {
		compare_json(stdout, cs->runs, cs->nruns);
	} else if (!rc) {
		compare_print(stdout, cs->runs, cs->nruns);
	}
	for (unsigned i = 0; i < cs->nruns; i++)
		view_free(&cs->runs[i]);
	for (unsigned d = 0; d < cs->ndbs; d++)
		sqlite3_close(cs->dbs[d]);
	free(cs);
	return rc ? RIOT_EXIT_FAIL : RIOT_EXIT_OK;
}
