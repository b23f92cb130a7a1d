/* lib/fleet.c: shards and start times (lib/fleet.h). */
#include "lib/fleet.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <time.h>

/* Decimal digits (at least one, at most 9) up to end or NUL. */
static int decimal(const char *s, const char *end, uint64_t *v)
{
	*v = 0;
	if (s == end || end - s > 9)
		return -EINVAL;
	for (; s < end; s++) {
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		*v = *v * 10 + (uint64_t)(*s - '0');
	}
	return 0;
}

int riot_shard_parse(const char *s, struct riot_shard *out)
{
	const char *slash = s ? strchr(s, '/') : NULL;
	uint64_t kv, nv;

	/* decimal only: "010" is ten, not eight */
	if (!slash || decimal(s, slash, &kv) < 0 ||
	    decimal(slash + 1, slash + 1 + strlen(slash + 1), &nv) < 0 || nv == 0 ||
	    nv > RIOT_SHARD_MAX || kv >= nv)
		return -EINVAL;
	out->k = (uint32_t)kv;
	out->n = (uint32_t)nv;
	return 0;
}

/* splitmix64's finaliser: every input bit moves every output bit, so
 * consecutive pids spread over the shards. */
static uint64_t shard_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

bool riot_shard_has_pid(const struct riot_shard *s, uint32_t pid)
{
	return !s->n || shard_mix(pid) % s->n == s->k;
}

bool riot_shard_has_path(const struct riot_shard *s, const char *path)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	if (!s->n)
		return true;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return shard_mix(h) % s->n == s->k;
}

/* n digits exactly into *v; the end, or NULL. */
static const char *digits(const char *s, unsigned n, int *v)
{
	*v = 0;
	for (unsigned i = 0; i < n; i++, s++) {
		if (!isdigit((unsigned char)*s))
			return NULL;
		*v = *v * 10 + (*s - '0');
	}
	return s;
}

/* ".ddd" (1 to 9 digits) as ns; s unchanged without a '.'; NULL when bad. */
static const char *fraction(const char *s, int64_t *ns)
{
	int64_t scale = 100000000;
	unsigned n = 0;

	*ns = 0;
	if (*s != '.')
		return s;
	for (s++; isdigit((unsigned char)*s); s++, n++) {
		if (n == 9)
			return NULL;
		*ns += (*s - '0') * scale;
		scale /= 10;
	}
	return n ? s : NULL;
}

#define WALL_MAX_S 9214646400LL		/* 2262-01-01: int64 ns end in 2262 */

static int unix_seconds(const char *s, int64_t *ns)
{
	int64_t sec = 0, frac;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		sec = sec * 10 + (*s - '0');
		if (sec >= WALL_MAX_S)
			return -ERANGE;
	}
	s = fraction(s, &frac);
	if (!s || *s)
		return -EINVAL;
	*ns = sec * 1000000000 + frac;
	return 0;
}

static bool leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int rfc3339(const char *s, int64_t *ns)
{
	static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	struct tm tm = { 0 };
	int y, mo, d, h, mi, sec, zh = 0, zm = 0, sign = 0;
	int64_t frac, t;

	if (!(s = digits(s, 4, &y)) || *s++ != '-' || !(s = digits(s, 2, &mo)) || *s++ != '-' ||
	    !(s = digits(s, 2, &d)) || (*s != 'T' && *s != 't' && *s != ' ') ||
	    !(s = digits(s + 1, 2, &h)) || *s++ != ':' || !(s = digits(s, 2, &mi)) ||
	    *s++ != ':' || !(s = digits(s, 2, &sec)) || !(s = fraction(s, &frac)))
		return -EINVAL;
	if (*s == 'Z' || *s == 'z') {
		s++;
	} else if (*s == '+' || *s == '-') {
		sign = *s == '+' ? 1 : -1;
		if (!(s = digits(s + 1, 2, &zh)) || *s++ != ':' || !(s = digits(s, 2, &zm)) ||
		    zh > 23 || zm > 59)
			return -EINVAL;
	} else {
		return -EINVAL;	/* a time without its zone means nothing here */
	}
	if (*s || mo < 1 || mo > 12 || d < 1 ||
	    d > mdays[mo - 1] + (mo == 2 && leap(y)) || h > 23 || mi > 59 || sec > 60)
		return -EINVAL;
	if (y < 1970 || y > 2261)
		return -ERANGE;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;	/* a leap second (60) is the next minute's 0 */
	t = (int64_t)timegm(&tm) - sign * (zh * 3600 + zm * 60);
	if (t < 0)
		return -ERANGE;
	*ns = t * 1000000000 + frac;
	return 0;
}

int riot_parse_wall_time(const char *s, int64_t *ns)
{
	if (!s || !*s)
		return -EINVAL;
	return strlen(s) >= 10 && s[4] == '-' ? rfc3339(s, ns) : unix_seconds(s, ns);
}
