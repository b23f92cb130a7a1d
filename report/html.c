/* report/html.c: one self-contained HTML page (inline SVG, CSS and
 * script, no external assets). The runs overlaid: per class, the latency
 * distributions (CDFs) of every run on one chart, every chart on the same
 * axis; throughput over time of every run on one chart, in buckets that
 * follow the runs' span; with several runs, the comparison as tables.
 * Then every run's flamegraph (comm, syscall, path), side by side; then
 * per run its syscalls: a table, its think time and their latency CDFs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"
#include "lib/cli.h"
#include "lib/text.h"
#include "report/view.h"

#define CHART_W 720
#define CHART_H 280
#define PAD_L 60
#define PAD_R 170
#define PAD_T 20
#define PAD_B 40
#define CDF_SERIES 8	/* the busiest syscalls drawn per run */

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};

/* Text from a log or a database, as the terminal shows it (lib/text.h:
 * control bytes and every byte that is no ASCII character as \xNN, so an
 * escape sequence reaches no one who cats the file), then HTML-escaped. */
static double plot_x(double frac)
{
	return PAD_L + frac * (CHART_W - PAD_L - PAD_R);
}

static double plot_y(double frac)
{
	return CHART_H - PAD_B - frac * (CHART_H - PAD_T - PAD_B);
}

static void chart_open(FILE *f, const char *cls, const char *title)
{
	fprintf(f, "<figure><figcaption>");
	text_put_html(f, title);
	fprintf(f, "</figcaption><svg class=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", cls, CHART_W, CHART_H,
		CHART_W, CHART_H);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		"stroke=\"#999\"/>\n", PAD_L, PAD_T, CHART_W - PAD_L - PAD_R,
		CHART_H - PAD_T - PAD_B);
}

static void legend(FILE *f, unsigned i, const char *color, const char *text)
{
	int y = PAD_T + 14 + 18 * (int)i;

	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
		"stroke-width=\"3\"/><text x=\"%d\" y=\"%d\">", CHART_W - PAD_R + 10, y - 4,
		CHART_W - PAD_R + 30, y - 4, color, CHART_W - PAD_R + 35, y);
	text_put_html(f, text);
	fprintf(f, "</text>\n");
}

/* ---- latency CDF ---- */

static void cdf_axes(FILE *f, int lo, int hi)
{
	static const char *const units[] = { "1ns", "10ns", "100ns", "1us", "10us", "100us",
					     "1ms", "10ms", "100ms", "1s", "10s", "100s" };

	for (int d = lo; d <= hi; d++) {
		double x = plot_x((double)(d - lo) / (hi - lo));

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>"
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x, PAD_T, x,
			CHART_H - PAD_B, x, CHART_H - PAD_B + 16, d >= 0 && d < 12 ? units[d] : "?");
	}
	for (int q = 0; q <= 4; q++)
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d%%</text>\n", PAD_L - 6,
			plot_y(q / 4.0) + 4, q * 25);
}

static void cdf_series(FILE *f, const struct hist *h, int lo, int hi, const char *color,
		       const char *cls)
{
	uint64_t seen = 0;

	fprintf(f, "<polyline class=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
		"points=\"", cls, color);
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		double lx;

		if (!h->b[b])
			continue;
		seen += h->b[b];
		lx = log10((double)hist_bucket_high(b) + 1.0);
		if (lx < lo)
			lx = lo;
		fprintf(f, "%.1f,%.1f ", plot_x((lx - lo) / (hi - lo)),
			plot_y((double)seen / (double)h->count));
	}
	fprintf(f, "\"/>\n");
}

static int chart_latency(FILE *f, const struct run_view *v)
{
	unsigned n = v->nsys < CDF_SERIES ? v->nsys : CDF_SERIES;
	struct hist *h = malloc(sizeof(*h) * (n ? n : 1));
	uint64_t lo_ns = UINT64_MAX, hi_ns = 1;
	char title[300];
	int lo, hi;

	if (!h)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {	/* sys is ordered by count */
		view_hist(v, v->sys[i].name, "latency", &h[i]);
		if (h[i].count && h[i].min < lo_ns)
			lo_ns = h[i].min;
		if (h[i].max > hi_ns)
			hi_ns = h[i].max;
	}
	lo = lo_ns == UINT64_MAX || lo_ns < 1 ? 0 : (int)floor(log10((double)lo_ns));
	hi = (int)ceil(log10((double)hi_ns + 1.0));
	if (hi <= lo)
		hi = lo + 1;
	snprintf(title, sizeof(title), "%s: latency distribution per syscall (CDF)", v->label);
	chart_open(f, "chart syscalls", title);
	cdf_axes(f, lo, hi);
	for (unsigned i = 0; i < n; i++) {
		if (!h[i].count)
			continue;
		cdf_series(f, &h[i], lo, hi, palette[i], "series");
		legend(f, i, palette[i], v->sys[i].name);
	}
	fprintf(f, "</svg></figure>\n");
	free(h);
	return 0;
}

