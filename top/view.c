/* top/view.c: riot top's tabs on ncurses (top_int.h): the frame (tabs,
 * status, footer), the overview, the keys and the step. Everything drawn
 * comes from the aggregate (agg.c); the view keeps only what the user
 * chose: the tab, sort, selection, zoom, filters, the probes' switches. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "lib/clock.h"

#include "top/view_int.h"

#define REFRESH_NS 250000000ull

const char *const view_tab_names[TAB_N] = {
	"overview", "syscalls", "files", "processes", "latency", "flame", "events", "probes",
};

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
	view_style_on(v, 2, 0);
	for (int i = w - 1; i >= 0; i--) {
		uint64_t s = last >= (uint64_t)i ? last - i : UINT64_MAX;
		uint64_t n = s == UINT64_MAX ? 0 : in_second(a, s, cls, false);
		unsigned lvl = max ? (unsigned)((n * 8 + max - 1) / max) : 0;

		if (v->t->utf8)
			addstr(blocks[lvl]);
		else
			addch(ascii[lvl]);
	}
	view_style_off(v, 2, 0);
}

/* ---- header and footer ---- */

static void draw_tabs(struct top_view *v)
{
	int x = 0;

	move(0, 0);
	clrtoeol();
	for (int i = 0; i < TAB_N && x < COLS; i++) {
		char b[32];
		int n = snprintf(b, sizeof(b), "%d %s", i + 1, view_tab_names[i]);

		if (i == (int)v->tab)
			view_style_on(v, 0, A_REVERSE | A_BOLD);
		view_put(v, 0, x, n, b, false, false);
		if (i == (int)v->tab)
			view_style_off(v, 0, A_REVERSE | A_BOLD);
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
	/* files, processes, flame and events from a sample: said */
	if (a->sampling && a->every > 1)
		n += snprintf(t + n, sizeof(t) - n, " | 1 in %u", a->every);
	if (cc.log_path)
		snprintf(t + n, sizeof(t) - n, " | log %s %s", cc.log_path,
			 view_fmt_bytes(cc.log_bytes, sz, sizeof(sz)));
	/* the figures stay whole on a narrow terminal: the title gives way */
	room = COLS - (int)strlen(t);
	if (room < 12)
		room = 12;
	if ((int)strlen(src->title) > room)
		snprintf(b, sizeof(b), "%.*s~%s", room - 1, src->title, t);
	else
		snprintf(b, sizeof(b), "%s%s", src->title, t);
	view_style_on(v, 1, 0);
	view_put(v, 1, 0, COLS, b, false, false);
	view_style_off(v, 1, 0);
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
		view_put(v, y, 0, COLS, b, false, false);
		return;
	}
	if (v->msg[0] && riot_now_ns(CLOCK_MONOTONIC) < v->msg_until) {
		view_style_on(v, 0, A_BOLD);
		view_put(v, y, 0, COLS, v->msg, false, false);
		view_style_off(v, 0, A_BOLD);
		return;
	}
	snprintf(b, sizeof(b), "q quit  1-8/Tab tabs  Space pause  r reset%s  %s",
		 src->log ? "  Left/Right time" : "", tab_keys(v, src));
	view_style_on(v, 0, A_DIM);
	view_put(v, y, 0, COLS, b, false, false);
	view_style_off(v, 0, A_DIM);
}

/* ---- overview ---- */

