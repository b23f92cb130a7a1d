/* top/events.c: riot top's events tab (view_int.h): the stream, newest
 * first, and the filters that stack on it. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "top/view_int.h"

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
const char *view_filter_parse(struct filter *f, const char *text)
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

bool view_ev_match(const struct top_view *v, const struct top_agg *a,
		     const struct top_event *e)
{
	(void)a;
	for (int i = 0; i < v->nfilters; i++)
		if (!filter_match(&v->filters[i], e))
			return false;
	return true;
}

void view_draw_events(struct top_view *v, struct top_src *src)
{
	const struct top_agg *a = src->agg;
	uint64_t skip = v->paused && a->ev_total > v->ev_frozen ? a->ev_total - v->ev_frozen : 0;
	int y = 3, scroll = v->sel[TAB_EVENTS], shown = 0;
	char fl[400] = "";
	size_t o = 0;

	for (int i = 0; i < v->nfilters && o < sizeof(fl); i++)
		o += snprintf(fl + o, sizeof(fl) - o, "%s%s", i ? " > " : "", v->filters[i].text);
	view_putf(v, y++, 0, COLS, "filters: %s", v->nfilters ? fl : "(none)");
	view_style_on(v, 1, A_BOLD);
	view_putf(v, y++, 0, COLS, "%8s %-10s %7s %-11s %3s %7s %7s %7s %s", "TIME", "COMM", "TID",
	     "SYSCALL", "FD", "RESULT", "DUR", src->gap_name ? "DELAY" : "GAP", "PATH");
	view_style_off(v, 1, A_BOLD);
	for (uint64_t i = skip; y < LINES - 1; i++) {
		const struct top_event *e = top_agg_event(a, i);
		char r[32], d[32], g[32], fd[16];
		int x;

		if (!e)
			break;
		if (!view_ev_match(v, a, e))
			continue;
		if (shown++ < scroll)
			continue;
		if (e->ret < 0 && strerrorname_np((int)-e->ret))
			snprintf(r, sizeof(r), "%s", strerrorname_np((int)-e->ret));
		else
			snprintf(r, sizeof(r), "%lld", (long long)e->ret);
		snprintf(fd, sizeof(fd), e->fd >= 0 ? "%d" : "", e->fd);
		if (e->ret < 0)
			view_style_on(v, 3, 0);
		view_putf(v, y, 0, COLS, "%8.3f %-10.10s %7u %-11.11s %3s %7.7s ",
		     e->t > a->t0 ? (e->t - a->t0) / 1e9 : 0.0, e->comm, e->tid,
		     riot_sys_info(e->sys) ? riot_sys_info(e->sys)->name : "?", fd, r);
		view_rcell(v, y, 51, 8, view_fmt_ns(v, e->dur, d, sizeof(d)));
		view_rcell(v, y, 59, 8, e->gap == UINT64_MAX ? "-" : view_fmt_ns(v, e->gap, g, sizeof(g)));
		view_put(v, y, 67, 1, " ", false, false);
		x = 68;
		view_put(v, y, x, COLS - x, e->path, false, true);
		if (e->ret < 0)
			view_style_off(v, 3, 0);
		y++;
	}
	if (!shown)
		view_put(v, y, 0, COLS, a->ev_total ? "(no event matches)" : "(nothing yet)", false, false);
}

void view_filter_pop(struct top_view *v)
{
	if (!v->nfilters)
		return;
	v->nfilters--;
	if (v->filters[v->nfilters].kind == F_REGEX)
		regfree(&v->filters[v->nfilters].re);
}