/* ---- the runs overlaid ---- */

/* Run i's colour; past the palette, dashed. */
static void run_stroke(FILE *f, unsigned i)
{
	fprintf(f, "stroke=\"%s\"%s", palette[i % 8], i >= 8 ? " stroke-dasharray=\"6 3\"" : "");
}

static void run_legend(FILE *f, const struct cmp_ctx *c, unsigned i)
{
	char text[64];
	int y = PAD_T + 14 + 18 * (int)i;

	if (i >= 12)	/* the legend's room; the tables name every run */
		return;
	snprintf(text, sizeof(text), "#%u %.40s%s", c->group_of[i] + 1, c->runs[i].label,
		 strlen(c->runs[i].label) > 40 ? "..." : "");
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke-width=\"3\" ",
		CHART_W - PAD_R + 10, y - 4, CHART_W - PAD_R + 30, y - 4);
	run_stroke(f, i);
	fprintf(f, "/><text x=\"%d\" y=\"%d\">", CHART_W - PAD_R + 35, y);
	text_put_html(f, text);
	fprintf(f, "</text>\n");
}

/* Per class, every run's latency CDF on one chart; one x axis (decades of
 * ns) for every chart. */
static int overlay_latency(FILE *f, const struct cmp_ctx *c)
{
	struct hist *h = malloc(sizeof(*h) * VIEW_CLASSES * c->nruns);
	uint64_t lo_ns = UINT64_MAX, hi_ns = 1;
	int lo, hi, rc = 0;

	if (!h)
		return -ENOMEM;
	for (unsigned k = 0; k < VIEW_CLASSES && !rc; k++)
		for (unsigned i = 0; i < c->nruns && !rc; i++) {
			struct hist *x = &h[k * c->nruns + i];

			rc = view_class_hist(&c->runs[i], k, x);
			if (!rc && x->count && x->min < lo_ns)
				lo_ns = x->min;
			if (!rc && x->count && x->max > hi_ns)
				hi_ns = x->max;
		}
	lo = lo_ns == UINT64_MAX || lo_ns < 1 ? 0 : (int)floor(log10((double)lo_ns));
	hi = (int)ceil(log10((double)hi_ns + 1.0));
	if (hi <= lo)
		hi = lo + 1;
	fprintf(f, "<h2>latency per class, all runs (CDF)</h2>\n");
	for (unsigned k = 0; k < VIEW_CLASSES && !rc; k++) {
		char title[128], cls[32];
		bool any = false;

		for (unsigned i = 0; i < c->nruns; i++)
			any |= h[k * c->nruns + i].count > 0;
		if (!any)
			continue;
		snprintf(title, sizeof(title), "%s: latency of every run (CDF)", view_class_names[k]);
		chart_open(f, "chart latency", title);
		cdf_axes(f, lo, hi);
		for (unsigned i = 0; i < c->nruns; i++) {
			const struct hist *x = &h[k * c->nruns + i];

			run_legend(f, c, i);
			if (!x->count)
				continue;
			snprintf(cls, sizeof(cls), "series run-%u", i);
			cdf_series(f, x, lo, hi, palette[i % 8], cls);
		}
		fprintf(f, "</svg></figure>\n");
	}
	free(h);
	return rc;
}

struct rates {
	double *v[2];		/* ops/s, bytes/s */
	unsigned n;
	uint64_t width;
};

