/* convert/import_strace_lex.c: splitting strace's text into its parts and
 * its values into numbers and strings (see import_strace_lex.h).
 *
 * strace's grammar, as far as the importer needs it:
 *   line     = [pid] [timestamp] body
 *   pid      = "[pid" " "* N "]" " " | N " "    (the latter with -f -o FILE)
 *   body     = name "(" args ")" " = " result [" <" secs ">"]
 *            | name "(" args " <unfinished ...>"
 *            | "<... " name " resumed>" args ")" " = " ...
 *            | "--- " signal " ---" | "+++ " how " +++"
 *   value    = "string"[...] | [ ... ] | { ... } | N[<annotation>] | A|B|0x4
 * Annotations (-y, -yy) nest ("3</dev/null<char 1:3>>"); strace escapes
 * '<' and '>' inside them, so angle brackets always balance.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "convert/import_strace_lex.h"
#include "formats/log.h"

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_ident(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static struct sv sv_trim(struct sv s)
{
	while (s.n && (s.p[0] == ' ' || s.p[0] == '\t'))
		s.p++, s.n--;
	while (s.n && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t' || s.p[s.n - 1] == '\r'))
		s.n--;
	return s;
}

static bool sv_starts(struct sv s, const char *pre)
{
	size_t n = strlen(pre);

	return s.n >= n && memcmp(s.p, pre, n) == 0;
}

static bool sv_ends(struct sv s, const char *suf)
{
	size_t n = strlen(suf);

	return s.n >= n && memcmp(s.p + s.n - n, suf, n) == 0;
}

static bool sv_eq(struct sv s, const char *lit)
{
	return s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0;
}

/* Index of the first `stop` byte of s at nesting depth 0, or s.n. Quotes,
 * brackets, braces, parentheses, comments and annotations nest; inside an
 * annotation only angle brackets count, since paths may hold any bracket. */
static size_t scan_to(struct sv s, char stop)
{
	unsigned depth = 0, angle = 0;

	for (size_t i = 0; i < s.n; i++) {
		char c = s.p[i];

		if (angle) {
			if (c == '<')
				angle++;
			else if (c == '>')
				angle--;
			else if (c == '\\' && i + 1 < s.n)
				i++;
			continue;
		}
		if (depth == 0 && c == stop)
			return i;
		switch (c) {
		case '"':
			for (i++; i < s.n && s.p[i] != '"'; i++)
				if (s.p[i] == '\\')
					i++;
			break;
		case '/':
			if (i + 1 < s.n && s.p[i + 1] == '*') {
				const char *e = memmem(s.p + i + 2, s.n - i - 2, "*/", 2);

				i = e ? (size_t)(e - s.p) + 1 : s.n;
			}
			break;
		case '<': angle++; break;
		case '[': case '{': case '(': depth++; break;
		case ']': case '}': case ')':
			if (depth)
				depth--;
			break;
		default:
			break;
		}
	}
	return s.n;
}

/* ---- lines ---- */

static size_t parse_u64_digits(const char *p, size_t n, uint64_t *v)
{
	size_t i = 0;
	uint64_t x = 0;

	while (i < n && is_digit(p[i]) && x <= (UINT64_MAX - 9) / 10)
		x = x * 10 + (uint64_t)(p[i++] - '0');
	*v = x;
	return i;
}

static void split_prefix(struct sv *s, struct strace_line *out)
{
	uint64_t v;
	size_t i;

	if (sv_starts(*s, "[pid")) {
		i = 4;
		while (i < s->n && s->p[i] == ' ')
			i++;
		size_t d = parse_u64_digits(s->p + i, s->n - i, &v);

		if (d && d <= 10 && v <= UINT32_MAX && i + d < s->n && s->p[i + d] == ']') {
			out->has_tid = true;
			out->tid = (uint32_t)v;
			s->p += i + d + 1;
			s->n -= i + d + 1;
			*s = sv_trim(*s);
		}
	} else {
		i = parse_u64_digits(s->p, s->n, &v);
		/* "N " then a body or timestamp: a pid (a timestamp has a dot) */
		if (i && i <= 10 && v <= UINT32_MAX && i < s->n && s->p[i] == ' ') {
			out->has_tid = true;
			out->tid = (uint32_t)v;
			s->p += i;
			s->n -= i;
			*s = sv_trim(*s);
		}
	}
	i = parse_u64_digits(s->p, s->n, &v);
	if (i && i <= 12 && i < s->n && s->p[i] == '.') {
		uint64_t frac = 0;
		size_t j = i + 1, k = 0;

		for (; j < s->n && is_digit(s->p[j]); j++, k++)
			if (k < 9)
				frac = frac * 10 + (uint64_t)(s->p[j] - '0');
		for (; k < 9; k++)
			frac *= 10;
		if (j > i + 1 && (j == s->n || s->p[j] == ' ')) {
			out->has_t = true;
			out->t = v * 1000000000ull + frac;
			s->p += j;
			s->n -= j;
			*s = sv_trim(*s);
		}
	}
}

