/* top/view.c: riot top's tabs on ncurses (top_int.h). Everything drawn
 * comes from the aggregate (agg.c); the view keeps only what the user
 * chose: the tab, sort, selection, zoom, filters, the probes' switches. */
#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curses.h>

#include "capture/capture.h"
#include "lib/clock.h"
#include "top/top_int.h"

enum tab { TAB_OVERVIEW, TAB_SYSCALLS, TAB_FILES, TAB_PROCS, TAB_LATENCY, TAB_FLAME,
	   TAB_EVENTS, TAB_PROBES, TAB_N };
static const char *const tab_names[TAB_N] = {
	"overview", "syscalls", "files", "processes", "latency", "flame", "events", "probes",
};

#define REFRESH_NS 250000000ull
#define MAX_FILTERS 8

/* ---- events filters ---- */

enum filter_kind { F_COMM, F_PID, F_TID, F_SYS, F_FD, F_RET, F_GLOB, F_REGEX, F_LAT, F_GAP,
		   F_ERR };

struct filter {
	enum filter_kind kind;
	char text[96];		/* as typed */
	char arg[80];
	int64_t num;
	regex_t re;
};

/* ---- the flame tree ---- */

struct fnode {
	char label[48];
	uint64_t w;
	uint32_t parent, child, next;	/* indices; 0: none (0 is the root) */
	uint16_t depth;
};

enum { ORDER_COMM, ORDER_SYS, ORDER_PATH, ORDER_N };
static const char *const order_names[ORDER_N] = {
	"process;syscall;path", "syscall;process;path", "path;syscall;process",
};
enum { WEIGHT_TIME, WEIGHT_COUNT, WEIGHT_BYTES, WEIGHT_N };
static const char *const weight_names[WEIGHT_N] = { "time", "count", "bytes" };

/* ---- tables ---- */

enum { COL_COUNT, COL_ERR, COL_BYTES, COL_TIME, COL_P50, COL_P99, COL_MAX, COL_N };
static const char *const col_names[COL_N] = {
	"COUNT", "ERRORS", "BYTES", "TIME", "P50", "P99", "MAX",
};

struct vrow {
	const struct top_row *r;
	char label[256];
	uint64_t k[COL_N];
};

struct top_view {
	struct top_term *t;
	enum tab tab;
	bool paused, help, detail, by_dir;
	int sort[TAB_N];
	int sel[TAB_N], first[TAB_N];
	uint64_t last_draw;
	char msg[200];
	uint64_t msg_until;
	/* a line being typed: 'f' an events filter, '/' a flame search */
	int prompt;
	char input[96];
	/* events */
	struct filter filters[MAX_FILTERS];
	int nfilters;
	uint64_t ev_frozen;	/* ev_total when paused */
	/* flame */
	int order, weight;
	struct fnode *nodes;
	uint32_t nnodes, cap;
	char sel_path[512], zoom_path[512], search[96];
	/* probes */
	uint64_t sys_on[(RIOT_SYS_COUNT + 63) / 64];
	bool probes_known;
	/* rows built for the table tabs */
	struct vrow *rows;
	uint32_t nrows, rows_cap;
	struct top_row *dirs;	/* the files tab by directory */
	uint32_t ndirs;
};

/* ---- drawing helpers ---- */

static bool utf8_ellipsis(const char *s)
{
	return (unsigned char)s[0] == 0xe2 && (unsigned char)s[1] == 0x80 &&
	       (unsigned char)s[2] == 0xa6;
}

/* s as cells one column each: printable ASCII as it is, our own "…" as
 * itself (or '~' without UTF-8), any other byte '?'. Returns the cells. */