/* One run's rates as steps over its buckets, on an x axis of span ns. */
static void rate_series(FILE *f, const struct rates *r, unsigned what, double max,
			uint64_t span, unsigned i)
{
	double div = what ? 1048576.0 : 1.0;

	fprintf(f, "<polyline class=\"series run-%u\" fill=\"none\" stroke-width=\"2\" ", i);
	run_stroke(f, i);
	fprintf(f, " points=\"");
	for (unsigned b = 0; b < r->n; b++) {
		double y = plot_y(max > 0 ? r->v[what][b] / div / max : 0);
		double x0 = (double)b * (double)r->width / (double)span;
		double x1 = (double)(b + 1) * (double)r->width / (double)span;

		fprintf(f, "%.1f,%.1f %.1f,%.1f ", plot_x(x0), y, plot_x(x1 > 1 ? 1 : x1), y);
	}
	fprintf(f, "\"/>\n");
}

/* 950, 12.5k, 3.2M: an axis label. */
static const char *fmt_count(double v, char *buf, size_t len)
{
	if (v >= 1e6)
		snprintf(buf, len, "%.3gM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, len, "%.3gk", v / 1e3);
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}

static void rate_chart(FILE *f, const struct cmp_ctx *c, const struct rates *r, unsigned what,
		       uint64_t span)
{
	double max = 0, div = what ? 1048576.0 : 1.0;
	char t[32];

	for (unsigned i = 0; i < c->nruns; i++)
		for (unsigned b = 0; b < r[i].n; b++)
			max = fmax(max, r[i].v[what][b] / div);
	if (max <= 0)
		return;
	chart_open(f, what ? "chart throughput bytes" : "chart throughput ops",
		   what ? "MiB/s over time, all runs" : "ops/s over time, all runs");
	for (unsigned q = 0; q <= 4; q++) {
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			plot_x(q / 4.0), CHART_H - PAD_B + 16,
			riot_fmt_ns((uint64_t)((double)span * q / 4.0), t, sizeof(t)));
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", PAD_L - 6,
			plot_y(q / 4.0) + 4, fmt_count(max * q / 4.0, t, sizeof(t)));
	}
	for (unsigned i = 0; i < c->nruns; i++) {
		run_legend(f, c, i);
		if (r[i].n)
			rate_series(f, &r[i], what, max, span, i);
	}
	fprintf(f, "</svg></figure>\n");
}

/* ops/s and MiB/s of every run over time, on one time axis. */
static int overlay_throughput(FILE *f, const struct cmp_ctx *c)
{
	struct rates *r = calloc(c->nruns, sizeof(*r));
	uint64_t span = 1, finest = UINT64_MAX;
	char w[32];
	int rc = 0;

	if (!r)
		return -ENOMEM;
	for (unsigned i = 0; i < c->nruns && !rc; i++) {
		rc = view_rates(&c->runs[i], &r[i].v[0], &r[i].v[1], &r[i].n, &r[i].width);
		if (!rc && (uint64_t)r[i].n * r[i].width > span)
			span = (uint64_t)r[i].n * r[i].width;
		if (!rc && r[i].width < finest)
			finest = r[i].width;
	}
	if (!rc) {
		fprintf(f, "<h2>throughput over time, all runs</h2>\n<p>Per bucket of %s%s "
			"(the width follows each run's span: at most %d buckets), of the calls "
			"completing in it.</p>\n", riot_fmt_ns(finest, w, sizeof(w)),
			finest == span ? "" : " or more", RUN_RATE_BUCKETS);
		rate_chart(f, c, r, 0, span);
		rate_chart(f, c, r, 1, span);
	}
	for (unsigned i = 0; i < c->nruns; i++) {
		free(r[i].v[0]);
		free(r[i].v[1]);
	}
	free(r);
	return rc;
}

/* ---- the comparison, as tables ---- */

static void table_head(FILE *f, const struct cmp_ctx *c, const char *first)
{
	fprintf(f, "<table class=\"compare\"><tr><th>%s</th><th>metric</th>", first);
	for (unsigned g = 0; g < c->ng; g++) {
		fprintf(f, "<th>#%u ", g + 1);
		text_put_html(f, cmp_group_label(c, g));
		fprintf(f, "</th>%s", g ? "<th>ratio</th>" : "");
	}
	fprintf(f, "<th>winner</th></tr>\n");
}

