/* report/compare.c: `riot compare`: runs side by side per class and per
 * syscall, with ratios to the first run and the winner; a capture against
 * its replays also shows the replay's fidelity. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "lib/cli.h"
#include "lib/json.h"
#include "lib/text.h"
#include "view.h"

const char cmd_compare_help[] =
	"Usage: riot compare DB [RUN...] [DB [RUN...]]... [--json] [--html OUT.html]\n"
	"\n"
	"Puts runs side by side: per class (data_read, data_write, sync,\n"
	"metadata, all) and per syscall, the ops/s, throughput, p50 and p99\n"
	"latency and total time in syscalls, each with its ratio to the first\n"
	"run (the baseline) and the winner. Percentiles within 1.6 % of each\n"
	"other (the histograms' resolution) are a tie. A capture compared with\n"
	"replays also shows each replay's fidelity: operations and bytes\n"
	"against the capture, divergences and issue delays per syscall, and\n"
	"per class the operations, the total time in syscalls and the p50 of\n"
	"the replay against the capture's (a self-replay onto the captured\n"
	"filesystem should give ratios near 1).\n"
	"\n"
	"Each DB is a report database (riot report, riot replay --report); a\n"
	"RUN (an id or a label) picks runs of the DB named before it; a DB with\n"
	"no RUN after it contributes all its runs. An argument naming an\n"
	"existing file is a DB. At least two runs in all.\n"
	"\n"
	"  --json         one JSON object: runs, classes, syscalls, fidelity\n"
	"  --html OUT     a self-contained page: latency distributions and\n"
	"                 throughput over time for each run, and the tables\n";

const char *const cmp_metric_names[CMP_METRICS] = {
	[CMP_OPS_RATE] = "ops/s", [CMP_THROUGHPUT] = "MiB/s", [CMP_P50] = "p50",
	[CMP_P99] = "p99", [CMP_TOTAL_TIME] = "total time",
};

double cmp_value(const struct cmp_src *s, uint64_t duration_ns, enum cmp_metric m)
{
	switch (m) {
	case CMP_OPS_RATE:
		return view_rate(s->count, duration_ns);
	case CMP_THROUGHPUT:
		return view_rate(s->bytes, duration_ns);
	case CMP_P50:
		return (double)s->p50;
	case CMP_P99:
		return (double)s->p99;
	default:
		return (double)s->lat_sum;
	}
}

static bool higher_is_better(enum cmp_metric m)
{
	return m == CMP_OPS_RATE || m == CMP_THROUGHPUT;
}

int cmp_winner(const double *vals, unsigned n, enum cmp_metric m)
{
	double tol = (m == CMP_P50 || m == CMP_P99) ? 1.0 / HIST_SUB : 0;
	int best = -1, second = -1;

	for (unsigned i = 0; i < n; i++) {
		bool better = best < 0 || (higher_is_better(m) ? vals[i] > vals[best] : vals[i] < vals[best]);

		if (better) {
			second = best;
			best = (int)i;
		} else if (second < 0 || (higher_is_better(m) ? vals[i] > vals[second] :
					  vals[i] < vals[second])) {
			second = (int)i;
		}
	}
	if (best < 0 || second < 0)
		return best;
	{
		double hi = fmax(vals[best], vals[second]), lo = fmin(vals[best], vals[second]);

		if (hi == 0 || hi - lo <= tol * hi)
			return -1;
	}
	return best;
}

static struct cmp_src class_src(const struct run_view *v, unsigned k)
{
	const struct class_view *c = &v->cls[k];

	return (struct cmp_src){ c->count, c->bytes, c->p50, c->p99, c->lat_sum };
}

static struct cmp_src sys_src(const struct run_view *v, const char *name)
{
	const struct sys_view *s = view_sys(v, name);

	if (!s)
		return (struct cmp_src){ 0 };
	return (struct cmp_src){ s->count, s->bytes, s->p50, s->p99, s->lat_sum };
}

/* ---- text ---- */

static const char *fmt_metric(double v, enum cmp_metric m, char *buf, size_t len)
{
	switch (m) {
	case CMP_OPS_RATE:
		snprintf(buf, len, "%.1f", v);
		break;
	case CMP_THROUGHPUT:
		snprintf(buf, len, "%.2f", v / (1024.0 * 1024.0));
		break;
	default:
		riot_fmt_ns((uint64_t)v, buf, len);
		break;
	}
	return buf;
}

static void fmt_ratio(double v, double base, char *buf, size_t len)
{
	if (base == 0)
		snprintf(buf, len, "%s", v == 0 ? "=" : "new");
	else
		snprintf(buf, len, "%.3f", v / base);
}

/* Throughput rows only where some run moved bytes (not for metadata). */
static bool moves_bytes(const struct cmp_src *src, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (src[i].bytes)
			return true;
	return false;
}