static int split_exit(struct sv s, struct strace_line *out)
{
	struct sv how = sv_trim((struct sv){ s.p + 3, s.n - 6 });
	uint64_t v;

	out->kind = STRACE_LINE_EXIT;
	if (sv_starts(how, "exited with ")) {
		size_t d = parse_u64_digits(how.p + 12, how.n - 12, &v);

		if (!d || d != how.n - 12 || v > 255)
			return -EINVAL;
		out->status = (int32_t)(v << 8);
		return 0;
	}
	if (sv_starts(how, "killed by ")) {
		struct sv sig = { how.p + 10, how.n - 10 };
		size_t sn = 0;

		while (sn < sig.n && is_ident(sig.p[sn]))
			sn++;
		if (strace_flags((struct sv){ sig.p, sn }, &v) || v == 0 || v > 127)
			return -EINVAL;
		out->status = (int32_t)v;
		if (sv_ends(how, "(core dumped)"))
			out->status |= 0x80;
		return 0;
	}
	out->kind = STRACE_LINE_MESSAGE;	/* "+++ superseded by execve" */
	return 0;
}

static int split_call(struct sv s, struct strace_line *out)
{
	size_t i = 0;

	while (i < s.n && is_ident(s.p[i]))
		i++;
	if (i == 0 || i >= s.n || s.p[i] != '(') {
		out->kind = STRACE_LINE_OTHER;
		return 0;
	}
	out->name = (struct sv){ s.p, i };
	out->rest = (struct sv){ s.p + i + 1, s.n - i - 1 };
	if (sv_ends(out->rest, "<unfinished ...>")) {
		out->kind = STRACE_LINE_UNFINISHED;
		out->rest.n -= strlen("<unfinished ...>");
		return 0;
	}
	out->kind = STRACE_LINE_CALL;
	return 0;
}

static int split_resumed(struct sv s, struct strace_line *out)
{
	struct sv body = { s.p + 5, s.n - 5 };
	const char *r = memmem(body.p, body.n, " resumed>", 9);
	size_t n;

	if (!r)
		return -EINVAL;
	n = (size_t)(r - body.p);
	for (size_t i = 0; i < n; i++)
		if (!is_ident(body.p[i]))
			return -EINVAL;
	out->kind = STRACE_LINE_RESUMED;
	out->name = (struct sv){ body.p, n };
	out->rest = (struct sv){ r + 9, body.n - n - 9 };
	return 0;
}

int strace_split_line(const char *p, size_t n, struct strace_line *out)
{
	struct sv s = sv_trim((struct sv){ p, n });

	memset(out, 0, sizeof(*out));
	if (s.n == 0) {
		out->kind = STRACE_LINE_EMPTY;
		return 0;
	}
	split_prefix(&s, out);
	if (sv_starts(s, "--- ")) {
		out->kind = STRACE_LINE_SIGNAL;
		return 0;
	}
	if (sv_starts(s, "+++ ") && sv_ends(s, " +++") && s.n >= 8)
		return split_exit(s, out);
	if (sv_starts(s, "<... "))
		return split_resumed(s, out);
	if (sv_starts(s, "strace: ") || sv_starts(s, "???")) {
		out->kind = STRACE_LINE_MESSAGE;
		return 0;
	}
	return split_call(s, out);
}

/* ---- results ---- */

