/* top/tables.c: riot top's syscalls, files and processes tabs (view_int.h):
 * the rows, sorted; files by directory; a row's detail; the table as CSV;
 * the latency tab's histograms. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "top/view_int.h"

static const char *const col_names[COL_N] = {
	"COUNT", "ERRORS", "BYTES", "TIME", "P50", "P99", "MAX",
};

/* ---- tables ---- */

static void vrow_keys(struct vrow *r)
{
	r->k[COL_COUNT] = r->r->count;
	r->k[COL_ERR] = r->r->errors;
	r->k[COL_BYTES] = r->r->bytes;
	r->k[COL_TIME] = r->r->time_ns;
	r->k[COL_P50] = top_hist_q(&r->r->lat, 0.5);
	r->k[COL_P99] = top_hist_q(&r->r->lat, 0.99);
	r->k[COL_MAX] = r->r->lat.max;
}

static int sort_col;

static int by_col(const void *x, const void *y)
{
	const struct vrow *a = x, *b = y;

	if (a->k[sort_col] != b->k[sort_col])
		return a->k[sort_col] > b->k[sort_col] ? -1 : 1;
	return strcmp(a->label, b->label);
}

static int rows_room(struct top_view *v, uint32_t n)
{
	if (n <= v->rows_cap)
		return 0;
	struct vrow *r = realloc(v->rows, n * sizeof(*r));

	if (!r)
		return -ENOMEM;
	v->rows = r;
	v->rows_cap = n;
	return 0;
}

static void row_merge(struct top_row *into, const struct top_row *r)
{
	into->count += r->count;
	into->errors += r->errors;
	into->bytes += r->bytes;
	into->time_ns += r->time_ns;
	into->over += r->over;
	into->gap_ns += r->gap_ns;
	into->gaps += r->gaps;
	into->lat.n += r->lat.n;
	into->gap.n += r->gap.n;
	into->lat.max = r->lat.max > into->lat.max ? r->lat.max : into->lat.max;
	into->gap.max = r->gap.max > into->gap.max ? r->gap.max : into->gap.max;
	for (unsigned b = 0; b < TOP_HIST_BUCKETS; b++) {
		into->lat.b[b] += r->lat.b[b];
		into->gap.b[b] += r->gap.b[b];
	}
}

/* The files tab by directory: the kept files' rows summed per parent. */
static int build_dirs(struct top_view *v, const struct top_agg *a)
{
	free(v->dirs);
	v->ndirs = 0;
	v->dirs = calloc(a->files.n ? a->files.n : 1, sizeof(*v->dirs));
	if (!v->dirs)
		return -ENOMEM;
	for (uint32_t i = 0; i < a->files.n; i++) {
		const struct top_row *f = &a->files.rows[i];
		const char *slash = f->text ? strrchr(f->text, '/') : NULL;
		size_t len = slash ? (size_t)(slash - f->text) : 0;
		uint32_t d;

		if (!slash)
			len = 0;
		for (d = 0; d < v->ndirs; d++)
			if (strlen(v->dirs[d].text) == (len ? len : 1) &&
			    strncmp(v->dirs[d].text, len ? f->text : "/", len ? len : 1) == 0)
				break;
		if (d == v->ndirs) {
			v->dirs[d].text = slash ? strndup(len ? f->text : "/", len ? len : 1) :
					  strdup(".");
			if (!v->dirs[d].text)
				return -ENOMEM;
			v->ndirs++;
		}
		row_merge(&v->dirs[d], f);
	}
	return 0;
}

void view_free_dirs(struct top_view *v)
{
	for (uint32_t d = 0; d < v->ndirs; d++)
		free(v->dirs[d].text);
	free(v->dirs);
	v->dirs = NULL;
	v->ndirs = 0;
}

