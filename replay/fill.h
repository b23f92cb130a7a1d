/* replay/fill.h: the bytes init and replay write. Random by default, so
 * compressing and deduplicating filesystems are not flattered; zero; or
 * data that compresses by about PCT percent. Content is a pure function of
 * (kind, seed, offset): files are reproducible, and no two 4 KiB blocks of
 * random or compress data are equal, so deduplication finds nothing. */
#ifndef RIOT_REPLAY_FILL_H
#define RIOT_REPLAY_FILL_H

#include <stddef.h>
#include <stdint.h>

enum fill_kind { FILL_RANDOM, FILL_ZERO, FILL_COMPRESS };

struct fill {
	enum fill_kind kind;
	unsigned pct;		/* FILL_COMPRESS: 0..100 */
};

/* "random", "zero", "compress:PCT". 0 or -EINVAL. */
int fill_parse(const char *s, struct fill *f);
/* len bytes of the data at offset off of the file with this seed (a seed
 * per file: e.g. its path id). Fast: replay calls it on the hot path, or
 * fills a buffer pool once and reuses it. */
void fill_bytes(const struct fill *f, uint64_t seed, uint64_t off, void *buf, size_t len);

#endif