static void table_row(const struct cmp_ctx *c, const struct cmp_row *r, void *arg)
{
	FILE *f = arg;
	char v[64];

	fprintf(f, "<tr%s><td>", r->first ? " class=\"first\"" : "");
	text_put_html(f, r->first ? r->name : "");
	fprintf(f, "</td><td>%s</td>", cmp_metric_names[r->m]);
	for (unsigned g = 0; g < c->ng; g++) {
		fprintf(f, "<td>");
		text_put_html(f, cmp_fmt_value(r, g, v, sizeof(v)));
		fprintf(f, "</td>");
		if (g)
			fprintf(f, "<td>%s</td>", cmp_fmt_ratio(r, g, v, sizeof(v)));
	}
	fprintf(f, "<td class=\"winner\">");
	text_put_html(f, cmp_verdict(c, r));
	fprintf(f, "</td></tr>\n");
}

static void fidelity_table(FILE *f, const struct run_view *cap, const struct run_view *rep)
{
	char b[4][24];

	fprintf(f, "<h3>fidelity of ");
	text_put_html(f, rep->label);
	fprintf(f, " against ");
	text_put_html(f, cap->label);
	fprintf(f, " (the capture of its log)</h3>\n<table class=\"fidelity\"><tr><th>class</th>"
		"<th>captured</th><th>replayed</th><th>cap time</th><th>rep time</th><th>ratio</th>"
		"<th>cap p50</th><th>rep p50</th><th>ratio</th></tr>\n");
	for (unsigned k = 0; k < VIEW_CLASSES; k++) {
		const struct class_view *c = &cap->cls[k], *r = &rep->cls[k];

		if (!c->count && !r->count)
			continue;
		fprintf(f, "<tr><td>%s</td><td>%llu</td><td>%llu</td><td>%s</td><td>%s</td>",
			view_class_names[k], (unsigned long long)c->count,
			(unsigned long long)r->count, riot_fmt_ns(c->lat_sum, b[0], 24),
			riot_fmt_ns(r->lat_sum, b[1], 24));
		if (c->lat_sum)
			fprintf(f, "<td>%.3f</td>", (double)r->lat_sum / (double)c->lat_sum);
		else
			fprintf(f, "<td>-</td>");
		fprintf(f, "<td>%s</td><td>%s</td>", riot_fmt_ns(c->p50, b[2], 24),
			riot_fmt_ns(r->p50, b[3], 24));
		if (c->p50)
			fprintf(f, "<td>%.3f</td></tr>\n", (double)r->p50 / (double)c->p50);
		else
			fprintf(f, "<td>-</td></tr>\n");
	}
	fprintf(f, "</table>\n");
}

static void comparison(FILE *f, const struct cmp_ctx *c)
{
	fprintf(f, "<h2>comparison</h2>\n<p>#1 is the baseline: a ratio is a run's value over "
		"#1's. Rates are over the time spent in the calls. A winner only beyond the "
		"noise (%s); \"-\" where a run lacks the call.</p>\n",
		c->repeats ? "the largest spread of the repeated labels" :
			     "5 %, or the histograms' 1.6 % for percentiles");
	fprintf(f, "<h3>per run%s</h3>\n", c->same_log ? " (the same log)" :
		" (different logs: no winner)");
	table_head(f, c, "");
	cmp_rows(c, CMP_TABLE_RUN, table_row, f);
	fprintf(f, "</table>\n<h3>per class</h3>\n");
	table_head(f, c, "class");
	cmp_rows(c, CMP_TABLE_CLASS, table_row, f);
	fprintf(f, "</table>\n<h3>per syscall</h3>\n");
	table_head(f, c, "syscall");
	cmp_rows(c, CMP_TABLE_SYSCALL, table_row, f);
	fprintf(f, "</table>\n");
	for (unsigned j = 0; j < c->nruns; j++) {
		int cap = cmp_capture_of(c, j);

		if (cap >= 0)
			fidelity_table(f, &c->runs[cap], &c->runs[j]);
	}
}

