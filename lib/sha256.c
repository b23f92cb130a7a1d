/* lib/sha256.c: SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/sha256.h"

static const uint32_t sha_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void sha_block(struct sha256 *s, const unsigned char *p)
{
	uint32_t w[64], v[8], t1, t2;

	for (unsigned i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (unsigned i = 16; i < 64; i++)
		w[i] = w[i - 16] + (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
		       w[i - 7] + (ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10));
	memcpy(v, s->h, sizeof(v));
	for (unsigned i = 0; i < 64; i++) {
		t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
		     ((v[4] & v[5]) ^ (~v[4] & v[6])) + sha_k[i] + w[i];
		t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
		     ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (unsigned i = 0; i < 8; i++)
		s->h[i] += v[i];
}

void sha256_init(struct sha256 *s)
{
	static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memset(s, 0, sizeof(*s));
	memcpy(s->h, h0, sizeof(h0));
}

void sha256_update(struct sha256 *s, const void *data, size_t n)
{
	const unsigned char *p = data;

	s->len += n;
	while (n) {
		size_t take = SHA256_BLOCK - s->fill < n ? SHA256_BLOCK - s->fill : n;

		if (!s->fill && n >= SHA256_BLOCK) {
			sha_block(s, p);
			p += SHA256_BLOCK;
			n -= SHA256_BLOCK;
			continue;
		}
		memcpy(s->block + s->fill, p, take);
		s->fill += take;
		p += take;
		n -= take;
		if (s->fill == SHA256_BLOCK) {
			sha_block(s, s->block);
			s->fill = 0;
		}
	}
}

void sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN])
{
	uint64_t bits = s->len * 8;
	unsigned char pad[72] = { 0x80 };
	size_t padlen = (s->fill < 56 ? 56 : 120) - s->fill;

	for (unsigned i = 0; i < 8; i++)
		pad[padlen + i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_update(s, pad, padlen + 8);
	for (unsigned i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(s->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)s->h[i];
	}
}

int sha256_file(const char *path, char hex[65])
{
	unsigned char buf[1 << 16];
	uint8_t d[SHA256_LEN];
	struct sha256 s;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	sha256_init(&s);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sha256_update(&s, buf, (size_t)n);
	close(fd);
	if (n < 0)
		return -EIO;
	sha256_final(&s, d);
	for (unsigned i = 0; i < SHA256_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	return 0;
}

void hmac_sha256_key_init(struct hmac_sha256_key *k, const void *key, size_t len)
{
	unsigned char pad[SHA256_BLOCK] = { 0 };

	if (len > SHA256_BLOCK) {
		struct sha256 s;

		sha256_init(&s);
		sha256_update(&s, key, len);
		sha256_final(&s, pad);
	} else if (len) {
		memcpy(pad, key, len);
	}
	for (unsigned i = 0; i < SHA256_BLOCK; i++)
		pad[i] ^= 0x36;
	sha256_init(&k->inner);
	sha256_update(&k->inner, pad, SHA256_BLOCK);
	for (unsigned i = 0; i < SHA256_BLOCK; i++)
		pad[i] ^= 0x36 ^ 0x5c;
	sha256_init(&k->outer);
	sha256_update(&k->outer, pad, SHA256_BLOCK);
	memset(pad, 0, sizeof(pad));
}

void hmac_sha256_start(const struct hmac_sha256_key *k, struct sha256 *s)
{
	*s = k->inner;
}

void hmac_sha256_finish(const struct hmac_sha256_key *k, struct sha256 *s,
			uint8_t out[SHA256_LEN])
{
	uint8_t inner[SHA256_LEN];

	sha256_final(s, inner);
	*s = k->outer;
	sha256_update(s, inner, SHA256_LEN);
	sha256_final(s, out);
}

void hmac_sha256(const struct hmac_sha256_key *k, const void *msg, size_t n,
		 uint8_t out[SHA256_LEN])
{
	struct sha256 s;

	hmac_sha256_start(k, &s);
	sha256_update(&s, msg, n);
	hmac_sha256_finish(k, &s, out);
}
