/* lib/json.c: see json.h. */
#include "lib/json.h"

#include <math.h>
#include <string.h>

void json_init(struct json *j, FILE *out, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->pretty = pretty;
	j->first[0] = true;
}

static void indent(struct json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->out);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/* Bytes of the well-formed UTF-8 sequence at s (at most n bytes), 0 when
 * there is none: no overlong form, no surrogate, nothing above U+10FFFF. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static void put_escaped(FILE *out, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	fputc('"', out);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = u[i];
		size_t len;

		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			/* UTF-8 text as it is; control bytes and DEL as
			 * \u0000 to \u007f (they are those characters); a byte
			 * that is not part of UTF-8 text as the lone surrogate
			 * \udc80 to \udcff (Python's "surrogateescape"), which
			 * no valid character can be, so /w/\xff and /w/\xc3\xbf
			 * stay apart and the bytes can be recovered. */
			if (c >= 0x80 && (len = utf8_len(u + i, n - i))) {
				fwrite(u + i, 1, len, out);
				i += len - 1;
			} else if (c >= 0x80) {
				fprintf(out, "\\udc%02x", c);
			} else if (c < 0x20 || c == 0x7f) {
				fprintf(out, "\\u%04x", c);
			} else {
				fputc(c, out);
			}
		}
	}
	fputc('"', out);
}

/* Comma, indentation and key before a value at the current depth. */
static void prefix(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->out);
	if (j->depth > 0)
		indent(j);
	j->first[j->depth] = false;
	if (key) {
		put_escaped(j->out, key, strlen(key));
		fputs(j->pretty ? ": " : ":", j->out);
	}
}

static void open_(struct json *j, const char *key, char c)
{
	prefix(j, key);
	fputc(c, j->out);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty)
		indent(j);
	fputc(c, j->out);
}

void json_obj_open(struct json *j, const char *key) { open_(j, key, '{'); }
void json_obj_close(struct json *j) { close_(j, '}'); }
void json_arr_open(struct json *j, const char *key) { open_(j, key, '['); }
void json_arr_close(struct json *j) { close_(j, ']'); }

void json_strn(struct json *j, const char *key, const char *v, size_t n)
{
	prefix(j, key);
	put_escaped(j->out, v, n);
}

void json_str(struct json *j, const char *key, const char *v)
{
	if (!v) {
		json_null(j, key);
		return;
	}
	json_strn(j, key, v, strlen(v));
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	prefix(j, key);
	fprintf(j->out, "%llu", (unsigned long long)v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	prefix(j, key);
	fprintf(j->out, "%lld", (long long)v);
}

void json_double(struct json *j, const char *key, double v)
{
	prefix(j, key);
	if (isfinite(v))
		fprintf(j->out, "%.15g", v);	/* exact enough for any ratio or rate */
	else
		fputs("null", j->out);
}

void json_bool(struct json *j, const char *key, bool v)
{
	prefix(j, key);
	fputs(v ? "true" : "false", j->out);
}

void json_null(struct json *j, const char *key)
{
	prefix(j, key);
	fputs("null", j->out);
}

void json_end_line(struct json *j)
{
	fputc('\n', j->out);
	j->depth = 0;
	j->first[0] = true;
}