static int cells(const struct top_view *v, const char *s, char out[][4], int max)
{
	int n = 0;

	while (*s && n < max) {
		if (utf8_ellipsis(s)) {
			strcpy(out[n++], v->t->utf8 ? "\xe2\x80\xa6" : "~");
			s += 3;
			continue;
		}
		if ((unsigned char)s[0] == 0xc2 && (unsigned char)s[1] == 0xb5) {	/* µ */
			strcpy(out[n++], v->t->utf8 ? "\xc2\xb5" : "u");
			s += 2;
			continue;
		}
		out[n][0] = (unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f ? *s : '?';
		out[n++][1] = 0;
		s++;
	}
	return n;
}

/* Draws s in w columns at (y, x): cut at its end, or (tail) at its
 * start with a leading ellipsis; right-aligned when right. */
static void put(struct top_view *v, int y, int x, int w, const char *s, bool right, bool tail)
{
	static char c[1024][4];
	int n, from = 0, pad;

	if (w <= 0 || y >= LINES || x >= COLS)
		return;
	if (x + w > COLS)
		w = COLS - x;
	n = cells(v, s, c, 1024);
	move(y, x);
	if (n > w) {
		if (tail && w > 1) {
			addstr(v->t->utf8 ? "\xe2\x80\xa6" : "~");
			from = n - (w - 1);
			w--;
		}
		n = from + w;
	}
	pad = w - (n - from);
	if (right)
		for (int i = 0; i < pad; i++)
			addch(' ');
	for (int i = from; i < n; i++)
		addstr(c[i]);
	if (!right)
		for (int i = 0; i < pad; i++)
			addch(' ');
}

/* s right-aligned in the w columns before x + w, after a space. */
static void rcell(struct top_view *v, int y, int x, int w, const char *s)
{
	put(v, y, x, 1, " ", false, false);
	put(v, y, x + 1, w - 1, s, true, false);
}

static void putf(struct top_view *v, int y, int x, int w, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void putf(struct top_view *v, int y, int x, int w, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	put(v, y, x, w, buf, false, false);
}

static void style_on(struct top_view *v, int pair, attr_t a)
{
	if (v->t->colour && pair)
		attron(COLOR_PAIR(pair));
	attron(a);
}

static void style_off(struct top_view *v, int pair, attr_t a)
{
	if (v->t->colour && pair)
		attroff(COLOR_PAIR(pair));
	attroff(a);
}

static const char *fmt_ns(const struct top_view *v, uint64_t ns, char *b, size_t len)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	double x = (double)ns;
	int u = 0;

	if (ns < 1000) {
		snprintf(b, len, "%lluns", (unsigned long long)ns);
		return b;
	}
	while (x >= 999.5 && u < 3) {
		x /= 1000;
		u++;
	}
	snprintf(b, len, x < 10 ? "%.2f%s" : x < 100 ? "%.1f%s" : "%.0f%s", x,
		 u == 1 && v->t->utf8 ? "\xc2\xb5s" : unit[u]);
	return b;
}

static const char *fmt_bytes(uint64_t n, char *b, size_t len)
{
	if (n < 1024)
		snprintf(b, len, "%lluB", (unsigned long long)n);
	else if (n < (1ull << 20))
		snprintf(b, len, "%.1fK", n / 1024.0);
	else if (n < (1ull << 30))
		snprintf(b, len, "%.1fM", n / 1048576.0);
	else
		snprintf(b, len, "%.1fG", n / 1073741824.0);
	return b;
}

/* A count exactly while it fits, else with k, M, G. */
static const char *fmt_count(uint64_t n, int w, char *b, size_t len)
{
	if (snprintf(b, len, "%llu", (unsigned long long)n) <= w)
		return b;
	if (n < 1000000)
		snprintf(b, len, "%.0fk", n / 1e3);
	else if (n < 1000000000)
		snprintf(b, len, "%.1fM", n / 1e6);
	else
		snprintf(b, len, "%.1fG", n / 1e9);
	return b;
}

static void message(struct top_view *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void message(struct top_view *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->msg, sizeof(v->msg), fmt, ap);
	va_end(ap);
	v->msg_until = riot_now_ns(CLOCK_MONOTONIC) + 5000000000ull;
}

/* A bar of frac of w columns, eighths with UTF-8. */
static void bar(struct top_view *v, int y, int x, int w, double frac)
{
	static const char *const eighths[] = {
		"", "\xe2\x96\x8f", "\xe2\x96\x8e", "\xe2\x96\x8d", "\xe2\x96\x8c",
		"\xe2\x96\x8b", "\xe2\x96\x8a", "\xe2\x96\x89",
	};
	int cells8 = (int)(frac * w * 8 + 0.5), i;

	if (w <= 0)
		return;
	move(y, x);
	style_on(v, 2, 0);
	for (i = 0; i < w; i++) {
		int c = cells8 - i * 8;

		if (c >= 8)
			addstr(v->t->utf8 ? "\xe2\x96\x88" : "#");
		else if (c > 0 && v->t->utf8)
			addstr(eighths[c]);
		else if (c > 0)
			addch(c >= 4 ? '#' : '.');
		else
			addch(' ');
	}
	style_off(v, 2, 0);
}

/* ---- rates and seconds ---- */

/* The second (from the aggregate's start) the view is in. */
static uint64_t second_of(const struct top_agg *a, uint64_t now)
{
	return now > a->t0 ? (now - a->t0) / 1000000000ull : 0;
}

/* ops or bytes of class cls in second s (0 outside the history). */
static uint64_t in_second(const struct top_agg *a, uint64_t s, unsigned cls, bool bytes)
{
	if (s > a->sec_last || s + TOP_SECONDS <= a->sec_last || s < a->sec_first)
		return 0;
	return bytes ? a->bytes_s[s % TOP_SECONDS][cls] : a->ops_s[s % TOP_SECONDS][cls];
}

/* The last whole second before now: what "per second" shows. */
static uint64_t rate_second(const struct top_agg *a, uint64_t now)
{
	uint64_t s = second_of(a, now);

	return s ? s - 1 : 0;
}

static void sparkline(struct top_view *v, int y, int x, int w, const struct top_agg *a,
		      uint64_t now, unsigned cls)
{
	static const char *const blocks[] = {
		" ", "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
		"\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88",
	};
	static const char ascii[] = " .:-=+*#%";
	uint64_t last = second_of(a, now), max = 0;

	if (w > TOP_SECONDS)
		w = TOP_SECONDS;
	for (int i = 0; i < w; i++) {
		uint64_t s = last >= (uint64_t)i ? last - i : UINT64_MAX;
		uint64_t n = s == UINT64_MAX ? 0 : in_second(a, s, cls, false);

		max = n > max ? n : max;
	}
	move(y, x);
	style_on(v, 2, 0);
	for (int i = w - 1; i >= 0; i--) {
		uint64_t s = last >= (uint64_t)i ? last - i : UINT64_MAX;
		uint64_t n = s == UINT64_MAX ? 0 : in_second(a, s, cls, false);
		unsigned lvl = max ? (unsigned)((n * 8 + max - 1) / max) : 0;

		if (v->t->utf8)
			addstr(blocks[lvl]);
		else
			addch(ascii[lvl]);
	}
	style_off(v, 2, 0);
}

/* ---- header and footer ---- */

static void draw_tabs(struct top_view *v)
{
	int x = 0;

	move(0, 0);
	clrtoeol();
	for (int i = 0; i < TAB_N && x < COLS; i++) {
		char b[32];
		int n = snprintf(b, sizeof(b), "%d %s", i + 1, tab_names[i]);

		if (i == (int)v->tab)
			style_on(v, 0, A_REVERSE | A_BOLD);
		put(v, 0, x, n, b, false, false);
		if (i == (int)v->tab)
			style_off(v, 0, A_REVERSE | A_BOLD);
		x += n + 1;
	}
}

static void draw_status(struct top_view *v, struct top_src *src)
{
	const struct top_agg *a = src->agg;
	char b[512], t[256], sz[32];
	struct capture_counts cc = { 0 };
	uint64_t el = a->t0 && src->now > a->t0 ? src->now - a->t0 : 0;
	int n = 0, room;

	if (src->watch)
		capture_watch_counts(src->watch, &cc);
	if (src->log)
		n = snprintf(t, sizeof(t), " | at %.1f of %.1f s",
			     src->now > src->log_t0 ? (src->now - src->log_t0) / 1e9 : 0.0,
			     (src->log_t1 - src->log_t0) / 1e9);
	else
		n = snprintf(t, sizeof(t), " | %s %.1f s%s%s%s",
			     src->ended ? "ended after" : "running", el / 1e9,
			     src->end_note ? " (" : "", src->end_note ? src->end_note : "",
			     src->end_note ? ")" : "");
	n += snprintf(t + n, sizeof(t) - n, " | %llu calls | drops %llu%s",
		      (unsigned long long)a->syscalls, (unsigned long long)(a->drops + cc.drops),
		      v->paused ? " | paused" : "");
	if (cc.log_path)
		snprintf(t + n, sizeof(t) - n, " | log %s %s", cc.log_path,
			 fmt_bytes(cc.log_bytes, sz, sizeof(sz)));
	/* the figures stay whole on a narrow terminal: the title gives way */
	room = COLS - (int)strlen(t);
	if (room < 12)
		room = 12;
	if ((int)strlen(src->title) > room)
		snprintf(b, sizeof(b), "%.*s~%s", room - 1, src->title, t);
	else
		snprintf(b, sizeof(b), "%s%s", src->title, t);
	style_on(v, 1, 0);
	put(v, 1, 0, COLS, b, false, false);
	style_off(v, 1, 0);
}

static const char *tab_keys(const struct top_view *v, const struct top_src *src)
{
	switch (v->tab) {
	case TAB_SYSCALLS: case TAB_PROCS:
		return "s sort  Enter detail  e csv";
	case TAB_FILES:
		return "s sort  d by dir  Enter detail  e csv";
	case TAB_LATENCY:
		return "Up/Down class or syscall";
	case TAB_FLAME:
		return "arrows move  Enter zoom  Bksp out  o order  w weight  / search";
	case TAB_EVENTS:
		return "f filter  F pop  e csv  Up/Down scroll";
	case TAB_PROBES:
		return src->watch ? "Space switch  a all on" : "";
	default:
		return "";
	}
}

static void draw_footer(struct top_view *v, struct top_src *src)
{
	char b[512];
	int y = LINES - 1;

	move(y, 0);
	clrtoeol();
	if (v->prompt) {
		snprintf(b, sizeof(b), "%s %s_", v->prompt == 'f' ?
			 "filter (comm= pid= tid= sys= fd= ret= errno= path=GLOB path~RE lat> gap> err):" :
			 "search:", v->input);
		put(v, y, 0, COLS, b, false, false);
		return;
	}
	if (v->msg[0] && riot_now_ns(CLOCK_MONOTONIC) < v->msg_until) {
		style_on(v, 0, A_BOLD);
		put(v, y, 0, COLS, v->msg, false, false);
		style_off(v, 0, A_BOLD);
		return;
	}
	snprintf(b, sizeof(b), "q quit  1-8/Tab tabs  Space pause  r reset%s  %s",
		 src->log ? "  Left/Right time" : "", tab_keys(v, src));
	style_on(v, 0, A_DIM);
	put(v, y, 0, COLS, b, false, false);
	style_off(v, 0, A_DIM);
}

/* ---- overview ---- */

static void draw_overview(struct top_view *v, struct top_src *src)
{
	const struct top_agg *a = src->agg;
	uint64_t rs = rate_second(a, src->now);
	int y = 3, w_spark = COLS - 62;
	char b1[32], b2[32], b3[32], b4[32];

	style_on(v, 1, A_BOLD);
	putf(v, y, 0, COLS, "%-10s %9s %9s  %-*s %8s %8s %10s", "CLASS", "OPS/S", "BYTES/S",
	     w_spark > 0 ? w_spark : 0, w_spark > 0 ? "ops per second" : "", "P50", "P99",
	     "TOTAL");
	style_off(v, 1, A_BOLD);
	for (unsigned c = 0; c < TOP_NCLASS && y + 1 < LINES - 6; c++) {
		const struct top_row *r = &a->cls[c];

		y++;
		put(v, y, 0, 10, top_class_name(c), false, false);
		rcell(v, y, 10, 10, fmt_count(in_second(a, rs, c, false), 9, b1, sizeof(b1)));
		rcell(v, y, 20, 10, fmt_bytes(in_second(a, rs, c, true), b2, sizeof(b2)));
		if (w_spark > 0)
			sparkline(v, y, 32, w_spark, a, src->now, c);
		int x = 32 + (w_spark > 0 ? w_spark : 0);

		rcell(v, y, x, 9, fmt_ns(v, top_hist_q(&r->lat, 0.5), b3, sizeof(b3)));
		rcell(v, y, x + 9, 9, fmt_ns(v, top_hist_q(&r->lat, 0.99), b4, sizeof(b4)));
		rcell(v, y, x + 18, 11, fmt_count(r->count, 10, b1, sizeof(b1)));
	}
	y += 2;
	uint64_t all = a->think_ns + a->busy_ns;

	if (src->gap_name) {
		struct top_hist d = { 0 };

		for (unsigned c = 0; c < TOP_NCLASS; c++)
			top_hist_merge(&d, &a->cls[c].gap);
		if (d.n)
			putf(v, y++, 0, COLS, "%s: p50 %s, p99 %s, max %s (%llu operations)",
			     src->gap_name, fmt_ns(v, top_hist_q(&d, 0.5), b1, sizeof(b1)),
			     fmt_ns(v, top_hist_q(&d, 0.99), b3, sizeof(b3)),
			     fmt_ns(v, d.max, b4, sizeof(b4)), (unsigned long long)d.n);
		else
			putf(v, y++, 0, COLS, "%s: none (not paced)", src->gap_name);
	} else if (all) {
		double think = (double)a->think_ns / all;

		putf(v, y++, 0, COLS, "think time: %.0f %% of the traced threads' time was "
		     "between calls: %s", think * 100,
		     think > 0.5 ? "think-bound (faster storage changes little)" :
		     "I/O-bound (storage sets the pace)");
	}
	if (src->gap_name)
		putf(v, y++, 0, COLS, "operations: %llu; %llu missed by the view",
		     (unsigned long long)a->syscalls, (unsigned long long)src->lost);
	else
		putf(v, y++, 0, COLS, "calls: %llu syscalls, %llu process events; %llu drops",
		     (unsigned long long)a->syscalls, (unsigned long long)a->procs,
		     (unsigned long long)a->drops);
	if (a->m)
		putf(v, y++, 0, COLS, "paths: resolved (%llu files and %llu processes tracked)",
		     (unsigned long long)a->files.n, (unsigned long long)a->procs_hh.n);
	else if (!src->gap_name)
		putf(v, y++, 0, COLS, "paths: as recorded (the resolver stopped: %s)",
		     a->model_err ? strerror(a->model_err == -E2BIG ? E2BIG : -a->model_err) : "");
	putf(v, y++, 0, COLS, "memory of the view: %s (heavy hitters: %u files, %u processes, "
	     "%u stacks kept)", fmt_bytes(top_agg_bytes(a), b1, sizeof(b1)), a->files.cap,
	     a->procs_hh.cap, a->stacks.cap);
}

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

static void free_dirs(struct top_view *v)
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
			free_dirs(v);
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

	put(v, y, 0, lw, r->label, false, v->tab == TAB_FILES);
	fmt_count(r->k[COL_COUNT], 9, b[0], 32);
	fmt_count(r->k[COL_ERR], 7, b[1], 32);
	fmt_bytes(r->k[COL_BYTES], b[2], 32);
	fmt_ns(v, r->k[COL_TIME], b[3], 32);
	fmt_ns(v, r->k[COL_P50], b[4], 32);
	fmt_ns(v, r->k[COL_P99], b[5], 32);
	fmt_ns(v, r->k[COL_MAX], b[6], 32);
	if (r->k[COL_ERR])
		style_on(v, 3, 0);
	rcell(v, y, lw, 10, b[0]);
	rcell(v, y, lw + 10, 8, b[1]);
	if (r->k[COL_ERR])
		style_off(v, 3, 0);
	rcell(v, y, lw + 18, 10, b[2]);
	rcell(v, y, lw + 28, 10, b[3]);
	rcell(v, y, lw + 38, 9, b[4]);
	rcell(v, y, lw + 47, 9, b[5]);
	rcell(v, y, lw + 56, 9, b[6]);
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
	style_on(v, 1, A_BOLD);
	put(v, y, 0, lw, what, false, false);
	put(v, y, lw, COLS - lw, b, false, false);
	style_off(v, 1, A_BOLD);
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

	style_on(v, 1, A_BOLD);
	put(v, y, x, w, title, false, false);
	style_off(v, 1, A_BOLD);
	top_hist_log2(hist, l2);
	for (int k = 0; k < 64; k++)
		if (l2[k]) {
			lo = k < lo ? k : lo;
			hi = k;
			max = l2[k] > max ? l2[k] : max;
		}
	if (!max) {
		put(v, y + 1, x, w, "(none)", false, false);
		return;
	}
	for (row = 0; lo <= hi && row < h - 1; lo++, row++) {
		put(v, y + 1 + row, x, 8, fmt_ns(v, lo ? 1ull << lo : 0, b, sizeof(b)), true, false);
		rcell(v, y + 1 + row, x + 8, 10, fmt_count(l2[lo], 9, c, sizeof(c)));
		bar(v, y + 1 + row, x + 20, w - 21, (double)l2[lo] / max);
	}
}

