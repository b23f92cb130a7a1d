/* lib/fleet.h: what the replays of a fleet agree on, given on each one's
 * command line: a share of the log (--shard K/N) and a wall-clock start
 * (--start-at TIME). Both are pure functions of their input, so N
 * machines given the same arguments make the same choices. */
#ifndef RIOT_LIB_FLEET_H
#define RIOT_LIB_FLEET_H

#include <stdbool.h>
#include <stdint.h>

/* Shard k of n (0 <= k < n); n == 0: no sharding, everything is in. */
struct riot_shard {
	uint32_t k, n;
};

#define RIOT_SHARD_MAX 65536

/* "K/N", decimal, 0 <= K < N <= RIOT_SHARD_MAX. 0 or -EINVAL. */
int riot_shard_parse(const char *s, struct riot_shard *out);
/* Whether the shard holds a process (its pid in the log) / a path. The
 * hashes are fixed (no seed), so every run and every machine agrees, and
 * the N shards of one n partition every key. */
bool riot_shard_has_pid(const struct riot_shard *s, uint32_t pid);
bool riot_shard_has_path(const struct riot_shard *s, const char *path);

/* A wall-clock time as ns since the Unix epoch: RFC 3339
 * (2026-12-03T16:00:00Z, 2026-12-03T17:00:00.25+01:00; 'T' or a space,
 * a fraction of up to 9 digits, 'Z' or +hh:mm / -hh:mm) or Unix seconds
 * with an optional fraction (1764777600.5). Years 1970 to 2261.
 * 0 or -EINVAL / -ERANGE. */
int riot_parse_wall_time(const char *s, int64_t *ns);

#endif
