/* lib/fields.c: see fields.h. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lib/cli.h"
#include "lib/fields.h"

static uint64_t u64_at(const void *row, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)row + off, sizeof(v));
	return v;
}

static double double_at(const void *row, size_t off)
{
	double v;

	memcpy(&v, (const char *)row + off, sizeof(v));
	return v;
}

static const char *str_at(const void *row, size_t off)
{
	const char *v;

	memcpy(&v, (const char *)row + off, sizeof(v));
	return v;
}

void fields_head(FILE *out, const struct field *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].head)
			fprintf(out, " %*s", f[i].width, f[i].head);
}

static const char *field_text(const struct field *f, const void *row, char *buf, unsigned len)
{
	double d;

	switch (f->kind) {
	case FIELD_U64:
		snprintf(buf, len, "%llu", (unsigned long long)u64_at(row, f->off));
		return buf;
	case FIELD_BYTES:
		return riot_fmt_bytes(u64_at(row, f->off), buf, len);
	case FIELD_NS_IF:
		if (!u64_at(row, f->off2))
			return "-";
		/* fall through */
	case FIELD_NS:
		return riot_fmt_ns(u64_at(row, f->off), buf, len);
	case FIELD_MEAN_NS:
		return riot_fmt_ns((uint64_t)(double_at(row, f->off) + 0.5), buf, len);
	case FIELD_RATIO:
		d = double_at(row, f->off);
		if (isnan(d))
			return "-";
		snprintf(buf, len, "%.3f", d);
		return buf;
	case FIELD_STR:
		return str_at(row, f->off) ? str_at(row, f->off) : "-";
	}
	return "";
}

void fields_text(FILE *out, const struct field *f, size_t n, const void *row)
{
	char buf[64];

	for (size_t i = 0; i < n; i++)
		if (f[i].head)
			fprintf(out, " %*s", f[i].width, field_text(&f[i], row, buf, sizeof(buf)));
}

void fields_json(struct json *j, const struct field *f, size_t n, const void *row)
{
	double d;

	for (size_t i = 0; i < n; i++) {
		if (!f[i].key)
			continue;
		switch (f[i].kind) {
		case FIELD_MEAN_NS:
			json_double(j, f[i].key, double_at(row, f[i].off));
			break;
		case FIELD_RATIO:
			d = double_at(row, f[i].off);
			if (isnan(d))
				json_null(j, f[i].key);
			else
				json_double(j, f[i].key, d);
			break;
		case FIELD_STR:
			json_str(j, f[i].key, str_at(row, f[i].off));
			break;
		default:
			json_u64(j, f[i].key, u64_at(row, f[i].off));
			break;
		}
	}
}