static void draw_detail(struct top_view *v, struct top_src *src, const struct vrow *r)
{
	const struct top_agg *a = src->agg;
	static struct part parts[TOP_STACKS];
	uint32_t np = 0;
	int half = COLS / 2, y = 3, h = LINES - 5;
	char b[32];

	style_on(v, 0, A_BOLD);
	putf(v, y, 0, COLS, "%s: %llu calls, %llu errors, %s, %s in calls%s", r->label,
	     (unsigned long long)r->r->count, (unsigned long long)r->r->errors,
	     fmt_bytes(r->r->bytes, b, sizeof(b)), fmt_ns(v, r->r->time_ns, b + 16, 16),
	     r->r->over ? " (counts may include a replaced row's)" : "");
	style_off(v, 0, A_BOLD);
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
	style_on(v, 1, A_BOLD);
	putf(v, y++, 0, COLS, "%-*s %9s %9s", COLS - 21,
	     v->tab == TAB_FILES && !v->by_dir ? "processes" : "paths", "COUNT", "TIME");
	style_off(v, 1, A_BOLD);
	for (uint32_t k = 0; k < np && y < LINES - 1; k++, y++) {
		char c[32];

		put(v, y, 0, COLS - 21, parts[k].label[0] ? parts[k].label : "(no path)", false, true);
		putf(v, y, COLS - 21, 21, " %9s %9s", fmt_count(parts[k].count, 9, c, sizeof(c)),
		     fmt_ns(v, parts[k].time, b, sizeof(b)));
	}
}

