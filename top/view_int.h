/* top/view_int.h: what the files of riot top's view share (view.c: the
 * frame, the overview, the keys; draw.c: drawing on the terminal;
 * tables.c: the tables, their details and CSV, the histograms; flame.c;
 * events.c: the stream and its filters; probes.c). Only they include it. */
#ifndef RIOT_TOP_VIEW_INT_H
#define RIOT_TOP_VIEW_INT_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <curses.h>

#include "top/top_int.h"

enum tab { TAB_OVERVIEW, TAB_SYSCALLS, TAB_FILES, TAB_PROCS, TAB_LATENCY, TAB_FLAME,
	   TAB_EVENTS, TAB_PROBES, TAB_N };

#define MAX_FILTERS 8

/* ---- the events tab's filters ---- */

enum filter_kind { F_COMM, F_PID, F_TID, F_SYS, F_FD, F_RET, F_GLOB, F_REGEX, F_LAT, F_GAP,
		   F_ERR };

struct filter {
	enum filter_kind kind;
	char text[96];		/* as typed */
	char arg[80];
	int64_t num;
	regex_t re;
};

/* ---- the flame tab's tree ---- */

struct fnode {
	char label[48];
	uint64_t w;
	uint32_t parent, child, next;	/* indices; 0: none (0 is the root) */
	uint16_t depth;
};

enum { ORDER_COMM, ORDER_SYS, ORDER_PATH, ORDER_N };
enum { WEIGHT_TIME, WEIGHT_COUNT, WEIGHT_BYTES, WEIGHT_N };

/* ---- the table tabs ---- */

enum { COL_COUNT, COL_ERR, COL_BYTES, COL_TIME, COL_P50, COL_P99, COL_MAX, COL_N };

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

/* view.c */
extern const char *const view_tab_names[TAB_N];

/* draw.c: s in w columns at (y, x), cut at its end or (tail) its start,
 * right-aligned when right; every byte not printable ASCII drawn '?' */
void view_put(struct top_view *v, int y, int x, int w, const char *s, bool right, bool tail);
void view_putf(struct top_view *v, int y, int x, int w, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* s right-aligned in the w columns before x + w, after a space */
void view_rcell(struct top_view *v, int y, int x, int w, const char *s);
void view_style_on(struct top_view *v, int pair, attr_t a);
void view_style_off(struct top_view *v, int pair, attr_t a);
const char *view_fmt_ns(const struct top_view *v, uint64_t ns, char *b, size_t len);
const char *view_fmt_bytes(uint64_t n, char *b, size_t len);
const char *view_fmt_count(uint64_t n, int w, char *b, size_t len);
/* a line shown in the footer for a few seconds */
void view_message(struct top_view *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void view_bar(struct top_view *v, int y, int x, int w, double frac);

/* tables.c */
void view_draw_table(struct top_view *v, struct top_src *src);
void view_draw_latency(struct top_view *v, struct top_src *src);
void view_write_csv(struct top_view *v, struct top_src *src);
void view_free_dirs(struct top_view *v);

/* flame.c */
void view_draw_flame(struct top_view *v, struct top_src *src);
void view_flame_key(struct top_view *v, int k);

/* events.c */
void view_draw_events(struct top_view *v, struct top_src *src);
/* Parses an events filter into f: NULL, or what is wrong with text. */
const char *view_filter_parse(struct filter *f, const char *text);
void view_filter_pop(struct top_view *v);
/* Whether e passes every filter. */
bool view_ev_match(const struct top_view *v, const struct top_agg *a,
		   const struct top_event *e);

/* probes.c */
void view_draw_probes(struct top_view *v, struct top_src *src);
void view_probe_key(struct top_view *v, struct top_src *src, int k);

#endif
