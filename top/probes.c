/* top/probes.c: riot top's probes tab (view_int.h): syscalls and classes
 * switched on and off in the kernel while a capture runs. */
#include <string.h>

#include "capture/capture.h"

#include "top/view_int.h"

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

void view_draw_probes(struct top_view *v, struct top_src *src)
{
	static int cls[RIOT_SYS_COUNT + RIOT_CLASS_COUNT], sys[RIOT_SYS_COUNT + RIOT_CLASS_COUNT];
	int n = probe_rows(cls, sys, RIOT_SYS_COUNT + RIOT_CLASS_COUNT), y = 3;
	int *sel = &v->sel[TAB_PROBES], *first = &v->first[TAB_PROBES];

	if (!src->watch) {
		view_put(v, y, 0, COLS, src->gap_name ?
			 "probes: switched on and off in the kernel while a capture runs; a "
			 "replay issues what its log holds" :
			 "probes: switched on and off in the kernel while a capture runs; "
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
				 view_fmt_count(src->agg->sys[sys[i]].count, 12, c, sizeof(c)));
		}
		if (i == *sel)
			view_style_on(v, 0, A_REVERSE);
		view_put(v, y, 0, COLS, b, false, false);
		if (i == *sel)
			view_style_off(v, 0, A_REVERSE);
	}
}

void view_probe_key(struct top_view *v, struct top_src *src, int k)
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
		view_message(v, "cannot switch probes: %s", strerror(-err));
}
