/* report/html.c: one self-contained HTML page (inline SVG and CSS, no
 * script, no external assets): per run, the latency distribution of each
 * syscall (a CDF on a log axis) and throughput over time; with several
 * runs, the comparison tables. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"
#include "view.h"

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

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

void html_esc(FILE *f, const char *s)
{
	esc(f, s);
}

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
	esc(f, title);
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
	esc(f, text);
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

static void cdf_series(FILE *f, const struct hist *h, int lo, int hi, const char *color)
{
	uint64_t seen = 0;

	fprintf(f, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
		"points=\"", color);
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
	chart_open(f, "chart latency", title);
	cdf_axes(f, lo, hi);
	for (unsigned i = 0; i < n; i++) {
		if (!h[i].count)
			continue;
		cdf_series(f, &h[i], lo, hi, palette[i]);
		legend(f, i, palette[i], v->sys[i].name);
	}
	fprintf(f, "</svg></figure>\n");
	free(h);
	return 0;
}

/* ---- throughput over time ---- */

static void time_series(FILE *f, const uint64_t *vals, unsigned n, uint64_t max,
			const char *color)
{
	fprintf(f, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
		"points=\"", color);
	/* a step per second, so a run of one second still draws a line */
	for (unsigned s = 0; s < n; s++) {
		double y = plot_y(max ? (double)vals[s] / (double)max : 0);

		fprintf(f, "%.1f,%.1f %.1f,%.1f ", plot_x((double)s / n), y,
			plot_x((double)(s + 1) / n), y);
	}
	fprintf(f, "\"/>\n");
}

static uint64_t max_of(const uint64_t *v, unsigned n)
{
	uint64_t m = 0;

	for (unsigned i = 0; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

static int chart_throughput(FILE *f, const struct run_view *v)
{
	uint64_t *ops, *bytes, *p99, mo, mb, width;
	char title[300], leg[64];
	unsigned n;
	int rc = view_timeline(v, &ops, &bytes, &p99, &n, &width);

	if (rc)
		return rc;
	mo = max_of(ops, n);
	mb = max_of(bytes, n);
	snprintf(title, sizeof(title), "%s: throughput over time (per second, each line "
		 "scaled to its peak)", v->label);
	chart_open(f, "chart throughput", title);
	for (unsigned t = 0; t <= 4; t++)
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%gs</text>\n",
			plot_x(t / 4.0), CHART_H - PAD_B + 16, (double)n * (double)width * t / 4.0);
	time_series(f, ops, n, mo, palette[0]);
	snprintf(leg, sizeof(leg), "ops/s (peak %llu)", (unsigned long long)mo);
	legend(f, 0, palette[0], leg);
	time_series(f, bytes, n, mb, palette[1]);
	snprintf(leg, sizeof(leg), "MiB/s (peak %.1f)", (double)mb / 1048576.0);
	legend(f, 1, palette[1], leg);
	fprintf(f, "</svg></figure>\n");
	free(ops);
	free(bytes);
	free(p99);
	return 0;
}

/* ---- tables ---- */

static void run_summary(FILE *f, const struct run_view *v)
{
	fprintf(f, "<h2>run %lld: ", (long long)v->id);
	esc(f, v->label);
	fprintf(f, " (%s)</h2>\n<p>", v->kind);
	esc(f, v->host ? v->host : "?");
	fprintf(f, ", kernel ");
	esc(f, v->kernel ? v->kernel : "?");
	fprintf(f, "; filesystem ");
	esc(f, v->fs_type ? v->fs_type : "unknown");
	fprintf(f, " on ");
	esc(f, v->fs_device ? v->fs_device : "?");
	fprintf(f, " (");
	esc(f, v->fs_mount_options ? v->fs_mount_options : "?");
	fprintf(f, "); %llu syscalls in %.3f s</p>\n<table><tr><th>syscall</th><th>count</th>"
		"<th>errors</th><th>bytes</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th>"
		"<th>max</th></tr>\n", (unsigned long long)v->ops, (double)v->duration_ns / 1e9);
	for (unsigned i = 0; i < v->nsys; i++) {
		const struct sys_view *s = &v->sys[i];
		char b[5][24];

		fprintf(f, "<tr><td>%s</td><td>%llu</td><td>%llu</td><td>%llu</td><td>%s</td>"
			"<td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", s->name,
			(unsigned long long)s->count, (unsigned long long)s->errors,
			(unsigned long long)s->bytes, riot_fmt_ns(s->p50, b[0], 24), riot_fmt_ns(s->p90, b[1], 24),
			riot_fmt_ns(s->p99, b[2], 24), riot_fmt_ns(s->p999, b[3], 24),
			riot_fmt_ns(s->lat_max, b[4], 24));
	}
	fprintf(f, "</table>\n");
}

/* The text comparison, kept verbatim: the same numbers as `riot compare`. */
static int comparison(FILE *f, struct run_view *runs, unsigned n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return -errno;
	compare_print(m, runs, n);
	fclose(m);
	fprintf(f, "<h2>comparison</h2>\n<pre class=\"compare\">");
	esc(f, text);
	fprintf(f, "</pre>\n");
	free(text);
	return 0;
}

static const char css[] =
	"body{font-family:sans-serif;margin:2em;color:#222}"
	"table{border-collapse:collapse;font-size:13px}"
	"td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
	"td:first-child{text-align:left}"
	"svg text{font-size:11px;fill:#333}figure{margin:1em 0}"
	"figcaption{font-weight:bold;margin-bottom:4px}pre{font-size:12px}";

int html_write(const char *path, struct run_view *runs, unsigned n, char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");
	int rc = 0;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
		"<title>riot report</title><style>%s</style></head><body>\n"
		"<h1>riot report</h1>\n", css);
	if (n > 1)
		rc = comparison(f, runs, n);
	device_html(f, runs, n);
	for (unsigned i = 0; i < n && !rc; i++) {
		run_summary(f, &runs[i]);
		rc = chart_latency(f, &runs[i]);
		if (!rc)
			rc = chart_throughput(f, &runs[i]);
	}
	fprintf(f, "</body></html>\n");
	if (fclose(f) != 0 && !rc)
		rc = -errno;
	if (rc)
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	return rc;
}