static void draw_table(struct top_view *v, struct top_src *src)
{
	int lw = COLS - NUM_W, y = 3, h = LINES - 5;
	int *sel = &v->sel[v->tab], *first = &v->first[v->tab];

	if (lw < 10)
		lw = 10;
	if (build_rows(v, src->agg)) {
		message(v, "out of memory");
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
			style_on(v, 0, A_REVERSE);
		table_line(v, y, &v->rows[i], lw);
		if (i == *sel)
			style_off(v, 0, A_REVERSE);
	}
	if (!v->nrows)
		put(v, y + 1, 0, COLS, "(nothing yet)", false, false);
	else if (v->tab == TAB_FILES && src->agg->files.evicted)
		message(v, "files: the %u counted most are kept (%llu replaced)",
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

static bool ev_match(const struct top_view *v, const struct top_agg *a,
		     const struct top_event *e);

static void write_csv(struct top_view *v, struct top_src *src)
{
	char name[128], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	FILE *f;
	uint32_t n = 0;

	/* the rows of this tab, as they are now: a key can come between the
	 * switch to a tab and its first drawing */
	if (v->tab != TAB_EVENTS && build_rows(v, src->agg)) {
		message(v, "no memory for the table");
		return;
	}
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(name, sizeof(name), "riot-top-%s-%s.csv", tab_names[v->tab], stamp);
	f = fopen(name, "wxe");
	if (!f) {
		message(v, "cannot write %s: %s", name, strerror(errno));
		return;
	}
	if (v->tab == TAB_EVENTS) {
		fprintf(f, "t_ns,comm,pid,tid,syscall,fd,ret,dur_ns,gap_ns,path\n");
		for (uint64_t i = 0; top_agg_event(src->agg, i); i++) {
			const struct top_event *e = top_agg_event(src->agg, i);

			if (!ev_match(v, src->agg, e))
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
		message(v, "writing %s: %s", name, strerror(errno));
	else
		message(v, "wrote %u rows to %s", n, name);
}

/* ---- latency and gaps ---- */

static void draw_latency(struct top_view *v, struct top_src *src)
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
		put(v, y, 0, COLS, "(nothing yet)", false, false);
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
			style_on(v, 0, A_REVERSE);
		putf(v, y, 0, lw - 1, "%s%s", i < (int)TOP_NCLASS && pick[i] >= a->cls &&
		     pick[i] < a->cls + TOP_NCLASS ? "" : "  ", names[i]);
		if (i == *sel)
			style_off(v, 0, A_REVERSE);
	}
	draw_hist(v, 3, lw, hw - 1, LINES - 5, "duration (log2)", &pick[*sel]->lat);
	snprintf(gl, sizeof(gl), "%s (log2)", src->gap_name ? src->gap_name : "think time before");
	draw_hist(v, 3, lw + hw, COLS - lw - hw, LINES - 5, gl, &pick[*sel]->gap);
}

/* ---- flame ---- */

static uint32_t fnode_new(struct top_view *v, uint32_t parent, const char *label, size_t len)
{
	struct fnode *n;

	if (v->nnodes == v->cap) {
		uint32_t cap = v->cap ? v->cap * 2 : 1024;
		struct fnode *p = realloc(v->nodes, cap * sizeof(*p));

		if (!p)
			return 0;
		v->nodes = p;
		v->cap = cap;
	}
	n = &v->nodes[v->nnodes];
	memset(n, 0, sizeof(*n));
	if (len >= sizeof(n->label))
		len = sizeof(n->label) - 1;
	memcpy(n->label, label, len);
	n->parent = parent;
	n->depth = v->nodes[parent].depth + 1;
	n->next = v->nodes[parent].child;
	v->nodes[parent].child = v->nnodes;
	return v->nnodes++;
}

static uint32_t fnode_child(struct top_view *v, uint32_t parent, const char *label, size_t len)
{
	size_t l = len < 47 ? len : 47;

	for (uint32_t c = v->nodes[parent].child; c; c = v->nodes[c].next)
		if (strlen(v->nodes[c].label) == l && strncmp(v->nodes[c].label, label, l) == 0)
			return c;
	return fnode_new(v, parent, label, len);
}

static uint32_t add_path(struct top_view *v, uint32_t at, const char *p, uint64_t w)
{
	if (!p[0])
		return (at = fnode_child(v, at, "(no path)", 9)) ? (v->nodes[at].w += w, at) : 0;
	while (*p) {
		const char *e;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchr(p, '/');
		if (!e)
			e = p + strlen(p);
		if (!(at = fnode_child(v, at, p, (size_t)(e - p))))
			return 0;
		v->nodes[at].w += w;
		p = e;
	}
	return at;
}

static void build_flame(struct top_view *v, const struct top_agg *a)
{
	v->nnodes = 0;
	if (!v->cap) {
		v->nodes = calloc(1024, sizeof(*v->nodes));
		if (!v->nodes)
			return;
		v->cap = 1024;
	}
	memset(&v->nodes[0], 0, sizeof(v->nodes[0]));
	snprintf(v->nodes[0].label, sizeof(v->nodes[0].label), "all");
	v->nnodes = 1;
	for (uint32_t i = 0; i < a->stacks.n; i++) {
		const struct top_row *s = &a->stacks.rows[i];
		uint64_t w = v->weight == WEIGHT_TIME ? s->time_ns : v->weight == WEIGHT_COUNT ?
			     s->count : s->bytes;
		const char *sys = riot_sys_info(s->key & 0xffff) ?
				  riot_sys_info(s->key & 0xffff)->name : "?";
		const char *comm = s->comm[0] ? s->comm : "?";
		uint32_t at = 0;

		if (!w)
			continue;
		v->nodes[0].w += w;
		if (v->order == ORDER_PATH) {
			at = add_path(v, at, s->text ? s->text : "", w);
			if (at && (at = fnode_child(v, at, sys, strlen(sys))))
				v->nodes[at].w += w;
			if (at && (at = fnode_child(v, at, comm, strlen(comm))))
				v->nodes[at].w += w;
			continue;
		}
		const char *f1 = v->order == ORDER_COMM ? comm : sys;
		const char *f2 = v->order == ORDER_COMM ? sys : comm;

		if ((at = fnode_child(v, at, f1, strlen(f1))))
			v->nodes[at].w += w;
		if (at && (at = fnode_child(v, at, f2, strlen(f2))))
			v->nodes[at].w += w;
		if (at)
			add_path(v, at, s->text ? s->text : "", w);
	}
}

/* A node's frames from the root, ';'-separated, into b. */
static void node_path(const struct top_view *v, uint32_t n, char *b, size_t len)
{
	uint32_t chain[256];
	int k = 0;
	size_t o = 0;

	for (; n && k < 256; n = v->nodes[n].parent)
		chain[k++] = n;
	b[0] = 0;
	while (k-- > 0 && o < len)
		o += snprintf(b + o, len - o, "%s%s", o ? ";" : "", v->nodes[chain[k]].label);
}

static uint32_t node_find(const struct top_view *v, const char *path)
{
	uint32_t at = 0;

	while (*path) {
		const char *e = strchr(path, ';');
		size_t l = e ? (size_t)(e - path) : strlen(path);
		uint32_t c;

		for (c = v->nodes[at].child; c; c = v->nodes[c].next)
			if (strlen(v->nodes[c].label) == l && strncmp(v->nodes[c].label, path, l) == 0)
				break;
		if (!c)
			return at;
		at = c;
		path += l + (e ? 1 : 0);
	}
	return at;
}

static uint64_t matched;

static void draw_frames(struct top_view *v, uint32_t n, int x, int w, int y, uint32_t sel,
			int ymax)
{
	const struct fnode *f = &v->nodes[n];
	bool hit = v->search[0] && strstr(f->label, v->search);
	int cx = x;
	uint64_t acc = 0;

	if (y >= ymax || w < 1)
		return;
	if (hit) {
		bool counted = false;

		for (uint32_t p = f->parent; p; p = v->nodes[p].parent)
			counted |= v->search[0] && strstr(v->nodes[p].label, v->search);
		if (!counted)
			matched += f->w;
	}
	style_on(v, n == sel ? 0 : hit ? 6 : 5, n == sel ? A_REVERSE | A_BOLD : 0);
	if (!v->t->colour && n != sel && hit)
		attron(A_UNDERLINE);
	{
		char lab[64];

		snprintf(lab, sizeof(lab), "%s", w > 2 ? " " : "");
		if (w > 2)
			snprintf(lab + 1, sizeof(lab) - 1, "%s", f->label);
		put(v, y, x, w, lab, false, false);
		if (w > 1)
			mvaddch(y, x + w - 1, v->t->colour ? ' ' : '|');
	}
	if (!v->t->colour && n != sel && hit)
		attroff(A_UNDERLINE);
	style_off(v, n == sel ? 0 : hit ? 6 : 5, n == sel ? A_REVERSE | A_BOLD : 0);
	for (uint32_t c = f->child; c; c = v->nodes[c].next) {
		int cw;

		acc += v->nodes[c].w;
		cw = (int)((double)acc / f->w * w) - (cx - x);
		draw_frames(v, c, cx, cw, y + 1, sel, ymax);
		cx += cw;
	}
}

static void draw_flame(struct top_view *v, struct top_src *src)
{
	uint32_t zoom, sel;
	char b[600], wb[32];

	if (!v->paused || !v->nnodes)
		build_flame(v, src->agg);
	if (!v->nnodes)
		return;
	zoom = node_find(v, v->zoom_path);
	sel = node_find(v, v->sel_path);
	node_path(v, zoom, v->zoom_path, sizeof(v->zoom_path));
	node_path(v, sel, v->sel_path, sizeof(v->sel_path));
	matched = 0;
	putf(v, 3, 0, COLS, "stacks %s, weighted by %s%s%s", order_names[v->order],
	     weight_names[v->weight], v->search[0] ? "; search: " : "", v->search);
	if (!v->nodes[0].w) {
		put(v, 4, 0, COLS, "(nothing yet)", false, false);
		return;
	}
	draw_frames(v, zoom, 0, COLS, 4, sel, LINES - 2);
	{
		uint64_t w = v->nodes[sel].w;
		const char *unit = v->weight == WEIGHT_TIME ? fmt_ns(v, w, wb, sizeof(wb)) :
				   v->weight == WEIGHT_BYTES ? fmt_bytes(w, wb, sizeof(wb)) :
				   (snprintf(wb, sizeof(wb), "%llu", (unsigned long long)w), wb);

		snprintf(b, sizeof(b), "%s: %s, %.1f %%%s", v->sel_path[0] ? v->sel_path : "all",
			 unit, 100.0 * w / v->nodes[0].w, "");
		if (v->search[0]) {
			size_t o = strlen(b);

			snprintf(b + o, sizeof(b) - o, "; '%s' matches %.1f %%", v->search,
				 100.0 * matched / v->nodes[0].w);
		}
		style_on(v, 0, A_BOLD);
		put(v, LINES - 2, 0, COLS, b, false, false);
		style_off(v, 0, A_BOLD);
	}
}

static void flame_key(struct top_view *v, int k)
{
	uint32_t sel = node_find(v, v->sel_path), zoom = node_find(v, v->zoom_path), c, best = 0;

	switch (k) {
	case KEY_UP:
		if (sel && sel != zoom)
			sel = v->nodes[sel].parent;
		break;
	case KEY_DOWN:
		for (c = v->nodes[sel].child; c; c = v->nodes[c].next)
			if (!best || v->nodes[c].w > v->nodes[best].w)
				best = c;
		if (best)
			sel = best;
		break;
	case KEY_LEFT:
	case KEY_RIGHT:
		if (!sel)
			break;
		/* siblings are kept newest first: left is the later one */
		for (c = v->nodes[v->nodes[sel].parent].child; c; c = v->nodes[c].next) {
			if (k == KEY_RIGHT && v->nodes[c].next == sel) {
				best = c;
				break;
			}
			if (k == KEY_LEFT && c == sel) {
				best = v->nodes[c].next;
				break;
			}
		}
		if (best)
			sel = best;
		break;
	case '\r':
	case '\n':
	case KEY_ENTER:
		zoom = sel;
		break;
	case KEY_BACKSPACE:
	case 127:
	case 27:
		zoom = zoom ? v->nodes[zoom].parent : 0;
		break;
	case 'o':
		v->order = (v->order + 1) % ORDER_N;
		v->sel_path[0] = v->zoom_path[0] = 0;
		v->nnodes = 0;
		return;
	case 'w':
		v->weight = (v->weight + 1) % WEIGHT_N;
		v->nnodes = 0;
		return;
	default:
		return;
	}
	node_path(v, sel, v->sel_path, sizeof(v->sel_path));
	node_path(v, zoom, v->zoom_path, sizeof(v->zoom_path));
}

/* ---- events ---- */

static int64_t parse_dur(const char *s, bool *ok)
{
	char *end;
	double d = strtod(s, &end);

	*ok = end != s && d >= 0;
	if (!strcmp(end, "") || !strcmp(end, "ns"))
		return (int64_t)d;
	if (!strcmp(end, "us"))
		return (int64_t)(d * 1e3);
	if (!strcmp(end, "ms"))
		return (int64_t)(d * 1e6);
	if (!strcmp(end, "s"))
		return (int64_t)(d * 1e9);
	*ok = false;
	return 0;
}

static int errno_by_name(const char *s)
{
	for (int e = 1; e < 134; e++) {
		const char *n = strerrorname_np(e);

		if (n && strcmp(n, s) == 0)
			return e;
	}
	return 0;
}

/* One filter from text ("comm=tar", "lat>1ms", ...): 0 or a message. */
static const char *filter_parse(struct filter *f, const char *text)
{
	static const struct { const char *p; enum filter_kind k; } kinds[] = {
		{ "comm=", F_COMM }, { "pid=", F_PID }, { "tid=", F_TID }, { "sys=", F_SYS },
		{ "fd=", F_FD }, { "ret=", F_RET }, { "errno=", F_RET }, { "path=", F_GLOB },
		{ "path~", F_REGEX }, { "lat>", F_LAT }, { "gap>", F_GAP },
	};
	bool ok = true;
	char *end;

	memset(f, 0, sizeof(*f));
	snprintf(f->text, sizeof(f->text), "%s", text);
	if (!strcmp(text, "err")) {
		f->kind = F_ERR;
		return NULL;
	}
	for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i].p);

		if (strncmp(text, kinds[i].p, n))
			continue;
		f->kind = kinds[i].k;
		snprintf(f->arg, sizeof(f->arg), "%s", text + n);
		if (!f->arg[0])
			return "a filter needs a value";
		switch (f->kind) {
		case F_PID: case F_TID: case F_FD:
			f->num = strtoll(f->arg, &end, 10);
			return *end ? "not a number" : NULL;
		case F_RET:
			if (!strncmp(text, "errno=", 6)) {
				int e = errno_by_name(f->arg);

				f->num = -(int64_t)(e ? e : strtol(f->arg, &end, 10));
				return e || (!*end && f->num < 0) ? NULL : "not an errno (ENOENT, 2)";
			}
			f->num = strtoll(f->arg, &end, 10);
			return *end ? "not a number" : NULL;
		case F_SYS:
			return riot_sys_by_name(f->arg) < 0 ? "no such syscall" : NULL;
		case F_REGEX:
			return regcomp(&f->re, f->arg, REG_EXTENDED | REG_NOSUB) ? "bad regex" : NULL;
		case F_LAT: case F_GAP:
			f->num = parse_dur(f->arg, &ok);
			return ok ? NULL : "a duration: 10us, 1ms, 2s";
		default:
			return NULL;
		}
	}
	return "unknown filter";
}

