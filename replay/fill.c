/* replay/fill.c: file content for init and replay (fill.h).
 *
 * Content is made per 4 KiB block of the file: a block's bytes come from a
 * splitmix64 stream keyed by (seed, block index), so any byte range can be
 * produced on its own, in any order, on any thread, and two blocks never
 * repeat. compress:PCT keeps the first 100-PCT percent of each block random
 * and zeroes the rest: a compressor finds nothing in the random part and
 * nearly everything in the zeros, so the block shrinks by about PCT %. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fill.h"
#include "lib/cli.h"

#define FILL_BLOCK 4096u
/* Random bytes every compress block keeps, even at 100 %, so blocks stay
 * distinct and deduplication still finds nothing. */
#define FILL_MIN_RANDOM 16u

int fill_parse(const char *s, struct fill *f)
{
	uint64_t pct;

	if (strcmp(s, "random") == 0) {
		*f = (struct fill){ .kind = FILL_RANDOM };
		return 0;
	}
	if (strcmp(s, "zero") == 0) {
		*f = (struct fill){ .kind = FILL_ZERO };
		return 0;
	}
	if (strncmp(s, "compress:", 9) != 0 || riot_parse_u64(s + 9, &pct) < 0 || pct > 100)
		return -EINVAL;
	*f = (struct fill){ .kind = FILL_COMPRESS, .pct = (unsigned)pct };
	return 0;
}

static inline uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Random bytes at the start of each block. */
static unsigned random_bytes(const struct fill *f)
{
	unsigned n;

	if (f->kind == FILL_RANDOM)
		return FILL_BLOCK;
	if (f->kind == FILL_ZERO)
		return 0;
	n = FILL_BLOCK - (unsigned)((uint64_t)f->pct * FILL_BLOCK / 100);
	return n < FILL_MIN_RANDOM ? FILL_MIN_RANDOM : n;
}

/* One whole block into out (FILL_BLOCK bytes, 8-byte writes). */
static void fill_block(unsigned nrandom, uint64_t seed, uint64_t block, unsigned char *out)
{
	uint64_t s = seed ^ (block * 0xd6e8feb86659fd93ull), v;
	unsigned i;

	splitmix64(&s);
	for (i = 0; i + 8 <= nrandom; i += 8) {
		v = splitmix64(&s);
		memcpy(out + i, &v, 8);
	}
	if (i < nrandom) {
		v = splitmix64(&s);
		memcpy(out + i, &v, nrandom - i);
	}
	memset(out + nrandom, 0, FILL_BLOCK - nrandom);
}

void fill_bytes(const struct fill *f, uint64_t seed, uint64_t off, void *buf, size_t len)
{
	unsigned nrandom = random_bytes(f);
	unsigned char *out = buf, tmp[FILL_BLOCK];

	if (nrandom == 0) {
		memset(buf, 0, len);
		return;
	}
	while (len > 0) {
		uint64_t block = off / FILL_BLOCK;
		size_t in = (size_t)(off % FILL_BLOCK), n = FILL_BLOCK - in;

		if (n > len)
			n = len;
		if (in == 0 && n == FILL_BLOCK) {
			fill_block(nrandom, seed, block, out);
		} else {
			fill_block(nrandom, seed, block, tmp);
			memcpy(out, tmp + in, n);
		}
		out += n;
		off += n;
		len -= n;
	}
}
