/* lib/sha256.h: SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104): the hash
 * that identifies a trace file (report/) and the keyed hash that names an
 * anonymised path component (anon/). */
#ifndef RIOT_LIB_SHA256_H
#define RIOT_LIB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32		/* bytes of a digest */
#define SHA256_BLOCK 64		/* bytes of a block, and of an HMAC pad */

struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char block[SHA256_BLOCK];
	size_t fill;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *p, size_t n);
/* Ends the hash into out; s must be initialised again before reuse. */
void sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN]);
/* SHA-256 of a file as 64 hex digits and a NUL. 0 or -errno. */
int sha256_file(const char *path, char hex[65]);

/* An HMAC key made ready: the states after the inner and outer pads, so
 * each message costs its own blocks and two more, whatever the key. */
struct hmac_sha256_key {
	struct sha256 inner, outer;
};

/* Any length of key (a key longer than a block is hashed first, as RFC
 * 2104 says). */
void hmac_sha256_key_init(struct hmac_sha256_key *k, const void *key, size_t len);
/* A message in pieces: start, sha256_update() each, finish. */
void hmac_sha256_start(const struct hmac_sha256_key *k, struct sha256 *s);
void hmac_sha256_finish(const struct hmac_sha256_key *k, struct sha256 *s,
			uint8_t out[SHA256_LEN]);
/* A message in one piece. */
void hmac_sha256(const struct hmac_sha256_key *k, const void *msg, size_t n,
		 uint8_t out[SHA256_LEN]);

#endif