static bool filter_match(const struct filter *f, const struct top_event *e)
{
	switch (f->kind) {
	case F_COMM: return strcmp(e->comm, f->arg) == 0;
	case F_PID: return e->pid == (uint64_t)f->num;
	case F_TID: return e->tid == (uint64_t)f->num;
	case F_SYS: return riot_sys_info(e->sys) && !strcmp(riot_sys_info(e->sys)->name, f->arg);
	case F_FD: return e->fd == f->num;
	case F_RET: return e->ret == f->num;
	case F_GLOB: return fnmatch(f->arg, e->path, 0) == 0;
	case F_REGEX: return regexec(&f->re, e->path, 0, NULL, 0) == 0;
	case F_LAT: return e->dur >= (uint64_t)f->num;
	case F_GAP: return e->gap != UINT64_MAX && e->gap >= (uint64_t)f->num;
	case F_ERR: return e->ret < 0;
	}
	return false;
}

static bool ev_match(const struct top_view *v, const struct top_agg *a,
		     const struct top_event *e)
{
	(void)a;
	for (int i = 0; i < v->nfilters; i++)
		if (!filter_match(&v->filters[i], e))
			return false;
	return true;
}

static void draw_events(struct top_view *v, struct top_src *src)
{
	const struct top_agg *a = src->agg;
	uint64_t skip = v->paused && a->ev_total > v->ev_frozen ? a->ev_total - v->ev_frozen : 0;
	int y = 3, scroll = v->sel[TAB_EVENTS], shown = 0;
	char fl[400] = "";
	size_t o = 0;

	for (int i = 0; i < v->nfilters && o < sizeof(fl); i++)
		o += snprintf(fl + o, sizeof(fl) - o, "%s%s", i ? " > " : "", v->filters[i].text);
	putf(v, y++, 0, COLS, "filters: %s", v->nfilters ? fl : "(none)");
	style_on(v, 1, A_BOLD);
	putf(v, y++, 0, COLS, "%8s %-10s %7s %-11s %3s %7s %7s %7s %s", "TIME", "COMM", "TID",
	     "SYSCALL", "FD", "RESULT", "DUR", src->gap_name ? "DELAY" : "GAP", "PATH");
	style_off(v, 1, A_BOLD);
	for (uint64_t i = skip; y < LINES - 1; i++) {
		const struct top_event *e = top_agg_event(a, i);
		char r[32], d[32], g[32], fd[16];
		int x;

		if (!e)
			break;
		if (!ev_match(v, a, e))
			continue;
		if (shown++ < scroll)
			continue;
		if (e->ret < 0 && strerrorname_np((int)-e->ret))
			snprintf(r, sizeof(r), "%s", strerrorname_np((int)-e->ret));
		else
			snprintf(r, sizeof(r), "%lld", (long long)e->ret);
		snprintf(fd, sizeof(fd), e->fd >= 0 ? "%d" : "", e->fd);
		if (e->ret < 0)
			style_on(v, 3, 0);
		putf(v, y, 0, COLS, "%8.3f %-10.10s %7u %-11.11s %3s %7.7s ",
		     e->t > a->t0 ? (e->t - a->t0) / 1e9 : 0.0, e->comm, e->tid,
		     riot_sys_info(e->sys) ? riot_sys_info(e->sys)->name : "?", fd, r);
		rcell(v, y, 51, 8, fmt_ns(v, e->dur, d, sizeof(d)));
		rcell(v, y, 59, 8, e->gap == UINT64_MAX ? "-" : fmt_ns(v, e->gap, g, sizeof(g)));
		put(v, y, 67, 1, " ", false, false);
		x = 68;
		put(v, y, x, COLS - x, e->path, false, true);
		if (e->ret < 0)
			style_off(v, 3, 0);
		y++;
	}
	if (!shown)
		put(v, y, 0, COLS, a->ev_total ? "(no event matches)" : "(nothing yet)", false, false);
}

