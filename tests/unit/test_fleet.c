/* lib/fleet.h: --shard K/N and --start-at TIME. Shards partition pids and
 * paths (each key in exactly one shard of an N) with fixed hashes; times
 * parse to exact ns since the epoch, and anything else is refused. */
#include <errno.h>
#include <stdio.h>

#include "lib/fleet.h"
#include "tests/unit/unit.h"

static int64_t wall(const char *s)
{
	int64_t ns = -1;

	return riot_parse_wall_time(s, &ns) == 0 ? ns : -1;
}

static void shards(void)
{
	struct riot_shard s = { 7, 7 }, all = { 0, 0 };
	static const char *const bad[] = { "", "1", "/2", "1/", "2/2", "0/0", "-1/2", "1/-2",
					   "a/2", "1/b", "1/2/3", " 1/2", "1/2 ", "0x1/4",
					   "0/65537", "1.0/2" };
	char path[32];

	CHECK_EQ(riot_shard_parse("0/1", &s), 0);
	CHECK_EQ(s.k, 0);
	CHECK_EQ(s.n, 1);
	CHECK_EQ(riot_shard_parse("3/4", &s), 0);
	CHECK_EQ(s.k, 3);
	CHECK_EQ(s.n, 4);
	CHECK_EQ(riot_shard_parse("010/65536", &s), 0);	/* decimal, not octal */
	CHECK_EQ(s.k, 10);
	CHECK_EQ(s.n, 65536);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = riot_shard_parse(bad[i], &s);

		if (rc != -EINVAL)
			fprintf(stderr, "'%s' accepted\n", bad[i]);
		CHECK_EQ(rc, -EINVAL);
	}
	/* every pid and path in exactly one of the shards of 3; no sharding
	 * holds everything; every shard gets some of 3000 pids */
	for (uint32_t n = 1; n <= 5; n++) {
		unsigned got[5] = { 0 };

		for (uint32_t pid = 1; pid <= 3000; pid++) {
			unsigned in = 0;

			snprintf(path, sizeof(path), "/d/f%u", pid);
			for (uint32_t k = 0; k < n; k++) {
				struct riot_shard x = { k, n };

				in += riot_shard_has_pid(&x, pid);
				got[k] += riot_shard_has_pid(&x, pid);
				CHECK_EQ(riot_shard_has_path(&x, path),
					 riot_shard_has_path(&x, path));
			}
			CHECK_EQ(in, 1);
			CHECK(riot_shard_has_pid(&all, pid));
			CHECK(riot_shard_has_path(&all, path));
		}
		for (uint32_t k = 0; k < n; k++)
			CHECK(got[k] > 3000 / n / 2);
	}
	/* the hashes are fixed: these must never change, or the shards of
	 * one fleet disagree between riot versions */
	{
		struct riot_shard a = { 0, 2 };

		CHECK_EQ(riot_shard_has_pid(&a, 1), 0);
		CHECK_EQ(riot_shard_has_pid(&a, 2), 1);
		CHECK_EQ(riot_shard_has_path(&a, "/w/in/f200"), 1);
	}
}

static void times(void)
{
	static const char *const bad[] = {
		"", "now", "-1", "1.", ".5", "1.1234567891", "12a", "1e9",
		"2026-12-03T16:00:00",		/* no zone */
		"2026-12-03T16:00Z", "2026-12-03 16:00:00 Z", "2026-13-03T16:00:00Z",
		"2026-02-29T00:00:00Z", "2026-12-32T00:00:00Z", "2026-12-03T24:00:00Z",
		"2026-12-03T16:60:00Z", "2026-12-03T16:00:61Z", "2026-12-03T16:00:00+1:00",
		"2026-12-03T16:00:00+01", "2026-12-03T16:00:00.Z", "2026-12-03T16:00:00Zx",
		"1969-12-31T23:59:59Z", "2262-01-01T00:00:00Z", "99999999999",
	};

	CHECK_EQ(wall("0"), 0);
	CHECK_EQ(wall("1764777600"), 1764777600000000000LL);
	CHECK_EQ(wall("1764777600.5"), 1764777600500000000LL);
	CHECK_EQ(wall("1764777600.000000001"), 1764777600000000001LL);
	CHECK_EQ(wall("2025-12-03T16:00:00Z"), 1764777600000000000LL);
	CHECK_EQ(wall("2025-12-03t16:00:00z"), 1764777600000000000LL);
	CHECK_EQ(wall("2025-12-03 16:00:00Z"), 1764777600000000000LL);
	CHECK_EQ(wall("2025-12-03T17:00:00.25+01:00"), 1764777600250000000LL);
	CHECK_EQ(wall("2025-12-03T10:30:00.123456789-05:30"), 1764777600123456789LL);
	CHECK_EQ(wall("2024-02-29T00:00:00Z"), 1709164800000000000LL);
	CHECK_EQ(wall("1970-01-01T00:00:00Z"), 0);
	CHECK_EQ(wall("2016-12-31T23:59:60Z"), 1483228800000000000LL);	/* leap second */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t ns;
		int rc = riot_parse_wall_time(bad[i], &ns);

		if (rc == 0)
			fprintf(stderr, "'%s' accepted as %lld\n", bad[i], (long long)ns);
		CHECK(rc < 0);
	}
}

int main(void)
{
	shards();
	times();
	return unit_done();
}