static void run_list(FILE *f, const struct cmp_ctx *c)
{
	fprintf(f, "<table class=\"runs\"><tr><th>run</th><th>label</th><th>kind</th>"
		"<th>filesystem</th><th>elapsed</th><th>log sha256</th><th>database</th></tr>\n");
	for (unsigned i = 0; i < c->nruns; i++) {
		const struct run_view *v = &c->runs[i];
		char d[24];

		fprintf(f, "<tr><td><span class=\"swatch\" style=\"background:%s\"></span> #%u</td>"
			"<td>", palette[i % 8], c->group_of[i] + 1);
		text_put_html(f, v->label);
		fprintf(f, "</td><td>");
		text_put_html(f, v->kind);
		fprintf(f, "</td><td>");
		text_put_html(f, v->fs_type ? v->fs_type : "?");
		fprintf(f, " on ");
		text_put_html(f, v->fs_device ? v->fs_device : "?");
		fprintf(f, "</td><td>%s</td><td>", riot_fmt_ns(v->duration_ns, d, sizeof(d)));
		snprintf(d, sizeof(d), "%.12s", v->trace_sha256 ? v->trace_sha256 : "?");
		text_put_html(f, d);
		fprintf(f, "</td><td>");
		text_put_html(f, v->db_path);
		fprintf(f, " (run %lld)</td></tr>\n", (long long)v->id);
	}
	fprintf(f, "</table>\n");
}

/* ---- a fleet's shards ---- */