static void filter_pop(struct top_view *v)
{
	if (!v->nfilters)
		return;
	v->nfilters--;
	if (v->filters[v->nfilters].kind == F_REGEX)
		regfree(&v->filters[v->nfilters].re);
}

/* ---- probes ---- */

/* The rows: a class, then its syscalls. Row i as (class, sys or -1). */
static int probe_rows(int *cls, int *sys, int max)
{
	int n = 0;

	for (unsigned c = 1; c < RIOT_CLASS_COUNT && n < max; c++) {
		cls[n] = (int)c;
		sys[n++] = -1;
		for (unsigned s = 0; s < RIOT_SYS_COUNT && n < max; s++)
			if (riot_sys_info(s)->cls == c) {
				cls[n] = (int)c;
				sys[n++] = (int)s;
			}
	}
	return n;
}

static bool sys_is_on(const struct top_view *v, unsigned s)
{
	return v->sys_on[s / 64] >> (s % 64) & 1;
}

static void probes_init(struct top_view *v, struct top_src *src)
{
	if (v->probes_known || !src->watch)
		return;
	for (unsigned s = 0; s < RIOT_SYS_COUNT; s++)
		if (capture_watch_loaded(src->watch, s))
			v->sys_on[s / 64] |= 1ull << (s % 64);
	v->probes_known = true;
}

