/* anon/names.c: the rewriting of names under one key (anon.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon/anon.h"
#include "lib/map.h"
#include "lib/pathname.h"
#include "lib/sha256.h"
#include "model/model.h"

/* Domains: the byte hashed before a name, so a file called "foo", a process
 * called "foo" and an xattr "user.foo" give unrelated names. */
enum { DOMAIN_PATH = 'p', DOMAIN_COMM = 'c', DOMAIN_XATTR = 'x' };

#define DELETED " (deleted)"
#define DELETED_LEN (sizeof(DELETED) - 1)

/* A symlink the log shows: where a path through it leads. */
struct anon_link {
	char *path;		/* absolute, as the resolver gives it */
	char *target;		/* as recorded */
};

#define LINK_HOPS 40	/* links followed in one path, as the kernel's
			 * MAXSYMLINKS: past them the position is unknown */

struct anon {
	struct hmac_sha256_key key;
	struct anon_link *links;
	size_t nlinks, links_cap;
	struct u64map by_path;	/* hash of a link's path -> its index */
	uint64_t seed;		/* of those hashes */
	bool keep_ext;
	char **keep;		/* normalised absolute prefixes */
	size_t *keep_len;
	unsigned nkeep;
	struct anon_counts counts;
	char pos[MODEL_PATH_MAX];	/* the absolute position of a component */
};

int anon_check_keep(const char *prefix, char *err, size_t errlen)
{
	char n[MODEL_PATH_MAX];
	bool truncated = false;

	if (prefix[0] != '/') {
		snprintf(err, errlen, "--keep %s: not an absolute path", prefix);
		return -EINVAL;
	}
	path_resolve(n, sizeof(n), "/", 1, prefix, &truncated);
	if (truncated) {
		snprintf(err, errlen, "--keep: a prefix of %zu bytes or more", sizeof(n));
		return -EINVAL;
	}
	if (strcmp(n, "/") == 0) {
		snprintf(err, errlen, "--keep %s: keeps every path, nothing would be hidden", prefix);
		return -EINVAL;
	}
	return 0;
}

struct anon *anon_new(const struct anon_opts *o, char *err, size_t errlen)
{
	struct anon *a = calloc(1, sizeof(*a));
	bool truncated = false;
	int rc = -ENOMEM;

	if (!a)
		return NULL;
	hmac_sha256_key_init(&a->key, o->key, o->key_len);
	a->seed = map_seed();
	map_init(&a->by_path, a->seed);
	a->keep_ext = o->keep_ext;
	a->keep = calloc(o->nkeep ? o->nkeep : 1, sizeof(*a->keep));
	a->keep_len = calloc(o->nkeep ? o->nkeep : 1, sizeof(*a->keep_len));
	if (!a->keep || !a->keep_len)
		goto fail;
	for (unsigned i = 0; i < o->nkeep; i++) {
		if ((rc = anon_check_keep(o->keep[i], err, errlen)))
			goto fail;
		a->keep[i] = malloc(MODEL_PATH_MAX);
		if (!a->keep[i]) {
			rc = -ENOMEM;
			goto fail;
		}
		a->nkeep++;
		a->keep_len[i] = path_resolve(a->keep[i], MODEL_PATH_MAX, "/", 1, o->keep[i],
					      &truncated);
	}
	return a;
fail:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	anon_free(a);
	errno = -rc;
	return NULL;
}

void anon_free(struct anon *a)
{
	if (!a)
		return;
	for (unsigned i = 0; i < a->nkeep; i++)
		free(a->keep[i]);
	for (size_t i = 0; i < a->nlinks; i++) {
		free(a->links[i].path);
		free(a->links[i].target);
	}
	free(a->links);
	map_fini(&a->by_path);
	free(a->keep);
	free(a->keep_len);
	memset(&a->key, 0, sizeof(a->key));
	free(a);
}

const struct anon_counts *anon_counts(const struct anon *a)
{
	return &a->counts;
}

/* len base32 characters ([a-z2-7], RFC 4648's alphabet in lower case: no
 * two names differ only in case) of HMAC(key, domain || s[0..n)) into out;
 * past the 51 characters one HMAC gives, the next 51 come from
 * HMAC(key, domain || s || k) for k = 1, 2, ... (one byte). */
