/* replay/fill.c: file content for init and replay (fill.h).
 *
 * Content is made per 4 KiB block of the file: a block is a fixed random
 * pad of 4 KiB XORed with four 64-bit keys (one per word, in turn) drawn
 * from a splitmix64 stream keyed by (seed, block index). Any byte range can
 * be produced on its own, in any order, on any thread; two blocks differ
 * wherever their keys do, so they never repeat; a compressor finds no
 * match within a block (the pad is random) nor between blocks (their bytes
 * differ by a 32-byte pattern of random keys). A block costs 512 XORs, not
 * 512 rounds of a generator, which matters on the replay's hot path.
 * compress:PCT keeps the first 100-PCT percent of each block random and
 * zeroes the rest: a compressor finds nothing in the random part and
 * nearly everything in the zeros, so the block shrinks by about PCT %. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "replay/fill.h"
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

#define PAD_WORDS (FILL_BLOCK / 8)

typedef uint64_t __attribute__((may_alias, aligned(1))) u64_unaligned;

static uint64_t pad[PAD_WORDS];
static pthread_once_t pad_once = PTHREAD_ONCE_INIT;

/* The same pad in every riot, so a file's content depends on its seed and
 * offsets alone. */
static void make_pad(void)
{
	uint64_t s = 0x72696f7466696c6cull;

	for (unsigned i = 0; i < PAD_WORDS; i++)
		pad[i] = splitmix64(&s);
}

/* One whole block into out (FILL_BLOCK bytes). */
static void fill_block(unsigned nrandom, uint64_t seed, uint64_t block, unsigned char *out)
{
	uint64_t s = seed ^ (block * 0xd6e8feb86659fd93ull), k[4], v;
	u64_unaligned *o = (u64_unaligned *)out;
	unsigned words = nrandom / 8, i;

	splitmix64(&s);
	for (i = 0; i < 4; i++)
		k[i] = splitmix64(&s);
	for (i = 0; i + 4 <= words; i += 4) {
		o[i] = pad[i] ^ k[0];
		o[i + 1] = pad[i + 1] ^ k[1];
		o[i + 2] = pad[i + 2] ^ k[2];
		o[i + 3] = pad[i + 3] ^ k[3];
	}
	for (; i < words; i++)
		o[i] = pad[i] ^ k[i & 3];
	if (nrandom % 8) {
		v = pad[i] ^ k[i & 3];
		memcpy(out + i * 8, &v, nrandom % 8);
	}
	if (nrandom < FILL_BLOCK)
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
	pthread_once(&pad_once, make_pad);
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