static int dbl_order(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* One row of a fleet's distribution: the fleet's value, then its shards'
 * min, quartiles and max. */
static void shard_row(FILE *f, const char *what, double fleet, double *v, unsigned n, bool ns)
{
	const double q[] = { 0, 0.25, 0.5, 0.75, 1 };
	char b[32];

	qsort(v, n, sizeof(*v), dbl_order);
	fprintf(f, "<tr><td>");
	text_put_html(f, what);
	fprintf(f, "</td><td>%s</td>", ns ? riot_fmt_ns((uint64_t)fleet, b, sizeof(b)) :
		(snprintf(b, sizeof(b), "%.0f", fleet), b));
	for (unsigned k = 0; k < 5; k++) {
		double x = n ? v[(unsigned)(q[k] * (n - 1) + 0.5)] : 0;

		fprintf(f, "<td>%s</td>", !n ? "-" : ns ? riot_fmt_ns((uint64_t)x, b, sizeof(b)) :
			(snprintf(b, sizeof(b), "%.0f", x), b));
	}
	fprintf(f, "</tr>\n");
}

/* A fleet as one run with its shards as a distribution: per class its
 * operations, p50, p99 and time, the shards' spread of each; and how late
 * each shard started. */
static int fleet_shards(FILE *f, const struct run_view *v)
{
	double *x = calloc(v->nshards ? v->nshards : 1, sizeof(*x));
	char b[32];

	if (!x)
		return -ENOMEM;
	fprintf(f, "<h3>fleet ");
	text_put_html(f, v->label);
	fprintf(f, ": its %u shards as a distribution</h3>\n<table><tr><th>class, figure</th>"
		"<th>fleet</th><th>shard min</th><th>p25</th><th>median</th><th>p75</th>"
		"<th>max</th></tr>\n", v->nshards);
	for (unsigned k = 0; k < VIEW_CLASSES; k++) {
		static const char *const what[] = { "ops", "p50", "p99", "time" };

		if (!v->cls[k].count)
			continue;
		for (unsigned m = 0; m < 4; m++) {
			const struct class_view *c = &v->cls[k];
			double fv = m == 0 ? c->count : m == 1 ? c->p50 : m == 2 ? c->p99 : c->lat_sum;
			char name[64];
			unsigned n = 0;

			for (unsigned s = 0; s < v->nshards; s++) {
				const struct class_view *sc = &v->shards[s].cls[k];

				if (!sc->count)
					continue;
				x[n++] = m == 0 ? sc->count : m == 1 ? sc->p50 : m == 2 ? sc->p99 :
					 sc->lat_sum;
			}
			snprintf(name, sizeof(name), "%s %s", view_class_names[k], what[m]);
			shard_row(f, name, fv, x, n, m > 0);
		}
	}
	fprintf(f, "</table>\n<table><tr><th>shard</th><th>shard K/N</th><th>ops</th>"
		"<th>elapsed</th><th>start after --start-at</th></tr>\n");
	for (unsigned s = 0; s < v->nshards; s++) {
		const struct run_view *r = &v->shards[s];

		fprintf(f, "<tr><td>");
		text_put_html(f, r->label);
		fprintf(f, "</td><td>");
		text_put_html(f, r->shard ? r->shard : "-");
		fprintf(f, "</td><td>%llu</td><td>%s</td>", (unsigned long long)r->ops,
			riot_fmt_ns(r->duration_ns, b, sizeof(b)));
		fprintf(f, "<td>%s</td></tr>\n", r->start_late_ns || r->start_unix_ns ?
			riot_fmt_ns(r->start_late_ns, b, sizeof(b)) : "-");
	}
	fprintf(f, "</table>\n");
	free(x);
	return 0;
}

/* The flamegraph's script (inline: the page loads nothing): a tree of
 * the stacks by the weight chosen, drawn as rows of frames from the root;
 * a click zooms into a frame (the root, or reset, back), the search box
 * highlights the frames holding its text and sums them, hovering shows a
 * frame's stack and value. */
static const char flame_js[] =
	"function riotFlame(id, rows) {\n"
	"  var box = document.getElementById(id), wsel = box.querySelector('select'),\n"
	"      find = box.querySelector('input'), info = box.querySelector('.fginfo'),\n"
	"      area = box.querySelector('.fgarea'), zoom = [], tree = null;\n"
	"  function fmt(v, w) {\n"
	"    if (w == 1) return v >= 1e9 ? (v / 1e9).toFixed(3) + ' s' : v >= 1e6 ? (v / 1e6).toFixed(2) + ' ms' : v >= 1e3 ? (v / 1e3).toFixed(1) + ' us' : v + ' ns';\n"
	"    if (w == 2) return v >= 1048576 ? (v / 1048576).toFixed(1) + ' MiB' : v >= 1024 ? (v / 1024).toFixed(1) + ' KiB' : v + ' B';\n"
	"    return v + ' calls';\n"
	"  }\n"
	"  function build(w) {\n"
	"    var t = {n: 'all', v: 0, c: {}, p: []};\n"
	"    rows.forEach(function (r) {\n"
	"      var v = r[1 + w], node = t;\n"
	"      if (!v) return;\n"
	"      t.v += v;\n"
	"      r[0].split(';').forEach(function (f) {\n"
	"        var c = node.c[f];\n"
	"        if (!c) c = node.c[f] = {n: f, v: 0, c: {}, p: node.p.concat([f])};\n"
	"        c.v += v;\n"
	"        node = c;\n"
	"      });\n"
	"    });\n"
	"    return t;\n"
	"  }\n"
	"  function hue(s) {\n"
	"    var h = 0;\n"
	"    for (var i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) % 360;\n"
	"    return 'hsl(' + (h % 50) + ',80%,' + (60 + h % 20) + '%)';\n"
	"  }\n"
	"  function render() {\n"
	"    var w = wsel.selectedIndex, top = tree, re = find.value, hit = 0, depth = 0;\n"
	"    zoom.forEach(function (f) { if (top.c[f]) top = top.c[f]; });\n"
	"    area.textContent = '';\n"
	"    function draw(node, x, d, base, under) {\n"
	"      if (node.v / base < 0.001) return;\n"
	"      var el = document.createElement('div'), pct = (100 * node.v / tree.v).toFixed(2);\n"
	"      el.className = 'fr';\n"
	"      el.style.left = (100 * x / base) + '%';\n"
	"      el.style.width = (100 * node.v / base) + '%';\n"
	"      el.style.top = (d * 18) + 'px';\n"
	"      el.style.background = hue(node.n);\n"
	"      el.textContent = node.n;\n"
	"      el.title = (node.p.join(';') || 'all') + '\\n' + fmt(node.v, w) + ', ' + pct + ' %';\n"
	"      var m = re && node.n.indexOf(re) >= 0;\n"
	"      if (m) { el.className = 'fr hl'; if (!under) hit += node.v; }\n"
	"      el.onclick = function () { zoom = node.p; render(); };\n"
	"      el.onmouseover = function () { info.textContent = el.title.replace('\\n', ': '); };\n"
	"      area.appendChild(el);\n"
	"      if (d > depth) depth = d;\n"
	"      var cx = x;\n"
	"      Object.keys(node.c).sort().forEach(function (k) { draw(node.c[k], cx, d + 1, base, under || m); cx += node.c[k].v; });\n"
	"    }\n"
	"    if (top.v) draw(top, 0, 0, top.v, false);\n"
	"    area.style.height = ((depth + 1) * 18) + 'px';\n"
	"    info.textContent = (re ? 'matched ' + fmt(hit, w) + ' (' + (tree.v ? (100 * hit / tree.v).toFixed(2) : 0) + ' %) of ' : '') + fmt(tree.v, w) + (zoom.length ? '; zoomed into ' + zoom.join(';') : '');\n"
	"  }\n"
	"  wsel.onchange = function () { tree = build(wsel.selectedIndex); render(); };\n"
	"  find.oninput = render;\n"
	"  box.querySelector('button').onclick = function () { zoom = []; find.value = ''; render(); };\n"
	"  tree = build(0);\n"
	"  render();\n"
	"}\n";

/* A stack as a JSON string inside a script: text from a log shown as the
 * terminal shows it (\\xNN for control and non-ASCII bytes), and no '<',
 * '>' or '&' that could end the script. */
static void js_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (text_escapes(c))
			fprintf(f, "\\\\x%02x", c);
		else if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '<' || c == '>' || c == '&')
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Every run's flamegraph, side by side: its stacks (the stacks table)
 * as data, drawn by flame_js. */