static int build_rows(struct top_view *v, const struct top_agg *a)
{
	uint32_t n = 0;

	switch (v->tab) {
	case TAB_SYSCALLS:
		if (rows_room(v, RIOT_SYS_COUNT))
			return -ENOMEM;
		for (unsigned s = 0; s < RIOT_SYS_COUNT; s++) {
			if (!a->sys[s].count)
				continue;
			v->rows[n].r = &a->sys[s];
			snprintf(v->rows[n].label, sizeof(v->rows[n].label), "%s",
				 riot_sys_info(s)->name);
			n++;
		}
		break;
	case TAB_FILES:
		if (v->by_dir) {
			view_free_dirs(v);
			if (build_dirs(v, a) || rows_room(v, v->ndirs))
				return -ENOMEM;
			for (uint32_t i = 0; i < v->ndirs; i++, n++) {
				v->rows[n].r = &v->dirs[i];
				snprintf(v->rows[n].label, sizeof(v->rows[n].label), "%s/",
					 v->dirs[i].text);
			}
			break;
		}
		if (rows_room(v, a->files.n))
			return -ENOMEM;
		for (uint32_t i = 0; i < a->files.n; i++, n++) {
			v->rows[n].r = &a->files.rows[i];
			snprintf(v->rows[n].label, sizeof(v->rows[n].label), "%s",
				 a->files.rows[i].text ? a->files.rows[i].text : "");
		}
		break;
	case TAB_PROCS:
		if (rows_room(v, a->procs_hh.n))
			return -ENOMEM;
		for (uint32_t i = 0; i < a->procs_hh.n; i++, n++) {
			const struct top_row *r = &a->procs_hh.rows[i];

			v->rows[n].r = r;
			snprintf(v->rows[n].label, sizeof(v->rows[n].label), "%u %s", r->pid,
				 top_agg_comm(a, r->pid)[0] != '?' ? top_agg_comm(a, r->pid) :
				 r->comm);
		}
		break;
	default:
		break;
	}
	v->nrows = n;
	for (uint32_t i = 0; i < n; i++)
		vrow_keys(&v->rows[i]);
	sort_col = v->sort[v->tab];
	qsort(v->rows, n, sizeof(*v->rows), by_col);
	return 0;
}

#define NUM_W 65	/* the numeric columns, each with its space */

static void table_line(struct top_view *v, int y, const struct vrow *r, int lw)
{
	char b[COL_N][32];

	view_put(v, y, 0, lw, r->label, false, v->tab == TAB_FILES);
	view_fmt_count(r->k[COL_COUNT], 9, b[0], 32);
	view_fmt_count(r->k[COL_ERR], 7, b[1], 32);
	view_fmt_bytes(r->k[COL_BYTES], b[2], 32);
	view_fmt_ns(v, r->k[COL_TIME], b[3], 32);
	view_fmt_ns(v, r->k[COL_P50], b[4], 32);
	view_fmt_ns(v, r->k[COL_P99], b[5], 32);
	view_fmt_ns(v, r->k[COL_MAX], b[6], 32);
	if (r->k[COL_ERR])
		view_style_on(v, 3, 0);
	view_rcell(v, y, lw, 10, b[0]);
	view_rcell(v, y, lw + 10, 8, b[1]);
	if (r->k[COL_ERR])
		view_style_off(v, 3, 0);
	view_rcell(v, y, lw + 18, 10, b[2]);
	view_rcell(v, y, lw + 28, 10, b[3]);
	view_rcell(v, y, lw + 38, 9, b[4]);
	view_rcell(v, y, lw + 47, 9, b[5]);
	view_rcell(v, y, lw + 56, 9, b[6]);
}

static void table_head(struct top_view *v, int y, const char *what, int lw)
{
	char b[256];
	int n = 0;

	for (int c = 0; c < COL_N; c++) {
		static const int w[COL_N] = { 9, 7, 9, 9, 8, 8, 8 };
		char h[16];

		snprintf(h, sizeof(h), "%s%s", c == v->sort[v->tab] ? "*" : "", col_names[c]);
		n += snprintf(b + n, sizeof(b) - n, " %*s", w[c], h);
	}
	view_style_on(v, 1, A_BOLD);
	view_put(v, y, 0, lw, what, false, false);
	view_put(v, y, lw, COLS - lw, b, false, false);
	view_style_off(v, 1, A_BOLD);
}

/* Top paths (or processes) among the stacks that row r's are part of. */
struct part {
	char label[256];
	uint64_t count, time;
};

static int by_time(const void *x, const void *y)
{
	const struct part *a = x, *b = y;

	if (a->time != b->time)
		return a->time > b->time ? -1 : 1;
	return strcmp(a->label, b->label);
}

static void draw_hist(struct top_view *v, int y, int x, int w, int h, const char *title,
		      const struct top_hist *hist)
{
	uint64_t l2[64], max = 0;
	int lo = 63, hi = 0, row;
	char b[32], c[32];

	view_style_on(v, 1, A_BOLD);
	view_put(v, y, x, w, title, false, false);
	view_style_off(v, 1, A_BOLD);
	top_hist_log2(hist, l2);
	for (int k = 0; k < 64; k++)
		if (l2[k]) {
			lo = k < lo ? k : lo;
			hi = k;
			max = l2[k] > max ? l2[k] : max;
		}
	if (!max) {
		view_put(v, y + 1, x, w, "(none)", false, false);
		return;
	}
	for (row = 0; lo <= hi && row < h - 1; lo++, row++) {
		view_put(v, y + 1 + row, x, 8, view_fmt_ns(v, lo ? 1ull << lo : 0, b, sizeof(b)), true, false);
		view_rcell(v, y + 1 + row, x + 8, 10, view_fmt_count(l2[lo], 9, c, sizeof(c)));
		view_bar(v, y + 1 + row, x + 20, w - 21, (double)l2[lo] / max);
	}
}

