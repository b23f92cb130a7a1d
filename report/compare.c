/* report/compare.c: runs side by side per class and per syscall, with
 * ratios to the first run and the winner where the difference is beyond
 * noise; a capture against the replays of its own log also shows their
 * fidelity. The rows are made once (cmp_rows()) for the text, JSON and
 * HTML printers; `riot compare` is report/cmd_compare.c. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"
#include "lib/cli.h"
#include "lib/fields.h"
#include "lib/json.h"
#include "lib/text.h"
#include "report/view.h"

const char *const cmp_metric_names[CMP_ALL_METRICS] = {
	[CMP_OPS_RATE] = "ops/s", [CMP_THROUGHPUT] = "MiB/s", [CMP_P50] = "p50",
	[CMP_P99] = "p99", [CMP_TOTAL_TIME] = "total time", [CMP_ELAPSED] = "elapsed",
	[CMP_PREDICTED] = "predicted", [CMP_CAPTURED] = "captured",
};

double cmp_value(const struct cmp_src *s, enum cmp_metric m)
{
	switch (m) {
	case CMP_OPS_RATE:
		return view_rate(s->count, s->lat_sum);
	case CMP_THROUGHPUT:
		return view_rate(s->bytes, s->lat_sum);
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

static bool better(double a, double b, enum cmp_metric m)
{
	return higher_is_better(m) ? a > b : a < b;
}

int cmp_winner(const struct cmp_stat *s, unsigned n, enum cmp_metric m)
{
	double noise = 0, floor = (m == CMP_P50 || m == CMP_P99) ? 1.0 / HIST_SUB : 0;
	bool repeats = false;
	int best = -1, second = -1;

	for (unsigned i = 0; i < n; i++) {
		if (s[i].missing)
			return CMP_NOT_COMPARABLE;
		if (s[i].n > 1) {
			repeats = true;
			if (s[i].mid > 0 && (s[i].hi - s[i].lo) / s[i].mid > noise)
				noise = (s[i].hi - s[i].lo) / s[i].mid;
		}
		if (best < 0 || better(s[i].mid, s[best].mid, m)) {
			second = best;
			best = (int)i;
		} else if (second < 0 || better(s[i].mid, s[second].mid, m)) {
			second = (int)i;
		}
	}
	if (!repeats)
		noise = CMP_NOISE_DEFAULT;
	if (noise < floor)
		noise = floor;
	if (best < 0 || second < 0)
		return best < 0 ? CMP_NOT_COMPARABLE : best;
	{
		const struct cmp_stat *b = &s[best], *o = &s[second];
		double hi = fmax(b->mid, o->mid), lo = fmin(b->mid, o->mid);
		bool overlap = higher_is_better(m) ? b->lo <= o->hi : b->hi >= o->lo;

		if (hi == 0 || hi - lo <= noise * hi || (repeats && overlap))
			return CMP_WITHIN_NOISE;
	}
	return best;
}

/* ---- groups and rows ---- */

/* A verdict, unless a run of the comparison did not replay the captured
 * I/O: then no winner is named; nor when one group stands alone (a fleet
 * shown with its shards' spread). */
static int trusted(const struct cmp_ctx *c, int winner)
{
	if (c->ng < 2)
		return CMP_NO_WINNER;
	return c->unreliable && (winner >= 0 || winner == CMP_WITHIN_NOISE) ?
		CMP_UNRELIABLE : winner;
}

void cmp_ctx_init(struct cmp_ctx *c, struct run_view *runs, unsigned n)
{
	memset(c, 0, sizeof(*c));
	c->runs = runs;
	c->nruns = n < CMP_MAX_RUNS ? n : CMP_MAX_RUNS;
	c->same_log = view_same_log(runs, c->nruns);
	for (unsigned i = 0; i < c->nruns; i++) {
		unsigned g;

		c->unreliable |= runs[i].unreliable == 1;
		for (g = 0; g < c->ng; g++)
			if (strcmp(cmp_group_label(c, g), runs[i].label) == 0)
				break;
		if (g == c->ng)
			c->first[c->ng++] = i;
		c->group_of[i] = g;
		c->size[g]++;
		c->repeats |= c->size[g] > 1;
		c->fleets |= runs[i].nshards > 0;
	}
}