static void print_metric_row(FILE *out, const char *what, enum cmp_metric m,
			     const struct cmp_src *src, struct run_view *runs, unsigned n)
{
	double vals[n];
	char buf[32];
	int w;

	for (unsigned i = 0; i < n; i++)
		vals[i] = cmp_value(&src[i], runs[i].duration_ns, m);
	fprintf(out, "  %-16s %-10s", what, cmp_metric_names[m]);
	for (unsigned i = 0; i < n; i++)
		fprintf(out, " %12s", fmt_metric(vals[i], m, buf, sizeof(buf)));
	for (unsigned i = 1; i < n; i++) {
		fmt_ratio(vals[i], vals[0], buf, sizeof(buf));
		fprintf(out, " %9s", buf);
	}
	w = cmp_winner(vals, n, m);
	fprintf(out, "  %s\n", w < 0 ? "tie" : runs[w].label);
}

static void print_table_head(FILE *out, const char *first, struct run_view *runs, unsigned n)
{
	char buf[64];

	fprintf(out, "  %-16s %-10s", first, "metric");
	for (unsigned i = 0; i < n; i++)
		fprintf(out, " %12.12s", runs[i].label);
	for (unsigned i = 1; i < n; i++) {
		snprintf(buf, sizeof(buf), "%.4s/%.4s", runs[i].label, runs[0].label);
		fprintf(out, " %9s", buf);
	}
	fprintf(out, "  winner\n");
}

static void print_classes(FILE *out, struct run_view *runs, unsigned n)
{
	struct cmp_src src[n];

	fprintf(out, "per class\n");
	print_table_head(out, "class", runs, n);
	for (unsigned k = 0; k < VIEW_CLASSES; k++) {
		bool any = false;

		for (unsigned i = 0; i < n; i++) {
			src[i] = class_src(&runs[i], k);
			any |= src[i].count > 0;
		}
		for (unsigned m = 0; any && m < CMP_METRICS; m++)
			if (m != CMP_THROUGHPUT || moves_bytes(src, n))
				print_metric_row(out, m ? "" : view_class_names[k], m, src, runs, n);
	}
}

/* Syscalls in the order of the baseline, then those only others have. */
static void for_each_sys(struct run_view *runs, unsigned n,
			 void (*fn)(const char *name, void *ctx), void *ctx)
{
	for (unsigned i = 0; i < n; i++)
		for (unsigned s = 0; s < runs[i].nsys; s++) {
			bool seen = false;

			for (unsigned j = 0; j < i && !seen; j++)
				seen = view_sys(&runs[j], runs[i].sys[s].name) != NULL;
			if (!seen)
				fn(runs[i].sys[s].name, ctx);
		}
}

struct sys_print {
	FILE *out;
	struct run_view *runs;
	unsigned n;
};

static void print_sys(const char *name, void *ctx)
{
	struct sys_print *p = ctx;
	struct cmp_src src[p->n];

	for (unsigned i = 0; i < p->n; i++)
		src[i] = sys_src(&p->runs[i], name);
	for (unsigned m = 0; m < CMP_METRICS; m++)
		if (m != CMP_THROUGHPUT || moves_bytes(src, p->n))
			print_metric_row(p->out, m ? "" : name, m, src, p->runs, p->n);
}

/* A replay's fidelity against the capture it replayed. */
static void print_fidelity(FILE *out, const struct run_view *cap, const struct run_view *rep)
{
	char b[5][24];

	fprintf(out, "\nfidelity of %s against %s\n", rep->label, cap->label);
	fprintf(out, "  %-16s %11s %11s %10s %10s %9s %9s %9s %9s %9s\n", "syscall", "captured",
		"replayed", "cap bytes", "rep bytes", "diverged", "skipped", "delay p50",
		"delay p99", "delay max");
	for (unsigned i = 0; i < cap->nsys; i++) {
		const struct sys_view *c = &cap->sys[i], *r = view_sys(rep, c->name);
		struct sys_view none = { 0 };

		if (!r)
			r = &none;
		fprintf(out, "  %-16s %11" PRIu64 " %11" PRIu64 " %10s %10s %9" PRIu64
			" %9" PRIu64 " %9s %9s %9s\n", c->name, c->count, r->count,
			riot_fmt_bytes(c->bytes, b[0], 24), riot_fmt_bytes(r->bytes, b[1], 24),
			SYS_DIVERGED(r), r->div[2],
			r->delay_count ? riot_fmt_ns(r->delay_p50, b[2], 24) : "-",
			r->delay_count ? riot_fmt_ns(r->delay_p99, b[3], 24) : "-",
			r->delay_count ? riot_fmt_ns(r->delay_max, b[4], 24) : "-");
	}
	fprintf(out, "  total: %" PRIu64 " of %" PRIu64 " operations replayed, bytes %" PRIu64
		"/%" PRIu64 " read, %" PRIu64 "/%" PRIu64 " written\n", rep->ops, cap->ops,
		rep->bytes_read, cap->bytes_read, rep->bytes_written, cap->bytes_written);
	fprintf(out, "  %-16s %11s %11s %11s %11s %9s %9s %9s %9s\n", "class", "captured",
		"replayed", "cap time", "rep time", "time", "cap p50", "rep p50", "p50");
	for (unsigned k = 0; k < VIEW_CLASSES; k++) {
		const struct class_view *c = &cap->cls[k], *r = &rep->cls[k];

		if (!c->count && !r->count)
			continue;
		fmt_ratio((double)r->lat_sum, (double)c->lat_sum, b[0], 24);
		fmt_ratio((double)r->p50, (double)c->p50, b[1], 24);
		fprintf(out, "  %-16s %11" PRIu64 " %11" PRIu64, view_class_names[k], c->count,
			r->count);
		fprintf(out, " %11s", riot_fmt_ns(c->lat_sum, b[2], 24));
		fprintf(out, " %11s %9s", riot_fmt_ns(r->lat_sum, b[3], 24), b[0]);
		fprintf(out, " %9s", riot_fmt_ns(c->p50, b[2], 24));
		fprintf(out, " %9s %9s\n", riot_fmt_ns(r->p50, b[3], 24), b[1]);
	}
	fprintf(out, "  (time: total time in syscalls of the class; ratios replay/capture)\n");
}