static void draw_overview(struct top_view *v, struct top_src *src)
{
	const struct top_agg *a = src->agg;
	uint64_t rs = rate_second(a, src->now);
	int y = 3, w_spark = COLS - 62;
	char b1[32], b2[32], b3[32], b4[32];

	view_style_on(v, 1, A_BOLD);
	view_putf(v, y, 0, COLS, "%-10s %9s %9s  %-*s %8s %8s %10s", "CLASS", "OPS/S", "BYTES/S",
	     w_spark > 0 ? w_spark : 0, w_spark > 0 ? "ops per second" : "", "P50", "P99",
	     "TOTAL");
	view_style_off(v, 1, A_BOLD);
	for (unsigned c = 0; c < TOP_NCLASS && y + 1 < LINES - 6; c++) {
		const struct top_row *r = &a->cls[c];

		y++;
		view_put(v, y, 0, 10, top_class_name(c), false, false);
		view_rcell(v, y, 10, 10, view_fmt_count(in_second(a, rs, c, false), 9, b1, sizeof(b1)));
		view_rcell(v, y, 20, 10, view_fmt_bytes(in_second(a, rs, c, true), b2, sizeof(b2)));
		if (w_spark > 0)
			sparkline(v, y, 32, w_spark, a, src->now, c);
		int x = 32 + (w_spark > 0 ? w_spark : 0);

		view_rcell(v, y, x, 9, view_fmt_ns(v, top_hist_q(&r->lat, 0.5), b3, sizeof(b3)));
		view_rcell(v, y, x + 9, 9, view_fmt_ns(v, top_hist_q(&r->lat, 0.99), b4, sizeof(b4)));
		view_rcell(v, y, x + 18, 11, view_fmt_count(r->count, 10, b1, sizeof(b1)));
	}
	y += 2;
	uint64_t all = a->think_ns + a->busy_ns;

	if (src->gap_name) {
		struct top_hist d = { 0 };

		for (unsigned c = 0; c < TOP_NCLASS; c++)
			top_hist_merge(&d, &a->cls[c].gap);
		if (d.n)
			view_putf(v, y++, 0, COLS, "%s: p50 %s, p99 %s, max %s (%llu operations)",
			     src->gap_name, view_fmt_ns(v, top_hist_q(&d, 0.5), b1, sizeof(b1)),
			     view_fmt_ns(v, top_hist_q(&d, 0.99), b3, sizeof(b3)),
			     view_fmt_ns(v, d.max, b4, sizeof(b4)), (unsigned long long)d.n);
		else
			view_putf(v, y++, 0, COLS, "%s: none (not paced)", src->gap_name);
	} else if (all) {
		double think = (double)a->think_ns / all;

		view_putf(v, y++, 0, COLS, "think time: %.0f %% of the traced threads' time was "
		     "between calls: %s", think * 100,
		     think > 0.5 ? "think-bound (faster storage changes little)" :
		     "I/O-bound (storage sets the pace)");
	}
	if (src->gap_name)
		view_putf(v, y++, 0, COLS, "operations: %llu; %llu missed by the view",
		     (unsigned long long)a->syscalls, (unsigned long long)src->lost);
	else
		view_putf(v, y++, 0, COLS, "calls: %llu syscalls, %llu process events; %llu drops",
		     (unsigned long long)a->syscalls, (unsigned long long)a->procs,
		     (unsigned long long)a->drops);
	if (a->m)
		view_putf(v, y++, 0, COLS, "paths: resolved (%llu files and %llu processes tracked)",
		     (unsigned long long)a->files.n, (unsigned long long)a->procs_hh.n);
	else if (!src->gap_name)
		view_putf(v, y++, 0, COLS, "paths: as recorded (the resolver stopped: %s)",
		     a->model_err ? strerror(a->model_err == -E2BIG ? E2BIG : -a->model_err) : "");
	view_putf(v, y++, 0, COLS, "memory of the view: %s (heavy hitters: %u files, %u processes, "
	     "%u stacks kept)", view_fmt_bytes(top_agg_bytes(a), b1, sizeof(b1)), a->files.cap,
	     a->procs_hh.cap, a->stacks.cap);
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
			const char *bad = view_filter_parse(&v->filters[v->nfilters], v->input);

			if (bad)
				view_message(v, "filter '%s': %s", v->input, bad);
			else
				v->nfilters++;
		} else if (v->input[0]) {
			view_message(v, "at most %d filters: F pops one", MAX_FILTERS);
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
		view_flame_key(v, k);
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
			view_probe_key(v, src, k);
			break;
		}
		v->paused = !v->paused;
		v->ev_frozen = src->agg->ev_total;
		break;
	case 'r':
		top_agg_reset(src->agg);
		v->nnodes = 0;
		view_message(v, "counts reset");
		break;
	case 'a':
		if (v->tab == TAB_PROBES)
			view_probe_key(v, src, k);
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
			view_write_csv(v, src);
		break;
	case 'f':
		if (v->tab == TAB_EVENTS) {
			v->prompt = 'f';
			v->input[0] = 0;
		}
		break;
	case 'F':
		if (v->tab == TAB_EVENTS)
			view_filter_pop(v);
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
	top_agg_settle(src->agg);
	erase();
	if (LINES < 10 || COLS < 40) {
		view_put(v, 0, 0, COLS, "riot top: the terminal is too small (40x10 at least)", false,
		    false);
		refresh();
		return;
	}
	draw_tabs(v);
	draw_status(v, src);
	switch (v->tab) {
	case TAB_OVERVIEW: draw_overview(v, src); break;
	case TAB_SYSCALLS: case TAB_FILES: case TAB_PROCS: view_draw_table(v, src); break;
	case TAB_LATENCY: view_draw_latency(v, src); break;
	case TAB_FLAME: view_draw_flame(v, src); break;
	case TAB_EVENTS: view_draw_events(v, src); break;
	case TAB_PROBES: view_draw_probes(v, src); break;
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
		view_filter_pop(v);
	view_free_dirs(v);
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
