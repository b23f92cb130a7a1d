/* tests/unit/test_sha256.c: SHA-256 against FIPS 180-4's examples, and
 * HMAC-SHA256 against every test case of RFC 4231 (case 5 compares the
 * first 128 bits, as the RFC does). */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/sha256.h"
#include "tests/unit/unit.h"

static void hex(const uint8_t *d, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* "0b0b..." into bytes; returns the length. */
static size_t unhex(const char *s, uint8_t *out)
{
	size_t n = 0;

	for (; s[0] && s[1]; s += 2) {
		unsigned v;

		sscanf(s, "%2x", &v);
		out[n++] = (uint8_t)v;
	}
	return n;
}

static void check_sha(const char *msg, size_t repeat, const char *want)
{
	struct sha256 s;
	uint8_t d[SHA256_LEN];
	char got[65];

	sha256_init(&s);
	for (size_t i = 0; i < repeat; i++)
		sha256_update(&s, msg, strlen(msg));
	sha256_final(&s, d);
	hex(d, sizeof(d), got);
	CHECK_STR(got, want);
}

struct hmac_case {
	const char *key_hex, *data_hex, *mac_hex;
};

/* RFC 4231, section 4: test cases 1 to 7. */
static const struct hmac_case cases[] = {
	{ "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657265",
	  "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7" },
	{ "4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
	  "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" },
	{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	  "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
	  "dddd",
	  "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe" },
	{ "0102030405060708090a0b0c0d0e0f10111213141516171819",
	  "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"
	  "cdcd",
	  "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b" },
	{ "0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c", "546573742057697468205472756e636174696f6e",
	  "a3b6167473100ee06e0c796c2955552b" },
	{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	  "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579"
	  "204669727374",
	  "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54" },
	{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	  "5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a65206b65"
	  "7920616e642061206c6172676572207468616e20626c6f636b2d73697a6520646174612e20546865206b6579206e6565"
	  "647320746f20626520686173686564206265666f7265206265696e6720757365642062792074686520484d414320616c"
	  "676f726974686d2e",
	  "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2" },
};

static void check_hmac(const struct hmac_case *c)
{
	uint8_t key[256], data[256], mac[SHA256_LEN];
	size_t klen = unhex(c->key_hex, key), dlen = unhex(c->data_hex, data);
	struct hmac_sha256_key k;
	struct sha256 s;
	char got[65];

	hmac_sha256_key_init(&k, key, klen);
	hmac_sha256(&k, data, dlen, mac);
	hex(mac, strlen(c->mac_hex) / 2, got);
	CHECK_STR(got, c->mac_hex);
	/* the same message in pieces, across a block boundary */
	hmac_sha256_start(&k, &s);
	sha256_update(&s, data, dlen / 3);
	sha256_update(&s, data + dlen / 3, dlen - dlen / 3);
	hmac_sha256_finish(&k, &s, mac);
	hex(mac, strlen(c->mac_hex) / 2, got);
	CHECK_STR(got, c->mac_hex);
}

int main(void)
{
	char tmpl[] = "/tmp/riot-sha.XXXXXX", hexd[65];
	int fd;

	check_sha("", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_sha("abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check_sha("a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_hmac(&cases[i]);

	fd = mkstemp(tmpl);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK_EQ(write(fd, "abc", 3), 3);
		close(fd);
		CHECK_EQ(sha256_file(tmpl, hexd), 0);
		CHECK_STR(hexd, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
		unlink(tmpl);
	}
	CHECK_EQ(sha256_file("/nonexistent/riot-sha", hexd), -ENOENT);
	return unit_done();
}
