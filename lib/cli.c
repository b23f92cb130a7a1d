/* lib/cli.c: error reporting and argument parsing shared by the commands. */
#include "lib/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int riot_parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "kmg";
	unsigned long long v;
	unsigned shift = 0;
	const char *u;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -errno;
	if (*end) {
		if (end[1] || !(u = strchr(units, end[0] | 0x20)))
			return -EINVAL;
		shift = 10 * (unsigned)(u - units + 1);
	}
	if (v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = (uint64_t)v << shift;
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

int riot_check_output(const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	bool made = false;

	if (fd < 0 && errno == ENOENT) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		made = fd >= 0;
	}
	if (fd < 0)
		return -errno;
	close(fd);
	if (made && unlink(path) < 0)
		return -errno;
	return 0;
}

const char *riot_fmt_ns(uint64_t ns, char *buf, unsigned len)
{
	if (ns < 1000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", (double)ns / 1e9);
	return buf;
}