int cmp_capture_of(const struct cmp_ctx *c, unsigned replay)
{
	const struct run_view *r = &c->runs[replay];

	if (!view_is_replay(r) || !r->trace_sha256 || !*r->trace_sha256)
		return -1;
	for (unsigned i = 0; i < c->nruns; i++)
		if (!view_is_replay(&c->runs[i]) && c->runs[i].trace_sha256 &&
		    strcmp(c->runs[i].trace_sha256, r->trace_sha256) == 0)
			return (int)i;
	return -1;
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

static int dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* Per group: the median, range and count of vals over its runs; a group
 * with a run lacking the operation (have false) is missing. */
static void group_stats(const struct cmp_ctx *c, const double *vals, const bool *have,
			struct cmp_stat *st)
{
	for (unsigned g = 0; g < c->ng; g++) {
		double v[CMP_MAX_RUNS];
		unsigned n = 0;

		memset(&st[g], 0, sizeof(st[g]));
		for (unsigned i = 0; i < c->nruns; i++) {
			if (c->group_of[i] != g)
				continue;
			if (!have[i])
				st[g].missing = true;
			v[n++] = vals[i];
		}
		qsort(v, n, sizeof(v[0]), dbl_cmp);
		st[g].n = n;
		st[g].lo = n ? v[0] : 0;
		st[g].hi = n ? v[n - 1] : 0;
		st[g].mid = !n ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	}
}

typedef void (*row_fn)(const struct cmp_ctx *c, const struct cmp_row *r, void *arg);

/* A run's value of metric m for a row's operation (key: its class index,
 * its syscall name), and whether the run has the operation. */
typedef bool (*shard_val)(const struct run_view *v, const void *key, enum cmp_metric m,
			  double *out);

static bool class_val(const struct run_view *v, const void *key, enum cmp_metric m, double *out)
{
	struct cmp_src s = class_src(v, *(const unsigned *)key);

	*out = cmp_value(&s, m);
	return s.count > 0;
}

static bool sys_val(const struct run_view *v, const void *key, enum cmp_metric m, double *out)
{
	struct cmp_src s = sys_src(v, key);

	*out = cmp_value(&s, m);
	return s.count > 0;
}

static uint64_t run_time(const struct run_view *v, enum cmp_metric m);

static bool run_val(const struct run_view *v, const void *key, enum cmp_metric m, double *out)
{
	*out = (double)run_time(v, m);
	return *out > 0;
}

/* Beside a fleet group's value: the range of its shards' own values (a
 * group of one fleet run; repeated fleets show their repeats' spread). */
static void shard_spread(const struct cmp_ctx *c, struct cmp_stat *st, shard_val val,
			 const void *key, enum cmp_metric m)
{
	for (unsigned g = 0; g < c->ng; g++) {
		const struct run_view *f = &c->runs[c->first[g]];
		double v;

		for (unsigned s = 0; c->size[g] == 1 && s < f->nshards; s++) {
			if (!val(&f->shards[s], key, m, &v))
				continue;
			if (!st[g].shards || v < st[g].slo)
				st[g].slo = v;
			if (!st[g].shards || v > st[g].shi)
				st[g].shi = v;
			st[g].smean += v;
			st[g].shards++;
		}
		if (st[g].shards)
			st[g].smean /= st[g].shards;
	}
}

/* The rows of one class or syscall: every metric, MiB/s only where some
 * run moved bytes. */
static void src_rows(const struct cmp_ctx *c, const char *name, const struct cmp_src *src,
		     shard_val val, const void *key, row_fn fn, void *arg)
{
	struct cmp_row r = { .name = name, .first = true };
	bool have[CMP_MAX_RUNS], bytes = false;
	double vals[CMP_MAX_RUNS];

	for (unsigned i = 0; i < c->nruns; i++) {
		have[i] = src[i].count > 0;
		bytes |= src[i].bytes > 0;
	}
	for (unsigned m = 0; m < CMP_METRICS; m++) {
		if (m == CMP_THROUGHPUT && !bytes)
			continue;
		for (unsigned i = 0; i < c->nruns; i++)
			vals[i] = cmp_value(&src[i], m);
		r.m = m;
		group_stats(c, vals, have, r.st);
		shard_spread(c, r.st, val, key, m);
		r.winner = trusted(c, cmp_winner(r.st, c->ng, m));
		fn(c, &r, arg);
		r.first = false;
	}
}

/* The run's time of metric m (a run row's), 0: none. */
static uint64_t run_time(const struct run_view *v, enum cmp_metric m)
{
	int64_t t = m == CMP_PREDICTED ? v->predicted_ns : m == CMP_CAPTURED ? v->captured_ns :
					 (int64_t)v->duration_ns;

	return t > 0 ? (uint64_t)t : 0;
}

/* Whether a run's elapsed time holds the program's own time between its
 * calls: a capture's, a replay's timed by the capture (--timing think or
 * captured; speed > 0 in a report older than replay_timing); not one as
 * fast as possible. */
static bool program_time(const struct run_view *v)
{
	if (!view_is_replay(v))
		return true;
	if (v->replay_timing)
		return strcmp(v->replay_timing, "fast") != 0;
	return v->replay_speed > 0;
}

/* The run rows: elapsed; then, where a run predicted the program's time
 * (--timing think), the prediction and the captured program's own. */
static void run_rows(const struct cmp_ctx *c, row_fn fn, void *arg)
{
	struct cmp_row r = { .name = "run", .first = true };
	bool have[CMP_MAX_RUNS], predicted = false, same_timing = true;
	double vals[CMP_MAX_RUNS];

	for (unsigned i = 0; i < c->nruns; i++) {
		predicted |= run_time(&c->runs[i], CMP_PREDICTED) > 0;
		same_timing &= program_time(&c->runs[i]) == program_time(&c->runs[0]);
	}
	for (unsigned m = CMP_ELAPSED; m <= (predicted ? CMP_CAPTURED : CMP_ELAPSED); m++) {
		for (unsigned i = 0; i < c->nruns; i++) {
			vals[i] = (double)run_time(&c->runs[i], (enum cmp_metric)m);
			have[i] = vals[i] > 0;
		}
		r.m = (enum cmp_metric)m;
		group_stats(c, vals, have, r.st);
		shard_spread(c, r.st, run_val, NULL, r.m);
		/* the captured time is the log's, the same for every replay;
		 * an elapsed time with the program's time between calls and
		 * one without measure different things */
		r.winner = c->same_log && m != CMP_CAPTURED && (m != CMP_ELAPSED || same_timing) ?
			trusted(c, cmp_winner(r.st, c->ng, r.m)) : CMP_NO_WINNER;
		fn(c, &r, arg);
		r.first = false;
	}
}

void cmp_rows(const struct cmp_ctx *c, enum cmp_table t, row_fn fn, void *arg)
{
	struct cmp_src src[CMP_MAX_RUNS];

	if (t == CMP_TABLE_RUN) {
		run_rows(c, fn, arg);
		return;
	}
	if (t == CMP_TABLE_CLASS) {
		for (unsigned k = 0; k < VIEW_CLASSES; k++) {
			bool any = false;

			for (unsigned i = 0; i < c->nruns; i++) {
				src[i] = class_src(&c->runs[i], k);
				any |= src[i].count > 0;
			}
			if (any)
				src_rows(c, view_class_names[k], src, class_val, &k, fn, arg);
		}
		return;
	}
	/* syscalls in the order of the first run, then those only later runs
	 * have; one no run issued (only skipped) has no row */
	for (unsigned i = 0; i < c->nruns; i++)
		for (unsigned s = 0; s < c->runs[i].nsys; s++) {
			const char *name = c->runs[i].sys[s].name;
			bool seen = false, any = false;

			for (unsigned j = 0; j < i && !seen; j++)
				seen = view_sys(&c->runs[j], name) != NULL;
			for (unsigned j = 0; j < c->nruns; j++) {
				src[j] = sys_src(&c->runs[j], name);
				any |= src[j].count > 0;
			}
			if (!seen && any)
				src_rows(c, name, src, sys_val, name, fn, arg);
		}
}

const char *cmp_fmt_value(const struct cmp_row *r, unsigned g, char *buf, size_t len)
{
	const struct cmp_stat *s = &r->st[g];
	char v[32];

	if (s->missing) {
		snprintf(buf, len, "-");
		return buf;
	}
	switch (r->m) {
	case CMP_OPS_RATE:
		snprintf(v, sizeof(v), "%.1f", s->mid);
		break;
	case CMP_THROUGHPUT:
		snprintf(v, sizeof(v), "%.2f", s->mid / 1048576.0);
		break;
	default:
		riot_fmt_ns((uint64_t)llround(s->mid), v, sizeof(v));
		break;
	}
	if (s->n > 1 && s->mid > 0)
		snprintf(buf, len, "%s ±%.0f%%", v, 100.0 * (s->hi - s->lo) / s->mid);
	else if (s->shards > 1 && s->smean > 0)
		snprintf(buf, len, "%s ~%.0f%%", v, 100.0 * (s->shi - s->slo) / s->smean);
	else
		snprintf(buf, len, "%s", v);
	return buf;
}

const char *cmp_fmt_ratio(const struct cmp_row *r, unsigned g, char *buf, size_t len)
{
	const struct cmp_stat *s = &r->st[g], *b = &r->st[0];
	double q;

	if (s->missing || b->missing || b->mid == 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	q = s->mid / b->mid;
	snprintf(buf, len, q < 100 ? "%.3f" : "%.0f", q);
	return buf;
}

const char *cmp_verdict(const struct cmp_ctx *c, const struct cmp_row *r)
{
	switch (r->winner) {
	case CMP_WITHIN_NOISE:
		return "within noise";
	case CMP_NOT_COMPARABLE:
		return "-";
	case CMP_NO_WINNER:
		return "";
	case CMP_UNRELIABLE:
		return "unreliable";
	default:
		return cmp_group_label(c, (unsigned)r->winner);
	}
}

/* ---- text ---- */

#define NAME_W 17	/* the longest syscall name */
#define METRIC_W 10
#define VALUE_MIN_W 10
#define VALUE_MAX_W 24	/* a longer label is shown by its key, #N */
#define RATIO_W 7
#define LINE_W 120

struct text_layout {
	FILE *out;
	unsigned vw, ww;	/* value and winner column widths */
	unsigned from, to;	/* the groups other than the baseline shown */
};

/* A group's column head: its label when it fits, else "#N". */
static const char *group_head(const struct cmp_ctx *c, unsigned g, unsigned w, char *buf,
			      size_t len)
{
	const char *l = cmp_group_label(c, g);

	if (strlen(l) <= w)
		return l;
	snprintf(buf, len, "#%u", g + 1);
	return buf;
}

static void text_row(const struct cmp_ctx *c, const struct cmp_row *r, void *arg)
{
	const struct text_layout *t = arg;
	char v[64], q[32], k[16];
	const char *w = cmp_verdict(c, r);

	fprintf(t->out, "  %-*s %-*s", NAME_W, r->first ? r->name : "", METRIC_W,
		cmp_metric_names[r->m]);
	fprintf(t->out, " %*s", (int)t->vw, cmp_fmt_value(r, 0, v, sizeof(v)));
	for (unsigned g = t->from; g < t->to; g++) {
		fprintf(t->out, " %*s", (int)t->vw, cmp_fmt_value(r, g, v, sizeof(v)));
		fprintf(t->out, " %*s", RATIO_W, cmp_fmt_ratio(r, g, q, sizeof(q)));
	}
	if (r->winner >= 0)
		w = group_head(c, (unsigned)r->winner, t->ww, k, sizeof(k));
	fprintf(t->out, "%s%s\n", *w ? "  " : "", w);
}

static void text_head(const struct cmp_ctx *c, const struct text_layout *t, const char *first)
{
	char k[16];

	fprintf(t->out, "  %-*s %-*s", NAME_W, first, METRIC_W, "metric");
	fprintf(t->out, " %*s", (int)t->vw, group_head(c, 0, t->vw, k, sizeof(k)));
	for (unsigned g = t->from; g < t->to; g++)
		fprintf(t->out, " %*s %*s", (int)t->vw, group_head(c, g, t->vw, k, sizeof(k)),
			RATIO_W, "ratio");
	fprintf(t->out, "  winner\n");
}

/* A table in blocks of as many groups as fit LINE_W columns, each block
 * with the baseline first. */
static void text_table(const struct cmp_ctx *c, FILE *out, enum cmp_table which,
		       const char *title, const char *first)
{
	struct text_layout t = { .out = out, .vw = VALUE_MIN_W };
	unsigned per;

	for (unsigned g = 0; g < c->ng; g++) {
		size_t l = strlen(cmp_group_label(c, g));

		if (l > t.vw && l <= VALUE_MAX_W)
			t.vw = (unsigned)l;
	}
	if ((c->repeats || c->fleets) && t.vw < 15)
		t.vw = 15;	/* "16534.5 ±12%" */
	t.ww = t.vw > 12 ? t.vw : 12;	/* "within noise" */
	/* 2 + name + metric + baseline + per * (value + ratio) + winner */
	per = (LINE_W - (2 + NAME_W + 1 + METRIC_W + 1 + t.vw + 2 + t.ww)) / (t.vw + RATIO_W + 2);
	if (per < 1)
		per = 1;
	fprintf(out, "\n%s\n", title);
	if (c->ng == 1) {
		t.from = t.to = 1;
		text_head(c, &t, first);
		cmp_rows(c, which, text_row, &t);
	}
	for (t.from = 1; t.from < c->ng; t.from = t.to) {
		t.to = t.from + per < c->ng ? t.from + per : c->ng;
		if (t.from > 1)
			fprintf(out, "\n");
		text_head(c, &t, first);
		cmp_rows(c, which, text_row, &t);
	}
}

/* The first row of a syscall left out of the classes, over every run:
 * (run, row), or run == nruns when done. */
static bool next_left_out(const struct cmp_ctx *c, unsigned *r, unsigned *i)
{
	for (; *r < c->nruns; (*r)++, *i = 0)
		for (; *i < c->runs[*r].nsys; (*i)++) {
			const struct sys_view *s = &c->runs[*r].sys[*i];
			bool seen = false;

			if (!s->left_out)
				continue;
			for (unsigned q = 0; q < *r && !seen; q++)
				seen = view_sys(&c->runs[q], s->name) != NULL;
			if (!seen)
				return true;
		}
	return false;
}

/* The syscalls the class figures leave out (view_common_classes()),
 * with each run's count of them. */
static void print_left_out(FILE *out, const struct cmp_ctx *c)
{
	unsigned r = 0, i = 0;

	if (!c->runs[0].cls_common)
		return;
	fprintf(out, "  (classes sum the calls every run made and timed; left out:");
	for (bool first = true; next_left_out(c, &r, &i); i++, first = false) {
		const char *name = c->runs[r].sys[i].name;

		fprintf(out, "%s %s (", first ? "" : ";", name);
		for (unsigned q = 0; q < c->nruns; q++) {
			const struct sys_view *s = view_sys(&c->runs[q], name);

			fprintf(out, "%s%" PRIu64, q ? " " : "", s ? s->count : 0);
		}
		fprintf(out, ")");
	}
	fprintf(out, ", counts per run)\n");
}

static void json_left_out(struct json *j, const struct cmp_ctx *c)
{
	unsigned r = 0, i = 0;

	if (!c->runs[0].cls_common)
		return;
	json_arr_open(j, "classes_left_out");
	for (; next_left_out(c, &r, &i); i++) {
		const char *name = c->runs[r].sys[i].name;

		json_obj_open(j, NULL);
		json_str(j, "syscall", name);
		json_arr_open(j, "counts");
		for (unsigned q = 0; q < c->nruns; q++) {
			const struct sys_view *s = view_sys(&c->runs[q], name);

			json_u64(j, NULL, s ? s->count : 0);
		}
		json_arr_close(j);
		json_obj_close(j);
	}
	json_arr_close(j);
}

/* ---- fidelity: a replay against the capture of its own log ---- */

/* A syscall's row and a class's, described once for text and JSON. */
struct fid_sys {
	uint64_t captured, replayed, cap_bytes, rep_bytes, diverged, skipped;
	uint64_t delay_count, delay_p50, delay_p99, delay_max;
};

struct fid_class {
	uint64_t captured, replayed, cap_time, rep_time, cap_p50, rep_p50;
	double time_ratio, p50_ratio;	/* NaN: the capture's is 0 */
};

#define FSYS(m) offsetof(struct fid_sys, m)
#define FCLS(m) offsetof(struct fid_class, m), 0

static const struct field fid_sys_fields[] = {
	{ "captured", "captured", 9, FIELD_U64, FSYS(captured), 0 },
	{ "replayed", "replayed", 9, FIELD_U64, FSYS(replayed), 0 },
	{ "captured_bytes", "cap bytes", 10, FIELD_BYTES, FSYS(cap_bytes), 0 },
	{ "replayed_bytes", "rep bytes", 10, FIELD_BYTES, FSYS(rep_bytes), 0 },
	{ "diverged", "diverged", 9, FIELD_U64, FSYS(diverged), 0 },
	{ "skipped", "skipped", 9, FIELD_U64, FSYS(skipped), 0 },
	{ "delay_p50_ns", "delay p50", 9, FIELD_NS_IF, FSYS(delay_p50), FSYS(delay_count) },
	{ "delay_p99_ns", "delay p99", 9, FIELD_NS_IF, FSYS(delay_p99), FSYS(delay_count) },
	{ "delay_max_ns", "delay max", 9, FIELD_NS_IF, FSYS(delay_max), FSYS(delay_count) },
};

static const struct field fid_class_fields[] = {
	{ "captured", "captured", 9, FIELD_U64, FCLS(captured) },
	{ "replayed", "replayed", 9, FIELD_U64, FCLS(replayed) },
	{ "captured_time_ns", "cap time", 10, FIELD_NS, FCLS(cap_time) },
	{ "replayed_time_ns", "rep time", 10, FIELD_NS, FCLS(rep_time) },
	{ "time_ratio", "ratio", 9, FIELD_RATIO, FCLS(time_ratio) },
	{ "captured_p50_ns", "cap p50", 9, FIELD_NS, FCLS(cap_p50) },
	{ "replayed_p50_ns", "rep p50", 9, FIELD_NS, FCLS(rep_p50) },
	{ "p50_ratio", "ratio", 9, FIELD_RATIO, FCLS(p50_ratio) },
};

static struct fid_sys fid_sys_row(const struct sys_view *c, const struct run_view *rep)
{
	const struct sys_view *r = view_sys(rep, c->name);
	static const struct sys_view none;

	r = r ? r : &none;
	return (struct fid_sys){
		.captured = c->count, .replayed = r->count, .cap_bytes = c->bytes,
		.rep_bytes = r->bytes, .diverged = SYS_DIVERGED(r), .skipped = r->div[2],
		.delay_count = r->delay_count, .delay_p50 = r->delay_p50,
		.delay_p99 = r->delay_p99, .delay_max = r->delay_max,
	};
}

/* v / base, or NaN when base is 0. */
static double ratio(uint64_t v, uint64_t base)
{
	return base ? (double)v / (double)base : NAN;
}

static struct fid_class fid_class_row(const struct class_view *c, const struct class_view *r)
{
	return (struct fid_class){
		.captured = c->count, .replayed = r->count, .cap_time = c->lat_sum,
		.rep_time = r->lat_sum, .time_ratio = ratio(r->lat_sum, c->lat_sum),
		.cap_p50 = c->p50, .rep_p50 = r->p50, .p50_ratio = ratio(r->p50, c->p50),
	};
}

static void print_fidelity(FILE *out, const struct run_view *cap, const struct run_view *rep)
{
	char b[4][24];

	fprintf(out, "\nfidelity of %s against %s (its log, sha256 %.16s...)\n", rep->label,
		cap->label, cap->trace_sha256);
	fprintf(out, "  %-*s", NAME_W, "syscall");
	fields_head(out, fid_sys_fields, FIELDS_N(fid_sys_fields));
	fprintf(out, "\n");
	for (unsigned i = 0; i < cap->nsys; i++) {
		struct fid_sys row = fid_sys_row(&cap->sys[i], rep);

		fprintf(out, "  %-*s", NAME_W, cap->sys[i].name);
		fields_text(out, fid_sys_fields, FIELDS_N(fid_sys_fields), &row);
		fprintf(out, "\n");
	}
	fprintf(out, "  total: %" PRIu64 " of %" PRIu64 " operations replayed; read %s of %s, "
		"written %s of %s\n", rep->ops, cap->ops,
		riot_fmt_bytes(rep->bytes_read, b[0], 24), riot_fmt_bytes(cap->bytes_read, b[1], 24),
		riot_fmt_bytes(rep->bytes_written, b[2], 24),
		riot_fmt_bytes(cap->bytes_written, b[3], 24));
	fprintf(out, "  %-*s", NAME_W, "class");
	fields_head(out, fid_class_fields, FIELDS_N(fid_class_fields));
	fprintf(out, "\n");
	for (unsigned k = 0; k < VIEW_CLASSES; k++) {
		struct fid_class row = fid_class_row(&cap->cls[k], &rep->cls[k]);

		if (!row.captured && !row.replayed)
			continue;
		fprintf(out, "  %-*s", NAME_W, view_class_names[k]);
		fields_text(out, fid_class_fields, FIELDS_N(fid_class_fields), &row);
		fprintf(out, "\n");
	}
	fprintf(out, "  (time: total time in syscalls of the class; ratios replay over capture)\n");
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

/* A fleet's shards: how many, their labels (the first few), how late the
 * latest started. */
static void print_shards(FILE *out, const struct run_view *v)
{
	uint64_t late = 0;
	char d[24], l[96];

	fprintf(out, "     fleet of %u runs:", v->nshards);
	for (unsigned s = 0; s < v->nshards; s++) {
		if (s < 4)
			fprintf(out, "%s %s", s ? "," : "", text_safe(v->shards[s].label, l, sizeof(l)));
		if (v->shards[s].start_late_ns > late)
			late = v->shards[s].start_late_ns;
	}
	fprintf(out, "%s", v->nshards > 4 ? ", ..." : "");
	if (late)
		fprintf(out, "; the latest started %s after --start-at", riot_fmt_ns(late, d, sizeof(d)));
	fprintf(out, "\n");
}

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
	struct cmp_ctx *c = malloc(sizeof(*c));
	bool caps = false;

	if (!c) {
		fprintf(out, "out of memory\n");
		return;
	}
	cmp_ctx_init(c, runs, n);
	fprintf(out, "runs (#1 is the baseline: a ratio is a run's value over #1's)\n");
	for (unsigned i = 0; i < c->nruns; i++) {
		const struct run_view *v = &runs[i];
		char d[24], warn[4 * 320 + 8];

		caps |= !view_is_replay(v);
		fprintf(out, "  #%u %s: %s of log %.12s, %s on %s, %s, host %s\n", c->group_of[i] + 1,
			v->label, v->kind, v->trace_sha256 ? v->trace_sha256 : "an unknown log",
			v->fs_type ? v->fs_type : "?", v->fs_device ? v->fs_device : "?",
			riot_fmt_ns(v->duration_ns, d, sizeof(d)), v->host ? v->host : "?");
		fprintf(out, "     run %lld of %s\n", (long long)v->id, v->db_path);
		if (v->replay_timing && strcmp(v->replay_timing, "think") == 0)
			fprintf(out, "     timing think: predicts the program's time on its storage\n");
		if (v->unreliable == 1)
			fprintf(out, "     unreliable: %s\n", text_safe(v->warning ? v->warning :
				"not the captured I/O", warn, sizeof(warn)));
		if (v->nshards)
			print_shards(out, v);
	}
	if (c->unreliable)
		fprintf(out, "warning: a run did not replay the captured I/O: its verdicts are "
			"marked unreliable, no winner is named\n");
	if (c->repeats)
		fprintf(out, "  (a label with several runs: their median, and their spread as "
			"± the range)\n");
	if (c->fleets)
		fprintf(out, "  (a fleet: its figure over every operation of its shards, and ~ the "
			"range of its shards' own figures, relative to their mean)\n");
	text_table(c, out, CMP_TABLE_RUN, c->same_log ? "per run (the same log)" :
		   "per run (different logs: no winner)", "");
	text_table(c, out, CMP_TABLE_CLASS, "per class (rates over the time spent in the "
		   "class's calls)", "class");
	print_left_out(out, c);
	text_table(c, out, CMP_TABLE_SYSCALL, "per syscall (rates over the time spent in the "
		   "call)", "syscall");
	device_compare(out, runs, n);
	for (unsigned j = 0; j < c->nruns; j++) {
		int cap = cmp_capture_of(c, j);

		if (cap >= 0)
			print_fidelity(out, &runs[cap], &runs[j]);
		else if (view_is_replay(&runs[j]) && caps)
			fprintf(out, "\nfidelity of %s: no capture of its log among the runs\n",
				runs[j].label);
	}
	free(c);
}

/* ---- JSON ---- */

static const char *verdict_json(const struct cmp_ctx *c, const struct cmp_row *r)
{
	switch (r->winner) {
	case CMP_WITHIN_NOISE:
		return "within noise";
	case CMP_NOT_COMPARABLE:
		return "not comparable";
	case CMP_NO_WINNER:
		return "none";
	case CMP_UNRELIABLE:
		return "unreliable";
	default:
		return "winner";
	}
}

struct json_rows {
	struct json *j;
	bool open;
};

static void json_row(const struct cmp_ctx *c, const struct cmp_row *r, void *arg)
{
	struct json_rows *p = arg;
	struct json *j = p->j;
	const struct cmp_stat *b = &r->st[0];

	if (r->first) {
		if (p->open)
			json_obj_close(j);
		json_obj_open(j, r->name);
		p->open = true;
	}
	json_obj_open(j, cmp_metric_names[r->m]);
	json_arr_open(j, "values");
	for (unsigned g = 0; g < c->ng; g++) {
		if (r->st[g].missing)
			json_null(j, NULL);
		else if (r->m == CMP_OPS_RATE)
			json_double(j, NULL, r->st[g].mid);
		else if (r->m == CMP_THROUGHPUT)
			json_double(j, NULL, r->st[g].mid / 1048576.0);
		else	/* ns: exact integers */
			json_u64(j, NULL, (uint64_t)llround(r->st[g].mid));
	}
	json_arr_close(j);
	json_arr_open(j, "ratios");
	for (unsigned g = 1; g < c->ng; g++) {
		if (r->st[g].missing || b->missing || b->mid == 0)
			json_null(j, NULL);
		else
			json_double(j, NULL, r->st[g].mid / b->mid);
	}
	json_arr_close(j);
	if (c->fleets) {
		json_arr_open(j, "shard_range");
		for (unsigned g = 0; g < c->ng; g++) {
			double k = r->m == CMP_THROUGHPUT ? 1.0 / 1048576.0 : 1.0;

			if (r->st[g].shards < 1) {
				json_null(j, NULL);
				continue;
			}
			json_arr_open(j, NULL);
			json_double(j, NULL, r->st[g].slo * k);
			json_double(j, NULL, r->st[g].shi * k);
			json_arr_close(j);
		}
		json_arr_close(j);
	}
	if (c->repeats) {
		json_arr_open(j, "spread");
		for (unsigned g = 0; g < c->ng; g++)
			json_double(j, NULL, r->st[g].mid ? (r->st[g].hi - r->st[g].lo) / r->st[g].mid : 0);
		json_arr_close(j);
	}
	json_str(j, "winner", r->winner >= 0 ? cmp_group_label(c, (unsigned)r->winner) : NULL);
	json_str(j, "verdict", verdict_json(c, r));
	json_obj_close(j);
}

static void json_table(const struct cmp_ctx *c, struct json *j, const char *key,
		       enum cmp_table t)
{
	struct json_rows p = { j, false };

	json_obj_open(j, key);
	cmp_rows(c, t, json_row, &p);
	if (p.open)
		json_obj_close(j);
	json_obj_close(j);
}

static void json_fidelity(struct json *j, const struct run_view *cap, const struct run_view *rep)
{
	json_obj_open(j, NULL);
	json_str(j, "capture", cap->label);
	json_str(j, "replay", rep->label);
	json_str(j, "trace_sha256", cap->trace_sha256);
	json_obj_open(j, "syscalls");
	for (unsigned i = 0; i < cap->nsys; i++) {
		struct fid_sys row = fid_sys_row(&cap->sys[i], rep);

		json_obj_open(j, cap->sys[i].name);
		fields_json(j, fid_sys_fields, FIELDS_N(fid_sys_fields), &row);
		json_obj_close(j);
	}
	json_obj_close(j);
	json_obj_open(j, "classes");
	for (unsigned k = 0; k < VIEW_CLASSES; k++) {
		struct fid_class row = fid_class_row(&cap->cls[k], &rep->cls[k]);

		json_obj_open(j, view_class_names[k]);
		fields_json(j, fid_class_fields, FIELDS_N(fid_class_fields), &row);
		json_obj_close(j);
	}
	json_obj_close(j);
	json_obj_close(j);
}

void compare_json(FILE *out, struct run_view *runs, unsigned n)
{
	struct cmp_ctx *c = malloc(sizeof(*c));
	struct json j;

	if (!c)
		return;
	cmp_ctx_init(c, runs, n);
	json_init(&j, out, true);
	json_obj_open(&j, NULL);
	json_arr_open(&j, "runs");
	for (unsigned i = 0; i < c->nruns; i++) {
		json_obj_open(&j, NULL);
		json_str(&j, "database", runs[i].db_path);
		json_i64(&j, "id", runs[i].id);
		json_str(&j, "label", runs[i].label);
		json_str(&j, "kind", runs[i].kind);
		json_str(&j, "trace_sha256", runs[i].trace_sha256);
		json_u64(&j, "duration_ns", runs[i].duration_ns);
		json_str(&j, "timing", runs[i].replay_timing);
		if (runs[i].predicted_ns > 0)
			json_i64(&j, "predicted_ns", runs[i].predicted_ns);
		else
			json_null(&j, "predicted_ns");
		json_bool(&j, "unreliable", runs[i].unreliable == 1);
		json_str(&j, "warning", runs[i].warning);
		json_u64(&j, "group", c->group_of[i]);
		if (runs[i].nshards) {
			json_arr_open(&j, "shards");
			for (unsigned s = 0; s < runs[i].nshards; s++)
				json_str(&j, NULL, runs[i].shards[s].label);
			json_arr_close(&j);
		}
		device_json(&j, &runs[i]);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_arr_open(&j, "groups");
	for (unsigned g = 0; g < c->ng; g++) {
		json_obj_open(&j, NULL);
		json_str(&j, "label", cmp_group_label(c, g));
		json_u64(&j, "runs", c->size[g]);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_bool(&j, "same_log", c->same_log);
	json_bool(&j, "unreliable", c->unreliable);
	json_table(c, &j, "run", CMP_TABLE_RUN);
	json_table(c, &j, "classes", CMP_TABLE_CLASS);
	json_left_out(&j, c);
	json_table(c, &j, "syscalls", CMP_TABLE_SYSCALL);
	json_arr_open(&j, "fidelity");
	for (unsigned k = 0; k < c->nruns; k++) {
		int cap = cmp_capture_of(c, k);

		if (cap >= 0)
			json_fidelity(&j, &runs[cap], &runs[k]);
	}
	json_arr_close(&j);
	json_obj_close(&j);
	json_end_line(&j);
	free(c);
}