static void draw_probes(struct top_view *v, struct top_src *src)
{
	static int cls[RIOT_SYS_COUNT + RIOT_CLASS_COUNT], sys[RIOT_SYS_COUNT + RIOT_CLASS_COUNT];
	int n = probe_rows(cls, sys, RIOT_SYS_COUNT + RIOT_CLASS_COUNT), y = 3;
	int *sel = &v->sel[TAB_PROBES], *first = &v->first[TAB_PROBES];

	if (!src->watch) {
		put(v, y, 0, COLS, "probes: switched on and off in the kernel while a capture runs; "
		    "a log is as it was recorded", false, false);
		return;
	}
	probes_init(v, src);
	if (*sel >= n)
		*sel = n - 1;
	if (*sel < *first)
		*first = *sel;
	if (*sel >= *first + LINES - 5)
		*first = *sel - (LINES - 6);
	for (int i = *first; i < n && y < LINES - 1; i++, y++) {
		char b[128], c[32];

		if (sys[i] < 0) {
			int on = 0, all = 0;

			for (unsigned s = 0; s < RIOT_SYS_COUNT; s++)
				if (riot_sys_info(s)->cls == (unsigned)cls[i]) {
					all += capture_watch_loaded(src->watch, s);
					on += sys_is_on(v, s) && capture_watch_loaded(src->watch, s);
				}
			snprintf(b, sizeof(b), "[%c] %s", !all ? '-' : on == all ? 'x' : on ? '~' : ' ',
				 riot_class_name(cls[i]));
		} else {
			bool loaded = capture_watch_loaded(src->watch, sys[i]);

			snprintf(b, sizeof(b), "    [%c] %-20s %s", !loaded ? '-' :
				 sys_is_on(v, sys[i]) ? 'x' : ' ', riot_sys_info(sys[i])->name,
				 fmt_count(src->agg->sys[sys[i]].count, 12, c, sizeof(c)));
		}
		if (i == *sel)
			style_on(v, 0, A_REVERSE);
		put(v, y, 0, COLS, b, false, false);
		if (i == *sel)
			style_off(v, 0, A_REVERSE);
	}
}

static void probe_key(struct top_view *v, struct top_src *src, int k)
{
	static int cls[RIOT_SYS_COUNT + RIOT_CLASS_COUNT], sys[RIOT_SYS_COUNT + RIOT_CLASS_COUNT];
	int n = probe_rows(cls, sys, RIOT_SYS_COUNT + RIOT_CLASS_COUNT), i = v->sel[TAB_PROBES];
	int err;

	if (!src->watch || i >= n)
		return;
	probes_init(v, src);
	if (k == 'a') {
		for (unsigned s = 0; s < RIOT_SYS_COUNT; s++)
			v->sys_on[s / 64] |= 1ull << (s % 64);
	} else if (sys[i] >= 0) {
		v->sys_on[sys[i] / 64] ^= 1ull << (sys[i] % 64);
	} else {
		bool any_on = false;

		for (unsigned s = 0; s < RIOT_SYS_COUNT; s++)
			if (riot_sys_info(s)->cls == (unsigned)cls[i] && sys_is_on(v, s))
				any_on = true;
		for (unsigned s = 0; s < RIOT_SYS_COUNT; s++) {
			if (riot_sys_info(s)->cls != (unsigned)cls[i])
				continue;
			if (any_on)
				v->sys_on[s / 64] &= ~(1ull << (s % 64));
			else
				v->sys_on[s / 64] |= 1ull << (s % 64);
		}
	}
	err = capture_watch_set_ops(src->watch, v->sys_on);
	if (err)
		message(v, "cannot switch probes: %s", strerror(-err));
}

/* ---- keys ---- */