static int flamegraphs(FILE *f, const struct cmp_ctx *c)
{
	bool any = false;
	int rc = 0;

	for (unsigned i = 0; i < c->nruns && !rc; i++) {
		struct stack_folded *v;
		size_t n;

		rc = view_stacks(&c->runs[i], &v, &n);
		if (rc || !n) {
			continue;
		}
		if (!any) {
			fprintf(f, "<h2>flamegraphs: comm, syscall, path</h2>\n<p>Each run's calls "
				"as stacks of comm, syscall and the components of the call's path, "
				"weighted by calls, time in them or bytes moved (a run keeps its "
				"heaviest stacks; the rest are under (other) frames). Click a frame "
				"to zoom into it, the root or reset to come back; the search box "
				"highlights frames holding its text; hover for a frame's values."
				"</p>\n<script>%s</script>\n<div class=\"fgrow\">\n", flame_js);
			any = true;
		}
		fprintf(f, "<div class=\"fg\" id=\"fg%u\"><h3>#%u ", i, c->group_of[i] + 1);
		text_put_html(f, c->runs[i].label);
		fprintf(f, " (");
		text_put_html(f, c->runs[i].kind);
		fprintf(f, ")</h3><select><option>count</option><option>time</option>"
			"<option>bytes</option></select> <input type=\"search\" "
			"placeholder=\"search\"> <button>reset zoom</button>"
			"<div class=\"fginfo\"></div><div class=\"fgarea\"></div></div>\n"
			"<script>riotFlame(\"fg%u\", [", i);
		for (size_t k = 0; k < n; k++) {
			fprintf(f, "%s[", k ? ",\n" : "");
			js_str(f, v[k].stack);
			fprintf(f, ",%llu,%llu,%llu]", (unsigned long long)v[k].w[STACK_COUNT],
				(unsigned long long)v[k].w[STACK_TIME],
				(unsigned long long)v[k].w[STACK_BYTES]);
		}
		fprintf(f, "]);</script>\n");
		stacks_folded_free(v, n);
	}
	if (any)
		fprintf(f, "</div>\n");
	return rc;
}

/* A run's think time per class, when it has one (captures). */
static void think_table(FILE *f, const struct run_view *v)
{
	char b[3][24];

	if (!v->cls[VIEW_CLASSES - 1].gap_count)
		return;
	fprintf(f, "<h3>think time: the gap before a call since its thread's previous call "
		"ended</h3>\n<table><tr><th>before</th><th>calls</th><th>gap p50</th>"
		"<th>gap p99</th><th>between calls</th><th>share of thread time</th></tr>\n");
	for (unsigned k = 0; k < VIEW_CLASSES; k++) {
		const struct class_view *c = &v->cls[k];

		if (!c->gap_count)
			continue;
		fprintf(f, "<tr><td>%s</td><td>%llu</td><td>%s</td><td>%s</td><td>%s</td>"
			"<td>%.1f %%</td></tr>\n", view_class_names[k],
			(unsigned long long)c->gap_count, riot_fmt_ns(c->gap_p50, b[0], 24),
			riot_fmt_ns(c->gap_p99, b[1], 24), riot_fmt_ns(c->gap_sum, b[2], 24),
			isnan(c->think_share) ? 0.0 : 100.0 * c->think_share);
	}
	fprintf(f, "</table>\n");
}

/* ---- tables ---- */

