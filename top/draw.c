/* top/draw.c: drawing riot top's view (view_int.h): text cut to its
 * cells (hostile bytes as '?'), numbers with units, colours, bars. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"

#include "top/view_int.h"

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
void view_put(struct top_view *v, int y, int x, int w, const char *s, bool right, bool tail)
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
void view_rcell(struct top_view *v, int y, int x, int w, const char *s)
{
	view_put(v, y, x, 1, " ", false, false);
	view_put(v, y, x + 1, w - 1, s, true, false);
}

void view_putf(struct top_view *v, int y, int x, int w, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	view_put(v, y, x, w, buf, false, false);
}

void view_style_on(struct top_view *v, int pair, attr_t a)
{
	if (v->t->colour && pair)
		attron(COLOR_PAIR(pair));
	attron(a);
}

void view_style_off(struct top_view *v, int pair, attr_t a)
{
	if (v->t->colour && pair)
		attroff(COLOR_PAIR(pair));
	attroff(a);
}

const char *view_fmt_ns(const struct top_view *v, uint64_t ns, char *b, size_t len)
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

const char *view_fmt_bytes(uint64_t n, char *b, size_t len)
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
const char *view_fmt_count(uint64_t n, int w, char *b, size_t len)
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

void view_message(struct top_view *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->msg, sizeof(v->msg), fmt, ap);
	va_end(ap);
	v->msg_until = riot_now_ns(CLOCK_MONOTONIC) + 5000000000ull;
}

/* A bar of frac of w columns, eighths with UTF-8. */
void view_bar(struct top_view *v, int y, int x, int w, double frac)
{
	static const char *const eighths[] = {
		"", "\xe2\x96\x8f", "\xe2\x96\x8e", "\xe2\x96\x8d", "\xe2\x96\x8c",
		"\xe2\x96\x8b", "\xe2\x96\x8a", "\xe2\x96\x89",
	};
	int cells8 = (int)(frac * w * 8 + 0.5), i;

	if (w <= 0)
		return;
	move(y, x);
	view_style_on(v, 2, 0);
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
	view_style_off(v, 2, 0);
}