/* The strings of a run that text output shows, escaped for a terminal
 * (lib/text.h); swap_safe() twice restores the originals. */
static void swap_safe(struct run_view *v, char **keep, bool restore)
{
	char **f[] = { &v->label, &v->host, &v->fs_type, &v->fs_device };

	for (unsigned k = 0; k < 4; k++) {
		if (restore) {
			free(*f[k]);
			*f[k] = keep[k];
		} else {
			keep[k] = *f[k];
			*f[k] = keep[k] ? text_dup(keep[k]) : NULL;
			if (keep[k] && !*f[k])
				*f[k] = strdup("?");
		}
	}
}

static void print_runs(FILE *out, struct run_view *runs, unsigned n);

void compare_print(FILE *out, struct run_view *runs, unsigned n)
{
	char *keep[n][4];

	for (unsigned i = 0; i < n; i++)
		swap_safe(&runs[i], keep[i], false);
	print_runs(out, runs, n);
	for (unsigned i = 0; i < n; i++)
		swap_safe(&runs[i], keep[i], true);
}

static void print_runs(FILE *out, struct run_view *runs, unsigned n)
{
	struct sys_print sp = { out, runs, n };

	fprintf(out, "runs (ratios are against %s)\n", runs[0].label);
	for (unsigned i = 0; i < n; i++)
		fprintf(out, "  %-16s %-8s %s, %s on %s, %.3f s, %s\n", runs[i].label, runs[i].kind,
			runs[i].db_path, runs[i].fs_type ? runs[i].fs_type : "?",
			runs[i].fs_device ? runs[i].fs_device : "?",
			(double)runs[i].duration_ns / 1e9, runs[i].host ? runs[i].host : "?");
	fprintf(out, "\n");
	print_classes(out, runs, n);
	fprintf(out, "\nper syscall\n");
	print_table_head(out, "syscall", runs, n);
	for_each_sys(runs, n, print_sys, &sp);
	device_compare(out, runs, n);
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < n; j++)
			if (!view_is_replay(&runs[i]) && view_is_replay(&runs[j]))
				print_fidelity(out, &runs[i], &runs[j]);
}

/* ---- JSON ---- */

static void json_metrics(struct json *j, const char *key, const struct cmp_src *src,
			 struct run_view *runs, unsigned n)
{
	json_obj_open(j, key);
	for (unsigned m = 0; m < CMP_METRICS; m++) {
		double vals[n];
		int w;

		for (unsigned i = 0; i < n; i++)
			vals[i] = cmp_value(&src[i], runs[i].duration_ns, m);
		w = cmp_winner(vals, n, m);
		json_obj_open(j, cmp_metric_names[m]);
		json_arr_open(j, "values");
		for (unsigned i = 0; i < n; i++) {
			if (m == CMP_OPS_RATE || m == CMP_THROUGHPUT)
				json_double(j, NULL, m == CMP_THROUGHPUT ? vals[i] / 1048576.0 : vals[i]);
			else	/* ns: exact integers */
				json_u64(j, NULL, (uint64_t)vals[i]);
		}
		json_arr_close(j);
		json_arr_open(j, "ratios");
		for (unsigned i = 1; i < n; i++) {
			if (vals[0] == 0)
				json_null(j, NULL);
			else
				json_double(j, NULL, vals[i] / vals[0]);
		}
		json_arr_close(j);
		json_str(j, "winner", w < 0 ? NULL : runs[w].label);
		json_obj_close(j);
	}
	json_obj_close(j);
}