static void token(struct anon *a, int domain, const char *s, size_t n, char *out, size_t len)
{
	static const char b32[] = "abcdefghijklmnopqrstuvwxyz234567";
	enum { PER_MAC = SHA256_LEN * 8 / 5 };
	uint8_t mac[SHA256_LEN + 1] = { 0 }, d = (uint8_t)domain;

	for (size_t i = 0; i < len; i++) {
		unsigned bit = (unsigned)(i % PER_MAC) * 5, v;

		if (i % PER_MAC == 0) {
			uint8_t k = (uint8_t)(i / PER_MAC);
			struct sha256 h;

			hmac_sha256_start(&a->key, &h);
			sha256_update(&h, &d, 1);
			sha256_update(&h, s, n);
			if (k)
				sha256_update(&h, &k, 1);
			hmac_sha256_finish(&a->key, &h, mac);
		}
		v = (unsigned)mac[bit / 8] << 8 | mac[bit / 8 + 1];
		out[i] = b32[(v >> (11 - bit % 8)) & 31];
	}
}

/* --keep-ext: the length of the extension of c[0..n) kept, with its '.';
 * 0 for none. */
static size_t ext_len(const char *c, size_t n)
{
	const char *dot = memrchr(c, '.', n);
	size_t e;

	if (!dot || dot == c)
		return 0;
	e = n - (size_t)(dot - c) - 1;
	if (e == 0 || e > ANON_EXT_MAX)
		return 0;
	for (size_t i = 1; i <= e; i++) {
		char ch = dot[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')))
			return 0;
	}
	return e + 1;
}

/* Whether p[0..n) is c. */
static bool is(const char *p, size_t n, const char *c)
{
	return strlen(c) == n && memcmp(p, c, n) == 0;
}

/* Whether the component at position pos[0..len) (absolute, normalised,
 * len > 1) stays in the clear. */
static bool pos_clear(const struct anon *a, const char *pos, size_t len)
{
	const char *last = memrchr(pos, '/', len) + 1;
	size_t n = len - (size_t)(last - pos);

	if (is(pos, len, "/proc") || is(pos, len, "/sys") || is(pos, len, "/dev"))
		return true;
	if (len > 6 && memcmp(pos, "/proc/", 6) == 0) {
		size_t d = 0;

		while (d < n && last[d] >= '0' && last[d] <= '9')
			d++;
		if (d == n || is(last, n, "self") || is(last, n, "thread-self") ||
		    is(last, n, "task") || is(last, n, "fd"))
			return true;
	}
	for (unsigned i = 0; i < a->nkeep; i++) {
		const char *k = a->keep[i];
		size_t kl = a->keep_len[i];

		/* an ancestor of the prefix, the prefix, or beneath it */
		if (len <= kl && memcmp(pos, k, len) == 0 && (k[len] == '/' || !k[len]))
			return true;
		if (len > kl && memcmp(pos, k, kl) == 0 && pos[kl] == '/')
			return true;
	}
	return false;
}

/* Appends p[0..n) to out at *o, if it fits with the NUL. */
static bool put(char *out, size_t cap, size_t *o, const char *p, size_t n)
{
	if (*o + n + 1 > cap)
		return false;
	memcpy(out + *o, p, n);
	*o += n;
	return true;
}

/* Moves the position into component c[0..n) ('..' climbs, never above
 * "/"); false once it is unknown (it no longer fits). */
static bool pos_step(struct anon *a, size_t *len, const char *c, size_t n)
{
	if (path_is_dotdot(c, n)) {
		while (*len > 1 && a->pos[*len - 1] != '/')
			(*len)--;
		if (*len > 1)
			(*len)--;
		return true;
	}
	if (*len + 1 + n + 1 > sizeof(a->pos))
		return false;
	if (*len > 1)
		a->pos[(*len)++] = '/';
	memcpy(a->pos + *len, c, n);
	*len += n;
	return true;
}

static const char *link_target(const struct anon *a, const char *p, size_t n)
{
	uint32_t it = 0;
	uint64_t *v;

	while ((v = map_next(&a->by_path, hash_bytes(p, n, a->seed), &it))) {
		const char *lp = a->links[*v].path;

		if (strlen(lp) == n && memcmp(lp, p, n) == 0)
			return a->links[*v].target;
	}
	return NULL;
}

int anon_add_link(struct anon *a, const char *path, const char *target)
{
	size_t n = strlen(path);
	struct anon_link *l;

	if (path[0] != '/' || link_target(a, path, n))
		return 0;	/* the first the log shows counts */
	if (a->nlinks == a->links_cap) {
		size_t cap = a->links_cap ? a->links_cap * 2 : 64;
		struct anon_link *nl = realloc(a->links, cap * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		a->links = nl;
		a->links_cap = cap;
	}
	l = &a->links[a->nlinks];
	l->path = strdup(path);
	l->target = strdup(target);
	if (!l->path || !l->target || map_add(&a->by_path, hash_bytes(path, n, a->seed), a->nlinks) < 0) {
		free(l->path);
		free(l->target);
		return -ENOMEM;
	}
	a->nlinks++;
	return 0;
}

static bool follow(struct anon *a, size_t *len, unsigned *hops);

/* Moves the position along the components of text, through the links the
 * log shows ('..' from where a link led, as the kernel climbs); false
 * once it is unknown. */
static bool walk(struct anon *a, size_t *len, const char *text, unsigned *hops)
{
	const char *p = text, *c;
	size_t n;

	if (text[0] == '/')
		*len = 1;
	while (path_next(&p, &c, &n)) {
		if (path_is_dot(c, n))
			continue;
		if (!pos_step(a, len, c, n) || (!path_is_dotdot(c, n) && !follow(a, len, hops)))
			return false;
	}
	return true;
}

/* When the position is a symlink the log shows, moves it to where the
 * link leads (its target from the link's directory). */
static bool follow(struct anon *a, size_t *len, unsigned *hops)
{
	const char *t = a->nlinks ? link_target(a, a->pos, *len) : NULL;

	if (!t)
		return true;
	if (++*hops > LINK_HOPS)
		return false;
	pos_step(a, len, "..", 2);
	return walk(a, len, t, hops);
}

size_t anon_path(struct anon *a, const char *s, const char *base, unsigned flags,
		 char *out, size_t cap, bool *cut)
{
	unsigned hops = 0;
	size_t o = 0, plen = 1;
	bool known = true;
	const char *p = s;

	a->pos[0] = '/';
	if (s[0] != '/') {
		size_t bl = base ? strlen(base) : 0;

		known = base && base[0] == '/' && bl < sizeof(a->pos);
		if (known && a->nlinks) {
			known = walk(a, &plen, base, &hops);
		} else if (known) {
			memcpy(a->pos, base, bl);
			plen = bl;
			while (plen > 1 && a->pos[plen - 1] == '/')
				plen--;
		}
	}
	while (*p) {
		const char *c = p;
		size_t n, keep_n, suffix = 0;
		char tok[ANON_TOKEN_LEN];
		bool ok;

		if (*p == '/') {
			while (*p == '/')
				p++;
			if (!put(out, cap, &o, c, (size_t)(p - c)))
				goto cut;
			continue;
		}
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - c);
		if (path_is_dot(c, n) || path_is_dotdot(c, n)) {
			if (known && !path_is_dot(c, n))
				pos_step(a, &plen, c, n);
			if (!put(out, cap, &o, c, n))
				goto cut;
			continue;
		}
		if ((flags & ANON_PATH_FD) && !*p && n > DELETED_LEN &&
		    memcmp(c + n - DELETED_LEN, DELETED, DELETED_LEN) == 0)
			suffix = DELETED_LEN;
		keep_n = n - suffix;
		known = known && pos_step(a, &plen, c, keep_n);
		if (known && pos_clear(a, a->pos, plen)) {
			a->counts.clear++;
			ok = put(out, cap, &o, c, n);
		} else {
			size_t e = a->keep_ext ? ext_len(c, keep_n) : 0;

			a->counts.hashed++;
			token(a, DOMAIN_PATH, c, keep_n, tok, sizeof(tok));
			ok = o + sizeof(tok) + e + suffix + 1 <= cap;
			if (ok) {
				put(out, cap, &o, tok, sizeof(tok));
				put(out, cap, &o, c + keep_n - e, e + suffix);
			}
		}
		if (!ok)
			goto cut;
		/* what follows lies where the link leads */
		known = known && follow(a, &plen, &hops);
	}
	out[o] = '\0';
	return o;
cut:
	*cut = true;
	while (o > 1 && out[o - 1] == '/')	/* no separator before nothing */
		o--;
	out[o] = '\0';
	return o;
}

bool anon_xattr_value_kept(const char *name)
{
	return strncmp(name, "system.", 7) == 0 || strncmp(name, "security.", 9) == 0;
}

size_t anon_xattr_name(struct anon *a, const char *name, char *out, size_t cap)
{
	size_t ns = 0, n = strlen(name);

	if (anon_xattr_value_kept(name) || n + 1 > cap) {
		snprintf(out, cap, "%s", anon_xattr_value_kept(name) ? name : "");
		return strlen(out);
	}
	if (strncmp(name, "user.", 5) == 0)
		ns = 5;
	else if (strncmp(name, "trusted.", 8) == 0)
		ns = 8;
	/* as long as the name: listxattr returns the names' sizes */
	memcpy(out, name, ns);
	token(a, DOMAIN_XATTR, name + ns, n - ns, out + ns, n - ns);
	out[n] = '\0';
	return n;
}

size_t anon_comm(struct anon *a, const char *comm, char *out, size_t cap)
{
	size_t n = strlen(comm);

	if (!n || cap < ANON_COMM_LEN + 1) {
		out[0] = '\0';
		return 0;
	}
	token(a, DOMAIN_COMM, comm, n, out, ANON_COMM_LEN);
	out[ANON_COMM_LEN] = '\0';
	return ANON_COMM_LEN;
}