static void draw_detail(struct top_view *v, struct top_src *src, const struct vrow *r)
{
	const struct top_agg *a = src->agg;
	static struct part parts[TOP_STACKS];
	uint32_t np = 0;
	int half = COLS / 2, y = 3, h = LINES - 5;
	char b[32];

	view_style_on(v, 0, A_BOLD);
	view_putf(v, y, 0, COLS, "%s: %llu calls, %llu errors, %s, %s in calls%s", r->label,
	     (unsigned long long)r->r->count, (unsigned long long)r->r->errors,
	     view_fmt_bytes(r->r->bytes, b, sizeof(b)), view_fmt_ns(v, r->r->time_ns, b + 16, 16),
	     r->r->over ? " (counts may include a replaced row's)" : "");
	view_style_off(v, 0, A_BOLD);
	draw_hist(v, y + 1, 0, half - 1, h / 2, "latency", &r->r->lat);
	draw_hist(v, y + 1, half, COLS - half, h / 2,
		  src->gap_name ? src->gap_name : "think time before", &r->r->gap);
	/* what it is made of, from the stacks */
	for (uint32_t i = 0; i < a->stacks.n; i++) {
		const struct top_row *s = &a->stacks.rows[i];
		const char *lab = NULL;

		if (v->tab == TAB_SYSCALLS && (s->key & 0xffff) == (uint64_t)(r->r - a->sys))
			lab = s->text;
		else if (v->tab == TAB_FILES && s->text && !v->by_dir && r->r->text &&
			 strcmp(s->text, r->r->text) == 0)
			lab = s->comm;
		else if (v->tab == TAB_FILES && s->text && v->by_dir && r->r->text &&
			 strncmp(s->text, r->r->text, strlen(r->r->text)) == 0)
			lab = s->text;
		else if (v->tab == TAB_PROCS && strcmp(s->comm, r->r->comm) == 0)
			lab = s->text;
		if (!lab)
			continue;
		uint32_t k;

		for (k = 0; k < np && strcmp(parts[k].label, lab); k++)
			;
		if (k == np) {
			snprintf(parts[np].label, sizeof(parts[np].label), "%s", lab);
			parts[np].count = parts[np].time = 0;
			np++;
		}
		parts[k].count += s->count;
		parts[k].time += s->time_ns;
	}
	qsort(parts, np, sizeof(*parts), by_time);
	y += 2 + h / 2;
	view_style_on(v, 1, A_BOLD);
	view_putf(v, y++, 0, COLS, "%-*s %9s %9s", COLS - 21,
	     v->tab == TAB_FILES && !v->by_dir ? "processes" : "paths", "COUNT", "TIME");
	view_style_off(v, 1, A_BOLD);
	for (uint32_t k = 0; k < np && y < LINES - 1; k++, y++) {
		char c[32];

		view_put(v, y, 0, COLS - 21, parts[k].label[0] ? parts[k].label : "(no path)", false, true);
		view_putf(v, y, COLS - 21, 21, " %9s %9s", view_fmt_count(parts[k].count, 9, c, sizeof(c)),
		     view_fmt_ns(v, parts[k].time, b, sizeof(b)));
	}
}

void view_draw_table(struct top_view *v, struct top_src *src)
{
	int lw = COLS - NUM_W, y = 3, h = LINES - 5;
	int *sel = &v->sel[v->tab], *first = &v->first[v->tab];

	if (lw < 10)
		lw = 10;
	if (build_rows(v, src->agg)) {
		view_message(v, "out of memory");
		return;
	}
	if (*sel >= (int)v->nrows)
		*sel = v->nrows ? (int)v->nrows - 1 : 0;
	if (v->detail && v->nrows) {
		draw_detail(v, src, &v->rows[*sel]);
		return;
	}
	v->detail = false;
	table_head(v, y, v->tab == TAB_SYSCALLS ? "SYSCALL" : v->tab == TAB_PROCS ?
		   "PID COMM" : v->by_dir ? "DIRECTORY" : "FILE", lw);
	if (*sel < *first)
		*first = *sel;
	if (*sel >= *first + h - 1)
		*first = *sel - h + 2;
	for (int i = *first; i < (int)v->nrows && y + 1 < LINES - 1; i++) {
		y++;
		if (i == *sel)
			view_style_on(v, 0, A_REVERSE);
		table_line(v, y, &v->rows[i], lw);
		if (i == *sel)
			view_style_off(v, 0, A_REVERSE);
	}
	if (!v->nrows)
		view_put(v, y + 1, 0, COLS, "(nothing yet)", false, false);
	else if (v->tab == TAB_FILES && src->agg->files.evicted)
		view_message(v, "files: the %u counted most are kept (%llu replaced)",
			src->agg->files.cap, (unsigned long long)src->agg->files.evicted);
}

