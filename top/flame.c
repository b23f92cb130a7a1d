/* top/flame.c: riot top's flame tab (view_int.h): an icicle graph of the
 * stacks the aggregate keeps, zoom, search. */
#include <stdlib.h>
#include <string.h>

#include "top/view_int.h"

static const char *const order_names[ORDER_N] = {
	"process;syscall;path", "syscall;process;path", "path;syscall;process",
};
static const char *const weight_names[WEIGHT_N] = { "time", "count", "bytes" };

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
	view_style_on(v, n == sel ? 0 : hit ? 6 : 5, n == sel ? A_REVERSE | A_BOLD : 0);
	if (!v->t->colour && n != sel && hit)
		attron(A_UNDERLINE);
	{
		char lab[64];

		snprintf(lab, sizeof(lab), "%s", w > 2 ? " " : "");
		if (w > 2)
			snprintf(lab + 1, sizeof(lab) - 1, "%s", f->label);
		view_put(v, y, x, w, lab, false, false);
		if (w > 1)
			mvaddch(y, x + w - 1, v->t->colour ? ' ' : '|');
	}
	if (!v->t->colour && n != sel && hit)
		attroff(A_UNDERLINE);
	view_style_off(v, n == sel ? 0 : hit ? 6 : 5, n == sel ? A_REVERSE | A_BOLD : 0);
	for (uint32_t c = f->child; c; c = v->nodes[c].next) {
		int cw;

		acc += v->nodes[c].w;
		cw = (int)((double)acc / f->w * w) - (cx - x);
		draw_frames(v, c, cx, cw, y + 1, sel, ymax);
		cx += cw;
	}
}

void view_draw_flame(struct top_view *v, struct top_src *src)
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
	view_putf(v, 3, 0, COLS, "stacks %s, weighted by %s%s%s", order_names[v->order],
	     weight_names[v->weight], v->search[0] ? "; search: " : "", v->search);
	if (!v->nodes[0].w) {
		view_put(v, 4, 0, COLS, "(nothing yet)", false, false);
		return;
	}
	draw_frames(v, zoom, 0, COLS, 4, sel, LINES - 2);
	{
		uint64_t w = v->nodes[sel].w;
		const char *unit = v->weight == WEIGHT_TIME ? view_fmt_ns(v, w, wb, sizeof(wb)) :
				   v->weight == WEIGHT_BYTES ? view_fmt_bytes(w, wb, sizeof(wb)) :
				   (snprintf(wb, sizeof(wb), "%llu", (unsigned long long)w), wb);

		snprintf(b, sizeof(b), "%s: %s, %.1f %%%s", v->sel_path[0] ? v->sel_path : "all",
			 unit, 100.0 * w / v->nodes[0].w, "");
		if (v->search[0]) {
			size_t o = strlen(b);

			snprintf(b + o, sizeof(b) - o, "; '%s' matches %.1f %%", v->search,
				 100.0 * matched / v->nodes[0].w);
		}
		view_style_on(v, 0, A_BOLD);
		view_put(v, LINES - 2, 0, COLS, b, false, false);
		view_style_off(v, 0, A_BOLD);
	}
}

void view_flame_key(struct top_view *v, int k)
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
