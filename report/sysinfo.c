/* report/sysinfo.c: facts about the machine and filesystems a run used,
 * and the SHA-256 (FIPS 180-4) that identifies a trace file. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "report/report_int.h"

static void cpu_model(char *out, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	out[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) != 0 || !colon)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = 0;
		snprintf(out, len, "%s", colon);
		break;
	}
	fclose(f);
}

void host_facts_get(struct host_facts *h)
{
	struct utsname u;
	struct sysinfo si;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	memset(h, 0, sizeof(*h));
	if (uname(&u) == 0) {
		snprintf(h->host, sizeof(h->host), "%s", u.nodename);
		snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
		snprintf(h->arch, sizeof(h->arch), "%s", u.machine);
	}
	cpu_model(h->cpu_model, sizeof(h->cpu_model));
	h->cpu_count = n > 0 ? (unsigned)n : 0;
	if (sysinfo(&si) == 0)
		h->memory_bytes = (uint64_t)si.totalram * si.mem_unit;
}

/* ---- /proc/self/mountinfo ---- */

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && isdigit((unsigned char)s[2]) &&
		    isdigit((unsigned char)s[3])) {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

struct mount_line {
	unsigned major, minor;
	char *mount_point, *opts, *fs_type, *source, *super_opts;
};

/* Splits one mountinfo line in place. 0 or -EINVAL. */
static int mount_parse(char *line, struct mount_line *m)
{
	char *f[16], *save = NULL, *tok;
	int n = 0, dash = -1;

	line[strcspn(line, "\n")] = 0;
	for (tok = strtok_r(line, " ", &save); tok && n < 16; tok = strtok_r(NULL, " ", &save)) {
		if (strcmp(tok, "-") == 0 && dash < 0)
			dash = n;
		f[n++] = tok;
	}
	if (n < 6 || dash < 6 || dash + 3 > n ||
	    sscanf(f[2], "%u:%u", &m->major, &m->minor) != 2)
		return -EINVAL;
	m->mount_point = f[4];
	m->opts = f[5];
	m->fs_type = f[dash + 1];
	m->source = f[dash + 2];
	m->super_opts = dash + 3 < n ? f[dash + 3] : "";
	unescape(m->mount_point);
	unescape(m->source);
	return 0;
}

/* Copies a mount into fs, strings in buf: options are the mount's and then
 * the superblock's that add something ("rw,relatime,errors=remount-ro"). */
static int mount_fill(const struct mount_line *m, struct run_fs *fs, char *buf, size_t len)
{
	char opts[1024], *save = NULL, *tok, super[1024];
	size_t used = 0;
	int n;

	snprintf(opts, sizeof(opts), "%s", m->opts);
	snprintf(super, sizeof(super), "%s", m->super_opts);
	for (tok = strtok_r(super, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "rw") == 0 || strcmp(tok, "ro") == 0)
			continue;
		if (strlen(opts) + strlen(tok) + 2 < sizeof(opts))
			strcat(strcat(opts, ","), tok);
	}
	n = snprintf(buf, len, "%s%c%s%c%s%c%s", m->fs_type, 0, m->source, 0,
		     m->mount_point, 0, opts);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	fs->dev = makedev(m->major, m->minor);
	fs->fs_type = buf;
	used = strlen(buf) + 1;
	fs->device = buf + used;
	used += strlen(buf + used) + 1;
	fs->mount_point = buf + used;
	used += strlen(buf + used) + 1;
	fs->mount_options = buf + used;
	return 0;
}

/* Whether mount point mp contains path (whole components). */
static size_t mount_covers(const char *mp, const char *path)
{
	size_t n = strlen(mp);

	if (strcmp(mp, "/") == 0)
		return 1;
	if (strncmp(mp, path, n) != 0 || (path[n] != '/' && path[n] != 0))
		return 0;
	return n;
}

/* The mount of dev (when path is NULL) or the one holding path: the
 * longest covering mount point, the last listed winning a tie (it is
 * mounted over the others). */
static int mount_find(uint64_t dev, const char *path, struct run_fs *fs, char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096], best[4096];
	size_t best_len = 0;
	struct mount_line m;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char copy[4096];
		size_t cover;

		memcpy(copy, line, sizeof(copy));
		if (mount_parse(copy, &m) < 0)
			continue;
		if (path)
			cover = mount_covers(m.mount_point, path);
		else
			cover = makedev(m.major, m.minor) == dev ? 1 : 0;
		if (cover && cover >= best_len) {
			best_len = cover;
			memcpy(best, line, sizeof(best));
			if (!path)
				break;	/* the first mount of a device is its root */
		}
	}
	fclose(f);
	if (!best_len)
		return -ENOENT;
	mount_parse(best, &m);
	return mount_fill(&m, fs, buf, len);
}

int run_fs_of_dev(uint64_t dev, struct run_fs *fs, char *buf, size_t buflen)
{
	memset(fs, 0, sizeof(*fs));
	return mount_find(dev, NULL, fs, buf, buflen);
}

int run_fs_of_path(const char *path, struct run_fs *fs, char *buf, size_t buflen)
{
	char real[PATH_MAX];

	memset(fs, 0, sizeof(*fs));
	if (!realpath(path, real))
		return -errno;
	return mount_find(0, real, fs, buf, buflen);
}

/* ---- SHA-256 ---- */

struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char block[64];
	size_t fill;
};

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

static void sha_init(struct sha256 *s)
{
	static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memset(s, 0, sizeof(*s));
	memcpy(s->h, h0, sizeof(h0));
}

static void sha_update(struct sha256 *s, const unsigned char *p, size_t n)
{
	s->len += n;
	while (n) {
		size_t take = 64 - s->fill < n ? 64 - s->fill : n;

		if (!s->fill && n >= 64) {
			sha_block(s, p);
			p += 64;
			n -= 64;
			continue;
		}
		memcpy(s->block + s->fill, p, take);
		s->fill += take;
		p += take;
		n -= take;
		if (s->fill == 64) {
			sha_block(s, s->block);
			s->fill = 0;
		}
	}
}

static void sha_final(struct sha256 *s, char hex[65])
{
	uint64_t bits = s->len * 8;
	unsigned char pad[72] = { 0x80 };
	size_t padlen = (s->fill < 56 ? 56 : 120) - s->fill;

	for (unsigned i = 0; i < 8; i++)
		pad[padlen + i] = (unsigned char)(bits >> (56 - 8 * i));
	sha_update(s, pad, padlen + 8);
	for (unsigned i = 0; i < 8; i++)
		snprintf(hex + 8 * i, 9, "%08x", s->h[i]);
}

int sha256_file(const char *path, char hex[65])
{
	unsigned char buf[1 << 16];
	struct sha256 s;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	sha_init(&s);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sha_update(&s, buf, (size_t)n);
	close(fd);
	if (n < 0)
		return -EIO;
	sha_final(&s, hex);
	return 0;
}
