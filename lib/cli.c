/* lib/cli.c: error reporting and argument parsing shared by the commands. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

const char *riot_cmd = NULL;

static void vreport(const char *fmt, va_list ap)
{
	if (riot_cmd)
		fprintf(stderr, "riot: %s: ", riot_cmd);
	else
		fputs("riot: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void riot_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
}

int riot_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'riot %s --help'.\n", riot_cmd ? riot_cmd : "help");
	return RIOT_EXIT_USAGE;
}

int riot_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno)
		return -errno;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int riot_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno)
		return -errno;
	if (*end || v != v)
		return -EINVAL;
	*out = v;
	return 0;
}

const char *riot_fmt_bytes(uint64_t bytes, char *buf, unsigned len)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	unsigned u = 0;

	while (v >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	return buf;
}
