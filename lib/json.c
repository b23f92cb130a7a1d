/* lib/json.c: see json.h. */
#include "json.h"

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

static void put_escaped(FILE *out, const char *s, size_t n)
{
	fputc('"', out);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			/* Control bytes and bytes that are not UTF-8 text are
			 * escaped one by one, so any path stays valid JSON. */
			if (c < 0x20 || c >= 0x7f)
				fprintf(out, "\\u%04x", c);
			else
				fputc(c, out);
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