static void prompt_key(struct top_view *v, int k)
{
	size_t n = strlen(v->input);

	if (k == 27) {
		v->prompt = 0;
	} else if (k == '\r' || k == '\n' || k == KEY_ENTER) {
		if (v->prompt == '/') {
			snprintf(v->search, sizeof(v->search), "%s", v->input);
		} else if (v->input[0] && v->nfilters < MAX_FILTERS) {
			const char *bad = filter_parse(&v->filters[v->nfilters], v->input);

			if (bad)
				message(v, "filter '%s': %s", v->input, bad);
			else
				v->nfilters++;
		} else if (v->input[0]) {
			message(v, "at most %d filters: F pops one", MAX_FILTERS);
		}
		v->prompt = 0;
	} else if ((k == KEY_BACKSPACE || k == 127 || k == 8) && n) {
		v->input[n - 1] = 0;
	} else if (k >= 0x20 && k < 0x7f && n + 1 < sizeof(v->input)) {
		v->input[n] = (char)k;
		v->input[n + 1] = 0;
	}
}

static void move_sel(struct top_view *v, int d)
{
	v->sel[v->tab] += d;
	if (v->sel[v->tab] < 0)
		v->sel[v->tab] = 0;
}

/* Returns the action; *redraw when the view changed. */
static enum top_action key(struct top_view *v, struct top_src *src, int k)
{
	int page = LINES - 6 > 1 ? LINES - 6 : 1;

	if (v->prompt) {
		prompt_key(v, k);
		return TOP_NONE;
	}
	if (k >= '1' && k < '1' + TAB_N) {
		v->tab = (enum tab)(k - '1');
		v->detail = false;
		return TOP_NONE;
	}
	if (v->tab == TAB_FLAME && k != 'q' && k != '\t' && k != ' ' && k != 'r' && k != '/' &&
	    (src->log ? k != '[' && k != ']' && k != '<' && k != '>' : true)) {
		flame_key(v, k);
		return TOP_NONE;
	}
	switch (k) {
	case 'q':
	case 'Q':
		return TOP_QUIT;
	case '\t':
		v->tab = (enum tab)((v->tab + 1) % TAB_N);
		v->detail = false;
		break;
	case KEY_BTAB:
		v->tab = (enum tab)((v->tab + TAB_N - 1) % TAB_N);
		v->detail = false;
		break;
	case ' ':
		if (v->tab == TAB_PROBES) {
			probe_key(v, src, k);
			break;
		}
		v->paused = !v->paused;
		v->ev_frozen = src->agg->ev_total;
		break;
	case 'r':
		top_agg_reset(src->agg);
		v->nnodes = 0;
		message(v, "counts reset");
		break;
	case 'a':
		if (v->tab == TAB_PROBES)
			probe_key(v, src, k);
		break;
	case 's':
		v->sort[v->tab] = (v->sort[v->tab] + 1) % COL_N;
		break;
	case 'd':
		if (v->tab == TAB_FILES) {
			v->by_dir = !v->by_dir;
			v->sel[v->tab] = 0;
		}
		break;
	case 'e':
		if (v->tab == TAB_SYSCALLS || v->tab == TAB_FILES || v->tab == TAB_PROCS ||
		    v->tab == TAB_EVENTS)
			write_csv(v, src);
		break;
	case 'f':
		if (v->tab == TAB_EVENTS) {
			v->prompt = 'f';
			v->input[0] = 0;
		}
		break;
	case 'F':
		if (v->tab == TAB_EVENTS)
			filter_pop(v);
		break;
	case '/':
		v->tab = TAB_FLAME;
		v->prompt = '/';
		v->input[0] = 0;
		break;
	case '\r':
	case '\n':
	case KEY_ENTER:
		if (v->tab == TAB_SYSCALLS || v->tab == TAB_FILES || v->tab == TAB_PROCS)
			v->detail = true;
		break;
	case 27:
	case KEY_BACKSPACE:
	case 127:
		v->detail = false;
		break;
	case KEY_UP: case 'k': move_sel(v, -1); break;
	case KEY_DOWN: case 'j': move_sel(v, 1); break;
	case KEY_PPAGE: move_sel(v, -page); break;
	case KEY_NPAGE: move_sel(v, page); break;
	case KEY_HOME: v->sel[v->tab] = 0; break;
	case KEY_LEFT: case KEY_RIGHT: case '[': case ']': case '<': case '>': case KEY_END: {
		uint64_t span = src->log_t1 - src->log_t0, step = span / 20 ? span / 20 : 1;

		if (!src->log)
			break;
		if (k == '[' || k == ']')
			step = 1000000000ull;
		if (k == KEY_LEFT || k == '[' || k == '<')
			src->seek = src->now - src->log_t0 > step ? src->now - step : src->log_t0;
		else
			src->seek = src->now + step < src->log_t1 ? src->now + step : src->log_t1;
		if (k == '<')
			src->seek = src->log_t0;
		if (k == '>' || k == KEY_END)
			src->seek = src->log_t1;
		return TOP_SEEK;
	}
	default:
		break;
	}
	return TOP_NONE;
}

/* ---- the step ---- */

static void draw(struct top_view *v, struct top_src *src)
{
	erase();
	if (LINES < 10 || COLS < 40) {
		put(v, 0, 0, COLS, "riot top: the terminal is too small (40x10 at least)", false,
		    false);
		refresh();
		return;
	}
	draw_tabs(v);
	draw_status(v, src);
	switch (v->tab) {
	case TAB_OVERVIEW: draw_overview(v, src); break;
	case TAB_SYSCALLS: case TAB_FILES: case TAB_PROCS: draw_table(v, src); break;
	case TAB_LATENCY: draw_latency(v, src); break;
	case TAB_FLAME: draw_flame(v, src); break;
	case TAB_EVENTS: draw_events(v, src); break;
	case TAB_PROBES: draw_probes(v, src); break;
	default: break;
	}
	draw_footer(v, src);
	refresh();
}

struct top_view *top_view_new(struct top_term *t)
{
	struct top_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->t = t;
	v->sort[TAB_SYSCALLS] = COL_TIME;
	v->sort[TAB_FILES] = COL_TIME;
	v->sort[TAB_PROCS] = COL_TIME;
	return v;
}

void top_view_free(struct top_view *v)
{
	if (!v)
		return;
	while (v->nfilters)
		filter_pop(v);
	free_dirs(v);
	free(v->rows);
	free(v->nodes);
	free(v);
}

enum top_action top_view_step(struct top_view *v, struct top_src *src, int timeout_ms)
{
	uint64_t now;
	int k;
	bool changed = false;

	timeout(timeout_ms);
	k = getch();
	while (k != ERR) {
		enum top_action act;

		if (k == KEY_RESIZE) {
			changed = true;
		} else {
			act = key(v, src, k);
			changed = true;
			if (act != TOP_NONE)
				return act;
		}
		timeout(0);
		k = getch();
	}
	now = riot_now_ns(CLOCK_MONOTONIC);
	if (changed || (!v->paused && now - v->last_draw >= REFRESH_NS) || !v->last_draw) {
		draw(v, src);
		v->last_draw = now;
	}
	return TOP_NONE;
}