static void run_summary(FILE *f, const struct run_view *v)
{
	char d[24];

	fprintf(f, "<h2>run %lld: ", (long long)v->id);
	text_put_html(f, v->label);
	fprintf(f, " (");
	text_put_html(f, v->kind);
	fprintf(f, ")</h2>\n<p>");
	text_put_html(f, v->host ? v->host : "?");
	fprintf(f, ", kernel ");
	text_put_html(f, v->kernel ? v->kernel : "?");
	fprintf(f, "; filesystem ");
	text_put_html(f, v->fs_type ? v->fs_type : "unknown");
	fprintf(f, " on ");
	text_put_html(f, v->fs_device ? v->fs_device : "?");
	fprintf(f, " (");
	text_put_html(f, v->fs_mount_options ? v->fs_mount_options : "?");
	fprintf(f, "); %llu syscalls in %s</p>\n<table><tr><th>syscall</th><th>count</th>"
		"<th>errors</th><th>bytes</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th>"
		"<th>max</th></tr>\n", (unsigned long long)v->ops,
		riot_fmt_ns(v->duration_ns, d, sizeof(d)));
	for (unsigned i = 0; i < v->nsys; i++) {
		const struct sys_view *s = &v->sys[i];
		char b[6][24];

		fprintf(f, "<tr><td>");
		text_put_html(f, s->name);
		fprintf(f, "</td><td>%llu</td><td>%llu</td><td>%s</td><td>%s</td>"
			"<td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			(unsigned long long)s->count, (unsigned long long)s->errors,
			riot_fmt_bytes(s->bytes, b[5], 24), riot_fmt_ns(s->p50, b[0], 24), riot_fmt_ns(s->p90, b[1], 24),
			riot_fmt_ns(s->p99, b[2], 24), riot_fmt_ns(s->p999, b[3], 24),
			riot_fmt_ns(s->lat_max, b[4], 24));
	}
	fprintf(f, "</table>\n");
}

static const char css[] =
	"body{font-family:sans-serif;margin:2em;color:#222}"
	"table{border-collapse:collapse;font-size:13px;margin-bottom:1em}"
	"td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
	"td:first-child,th:first-child{text-align:left}"
	"table.compare tr.first td{border-top:2px solid #888}"
	"td.winner{text-align:left;font-weight:bold}"
	".swatch{display:inline-block;width:12px;height:12px;vertical-align:middle}"
	"svg text{font-size:11px;fill:#333}figure{margin:1em 0}"
	"figcaption{font-weight:bold;margin-bottom:4px}"
	".fgrow{display:flex;flex-wrap:wrap;gap:1em}.fg{flex:1 1 560px;min-width:400px}"
	".fgarea{position:relative;font-size:11px;margin-top:4px}"
	".fginfo{font-size:12px;min-height:1.2em;margin-top:4px}"
	".fr{position:absolute;height:17px;overflow:hidden;white-space:nowrap;"
	"box-sizing:border-box;border:1px solid #fff;padding-left:2px;cursor:pointer}"
	".fr.hl{background:#e040e0 !important}";

int html_write(const char *path, struct run_view *runs, unsigned n, char *err, size_t errlen)
{
	struct cmp_ctx *c = malloc(sizeof(*c));
	FILE *f = c ? fopen(path, "w") : NULL;
	int rc = 0;

	if (!f) {
		rc = c ? -errno : -ENOMEM;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		free(c);
		return rc;
	}
	cmp_ctx_init(c, runs, n);
	fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
		"<title>riot report</title><style>%s</style></head><body>\n"
		"<h1>riot report</h1>\n", css);
	run_list(f, c);
	rc = overlay_latency(f, c);
	if (!rc)
		rc = overlay_throughput(f, c);
	if (!rc && n > 1)
		comparison(f, c);
	device_html(f, runs, n);
	if (!rc)
		rc = flamegraphs(f, c);
	for (unsigned i = 0; i < n && !rc; i++) {
		run_summary(f, &runs[i]);
		if (runs[i].nshards)
			rc = fleet_shards(f, &runs[i]);
		if (rc)
			break;
		think_table(f, &runs[i]);
		rc = chart_latency(f, &runs[i]);
	}
	fprintf(f, "</body></html>\n");
	if (fclose(f) != 0 && !rc)
		rc = -errno;
	if (rc)
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	free(c);
	return rc;
}