/* ---- CSV ---- */

static void csv_field(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void view_write_csv(struct top_view *v, struct top_src *src)
{
	top_agg_settle(src->agg);
	char name[128], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	FILE *f;
	uint32_t n = 0;

	/* the rows of this tab, as they are now: a key can come between the
	 * switch to a tab and its first drawing */
	if (v->tab != TAB_EVENTS && build_rows(v, src->agg)) {
		view_message(v, "no memory for the table");
		return;
	}
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(name, sizeof(name), "riot-top-%s-%s.csv", view_tab_names[v->tab], stamp);
	f = fopen(name, "wxe");
	if (!f) {
		view_message(v, "cannot write %s: %s", name, strerror(errno));
		return;
	}
	if (v->tab == TAB_EVENTS) {
		fprintf(f, "t_ns,comm,pid,tid,syscall,fd,ret,dur_ns,gap_ns,path\n");
		for (uint64_t i = 0; top_agg_event(src->agg, i); i++) {
			const struct top_event *e = top_agg_event(src->agg, i);

			if (!view_ev_match(v, src->agg, e))
				continue;
			fprintf(f, "%llu,", (unsigned long long)e->t);
			csv_field(f, e->comm);
			fprintf(f, ",%u,%u,%s,%d,%lld,%llu,", e->pid, e->tid,
				riot_sys_info(e->sys) ? riot_sys_info(e->sys)->name : "?", e->fd,
				(long long)e->ret, (unsigned long long)e->dur);
			if (e->gap != UINT64_MAX)
				fprintf(f, "%llu", (unsigned long long)e->gap);
			fputc(',', f);
			csv_field(f, e->path);
			fputc('\n', f);
			n++;
		}
	} else {
		fprintf(f, "name,count,errors,bytes,time_ns,p50_ns,p99_ns,max_ns\n");
		for (; n < v->nrows; n++) {
			const struct vrow *r = &v->rows[n];

			csv_field(f, r->label);
			for (int c = 0; c < COL_N; c++)
				fprintf(f, ",%llu", (unsigned long long)r->k[c]);
			fputc('\n', f);
		}
	}
	if (fclose(f))
		view_message(v, "writing %s: %s", name, strerror(errno));
	else
		view_message(v, "wrote %u rows to %s", n, name);
}

/* ---- latency and gaps ---- */

void view_draw_latency(struct top_view *v, struct top_src *src)
{
	const struct top_agg *a = src->agg;
	const struct top_row *pick[TOP_NCLASS + RIOT_SYS_COUNT];
	const char *names[TOP_NCLASS + RIOT_SYS_COUNT];
	int n = 0, lw = 20, y = 3, *sel = &v->sel[TAB_LATENCY], *first = &v->first[TAB_LATENCY];
	int hw = (COLS - lw) / 2;
	char gl[64];

	for (unsigned c = 0; c < TOP_NCLASS; c++)
		if (a->cls[c].count) {
			pick[n] = &a->cls[c];
			names[n++] = top_class_name(c);
		}
	for (unsigned s = 0; s < RIOT_SYS_COUNT; s++)
		if (a->sys[s].count) {
			pick[n] = &a->sys[s];
			names[n++] = riot_sys_info(s)->name;
		}
	if (!n) {
		view_put(v, y, 0, COLS, "(nothing yet)", false, false);
		return;
	}
	if (*sel >= n)
		*sel = n - 1;
	if (*sel < *first)
		*first = *sel;
	if (*sel >= *first + LINES - 5)
		*first = *sel - (LINES - 6);
	for (int i = *first; i < n && y < LINES - 1; i++, y++) {
		if (i == *sel)
			view_style_on(v, 0, A_REVERSE);
		view_putf(v, y, 0, lw - 1, "%s%s", i < (int)TOP_NCLASS && pick[i] >= a->cls &&
		     pick[i] < a->cls + TOP_NCLASS ? "" : "  ", names[i]);
		if (i == *sel)
			view_style_off(v, 0, A_REVERSE);
	}
	draw_hist(v, 3, lw, hw - 1, LINES - 5, "duration (log2)", &pick[*sel]->lat);
	snprintf(gl, sizeof(gl), "%s (log2)", src->gap_name ? src->gap_name : "think time before");
	draw_hist(v, 3, lw + hw, COLS - lw - hw, LINES - 5, gl, &pick[*sel]->gap);
}