struct sys_json {
	struct json *j;
	struct run_view *runs;
	unsigned n;
};

static void json_sys(const char *name, void *ctx)
{
	struct sys_json *p = ctx;
	struct cmp_src src[p->n];

	for (unsigned i = 0; i < p->n; i++)
		src[i] = sys_src(&p->runs[i], name);
	json_metrics(p->j, name, src, p->runs, p->n);
}

/* v / base, or null when base is 0. */
static void json_ratio(struct json *j, const char *key, uint64_t v, uint64_t base)
{
	if (base)
		json_double(j, key, (double)v / (double)base);
	else
		json_null(j, key);
}

static void json_fidelity(struct json *j, const struct run_view *cap, const struct run_view *rep)
{
	json_obj_open(j, NULL);
	json_str(j, "capture", cap->label);
	json_str(j, "replay", rep->label);
	json_obj_open(j, "syscalls");
	for (unsigned i = 0; i < cap->nsys; i++) {
		const struct sys_view *c = &cap->sys[i], *r = view_sys(rep, c->name);
		struct sys_view none = { 0 };

		r = r ? r : &none;
		json_obj_open(j, c->name);
		json_u64(j, "captured", c->count);
		json_u64(j, "replayed", r->count);
		json_u64(j, "captured_bytes", c->bytes);
		json_u64(j, "replayed_bytes", r->bytes);
		json_u64(j, "diverged", SYS_DIVERGED(r));
		json_u64(j, "skipped", r->div[2]);
		json_u64(j, "delay_p50_ns", r->delay_p50);
		json_u64(j, "delay_p99_ns", r->delay_p99);
		json_u64(j, "delay_max_ns", r->delay_max);
		json_obj_close(j);
	}
	json_obj_close(j);
	json_obj_open(j, "classes");
	for (unsigned k = 0; k < VIEW_CLASSES; k++) {
		const struct class_view *c = &cap->cls[k], *r = &rep->cls[k];

		json_obj_open(j, view_class_names[k]);
		json_u64(j, "captured", c->count);
		json_u64(j, "replayed", r->count);
		json_u64(j, "captured_time_ns", c->lat_sum);
		json_u64(j, "replayed_time_ns", r->lat_sum);
		json_ratio(j, "time_ratio", r->lat_sum, c->lat_sum);
		json_u64(j, "captured_p50_ns", c->p50);
		json_u64(j, "replayed_p50_ns", r->p50);
		json_ratio(j, "p50_ratio", r->p50, c->p50);
		json_obj_close(j);
	}
	json_obj_close(j);
	json_obj_close(j);
}

void compare_json(FILE *out, struct run_view *runs, unsigned n)
{
	struct json j;
	struct sys_json sj = { &j, runs, n };
	struct cmp_src src[n];

	json_init(&j, out, true);
	json_obj_open(&j, NULL);
	json_arr_open(&j, "runs");
	for (unsigned i = 0; i < n; i++) {
		json_obj_open(&j, NULL);
		json_str(&j, "database", runs[i].db_path);
		json_i64(&j, "id", runs[i].id);
		json_str(&j, "label", runs[i].label);
		json_str(&j, "kind", runs[i].kind);
		json_u64(&j, "duration_ns", runs[i].duration_ns);
		device_json(&j, &runs[i]);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_obj_open(&j, "classes");
	for (unsigned k = 0; k < VIEW_CLASSES; k++) {
		for (unsigned i = 0; i < n; i++)
			src[i] = class_src(&runs[i], k);
		json_metrics(&j, view_class_names[k], src, runs, n);
	}
	json_obj_close(&j);
	json_obj_open(&j, "syscalls");
	for_each_sys(runs, n, json_sys, &sj);
	json_obj_close(&j);
	json_arr_open(&j, "fidelity");
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < n; k++)
			if (!view_is_replay(&runs[i]) && view_is_replay(&runs[k]))
				json_fidelity(&j, &runs[i], &runs[k]);
	json_arr_close(&j);
	json_obj_close(&j);
	json_end_line(&j);
}

/* ---- the command ---- */

#define MAX_DBS 32
#define MAX_RUNS 64

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
			return riot_usage("unknown option");
	}
	if (argc - optind < 1)
		return riot_usage("needs a report database");
	cs = calloc(1, sizeof(*cs));
	if (!cs) {
		riot_err("out of memory");
		return RIOT_EXIT_FAIL;
	}
	rc = collect(cs, argv + optind, (unsigned)(argc - optind));
	if (!rc && cs->nruns < 2) {
		riot_err("needs at least two runs to compare (found %u)", cs->nruns);
		rc = -EINVAL;
	}
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