/* "<0.000123>" at the end of s: seconds into ns; shortens s. */
static void take_duration(struct sv *s, struct strace_result *out)
{
	size_t i, j;
	uint64_t secs, frac = 0;

	if (!s->n || s->p[s->n - 1] != '>')
		return;
	for (i = s->n - 1; i > 0 && s->p[i - 1] != '<'; i--)
		;
	if (i == 0)
		return;
	j = parse_u64_digits(s->p + i, s->n - 1 - i, &secs);
	if (!j || i + j >= s->n - 1 || s->p[i + j] != '.' || secs > 1000000000ull)
		return;
	size_t k = 0;

	for (j = i + j + 1; j < s->n - 1; j++, k++) {
		if (!is_digit(s->p[j]))
			return;
		if (k < 9)
			frac = frac * 10 + (uint64_t)(s->p[j] - '0');
	}
	for (; k < 9; k++)
		frac *= 10;
	out->has_dur = true;
	out->dur = secs * 1000000000ull + frac;
	s->n = i - 1;
	*s = sv_trim(*s);
}

/* The errno after "= -1": "ENOENT (No such file...)" or "(errno 500)". */
static int take_errno(struct sv s, struct strace_result *out)
{
	size_t i = 0;
	int e;

	while (i < s.n && is_ident(s.p[i]))
		i++;
	if (i == 0) {
		uint64_t v;

		if (!sv_starts(s, "(errno ") ||
		    !parse_u64_digits(s.p + 7, s.n - 7, &v) || v == 0 || v > 4095)
			return -EINVAL;
		out->ret = -(int64_t)v;
		return 0;
	}
	if (sv_starts(s, "ERESTART")) {
		out->restarted = true;
		return 0;
	}
	e = strace_errno((struct sv){ s.p, i });
	if (!e)
		return -EINVAL;
	out->ret = -e;
	return 0;
}

int strace_split_result(struct sv s, struct strace_result *out)
{
	size_t close = scan_to(s, ')');
	struct sv r, num;
	size_t i = 0;

	memset(out, 0, sizeof(*out));
	if (close == s.n)
		return -EINVAL;
	out->args = sv_trim((struct sv){ s.p, close });
	r = sv_trim((struct sv){ s.p + close + 1, s.n - close - 1 });
	if (!r.n || r.p[0] != '=')
		return -EINVAL;
	r = sv_trim((struct sv){ r.p + 1, r.n - 1 });
	take_duration(&r, out);
	if (sv_starts(r, "?")) {
		struct sv e = sv_trim((struct sv){ r.p + 1, r.n - 1 });

		out->no_result = !sv_starts(e, "ERESTART");
		out->restarted = !out->no_result;
		return 0;
	}
	if (i < r.n && r.p[i] == '-')
		i++;
	while (i < r.n && (is_ident(r.p[i])))
		i++;
	if (i < r.n && r.p[i] == '<')	/* "3</path>" */
		i += scan_to((struct sv){ r.p + i, r.n - i }, ' ');
	num = (struct sv){ r.p, i };
	if (strace_int(num, &out->ret, &out->ret_note))
		return -EINVAL;
	r = sv_trim((struct sv){ r.p + i, r.n - i });
	if (out->ret == -1 && r.n)
		return take_errno(r, out);
	return 0;
}

/* ---- arguments ---- */

int strace_next_arg(struct sv *list, struct sv *arg)
{
	struct sv s = sv_trim(*list);
	size_t i;

	if (!s.n)
		return 0;
	i = scan_to(s, ',');
	*arg = sv_trim((struct sv){ s.p, i });
	if (i < s.n)
		i++;
	list->p = s.p + i;
	list->n = s.n - i;
	return 1;
}

/* Drops a trailing C comment: strace appends them ("5 entries"). */
static struct sv strip_comment(struct sv s)
{
	const char *c = s.n >= 2 ? memmem(s.p, s.n, "/*", 2) : NULL;

	if (c && sv_ends(s, "*/"))
		s.n = (size_t)(c - s.p);
	return sv_trim(s);
}

/* An annotation "<...>" at the end of s, balanced; shortens s. */
static int take_note(struct sv *s, struct sv *note)
{
	size_t i = 0;

	while (i < s->n && s->p[i] != '<')
		i++;
	if (i == s->n)
		return 0;
	if (s->p[s->n - 1] != '>')
		return -EINVAL;
	if (note)
		*note = (struct sv){ s->p + i + 1, s->n - i - 2 };
	s->n = i;
	return 0;
}

static int parse_number(struct sv s, uint64_t *v)
{
	uint64_t x = 0;
	size_t i = 0;
	unsigned base = 10;

	if (!s.n)
		return -EINVAL;
	if (s.n > 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (s.n > 1 && s.p[0] == '0') {
		base = 8;
		i = 1;
	}
	for (; i < s.n; i++) {
		char c = s.p[i];
		unsigned d;

		if (is_digit(c))
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -EINVAL;
		if (d >= base || x > (UINT64_MAX - d) / base)
			return -EINVAL;
		x = x * base + d;
	}
	*v = x;
	return 0;
}

int strace_int(struct sv s, int64_t *v, struct sv *note)
{
	uint64_t x;
	bool neg = false;

	if (note)
		*note = (struct sv){ NULL, 0 };
	s = strip_comment(sv_trim(s));
	if (take_note(&s, note))
		return -EINVAL;
	if (sv_eq(s, "AT_FDCWD")) {
		*v = -100;
		return 0;
	}
	if (sv_eq(s, "NULL")) {
		*v = 0;
		return 0;
	}
	if (sv_eq(s, "~0U") || sv_eq(s, "~0")) {
		*v = sv_eq(s, "~0U") ? (int64_t)UINT32_MAX : -1;
		return 0;
	}
	if (s.n && s.p[0] == '-') {
		neg = true;
		s.p++, s.n--;
	}
	if (parse_number(s, &x))
		return -EINVAL;
	*v = neg ? -(int64_t)x : (int64_t)x;
	return 0;
}

int strace_flags(struct sv s, uint64_t *v)
{
	int rc = 0;

	*v = 0;
	s = strip_comment(sv_trim(s));
	if (!s.n)
		return -EINVAL;
	while (s.n) {
		size_t i = 0;
		struct sv tok;
		uint64_t x;
		int64_t sx;

		while (i < s.n && s.p[i] != '|')
			i++;
		tok = sv_trim((struct sv){ s.p, i });
		if (tok.n && (is_digit(tok.p[0]) || tok.p[0] == '-')) {
			if (strace_int(tok, &sx, NULL))
				return -EINVAL;
			*v |= (uint64_t)sx;
		} else if (riot_sym_value(tok.p, tok.n, &x) == 0) {
			*v |= x;
		} else {
			rc = -ENOENT;
		}
		s.p += i < s.n ? i + 1 : i;
		s.n -= i < s.n ? i + 1 : i;
	}
	return rc;
}

/* One escape after a backslash at p[0]; returns bytes consumed. */
static size_t unescape(const char *p, size_t n, unsigned char *out)
{
	size_t i;
	unsigned v = 0;

	if (n == 0)
		return 0;
	switch (p[0]) {
	case 'n': *out = '\n'; return 1;
	case 't': *out = '\t'; return 1;
	case 'r': *out = '\r'; return 1;
	case 'v': *out = '\v'; return 1;
	case 'f': *out = '\f'; return 1;
	case 'a': *out = '\a'; return 1;
	case 'b': *out = '\b'; return 1;
	case 'x':
		for (i = 1; i < 3 && i < n; i++) {
			char c = p[i];

			if (is_digit(c))
				v = v * 16 + (unsigned)(c - '0');
			else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
				v = v * 16 + (unsigned)((c | 0x20) - 'a' + 10);
			else
				break;
		}
		*out = (unsigned char)v;
		return i;
	default:
		if (p[0] >= '0' && p[0] <= '7') {
			for (i = 0; i < 3 && i < n && p[i] >= '0' && p[i] <= '7'; i++)
				v = v * 8 + (unsigned)(p[i] - '0');
			*out = (unsigned char)v;
			return i;
		}
		*out = (unsigned char)p[0];
		return 1;
	}
}

/* Copies s unescaped into out until `end` (a byte at depth 0 of escapes);
 * returns bytes of s consumed, or s.n + 1 when `end` never came. */
static size_t copy_unescaped(struct sv s, char end, char *out, size_t outlen,
			     size_t *len, bool *trunc)
{
	size_t i = 0, o = 0;

	while (i < s.n && s.p[i] != end) {
		unsigned char c = (unsigned char)s.p[i++];

		if (c == '\\')
			i += unescape(s.p + i, s.n - i, &c);
		if (c == 0 || o + 1 >= outlen) {	/* no NUL in a log string */
			*trunc = true;
			continue;
		}
		out[o++] = (char)c;
	}
	out[o] = 0;
	*len = o;
	return i < s.n ? i : s.n + 1;
}

int strace_string(struct sv s, char *out, size_t outlen, bool *trunc)
{
	size_t used, len;

	*trunc = false;
	s = sv_trim(s);
	if (outlen == 0 || s.n < 2 || s.p[0] != '"')
		return -EINVAL;
	used = copy_unescaped((struct sv){ s.p + 1, s.n - 1 }, '"', out, outlen, &len, trunc);
	if (used > s.n - 1)
		return -EINVAL;
	s.p += used + 2;
	s.n -= used + 2;
	if (sv_eq(s, "..."))
		*trunc = true;
	else if (s.n)
		return -EINVAL;
	return 0;
}

int strace_offp(struct sv s, uint64_t *v)
{
	int64_t x;
	size_t i;

	s = sv_trim(s);
	if (s.n < 3 || s.p[0] != '[' || s.p[s.n - 1] != ']')
		return -EINVAL;
	s = (struct sv){ s.p + 1, s.n - 2 };
	for (i = 0; i < s.n && s.p[i] != ' '; i++)
		;
	if (strace_int((struct sv){ s.p, i }, &x, NULL))
		return -EINVAL;
	*v = (uint64_t)x;
	return 0;
}

bool strace_field(struct sv s, const char *key, struct sv *val)
{
	struct sv arg;
	size_t kn = strlen(key);

	s = sv_trim(s);
	if (s.n && s.p[0] == '{') {
		size_t end = scan_to((struct sv){ s.p + 1, s.n - 1 }, '}');

		s = (struct sv){ s.p + 1, end };
	}
	while (strace_next_arg(&s, &arg)) {
		if (arg.n > kn && memcmp(arg.p, key, kn) == 0 && arg.p[kn] == '=') {
			*val = sv_trim((struct sv){ arg.p + kn + 1, arg.n - kn - 1 });
			return true;
		}
	}
	return false;
}

int strace_note_path(struct sv note, char *out, size_t outlen, bool *trunc,
		     uint32_t *ftype)
{
	size_t used, len;
	struct sv inner;

	*trunc = false;
	*ftype = 0;
	if (outlen == 0)
		return -EINVAL;
	used = copy_unescaped(note, '<', out, outlen, &len, trunc);
	if (used < note.n) {	/* a nested note: "<char 1:3>" */
		inner = (struct sv){ note.p + used + 1, note.n - used - 1 };
		if (sv_starts(inner, "char "))
			*ftype = S_IFCHR;
		else if (sv_starts(inner, "block "))
			*ftype = S_IFBLK;
	}
	if (len >= 10 && strcmp(out + len - 10, " (deleted)") == 0)
		out[len - 10] = 0;
	return len ? 0 : -EINVAL;
}

/* ---- errno names ---- */

static struct errno_name {
	const char *name;
	int num;
} errno_names[512];
static size_t n_errno_names;

static int errno_cmp(const void *a, const void *b)
{
	return strcmp(((const struct errno_name *)a)->name,
		      ((const struct errno_name *)b)->name);
}

static void errno_init(void)
{
	for (int e = 1; e < 512 && n_errno_names < 512; e++) {
		const char *n = strerrorname_np(e);

		if (n)
			errno_names[n_errno_names++] = (struct errno_name){ n, e };
	}
	qsort(errno_names, n_errno_names, sizeof(errno_names[0]), errno_cmp);
}

int strace_errno(struct sv name)
{
	char buf[32];
	struct errno_name key = { buf, 0 }, *hit;

	if (!n_errno_names)
		errno_init();
	if (name.n == 0 || name.n >= sizeof(buf))
		return 0;
	memcpy(buf, name.p, name.n);
	buf[name.n] = 0;
	hit = bsearch(&key, errno_names, n_errno_names, sizeof(errno_names[0]), errno_cmp);
	return hit ? hit->num : 0;
}
